package scan

import (
	"math/big"
	"slices"
	"strconv"
	"strings"
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
}

// Equal reports whether a and b answer the same question the same way: the
// same names, rows, matches and figures. (Result.Quoted, how many rows took
// the full parser, is how the answer was found, not part of it.)
func (a *Answer) Equal(b *Answer) bool {
	if a == nil || b == nil {
		return a == b
	}
	if !slices.Equal(a.Filters, b.Filters) || !slices.Equal(a.By, b.By) || !slices.Equal(a.Aggs, b.Aggs) ||
		a.Rows != b.Rows || a.Matched != b.Matched {
		return false
	}
	for _, g := range a.Aggs {
		k := g.Slot
		if !a.Sums[k].Equal(b.Sums[k]) || a.Mins[k] != b.Mins[k] || a.Maxs[k] != b.Maxs[k] {
			return false
		}
	}
	return a.Result.Groups.Equal(b.Result.Groups)
}

// Line is one labelled figure of an answer, as a report prints it.
type Line struct{ Label, Value string }

// Lines are the figures of an answer without group-by, for a text report:
// the matching rows, then each aggregate, exact, with thousands grouped. A
// minimum, maximum or average of no rows is "-".
func (a *Answer) Lines() []Line {
	out := []Line{{"Matching orders", string(Fixed{V: a.Matched}.Append(nil, true))}}
	for _, g := range a.Aggs {
		out = append(out, Line{g.Label(), a.value(g, a.Matched, &a.Sums, &a.Mins, &a.Maxs, true)})
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
	out := make([]Line, len(a.Aggs))
	for i, g := range a.Aggs {
		out[i] = Line{g.Label(), a.value(g, a.Matched, &a.Sums, &a.Mins, &a.Maxs, false)}
	}
	return out
}

// value renders aggregate g of one group: its accumulators are sums[off+slot]
// and so on, over n rows.
func (a *Answer) value(g Agg, n int64, sums *[MaxSums]Fixed, mins, maxs *[MaxSums]Extreme, group bool) string {
	k := g.Slot
	var x Extreme
	switch g.Func {
	case "sum":
		return string(sums[k].Append(nil, group))
	case "avg":
		return avgOf(sums[k], n, group)
	case "min":
		x = mins[k]
	default:
		x = maxs[k]
	}
	if !x.Set {
		return noValue(group)
	}
	return string(Fixed{V: x.M, Scale: int64(x.S)}.Append(nil, group))
}

// noValue is a minimum, maximum or average of no rows: "-" in a text
// report, "" for a machine.
func noValue(group bool) string {
	if group {
		return "-"
	}
	return ""
}

// avgOf is sum / n, exactly, rounded half to even to max(AvgScale, the
// sum's scale) digits (grouped by thousands if group); noValue when n is 0.
func avgOf(sum Fixed, n int64, group bool) string {
	if n == 0 {
		return noValue(group)
	}
	scale := max(AvgScale, int(sum.Scale))
	q := roundDiv(scaleTo(sum, int64(scale)), big.NewInt(n))
	return string(appendDecimal(nil, q.Sign() < 0, q.Abs(q).Append(nil, 10), scale, group))
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
	if len(s.Filters) == 0 {
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
type GroupTable struct {
	Header []string
	a      *Answer
	order  []int
	cols   [][]string // cols[j][i]: group i's value of group-by column j
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
	g := a.Result.Groups
	if g == nil {
		return t
	}
	keys := make([]keyOrder, len(a.By))
	t.cols = make([][]string, len(a.By))
	for j := range t.cols {
		t.cols[j] = make([]string, g.Len())
	}
	for i := range g.Len() {
		if len(a.By) == 1 {
			t.cols[0][i] = g.Key(i)
			continue
		}
		for j, f := range KeyFields(g.Key(i), len(a.By)) {
			t.cols[j][i] = f
		}
	}
	for j := range keys {
		keys[j] = newKeyOrder(t.cols[j])
	}
	t.order = make([]int, g.Len())
	for i := range t.order {
		t.order[i] = i
	}
	byKey := func(x, y int) int {
		for j := range keys {
			if c := keys[j].cmp(x, y); c != 0 {
				return c
			}
		}
		return 0
	}
	slices.SortFunc(t.order, func(x, y int) int {
		for _, s := range a.Sort {
			c := 0
			switch {
			case s.col < 0:
				c = keys[-1-s.col].cmp(x, y)
			case s.col == 0:
				c = cmpInt(g.Count[x], g.Count[y])
			default:
				c = a.cmpAgg(a.Aggs[s.col-1], x, y)
			}
			if s.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return byKey(x, y)
	})
	if a.Limit > 0 && len(t.order) > a.Limit {
		t.order = t.order[:a.Limit]
	}
	return t
}

// Len is the number of rows.
func (t *GroupTable) Len() int { return len(t.order) }

// Row appends row i's cells to dst: exact decimals, with thousands grouped
// if group is set ("-" then for a minimum or average of no value), else
// plain ("" for no value).
func (t *GroupTable) Row(dst []string, i int, group bool) []string {
	a, g := t.a, t.a.Result.Groups
	x := t.order[i]
	for j := range t.cols {
		dst = append(dst, t.cols[j][x])
	}
	n := g.Count[x]
	if group {
		dst = append(dst, string(Fixed{V: n}.Append(nil, true)))
	} else {
		dst = append(dst, strconv.FormatInt(n, 10))
	}
	var sums [MaxSums]Fixed
	var mins, maxs [MaxSums]Extreme
	o := x * g.Slots
	if g.Sums != nil {
		copy(sums[:], g.Sums[o:o+g.Slots])
	}
	if g.Mins != nil {
		copy(mins[:], g.Mins[o:o+g.Slots])
	}
	if g.Maxs != nil {
		copy(maxs[:], g.Maxs[o:o+g.Slots])
	}
	for _, ag := range a.Aggs {
		dst = append(dst, a.value(ag, n, &sums, &mins, &maxs, group))
	}
	return dst
}

// Count is row i's count.
func (t *GroupTable) Count(i int) int64 { return t.a.Result.Groups.Count[t.order[i]] }

// cmpAgg compares aggregate ag of groups x and y exactly.
func (a *Answer) cmpAgg(ag Agg, x, y int) int {
	g := a.Result.Groups
	k := ag.Slot
	ix, iy := x*g.Slots+k, y*g.Slots+k
	switch ag.Func {
	case "sum":
		return cmpFixed(g.Sums[ix], g.Sums[iy])
	case "min", "max":
		vs := g.Mins
		if ag.Func == "max" {
			vs = g.Maxs
		}
		vx, vy := vs[ix], vs[iy]
		if !vx.Set || !vy.Set {
			return cmpInt(b2i(vx.Set), b2i(vy.Set))
		}
		return vx.cmp(vy)
	}
	// avg: sx/nx against sy/ny, as sx·ny against sy·nx at one scale.
	sx, sy := g.Sums[ix], g.Sums[iy]
	nx, ny := g.Count[x], g.Count[y]
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

// keyOrder is how one group-by column sorts: as numbers if every group's
// value parses as one, else as dates if every one is a date, else as bytes.
type keyOrder struct {
	col  []string // per group
	kind kind
	m    []int64
	s    []int
	d    []int32
}

func newKeyOrder(col []string) keyOrder {
	o := keyOrder{col: col, kind: kindNumber}
	o.m, o.s = make([]int64, len(col)), make([]int, len(col))
	var buf [64]byte
	for i, f := range col {
		m, s, err := ParseFixed(append(buf[:0], f...))
		if err != nil {
			o.kind = kindDate
			break
		}
		o.m[i], o.s[i] = m, s
	}
	if o.kind == kindNumber {
		return o
	}
	o.m, o.s = nil, nil
	o.d = make([]int32, len(col))
	for i, f := range col {
		d, ok := parseDate(append(buf[:0], f...))
		if !ok {
			return keyOrder{col: col, kind: kindBytes}
		}
		o.d[i] = d
	}
	return o
}

func (o *keyOrder) cmp(x, y int) int {
	switch o.kind {
	case kindNumber:
		if c := cmpDec(o.m[x], o.s[x], o.m[y], o.s[y]); c != 0 {
			return c
		}
	case kindDate:
		if c := cmpInt(int64(o.d[x]), int64(o.d[y])); c != 0 {
			return c
		}
	}
	// Equal numbers or dates in different spellings (7.1, 7.10) still
	// differ as keys: their bytes decide, so the order is total.
	return strings.Compare(o.col[x], o.col[y])
}
