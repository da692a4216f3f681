package scan

// AggFunc is one kind of aggregate, a row of the aggregate table: its name
// in a Query's lists and an answer (Agg.Func), the flag that asks for it,
// the flag's argument and help, its label in an answer, and the state it
// keeps (need). From the table come the commands' flags and help, the
// words Compile reads (Text.Aggs), the checks of Validate, the slots a
// binding gives each aggregate, and an answer's labels.
//
// A running aggregate (sum, min, max, avg) keeps a fixed-size figure per
// slot, in Result and per group in Groups (Need: NeedSum, NeedMin,
// NeedMax), merged by adding or comparing; its column list is a field of
// Query (list). A holistic one (count_distinct, median, quantile) keeps a
// distinct set or a value list per slot in Words (NeedDistinct,
// NeedValues), merged by union or concatenation; Query.Holistic lists it.
// docs/design.md says what else a new one touches.
type AggFunc struct {
	Func, Flag string
	Arg        string // the flag's argument in usage lines: COL,COL
	Help       string
	need       Need
	numbers    bool                   // reads numbers only
	list       func(*Query) *[]string // a running aggregate's columns; nil for a holistic one
	// label is the aggregate's column in an answer; p is a quantile's
	// fraction.
	label func(col, p string) string
}

// AggFuncs is the aggregate table, in the order an answer lists a query's
// aggregates: running ones first, as Query lists them.
var AggFuncs = []AggFunc{
	{"sum", "sum", "COL,COL", "columns to sum, comma-separated (or the flag given again); with no aggregate named, a plain count (and \"Total Revenue,Total Profit\" where the files have both)",
		NeedSum, true, func(q *Query) *[]string { return &q.Sum }, func(col, _ string) string { return col }},
	{"min", "min", "COL,COL", "columns whose exact minimum to report, comma-separated (or the flag given again)",
		NeedMin, false, func(q *Query) *[]string { return &q.Min }, funcLabel("min")},
	{"max", "max", "COL,COL", "columns whose exact maximum to report, comma-separated (or the flag given again)",
		NeedMax, false, func(q *Query) *[]string { return &q.Max }, funcLabel("max")},
	{"avg", "avg", "COL,COL", "columns whose average (exact sum / count, rounded half to even) to report, comma-separated (or the flag given again)",
		NeedSum, true, func(q *Query) *[]string { return &q.Avg }, funcLabel("avg")},
	{"count_distinct", "count-distinct", "COL,COL", "columns whose distinct present values to count, exactly (a number by value, a date by instant, text by bytes), comma-separated (or the flag given again)",
		NeedDistinct, false, nil, funcLabel("count_distinct")},
	{"median", "median", "COL,COL", "number columns whose exact median (SQL's, the mean of the two middle values of an even count) to report, comma-separated (or the flag given again)",
		NeedValues, true, nil, funcLabel("median")},
	{"quantile", "quantile", "'COL:0.9'", "COL:P, the exact quantile P (0 to 1) of a number column, interpolated between the values around it as SQL's quantile_cont does; comma-separated (or the flag given again)",
		NeedValues, true, nil, func(col, p string) string { return "quantile(" + col + "," + p + ")" }},
}

func funcLabel(fn string) func(col, p string) string {
	return func(col, _ string) string { return fn + "(" + col + ")" }
}

// Holistic reports whether f needs every value (Query.Holistic), not a
// running figure.
func (f AggFunc) Holistic() bool { return f.list == nil }

// aggFunc is the table's row for name.
func aggFunc(name string) (AggFunc, bool) {
	if i := aggIndex(name); i >= 0 {
		return AggFuncs[i], true
	}
	return AggFunc{}, false
}

// aggIndex is the index of name's row in the table, -1 if none. (A row is
// not copied to be compared: an answer's table looks each value's
// aggregate up, millions of times.)
func aggIndex(name string) int {
	for i := range AggFuncs {
		if AggFuncs[i].Func == name {
			return i
		}
	}
	return -1
}

// holisticFunc is the table's row for name if it is a holistic aggregate.
func holisticFunc(name string) (AggFunc, bool) {
	f, ok := aggFunc(name)
	return f, ok && f.Holistic()
}

// isHolistic reports whether name is a holistic aggregate's.
func isHolistic(name string) bool {
	i := aggIndex(name)
	return i >= 0 && AggFuncs[i].Holistic()
}
