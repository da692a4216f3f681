package scan

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"math/bits"
	"slices"
)

// The order of a group-by's table: by Spec.Sort, then by the group-by
// columns, a total order (two groups never tie: their keys differ). One
// comparator (groupOrder.cmp) defines it; the two fast ways below give the
// same order as sorting with it, and are only ways to get there sooner:
//
//   - with a Limit far below the number of groups, a heap keeps the first
//     Limit groups in one pass (n log Limit comparisons, not n log n), by
//     the rank below where there is one;
//   - otherwise, when the first criterion is an int64 per group (a numeric
//     key at one scale, a date, the count, a sum or an extreme at one
//     scale), the groups are sorted by that number, and the comparator only
//     breaks ties: the sort reads one array, not the groups' figures at
//     random, which with millions of groups is a cache miss a comparison
//     (docs/performance.md, "Group-by memory"). When the number's range and
//     the index fit one word, (number, index) words are radix sorted
//     (sortRanked); else indexes are sorted by the number.

// groupOrder is a group-by's order over its groups (indexes into Groups).
type groupOrder struct {
	a    *Answer
	g    *Groups
	keys []keyOrder // one a group-by column
}

func newGroupOrder(a *Answer) *groupOrder {
	o := &groupOrder{a: a, g: a.Result.Groups, keys: make([]keyOrder, len(a.By))}
	formats, _ := newDateReader(a.DateFormats) // (checked when bound)
	for j := range o.keys {
		dr := formats
		switch k, _ := a.kindOf(a.By[j]); k {
		case KindText:
			o.keys[j] = keyOrder{g: o.g, j: j, n: len(a.By), kind: kindBytes}
			continue
		case KindAuto:
			dr = nil // (value by value: parseDate's forms)
		}
		o.keys[j] = newKeyOrder(o.g, j, len(a.By), dr)
	}
	return o
}

// cmp is the order: each sort key, then the group-by columns.
func (o *groupOrder) cmp(x, y int) int {
	for _, s := range o.a.Sort {
		c := 0
		switch {
		case s.col < 0:
			c = o.keys[-1-s.col].cmp(x, y)
		case s.col == 0:
			c = cmpInt(o.g.Count[x], o.g.Count[y])
		default:
			c = o.a.cmpAgg(o.a.Aggs[s.col-1], x, y)
		}
		if s.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	for j := range o.keys {
		if c := o.keys[j].cmp(x, y); c != 0 {
			return c
		}
	}
	return 0
}

// first returns the first limit groups in order (all of them for limit 0).
func (o *groupOrder) first(limit int) []int {
	n := o.g.Len()
	// With a rank, it decides but for ties: a comparison reads one array,
	// not each group's figures.
	by, r := o.cmp, o.rank()
	if r != nil {
		by = func(x, y int) int {
			if c := cmp.Compare(r[x], r[y]); c != 0 {
				return c
			}
			return o.cmp(x, y)
		}
	}
	if limit > 0 && limit*8 < n {
		return smallest(n, limit, by)
	}
	var order []int
	if r != nil {
		order = sortRanked(r, o.cmp)
	}
	if order == nil { // no rank, or its range too wide to pack with an index
		order = make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, by)
	}
	if limit > 0 && len(order) > limit {
		order = order[:limit]
	}
	return order
}

// sortRanked returns 0..len(r)-1 ordered by r, each run of equal ranks
// ordered by tie; or nil if r's range and an index do not fit 64 bits
// together. Each rank, less the least, goes in the high bits of a word and
// its index in the low ones, and the words are sorted by radixSort: a few
// passes over one array, where a comparison sort of millions of groups
// calls a comparator n·log n times.
func sortRanked(r []int64, tie func(x, y int) int) []int {
	n := len(r)
	if n == 0 {
		return []int{}
	}
	lo, hi := r[0], r[0]
	for _, v := range r {
		lo, hi = min(lo, v), max(hi, v)
	}
	ib := uint(bits.Len(uint(n - 1)))                    // the index's bits
	if uint(bits.Len64(uint64(hi)-uint64(lo)))+ib > 64 { // hi-lo: exact in uint64
		return nil
	}
	a := make([]uint64, n)
	for i, v := range r {
		a[i] = (uint64(v)-uint64(lo))<<ib | uint64(i)
	}
	radixSort(a)
	mask := uint64(1)<<ib - 1
	order := make([]int, n)
	for i, v := range a {
		order[i] = int(v & mask)
	}
	for s := 0; s < n; { // runs of one rank: the comparator decides
		e := s + 1
		for e < n && a[e]>>ib == a[s]>>ib {
			e++
		}
		if e-s > 1 {
			slices.SortFunc(order[s:e], tie)
		}
		s = e
	}
	return order
}

// radixSort sorts a ascending: least significant byte first, each pass
// stable, a byte that every word shares skipped.
func radixSort(a []uint64) {
	if len(a) < 2 {
		return
	}
	var count [8][256]int
	for _, v := range a {
		for d := range 8 {
			count[d][byte(v>>(8*d))]++
		}
	}
	src, dst := a, make([]uint64, len(a))
	for d := range 8 {
		c := &count[d]
		sh := 8 * uint(d)
		if c[byte(src[0]>>sh)] == len(a) {
			continue // every word has this byte: the pass would move nothing
		}
		pos := 0
		for k := range c {
			c[k], pos = pos, pos+c[k]
		}
		for _, v := range src {
			k := byte(v >> sh)
			dst[c[k]] = v
			c[k]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

// rank returns a number per group that orders the groups as the order's
// first criterion does, ties included, or nil if that criterion is not
// one int64 a group.
func (o *groupOrder) rank() []int64 {
	col, desc := -1, false // the first group-by column
	if len(o.a.Sort) > 0 {
		col, desc = o.a.Sort[0].col, o.a.Sort[0].desc
	}
	var r []int64
	g := o.g
	switch {
	case col < 0:
		k := &o.keys[-1-col]
		switch {
		case k.kind == kindNumber && k.oneScale:
			r = k.m
		case k.kind == kindDate:
			r = k.d
		}
	case col == 0:
		r = g.Count
	default:
		r = aggRank(g, o.a.Aggs[col-1])
	}
	if r == nil || !desc {
		return r
	}
	rev := make([]int64, len(r))
	for i, v := range r {
		rev[i] = ^v // -v-1: reverses the order, and cannot overflow
	}
	return rev
}

// aggRank is aggregate ag's value per group as one int64 that orders them
// (cmpAgg's order), or nil: for a sum, its V when every group's sum has no
// carry and one scale; for a minimum or maximum, M when every group has one
// and at one scale, all numbers; never for an average.
func aggRank(g *Groups, ag Agg) []int64 {
	r := make([]int64, g.Len())
	switch ag.Func {
	case "sum":
		sc := int64(-1)
		for i := range r {
			s := g.Sums[i*g.Slots+ag.Slot]
			if !s.C.isZero() || (sc >= 0 && s.Scale != sc) {
				return nil
			}
			sc, r[i] = s.Scale, s.V
		}
	case "min", "max":
		if g.Words != nil { // a date or text may be the value: cmpAgg orders kinds
			return nil
		}
		vs := g.extremes(ag.Func)
		sc := int8(-1)
		for i := range r {
			x := vs[i*g.Slots+ag.Slot]
			if !x.Set || (sc >= 0 && x.S != sc) {
				return nil
			}
			sc, r[i] = x.S, x.M
		}
	default:
		return nil
	}
	return r
}

// smallest returns the first k of 0..n-1 by cmp, in order: a heap of the k
// best so far, its worst at the root.
func smallest(n, k int, cmp func(x, y int) int) []int {
	h := make([]int, 0, k)
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && cmp(h[c+1], h[c]) > 0 {
				c++
			}
			if cmp(h[c], h[i]) <= 0 {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for x := range n {
		if len(h) < k {
			h = append(h, x)
			for i := len(h) - 1; i > 0 && cmp(h[i], h[(i-1)/2]) > 0; i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
			continue
		}
		if cmp(x, h[0]) < 0 {
			h[0] = x
			down(0)
		}
	}
	slices.SortFunc(h, cmp)
	return h
}

// keyOrder is how one group-by column sorts: a text column's as bytes; any
// other's as numbers if every group's value parses as one, else as dates
// if every one is a date, else as bytes.
// Its field's bytes are read from the groups' keys when asked for, not
// copied.
type keyOrder struct {
	g        *Groups
	j, n     int // column j of n
	kind     kind
	m        []int64
	s        []int8
	w        []wide // kindNumber, if a key has more than 18 digits: the mantissas (m nil)
	oneScale bool   // every m is at one scale: m alone orders them
	d        []int64
}

func newKeyOrder(g *Groups, j, n int, dr *dateReader) keyOrder {
	o := keyOrder{g: g, j: j, n: n, kind: kindNumber, oneScale: true}
	l := g.Len()
	o.m, o.s = make([]int64, l), make([]int8, l)
	var buf [64]byte
	for i := range l {
		m, s, err := ParseFixed(append(buf[:0], o.field(i)...))
		if errors.Is(err, ErrOverflow) {
			if _, _, err = parseWide(append(buf[:0], o.field(i)...)); err == nil {
				o.wideKeys()
				break
			}
		}
		if err != nil {
			o.kind = kindDate
			break
		}
		o.m[i], o.s[i] = m, int8(s)
		o.oneScale = o.oneScale && o.s[i] == o.s[0]
	}
	if o.kind == kindNumber {
		return o
	}
	o.m, o.s = nil, nil
	o.d = make([]int64, l)
	for i := range l {
		d, ok := dr.parse(append(buf[:0], o.field(i)...))
		if !ok {
			o.d, o.kind = nil, kindBytes
			return o
		}
		o.d[i] = int64(d)
	}
	return o
}

// wideKeys makes o order numbers of more than 18 digits: every key as a
// wide, or as dates or bytes if one is no number.
func (o *keyOrder) wideKeys() {
	o.m, o.oneScale = nil, false
	o.w = make([]wide, len(o.s))
	var buf [64]byte
	for i := range o.w {
		m, s, err := parseWide(append(buf[:0], o.field(i)...))
		if err != nil {
			o.w, o.kind = nil, kindDate
			return
		}
		o.w[i], o.s[i] = m, int8(s)
	}
}

// field is group i's value of the column; valid until a group is added.
func (o *keyOrder) field(i int) []byte {
	if o.n == 1 {
		return o.g.keyBytes(i)
	}
	return keyField(o.g.keyBytes(i), o.j)
}

func (o *keyOrder) cmp(x, y int) int {
	switch o.kind {
	case kindNumber:
		c := 0
		if o.w != nil {
			c = cmpWide(o.w[x], int(o.s[x]), o.w[y], int(o.s[y]))
		} else {
			c = cmpDec(o.m[x], int(o.s[x]), o.m[y], int(o.s[y]))
		}
		if c != 0 {
			return c
		}
	case kindDate:
		if c := cmpInt(o.d[x], o.d[y]); c != 0 {
			return c
		}
	}
	// Equal numbers or dates in different spellings (7.1, 7.10) still
	// differ as keys: their bytes decide, so the order is total.
	return bytes.Compare(o.field(x), o.field(y))
}

// keyField is field j of a key that groupKey made of several fields (nil if
// it has fewer); the result aliases key.
func keyField(key []byte, j int) []byte {
	for k := 0; ; k++ {
		l, n := binary.Uvarint(key)
		if n <= 0 || l > uint64(len(key)-n) {
			return nil
		}
		if k == j {
			return key[n : n+int(l)]
		}
		key = key[n+int(l):]
	}
}
