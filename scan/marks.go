package scan

import (
	"encoding/binary"
	"math/bits"
)

// Stage one of the scan, as in simdjson and simdcsv: classify a window of
// bytes at once into bitmaps of line ends, commas and quotes, then walk rows
// by their bits. With AVX2 (marks_amd64.s) a 64-byte block costs a dozen
// instructions, where a bytes.IndexByte call a row mispredicts its loop exit
// on most rows; with AVX-512 the compares go straight to mask registers. The
// window's comma bitmap also serves pickBack, and a first-column filter's
// rows are walked by the sp bitmap, not one by one (Table.bulk). What each
// step bought is in docs/experiments.md.

// winBytes is the window classified at once: 64 blocks of 64 bytes. Small
// enough that its marks stay on the stack and in L1, and the classifier's
// prefetch 4 KiB ahead then fetches exactly the next window while this
// one's rows are walked. From memory it beat 2, 8, 16 and 32 KiB
// (docs/experiments.md).
const winBytes = 4096

// marks are the bitmaps of one window: bit i of word w is byte 64w+i. nl,
// cm and qt mark the bytes '\n', the delimiter (',' unless the Table's is
// another) and '"'; sp marks the row starts (the
// window's first byte, and each byte after a '\n') whose byte is the
// filter value's first, '\r' or '\n' (or every one, see everyRow): the rows
// Table.bulk must look at.
type marks struct {
	nl, cm, qt, sp [winBytes / 64]uint64
}

// everyRow, as a classifier's v0, marks every row start in sp (a byte
// value 0-255 marks those whose byte is it, '\r' or '\n'; firstBytes a
// set of up to four such bytes).
const everyRow = 256

// firstSet flags a classifier's v0 made by firstBytes.
const firstSet = 512

// firstBytes is the classifier's v0 that marks the row starts whose byte
// is one of bs (1 to 4 bytes; '\r' and '\n' as always): firstSet, bs[0] in
// the low byte, and the four in bits 16 to 47 (bs[0] again where bs has
// fewer), as the vector classifiers read them.
func firstBytes(bs []byte) int {
	v := firstSet | int(bs[0])
	for i := range 4 {
		b := bs[0]
		if i < len(bs) {
			b = bs[i]
		}
		v |= int(b) << (16 + 8*i)
	}
	return v
}

// marksRow reports whether v0 marks a row that starts with byte c.
func marksRow(v0 int, c byte) bool {
	switch {
	case c == '\r' || c == '\n' || v0 == everyRow:
		return true
	case v0&firstSet != 0:
		return c == byte(v0>>16) || c == byte(v0>>24) || c == byte(v0>>32) || c == byte(v0>>40)
	}
	return int(c) == v0
}

// tally counts the bits a window's classification set in nl and sp, says
// whether it holds a quote (qt: 0 or 1), and has a bit per word of sp that
// is not zero (nz). m.qt is filled only if qt is 1.
type tally struct {
	nl, sp, qt int
	nz         uint64
}

// classifyGeneric is the portable classifier: a 64-byte block's bitmaps
// eight bytes at a time (eq8, as the portable quote masks), and its row
// starts' first bytes one by one (a row start is rare). len(src) <=
// winBytes; src[0] starts a row; sep is the field delimiter, whose bytes
// cm marks. It fills qt for every window. The tests hold it and the vector
// ones to refClassify, a byte at a time.
func classifyGeneric(src []byte, m *marks, v0 int, sep byte) tally {
	var n tally
	const ones = 0x0101010101010101
	cn, cs, cq := '\n'*uint64(ones), uint64(sep)*ones, '"'*uint64(ones)
	carry := uint64(1) // src[0] starts a row
	for w := 0; w*64 < len(src); w++ {
		blk := src[w*64 : min(w*64+64, len(src))]
		live := ^uint64(0)
		if len(blk) < 64 {
			// a zero byte is none of '\n', '"' or a delimiter, and the
			// row starts past the end are cut by live
			var pad [64]byte
			copy(pad[:], blk)
			blk, live = pad[:], 1<<len(blk)-1
		}
		var nl, cm, qt uint64
		for i := 0; i < 64; i += 8 {
			x := binary.LittleEndian.Uint64(blk[i:])
			nl |= eq8(x, cn) << i
			cm |= eq8(x, cs) << i
			qt |= eq8(x, cq) << i
		}
		starts := (nl<<1 | carry) & live
		carry = nl >> 63
		sp := starts
		if v0 != everyRow {
			for s := starts; s != 0; s &= s - 1 {
				if i := bits.TrailingZeros64(s); !marksRow(v0, blk[i]) {
					sp &^= 1 << i
				}
			}
		}
		m.nl[w], m.cm[w], m.qt[w], m.sp[w] = nl, cm, qt, sp
		n.nl += bits.OnesCount64(nl)
		n.sp += bits.OnesCount64(sp)
		if qt != 0 {
			n.qt = 1
		}
		if sp != 0 {
			n.nz |= 1 << w
		}
	}
	return n
}

// nextBit returns the first set bit at or after bit off in words [0, n), or
// -1.
func nextBit(ws *[winBytes / 64]uint64, off, n int) int {
	w := off >> 6
	if w >= n {
		return -1
	}
	m := ws[w] & (^uint64(0) << (off & 63))
	for m == 0 {
		if w++; w >= n {
			return -1
		}
		m = ws[w]
	}
	return w<<6 + bits.TrailingZeros64(m)
}

// countBits counts the set bits in [a, b).
func countBits(ws *[winBytes / 64]uint64, a, b int) int {
	if a >= b {
		return 0
	}
	wa, wb := a>>6, (b-1)>>6
	lo := ^uint64(0) << (a & 63)
	hi := ^uint64(0) >> (63 - (b-1)&63)
	if wa == wb {
		return bits.OnesCount64(ws[wa] & lo & hi)
	}
	n := bits.OnesCount64(ws[wa]&lo) + bits.OnesCount64(ws[wb]&hi)
	for w := wa + 1; w < wb; w++ {
		n += bits.OnesCount64(ws[w])
	}
	return n
}

// fieldStart returns the offset in data of field k (k > 0) of the
// quote-free row data[p:e] inside the window at wb whose marks are mk: the
// byte after the row's k-th comma, found by the comma bitmap. It returns -1
// if the row has fewer than k commas (a short row, for line to report).
// The field may be empty: its first byte is then ',' or the row's end.
func fieldStart(mk *marks, wb, p, e, k int) int {
	a, z := p-wb, e-wb
	w := a >> 6
	m := mk.cm[w] & (^uint64(0) << (a & 63))
	for {
		for m == 0 {
			if w++; w<<6 >= z {
				return -1
			}
			m = mk.cm[w]
		}
		if k--; k == 0 {
			break
		}
		m &= m - 1
	}
	c := w<<6 + bits.TrailingZeros64(m)
	if c >= z {
		return -1
	}
	return wb + c + 1
}
