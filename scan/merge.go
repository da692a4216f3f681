package scan

import (
	"hash/maphash"
	"math/bits"
	"sync"
)

// MergeAll merges rs, in order, into one Result, as Result.Merge one after
// another would (the same answer, to the digit: sums are exact, and which
// of two equal extremes stays does not depend on the order), using up to
// workers goroutines for the groups: with many of them (a group-by on a
// column of millions of distinct values), merging them one by one into one
// map is a single core's work as long as the scan itself.
//
// The groups are split by a hash of their key into one part per goroutine;
// each goroutine merges its part of every result, in order, into Groups of
// its own, and the parts, which share no key, are then put end to end. The
// merged Groups is built without its index, which is made if a key is
// looked up (see Groups.index). rs are not changed.
func MergeAll(rs []*Result, workers int) Result {
	var total Result
	var srcs []*Groups
	n, out := 0, 0
	for _, r := range rs {
		out += len(r.Out)
	}
	if out > 0 {
		total.Out = make([]byte, 0, out) // (one copy of the rows out, not one a doubling)
	}
	for _, r := range rs {
		g := r.Groups
		if g != nil {
			srcs = append(srcs, g)
			n += g.Len()
		}
		o := *r
		o.Groups = nil
		total.Merge(&o)
	}
	if len(srcs) == 0 {
		return total
	}
	total.Groups = mergeGroups(srcs, workers, n)
	return total
}

// mergeMin is how many groups in all make a parallel merge worth its
// goroutines and its second pass over the keys (a variable for the tests).
var mergeMin = 1 << 16

// mergeGroups merges srcs (n groups in all) with up to workers goroutines.
func mergeGroups(srcs []*Groups, workers, n int) *Groups {
	slots, need := srcs[0].Slots, srcs[0].Need
	if workers < 2 || n < mergeMin {
		g := newGroups(slots, need)
		for _, s := range srcs {
			g.Merge(s)
		}
		return g
	}
	parts := make([]*Groups, workers)
	seed := maphash.MakeSeed()
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() {
			g := newGroups(slots, need)
			g.reserve(n / workers) // at most n/workers distinct keys, if the hash spreads them evenly
			for _, s := range srcs {
				g.mergeFrom(s, func(key []byte) bool { return partOf(seed, key, workers) == p })
			}
			parts[p] = g
		})
	}
	wg.Wait()
	return concatGroups(parts)
}

// partOf is the part of k parts that key goes to.
func partOf(seed maphash.Seed, key []byte, k int) int {
	hi, _ := bits.Mul64(maphash.Bytes(seed, key), uint64(k))
	return int(hi)
}

// concatGroups puts groups that share no key end to end, in one Groups
// without an index (see Groups.index). Each part is copied by a goroutine
// of its own: with millions of groups the copy is mostly first touches of
// fresh memory, page faults that cores take at once. Where the first
// part's arrays have room for every part's groups (Result.makeGroups
// reserves it), the others go there, after its own, which stay in place:
// the parts' groups are not changed, but the first part's arrays are
// shared, so no part may take a group after.
// room is concatGroups' array of n: have's first n where inPlace (have
// has room for them), else n of fresh memory.
func room[T any](have []T, n int, inPlace bool) []T {
	if inPlace {
		return have[:n]
	}
	return makeHuge[T](n, n)
}

func concatGroups(parts []*Groups) *Groups {
	g := newGroups(parts[0].Slots, parts[0].Need)
	g.short, g.long = nil, nil
	n, bytes := 0, 0
	for _, p := range parts {
		n += p.Len()
		bytes += len(p.arena)
	}
	f, m := parts[0], n*g.Slots
	inPlace := cap(f.arena) >= bytes && cap(f.ends) >= n && cap(f.Count) >= n &&
		(g.Need&NeedSum == 0 || cap(f.Sums) >= m) &&
		(g.Need&NeedMin == 0 || cap(f.Mins) >= m) &&
		(g.Need&NeedMax == 0 || cap(f.Maxs) >= m)
	g.arena, g.ends, g.Count = room(f.arena, bytes, inPlace), room(f.ends, n, inPlace), room(f.Count, n, inPlace)
	if g.Need&NeedSum != 0 {
		g.Sums = room(f.Sums, m, inPlace)
	}
	if g.Need&NeedMin != 0 {
		g.Mins = room(f.Mins, m, inPlace)
	}
	if g.Need&NeedMax != 0 {
		g.Maxs = room(f.Maxs, m, inPlace)
	}
	var wg sync.WaitGroup
	a0, i0 := 0, 0 // part p's first key byte and group in g
	for k, p := range parts {
		a, i := a0, i0
		wg.Go(func() {
			if k == 0 && inPlace {
				return // (there already)
			}
			copy(g.arena[a:], p.arena)
			for j, e := range p.ends {
				g.ends[i+j] = a + e
			}
			copy(g.Count[i:], p.Count)
			k := i * g.Slots
			if g.Sums != nil {
				copy(g.Sums[k:], p.Sums)
			}
			if g.Mins != nil {
				copy(g.Mins[k:], p.Mins)
			}
			if g.Maxs != nil {
				copy(g.Maxs[k:], p.Maxs)
			}
		})
		for at, n := range p.Skipped { // few: only rows with a missing value
			if g.Skipped == nil {
				g.Skipped = map[int]int64{}
			}
			g.Skipped[i*g.Slots+at] = n
		}
		mergeWords(&g.Words, p.Words, i*g.Slots)
		a0, i0 = a0+len(p.arena), i0+p.Len()
	}
	wg.Wait()
	return g
}
