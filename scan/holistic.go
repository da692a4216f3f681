package scan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Holistic aggregates need every value of their column, not a running
// figure: count_distinct (the number of distinct present values), median
// and quantile (SQL's quantile_cont: the value at fraction P of the sorted
// values, interpolated between the two values around it, exactly). Their
// state is a Words' Distinct set or Nums list, per slot (and per group),
// merged by union and concatenation, so every split gives the same answer.
//
// A distinct value is its column's: a number column's by value (7.1 and
// 7.10 are one), a date column's by instant, any other's by its bytes; a
// missing value is not counted (SQL's COUNT(DISTINCT)). A median or
// quantile reads numbers only (a number column), each of at most 18
// digits, and is written exactly: with the fewest digits after the point
// that hold it, but no fewer than the most its values have (1.50 and 2.50
// give 2.00; 1.50 and 2.25 give 1.875).
type Holistic struct {
	Func string // "count_distinct", "median" or "quantile"
	Col  string
	P    string // quantile's fraction, 0 to 1, as written ("0.9")
}

// distinctCost and valueCost are what Result.Held counts for a distinct
// value (beyond its bytes: a Go map's entry and string header) and for a
// median's value (an Extreme, with the slice's room to grow).
const (
	distinctCost = 48
	valueCost    = 24
)

// The holistic aggregates' accumulators (see Need).
const (
	NeedDistinct Need = 1 << (iota + 3)
	NeedValues
)

// ParseQuantile reads a --quantile value, COL:P.
func ParseQuantile(s string) (Holistic, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return Holistic{}, fmt.Errorf("quantile %s: want COLUMN:P, P a fraction from 0 to 1 (Total Profit:0.9)", clipQuote(s))
	}
	h := Holistic{Func: "quantile", Col: strings.TrimSpace(s[:i]), P: strings.TrimSpace(s[i+1:])}
	return h, h.check()
}

// check validates one holistic aggregate without a header.
func (h Holistic) check() error {
	if _, ok := holisticFunc(h.Func); !ok {
		return fmt.Errorf("no aggregate %q", h.Func)
	}
	if strings.TrimSpace(h.Col) == "" {
		return fmt.Errorf("empty column name in the %s list", h.Func)
	}
	if h.Func != "quantile" {
		if h.P != "" {
			return fmt.Errorf("%s takes no fraction", h.Func)
		}
		return nil
	}
	if _, err := quantileP(h.P); err != nil {
		return err
	}
	return nil
}

// quantileP reads a quantile's fraction: a decimal from 0 to 1.
func quantileP(p string) (*big.Rat, error) {
	m, sc, err := ParseFixed([]byte(p))
	if err != nil || m < 0 || m > pow10[sc] {
		return nil, fmt.Errorf("quantile %s: the fraction must be a decimal from 0 to 1 (0.9, not 90%%)", clipQuote(p))
	}
	return new(big.Rat).SetFrac(big.NewInt(m), big.NewInt(pow10[sc])), nil
}

// label is the aggregate's column in an answer: count_distinct(COL),
// median(COL), quantile(COL,P).
func (h Holistic) label(col string) string {
	f, _ := aggFunc(h.Func)
	return f.label(col, h.P)
}

// distinctKey is v's key in a Distinct set for a column of kind k: a
// number's canonical decimal, a date's instant, else the bytes (a column
// read value by value, KindAuto, keys each by its own kind, tagged).
func distinctKey(v []byte, k Kind, dr *dateReader) (string, error) {
	switch k {
	case KindText:
		return string(v), nil
	case KindAuto:
		if s, err := canonField(v, KindNumber, dr); err == nil {
			return s, nil
		}
		if s, err := canonField(v, KindDate, dr); err == nil {
			return s, nil
		}
		return "b" + string(v), nil
	}
	s, err := canonField(v, k, dr)
	return s[min(1, len(s)):], err
}

// addDistinct puts key in w's Distinct set, and says whether it was new.
func (w *Words) addDistinct(key []byte) bool {
	if _, ok := w.Distinct[string(key)]; ok {
		return false
	}
	if w.Distinct == nil {
		w.Distinct = map[string]struct{}{}
	}
	w.Distinct[string(key)] = struct{}{}
	return true
}

// mergeHolistic folds o's Distinct and Nums into w's.
func (w *Words) mergeHolistic(o *Words) {
	for k := range o.Distinct {
		w.addDistinct([]byte(k))
	}
	for _, c := range o.Nums {
		w.Nums = append(w.Nums, c[:len(c):len(c)]) // (full: w's next value starts a chunk of its own, o's stays as it is)
	}
}

// numChunk is the most values a chunk of Words.Nums holds: chunks double
// up to it from 64.
const numChunk = 1 << 20

// addNum adds x to w's values.
func (w *Words) addNum(x Extreme) {
	n := len(w.Nums)
	if n == 0 || len(w.Nums[n-1]) == cap(w.Nums[n-1]) {
		c := 64
		if n > 0 {
			c = min(2*cap(w.Nums[n-1]), numChunk)
		}
		w.Nums = append(w.Nums, make([]Extreme, 0, c))
		n++
	}
	w.Nums[n-1] = append(w.Nums[n-1], x)
}

// holdNum adds m·10^-sc to w's values, a median's state that r holds
// (Result.Held).
func (r *Result) holdNum(w *Words, m int64, sc int) {
	w.addNum(Extreme{m, int8(sc), true})
	r.Held += valueCost
}

// allNums is w's values, in one slice (a copy).
func (w *Words) allNums() []Extreme { return slices.Concat(w.Nums...) }

// equal reports whether w and o hold the same words, the same distinct
// set and the same values in any order.
func (w *Words) equal(o *Words) bool {
	if w.MinDate != o.MinDate || w.MaxDate != o.MaxDate || w.MinText != o.MinText || w.MaxText != o.MaxText ||
		w.MinNum != o.MinNum || w.MaxNum != o.MaxNum || !maps.Equal(w.Distinct, o.Distinct) {
		return false
	}
	return slices.Equal(sortedNums(w.allNums()), sortedNums(o.allNums()))
}

// sortedNums is a sorted copy of xs: by value, then scale.
func sortedNums(xs []Extreme) []Extreme {
	s := slices.Clone(xs)
	slices.SortFunc(s, func(a, b Extreme) int {
		if c := a.cmp(b); c != 0 {
			return c
		}
		return int(a.S) - int(b.S)
	})
	return s
}

// appendHolistic appends w's Distinct (uvarint count, then each key, in
// order, as uvarint length and bytes) and Nums (uvarint count, then each
// as varint M and byte S).
func appendHolistic(b []byte, w *Words) []byte {
	b = binary.AppendUvarint(b, uint64(len(w.Distinct)))
	for _, k := range slices.Sorted(maps.Keys(w.Distinct)) {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
	}
	all := w.allNums()
	b = binary.AppendUvarint(b, uint64(len(all)))
	for _, x := range all {
		b = binary.AppendVarint(b, x.M)
		b = append(b, byte(x.S))
	}
	return b
}

// decodeHolistic reads what appendHolistic wrote at the start of b into
// w, and returns the rest.
func decodeHolistic(b []byte, w *Words) ([]byte, error) {
	bad := errors.New("words: malformed distinct set or values")
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, bad
	}
	b = b[k:]
	for range n {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) || !w.addDistinct(b[k:k+int(l)]) {
			return nil, bad
		}
		b = b[k+int(l):]
	}
	if n, k = binary.Uvarint(b); k <= 0 || n > uint64(len(b))/2 {
		return nil, bad
	}
	b = b[k:]
	var nums []Extreme
	if n > 0 {
		nums = make([]Extreme, 0, n)
	}
	for range n {
		m, k := binary.Varint(b)
		if k <= 0 || k >= len(b) || int(b[k]) >= len(pow10) {
			return nil, bad
		}
		nums = append(nums, Extreme{m, int8(b[k]), true})
		b = b[k+1:]
	}
	if n > 0 {
		w.Nums = [][]Extreme{nums}
	}
	return b, nil
}

// holisticValue is the value of a median or quantile (p its fraction)
// over xs, as a rational and the scale it is written at (see Holistic);
// ok false for no values. xs is left as it is.
//
// The two values around the fraction are found by selection, not a sort
// (linear time): of the values at one scale as int64s where they all fit,
// else of a sorted copy.
func holisticValue(chunks [][]Extreme, p *big.Rat) (v *big.Rat, scale int, ok bool) {
	n := 0
	for _, c := range chunks {
		n += len(c)
		for _, x := range c {
			scale = max(scale, int(x.S))
		}
	}
	if n == 0 {
		return nil, 0, false
	}
	// h = (n-1)·p; the value is the lo-th least, plus (h-lo) times the
	// distance to the next
	h := new(big.Rat).Mul(big.NewRat(int64(n-1), 1), p)
	lo := int(new(big.Int).Quo(h.Num(), h.Denom()).Int64())
	frac := new(big.Rat).Sub(h, big.NewRat(int64(lo), 1))
	var a, b Extreme // the lo-th least value and the next (b: where frac > 0)
	if ms, ok := atScale(chunks, n, scale); ok {
		a = Extreme{selectInt64(ms, lo), int8(scale), true}
		if frac.Sign() > 0 {
			b = Extreme{slices.Min(ms[lo+1:]), int8(scale), true} // (selection left the greater ones after lo)
		}
	} else {
		s := sortedNums(slices.Concat(chunks...))
		a = s[lo]
		if frac.Sign() > 0 {
			b = s[lo+1]
		}
	}
	rat := func(x Extreme) *big.Rat {
		return new(big.Rat).SetFrac(big.NewInt(x.M), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.S)), nil))
	}
	v = rat(a)
	if frac.Sign() > 0 {
		d := new(big.Rat).Sub(rat(b), v)
		v.Add(v, d.Mul(d, frac))
	}
	ten := big.NewRat(10, 1)
	for t := new(big.Rat).Mul(v, new(big.Rat).SetFrac(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil), big.NewInt(1))); !t.IsInt(); t.Mul(t, ten) {
		scale++
	}
	return v, scale, true
}

// atScale is the n values of chunks at scale sc (at least each one's) as
// mantissas, ok false if one does not fit an int64 there.
func atScale(chunks [][]Extreme, n, sc int) ([]int64, bool) {
	ms := make([]int64, 0, n)
	for _, c := range chunks {
		for _, x := range c {
			f := pow10[sc-int(x.S)]
			m := x.M * f
			if m/f != x.M {
				return nil, false
			}
			ms = append(ms, m)
		}
	}
	return ms, true
}

// selectInt64 is the k-th least of ms (0-based), which it reorders so that
// every value after index k is at least it and every one before at most
// (Hoare's selection, the pivot the median of three).
func selectInt64(ms []int64, k int) int64 {
	lo, hi := 0, len(ms)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if ms[mid] < ms[lo] {
			ms[mid], ms[lo] = ms[lo], ms[mid]
		}
		if ms[hi] < ms[lo] {
			ms[hi], ms[lo] = ms[lo], ms[hi]
		}
		if ms[hi] < ms[mid] {
			ms[hi], ms[mid] = ms[mid], ms[hi]
		}
		pivot := ms[mid]
		i, j := lo, hi
		for i <= j {
			for ms[i] < pivot {
				i++
			}
			for ms[j] > pivot {
				j--
			}
			if i <= j {
				ms[i], ms[j] = ms[j], ms[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return ms[k]
		}
	}
	return ms[k]
}

// appendHolisticValue appends aggregate g's value over w (nil: no values) to
// dst: a count of distinct values, or a median's or quantile's decimal
// (noValue for none).
func (a *Answer) appendHolisticValue(dst []byte, g Agg, w *Words, group bool) []byte {
	if g.Func == "count_distinct" {
		n := 0
		if w != nil {
			n = len(w.Distinct)
		}
		return appendDecimal(dst, false, strconv.AppendInt(nil, int64(n), 10), 0, group)
	}
	if w == nil {
		return append(dst, noValue(group)...)
	}
	v, scale, ok := a.valueOf(g, w)
	if !ok {
		return append(dst, noValue(group)...)
	}
	n := new(big.Int).Mul(v.Num(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	n.Quo(n, v.Denom()) // (exact: see holisticValue)
	return appendDecimal(dst, n.Sign() < 0, new(big.Int).Abs(n).Append(nil, 10), scale, group)
}

// cmpHolistic orders two groups' values of aggregate g (w nil: none,
// which comes first).
func (ans *Answer) cmpHolistic(g Agg, a, b *Words) int {
	if g.Func == "count_distinct" {
		n := func(w *Words) int {
			if w == nil {
				return 0
			}
			return len(w.Distinct)
		}
		return n(a) - n(b)
	}
	val := func(w *Words) *big.Rat {
		if w == nil {
			return nil
		}
		v, _, _ := ans.valueOf(g, w)
		return v
	}
	x, y := val(a), val(b)
	switch {
	case x == nil || y == nil:
		return boolInt(x != nil) - boolInt(y != nil)
	}
	return x.Cmp(y)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// foldKey names a median's or quantile's value over one group's values
// (w; its Answer's one group where there is no group-by).
type foldKey struct {
	w      *Words
	fn, p  string
	values int // how many (a Words that grew since is folded again)
}

type foldedValue struct {
	v     *big.Rat
	scale int
	ok    bool
}

// fold computes every median and quantile of a, each group's, on every
// core, before any is rendered or compared: each is a selection over its
// group's values, which rendering would otherwise make one after another
// on one core, after the scan. Answers without them do nothing.
func (a *Answer) fold() {
	if a.folded != nil {
		return
	}
	var keys []foldKey
	var ps []*big.Rat
	for _, g := range a.Aggs {
		if f, ok := holisticFunc(g.Func); !ok || f.need != NeedValues {
			continue
		}
		p := fractionOf(g)
		add := func(w *Words) {
			if w != nil {
				keys, ps = append(keys, foldKey{w, g.Func, g.P, w.values()}), append(ps, p)
			}
		}
		if gs := a.Result.Groups; gs != nil {
			for x := range gs.Len() {
				add(gs.Words[x*gs.Slots+g.Slot])
			}
		} else {
			add(a.Result.Words[g.Slot])
		}
	}
	if len(keys) == 0 {
		return
	}
	vals := make([]foldedValue, len(keys))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(keys)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(keys); i = int(next.Add(1) - 1) {
				v, sc, ok := holisticValue(keys[i].w.Nums, ps[i])
				vals[i] = foldedValue{v, sc, ok}
			}
		})
	}
	wg.Wait()
	a.folded = make(map[foldKey]foldedValue, len(keys))
	for i, k := range keys {
		a.folded[k] = vals[i]
	}
}

// valueOf is aggregate g's value over w: fold's, or made now.
func (a *Answer) valueOf(g Agg, w *Words) (*big.Rat, int, bool) {
	if f, ok := a.folded[foldKey{w, g.Func, g.P, w.values()}]; ok {
		return f.v, f.scale, f.ok
	}
	return holisticValue(w.Nums, fractionOf(g))
}

// fractionOf is the fraction a median (1/2) or quantile g asks for (its
// P, checked by Validate).
func fractionOf(g Agg) *big.Rat {
	if g.Func != "quantile" {
		return big.NewRat(1, 2)
	}
	p, _ := quantileP(g.P)
	return p
}

// values is how many values w holds.
func (w *Words) values() int {
	n := 0
	for _, c := range w.Nums {
		n += len(c)
	}
	return n
}
