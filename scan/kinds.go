package scan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind is what one column of a query holds, decided once for the whole
// query before its scan (see Decider): numbers, dates or text. Every
// filter on the column, its minimum and maximum, and the order of its
// group-by keys follow it: a text column compares bytes (code=0000E0
// matches that code alone, however it reads as a number), a number column
// compares numbers (437.2 = 437.20), a date column days. A present value
// that does not read as its column's kind is an error (ErrKind) naming
// the value and how the kind was decided, never a value silently left out
// or compared another way.
//
// KindAuto, the zero Kind, is a column whose kind was not decided: each
// value is read as what it looks like (see Cond and Word). A Query
// without Kinds is read that way; parlab's commands always decide.
type Kind uint8

// The kinds of a column.
const (
	KindAuto Kind = iota
	KindNumber
	KindDate
	KindText
)

var kindNames = [...]string{"auto", "number", "date", "text"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// kindAliases are the other names ParseKind takes: DuckDB's and SQL's
// type names, as a user of either would write them.
var kindAliases = map[string]Kind{
	"number": KindNumber, "numeric": KindNumber, "decimal": KindNumber, "double": KindNumber,
	"float": KindNumber, "integer": KindNumber, "int": KindNumber, "bigint": KindNumber,
	"date": KindDate, "timestamp": KindDate, "datetime": KindDate,
	"text": KindText, "varchar": KindText, "string": KindText, "str": KindText,
}

// ParseKind reads a kind's name: number, date or text, case ignored, or a
// SQL type name that means one (integer, double, decimal, varchar,
// timestamp …).
func ParseKind(s string) (Kind, error) {
	if k, ok := kindAliases[strings.ToLower(strings.TrimSpace(s))]; ok {
		return k, nil
	}
	return KindAuto, fmt.Errorf("unknown kind %s: want number, date or text", clipQuote(s))
}

// ColumnKind is one column's kind and why it is that kind (for messages,
// --verbose and the JSON). Col is the column as the query or --types
// named it, or, once decided, as the first input's header spells it.
type ColumnKind struct {
	Col  string
	Kind Kind
	Why  string
}

// ParseTypes reads --types: COL=KIND pairs separated by commas, a column
// whose name holds a comma or a quote written in double quotes, "" for a
// quote ("a,b"=text).
func ParseTypes(s string) ([]ColumnKind, error) {
	var out []ColumnKind
	rest := s
	for {
		rest = strings.TrimLeft(rest, " ")
		var col string
		if strings.HasPrefix(rest, `"`) {
			n, after, ok := unquoteExpr(rest)
			if !ok {
				return nil, fmt.Errorf("--types %s: a quote is not closed", clipQuote(s))
			}
			col, rest = n, strings.TrimLeft(after, " ")
			if !strings.HasPrefix(rest, "=") {
				return nil, fmt.Errorf("--types %s: want = after the quoted name %s", clipQuote(s), clipQuote(n))
			}
		} else {
			i := strings.IndexByte(rest, ',')
			if i < 0 {
				i = len(rest)
			}
			j := strings.LastIndexByte(rest[:i], '=')
			if j < 0 {
				return nil, fmt.Errorf("--types %s: want COLUMN=KIND (KIND number, date or text), got %s", clipQuote(s), clipQuote(rest[:i]))
			}
			col, rest = strings.TrimSpace(rest[:j]), rest[j:]
		}
		i := strings.IndexByte(rest, ',')
		if i < 0 {
			i = len(rest)
		}
		if col == "" {
			return nil, fmt.Errorf("--types %s: a kind with no column", clipQuote(s))
		}
		k, err := ParseKind(rest[1:i])
		if err != nil {
			return nil, fmt.Errorf("--types %s: %w", clipQuote(s), err)
		}
		for _, o := range out {
			if looseName(o.Col) == looseName(col) {
				return nil, fmt.Errorf("--types: %s is given twice", clipQuote(col))
			}
		}
		out = append(out, ColumnKind{Col: col, Kind: k, Why: "--types"})
		if i == len(rest) {
			return out, nil
		}
		rest = rest[i+1:]
	}
}

// errSumKind is a sum or average of a text or date column.
var errSumKind = errors.New("only numbers are summed, averaged or have a median")

// ErrKind is a present value that does not read as its column's kind.
var ErrKind = errors.New("value does not fit its column's kind")

// headerKinds are q's decided kinds resolved against a header once, for
// one binding: byCol the kind of each column (KindAuto where q decided
// none; the first of q.Kinds that names it), and named every entry of
// q.Kinds that names a column, in q.Kinds' order, as the header spells
// it (Spec.Kinds).
type headerKinds struct {
	byCol []ColumnKind
	named []ColumnKind
}

func resolveKinds(q *Query, header []string) headerKinds {
	var hk headerKinds
	for _, ck := range q.Kinds {
		i, err := resolve(ck.Col, header)
		if err != nil {
			continue
		}
		if hk.byCol == nil {
			hk.byCol = make([]ColumnKind, len(header))
		}
		c := ColumnKind{header[i], ck.Kind, ck.Why}
		if hk.byCol[i].Col == "" {
			hk.byCol[i] = c
		}
		hk.named = append(hk.named, c)
	}
	return hk
}

// of is column i's kind and why (KindAuto, "" if none was decided).
func (hk headerKinds) of(i int) (Kind, string) {
	if hk.byCol == nil {
		return KindAuto, ""
	}
	return hk.byCol[i].Kind, hk.byCol[i].Why
}

// kindError is ErrKind for a value of column col, of kind k (a number or
// a date column) decided as why says, with the flags that would read it.
func kindError(col string, k Kind, why string) error {
	if why == "summed" || why == "averaged" || why == "read by a median" {
		return kindErr(fmt.Sprintf("not a decimal number, in a column that is %s; --null VALUE makes VALUE mean missing", why))
	}
	return kindErr(fmt.Sprintf("not a %s, in %s (%s); --types '%s=text' reads it as text, or --null VALUE makes VALUE mean missing",
		k, articled(k), why, col))
}

// kindErr is an ErrKind with its message.
type kindErr string

func (e kindErr) Error() string { return string(e) }
func (e kindErr) Unwrap() error { return ErrKind }

// articled is "a number column", "a date column".
func articled(k Kind) string {
	if k == KindNumber {
		return "a number column"
	}
	return "a " + k.String() + " column"
}

// valueKindIn is what a present value reads as by itself: a number (the
// package comment's grammar), else a date (as dr reads one), else text.
func valueKindIn(v []byte, dr *dateReader) Kind {
	if _, _, err := ParseFixed(v); err == nil {
		return KindNumber
	}
	if _, _, err := parseWide(v); err == nil {
		return KindNumber
	}
	if _, ok := dr.parse(v); ok {
		return KindDate
	}
	return KindText
}

// Decider decides the kinds of a query's columns before its scan, the same
// for every strategy and split (spawn calls it once, in the parent, and
// hands the kinds to its workers in the Query). A column that --types
// names has that kind; one that is summed or averaged is a number column;
// any other is judged from a sample of rows (Sample): a number column if
// every present value in it is a number, a date column if every one is a
// date, else, or if it holds no value, text (as DuckDB's sniffer decides a
// column's type, with text for VARCHAR).
type Decider struct {
	dates *dateReader
	cols  []*judged
	rows  int
	got   []sampled // Sample's, kept for the next
}

// judged is one column's kind in the making.
type judged struct {
	name string // as the first header spells it
	kind Kind   // fixed by --types or an aggregate; KindAuto: sampled
	why  string
	seen [4]int // present values sampled, by valueKind
	// the first value sampled that is not a number, and the first that
	// is not a date, and where each is
	other, at [2]string
}

// NewDecider is a Decider for q's columns in t's header (the first
// input's), or an error if --types names a column the header lacks or
// gives a summed column another kind.
func NewDecider(q *Query, t *Table) (*Decider, error) {
	dr, err := newDateReader(q.DateFormats)
	if err != nil {
		return nil, fmt.Errorf("--date-format: %w", err)
	}
	d := &Decider{dates: dr}
	find := func(name string) *judged {
		i, err := resolve(name, t.header)
		if err != nil {
			return nil
		}
		for _, c := range d.cols {
			if c.name == t.header[i] {
				return c
			}
		}
		c := &judged{name: t.header[i]}
		d.cols = append(d.cols, c)
		return c
	}
	for _, tk := range q.Types {
		c := find(tk.Col)
		if c == nil {
			_, err := resolve(tk.Col, t.header)
			return nil, fmt.Errorf("--types: %w", err)
		}
		c.kind, c.why = tk.Kind, "--types"
	}
	sums := q.Sum
	if !q.named() {
		sums = q.defaultSums(t.header)
	}
	var medians []string // (a median's or quantile's column is a number column, as a sum's)
	for _, h := range q.Holistic {
		if f, _ := holisticFunc(h.Func); f.numbers {
			medians = append(medians, h.Col)
		}
	}
	for _, l := range []struct {
		what  string
		names []string
	}{{"summed", sums}, {"averaged", q.Avg}, {"read by a median", medians}} {
		for _, n := range l.names {
			c := find(n)
			if c == nil || c.kind == KindNumber {
				continue // (a name the binding reports)
			}
			if c.kind != KindAuto {
				return nil, fmt.Errorf("--types: %s is %s, but the query %s it: only numbers are", clipQuote(c.name), articled(c.kind), map[string]string{"summed": "sums", "averaged": "averages", "read by a median": "takes a median of"}[l.what])
			}
			c.kind, c.why = KindNumber, l.what
		}
	}
	for _, c := range append(q.Filters, q.Any...) {
		find(c.Col)
	}
	for _, n := range append(append(slices.Clone(q.By), q.Min...), q.Max...) {
		find(n)
	}
	for _, h := range q.Holistic {
		find(h.Col)
	}
	if q.Out == OutJSON { // (a number column's values are written as JSON numbers)
		for _, n := range q.Select {
			find(n)
		}
	}
	if q.RowsSorted() { // (rows sort by their columns' kinds)
		for _, sk := range q.Sort {
			find(sk.Col)
		}
	}
	return d, nil
}

// Sampling wants the rows that start in the first SampleHead bytes of an
// input's body, and in SampleSpread windows of SampleWindow bytes spread
// evenly through the rest of a file that can be read anywhere. A sampled
// row may run SampleSlack bytes past its window; a longer one is left out.
// The sizes keep deciding under a millisecond on 8 inputs (docs/query.md,
// "Column kinds"): about 540 Sales rows from each, read without a copy.
const (
	SampleHead   = 32 << 10
	SampleSpread = 4
	SampleWindow = 8 << 10
	SampleSlack  = 64 << 10
)

// Sample judges the rows of data, which holds t's file from offset base
// on (base at or after t's body; data's end is the file's end if final),
// that start before limit (an offset into data): every row from data's
// start if head, else every row after the first line end (a window in the
// middle of a file, whose first line may be a row's tail). A window whose
// rows do not all parse, each with the header's field count, is left out
// whole: it may have started inside a quoted field. In a head window a
// row that does not parse ends the sample (the scan reports it). line is
// data's first line in the file (for messages), 0 if not known.
func (d *Decider) Sample(t *Table, data []byte, base, limit int, head, final bool, line int) {
	// cols: the header columns to judge, ascending, and ks each one's
	// entry in d.cols
	var cols, ks []int
	for k, c := range d.cols {
		if c.kind != KindAuto || c.settled() {
			continue // (text whatever else the sample holds)
		}
		if i, err := resolve(c.name, t.header); err == nil {
			j, _ := slices.BinarySearch(cols, i)
			cols, ks = slices.Insert(cols, j, i), slices.Insert(ks, j, k)
		}
	}
	if cols == nil {
		return
	}
	sp := rowPicks{cols: cols, ks: ks, fields: make([][]byte, len(cols)), offs: make([]int, len(cols)), sep: t.b.sep}
	p := 0
	if !head {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return
		}
		p = i + 1
		line = 0
	}
	got := d.got[:0]
	defer func() { d.got = got[:0] }()
	rows := 0
	take := func(k int, v []byte, off int) {
		got = append(got, sampled{k, valueKindIn(v, d.dates), v, off})
	}
	for p < limit && p < len(data) {
		q := skipBlank(data, p)
		if q >= len(data) {
			break
		}
		p = q
		row := len(got)
		fields, next, ok := sp.row(data, p, final, take)
		if !ok || (!head && fields != len(t.header)) {
			if !head {
				return // a window that may be misaligned: none of it
			}
			got = got[:row]
			break
		}
		p = next
		rows++
	}
	d.rows += rows
	for _, g := range got {
		c := d.cols[g.k]
		c.seen[g.kind]++
		for x, miss := range [2]bool{g.kind != KindNumber, g.kind != KindDate} {
			if miss && c.other[x] == "" {
				c.other[x] = string(g.v)
				if line > 0 {
					c.at[x] = fmt.Sprintf("%s line %d", t.name, line+bytes.Count(data[:g.off], []byte{'\n'}))
				} else {
					c.at[x] = fmt.Sprintf("%s near byte %d", t.name, base+g.off)
				}
			}
		}
	}
}

// sampled is one value a Sample judged: its column's entry, its kind, its
// bytes and where it starts in the sample.
type sampled struct {
	k    int
	kind Kind
	v    []byte
	off  int
}

// settled reports whether c, a sampled column, is text whatever else a
// sample holds: it has held text, or numbers and dates both.
func (c *judged) settled() bool {
	return c.seen[KindText] > 0 || c.seen[KindNumber] > 0 && c.seen[KindDate] > 0
}

// rowPicks is what Sample reads of a row: the columns cols (ascending),
// each the entry ks of its Decider, and room for pick.
type rowPicks struct {
	cols, ks []int
	fields   [][]byte
	offs     []int
	sep      byte // the Table's delimiter
}

// row reads the record at data[p:] for Sample: take(k, v, off) for each
// present value of a column of rp.cols, its field count, and where the
// next record starts; ok false for a record that does not parse or that
// data's end cuts (not final). A quote-free row is split by pick (SWAR),
// any other by readField.
func (rp *rowPicks) row(data []byte, p int, final bool, take func(k int, v []byte, off int)) (fields, next int, ok bool) {
	end := len(data)
	next = end
	if nl := bytes.IndexByte(data[p:], '\n'); nl >= 0 {
		end, next = p+nl, p+nl+1
	} else if !final {
		return 0, 0, false
	}
	row := data[p:end]
	if bytes.IndexByte(row, '"') < 0 {
		if len(row) > 0 && row[len(row)-1] == '\r' {
			row = row[:len(row)-1]
		}
		found, _ := pick(row, rp.cols, rp.fields, rp.offs, rp.sep)
		for j := range found {
			if len(rp.fields[j]) > 0 {
				take(rp.ks[j], rp.fields[j], p+rp.offs[j])
			}
		}
		return 1 + bytes.Count(row, []byte{rp.sep}), next, true
	}
	i, j := p, 0
	for {
		f, n, lastField, err := readField(data, i, rp.sep, !final)
		if err != nil || (lastField && n == len(data) && !final && (n == 0 || data[n-1] != '\n')) {
			return 0, 0, false
		}
		if j < len(rp.cols) && rp.cols[j] == fields {
			if f.e > f.s {
				v := data[f.s:f.e]
				if f.quoted {
					v = []byte(unquote(v, true))
				}
				take(rp.ks[j], v, f.s)
			}
			j++
		}
		fields++
		i = n
		if lastField {
			return fields, n, true
		}
	}
}

// Kinds is the decided kind of each of the query's columns, for
// Query.Kinds.
func (d *Decider) Kinds() []ColumnKind {
	out := make([]ColumnKind, 0, len(d.cols))
	for _, c := range d.cols {
		if c.kind != KindAuto {
			out = append(out, ColumnKind{c.name, c.kind, c.why})
			continue
		}
		n, dt, tx := c.seen[KindNumber], c.seen[KindDate], c.seen[KindText]
		sample := fmt.Sprintf("%d sampled rows", d.rows)
		if d.rows == 1 {
			sample = "1 sampled row"
		}
		ck := ColumnKind{Col: c.name, Kind: KindText}
		switch {
		case n+dt+tx == 0:
			ck.Why = "no value in " + sample
		case dt+tx == 0:
			ck.Kind, ck.Why = KindNumber, fmt.Sprintf("every value in %s is a number", sample)
		case n+tx == 0:
			ck.Kind, ck.Why = KindDate, fmt.Sprintf("every value in %s is a date", sample)
		default:
			x, what := 0, "a number"
			switch {
			case dt > n:
				x, what = 1, "a date"
			case n == 0:
				what = "a number or a date" // (text alone)
			}
			ck.Why = fmt.Sprintf("%s at %s is not %s", clipQuote(c.other[x]), c.at[x], what)
			switch {
			case nullish(c.other[x]):
				ck.Why += fmt.Sprintf("; --null '%s' would make it missing", c.other[x])
			case datish(c.other[x]):
				ck.Why += "; --date-format reads dates in another form (%d/%m/%Y …)"
			}
		}
		out = append(out, ck)
	}
	return out
}

// nullish reports whether v is a token that files use for a missing value.
func nullish(v string) bool {
	switch strings.ToUpper(v) {
	case "NA", "N/A", "NULL", `\N`, "NAN", "NONE", "-", ".", "?", "#N/A":
		return true
	}
	return false
}

// kindOf is the decided kind of the answer's column col (as the header
// spells it), and why; KindAuto if none was.
func (s *Spec) kindOf(col string) (Kind, string) {
	for _, ck := range s.Kinds {
		if ck.Col == col {
			return ck.Kind, ck.Why
		}
	}
	return KindAuto, ""
}

// UniteKeys makes one group of the groups of r (a group-by's, answering
// s) whose keys are the same numbers or days in a number or date column
// written two ways (7.1 and 7.10, 2015-01-31 and 1/31/2015), as SQL's
// GROUP BY does: the scan groups by the bytes, the fast way, and the
// groups, far fewer than the rows, are united here once. The united
// group's key is the least of its spellings in byte order, so every
// strategy shows the same. A key that is not its column's kind (which the
// scan does not check) is an ErrKind. Keys written one way only (the
// common case) leave r as it is.
func UniteKeys(r *Result, s *Spec) error {
	g := r.Groups
	if g == nil || len(s.By) == 0 {
		return nil
	}
	kinds := make([]Kind, len(s.By))
	whys := make([]string, len(s.By))
	typed := false
	for j, col := range s.By {
		kinds[j], whys[j] = s.kindOf(col)
		typed = typed || kinds[j] == KindNumber || kinds[j] == KindDate
	}
	if !typed || allPlain(g, s.By, kinds) {
		return nil
	}
	dr, err := newDateReader(s.DateFormats)
	if err != nil {
		return err
	}
	n := g.Len()
	canon := make([]string, n)
	first := make(map[string]int, n) // a canonical key: its group of the least spelling
	united := false
	var b []byte
	for i := range n {
		key := g.keyBytes(i)
		b = b[:0]
		for j := range s.By {
			f := key
			if len(s.By) > 1 {
				f = keyField(key, j)
			}
			c, err := canonField(f, kinds[j], dr)
			if err != nil {
				return fmt.Errorf("group-by column %s, key %s: %w", clipQuote(s.By[j]), clipQuote(string(f)), kindError(s.By[j], kinds[j], whys[j]))
			}
			b = binary.AppendUvarint(b, uint64(len(c)))
			b = append(b, c...)
		}
		canon[i] = string(b)
		if k, ok := first[canon[i]]; !ok {
			first[canon[i]] = i
		} else {
			united = true
			if bytes.Compare(key, g.keyBytes(k)) < 0 {
				first[canon[i]] = i
			}
		}
	}
	if !united {
		return nil
	}
	out := newGroups(g.Slots, g.Need)
	for i := range n {
		out.mergeOneAs(g, i, g.keyBytes(first[canon[i]]))
	}
	r.Groups = out
	return nil
}

// allPlain says whether every key of g is plain (plainNumber) in every
// number column of by, and no column is a date one: no two such keys are
// one number, and each is a number, so UniteKeys has nothing to do. The
// keys of an ID column are all so, and uniting millions of them would
// make a string and a map entry each (docs/experiments.md, 2026-12-07).
func allPlain(g *Groups, by []string, kinds []Kind) bool {
	for _, k := range kinds {
		if k == KindDate {
			return false
		}
	}
	for i := range g.Len() {
		key := g.keyBytes(i)
		for j, k := range kinds {
			f := key
			if len(by) > 1 {
				f = keyField(key, j)
			}
			if k == KindNumber && len(f) > 0 && !plainNumber(f) { // (an empty key, missing, is its own group)
				return false
			}
		}
	}
	return true
}

// plainNumber says whether f is the one spelling canonField gives its
// number: an integer of at most 18 digits without a leading zero, a plus
// sign or spaces ("0", "-7", not "-0" or "007").
func plainNumber(f []byte) bool {
	if len(f) > 1 && f[0] == '-' {
		if f = f[1:]; f[0] == '0' {
			return false
		}
	}
	if len(f) == 0 || len(f) > 18 || f[0] == '0' && len(f) > 1 {
		return false
	}
	for _, c := range f {
		if c-'0' > 9 {
			return false
		}
	}
	return true
}

// canonField is a key field's value as UniteKeys compares it: a number's
// exact decimal without trailing zeros, a date's instant, any other's
// bytes; an error for a number or date column's field that is not one (an
// empty one, missing, is its own group).
func canonField(f []byte, k Kind, dr *dateReader) (string, error) {
	if len(f) == 0 {
		return "", nil
	}
	switch k {
	case KindNumber:
		var text string
		if m, sc, err := ParseFixed(f); err == nil {
			text = Fixed{V: m, Scale: int64(sc)}.String()
		} else if wm, sc, err := parseWide(f); err == nil {
			text = Fixed{C: wm, Scale: int64(sc)}.String()
		} else {
			return "", err
		}
		if strings.Contains(text, ".") {
			text = strings.TrimRight(strings.TrimRight(text, "0"), ".")
		}
		if text == "-0" {
			text = "0"
		}
		return "n" + text, nil
	case KindDate:
		d, ok := dr.parse(f)
		if !ok {
			return "", ErrKind
		}
		return "d" + strconv.FormatInt(d, 10), nil
	}
	return "b" + string(f), nil
}
