package scan

import "golang.org/x/sys/cpu"

var useAVX2 = cpu.X86.HasAVX2

// classifyAVX2 fills the first blocks words of m's three bitmaps from
// 64·blocks bytes at src. It reads exactly those bytes, no more.
//
//go:noescape
func classifyAVX2(src *byte, blocks int, m *marks)

func classify(src []byte, m *marks) {
	if !useAVX2 {
		classifyGeneric(src, m)
		return
	}
	full := len(src) / 64
	if full > 0 {
		classifyAVX2(&src[0], full, m)
	}
	if tail := src[full*64:]; len(tail) > 0 {
		// The last partial block goes through a zero-padded copy, so the
		// vector loads never touch a byte past the end of src (a mapping
		// may end right there: see shm's guard-page test).
		var pad [64]byte
		copy(pad[:], tail)
		var t marks
		classifyAVX2(&pad[0], 1, &t)
		m.nl[full], m.cm[full], m.qt[full] = t.nl[0], t.cm[0], t.qt[0]
	}
}
