package scan

import "strings"

// Text is a query as a command line writes it: each field the values of
// one flag, in the order given (a flag given twice adds its values). Every
// value is parsed by the grammar of docs/query.md: Where and Any by
// ParseCondDates, the column lists by ParseList (comma-separated, quoted
// names as CSV quotes them), Sort's entries COL or COL:desc, Types by
// ParseTypes, a quantile's COL:P by ParseQuantile.
type Text struct {
	Where, Any, By                  []string
	Aggs                            map[string][]string // each aggregate's columns, by AggFunc.Func
	Sort, Select, Types, DateFormat []string
	Limit                           int
	Out                             OutFormat
	DecimalComma                    bool // values in Where and Any write numbers with a decimal comma
	NoHeader, SkipBad               bool
	// MaxHeld bounds what rows out and holistic state hold (Query.MaxHeld);
	// it applies only where the query selects rows or has a holistic
	// aggregate.
	MaxHeld int64
}

// FlagError is a fault in one of Text's values: Flag is the command
// line's name for it (where, sum, sort, …; "" for the query as a whole),
// Err the grammar's word.
type FlagError struct {
	Flag string
	Err  error
}

func (e *FlagError) Error() string {
	if e.Flag == "" {
		return e.Err.Error()
	}
	return "--" + e.Flag + ": " + e.Err.Error()
}

func (e *FlagError) Unwrap() error { return e.Err }

// Compile turns t into a Query, checked as far as it can be without a
// header (Query.Validate): the one place the command line's words become
// a question, before any input is opened. Its errors are *FlagError.
func Compile(t Text) (Query, error) {
	var q Query
	bad := func(flag string, err error) (Query, error) { return q, &FlagError{flag, err} }
	for _, f := range t.DateFormat {
		if _, err := ParseDateFormat(f); err != nil {
			return bad("date-format", err)
		}
		q.DateFormats = append(q.DateFormats, f)
	}
	for _, l := range []struct {
		flag string
		vals []string
		to   *[]Cond
	}{{"where", t.Where, &q.Filters}, {"any", t.Any, &q.Any}} {
		for _, w := range l.vals {
			// (amount>1,5 with a decimal comma, as the inputs write it; a
			// date in a DateFormat's form)
			c, err := ParseCondDates(w, t.DecimalComma, q.DateFormats)
			if err != nil {
				return bad(l.flag, err)
			}
			*l.to = append(*l.to, c)
		}
	}
	var sort []string
	for _, l := range []struct {
		flag string
		vals []string
		to   *[]string
	}{{"by", t.By, &q.By}, {"sort", t.Sort, &sort}, {"select", t.Select, &q.Select}} {
		for _, v := range l.vals {
			names, err := ParseList(v)
			if err != nil {
				return bad(l.flag, err)
			}
			*l.to = append(*l.to, names...)
		}
	}
	for _, f := range AggFuncs {
		for _, v := range t.Aggs[f.Func] {
			names, err := ParseList(v)
			if err != nil {
				return bad(f.Flag, err)
			}
			if !f.Holistic() {
				*f.list(&q) = append(*f.list(&q), names...)
				continue
			}
			for _, n := range names {
				h := Holistic{Func: f.Func, Col: n}
				if f.Func == "quantile" {
					if h, err = ParseQuantile(n); err != nil {
						return bad(f.Flag, err)
					}
				}
				q.Holistic = append(q.Holistic, h)
			}
		}
	}
	for _, n := range sort {
		q.Sort = append(q.Sort, parseSortKey(n))
	}
	for _, v := range t.Types {
		ts, err := ParseTypes(v)
		if err != nil {
			return bad("", err) // (its words name --types)
		}
		q.Types = append(q.Types, ts...)
	}
	q.Limit, q.NoHeader, q.SkipBad, q.Out = t.Limit, t.NoHeader, t.SkipBad, t.Out
	if q.Select != nil || q.Holistic != nil { // (rows out and holistic state are held until the scan ends)
		q.MaxHeld = t.MaxHeld
	}
	if err := q.Validate(); err != nil {
		return bad("", err)
	}
	return q, nil
}

// parseSortKey reads a sort entry: COL, COL:desc or COL:asc (any case);
// a colon followed by anything else is part of the column's name.
func parseSortKey(n string) SortKey {
	k := SortKey{Col: n}
	if i := strings.LastIndexByte(n, ':'); i >= 0 {
		switch strings.ToLower(strings.TrimSpace(n[i+1:])) {
		case "desc":
			k = SortKey{Col: strings.TrimSpace(n[:i]), Desc: true}
		case "asc":
			k.Col = strings.TrimSpace(n[:i])
		}
	}
	return k
}
