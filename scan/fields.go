package scan

import (
	"encoding/binary"
	"math/bits"
)

// SWAR ("SIMD within a register"): find the delimiters of a row 8 bytes at
// a time. On a matching row of the Sales set (13 commas in ~120 bytes) pick
// replaced 13 bytes.IndexByte calls. Rows inside a classified window take
// pickBack instead, which reads the window's delimiter ("comma") bitmap.
const (
	lo7   = 0x7F7F7F7F7F7F7F7F
	ones8 = 0x0101010101010101
)

// commaMask has the high bit set in every byte of w that is the delimiter
// whose byte seps holds in each of its 8 (ones8·sep). It is exact (no false
// positives after a borrow, unlike the shorter haszero trick), so a "-"
// after a comma is not taken for one.
func commaMask(w, seps uint64) uint64 {
	x := w ^ seps // zero bytes where w has the delimiter
	return ^((x&lo7 + lo7) | x | lo7)
}

// pick finds the fields cols (ascending column indexes) of a bare row (no
// quotes; line end stripped) and stores them in fields and their offsets in
// line in offs, in cols order. It returns how many it found (len(cols)
// unless the row is too short) and how many fields the row has (counted
// only when it is short).
func pick(line []byte, cols []int, fields [][]byte, offs []int, sep byte) (found, have int) {
	seps := ones8 * uint64(sep)
	k, col, start := 0, 0, 0 // field number col starts at line[start]
	want := cols[0]
	// take records field col = line[start:end] for every entry that wants
	// it; it reports whether all are found.
	take := func(end int) bool {
		for k < len(cols) && want == col {
			fields[k], offs[k] = line[start:end], start
			k++
			if k < len(cols) {
				want = cols[k]
			}
		}
		return k == len(cols)
	}
	i := 0
	for ; i+8 <= len(line); i += 8 {
		m := commaMask(binary.LittleEndian.Uint64(line[i:]), seps)
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
		if line[i] == sep {
			if col == want && take(i) {
				return k, 0
			}
			col, start = col+1, i+1
		}
	}
	take(len(line))
	return k, col + 1
}

// pickBack is pick for a row known to have exactly ncols fields, reading its
// commas from the end out of the window's comma bitmap (cm; the row starts
// at bit base): the Sales set's money columns are 3 of its last 4, so three
// leading-zero counts find them, with no walk over the row's bytes.
func pickBack(line []byte, cm *[winBytes / 64]uint64, base, ncols int, cols []int, fields [][]byte, offs []int) {
	k := len(cols) - 1
	want := cols[k]
	col, end := ncols-1, len(line) // field number col ends at line[end]
	hi := base + len(line)
	for w := (hi - 1) >> 6; w >= base>>6; w-- {
		m := cm[w]
		if w == (hi-1)>>6 {
			m &= ^uint64(0) >> (63 - (hi-1)&63)
		}
		if w == base>>6 {
			m &= ^uint64(0) << (base & 63)
		}
		for m != 0 {
			hb := 63 - bits.LeadingZeros64(m)
			x := w<<6 + hb - base // a comma, at line[x]
			for col == want {
				fields[k], offs[k] = line[x+1:end], x+1
				if k--; k < 0 {
					return
				}
				want = cols[k]
			}
			col, end = col-1, x
			m &^= 1 << hb
		}
	}
	for k >= 0 { // field 0
		fields[k], offs[k] = line[:end], 0
		k--
	}
}

// pickFront is pick for a row inside a classified window, reading its
// commas from the start out of the window's comma bitmap (cm; the row
// starts at bit base, line is its bytes with the line end stripped): each
// comma costs a trailing-zero count, and the walk stops at the last field
// cols wants, with no look at the row's bytes. It returns how many of cols
// it found (fewer if the row is short).
func pickFront(line []byte, cm *[winBytes / 64]uint64, base int, cols []int, fields [][]byte, offs []int) int {
	if len(cols) == 0 {
		return 0
	}
	k, col, start := 0, 0, 0 // field number col starts at line[start]
	want := cols[0]
	hi := base + len(line)
	for w := base >> 6; w <= (hi-1)>>6; w++ {
		m := cm[w]
		if w == base>>6 {
			m &= ^uint64(0) << (base & 63)
		}
		if w == (hi-1)>>6 {
			m &= ^uint64(0) >> (63 - (hi-1)&63)
		}
		for m != 0 {
			x := w<<6 + bits.TrailingZeros64(m) - base // a comma, at line[x]
			for col == want {
				fields[k], offs[k] = line[start:x], start
				if k++; k == len(cols) {
					return k
				}
				want = cols[k]
			}
			col, start = col+1, x+1
			m &= m - 1
		}
	}
	for k < len(cols) && cols[k] == col { // the last field
		fields[k], offs[k] = line[start:], start
		k++
	}
	return k
}
