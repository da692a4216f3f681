package child

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"reflect"
	"sort"
	"sync"
)

// WriteJob and ReadJob are the one codec of a child's job, what its parent
// hands it to do. The query workers read theirs from the shared region, an
// FTP session and a load client theirs from a pipe, the MPI ranks theirs
// from a broadcast.
//
// The encoding is positional and built for a start's cost, not for
// storage: a child reads it once, first thing, where encoding/gob's package
// initialiser and its per-type decoder compilation cost a worker
// milliseconds at its start (docs/experiments.md, 2026-12-06). A job is
//
//	uvarint  the length of what follows
//	8 bytes  a fingerprint of the job's type (every field's name and kind,
//	         depth first), so a child of another build, or a caller that
//	         decodes into the wrong type, gets an error, not a wrong job
//	value    the value, depth first
//
// where a bool is one byte, an integer a varint (unsigned: uvarint), a
// string or []byte a uvarint length and its bytes unchanged (a path or a
// filter's value that is not UTF-8 arrives as it left), a slice a uvarint
// length and its elements, a map its length and its pairs in sorted key
// order, and a struct its fields in order. Other kinds (floats, pointers,
// interfaces, channels), and a struct with an unexported field (such as
// time.Time, whose value is all unexported), are refused with an error by
// WriteJob and ReadJob alike: a field that could not be carried is never
// silently left behind.
func WriteJob(w io.Writer, job any) error {
	v := reflect.ValueOf(job)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	fp, err := fingerprint(v.Type())
	if err != nil {
		return err
	}
	body := binary.LittleEndian.AppendUint64(nil, fp)
	body = appendValue(body, v)
	out := binary.AppendUvarint(make([]byte, 0, len(body)+binary.MaxVarintLen64), uint64(len(body)))
	_, err = w.Write(append(out, body...))
	return err
}

// maxJob bounds the length a job's prefix may claim, so a corrupt stream
// fails at once instead of allocating what it says.
const maxJob = 1 << 30

// ErrJob is the class of every error ReadJob returns for bytes that are not
// a job of the expected type (errors.Is).
var ErrJob = errors.New("child: bad job")

// ReadJob decodes a job that WriteJob wrote into job (a pointer to a value
// of the type that was written). It reads exactly the job's bytes from r.
func ReadJob(r io.Reader, job any) error {
	v := reflect.ValueOf(job)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return fmt.Errorf("%w: ReadJob wants a non-nil pointer, not %T", ErrJob, job)
	}
	v = v.Elem()
	fp, err := fingerprint(v.Type())
	if err != nil {
		return err
	}
	n, err := binary.ReadUvarint(byteReader{r})
	if err != nil {
		return fmt.Errorf("%w: its length: %w", ErrJob, err)
	}
	if n < 8 || n > maxJob {
		return fmt.Errorf("%w: a length of %d bytes", ErrJob, n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return fmt.Errorf("%w: %d bytes: %w", ErrJob, n, err)
	}
	if got := binary.LittleEndian.Uint64(b); got != fp {
		return fmt.Errorf("%w: written as another type than %s (another build?)", ErrJob, v.Type())
	}
	d := decoder{b: b[8:]}
	d.value(v)
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d bytes left over", len(d.b))
	}
	return d.err
}

// byteReader reads r one byte at a time, for the length prefix alone, so
// ReadJob takes no byte of r past the job.
type byteReader struct{ r io.Reader }

func (b byteReader) ReadByte() (byte, error) {
	var c [1]byte
	_, err := io.ReadFull(b.r, c[:])
	return c[0], err
}

var fingerprints sync.Map // reflect.Type → uint64

// fingerprint is the FNV-1a hash of t's shape (see WriteJob), or an error
// naming the first field of a kind the codec does not carry.
func fingerprint(t reflect.Type) (uint64, error) {
	if fp, ok := fingerprints.Load(t); ok {
		return fp.(uint64), nil
	}
	h := fnv.New64a()
	if err := shape(h, t, t.String()); err != nil {
		return 0, err
	}
	fp := h.Sum64()
	fingerprints.Store(t, fp)
	return fp, nil
}

func shape(w io.Writer, t reflect.Type, at string) error {
	fmt.Fprintf(w, "%s(", t.Kind())
	defer io.WriteString(w, ")")
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return nil
	case reflect.Slice:
		return shape(w, t.Elem(), at+"[]")
	case reflect.Map:
		if err := shape(w, t.Key(), at+" key"); err != nil {
			return err
		}
		return shape(w, t.Elem(), at+" value")
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Errorf("child: a job cannot carry %s.%s (%s): it is unexported", at, f.Name, t)
			}
			io.WriteString(w, f.Name+":")
			if err := shape(w, f.Type, at+"."+f.Name); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("child: a job cannot carry %s (%s)", at, t)
}

func appendValue(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(b, v.Uint())
	case reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		return append(b, v.String()...)
	case reflect.Slice:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return append(b, v.Bytes()...)
		}
		for i := range v.Len() {
			b = appendValue(b, v.Index(i))
		}
		return b
	case reflect.Map:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
		for _, k := range keys {
			b = appendValue(b, k)
			b = appendValue(b, v.MapIndex(k))
		}
		return b
	case reflect.Struct:
		for i := range v.NumField() {
			b = appendValue(b, v.Field(i))
		}
		return b
	}
	panic("child: appendValue of " + v.Type().String() + " (fingerprint lets no such type through)")
}

// less orders map keys so a job's bytes do not depend on map order.
func less(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.String:
		return a.String() < b.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() < b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return a.Uint() < b.Uint()
	case reflect.Bool:
		return !a.Bool() && b.Bool()
	}
	return false // other key kinds: any order decodes the same map
}

// decoder reads a value depth first from b; the first error stops it.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrJob}, args...)...)
	}
	d.b = nil
}

func (d *decoder) uvarint() uint64 {
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("a cut or overlong number")
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) varint() int64 {
	x, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("a cut or overlong number")
		return 0
	}
	d.b = d.b[n:]
	return x
}

// length reads a count of elements or bytes, each of which takes at least
// a byte of what is left, so a corrupt count fails before any allocation.
func (d *decoder) length() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("a length of %d with %d bytes left", n, len(d.b))
		return 0
	}
	return int(n)
}

func (d *decoder) value(v reflect.Value) {
	if d.err != nil {
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		if len(d.b) == 0 || d.b[0] > 1 {
			d.fail("a bool that is not 0 or 1")
			return
		}
		v.SetBool(d.b[0] == 1)
		d.b = d.b[1:]
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x := d.varint()
		if v.OverflowInt(x) {
			d.fail("%d overflows %s", x, v.Type())
			return
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x := d.uvarint()
		if v.OverflowUint(x) {
			d.fail("%d overflows %s", x, v.Type())
			return
		}
		v.SetUint(x)
	case reflect.String:
		n := d.length()
		v.SetString(string(d.b[:n]))
		d.b = d.b[n:]
	case reflect.Slice:
		n := d.length()
		if d.err != nil {
			return
		}
		if n == 0 {
			v.SetZero() // as gob: an empty slice arrives nil
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			s := reflect.MakeSlice(v.Type(), n, n)
			copy(s.Bytes(), d.b[:n])
			v.Set(s)
			d.b = d.b[n:]
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			d.value(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		n := d.length()
		if d.err != nil {
			return
		}
		if n == 0 {
			v.SetZero()
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		for range n {
			k.SetZero()
			e.SetZero()
			d.value(k)
			d.value(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			d.value(v.Field(i))
		}
	default:
		d.fail("a %s", v.Type()) // fingerprint lets no such type through
	}
}
