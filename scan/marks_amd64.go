package scan

import (
	"math/bits"

	"golang.org/x/sys/cpu"
)

// blockFunc fills the first blocks (< 2^15) words of m's bitmaps from
// 64·blocks bytes at src. It reads exactly those bytes, no more. carry says
// whether src[0] starts a row; it returns whether the byte after the last
// block does, the bits it set in nl, sp and qt, packed as
// nl + sp<<21 + qt<<42, and a bit per block whose sp word is not zero, block
// i at bit 64-blocks+i (so blocks must be at most 64).
type blockFunc = func(src *byte, blocks int, m *marks, v0 byte, carry uint64) (next, counts, nz uint64)

// classifyBlocks is the best blockFunc this CPU runs; nil: no vector unit,
// use classifyGeneric.
var classifyBlocks = pickClassifier()

// classifiers lists the vector classifiers this CPU can run, best last, so
// tests can check each against classifyGeneric.
func classifiers() map[string]blockFunc {
	c := map[string]blockFunc{}
	if cpu.X86.HasAVX2 {
		c["avx2"] = classifyAVX2
	}
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW {
		c["avx512"] = classifyAVX512
	}
	return c
}

func pickClassifier() blockFunc {
	c := classifiers()
	for _, name := range []string{"avx512", "avx2"} {
		if f, ok := c[name]; ok {
			return f
		}
	}
	return nil
}

//go:noescape
func classifyAVX2(src *byte, blocks int, m *marks, v0 byte, carry uint64) (next, counts, nz uint64)

//go:noescape
func classifyAVX512(src *byte, blocks int, m *marks, v0 byte, carry uint64) (next, counts, nz uint64)

func classify(src []byte, m *marks, v0 byte) tally {
	return classifyWith(classifyBlocks, src, m, v0)
}

func classifyWith(blocks blockFunc, src []byte, m *marks, v0 byte) tally {
	if blocks == nil {
		return classifyGeneric(src, m, v0)
	}
	full := len(src) / 64
	carry, counts, nz := uint64(1), uint64(0), uint64(0)
	if full > 0 {
		carry, counts, nz = blocks(&src[0], full, m, v0, carry)
		nz >>= 64 - full
	}
	n := tally{int(counts & (1<<21 - 1)), int(counts >> 21 & (1<<21 - 1)), int(counts >> 42), nz}
	if tail := src[full*64:]; len(tail) > 0 {
		// The last partial block goes through a zero-padded copy, so the
		// vector loads never touch a byte past the end of src (a mapping
		// may end right there: see shm's guard-page test). Its bits past
		// the end are cleared: a zero byte there may equal v0.
		var pad [64]byte
		copy(pad[:], tail)
		var t marks
		blocks(&pad[0], 1, &t, v0, carry)
		keep := uint64(1)<<len(tail) - 1
		m.nl[full], m.cm[full], m.qt[full], m.sp[full] = t.nl[0]&keep, t.cm[0]&keep, t.qt[0]&keep, t.sp[0]&keep
		n.nl += bits.OnesCount64(m.nl[full])
		n.sp += bits.OnesCount64(m.sp[full])
		n.qt += bits.OnesCount64(m.qt[full])
		if m.sp[full] != 0 {
			n.nz |= 1 << full
		}
	}
	return n
}
