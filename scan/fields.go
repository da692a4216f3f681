package scan

import (
	"encoding/binary"
	"math/bits"
)

// SWAR ("SIMD within a register"): find the commas of a row 8 bytes at a
// time. On a matching row of the Sales set (13 commas in ~120 bytes) pick
// replaced 13 bytes.IndexByte calls, and pickBack (a vectorised comma count,
// then a walk over the last ~35 bytes only) took the all-rows query from 1.06
// to GB/s in memory (BenchmarkScanAll).
const (
	lo7    = 0x7F7F7F7F7F7F7F7F
	commas = 0x2C2C2C2C2C2C2C2C
)

// commaMask has the high bit set in every byte of w that is ','. It is exact
// (no false positives after a borrow, unlike the shorter haszero trick), so a
// "-" after a comma is not taken for one.
func commaMask(w uint64) uint64 {
	x := w ^ commas // zero bytes where w has ','
	return ^((x&lo7 + lo7) | x | lo7)
}

// pick finds the summed fields of a bare row (no quotes; line end stripped)
// and stores them in fields and their offsets in line in offs, in byCol
// order. It returns how many it found (b.nsum unless the row is too short)
// and how many fields the row has (counted only when it is short).
func (b *binding) pick(line []byte, fields *[MaxSums][]byte, offs *[MaxSums]int) (found, have int) {
	k, col, start := 0, 0, 0 // field number col starts at line[start]
	want := b.byCol[0].col
	// take records field col = line[start:end] for every sum that wants it;
	// it reports whether all sums are found.
	take := func(end int) bool {
		for k < b.nsum && want == col {
			fields[k], offs[k] = line[start:end], start
			k++
			if k < b.nsum {
				want = b.byCol[k].col
			}
		}
		return k == b.nsum
	}
	i := 0
	for ; i+8 <= len(line); i += 8 {
		m := commaMask(binary.LittleEndian.Uint64(line[i:]))
		if m == 0 {
			continue
		}
		// The n commas here end fields col … col+n-1; if none of those is
		// wanted, skip the word whole instead of comma by comma.
		if n := bits.OnesCount64(m); col+n <= want {
			col += n
			start = i + (63-bits.LeadingZeros64(m))>>3 + 1
			continue
		}
		for m != 0 {
			x := i + bits.TrailingZeros64(m)>>3
			if col == want && take(x) {
				return k, 0
			}
			col, start = col+1, x+1
			m &= m - 1
		}
	}
	for ; i < len(line); i++ {
		if line[i] == ',' {
			if col == want && take(i) {
				return k, 0
			}
			col, start = col+1, i+1
		}
	}
	take(len(line))
	return k, col + 1
}

// pickBack is pick for a row known to have exactly ncols fields, walking from
// its end: the Sales set's money columns are 3 of its last 4, so this reads
// about 35 bytes of a 120-byte row. Only a row whose commas were counted may
// come here; any other row takes pick, so the answer never depends on which.
func (b *binding) pickBack(line []byte, fields *[MaxSums][]byte, offs *[MaxSums]int) {
	k := b.nsum - 1
	want := b.byCol[k].col
	col, end := b.ncols-1, len(line) // field number col ends at line[end]
	i := len(line)
	for ; i >= 8; i -= 8 {
		m := commaMask(binary.LittleEndian.Uint64(line[i-8:]))
		if m == 0 {
			continue
		}
		// The n commas here start fields col-n+1 … col; if none is wanted,
		// skip the word whole.
		if n := bits.OnesCount64(m); col-n >= want {
			col -= n
			end = i - 8 + bits.TrailingZeros64(m)>>3
			continue
		}
		for m != 0 {
			hb := 63 - bits.LeadingZeros64(m)
			x := i - 8 + hb>>3 // the highest comma left in this word
			for col == want {
				fields[k], offs[k] = line[x+1:end], x+1
				if k--; k < 0 {
					return
				}
				want = b.byCol[k].col
			}
			col, end = col-1, x
			m &^= 1 << hb
		}
	}
	// The first i bytes are left (no word fits); line[i:end] holds no comma.
	for x := min(i, end) - 1; x >= 0; x-- {
		if line[x] != ',' {
			continue
		}
		for col == want {
			fields[k], offs[k] = line[x+1:end], x+1
			if k--; k < 0 {
				return
			}
			want = b.byCol[k].col
		}
		col, end = col-1, x
	}
	for k >= 0 { // field 0
		fields[k], offs[k] = line[:end], 0
		k--
	}
}
