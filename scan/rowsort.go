package scan

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
)

// Rows out in order (--select with --sort): the scan writes every matching
// row as CSV, whatever the query's format, and FinishRows sorts them by the
// sort keys, each compared as its column's kind (a number column by value,
// a date column by instant, text by bytes; a column of no decided kind by
// value where both are numbers, else instants where both are dates, else
// bytes), a missing value first, ties in file order; then it writes them in
// the query's format and cuts them to its limit.

// RowsSorted says whether q's rows out are sorted (and so written as CSV
// by the scan, and not cut by its limit until FinishRows).
func (q *Query) RowsSorted() bool { return q.Select != nil && len(q.Sort) > 0 }

// RowLimit is how many rows a scan of q writes at most, and may stop at
// once it has them: Limit for a query that selects rows in file order, 0
// (no bound) for any other (a sorted one's limit is FinishRows's).
func (q *Query) RowLimit() int64 {
	if q.Select == nil || q.RowsSorted() {
		return 0
	}
	return int64(q.Limit)
}

// FinishRows makes r's rows out what q asks for once every unit's are in
// r.Out, in file order: sorted by q.Sort and written in q.Out if q sorts
// them, then cut to q.Limit rows. spec is the query's binding (its
// Select, RowSort and Kinds).
func FinishRows(r *Result, q *Query, spec *Spec) error {
	if q.Select == nil {
		return nil
	}
	if q.RowsSorted() {
		out, err := sortRows(r.Out, q, spec)
		if err != nil {
			return err
		}
		r.Out = out
	}
	if q.Limit > 0 {
		r.Out = CutRows(r.Out, q.Out, q.Limit)
	}
	return nil
}

// sortKey is one row's value of one sort column, read once.
type sortKey struct {
	class int // 0 missing, 1 number, 2 date, 3 bytes
	m     wide
	sc    int
	day   int64
	b     []byte
}

func sortRows(out []byte, q *Query, spec *Spec) ([]byte, error) {
	dr, err := newDateReader(q.DateFormats)
	if err != nil {
		return nil, err
	}
	kinds := make([]Kind, len(spec.Select))
	whys := make([]string, len(spec.Select))
	for k, n := range spec.Select {
		for _, ck := range spec.Kinds {
			if ck.Col == n {
				kinds[k], whys[k] = ck.Kind, ck.Why
			}
		}
	}
	type row struct {
		fields [][]byte
		keys   []sortKey
	}
	var rows []row
	for p := 0; p < len(out); {
		fields, next, err := readCSVRow(out, p)
		if err != nil {
			return nil, err
		}
		p = next
		r := row{fields: fields}
		for _, sb := range spec.RowSort {
			r.keys = append(r.keys, keyOf(fields[sb.col], kinds[sb.col], dr))
		}
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		for i, sb := range spec.RowSort {
			if c := cmpSortKey(a.keys[i], b.keys[i]); c != 0 {
				if sb.desc {
					return -c
				}
				return c
			}
		}
		return 0
	})
	s := newSelector(spec.Select, kinds, whys, q.Out)
	o := make([]byte, 0, len(out))
	for _, r := range rows {
		for k, f := range r.fields {
			if o, err = s.field(o, k, f); err != nil {
				return nil, fmt.Errorf("column %s: %s: %w", clipQuote(spec.Select[k]), clipQuote(string(f)), err)
			}
		}
		o = s.end(o)
	}
	return o, nil
}

// keyOf reads v, a sort column's value, as its kind k says.
func keyOf(v []byte, k Kind, dr *dateReader) sortKey {
	if len(v) == 0 {
		return sortKey{}
	}
	if k == KindNumber || k == KindAuto {
		if m, sc, err := parseWide(v); err == nil {
			return sortKey{class: 1, m: m, sc: sc}
		}
	}
	if k == KindDate || k == KindAuto {
		if d, ok := dr.parse(v); ok {
			return sortKey{class: 2, day: d, b: v}
		}
	}
	return sortKey{class: 3, b: v}
}

// cmpSortKey orders two keys: missing first, then by class (in a column of
// no decided kind: numbers, dates, then text, as a minimum orders them),
// then within it.
func cmpSortKey(a, b sortKey) int {
	if a.class != b.class {
		return cmp.Compare(a.class, b.class)
	}
	switch a.class {
	case 1:
		return cmpWide(a.m, a.sc, b.m, b.sc)
	case 2:
		if c := cmp.Compare(a.day, b.day); c != 0 {
			return c
		}
	}
	return bytes.Compare(a.b, b.b)
}

// readCSVRow reads the row at out[p:], as AppendCSVField and selector.end
// write one: its fields (a quoted one unquoted, in a copy) and where the
// next row starts.
func readCSVRow(out []byte, p int) ([][]byte, int, error) {
	var fields [][]byte
	for {
		if p < len(out) && out[p] == '"' {
			var f []byte
			j := p + 1
			for {
				k := bytes.IndexByte(out[j:], '"')
				if k < 0 {
					return nil, 0, fmt.Errorf("rows out: a quote left open (a bug in parlab)")
				}
				f = append(f, out[j:j+k]...)
				j += k + 1
				if j < len(out) && out[j] == '"' {
					f = append(f, '"')
					j++
					continue
				}
				break
			}
			fields, p = append(fields, f), j
		} else {
			k := p
			for k < len(out) && out[k] != ',' && out[k] != '\n' {
				k++
			}
			fields, p = append(fields, out[p:k]), k
		}
		if p >= len(out) {
			return nil, 0, fmt.Errorf("rows out: a row without its line end (a bug in parlab)")
		}
		if out[p] == '\n' {
			return fields, p + 1, nil
		}
		p++ // (the comma)
	}
}
