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
	n := 0
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
				for j := range s.Len() {
					if partOf(seed, s.keyBytes(j), workers) == p {
						g.mergeOne(s, j)
					}
				}
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
// without an index (see Groups.index); parts are not changed.
func concatGroups(parts []*Groups) *Groups {
	g := newGroups(parts[0].Slots, parts[0].Need)
	g.short, g.long = nil, nil
	n, bytes := 0, 0
	for _, p := range parts {
		n += p.Len()
		bytes += len(p.arena)
	}
	g.arena = makeHuge[byte](0, bytes)
	g.ends = makeHuge[int](0, n)
	g.Count = makeHuge[int64](0, n)
	if g.Need&NeedSum != 0 {
		g.Sums = makeHuge[Fixed](0, n*g.Slots)
	}
	if g.Need&NeedMin != 0 {
		g.Mins = makeHuge[Extreme](0, n*g.Slots)
	}
	if g.Need&NeedMax != 0 {
		g.Maxs = makeHuge[Extreme](0, n*g.Slots)
	}
	for _, p := range parts {
		base := len(g.arena)
		g.arena = append(g.arena, p.arena...)
		for _, e := range p.ends {
			g.ends = append(g.ends, base+e)
		}
		g.Count = append(g.Count, p.Count...)
		g.Sums = append(g.Sums, p.Sums...)
		g.Mins = append(g.Mins, p.Mins...)
		g.Maxs = append(g.Maxs, p.Maxs...)
	}
	return g
}
