package scan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
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

// HolisticFunc is one kind of holistic aggregate: its Func, the flag that
// asks for it, and what the flag's help says.
type HolisticFunc struct {
	Func, Flag, Help string
	need             Need
	numbers          bool // reads numbers only
}

// HolisticFuncs are the holistic aggregates, in the order an answer lists
// them; the commands' flags and help come from here.
var HolisticFuncs = []HolisticFunc{
	{"count_distinct", "count-distinct", "columns whose distinct present values to count, exactly (a number by value, a date by instant, text by bytes), comma-separated (or the flag given again)", NeedDistinct, false},
	{"median", "median", "number columns whose exact median (SQL's, the mean of the two middle values of an even count) to report, comma-separated (or the flag given again)", NeedValues, true},
	{"quantile", "quantile", "COL:P, the exact quantile P (0 to 1) of a number column, interpolated between the values around it as SQL's quantile_cont does; comma-separated (or the flag given again)", NeedValues, true},
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

func holisticFunc(name string) (HolisticFunc, bool) {
	for _, f := range HolisticFuncs {
		if f.Func == name {
			return f, true
		}
	}
	return HolisticFunc{}, false
}

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
	if h.Func == "quantile" {
		return "quantile(" + col + "," + h.P + ")"
	}
	return h.Func + "(" + col + ")"
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
	w.Nums = append(w.Nums, o.Nums...)
}

// equal reports whether w and o hold the same words, the same distinct
// set and the same values in any order.
func (w *Words) equal(o *Words) bool {
	if w.MinDate != o.MinDate || w.MaxDate != o.MaxDate || w.MinText != o.MinText || w.MaxText != o.MaxText ||
		w.MinNum != o.MinNum || w.MaxNum != o.MaxNum || !maps.Equal(w.Distinct, o.Distinct) || len(w.Nums) != len(o.Nums) {
		return false
	}
	return slices.Equal(sortedNums(w.Nums), sortedNums(o.Nums))
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
	b = binary.AppendUvarint(b, uint64(len(w.Nums)))
	for _, x := range w.Nums {
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
	if n > 0 {
		w.Nums = make([]Extreme, 0, n)
	}
	for range n {
		m, k := binary.Varint(b)
		if k <= 0 || k >= len(b) || int(b[k]) >= len(pow10) {
			return nil, bad
		}
		w.Nums = append(w.Nums, Extreme{m, int8(b[k]), true})
		b = b[k+1:]
	}
	return b, nil
}

// holisticValue is the value of a median or quantile (p its fraction)
// over xs, as a rational and the scale it is written at (see Holistic);
// ok false for no values. It sorts xs.
func holisticValue(xs []Extreme, p *big.Rat) (v *big.Rat, scale int, ok bool) {
	if len(xs) == 0 {
		return nil, 0, false
	}
	slices.SortFunc(xs, func(a, b Extreme) int { return a.cmp(b) })
	for _, x := range xs {
		scale = max(scale, int(x.S))
	}
	rat := func(x Extreme) *big.Rat {
		return new(big.Rat).SetFrac(big.NewInt(x.M), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.S)), nil))
	}
	// h = (n-1)·p; the value is xs[lo] + (h-lo)·(xs[lo+1]-xs[lo])
	h := new(big.Rat).Mul(big.NewRat(int64(len(xs)-1), 1), p)
	lo := new(big.Int).Quo(h.Num(), h.Denom()).Int64()
	v = rat(xs[lo])
	if frac := new(big.Rat).Sub(h, big.NewRat(lo, 1)); frac.Sign() > 0 {
		d := new(big.Rat).Sub(rat(xs[lo+1]), v)
		v.Add(v, d.Mul(d, frac))
	}
	ten := big.NewRat(10, 1)
	for t := new(big.Rat).Mul(v, new(big.Rat).SetFrac(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil), big.NewInt(1))); !t.IsInt(); t.Mul(t, ten) {
		scale++
	}
	return v, scale, true
}

// appendHolisticValue appends aggregate g's value over w (nil: no values) to
// dst: a count of distinct values, or a median's or quantile's decimal
// (noValue for none).
func appendHolisticValue(dst []byte, g Agg, w *Words, group bool) []byte {
	if g.Func == "count_distinct" {
		n := 0
		if w != nil {
			n = len(w.Distinct)
		}
		return appendDecimal(dst, false, strconv.AppendInt(nil, int64(n), 10), 0, group)
	}
	p := big.NewRat(1, 2)
	if g.Func == "quantile" {
		p, _ = quantileP(g.P)
	}
	if w == nil {
		return append(dst, noValue(group)...)
	}
	v, scale, ok := holisticValue(w.Nums, p)
	if !ok {
		return append(dst, noValue(group)...)
	}
	n := new(big.Int).Mul(v.Num(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	n.Quo(n, v.Denom()) // (exact: see holisticValue)
	return appendDecimal(dst, n.Sign() < 0, new(big.Int).Abs(n).Append(nil, 10), scale, group)
}

// cmpHolistic orders two groups' values of aggregate g (w nil: none,
// which comes first).
func cmpHolistic(g Agg, a, b *Words) int {
	if g.Func == "count_distinct" {
		n := func(w *Words) int {
			if w == nil {
				return 0
			}
			return len(w.Distinct)
		}
		return n(a) - n(b)
	}
	p := big.NewRat(1, 2)
	if g.Func == "quantile" {
		p, _ = quantileP(g.P)
	}
	val := func(w *Words) *big.Rat {
		if w == nil {
			return nil
		}
		v, _, _ := holisticValue(w.Nums, p)
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
