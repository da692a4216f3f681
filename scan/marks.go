package scan

import "math/bits"

// Stage one of the scan, as in simdjson and simdcsv: classify a window of
// bytes at once into bitmaps of line ends, commas and quotes, then walk rows
// by their bits. With AVX2 (marks_amd64.s) a 64-byte block costs a dozen
// instructions; before it, finding each row end took one bytes.IndexByte call
// (its loop exit mispredicts on most rows). BenchmarkScanNoMatch went from 6.5
// to 7.6 GB/s with it, and to 9.8 GB/s with the first-byte reject it allows
// (Table.Scan); the window's comma bitmap also serves pickBack.

// winBytes is the window classified at once: 64 blocks of 64 bytes. Small
// enough that its marks stay on the stack and in L1.
const winBytes = 4096

// marks are the bitmaps of one window: bit i of word w is byte 64w+i.
type marks struct {
	nl, cm, qt [winBytes / 64]uint64
}

// classifyGeneric is the portable classifier, and the reference the AVX2 one
// is tested against. len(src) <= winBytes.
func classifyGeneric(src []byte, m *marks) {
	n := (len(src) + 63) / 64
	clear(m.nl[:n])
	clear(m.cm[:n])
	clear(m.qt[:n])
	for i, c := range src {
		switch c {
		case '\n':
			m.nl[i>>6] |= 1 << (i & 63)
		case ',':
			m.cm[i>>6] |= 1 << (i & 63)
		case '"':
			m.qt[i>>6] |= 1 << (i & 63)
		}
	}
}

// classifyWindow classifies src (at most winBytes) into m and reports
// whether it holds a quote.
func classifyWindow(src []byte, m *marks) bool {
	classify(src, m)
	var q uint64
	for _, w := range m.qt[:(len(src)+63)/64] {
		q |= w
	}
	return q != 0
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
