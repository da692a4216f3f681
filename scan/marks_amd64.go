package scan

import (
	"math/bits"

	"golang.org/x/sys/cpu"
)

// The classifiers, slowest first; classifyWith runs one of the vector ones, or the
// portable classifyGeneric. (A direct call, not a func value: through one,
// the marks would escape to the heap, 3 allocations per Scan.)
const (
	useGeneric = iota
	useAVX2
	useAVX512
)

// classifier is the best one this CPU runs.
var classifier = func() int {
	c := classifiers()
	return c[len(c)-1]
}()

// classifiers lists the classifiers this CPU runs, best last, so tests can
// check each against refClassify.
func classifiers() []int {
	c := []int{useGeneric}
	if cpu.X86.HasAVX2 {
		c = append(c, useAVX2)
	}
	// classifyWith falls back to classifyAVX2 for a window with a quote.
	if cpu.X86.HasAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW {
		c = append(c, useAVX512)
	}
	return c
}

// classifyAVX2 and classifyAVX512 fill the first blocks words of m's
// bitmaps from 64·blocks bytes at src. They read exactly those bytes, no
// more; each block's line ahead bytes on is prefetched (a hint, which
// never faults; ahead 0 hints at the block itself: nothing past src). carry says whether src[0] starts a row; they return whether the
// byte after the last block does, the bits they set in nl, sp and qt,
// packed as nl + sp<<21 + qt<<42, and a bit per block whose sp word is not
// zero, block i at bit 64-blocks+i (so blocks must be at most 64).
//
//go:noescape
func classifyAVX2(src *byte, blocks int, m *marks, v0 int, carry uint64, sep int, ahead int) (next, counts, nz uint64)

//go:noescape
func classifyAVX512(src *byte, blocks int, m *marks, v0 int, carry uint64, sep int, ahead int) (next, counts, nz uint64)

func classify(src []byte, m *marks, v0 int, sep byte) tally {
	return classifyWith(classifier, src, m, v0, sep, 0)
}

// classifyAhead is classify of a window whose next window follows it in
// memory: its blocks prefetch that window's lines while this one's rows
// are walked. (Not a copy's: the lines past a scratch buffer are no data,
// and fetching them evicts what is.)
func classifyAhead(src []byte, m *marks, v0 int, sep byte) tally {
	return classifyWith(classifier, src, m, v0, sep, winBytes)
}

func blocks(c int, src *byte, n int, m *marks, v0 int, carry uint64, sep byte, ahead int) (next, counts, nz uint64) {
	if c == useAVX512 {
		return classifyAVX512(src, n, m, v0, carry, int(sep), ahead)
	}
	return classifyAVX2(src, n, m, v0, carry, int(sep), ahead)
}

// ahead is the prefetch's distance (see classifyAVX2), 0 for none.
func classifyWith(c int, src []byte, m *marks, v0 int, sep byte, ahead int) tally {
	if c == useGeneric {
		return classifyGeneric(src, m, v0, sep)
	}
	full := len(src) / 64
	carry, counts, nz := uint64(1), uint64(0), uint64(0)
	if full > 0 {
		carry, counts, nz = blocks(c, &src[0], full, m, v0, carry, sep, ahead)
		nz >>= 64 - full
	}
	n := tally{int(counts & (1<<21 - 1)), int(counts >> 21 & (1<<21 - 1)), min(int(counts>>42), 1), nz}
	if tail := src[full*64:]; len(tail) > 0 {
		// The last partial block goes through a zero-padded copy, so the
		// vector loads never touch a byte past the end of src (a mapping
		// may end right there: see input's guard-page test). Its bits past
		// the end are cleared: a zero byte there may equal v0.
		var pad [64]byte
		copy(pad[:], tail)
		var t marks
		_, tc, _ := blocks(c, &pad[0], 1, &t, v0, carry, sep, 0) // the padding holds no quote
		keep := uint64(1)<<len(tail) - 1
		m.nl[full], m.cm[full], m.qt[full], m.sp[full] = t.nl[0]&keep, t.cm[0]&keep, t.qt[0]&keep, t.sp[0]&keep
		n.nl += bits.OnesCount64(m.nl[full])
		n.sp += bits.OnesCount64(m.sp[full])
		n.qt = min(n.qt+int(tc>>42), 1)
		if m.sp[full] != 0 {
			n.nz |= 1 << full
		}
	}
	if n.qt > 0 && c == useAVX512 {
		// classifyAVX512 leaves qt alone, a store and a popcount less a
		// block; a window with a quote is classified again for it.
		return classifyWith(useAVX2, src, m, v0, sep, 0) // (its lines were fetched)
	}
	return n
}
