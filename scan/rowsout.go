package scan

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// OutFormat is how a query that selects rows (Query.Select) writes each
// row to Result.Out.
//
//   - OutCSV: RFC 4180, comma-separated, a row ending in LF; a field is
//     quoted (its quotes doubled) only where it holds a comma, a quote, a
//     CR or an LF, so a quote-free row of a comma-separated file is its
//     own bytes.
//   - OutTSV: tab-separated, a row ending in LF; a tab, LF, CR and
//     backslash in a field are written \t, \n, \r and \\ (the escapes of
//     PostgreSQL's and ClickHouse's TSV), so every row is one line.
//   - OutJSON: JSON lines, an object a row with the columns' names as
//     keys in the selected order; an empty field is null, a value of a
//     number column a JSON number (as written where JSON's grammar allows,
//     else the same value in it: +5 is 5, .5 is 0.5), any other a string
//     (bytes that are not UTF-8 written U+FFFD, as encoding/json does).
//
// The header line of CSV and TSV (Spec.Select's names) is the caller's to
// write: a scan writes rows only.
type OutFormat uint8

const (
	OutCSV OutFormat = iota
	OutTSV
	OutJSON
)

var outNames = [...]string{OutCSV: "csv", OutTSV: "tsv", OutJSON: "json"}

func (f OutFormat) String() string {
	if int(f) < len(outNames) {
		return outNames[f]
	}
	return fmt.Sprintf("OutFormat(%d)", f)
}

// ParseOutFormat reads an OutFormat's name: csv, tsv or json.
func ParseOutFormat(s string) (OutFormat, error) {
	for i, n := range outNames {
		if strings.EqualFold(s, n) {
			return OutFormat(i), nil
		}
	}
	return 0, fmt.Errorf("rows are written as %s, not %q", strings.Join(outNames[:], ", "), s)
}

// validateSelect checks a query that selects rows: columns named, "*"
// alone, and nothing that answers with figures.
func (q *Query) validateSelect() error {
	switch {
	case len(q.By) > 0:
		return fmt.Errorf("--select prints rows and --by answers per group: give one (the rows of one group: --select with --where on the group's columns)")
	case q.named():
		return fmt.Errorf("--select prints rows and --sum, --min, --max, --avg answer with figures: give one or the other")
	case len(q.Select) == 0:
		return fmt.Errorf("--select names no column")
	case q.Out > OutJSON:
		return fmt.Errorf("unknown output format %d", q.Out)
	}
	for _, n := range q.Select {
		if strings.TrimSpace(n) == "" {
			return fmt.Errorf("empty column name in the --select list")
		}
		if n == "*" && len(q.Select) > 1 {
			return fmt.Errorf("--select '*' is every column: give it alone")
		}
	}
	return nil
}

// selector is a query's Select bound to a header: which fields a matching
// row writes and how (see Table.emit).
type selector struct {
	// all: every column of the header in its order, read from the row
	// itself (so a file of any width can be written whole); else fi holds
	// each output column's index in general.cols
	all   bool
	fi    []int
	names []string // the output columns, as the header spells them
	ncols int      // the header's field count
	sep   byte     // the input's delimiter
	out   OutFormat
	// keys are JSON's per output column: `{"name":` for the first, then
	// `,"name":`; kinds each column's kind (a number column's values are
	// JSON numbers)
	keys  [][]byte
	kinds []Kind
	whys  []string
	limit int64 // Query.Limit: rows written a scan at most (0: all)
}

// bindSelect binds q.Select to header: use adds a column to the ones the
// query reads and returns its role (see bindGeneral, which places each
// role's index in general.cols afterwards, fixSelect).
func bindSelect(q *Query, header []string, hk headerKinds, sep byte, use func(int) int) (*selector, []sortBy, error) {
	var cols []int
	for _, name := range q.Select {
		if name == "*" {
			for i := range header {
				cols = append(cols, i)
			}
			continue
		}
		i, err := resolve(name, header)
		if err != nil {
			return nil, nil, err
		}
		cols = append(cols, i)
	}
	var names, whys []string
	var kinds []Kind
	all := len(cols) == len(header)
	for k, c := range cols {
		all = all && c == k
		kind, why := hk.of(c)
		names, kinds, whys = append(names, header[c]), append(kinds, kind), append(whys, why)
	}
	out, limit := q.Out, q.RowLimit()
	var order []sortBy
	if q.RowsSorted() { // (written as CSV, all of them, for FinishRows to sort)
		out = OutCSV
		for _, sk := range q.Sort {
			k, err := resolve(sk.Col, names)
			if err != nil {
				return nil, nil, fmt.Errorf("--sort orders the rows by columns that --select prints: %w", err)
			}
			order = append(order, sortBy{k, sk.Desc})
		}
	}
	s := newSelector(names, kinds, whys, out)
	s.all, s.ncols, s.sep, s.limit = all, len(header), sep, limit
	if !all {
		for _, c := range cols {
			s.fi = append(s.fi, use(c))
		}
	}
	return s, order, nil
}

// newSelector writes the columns names (of kinds, decided as whys say)
// in format out.
func newSelector(names []string, kinds []Kind, whys []string, out OutFormat) *selector {
	s := &selector{names: names, kinds: kinds, whys: whys, out: out}
	for k, n := range names {
		key := []byte{','}
		if k == 0 {
			key[0] = '{'
		}
		key = appendJSONString(key, []byte(n))
		s.keys = append(s.keys, append(key, ':'))
	}
	return s
}

// emit writes a matching row to r.Out: fields (as rowGen has them) for the
// named columns, or the row itself, row being its bytes without the line
// end, at offset at in t's data.
func (t *Table) emit(r *Result, fields *[MaxFields][]byte, at int, row []byte) error {
	g := t.b.gen
	s := g.sel
	if !s.all {
		o := r.Out
		for k, fi := range s.fi {
			var err error
			if o, err = s.field(o, k, fields[fi]); err != nil {
				return t.errAt(at, s.names[k], fields[fi], err)
			}
		}
		r.Out = s.end(o)
		return nil
	}
	if s.raw(row) {
		r.Out = append(append(r.Out, row...), '\n')
		return nil
	}
	var buf [256]byte
	o := r.Out
	k := 0
	for i := 0; ; k++ {
		f, next, last, err := readField(row, i, s.sep, false)
		if err != nil {
			return t.errAt(at+next, "", nil, err)
		}
		if k < s.ncols {
			v := row[f.s:f.e]
			if f.quoted {
				v = appendUnquoted(buf[:0], v)
			}
			if o, err = s.field(o, k, v); err != nil {
				return t.errAt(at+f.s, s.names[k], v, err)
			}
		}
		if last {
			break
		}
		i = next
	}
	if k+1 < s.ncols {
		return t.shortRow(at+len(row), s.names[k+1], k+1, k+1)
	}
	r.Out = s.end(o)
	return nil
}

// raw says whether row, every column of the header, is written as its own
// bytes: CSV from a comma-separated file or TSV from a tab-separated one,
// the row holding no quote, CR (or for TSV backslash) and the header's
// field count.
func (s *selector) raw(row []byte) bool {
	switch {
	case s.out == OutCSV && s.sep == ',':
	case s.out == OutTSV && s.sep == '\t':
		if bytes.IndexByte(row, '\\') >= 0 {
			return false
		}
	default:
		return false
	}
	return bytes.IndexByte(row, '"') < 0 && bytes.IndexByte(row, '\r') < 0 && bytes.Count(row, []byte{s.sep}) == s.ncols-1
}

// appendUnquoted appends a quoted field's content, its doubled quotes
// single, to dst.
func appendUnquoted(dst, c []byte) []byte {
	for j := 0; j < len(c); j++ {
		dst = append(dst, c[j])
		if c[j] == '"' {
			j++
		}
	}
	return dst
}

// field appends output column k's value v (a field's content, unquoted).
// A value of a number column that is not a number is an error in JSON
// alone, which writes it as a number.
func (s *selector) field(o []byte, k int, v []byte) ([]byte, error) {
	switch s.out {
	case OutCSV:
		if k > 0 {
			o = append(o, ',')
		}
		return AppendCSVField(o, v), nil
	case OutTSV:
		if k > 0 {
			o = append(o, '\t')
		}
		return AppendTSVField(o, v), nil
	}
	o = append(o, s.keys[k]...)
	switch {
	case len(v) == 0:
		return append(o, "null"...), nil
	case s.kinds[k] == KindNumber || s.kinds[k] == KindAuto && isJSONNumber(v):
		if isJSONNumber(v) {
			return append(o, v...), nil
		}
		if m, sc, err := ParseFixed(v); err == nil {
			return Fixed{V: m, Scale: int64(sc)}.Append(o, false), nil
		}
		if m, sc, err := parseWide(v); err == nil {
			return Fixed{C: m, Scale: int64(sc)}.Append(o, false), nil
		}
		return o, kindError(s.names[k], KindNumber, s.whys[k])
	}
	return appendJSONString(o, v), nil
}

// end closes a row that field wrote.
func (s *selector) end(o []byte) []byte {
	if s.out == OutJSON {
		o = append(o, '}')
	}
	return append(o, '\n')
}

// csvSpecial and tsvSpecial are the bytes that make a field be quoted
// (CSV) or escaped (TSV).
var csvSpecial, tsvSpecial = byteSet(",\"\r\n"), byteSet("\t\n\r\\")

func byteSet(s string) (set [256]bool) {
	for i := range len(s) {
		set[s[i]] = true
	}
	return set
}

// hasAny reports whether v holds a byte of set: a table lookup a byte
// (bytes.ContainsAny cost 9% of a select of short fields).
func hasAny(v []byte, set *[256]bool) bool {
	for _, c := range v {
		if set[c] {
			return true
		}
	}
	return false
}

// AppendCSVField appends v as one CSV field: quoted, its quotes doubled,
// where it holds a comma, a quote, a CR or an LF.
func AppendCSVField(o, v []byte) []byte {
	if !hasAny(v, &csvSpecial) {
		return append(o, v...)
	}
	o = append(o, '"')
	for _, c := range v {
		if c == '"' {
			o = append(o, '"')
		}
		o = append(o, c)
	}
	return append(o, '"')
}

// AppendTSVField appends v as one TSV field, a tab, LF, CR and backslash
// written \t, \n, \r and \\.
func AppendTSVField(o, v []byte) []byte {
	if !hasAny(v, &tsvSpecial) {
		return append(o, v...)
	}
	for _, c := range v {
		if e := escapes[c]; e != 0 && c != '"' {
			o = append(o, '\\', e)
		} else {
			o = append(o, c)
		}
	}
	return o
}

// isJSONNumber reports whether v is a number in JSON's grammar (RFC 8259):
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isJSONNumber(v []byte) bool {
	i := 0
	if i < len(v) && v[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(v) && v[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(v) && v[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(v)
}

const hexDigits = "0123456789abcdef"

// escapes are the backslash escapes of TSV (a tab, LF, CR, backslash)
// and JSON (those and a quote): the letter after the backslash.
var escapes = [256]byte{'\t': 't', '\n': 'n', '\r': 'r', '\\': '\\', '"': '"'}

// appendJSONString appends v as a JSON string: a quote, a backslash and
// the control characters escaped, bytes that are not UTF-8 written as
// U+FFFD (encoding/json's rule).
func appendJSONString(o, v []byte) []byte {
	o = append(o, '"')
	for i := 0; i < len(v); {
		c := v[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			o = append(o, c)
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(v[i:])
			if r == utf8.RuneError && n == 1 {
				o = append(o, "\ufffd"...)
			} else {
				o = append(o, v[i:i+n]...)
			}
			i += n
			continue
		}
		if e := escapes[c]; e != 0 {
			o = append(o, '\\', e)
		} else {
			o = append(o, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		}
		i++
	}
	return append(o, '"')
}

// CutRows returns out, rows written in format f, cut after its first n
// rows (all of them if it has no more). A CSV row ends at an LF outside
// quotes; a TSV or JSON row at any LF (their fields hold none).
func CutRows(out []byte, f OutFormat, n int) []byte {
	in := false
	for i, c := range out {
		switch {
		case c == '"' && f == OutCSV:
			in = !in
		case c == '\n' && !in:
			if n--; n == 0 {
				return out[:i+1]
			}
		}
	}
	return out
}
