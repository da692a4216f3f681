package scan

import (
	"iter"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Answer is a query's answer with what names its numbers (Spec: the
// filters, the group-by columns and the aggregates, as the header spells
// them). It owns the answer's forms: equality (Equal), the lines a report
// prints for a query without group-by (Lines), the values a machine reads
// (Values, for JSON), the table of a group-by (Groups), and a one-line form
// for logs (String); Result owns the merge and the binary form.
type Answer struct {
	Spec
	Result
	// folded are the medians and quantiles, made at once on every core
	// (fold) before the first is rendered or compared; read only after.
	folded map[foldKey]foldedValue
}

// Equal reports whether a and b answer the same question the same way: the
// same names, rows, matches and figures. (Result.Quoted, how many rows took
// the full parser, is how the answer was found, not part of it.)
func (a *Answer) Equal(b *Answer) bool {
	if a == nil || b == nil {
		return a == b
	}
	if !slices.EqualFunc(a.Filters, b.Filters, Cond.same) || !slices.EqualFunc(a.Any, b.Any, Cond.same) || !slices.Equal(a.By, b.By) || !slices.Equal(a.Aggs, b.Aggs) ||
		a.Rows != b.Rows || a.Matched != b.Matched {
		return false
	}
	for _, g := range a.Aggs {
		k := g.Slot
		if !a.Sums[k].Equal(b.Sums[k]) || a.Mins[k] != b.Mins[k] || a.Maxs[k] != b.Maxs[k] {
			return false
		}
	}
	return equalWords(a.Result.Words, b.Result.Words) && a.Result.Groups.Equal(b.Result.Groups)
}

// Skipped is how many matching rows lacked aggregate g's value (an empty
// field), over every group.
func (a *Answer) Skipped(g Agg) int64 {
	gr := a.Result.Groups
	if a.By == nil || gr == nil {
		return a.Result.Skipped[g.Slot]
	}
	var n int64
	for at, k := range gr.Skipped {
		if at%gr.Slots == g.Slot {
			n += k
		}
	}
	return n
}

// MatchedLabel names the count of matching rows in a text report: "Matching
// orders" for the Sales Records' question, else "Matching rows".
func (a *Answer) MatchedLabel() string {
	if a.Sales {
		return "Matching orders"
	}
	return "Matching rows"
}

// Line is one labelled figure of an answer, as a report prints it.
type Line struct{ Label, Value string }

// Lines are the figures of an answer without group-by, for a text report:
// the matching rows, then each aggregate, exact, with thousands grouped. A
// minimum, maximum or average of no rows is "-".
func (a *Answer) Lines() []Line {
	a.fold()
	out := []Line{{a.MatchedLabel(), string(Fixed{V: a.Matched}.Append(nil, true))}}
	for _, g := range a.Aggs {
		out = append(out, Line{g.Label(), a.value(g, a.Matched, a.Present(g.Slot), a.Sums[:], a.Mins[:], a.Maxs[:], a.Result.Words[g.Slot], true)})
	}
	return out
}

// Values are the aggregates of an answer without group-by as a machine
// reads them (JSON, CSV): each one's exact decimal, ungrouped, in query
// order; "" for a minimum, maximum or average of no rows. A group-by's
// figures are in its table (Groups); its one value is the number of groups.
func (a *Answer) Values() []Line {
	if a.By != nil {
		n := 0
		if a.Result.Groups != nil {
			n = a.Result.Groups.Len()
		}
		return []Line{{"groups", strconv.Itoa(n)}}
	}
	a.fold()
	out := make([]Line, len(a.Aggs))
	for i, g := range a.Aggs {
		out[i] = Line{g.Label(), a.value(g, a.Matched, a.Present(g.Slot), a.Sums[:], a.Mins[:], a.Maxs[:], a.Result.Words[g.Slot], false)}
	}
	return out
}

// value renders aggregate g of one group over n rows, present of which
// had its value: its accumulators are sums[g.Slot] and so on (a slice may
// be nil if no aggregate needs it), and its dates' and text's words w
// (nil for none). An aggregate of rows that all lack the value has none
// (noValue); a sum of no rows is 0. A date or text minimum or maximum is
// as written.
func (a *Answer) value(g Agg, n, present int64, sums []Fixed, mins, maxs []Extreme, w *Words, group bool) string {
	return string(a.appendValue(nil, g, n, present, sums, mins, maxs, w, group))
}

// appendValue appends value's rendering to dst.
func (a *Answer) appendValue(dst []byte, g Agg, n, present int64, sums []Fixed, mins, maxs []Extreme, w *Words, group bool) []byte {
	if isHolistic(g.Func) {
		return a.appendHolisticValue(dst, g, w, group)
	}
	k := g.Slot
	var x Extreme
	switch g.Func {
	case "sum":
		if present == 0 && n > 0 {
			return append(dst, noValue(group)...)
		}
		return sums[k].Append(dst, group)
	case "avg":
		return appendAvg(dst, sums[k], present, group)
	case "min":
		if k < len(mins) {
			x = mins[k]
		}
	default:
		if k < len(maxs) {
			x = maxs[k]
		}
	}
	word, kind, ok := pickExtreme(g.Func, x, w)
	switch {
	case !ok:
		return append(dst, noValue(group)...)
	case kind != kindOfNumber:
		return append(dst, word.Text...)
	case word.Text != "": // a number of more than 18 digits
		m, sc := numOf(x, word)
		return Fixed{C: m, Scale: int64(sc)}.Append(dst, group)
	}
	return Fixed{V: x.M, Scale: int64(x.S)}.Append(dst, group)
}

// noValue is a minimum, maximum or average of no rows: "-" in a text
// report, "" for a machine.
func noValue(group bool) string {
	if group {
		return "-"
	}
	return ""
}

// appendAvg appends sum / n, exactly, rounded half to even to
// max(AvgScale, the sum's scale) digits (grouped by thousands if group),
// to dst; noValue when n is 0. A sum that fits an int64 at the average's
// scale is divided as one (avgQuick): a table of millions of groups would
// otherwise make several big.Ints a row.
func appendAvg(dst []byte, sum Fixed, n int64, group bool) []byte {
	if n == 0 {
		return append(dst, noValue(group)...)
	}
	scale := max(AvgScale, int(sum.Scale))
	if q, ok := avgQuick(sum, n, scale); ok {
		return Fixed{V: q, Scale: int64(scale)}.Append(dst, group)
	}
	q := roundDiv(scaleTo(sum, int64(scale)), big.NewInt(n))
	return appendDecimal(dst, q.Sign() < 0, q.Abs(q).Append(nil, 10), scale, group)
}

// avgQuick is roundDiv(scaleTo(sum, scale), n) (n > 0, scale ≥ sum.Scale)
// if the scaled sum fits an int64 (ok), computed in 64 bits.
func avgQuick(sum Fixed, n int64, scale int) (q int64, ok bool) {
	t := sum.total()
	v := int64(t[0])
	if wideOf(v) != t || scale-int(sum.Scale) > maxPow {
		return 0, false
	}
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	hi, m := bits.Mul64(u, uint64(pow10[scale-int(sum.Scale)]))
	if hi != 0 || m > math.MaxInt64 {
		return 0, false
	}
	d := uint64(n)
	uq, r := m/d, m%d
	// 2r against n decides (r < n < 2^63: no overflow); ties go to the
	// even quotient.
	if 2*r > d || (2*r == d && uq&1 == 1) {
		uq++
	}
	if neg {
		return -int64(uq), true
	}
	return int64(uq), true
}

// roundDiv is num/den rounded half to even (den > 0).
func roundDiv(num, den *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	// |2r| against den decides; ties go to the even quotient.
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if c := r2.Cmp(den); c > 0 || (c == 0 && q.Bit(0) == 1) {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// String is the answer on one line: "matched=259409; Total Revenue=…", and
// for a group-by the number of groups.
func (a *Answer) String() string {
	if a == nil {
		return "no answer"
	}
	var b strings.Builder
	b.WriteString("matched=")
	b.WriteString(strconv.FormatInt(a.Matched, 10))
	if a.By != nil {
		b.WriteString("; groups=")
		n := 0
		if a.Result.Groups != nil {
			n = a.Result.Groups.Len()
		}
		b.WriteString(strconv.Itoa(n))
		return b.String()
	}
	for _, v := range a.Values() {
		b.WriteString("; ")
		b.WriteString(v.Label)
		b.WriteByte('=')
		b.WriteString(v.Value)
	}
	return b.String()
}

// Describe is the question in a few words: its filters joined by AND ("all
// rows" for none), then the group-by columns: "Region=Europe AND Units
// Sold>5000 by Item Type".
func (s *Spec) Describe() string {
	var b strings.Builder
	for i, c := range s.Filters {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString(c.String())
	}
	if len(s.Any) > 0 {
		if len(s.Filters) > 0 {
			b.WriteString(" AND ")
		}
		b.WriteString("(")
		for i, c := range s.Any {
			if i > 0 {
				b.WriteString(" OR ")
			}
			b.WriteString(c.String())
		}
		b.WriteString(")")
	}
	if len(s.Filters) == 0 && len(s.Any) == 0 {
		b.WriteString("all rows")
	}
	if len(s.By) > 0 {
		b.WriteString(" by ")
		b.WriteString(strings.Join(s.By, ", "))
	}
	return b.String()
}

// GroupTable is a group-by's answer as rows: sorted (by Spec.Sort, then by
// the group-by columns) and cut to Spec.Limit. Row i's cells are the
// group-by columns, the count, then each aggregate (Header names them).
// It reads the Answer it was made from, which must not change while it is
// in use, and is for one goroutine at a time (AppendRow keeps a word).
type GroupTable struct {
	Header []string
	a      *Answer
	order  []int
	keys   []keyOrder // per group-by column: its values, and how they sort
	sink   int64      // what touch reads, kept so that its reads are made
}

// Groups returns the group-by's table (nil for an answer without
// group-by). The group-by columns sort as numbers if every group's value
// is one, else as dates if every one is a date, else as bytes; the count
// and the aggregates sort exactly.
func (a *Answer) Groups() *GroupTable {
	if a.By == nil {
		return nil
	}
	t := &GroupTable{a: a}
	t.Header = append(append(t.Header, a.By...), "count")
	for _, g := range a.Aggs {
		t.Header = append(t.Header, g.Label())
	}
	if a.Result.Groups == nil {
		return t
	}
	a.fold() // (before the order, which may compare medians)
	o := newGroupOrder(a)
	t.keys = o.keys
	t.order = o.first(a.Limit)
	return t
}

// Len is the number of rows.
func (t *GroupTable) Len() int { return len(t.order) }

// Fork returns a table of t's rows for another goroutine: t and the tables
// forked from it may append rows at the same time, each in its own
// goroutine (they share the rows and the Answer, which they only read).
func (t *GroupTable) Fork() *GroupTable {
	c := *t
	c.sink = 0
	return &c
}

// Row appends row i's cells to dst as strings: AppendRow's cells, each a
// part of one string made for the row.
func (t *GroupTable) Row(dst []string, i int, group bool) []string {
	b, ends := t.AppendRow(nil, nil, i, group)
	for _, c := range Cells(string(b), ends) {
		dst = append(dst, c)
	}
	return dst
}

// Cells yields the cells of a row that AppendRow wrote from offset 0, in
// row (its bytes, or a string of them) with ends, each with its column.
// The cells are parts of row: they stay valid as long as it does.
func Cells[S ~string | ~[]byte](row S, ends []int) iter.Seq2[int, S] {
	return func(yield func(int, S) bool) {
		start := 0
		for j, e := range ends {
			if !yield(j, row[start:e]) {
				return
			}
			start = e
		}
	}
}

// AppendRow appends row i's cells to dst, one after another, and each
// cell's end to ends, as offsets in the returned slice: with s the length
// of dst on entry, cell 0 is [s, ends[0]) and cell j is [ends[j-1],
// ends[j]). The cells are exact decimals, with thousands grouped if group
// is set ("-" then for a minimum or average of no value), else plain (""
// for no value). It allocates nothing but what dst and ends grow by, so a
// caller that keeps them from row to row writes millions of rows without
// an allocation a row.
func (t *GroupTable) AppendRow(dst []byte, ends []int, i int, group bool) ([]byte, []int) {
	if i%touchRows == 0 {
		t.touch(i, min(i+touchRows, len(t.order)))
	}
	return t.appendRowOf(dst, ends, t.order[i], group)
}

// touchRows is how many rows AppendRow touches at a time (see touch).
const touchRows = 64

// touch reads a word of each of rows [lo, hi)'s figures and key: the
// groups lie in the order their keys were first seen, the table in its
// own, so with millions of groups each row's first read of each misses
// the caches and the TLB. Made in a loop that waits for nothing else,
// the misses overlap, and the rows' formatting then finds them cached.
func (t *GroupTable) touch(lo, hi int) {
	g := t.a.Result.Groups
	var sink int64
	for _, x := range t.order[lo:hi] {
		if s := g.keyStart(x); s < len(g.arena) {
			sink += int64(g.arena[s])
		}
		sink += g.Count[x]
		if g.Slots == 0 {
			continue
		}
		o, e := x*g.Slots, (x+1)*g.Slots-1 // a group's figures may span two lines
		if g.Sums != nil {
			sink += g.Sums[o].V + g.Sums[e].V
		}
		if g.Mins != nil {
			sink += g.Mins[o].M + g.Mins[e].M
		}
		if g.Maxs != nil {
			sink += g.Maxs[o].M + g.Maxs[e].M
		}
	}
	t.sink += sink
}

// EachRow calls f with every row's cells (as AppendRow makes them, from
// offset 0; f must not keep the slices) in the order the groups lie in
// memory, not the table's: for a pass whose result does not depend on the
// order, such as measuring widths, it reads the groups' figures in
// sequence rather than at random (with millions of groups, each random
// read is a cache and TLB miss). The rows are cut into parts (at least 1)
// of memory order, each visited by a goroutine of its own: f's first
// argument is the part, and f may be called at once for different parts,
// never for one part. EachRow returns when every part is done.
func (t *GroupTable) EachRow(group bool, parts int, f func(part int, cells []byte, ends []int)) {
	var xs []int // the rows' groups in memory order; nil: every group, 0 to n-1
	if g := t.a.Result.Groups; g == nil || len(t.order) != g.Len() {
		xs = slices.Sorted(slices.Values(t.order))
	}
	n := len(t.order)
	parts = max(1, min(parts, n/eachRowMin))
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() {
			var b []byte
			var ends []int
			for k := p * n / parts; k < (p+1)*n/parts; k++ {
				x := k
				if xs != nil {
					x = xs[k]
				}
				b, ends = t.appendRowOf(b[:0], ends[:0], x, group)
				f(p, b, ends)
			}
		})
	}
	wg.Wait()
}

// eachRowMin is the fewest rows EachRow gives a part of its own (a
// variable for the tests, which cut tables of a few rows into parts).
var eachRowMin = 4096

// appendRowOf is AppendRow for group x.
func (t *GroupTable) appendRowOf(dst []byte, ends []int, x int, group bool) ([]byte, []int) {
	a, g := t.a, t.a.Result.Groups
	for j := range t.keys {
		dst = append(dst, t.keys[j].field(x)...)
		ends = append(ends, len(dst))
	}
	n := g.Count[x]
	if group {
		dst = Fixed{V: n}.Append(dst, true)
	} else {
		dst = strconv.AppendInt(dst, n, 10)
	}
	ends = append(ends, len(dst))
	var sums []Fixed
	var mins, maxs []Extreme
	o, e := x*g.Slots, (x+1)*g.Slots
	if g.Sums != nil {
		sums = g.Sums[o:e]
	}
	if g.Mins != nil {
		mins = g.Mins[o:e]
	}
	if g.Maxs != nil {
		maxs = g.Maxs[o:e]
	}
	for _, ag := range a.Aggs {
		var w *Words
		if g.Words != nil {
			w = g.Words[o+ag.Slot]
		}
		dst = a.appendValue(dst, ag, n, g.Present(x, ag.Slot), sums, mins, maxs, w, group)
		ends = append(ends, len(dst))
	}
	return dst, ends
}

// Count is row i's count.
func (t *GroupTable) Count(i int) int64 { return t.a.Result.Groups.Count[t.order[i]] }

// cmpAgg compares aggregate ag of groups x and y exactly.
func (a *Answer) cmpAgg(ag Agg, x, y int) int {
	g := a.Result.Groups
	k := ag.Slot
	ix, iy := x*g.Slots+k, y*g.Slots+k
	if isHolistic(ag.Func) {
		return a.cmpHolistic(ag, g.Words[ix], g.Words[iy])
	}
	switch ag.Func {
	case "sum":
		return cmpFixed(g.Sums[ix], g.Sums[iy])
	case "min", "max":
		vs := g.extremes(ag.Func)
		vx, vy := vs[ix], vs[iy]
		var wx, wy *Words
		if g.Words != nil {
			wx, wy = g.Words[ix], g.Words[iy]
		}
		ax, kx, okx := pickExtreme(ag.Func, vx, wx)
		ay, ky, oky := pickExtreme(ag.Func, vy, wy)
		if !okx || !oky {
			return cmpInt(b2i(okx), b2i(oky))
		}
		return cmpPicked(vx, ax, kx, vy, ay, ky)
	}
	// avg: sx/nx against sy/ny, as sx·ny against sy·nx at one scale; no
	// value (no row had one) first, as for a minimum or maximum.
	sx, sy := g.Sums[ix], g.Sums[iy]
	nx, ny := g.Present(x, k), g.Present(y, k)
	if nx == 0 || ny == 0 {
		return cmpInt(b2i(nx > 0), b2i(ny > 0))
	}
	sc := max(sx.Scale, sy.Scale)
	l := scaleTo(sx, sc)
	l.Mul(l, big.NewInt(ny))
	r := scaleTo(sy, sc)
	r.Mul(r, big.NewInt(nx))
	return l.Cmp(r)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// scaleTo is f's total at scale sc (≥ f.Scale) as a big.Int.
func scaleTo(f Fixed, sc int64) *big.Int {
	t := f.total().big()
	if sc > f.Scale {
		t.Mul(t, new(big.Int).Exp(big.NewInt(10), big.NewInt(sc-f.Scale), nil))
	}
	return t
}

// cmpFixed compares two exact sums.
func cmpFixed(a, b Fixed) int {
	if a.C.isZero() && b.C.isZero() {
		return cmpDec(a.V, int(a.Scale), b.V, int(b.Scale))
	}
	sc := max(a.Scale, b.Scale)
	return scaleTo(a, sc).Cmp(scaleTo(b, sc))
}
