package scan

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Query is one question: the rows that pass every filter (all of them: AND),
// grouped by the columns By (none: one group of every matching row), and per
// group the count and the aggregates Sum, Min, Max and Avg (each a list of
// columns). No Filters match every row.
//
// Sums, minimums and maximums are exact; an average is the exact sum over
// the count, rounded half to even to AvgScale or the column's scale if that
// is larger. Sort and Limit order and cut the groups of a group-by; they
// change nothing the scan does.
//
// Select asks for the matching rows themselves instead of figures (see
// rowsout.go): those columns, in that order, "*" for every column of the
// header in its order, each row written in format Out to Result.Out in
// file order; Limit then stops a scan once it has written that many rows.
// It takes no group-by, aggregate or Sort.
type Query struct {
	Filters []Cond
	// Any is one OR group (--any): a row must pass at least one of them,
	// as well as every filter (SQL: Filters AND (Any[0] OR Any[1] …)).
	Any []Cond
	By  []string
	Sum []string
	Min []string
	Max []string
	Avg []string
	// Holistic are the aggregates that need every value: count_distinct,
	// median, quantile (see Holistic), after Sum, Min, Max and Avg.
	Holistic []Holistic
	Sort     []SortKey
	Limit    int
	Select   []string
	Out      OutFormat
	// MaxHeld bounds the bytes of rows out (Result.Out) and of holistic
	// aggregates' state (Result.Held) that a run holds,
	// all its scans in one process together (0: no bound): spawn stops a
	// run past it with ErrMaxHeld rather than let it exhaust memory.
	MaxHeld int64
	// Types are the kinds the user gave columns (--types), for a
	// Decider. Kinds are the kinds decided for the query's columns (see
	// Kind): set before the query is bound (spawn does it once, for every
	// worker); a column without one, or every column of a Query without
	// Kinds, is read value by value (KindAuto).
	Types []ColumnKind
	Kinds []ColumnKind
	// DateFormats are the forms a date column's values are written in
	// (--date-format, strftime's grammar: see dateFormat), tried first.
	DateFormats []string
	// SkipBad: a bad row is left out and counted (Result.Bad), not the
	// scan's end (--skip-bad-rows; see Reject).
	SkipBad bool
	// NoHeader: the files have no header row; their columns are named by
	// position, "1" to N (N the first record's field count), and the first
	// record is data.
	NoHeader bool
}

// SortKey orders a group-by's output by one of its columns (a group-by
// column, "count", or an aggregate's label, see Agg.Label), ascending unless
// Desc.
type SortKey struct {
	Col  string
	Desc bool
}

// DefaultSums is what a query sums when it names no aggregate at all and
// the header has both columns (the Sales Records' question); over any
// other file such a query is a plain count of the matching rows.
var DefaultSums = []string{"Total Revenue", "Total Profit"}

// defaultSums is the sums of a query that names no aggregate, over header:
// DefaultSums if both resolve in it, else none.
func (q *Query) defaultSums(header []string) []string {
	if !q.salesDefault() {
		return nil
	}
	for _, n := range DefaultSums {
		if _, err := resolve(n, header); err != nil {
			return nil
		}
	}
	return DefaultSums
}

// named reports whether q names an aggregate.
func (q *Query) named() bool {
	for _, f := range AggFuncs {
		if !f.Holistic() && *f.list(q) != nil {
			return true
		}
	}
	return q.Holistic != nil
}

// salesDefault reports whether q answers with the Sales sums where a
// header has them: it names no aggregate and selects no rows.
func (q *Query) salesDefault() bool { return !q.named() && q.Select == nil }

// MaxFields is how many distinct columns one query can read (filters,
// group-by columns and aggregates together).
const MaxFields = 32

// Agg is one aggregate of a query's answer: Func ("sum", "min", "max" or
// "avg") of the column Col (as the header spells it), kept in Result slot
// Slot (Sums, Mins, Maxs).
type Agg struct {
	Func string
	Col  string
	Slot int
	P    string // a quantile's fraction (see Holistic)
}

// Label is the aggregate's column in an answer: a sum is labelled by its
// column's name, as ever; the others as "min(Units Sold)".
func (a Agg) Label() string {
	f, _ := aggFunc(a.Func)
	return f.label(a.Col, a.P)
}

// Spec is a query bound to a header: what its answer's columns are called
// and how its groups are ordered. Every name is as the header spells it.
type Spec struct {
	Filters []Cond
	Any     []Cond // the OR group, as the header spells its columns
	By      []string
	Aggs    []Agg
	Sort    []sortBy
	Limit   int
	// Select is the columns a query that selects rows writes, as the
	// header spells them (every column for "*"); RowSort orders them
	// (Query.Sort, each column an index into Select).
	Select  []string
	RowSort []sortBy
	// Kinds are the decided kinds of the query's columns (Query.Kinds),
	// each named as this header spells it; DateFormats the query's.
	Kinds       []ColumnKind
	DateFormats []string
	// Unnamed are the columns the query reads whose header cell is empty,
	// named column0 … (by position from 0, as DuckDB names them).
	Unnamed []string
	// Sales: the query named no aggregate and the header has the Sales
	// Records' two sums, so it answers the reference's question (its
	// count is of orders).
	Sales bool
}

// sortBy is a SortKey resolved to an output column: -1-i for group-by
// column i, 0 for the count, 1+i for Aggs[i].
type sortBy struct {
	col  int
	desc bool
}

// aliases are the reference project's short filter names, in loose form
// (see looseName), and the header names they stand for. They apply to the
// names a query gives, never to the names in a header.
var aliases = map[string]string{
	"item":    "itemtype",
	"channel": "saleschannel",
}

// looseName folds a column name for the loose match: case, spaces, '_' and
// '-' are ignored, so "Item Type", "item_type" and "ITEMTYPE" are one name.
func looseName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r == ' ' || r == '_' || r == '-' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// resolve finds the header field a query's column name stands for, trying
// in turn, and taking the first rule that matches anything:
//  1. the name exactly, byte for byte;
//  2. the loose match (looseName of both sides equal);
//  3. an alias: "item" for Item Type, "channel" for Sales Channel, matched
//     loosely.
//
// A rule that matches two fields is an error (ErrDupColumn), and so is a
// name no rule matches (ErrColumn).
// Resolve finds the column a query's name means in header, by the rules
// of resolve: an input that makes its own header (JSON lines) asks which
// names it already has.
func Resolve(name string, header []string) (int, error) { return resolve(name, header) }

func resolve(name string, header []string) (int, error) {
	loose := looseName(name)
	rules := []func(h string) bool{
		func(h string) bool { return h == name },
		func(h string) bool { return looseName(h) == loose },
	}
	if a, ok := aliases[loose]; ok {
		rules = append(rules, func(h string) bool { return looseName(h) == a })
	}
	for _, match := range rules {
		at := -1
		for i, h := range header {
			if !match(h) {
				continue
			}
			if at >= 0 {
				return 0, fmt.Errorf("%w: %s matches fields %d (%s) and %d (%s)", ErrDupColumn,
					clipQuote(name), at+1, clipQuote(header[at]), i+1, clipQuote(h))
			}
			at = i
		}
		if at >= 0 {
			return at, nil
		}
	}
	return 0, fmt.Errorf("%w: %s (the header has %s)", ErrColumn, clipQuote(name), quoteList(header))
}

// maxQuote is the most bytes an error message quotes of a name or value.
const maxQuote = 200

// clipQuote quotes s for an error message (so invisible bytes, a BOM for one,
// show as escapes), cut to maxQuote bytes with "…" after.
func clipQuote(s string) string {
	if len(s) > maxQuote {
		return strconv.Quote(s[:maxQuote]) + "…"
	}
	return strconv.Quote(s)
}

// quoteList quotes a header's names for an error message, as many as fit in
// about maxQuote bytes, then "… (N more)".
func quoteList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 && b.Len()+len(n) > maxQuote {
			fmt.Fprintf(&b, ", … (%d more)", len(names)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(clipQuote(n))
	}
	return b.String()
}

// ErrDupSum is a query that sums one column twice (or names a column twice
// in any one aggregate's list, or in the group-by).
var ErrDupSum = errors.New("column is summed twice")

// Validate checks what can be checked without a header: each aggregate list
// is nil or one to MaxSums names, none empty, none given twice; the
// group-by names no column twice; Sort and Limit come with a group-by.
func (q *Query) Validate() error {
	type list struct {
		what  string
		names []string
	}
	var lists []list
	for _, f := range AggFuncs {
		if !f.Holistic() {
			lists = append(lists, list{f.Func, *f.list(q)})
		}
	}
	lists = append(lists, list{"group-by", q.By})
	for _, l := range lists {
		if l.names != nil && len(l.names) == 0 {
			return fmt.Errorf("the %s list names no column", l.what)
		}
		if len(l.names) > MaxSums && l.what != "group-by" {
			return fmt.Errorf("at most %d columns can be aggregated by %s, got %d", MaxSums, l.what, len(l.names))
		}
		for i, s := range l.names {
			if strings.TrimSpace(s) == "" {
				return fmt.Errorf("empty column name in the %s list", l.what)
			}
			for _, t := range l.names[:i] {
				if t == s {
					if l.what == "sum" {
						return fmt.Errorf("%w: %s", ErrDupSum, clipQuote(s))
					}
					return fmt.Errorf("%w: %s is in the %s list twice", ErrDupSum, clipQuote(s), l.what)
				}
			}
		}
	}
	for _, h := range q.Holistic {
		if err := h.check(); err != nil {
			return err
		}
	}
	if len(q.Any) == 1 {
		return fmt.Errorf("%w: --any is an OR of two or more filters: give one filter with --where", ErrFilter)
	}
	for _, c := range append(q.Filters, q.Any...) {
		if strings.TrimSpace(c.Col) == "" {
			return fmt.Errorf("%w: a filter names no column", ErrFilter)
		}
	}
	if q.Select != nil {
		if err := q.validateSelect(); err != nil {
			return err
		}
	} else if len(q.By) == 0 && (len(q.Sort) > 0 || q.Limit != 0) {
		return fmt.Errorf("--sort and --limit order and cut the groups of a group-by: give --by")
	}
	if q.Limit < 0 {
		return fmt.Errorf("the limit must not be negative, got %d", q.Limit)
	}
	return nil
}

// Names is every column name q reads, as given, each once: with the
// Sales sums (DefaultSums) where q names no aggregate, which it reads only
// where a header has both; nil where it reads every column (--select
// '*'), else never nil.
func (q *Query) Names() []string {
	if slices.Contains(q.Select, "*") {
		return nil
	}
	out := []string{}
	add := func(n string) {
		if n != "*" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, c := range append(q.Filters, q.Any...) {
		add(c.Col)
	}
	for _, l := range [][]string{q.By, q.Sum, q.Min, q.Max, q.Avg, q.Select} {
		for _, n := range l {
			add(n)
		}
	}
	for _, h := range q.Holistic {
		add(h.Col)
	}
	if q.salesDefault() {
		for _, n := range DefaultSums {
			add(n)
		}
	}
	return out
}

// simple reports whether q has the reference's shape, which the fast paths
// serve: at most one filter, an equality of bytes (on a text column, or a
// value bindCond reads as neither a number nor a date), and sums only, no
// group-by.
func (q *Query) simple(header []string, hk headerKinds) bool {
	cs := q.Filters
	if len(q.By) > 0 || q.Min != nil || q.Max != nil || q.Avg != nil || len(cs) > 1 || q.Select != nil || q.Holistic != nil {
		return false
	}
	if q.Any != nil {
		return false
	}
	if len(cs) == 0 {
		return true
	}
	i, err := resolve(cs[0].Col, header)
	if err != nil {
		return false
	}
	dr, err := newDateReader(q.DateFormats)
	if err != nil {
		return false
	}
	ck, why := hk.of(i)
	k, err := bindKind(cs[0], ck, why, dr)
	return err == nil && k.op == OpEq && k.kind == kindBytes
}

// binding is a Query tied to one file's header: column indexes, not names.
type binding struct {
	// sep is the field delimiter: ',', or a tab, ';' or '|' for a file
	// scanned in place in that dialect (NewTableSep)
	sep    byte
	filter int // column index of the filter, -1 for none
	value  []byte
	// bareOK: value can equal a bare field. A value holding ',', '"' or LF
	// can only equal a quoted one, and the fast path sees bare fields only.
	bareOK bool
	nsum   int
	// byCol lists the summed columns in ascending column order, so one walk
	// along a matching row finds them all; slot is where each one's sum goes.
	byCol   [MaxSums]struct{ col, slot int }
	sumCols [MaxSums]int // byCol's columns alone, for pick
	names   []string     // header name per slot, for errors
	ncols   int          // fields in the header
	// back: the summed columns lie in the header's back half, so a row with
	// exactly ncols fields is quicker to walk from its end (see pickBack).
	back  bool
	fname string // header name of the filter column
	// hot: Table.hit and hotWalk may take rows (see there): the filter is
	// on the first column and its value plus a comma fits a word; every
	// summed column lies in the last need fields. hp is hotWalk's plan.
	hot bool
	hp  hotPlan
	// qhot: hotWalk may take the rows of a window whose rows all start
	// with a quoted first field and are quoted simply (see quotedLeadOK),
	// where they are, by qhp: hp with the value in quotes.
	qhot bool
	qhp  hotPlan
	qval []byte // the value in quotes and the delimiter, for qline
	need int
	// sumsHot: addTail may add a matching row's sums (every summed column
	// in the last need fields, none the first), as tp says.
	sumsHot bool
	tp      tailPlan
	// lead: a filter on column lead > 0 with a value a bare field can
	// equal: ScanPart finds the row's field there by the comma bitmap
	// (fieldStart) and turns the row away if it is not the value
	// (fieldIs), without the call to line. (The general path's binding has
	// its own, for its first filter.)
	lead int
	// hotAll: on amd64, bulk and hotWalk may take every row of a window,
	// its sp bits every row start (everyRow): the simple shape with sums from
	// the row's end (sumsHot) and no filter, or a filter on column lead
	// whose value and comma fit 16 bytes (hotPlan.filterOn).
	hotAll bool

	spec Spec
	// skipBad: Query.SkipBad (carefulPart)
	skipBad bool
	// gen is the general path's binding, nil for the simple shape.
	gen *general
}

func bind(q *Query, header []string, sep byte) (binding, error) {
	hk := resolveKinds(q, header)
	b, err := bindShape(q, header, hk, sep)
	b.sep, b.skipBad = sep, q.SkipBad
	if err == nil {
		b.spec.DateFormats, b.spec.Kinds = q.DateFormats, hk.named
	}
	return b, err
}

// bindShape is bind for the shape q has: the simple shape's own binding,
// or the general one.
func bindShape(q *Query, header []string, hk headerKinds, sep byte) (binding, error) {
	var b binding
	find := func(name string) (int, error) { return resolve(name, header) }
	b.filter = -1
	if err := q.Validate(); err != nil {
		return b, err
	}
	if !q.simple(header, hk) {
		return bindGeneral(q, header, hk, sep)
	}
	if cs := q.Filters; len(cs) == 1 {
		i, err := find(cs[0].Col)
		if err != nil {
			return b, err
		}
		b.filter, b.value, b.fname = i, []byte(cs[0].Value), header[i]
		b.bareOK = !strings.ContainsAny(cs[0].Value, string([]byte{sep, '"', '\n'}))
		b.spec.Filters = []Cond{{Col: header[i], Op: OpEq, Value: cs[0].Value, Quoted: cs[0].Quoted}}
	}
	sums := q.Sum
	if !q.named() {
		sums = q.defaultSums(header)
		b.spec.Sales = sums != nil
	}
	b.nsum = len(sums)
	for slot, name := range sums {
		i, err := find(name)
		if err != nil {
			return b, err
		}
		for _, c := range b.byCol[:slot] {
			if c.col == i {
				return b, fmt.Errorf("%w: %s and %s are both field %d (%s)", ErrDupSum,
					clipQuote(sums[c.slot]), clipQuote(name), i+1, clipQuote(header[i]))
			}
		}
		if k, why := hk.of(i); k == KindText || k == KindDate {
			return b, fmt.Errorf("%s is %s (%s): %w", clipQuote(header[i]), articled(k), why, errSumKind)
		}
		b.names = append(b.names, header[i])
		b.spec.Aggs = append(b.spec.Aggs, Agg{Func: "sum", Col: header[i], Slot: slot})
		// insertion into the sorted list
		j := slot
		for j > 0 && b.byCol[j-1].col > i {
			b.byCol[j] = b.byCol[j-1]
			j--
		}
		b.byCol[j] = struct{ col, slot int }{i, slot}
	}
	for k := range b.nsum {
		b.sumCols[k] = b.byCol[k].col
	}
	b.ncols = len(header)
	b.back = b.nsum > 0 && b.byCol[0].col >= len(header)/2
	b.need = b.ncols - b.byCol[0].col
	b.tp = tailPlan{ncols: b.ncols, need: b.need, nsum: b.nsum, byCol: b.byCol}
	if b.nsum > 0 && b.byCol[0].col > 0 && b.need <= maxNeed {
		b.sumsHot = true
		b.hp = newHotPlan(&b.tp)
	}
	if b.filter > 0 && b.bareOK && len(b.value) > 0 && b.value[0] != '\r' {
		b.lead = b.filter
	}
	if b.sumsHot && b.filter < 0 {
		b.hotAll = true
	} else if b.sumsHot && b.lead > 0 {
		b.hotAll = b.hp.filterOn(b.lead, b.value, sep)
	} else if b.sumsHot && b.filter == 0 && b.bareOK && len(b.value) < 8 {
		b.hot = b.hp.filterOn(0, b.value, sep)
		if b.hot {
			b.qhp = b.hp
			b.qval = []byte(`"` + string(b.value) + `"` + string(sep))
			b.qhot = b.qhp.filterOn(0, b.qval[:len(b.qval)-1], sep)
		}
	}
	return b, nil
}
