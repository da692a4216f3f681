package scan

import (
	"encoding/binary"
	"fmt"
)

// MaxSums is how many columns one query can sum.
const MaxSums = 8

// Result is what a scan of some rows found. It has a fixed size and no
// pointers, so workers can each own one and the parent merges them. It owns
// its merge (Merge), its equality (Equal) and its encoding for the child
// protocol (AppendBinary, DecodeResult).
type Result struct {
	Rows    int64 // data rows scanned (blank lines and headers are not rows)
	Matched int64 // rows that passed the filter
	// Quoted counts the rows that held a quote and so took the full parser.
	// A row split relies on it: cuts moved to the next newline are only
	// sure to be row starts in a file none of whose rows holds a quote.
	Quoted int64
	Sums   [MaxSums]Fixed
}

// Merge adds o into r. Sums are exact and cannot overflow (see Fixed), so
// the merged answer is the same digits whatever the order.
func (r *Result) Merge(o *Result) {
	for i := range r.Sums {
		r.Sums[i].AddFixed(o.Sums[i])
	}
	r.Rows += o.Rows
	r.Matched += o.Matched
	r.Quoted += o.Quoted
}

// Equal reports whether r and o are the same answer: the same counts and
// Equal sums (however each sum is split between its parts).
func (r *Result) Equal(o *Result) bool {
	if r.Rows != o.Rows || r.Matched != o.Matched || r.Quoted != o.Quoted {
		return false
	}
	for i := range r.Sums {
		if !r.Sums[i].Equal(o.Sums[i]) {
			return false
		}
	}
	return true
}

// ResultSize is the length of a Result's binary form.
const ResultSize = 8 * (3 + 5*MaxSums)

// AppendBinary appends r's binary form: ResultSize bytes, every field a
// little-endian 64-bit word in declaration order (Rows, Matched, Quoted,
// then per sum V, Scale, C[0], C[1], C[2]).
func (r *Result) AppendBinary(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b, uint64(r.Rows))
	b = le.AppendUint64(b, uint64(r.Matched))
	b = le.AppendUint64(b, uint64(r.Quoted))
	for _, s := range r.Sums {
		b = le.AppendUint64(b, uint64(s.V))
		b = le.AppendUint64(b, uint64(s.Scale))
		for _, w := range s.C {
			b = le.AppendUint64(b, w)
		}
	}
	return b
}

// DecodeResult reads what AppendBinary wrote.
func DecodeResult(b []byte) (Result, error) {
	var r Result
	if len(b) < ResultSize {
		return r, fmt.Errorf("result: %d bytes, want %d", len(b), ResultSize)
	}
	le := binary.LittleEndian
	word := func(i int) uint64 { return le.Uint64(b[8*i:]) }
	r.Rows, r.Matched, r.Quoted = int64(word(0)), int64(word(1)), int64(word(2))
	for i := range r.Sums {
		k := 3 + 5*i
		s := &r.Sums[i]
		s.V, s.Scale = int64(word(k)), int64(word(k+1))
		s.C = wide{word(k + 2), word(k + 3), word(k + 4)}
		if s.Scale < 0 || s.Scale > MaxScale {
			return r, fmt.Errorf("result: sum %d has scale %d", i, s.Scale)
		}
	}
	return r, nil
}
