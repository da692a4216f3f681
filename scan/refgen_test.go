package scan

// The reference for the general queries (several filters, comparisons,
// group-by, min, max, avg, sort and limit): records from refReader, numbers
// as math/big rationals, dates by package time, groups in a map of joined
// keys. It shares nothing with the scanner but the grammar's sentinels.

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// refCol resolves a query's column name the documented way: exact, then
// loose, then the two aliases.
func refCol(header []string, name string) (int, error) {
	loose := strings.NewReplacer(" ", "", "_", "", "-", "")
	fold := func(s string) string { return loose.Replace(strings.ToLower(s)) }
	tries := []string{name, fold(name)}
	switch fold(name) {
	case "item":
		tries = append(tries, "itemtype")
	case "channel":
		tries = append(tries, "saleschannel")
	}
	for k, want := range tries {
		var at []int
		for i, h := range header {
			if (k == 0 && h == want) || (k > 0 && fold(h) == want) {
				at = append(at, i)
			}
		}
		if len(at) > 1 {
			return 0, ErrDupColumn
		}
		if len(at) == 1 {
			return at[0], nil
		}
	}
	return 0, ErrColumn
}

// refNum parses a number of the grammar: its value, its scale, or the error.
func refNum(text string) (*big.Rat, int, error) {
	var s refSum
	s.v = new(big.Int)
	if err := s.add(text); err != nil {
		return nil, 0, err
	}
	return new(big.Rat).SetFrac(s.v, pow10big(s.scale)), s.scale, nil
}

// refDateLayouts are date.go's forms as package time writes them;
// time.Parse reads month names in any case, and a fraction of a second
// after the seconds even where a layout has none.
var refDateLayouts = []string{"1/2/2006", "2.1.2006", "2006-01-02", "2006/1/2", "2006-01", "Jan 2 2006", "Jan 2, 2006",
	"January 2 2006", "January 2, 2006", "2 Jan 2006", "2 January 2006", "2-Jan-2006", "2-January-2006",
	"Jan-2-2006", "January-2-2006",
	"1/2/2006 3:04 PM", "1/2/2006 3:04:05 PM", "1/2/2006 3:04 pm", "1/2/2006 3:04:05 pm"}

// refDate is parseDate the slow way: package time, over every layout (and
// each year-first day with each clock).
func refDate(text string) (time.Time, bool) {
	text = strings.Replace(text, "Sept ", "Sep ", 1) // time knows Sep and September
	text = strings.Replace(text, "sept ", "sep ", 1)
	text = strings.Replace(text, "SEPT ", "SEP ", 1)
	for _, sept := range []string{"Sept-", "sept-", "SEPT-"} {
		text = strings.Replace(text, sept, sept[:3]+"-", 1)
	}
	if strings.Contains(text, "  ") || strings.HasPrefix(text, "+") {
		return time.Time{}, false // time skips runs of spaces; parseDate reads one
	}
	layouts := refDateLayouts
	for _, day := range []string{"2006-01-02", "2006/1/2"} {
		if len(text) > 8 && text[4] == day[4] {
			for _, sep := range []string{"T", " "} {
				for _, clock := range []string{"15:04", "15:04:05"} {
					c := day + sep + clock
					layouts = append(layouts, c, c+"Z", c+"Z07:00", c+"Z0700")
				}
			}
		}
	}
	for _, layout := range layouts {
		t, err := time.Parse(layout, text)
		if err != nil || !refDateShape(layout, text) {
			continue
		}
		return t, true
	}
	return time.Time{}, false
}

// refDateShape holds what time.Parse lets through and parseDate does not:
// widths (2006-01-02 takes exactly two digits of month and day; a
// fraction of more than 6 digits, or one without seconds) and years of
// four digits.
func refDateShape(layout, text string) bool {
	if i := strings.IndexByte(text, '.'); i >= 0 && layout != "2.1.2006" {
		frac := text[i+1:]
		if !strings.Contains(layout, "15:04:05") || len(frac)-len(strings.TrimLeft(frac, "0123456789")) > 6 {
			return false
		}
	}
	if m := refOffset.FindStringSubmatch(text); m != nil && strings.Contains(layout, "Z07") {
		if h, _ := strconv.Atoi(m[1]); h > 23 { // time takes up to 24:60
			return false
		}
		if mm, _ := strconv.Atoi(m[2]); mm > 59 {
			return false
		}
	}
	if strings.Contains(layout, "15:04") && !refHour.MatchString(text) {
		return false // time reads an hour of one digit too
	}
	if !refYear.MatchString(text) {
		return false
	}
	if strings.HasPrefix(layout, "2006-01") {
		return refISO.MatchString(text)
	}
	return true
}

var (
	refHour = regexp.MustCompile(`[T ][0-9]{2}:`)
	refYear = regexp.MustCompile(`(^|[^0-9])[0-9]{4}($|[^0-9])`)
	refISO  = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}(-[0-9]{2})?([T ]|$)`)
	// a zone's offset at a time's end
	refOffset = regexp.MustCompile(`[0-9][+-]([0-9]{2}):?([0-9]{2})$`)
)

type refGroup struct {
	keys     []string
	count    int64
	present  []int64 // per aggregate, the rows that had its value
	sums     []refSum
	min, max []refExt
	dist     []map[string]bool // per count_distinct, its values' keys (refDistinct)
	nums     [][]refExt        // per median or quantile, its values
}

// selRow is a row out as the reference reads it: each selected cell and
// its column's kind.
type selRow struct {
	cells []string
	kinds []Kind
}

// refCmpSort orders two cells of a column of kind k as rows out sort: a
// missing value first, then numbers, dates and text (a number or date
// column's values that are none are text), each by value, instant or bytes.
func refCmpSort(a, b string, k Kind) int {
	class := func(v string) (int, *big.Rat, time.Time) {
		if v == "" {
			return 0, nil, time.Time{}
		}
		if k == KindNumber || k == KindAuto {
			if n, _, err := refNum(v); err == nil {
				return 1, n, time.Time{}
			}
		}
		if k == KindDate || k == KindAuto {
			if d, ok := refDate(v); ok {
				return 2, nil, d
			}
		}
		return 3, nil, time.Time{}
	}
	ca, na, da := class(a)
	cb, nb, db := class(b)
	switch {
	case ca != cb:
		return cmp.Compare(ca, cb)
	case ca == 1:
		return na.Cmp(nb)
	case ca == 2:
		if c := da.Compare(db); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}

// refDistinct is a count_distinct's key for a present value of a column
// of kind k: a number by its value, a date by its instant, text by its
// bytes (a column of no decided kind: each value by what it reads as).
func refDistinct(v string, k Kind) (refExt, error) {
	n, _, nerr := refNum(v)
	d, dok := refDate(v)
	switch {
	case k == KindText:
	case k == KindNumber && nerr != nil, k == KindDate && !dok:
		return refExt{}, ErrKind
	case k != KindDate && nerr == nil:
		return refExt{text: "n" + n.RatString()}, nil
	case dok:
		return refExt{text: "d" + d.UTC().Format(time.RFC3339Nano)}, nil
	}
	return refExt{text: "b" + v}, nil
}

// refQuantile is the quantile p ("" for the median) of xs, SQL's
// quantile_cont in big rationals: written with the fewest digits after the
// point that hold it, but no fewer than the most its values have.
func refQuantile(xs []refExt, p string) (string, *big.Rat) {
	if len(xs) == 0 {
		return "", nil
	}
	pr := big.NewRat(1, 2)
	if p != "" {
		pr, _, _ = refNum(p)
	}
	s := slices.Clone(xs)
	slices.SortFunc(s, func(a, b refExt) int { return a.v.Cmp(b.v) })
	scale := 0
	for _, x := range s {
		scale = max(scale, x.scale)
	}
	h := new(big.Rat).Mul(big.NewRat(int64(len(s)-1), 1), pr)
	lo := new(big.Int).Quo(h.Num(), h.Denom())
	v := new(big.Rat).Set(s[lo.Int64()].v)
	if f := new(big.Rat).Sub(h, new(big.Rat).SetInt(lo)); f.Sign() > 0 {
		v.Add(v, new(big.Rat).Mul(f, new(big.Rat).Sub(s[lo.Int64()+1].v, v)))
	}
	for !new(big.Rat).Mul(v, new(big.Rat).SetInt(pow10big(scale))).IsInt() {
		scale++
	}
	return v.FloatString(scale), v
}

// refExt is a minimum or maximum: a number (kind 0, v at scale), a date
// (kind 1, at the instant t) or text (kind 2), each as written in text.
type refExt struct {
	set   bool
	kind  int
	v     *big.Rat
	t     time.Time
	text  string
	scale int
}

// refValue reads a present value of a column that only min and max
// aggregate: a number, a date, text, or an error (a number out of range, a
// try at a number or a date: refNotQuite).
func refValue(text string) (refExt, error) {
	v, sc, err := refNum(text)
	switch {
	case err == nil:
		return refExt{set: true, v: v, text: text, scale: sc}, nil
	case errors.Is(err, ErrOverflow):
		return refExt{}, err
	}
	if t, ok := refDate(text); ok {
		return refExt{set: true, kind: 1, t: t, text: text}, nil
	}
	if refNotQuite(text) {
		return refExt{}, ErrNotComparable
	}
	if t := refNoSigns.ReplaceAllString(text, ""); t != text && t != "" {
		if _, _, err := refNum(t); err == nil || refNotQuite(t) {
			return refExt{}, ErrNotComparable // $1.00, 5%
		}
	}
	return refExt{set: true, kind: 2, text: text}, nil
}

// refCmp orders two values: by kind (numbers, dates, text), then within
// it (dates of one instant by their bytes).
func refCmp(e, m refExt) int {
	if e.kind != m.kind {
		return cmp.Compare(e.kind, m.kind)
	}
	switch e.kind {
	case 0:
		return e.v.Cmp(m.v)
	case 1:
		if c := e.t.Compare(m.t); c != 0 {
			return c
		}
	}
	return strings.Compare(e.text, m.text)
}

// refLess says whether e replaces m as a minimum (max false) or a maximum:
// it is beyond it, or equal as a number at a larger scale (so every order
// of rows keeps the same digits).
func refLess(e, m refExt, max bool) bool {
	c := refCmp(e, m)
	if c == 0 {
		return e.kind == 0 && e.scale > m.scale
	}
	return (c < 0) != max
}

// refTable is a general query's answer the slow way: rows of cells as
// GroupTable.Row writes them (plain), in output order; without group-by,
// one row of the count and the aggregates.
type refTable struct {
	rows, matched int64
	cells         [][]string
	bad           int64 // rows left out as bad (Query.SkipBad)
}

func refGeneral(files []refFile, q Query) (refTable, error) {
	var out refTable
	type agg struct{ fn, name, p string }
	var aggs []agg
	lists := [][2]any{{"sum", q.Sum}, {"min", q.Min}, {"max", q.Max}, {"avg", q.Avg}}
	named := q.Sum != nil || q.Min != nil || q.Max != nil || q.Avg != nil || q.Holistic != nil
	for _, l := range lists {
		for _, n := range l[1].([]string) {
			aggs = append(aggs, agg{l[0].(string), n, ""})
		}
	}
	for _, h := range q.Holistic {
		aggs = append(aggs, agg{h.Func, h.Col, h.P})
	}
	conds := q.Filters
	nand := len(conds) // conds[nand:] are the OR group (Query.Any)
	conds = append(slices.Clone(conds), q.Any...)
	if len(q.Any) == 1 {
		return out, ErrFilter
	}
	groups := map[string]*refGroup{}
	var selRows []selRow // rows out, as read
	var selNames []string
	var order []string
	for _, f := range files {
		if len(f.data) >= 2 && (f.data[0] == 0xFF && f.data[1] == 0xFE || f.data[0] == 0xFE && f.data[1] == 0xFF) {
			return out, ErrUTF16 // UTF-16's byte order mark
		}
		r := &refReader{data: bytes.TrimPrefix(f.data, bom), comma: sepOf(f.name)}
		header, err := r.Read()
		if err == io.EOF {
			return out, ErrNoHeader
		}
		if err != nil {
			return out, err
		}
		if q.NoHeader {
			for i := range header {
				header[i] = strconv.Itoa(i + 1)
			}
			r.pos = 0 // the first record is data
		}
		for i, h := range header { // an empty header cell is named by its position
			if h == "" {
				header[i] = fmt.Sprintf("column%d", i)
			}
		}
		if !named && q.Select == nil { // the Sales sums if the header has both, else a plain count
			aggs = nil
			_, e1 := refCol(header, "Total Revenue")
			_, e2 := refCol(header, "Total Profit")
			if e1 == nil && e2 == nil {
				aggs = []agg{{"sum", "Total Revenue", ""}, {"sum", "Total Profit", ""}}
			}
		}
		var condCols, byCols, aggCols []int
		var condKinds []Kind
		need := -1 // the last column a passing row must reach
		for _, c := range conds {
			i, err := refCol(header, c.Col)
			if err != nil {
				return out, err
			}
			k := refKindOf(q, header, i)
			switch c.Op {
			case OpContains, OpPrefix, OpContainsFold:
				if c.Value == "" {
					return out, ErrFilter
				}
				condCols, condKinds = append(condCols, i), append(condKinds, k)
				continue
			case OpIn, OpNotIn:
				if len(c.Values) == 0 {
					return out, ErrFilter
				}
				for _, v := range c.Values {
					_, _, nerr := refNum(v)
					_, dok := refDate(v)
					if v == "" || k == KindNumber && nerr != nil || k == KindDate && !dok {
						return out, ErrFilter
					}
				}
				condCols, condKinds = append(condCols, i), append(condKinds, k)
				continue
			}
			if c.Op != OpEq && c.Op != OpNe && !c.Quoted && k == KindAuto {
				if _, _, err := refNum(c.Value); errors.Is(err, ErrOverflow) || refNotQuite(c.Value) {
					return out, ErrFilter
				}
			}
			if k == KindText && !c.Quoted && c.Op != OpEq && c.Op != OpNe {
				_, _, nerr := refNum(c.Value)
				if _, ok := refDate(c.Value); nerr == nil || ok {
					return out, ErrFilter
				}
			}
			if c.Value != "" && !c.Quoted {
				if _, _, err := refNum(c.Value); k == KindNumber && err != nil {
					return out, ErrFilter
				}
				if _, ok := refDate(c.Value); k == KindDate && !ok {
					return out, ErrFilter
				}
			}
			condCols, condKinds = append(condCols, i), append(condKinds, k)
		}
		for _, n := range q.By {
			i, err := refCol(header, n)
			if err != nil {
				return out, err
			}
			byCols, need = append(byCols, i), max(need, i)
		}
		seen := map[[3]any]bool{}
		for _, a := range aggs {
			i, err := refCol(header, a.name)
			if err != nil {
				return out, err
			}
			if seen[[3]any{a.fn, i, a.p}] {
				return out, ErrDupSum
			}
			seen[[3]any{a.fn, i, a.p}] = true
			aggCols, need = append(aggCols, i), max(need, i)
		}
		var selCols []int // the columns a query selecting rows writes
		for _, n := range q.Select {
			if n == "*" {
				for i := range header {
					selCols = append(selCols, i)
				}
				continue
			}
			i, err := refCol(header, n)
			if err != nil {
				return out, err
			}
			selCols = append(selCols, i)
		}
		for _, i := range selCols {
			need = max(need, i)
		}
		if q.Select != nil { // --sort names selected columns (at the header, as the binding finds it)
			var names []string
			for _, c := range selCols {
				names = append(names, header[c])
			}
			for _, sk := range q.Sort {
				if _, err := refCol(names, sk.Col); err != nil {
					return out, err
				}
			}
			if selNames == nil {
				selNames = names // (the first file's)
			}
		}
		// each row's aggregated values are checked a column at a time, in
		// the order of the columns' first appearance (the scanner's slots),
		// each column's aggregates in theirs
		first := map[int]int{}
		for _, c := range aggCols {
			if _, ok := first[c]; !ok {
				first[c] = len(first)
			}
		}
		aggOrder := make([]int, len(aggCols))
		for k := range aggOrder {
			aggOrder[k] = k
		}
		slices.SortStableFunc(aggOrder, func(a, b int) int { return first[aggCols[a]] - first[aggCols[b]] })
		numeric := map[int]bool{} // the columns that a sum or an average reads: numbers only
		for k, a := range aggs {
			if a.fn == "median" || a.fn == "quantile" {
				if k := refKindOf(q, header, aggCols[k]); k == KindText || k == KindDate {
					return out, errRefSumKind
				}
			}
			if a.fn == "sum" || a.fn == "avg" {
				numeric[aggCols[k]] = true
				if k := refKindOf(q, header, aggCols[k]); k == KindText || k == KindDate {
					return out, errRefSumKind
				}
			}
		}
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil && q.SkipBad { // the bad row ends with the line where it failed
				out.rows++
				out.bad++
				if i := bytes.IndexByte(r.data[r.pos:], '\n'); i >= 0 {
					r.pos += i + 1
				} else {
					r.pos = len(r.data)
				}
				continue
			}
			if err != nil {
				return out, err
			}
			out.rows++
			bad := func(err error) bool { // a row error: skipped, or the answer's
				if q.SkipBad {
					out.bad++
					return true
				}
				return false
			}
			// a filter's field that is missing or cannot be compared is an
			// error only in a row that passes every other filter
			pass := true
			var pending error
			for k, c := range conds[:nand] {
				if len(rec) <= condCols[k] {
					pending = cmp.Or(pending, ErrShortRow)
					continue
				}
				if ok, err := refTestKind(c, condKinds[k], rec[condCols[k]]); err != nil {
					pending = cmp.Or(pending, err)
				} else if !ok {
					pass = false
					break
				}
			}
			if !pass {
				continue
			}
			if len(conds) > nand { // the OR group: one that holds; none, and its first error
				hold := false
				var anyErr error
				for k := nand; k < len(conds); k++ {
					if len(rec) <= condCols[k] {
						anyErr = cmp.Or(anyErr, ErrShortRow)
						continue
					}
					ok, err := refTestKind(conds[k], condKinds[k], rec[condCols[k]])
					if err != nil {
						anyErr = cmp.Or(anyErr, err)
						continue
					}
					if ok {
						hold = true
						break
					}
				}
				if !hold && anyErr == nil {
					continue
				}
				if !hold {
					pending = cmp.Or(pending, anyErr)
				}
			}
			if pending != nil {
				if bad(pending) {
					continue
				}
				return out, pending
			}
			if len(rec) <= need {
				if bad(ErrShortRow) {
					continue
				}
				return out, ErrShortRow
			}
			if q.Select != nil {
				var row selRow
				for _, c := range selCols {
					row.cells = append(row.cells, rec[c])
					row.kinds = append(row.kinds, refKindOf(q, header, c))
				}
				if q.Limit == 0 || len(q.Sort) > 0 || out.matched < int64(q.Limit) {
					selRows = append(selRows, row)
				}
				out.matched++
				continue
			}
			// every aggregated value must parse, in aggOrder; vals[k] is
			// aggregate k's value read for min and max
			vals := make([]refExt, len(aggCols))
			var rowErr error
			for _, k := range aggOrder {
				c := aggCols[k]
				if rec[c] == "" {
					continue // missing: skipped by every aggregate
				}
				var err error
				kind := refKindOf(q, header, c)
				if numeric[c] {
					_, _, err = refNum(rec[c]) // (a summed value's error is the number's, whatever the kind)
				}
				if err == nil && (aggs[k].fn == "min" || aggs[k].fn == "max") {
					vals[k], err = refValueKind(rec[c], kind)
				}
				if err == nil && (aggs[k].fn == "median" || aggs[k].fn == "quantile") {
					var v *big.Rat
					var sc int
					if v, sc, err = refNum(rec[c]); err == nil && (sc > 18 || new(big.Int).Abs(new(big.Int).Mul(v.Num(), new(big.Int).Quo(pow10big(sc), v.Denom()))).BitLen() > 63) {
						err = ErrOverflow // (at most 18 digits)
					}
					if err != nil && kind == KindNumber && !errors.Is(err, ErrOverflow) {
						err = ErrKind
					}
					vals[k] = refExt{set: true, v: v, scale: sc}
				}
				if err == nil && aggs[k].fn == "count_distinct" {
					vals[k], err = refDistinct(rec[c], kind)
				}
				if err != nil {
					rowErr = fmt.Errorf("%s: %w", f.name, err)
					break
				}
			}
			if rowErr != nil {
				if bad(rowErr) {
					continue
				}
				return out, rowErr
			}
			var keys, ids []string
			for _, c := range byCols {
				keys = append(keys, rec[c])
				// a number or date column's key is its value (SQL's GROUP BY)
				id := "b" + rec[c]
				switch k := refKindOf(q, header, c); {
				case rec[c] == "":
				case k == KindNumber:
					if v, _, err := refNum(rec[c]); err == nil {
						id = "n" + v.RatString()
					} else {
						rowErr = cmp.Or(rowErr, ErrKind)
					}
				case k == KindDate:
					if d, ok := refDate(rec[c]); ok {
						id = "d" + d.UTC().Format(time.RFC3339Nano)
					} else {
						rowErr = cmp.Or(rowErr, ErrKind)
					}
				}
				ids = append(ids, id)
			}
			if rowErr != nil {
				if bad(rowErr) {
					continue
				}
				return out, rowErr
			}
			out.matched++
			id := strings.Join(ids, "\x00")
			g := groups[id]
			if g != nil && refKeyLess(keys, g.keys) {
				g.keys = keys // the least spelling, as the scanner shows it
			}
			if g == nil {
				g = &refGroup{keys: keys}
				for range aggs {
					g.sums = append(g.sums, refSum{v: new(big.Int)})
					g.min = append(g.min, refExt{})
					g.max = append(g.max, refExt{})
					g.present = append(g.present, 0)
				}
				g.dist, g.nums = make([]map[string]bool, len(aggs)), make([][]refExt, len(aggs))
				groups[id] = g
				order = append(order, id)
			}
			g.count++
			for k, c := range aggCols {
				text := rec[c]
				if text == "" {
					continue
				}
				g.present[k]++
				if numeric[c] {
					g.sums[k].add(text)
				}
				switch aggs[k].fn {
				case "count_distinct":
					if g.dist[k] == nil {
						g.dist[k] = map[string]bool{}
					}
					g.dist[k][vals[k].text] = true
					continue
				case "median", "quantile":
					g.nums[k] = append(g.nums[k], vals[k])
					continue
				}
				if e := vals[k]; e.set {
					if m := g.min[k]; !m.set || refLess(e, m, false) {
						g.min[k] = e
					}
					if m := g.max[k]; !m.set || refLess(e, m, true) {
						g.max[k] = e
					}
				}
			}
		}
	}
	if q.Select != nil {
		if len(q.Sort) > 0 { // sorted, then cut (FinishRows)
			var by []int
			for _, sk := range q.Sort {
				k, err := refCol(selNames, sk.Col)
				if err != nil {
					return out, err
				}
				by = append(by, k)
			}
			slices.SortStableFunc(selRows, func(a, b selRow) int {
				for i, k := range by {
					c := refCmpSort(a.cells[k], b.cells[k], a.kinds[k])
					if q.Sort[i].Desc {
						c = -c
					}
					if c != 0 {
						return c
					}
				}
				return 0
			})
			if q.Limit > 0 && len(selRows) > q.Limit {
				selRows = selRows[:q.Limit]
			}
		}
		for _, r := range selRows {
			row := slices.Clone(r.cells)
			for k, v := range row {
				if q.Out == OutJSON && v != "" { // JSON's strings are UTF-8, a number column's values JSON's numbers
					row[k] = string([]rune(v))
					if n, sc, err := refNum(v); err == nil && r.kinds[k] == KindNumber && !refJSONNumber(v) {
						row[k] = n.FloatString(sc)
					}
				}
			}
			out.cells = append(out.cells, row)
		}
		return out, nil
	}
	if q.By == nil && len(groups) == 0 {
		g := &refGroup{}
		for range aggs {
			g.sums = append(g.sums, refSum{v: new(big.Int)})
			g.min = append(g.min, refExt{})
			g.max = append(g.max, refExt{})
			g.present = append(g.present, 0)
		}
		g.dist, g.nums = make([]map[string]bool, len(aggs)), make([][]refExt, len(aggs))
		groups[""], order = g, []string{""}
	}
	cell := func(g *refGroup, k int) (string, *big.Rat) {
		switch aggs[k].fn {
		case "count_distinct":
			return strconv.Itoa(len(g.dist[k])), big.NewRat(int64(len(g.dist[k])), 1)
		case "median", "quantile":
			return refQuantile(g.nums[k], aggs[k].p)
		case "sum":
			if g.count > 0 && g.present[k] == 0 {
				return "", nil // every row lacked the value
			}
			return g.sums[k].String(), new(big.Rat).SetFrac(g.sums[k].v, pow10big(g.sums[k].scale))
		case "min", "max":
			e := g.min[k]
			if aggs[k].fn == "max" {
				e = g.max[k]
			}
			if !e.set {
				return "", nil
			}
			if e.kind != 0 {
				return e.text, nil
			}
			m := new(big.Int).Mul(e.v.Num(), pow10big(e.scale)) // the value at its scale (exact)
			m.Quo(m, e.v.Denom())
			return refSum{v: m, scale: e.scale}.String(), e.v
		}
		if g.present[k] == 0 {
			return "", nil
		}
		sc := max(AvgScale, g.sums[k].scale)
		avg := new(big.Rat).SetFrac(g.sums[k].v, pow10big(g.sums[k].scale))
		avg.Quo(avg, new(big.Rat).SetInt64(g.present[k]))
		x := new(big.Rat).Mul(avg, new(big.Rat).SetInt(pow10big(sc)))
		fl := new(big.Int).Quo(x.Num(), x.Denom()) // toward zero
		frac := new(big.Rat).Sub(x, new(big.Rat).SetInt(fl))
		frac.Abs(frac)
		half := big.NewRat(1, 2)
		if c := frac.Cmp(half); c > 0 || (c == 0 && fl.Bit(0) == 1) {
			if x.Sign() < 0 {
				fl.Sub(fl, big.NewInt(1))
			} else {
				fl.Add(fl, big.NewInt(1))
			}
		}
		return refSum{v: fl, scale: sc}.String(), avg
	}
	// the sort: each key as the docs say, then the group-by columns
	kindOf := func(j int) string {
		if len(files) > 0 && refKindOf(q, refHeader(files[0], q), refColOf(files[0], q, q.By[j])) == KindText {
			return "bytes"
		}
		num, date := true, true
		for _, id := range order {
			v := groups[id].keys[j]
			if _, _, err := refNum(v); err != nil {
				num = false
			}
			if _, ok := refDate(v); !ok {
				date = false
			}
		}
		switch {
		case num:
			return "num"
		case date:
			return "date"
		}
		return "bytes"
	}
	kinds := make([]string, len(q.By))
	for j := range kinds {
		kinds[j] = kindOf(j)
	}
	type keyVal struct { // a group's key j read as its kind says
		num *big.Rat
		day time.Time
	}
	keyVals := map[*refGroup][]keyVal{}
	for _, id := range order {
		g := groups[id]
		kv := make([]keyVal, len(q.By))
		for j, k := range g.keys {
			switch kinds[j] {
			case "num":
				kv[j].num, _, _ = refNum(k)
			case "date":
				kv[j].day, _ = refDate(k)
			}
		}
		keyVals[g] = kv
	}
	cmpKey := func(a, b *refGroup, j int) int {
		x, y := keyVals[a][j], keyVals[b][j]
		switch kinds[j] {
		case "num":
			if c := x.num.Cmp(y.num); c != 0 {
				return c
			}
		case "date":
			if c := x.day.Compare(y.day); c != 0 {
				return c
			}
		}
		return strings.Compare(a.keys[j], b.keys[j])
	}
	labels := append(slices.Clone(q.By), "count")
	for _, a := range aggs {
		labels = append(labels, a.fn+"("+a.name+")")
	}
	for _, s := range q.Sort {
		known := slices.ContainsFunc(labels, func(l string) bool { return looseName(l) == looseName(s.Col) }) ||
			slices.ContainsFunc(aggs, func(g agg) bool { return g.fn == "sum" && looseName(g.name) == looseName(s.Col) })
		if !known {
			return out, ErrColumn
		}
	}
	slices.SortFunc(order, func(ia, ib string) int {
		a, b := groups[ia], groups[ib]
		for _, s := range q.Sort {
			c := 0
			col := slices.IndexFunc(labels, func(l string) bool { return looseName(l) == looseName(s.Col) })
			if col < 0 { // a sum by its column's bare name
				col = slices.IndexFunc(aggs, func(g agg) bool { return g.fn == "sum" && looseName(g.name) == looseName(s.Col) }) + len(q.By) + 1
			}
			switch {
			case col < len(q.By):
				c = cmpKey(a, b, col)
			case col == len(q.By):
				c = cmpInt(a.count, b.count)
			case aggs[col-len(q.By)-1].fn == "min" || aggs[col-len(q.By)-1].fn == "max":
				k := col - len(q.By) - 1
				ea, eb := a.min[k], b.min[k]
				if aggs[k].fn == "max" {
					ea, eb = a.max[k], b.max[k]
				}
				if c = cmpInt(b2i(ea.set), b2i(eb.set)); c == 0 && ea.set {
					c = refCmp(ea, eb)
				}
			default:
				_, va := cell(a, col-len(q.By)-1)
				_, vb := cell(b, col-len(q.By)-1)
				switch {
				case va == nil || vb == nil:
					c = cmpInt(b2i(va != nil), b2i(vb != nil))
				default:
					c = va.Cmp(vb)
				}
			}
			if s.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		for j := range q.By {
			if c := cmpKey(a, b, j); c != 0 {
				return c
			}
		}
		return 0
	})
	if q.Limit > 0 && len(order) > q.Limit {
		order = order[:q.Limit]
	}
	for _, id := range order {
		g := groups[id]
		row := append(slices.Clone(g.keys), strconv.FormatInt(g.count, 10))
		if q.By == nil {
			row = row[:0]
		}
		for k := range aggs {
			s, _ := cell(g, k)
			row = append(row, s)
		}
		out.cells = append(out.cells, row)
	}
	return out, nil
}

// refNotQuite is notQuite by regular expressions: v, an order
// comparison's value, is neither a number nor a date but reads as a try at
// one.
func refNotQuite(v string) bool {
	if _, _, err := refNum(v); err == nil {
		return false
	}
	if _, ok := refDate(v); ok {
		return false
	}
	if t := strings.Trim(v, " "); t != v && t != "" {
		_, _, err := refNum(t)
		_, ok := refDate(t)
		if err == nil || ok {
			return true
		}
	}
	t := strings.Trim(v, " ")
	if refDayThen(t) {
		return true
	}
	if refDatish.MatchString(t) && strings.ContainsAny(t, "0123456789") {
		return true
	}
	return refNumberShape.MatchString(t)
}

// refDayThen reports whether t starts with a date and goes on.
func refDayThen(t string) bool {
	for n := len(t) - 1; n >= 7; n-- {
		if _, ok := refDate(t[:n]); ok {
			return true
		}
	}
	return false
}

var (
	refDatish      = regexp.MustCompile(`^[0-9]+[-/][0-9]+[-/][0-9]+$|^[0-9]{4}[-/.][0-9]+[-/.][0-9]+$|^[0-9]+[-/.][0-9]+[-/.][0-9]{4}$|(?i)(^|[^a-z])(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september|october|november|december)([^a-z]|$)`)
	refNoSigns     = regexp.MustCompile(`[$€£¥% ]`)
	refNumberShape = regexp.MustCompile(`^[-+.]{0,2}[0-9][-+.0-9eE,_ ]*$`)
)

// refEqual is = the slow way: the same bytes, or the same number as
// big.Rat, or the same calendar day.
func refEqual(value, field string) bool {
	if field == value {
		return true
	}
	if v, _, err := refNum(value); err == nil {
		f, _, err := refNum(field)
		return err == nil && f.Cmp(v) == 0
	}
	if d, ok := refDate(value); ok {
		f, ok := refDate(field)
		return ok && f.Equal(d)
	}
	return false
}

// refTest is one filter the slow way. An empty field is missing: only
// COL= (the empty value) holds for it.
func refTest(c Cond, field string) (bool, error) {
	if field == "" {
		return c.Op == OpEq && c.Value == "", nil
	}
	if c.Quoted { // text: bytes alone
		r := strings.Compare(field, c.Value)
		return map[Op]bool{OpEq: r == 0, OpNe: r != 0, OpLt: r < 0, OpLe: r <= 0, OpGt: r > 0, OpGe: r >= 0}[c.Op], nil
	}
	switch c.Op {
	case OpEq:
		return refEqual(c.Value, field), nil
	case OpNe:
		return !refEqual(c.Value, field), nil
	}
	var r int
	if v, _, err := refNum(c.Value); err == nil {
		f, _, err := refNum(field)
		if err != nil {
			return false, ErrNotComparable
		}
		r = f.Cmp(v)
	} else if d, ok := refDate(c.Value); ok {
		f, ok := refDate(field)
		if !ok {
			return false, ErrNotComparable
		}
		r = f.Compare(d)
	} else {
		r = strings.Compare(field, c.Value)
	}
	switch c.Op {
	case OpLt:
		return r < 0, nil
	case OpLe:
		return r <= 0, nil
	case OpGt:
		return r > 0, nil
	}
	return r >= 0, nil
}

// answerOf scans files whole and returns the answer as cells, the way
// refGeneral writes them.
func answerOf(files []refFile, q Query) (refTable, *Answer, error) {
	return answerIn(files, q, 1)
}

// scanParts is scanAll as a key split of n parts does it: each part scans
// every file whole into a Result of its own, and MergeParts puts them
// together.
func scanParts(files []refFile, q Query, n int) (Result, error) {
	rs := make([]*Result, n)
	var first error // (the earliest in the files, of every part's: see ErrorBefore)
	firstFile := len(files)
	for k := range rs {
		rs[k] = &Result{Part: KeyPart{int32(k), int32(n)}}
		for i, f := range files {
			tb, err := NewTableSep(f.name, f.data, sepOf(f.name), &q)
			if err == nil {
				s, e := tb.Body()
				err = tb.Scan(s, e, rs[k])
			}
			if err != nil {
				if i < firstFile || i == firstFile && ErrorBefore(err, first) {
					first, firstFile = err, i
				}
				break
			}
		}
	}
	if first != nil {
		return Result{}, first
	}
	return MergeParts(rs, n, 2)
}

// answerIn is answerOf with the files scanned as a key split of parts
// parts (scanParts), or, for 1, as scanAll does.
func answerIn(files []refFile, q Query, parts int) (refTable, *Answer, error) {
	var out refTable
	var r Result
	var err error
	if parts > 1 {
		r, err = scanParts(files, q, parts)
	} else {
		r, err = scanAll(files, q)
	}
	if err != nil {
		return out, nil, err
	}
	tb, err := NewTableSep(files[0].name, files[0].data, sepOf(files[0].name), &q)
	if err != nil {
		return out, nil, err
	}
	a := &Answer{Spec: tb.Spec(), Result: r}
	if err := UniteKeys(&a.Result, &a.Spec); err != nil { // (as every strategy's run does at its end)
		return out, nil, err
	}
	out.rows, out.matched, out.bad = r.Rows, r.Matched, r.Bad
	if q.Select != nil {
		if err := FinishRows(&r, &q, &a.Spec); err != nil {
			return out, nil, err
		}
		out.cells, err = readOut(r.Out, q.Out, len(a.Spec.Select))
		return out, a, err
	}
	if gt := a.Groups(); gt != nil {
		for i := range gt.Len() {
			out.cells = append(out.cells, gt.Row(nil, i, false))
		}
		return out, a, nil
	}
	var row []string
	for _, v := range a.Values() {
		row = append(row, v.Value)
	}
	out.cells = [][]string{row}
	return out, a, nil
}

// checkGen runs the scanner over files in each hot mode and requires the
// reference's table (to the digit and in its order) or an error of the
// same kind; a group-by also as key splits of 2 and 3 parts.
func checkGen(t testing.TB, label string, files []refFile, q Query) (refTable, error) {
	t.Helper()
	var got refTable
	var err error
	want, werr := refGeneral(files, q)
	splits := []int{1}
	if len(q.By) > 0 {
		splits = append(splits, 2, 3)
	}
	for _, mode := range hotModes() {
		for _, parts := range splits {
			m := mode()
			if parts > 1 {
				m += fmt.Sprintf(", key split of %d", parts)
			}
			got, _, err = answerIn(files, q, parts)
			if err != nil || werr != nil {
				if err == nil || werr == nil || !sameKind(err, werr) {
					t.Fatalf("%s (%s): scanner error %v, reference error %v", label, m, err, werr)
				}
				var pe *ParseError
				if !errors.As(err, &pe) || pe.File == "" || pe.Line < 1 {
					t.Fatalf("%s (%s): error %v has no position", label, m, err)
				}
				continue
			}
			if got.rows != want.rows || got.matched != want.matched || got.bad != want.bad || !slices.EqualFunc(got.cells, want.cells, slices.Equal) {
				t.Fatalf("%s (%s): scanner rows %d matched %d\n%v\nreference rows %d matched %d\n%v", label, m,
					got.rows, got.matched, head(got.cells), want.rows, want.matched, head(want.cells))
			}
		}
	}
	return got, err
}

func head(c [][]string) [][]string { return c[:min(len(c), 12)] }

// errRefSumKind is the reference's error for a sum or average of a text or
// date column (the scanner's has no sentinel: sameKind matches it as
// itself).
var errRefSumKind = errors.New("only numbers are summed")

// refKindOf is the kind q.Kinds gives header column i (KindAuto if none).
func refKindOf(q Query, header []string, i int) Kind {
	for _, ck := range q.Kinds {
		if j, err := refCol(header, ck.Col); err == nil && j == i {
			return ck.Kind
		}
	}
	return KindAuto
}

// refHeader is f's header as refGeneral names it.
func refHeader(f refFile, q Query) []string {
	r := &refReader{data: bytes.TrimPrefix(f.data, bom), comma: sepOf(f.name)}
	header, _ := r.Read()
	for i, h := range header {
		if q.NoHeader {
			header[i] = strconv.Itoa(i + 1)
		} else if h == "" {
			header[i] = fmt.Sprintf("column%d", i)
		}
	}
	return header
}

// refColOf is column name's index in f's header (-1 if none).
func refColOf(f refFile, q Query, name string) int {
	i, err := refCol(refHeader(f, q), name)
	if err != nil {
		return -1
	}
	return i
}

// refValueKind is refValue for a column of kind k: text as written, a
// number or a date (ErrKind if the value is not one), or, for KindAuto,
// whatever the value reads as.
func refValueKind(text string, k Kind) (refExt, error) {
	switch k {
	case KindText:
		return refExt{set: true, kind: 2, text: text}, nil
	case KindNumber:
		v, sc, err := refNum(text)
		if errors.Is(err, ErrOverflow) {
			return refExt{}, err
		}
		if err != nil {
			return refExt{}, ErrKind
		}
		return refExt{set: true, v: v, text: text, scale: sc}, nil
	case KindDate:
		t, ok := refDate(text)
		if !ok {
			return refExt{}, ErrKind
		}
		return refExt{set: true, kind: 1, t: t, text: text}, nil
	}
	return refValue(text)
}

// refTestKind is refTest for a column of kind k: a text column compares
// bytes; a number or date column's present field must be one (ErrKind)
// and compares as one.
func refTestKind(c Cond, k Kind, field string) (bool, error) {
	switch c.Op {
	case OpContains, OpPrefix, OpContainsFold: // bytes as written, any kind; missing: no
		if field == "" {
			return false, nil
		}
		switch c.Op {
		case OpContains:
			return strings.Contains(field, c.Value), nil
		case OpContainsFold:
			return refContainsFold(field, c.Value), nil
		}
		return strings.HasPrefix(field, c.Value), nil
	case OpIn, OpNotIn: // = of each value; missing: neither
		if field == "" {
			return false, nil
		}
		for _, v := range c.Values {
			ok, err := refTestKind(Cond{Col: c.Col, Op: OpEq, Value: v}, k, field)
			if err != nil {
				return false, err
			}
			if ok {
				return c.Op == OpIn, nil
			}
		}
		return c.Op == OpNotIn, nil
	}
	switch {
	case k == KindAuto || c.Quoted:
		return refTest(c, field)
	case k == KindText:
		c.Quoted = true
		return refTest(c, field)
	}
	if field == "" {
		return c.Op == OpEq && c.Value == "", nil
	}
	if c.Value == "" { // COL= or COL!= of a present field
		return c.Op == OpNe, nil
	}
	var r int
	if k == KindNumber {
		f, _, err := refNum(field)
		if err != nil {
			return false, ErrKind
		}
		v, _, _ := refNum(c.Value)
		r = f.Cmp(v)
	} else {
		f, ok := refDate(field)
		if !ok {
			return false, ErrKind
		}
		d, _ := refDate(c.Value)
		r = f.Compare(d)
	}
	return map[Op]bool{OpEq: r == 0, OpNe: r != 0, OpLt: r < 0, OpLe: r <= 0, OpGt: r > 0, OpGe: r >= 0}[c.Op], nil
}

// refKeyLess orders two group-by keys as the scanner's bytes order them:
// each field its length (uvarint) then its bytes, one after another, or a
// lone field's bytes.
func refKeyLess(a, b []string) bool {
	enc := func(k []string) []byte {
		if len(k) == 1 {
			return []byte(k[0])
		}
		var out []byte
		for _, f := range k {
			out = binary.AppendUvarint(out, uint64(len(f)))
			out = append(out, f...)
		}
		return out
	}
	return bytes.Compare(enc(a), enc(b)) < 0
}

// refContainsFold is containsFold the slow way: f and v cut into their
// runes and stray bytes, and v's sequence looked for at every place of
// f's, a rune equal to another where strings.EqualFold says so, a stray
// byte only to itself.
func refContainsFold(f, v string) bool {
	tokens := func(s string) []string {
		var out []string
		for len(s) > 0 {
			_, n := utf8.DecodeRuneInString(s)
			out = append(out, s[:n])
			s = s[n:]
		}
		return out
	}
	same := func(a, b string) bool {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return a == b
		}
		return strings.EqualFold(a, b)
	}
	ft, vt := tokens(f), tokens(v)
	for i := 0; i+len(vt) <= len(ft); i++ {
		ok := true
		for j := range vt {
			if !same(ft[i+j], vt[j]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
