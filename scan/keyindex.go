package scan

import (
	"math/bits"
	"math/rand/v2"
)

// shortIndex finds a group by a key of at most 15 bytes, held as two words
// (shortWords): open addressing with linear probing,
// the words in the slot, so a lookup costs one hash and, for a key it
// holds or not, mostly one cache line. It grows at three quarters full.
//
// Against Go's map of [16]byte keys, for the millions of keys of a
// group-by on Order ID, it looks a key up and adds it if missing in one
// probe sequence, not two (a lookup, then an insert); docs/performance.md
// ("Group-by memory") has what it bought.
//
// The hash is keyed with random words drawn for each index, so input made
// to collide in one run collides in no other. An index belongs to one
// Groups and is not safe for concurrent use.
type shortIndex struct {
	slots  []shortSlot
	shift  uint // 64 - log2(len(slots))
	n      int
	k1, k2 uint64
	sink   uint64 // what touchAt read, kept so that its loads are made
}

// shortSlot is a key's two words and its group plus one (0: empty).
type shortSlot struct {
	lo, hi uint64
	i      int32
}

// newShortIndex makes an index with room for n keys before it grows.
func newShortIndex(n int) *shortIndex {
	size := 16
	for size*3 < n*4 {
		size *= 2
	}
	return &shortIndex{slots: makeHuge[shortSlot](size, size), shift: uint(64 - bits.TrailingZeros(uint(size))),
		k1: rand.Uint64(), k2: rand.Uint64() | 1}
}

func (x *shortIndex) hash(lo, hi uint64) uint64 {
	h, l := bits.Mul64(lo^x.k1, hi^x.k2)
	h, l = bits.Mul64(h^l, 0x9E3779B97F4A7C15)
	return h ^ l
}

// get returns the group of the key lo, hi, or -1.
func (x *shortIndex) get(lo, hi uint64) int32 {
	mask := uint64(len(x.slots) - 1)
	for p := x.hash(lo, hi) >> x.shift; ; p = (p + 1) & mask {
		s := &x.slots[p]
		if s.i == 0 {
			return -1
		}
		if s.lo == lo && s.hi == hi {
			return s.i - 1
		}
	}
}

// touchAt loads the slots at (places, as hash >> shift gives them), their
// first word and their group (a slot of 24 bytes may span two cache lines),
// and keeps a sum of them in sink, so that the loads stay.
// Called with a batch's places before its keys are looked up, it lets the
// CPU fetch their slots from memory at once, not one after another: the
// loads come in a loop of their own, with nothing else to do, because in
// the loop that hashes the keys only a few of them waited at once
// (docs/experiments.md, 2026-12-03 midday).
func (x *shortIndex) touchAt(at []uint64) {
	var w uint64
	for _, p := range at {
		w += x.slots[p].lo + uint64(x.slots[p].i)
	}
	x.sink += w
}

// getOrPut returns the group of the key lo, hi and false, or, if it has
// none, gives it group next and returns next and true.
func (x *shortIndex) getOrPut(lo, hi uint64, next int32) (int32, bool) {
	mask := uint64(len(x.slots) - 1)
	for p := x.hash(lo, hi) >> x.shift; ; p = (p + 1) & mask {
		s := &x.slots[p]
		if s.i == 0 {
			*s = shortSlot{lo, hi, next + 1}
			if x.n++; x.n*4 >= len(x.slots)*3 {
				x.grow()
			}
			return next, true
		}
		if s.lo == lo && s.hi == hi {
			return s.i - 1, false
		}
	}
}

// grow doubles the slots and puts every key back.
func (x *shortIndex) grow() {
	old := x.slots
	x.slots = makeHuge[shortSlot](2*len(old), 2*len(old))
	x.shift--
	mask := uint64(len(x.slots) - 1)
	for _, o := range old {
		if o.i == 0 {
			continue
		}
		p := x.hash(o.lo, o.hi) >> x.shift
		for x.slots[p].i != 0 {
			p = (p + 1) & mask
		}
		x.slots[p] = o
	}
}
