package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// KV is one key and value of an Ordered object.
type KV[V any] struct {
	Key   string
	Value V
}

// Ordered is a JSON object whose keys keep the order they were added in
// (encoding/json sorts a map's). It reads back in the order the text has.
type Ordered[V any] []KV[V]

// Add appends a key and its value.
func (o *Ordered[V]) Add(k string, v V) { *o = append(*o, KV[V]{k, v}) }

// Get returns the value of key k, and whether there is one.
func (o Ordered[V]) Get(k string) (V, bool) {
	for _, kv := range o {
		if kv.Key == k {
			return kv.Value, true
		}
	}
	var zero V
	return zero, false
}

func (o Ordered[V]) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, kv := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

func (o *Ordered[V]) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	t, err := d.Token()
	if err != nil {
		return err
	}
	if t == nil { // null
		*o = nil
		return nil
	}
	if t != json.Delim('{') {
		return fmt.Errorf("want an object, got %v", t)
	}
	*o = (*o)[:0]
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return err
		}
		var v V
		if err := d.Decode(&v); err != nil {
			return err
		}
		o.Add(t.(string), v)
	}
	_, err = d.Token() // the closing brace
	return err
}

// Float is a JSON number that is left out when it is NaN or infinite (which
// JSON cannot hold): use it as *Float with omitempty, through OptFloat.
type Float float64

// OptFloat is v as an optional JSON number: nil (left out) for NaN or ±Inf.
func OptFloat(v float64) *Float {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	f := Float(v)
	return &f
}

// Value is the number, NaN when it was left out.
func (f *Float) Value() float64 {
	if f == nil {
		return math.NaN()
	}
	return float64(*f)
}
