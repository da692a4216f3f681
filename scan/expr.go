package scan

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Op is a filter's comparison.
type Op uint8

// The comparisons a filter can make.
const (
	OpEq           Op = iota // =
	OpNe                     // !=
	OpLt                     // <
	OpLe                     // <=
	OpGt                     // >
	OpGe                     // >=
	OpIn                     // in (a list: Cond.Values)
	OpNotIn                  // not in
	OpContains               // ~: the field's bytes hold the value's
	OpPrefix                 // ^=: the field's bytes start with the value's
	OpContainsFold           // ~*: the field holds the value, letter case aside (containsFold)
)

var opNames = [...]string{"=", "!=", "<", "<=", ">", ">=", "in", "not in", "~", "^=", "~*"}

// ordered reports whether o is an order comparison (< <= > >=).
func (o Op) ordered() bool { return o >= OpLt && o <= OpGe }

// compares reports whether o compares a field with one value as its
// column's kind (= != < <= > >=): the ops the fast paths know.
func (o Op) compares() bool { return o <= OpGe }

func (o Op) String() string { return opNames[o] }

// Cond is one filter: the column Col compared with Value by Op.
//
// An empty field (nothing between its delimiters, or "") is a missing
// value: it satisfies COL= (an empty Value, "is missing") and fails every
// other comparison, != included; COL!= (an empty Value) means "is
// present". No comparison fails on a missing value.
//
// = holds for a field whose bytes (after unquoting) are Value's, and, if
// Value is a decimal number or a date, for one that is the same number
// (9.33 = 09.330) or the same day (2015-01-31 = 1/31/2015); != is its
// negation. A field that is not a number or date is compared by its bytes
// alone, never an error. The order comparisons (<, <=, >, >=) compare by
// Value's kind: a decimal number (the grammar in the package comment)
// compares exactly as a decimal, so 5000 < 5000.5 and 7.10 = 7.1; a date
// (M/D/YYYY as the Sales Records write it, YYYY-MM-DD, a date-time, Jan 31
// 2015 …: every form in date.go) compares as a date, whichever form the
// field uses; anything else compares byte for byte (bytes.Compare). In an order comparison by number or date,
// a field that is not one is an error that names its row, never a row
// silently left out. A value that reads as a failed try at a number or
// date (1e3, 1,000, 13/45/2010, 1.2.2005, Jan 2005: see notQuite) is an
// error too, since as bytes it would order numbers and dates wrongly and
// silently.
type Cond struct {
	Col   string
	Op    Op
	Value string
	// Quoted: the value was written in double quotes (COL="1.0"): it is
	// text, compared by its bytes alone, never as a number or a date.
	Quoted bool
	// Values are OpIn's and OpNotIn's list (Value is then unused), each
	// compared as = compares Value.
	Values []string
}

// Eq is the filter col = value, as ParseCond reads "col=value": the
// reference's question (Region=Europe) in Go.
func Eq(col, value string) Cond { return Cond{Col: col, Op: OpEq, Value: value} }

// String is the filter as ParseCond reads it, with the value quoted if it
// has to be.
func (c Cond) String() string {
	if c.Op == OpIn || c.Op == OpNotIn {
		vs := make([]string, len(c.Values))
		for i, v := range c.Values {
			vs[i] = quoteListValue(v)
		}
		return quoteCol(c.Col) + " " + c.Op.String() + " (" + strings.Join(vs, ",") + ")"
	}
	v := c.Value
	if c.Quoted || strings.HasPrefix(v, `"`) || (v != "" && strings.IndexByte("=!<>", v[0]) >= 0) || strings.Trim(v, " ") != v {
		v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
	}
	return quoteCol(c.Col) + c.Op.String() + v
}

// same reports whether c and o are one filter.
func (c Cond) same(o Cond) bool {
	return c.Col == o.Col && c.Op == o.Op && c.Value == o.Value && c.Quoted == o.Quoted && slices.Equal(c.Values, o.Values)
}

// quoteCol is a filter's column as ParseCond reads it back: in double
// quotes if it holds an operator's byte, a quote or " in (".
func quoteCol(col string) string {
	if strings.ContainsAny(col, `=!<>~^"`) || strings.Contains(strings.ToLower(col), " in ") {
		return `"` + strings.ReplaceAll(col, `"`, `""`) + `"`
	}
	return col
}

// quoteListValue is an in list's value as ParseCond reads it back.
func quoteListValue(v string) string {
	if v == "" || strings.ContainsAny(v, `,()"`) || strings.Trim(v, " ") != v {
		return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
	}
	return v
}

// ErrFilter is a filter expression ParseCond cannot read.
var ErrFilter = errors.New("bad filter")

// ParseCond reads a filter expression: COLUMN OP VALUE, OP one of = != < <=
// > >=. The column ends at the first of the bytes = ! < > (spaces around it
// are trimmed); a column whose name holds one of them is written in double
// quotes, "" standing for a quote ("a<b"<5). The value is every byte after
// the operator but the spaces around it (commas, = and all), so Note=a,b=c
// has the value "a,b=c" and Region = Europe the value "Europe"; a value in
// double quotes is unquoted the same way ("" for a quote), which is how to
// write one with spaces at either end, or that starts with a quote or with
// one of = ! < > (Note="=x" has the value "=x"). Such a value unquoted is
// an error, so that a mistyped operator (=>, =<) is not taken for a value,
// and so is an order comparison's value bindCond declines (see Cond).
func ParseCond(s string) (Cond, error) { return parseCond(s, false, nil) }

// ParseCondDecimalComma is ParseCond for inputs whose numbers are written
// with a decimal comma (Transcoding.DecimalComma): an unquoted value that
// is such a number (amount>1,5) is read as the inputs' fields are (1.5).
func ParseCondDecimalComma(s string) (Cond, error) { return parseCond(s, true, nil) }

// ParseCondDates is ParseCond for a query with --date-format: a value
// in one of formats is a date, not a try at one; decimalComma as
// ParseCondDecimalComma. A bad format is an error.
func ParseCondDates(s string, decimalComma bool, formats []string) (Cond, error) {
	dr, err := newDateReader(formats)
	if err != nil {
		return Cond{}, err
	}
	return parseCond(s, decimalComma, dr)
}

// opList is the operators, for messages.
const opList = "= != < <= > >= ~ ~* ^="

// parseIn reads the list of COLUMN [not] in (V1, V2, …) (s the whole
// filter, for messages): values separated by commas, spaces around each
// trimmed, a value with a comma, a parenthesis, a quote or spaces at its
// ends in double quotes; none empty.
func parseIn(s, col string, not bool, list string, decimalComma bool) (Cond, error) {
	c := Cond{Col: col, Op: OpIn}
	if not {
		c.Op = OpNotIn
	}
	if col == "" {
		return c, fmt.Errorf("%w %s: no column before in", ErrFilter, clipQuote(s))
	}
	values, err := splitList(list, "value")
	if err != nil {
		return c, fmt.Errorf("%w %s: %v (a missing value is COL=, never in a list)", ErrFilter, clipQuote(s), err)
	}
	for _, v := range values {
		if j := decimalCommaAt([]byte(v)); decimalComma && j >= 0 {
			v = v[:j] + "." + v[j+1:]
		}
		c.Values = append(c.Values, v)
	}
	return c, nil
}

// inList is COLUMN [not] in (…) in a filter: the column (unquoted
// form), "not ", and the list between the parentheses. It is compiled on
// first use: every process start would pay for it otherwise.
var inList = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)^(.*?)\s+(not\s+)?in\s*\((.*)\)\s*$`)
})

func parseCond(s string, decimalComma bool, dr *dateReader) (Cond, error) {
	var c Cond
	rest := strings.TrimLeft(s, " ")
	if strings.HasPrefix(rest, `"`) {
		name, after, ok := unquoteExpr(rest)
		if !ok {
			return c, fmt.Errorf("%w %s: the column's quote is not closed", ErrFilter, clipQuote(s))
		}
		c.Col, rest = name, strings.TrimLeft(after, " ")
		if m := inList().FindStringSubmatch("x " + rest); m != nil && m[1] == "x" {
			return parseIn(s, c.Col, m[2] != "", m[3], decimalComma)
		}
	} else {
		if m := inList().FindStringSubmatch(rest); m != nil && !strings.ContainsAny(m[1], "=!<>~^") {
			return parseIn(s, strings.TrimSpace(m[1]), m[2] != "", m[3], decimalComma)
		}
		i := strings.IndexAny(rest, "=!<>~^")
		if i < 0 {
			return c, fmt.Errorf("%w %s: want COLUMN OP VALUE, OP one of %s, or COLUMN in (V1,V2,…)", ErrFilter, clipQuote(s), opList)
		}
		c.Col, rest = strings.TrimRight(rest[:i], " "), rest[i:]
	}
	if c.Col == "" {
		return c, fmt.Errorf("%w %s: no column before the operator", ErrFilter, clipQuote(s))
	}
	switch {
	case strings.HasPrefix(rest, "^="):
		c.Op, rest = OpPrefix, rest[2:]
	case strings.HasPrefix(rest, "~*"):
		c.Op, rest = OpContainsFold, rest[2:]
	case strings.HasPrefix(rest, "~"):
		c.Op, rest = OpContains, rest[1:]
	case strings.HasPrefix(rest, "!="):
		c.Op, rest = OpNe, rest[2:]
	case strings.HasPrefix(rest, "<="):
		c.Op, rest = OpLe, rest[2:]
	case strings.HasPrefix(rest, ">="):
		c.Op, rest = OpGe, rest[2:]
	case strings.HasPrefix(rest, "="):
		c.Op, rest = OpEq, rest[1:]
	case strings.HasPrefix(rest, "<"):
		c.Op, rest = OpLt, rest[1:]
	case strings.HasPrefix(rest, ">"):
		c.Op, rest = OpGt, rest[1:]
	default:
		at := min(len(rest), 10)
		return c, fmt.Errorf("%w %s: want an operator (%s) after the column, got %s", ErrFilter, clipQuote(s), opList, clipQuote(rest[:at]))
	}
	rest = strings.Trim(rest, " ")
	if strings.HasPrefix(rest, `"`) {
		v, after, ok := unquoteExpr(rest)
		if !ok || after != "" {
			return c, fmt.Errorf("%w %s: a quoted value must end with its closing quote", ErrFilter, clipQuote(s))
		}
		rest, c.Quoted = v, true
	} else if rest != "" && strings.IndexByte("=!<>", rest[0]) >= 0 {
		return c, fmt.Errorf("%w %s: a value that starts with = ! < or > must be quoted (%s%s\"%s\"), so that a mistyped operator such as => is not taken for a value",
			ErrFilter, clipQuote(s), c.Col, c.Op, strings.ReplaceAll(rest, `"`, `""`))
	}
	if i := decimalCommaAt([]byte(rest)); decimalComma && !c.Quoted && i >= 0 {
		rest = rest[:i] + "." + rest[i+1:]
	}
	c.Value = rest
	if c.Op != OpEq && c.Op != OpNe && c.Value == "" {
		return c, fmt.Errorf("%w %s: %s needs a value", ErrFilter, clipQuote(s), c.Op)
	}
	if _, ok := dr.parse([]byte(c.Value)); ok && dr != nil {
		return c, nil // a date in a form the query gives
	}
	if _, err := bindCond(c); err != nil {
		return c, err
	}
	return c, nil
}

// unquoteExpr reads a double-quoted string at the start of s ("" for a
// quote) and returns it and what follows the closing quote.
func unquoteExpr(s string) (string, string, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '"' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '"' {
			b.WriteByte('"')
			i++
			continue
		}
		return b.String(), s[i+1:], true
	}
	return "", "", false
}

// ParseList splits a comma-separated list of column names, trimming spaces
// around each; a name holding a comma is written in double quotes, "" for a
// quote ("Cost, total",Units Sold). Empty names are an error.
func ParseList(s string) ([]string, error) {
	out, err := splitList(s, "column name")
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", clipQuote(s), err)
	}
	return out, nil
}

// splitList splits s at its commas, trimming spaces around each item; an
// item holding a comma is written in double quotes, "" for a quote. An
// empty item is an error naming what an item is (what).
func splitList(s, what string) ([]string, error) {
	var out []string
	rest := s
	for {
		rest = strings.TrimLeft(rest, " ")
		var item string
		if strings.HasPrefix(rest, `"`) {
			n, after, ok := unquoteExpr(rest)
			if !ok {
				return nil, errors.New("a quote is not closed")
			}
			after = strings.TrimLeft(after, " ")
			if after != "" && after[0] != ',' {
				return nil, fmt.Errorf("want a comma after the quoted %s %s", what, clipQuote(n))
			}
			item, rest = n, after
		} else {
			i := strings.IndexByte(rest, ',')
			if i < 0 {
				i = len(rest)
			}
			item, rest = strings.TrimRight(rest[:i], " "), rest[i:]
		}
		if item == "" {
			return nil, fmt.Errorf("an empty %s", what)
		}
		out = append(out, item)
		if rest == "" {
			return out, nil
		}
		rest = rest[1:] // the comma
	}
}

// kind is how an order comparison compares.
type kind uint8

const (
	kindBytes kind = iota
	kindNumber
	kindDate
)

// cond is a Cond bound to a header: the field it reads (an index into the
// binding's fields) and its value in the form its kind compares.
type cond struct {
	fi    int
	op    Op
	kind  kind
	val   []byte
	m     int64 // kindNumber: Value's mantissa and scale
	s     int
	wm    wide  // kindNumber: Value's mantissa as a wide, whatever its length
	wide  bool  // kindNumber: the mantissa has more than 18 digits (m unset)
	day   int64 // kindDate: parseDate's
	name  string
	field int // column index, for errors
	// ckind is the column's kind (KindAuto: each field read as it looks);
	// a number or date column's present fields must be numbers or dates
	// (an ErrKind otherwise), and why says how that was decided.
	ckind Kind
	why   string
	// dates reads a date column's values (nil: parseDate's forms)
	dates *dateReader
	// list is OpIn's and OpNotIn's values, each an OpEq cond
	list []cond
}

// parseDate reads b as c's column reads a date: with the query's
// formats in a number or date column, parseDate's forms otherwise.
func (c *cond) parseDate(b []byte) (int64, bool) {
	if c.ckind == KindAuto {
		return parseDate(b)
	}
	return c.dates.parse(b)
}

// bindCond reads c's value as a number, else a date, else bytes (see
// Cond). = and != take any value (one that is neither compares as bytes
// alone, whatever it looks like); an order comparison's that overflows or
// that notQuite declines is an ErrFilter.
func bindCond(c Cond) (cond, error) { return bindKind(c, KindAuto, "", nil) }

// bindKind is bindCond for a column of kind ck (why: how it was decided):
// a text column's filter compares bytes whatever its value; a number or
// date column's value must be a number or a date, and so must every
// present field it is compared with (strict). KindAuto is bindCond's rule.
func bindKind(c Cond, ck Kind, why string, dr *dateReader) (cond, error) {
	k := cond{op: c.Op, val: []byte(c.Value), ckind: ck, why: why, dates: dr}
	switch c.Op {
	case OpContains, OpPrefix, OpContainsFold: // the field's bytes as written, in any column
		k.ckind = KindAuto
		if len(k.val) == 0 {
			return k, fmt.Errorf("%w %s: %s needs a value", ErrFilter, clipQuote(c.String()), c.Op)
		}
		return k, nil
	case OpIn, OpNotIn: // = of each value, as the column's kind reads it
		if len(c.Values) == 0 {
			return k, fmt.Errorf("%w %s: an empty list", ErrFilter, clipQuote(c.String()))
		}
		for _, v := range c.Values {
			if v == "" {
				return k, fmt.Errorf("%w %s: an empty value in the list", ErrFilter, clipQuote(c.String()))
			}
			e, err := bindKind(Cond{Col: c.Col, Op: OpEq, Value: v}, ck, why, dr)
			if err != nil {
				return k, err
			}
			k.list = append(k.list, e)
		}
		return k, nil
	}
	if c.Quoted {
		k.ckind = KindAuto // text: bytes alone, in any column
		return k, nil
	}
	if ck == KindText {
		if vk := valueKindIn(k.val, dr); c.Op.ordered() && vk != KindText {
			return k, fmt.Errorf("%w %s: %s is a text column (%s), which orders by bytes (10 before 9): quote the value to compare bytes ('%s'), or --types '%s=%s' reads the column as %ss",
				ErrFilter, clipQuote(c.String()), clipQuote(c.Col), why, Cond{Col: c.Col, Op: c.Op, Value: c.Value, Quoted: true}, c.Col, vk, vk)
		}
		return k, nil // text: bytes alone
	}
	order := c.Op != OpEq && c.Op != OpNe
	if ck != KindAuto && c.Value == "" {
		return k, nil // COL= and COL!=: missing or present
	}
	m, s, err := ParseFixed(k.val)
	if errors.Is(err, ErrOverflow) {
		if wm, ws, werr := parseWide(k.val); werr == nil {
			k.kind, k.wm, k.s, k.wide = kindNumber, wm, ws, true
			return k, checkKind(c, k, ck, why)
		}
	}
	if err == nil {
		k.kind, k.m, k.s, k.wm = kindNumber, m, s, wideOf(m)
	} else if (order || ck == KindNumber) && errors.Is(err, ErrOverflow) {
		return k, fmt.Errorf("%w %s: %v", ErrFilter, clipQuote(c.String()), err)
	} else if d, ok := k.parseDate(k.val); ok {
		k.kind, k.day = kindDate, d
	} else if order && ck == KindAuto {
		if why := notQuite(c.Value); why != "" {
			return k, fmt.Errorf("%w %s: %s", ErrFilter, clipQuote(c.String()), why)
		}
	}
	return k, checkKind(c, k, ck, why)
}

// checkKind is the error of a filter whose value k does not read as its
// column's kind ck (nil for KindAuto, or a value that does).
func checkKind(c Cond, k cond, ck Kind, why string) error {
	switch {
	case ck == KindNumber && k.kind != kindNumber:
		return fmt.Errorf("%w %s: %s is a number column (%s), and %s is not a number", ErrFilter, clipQuote(c.String()), clipQuote(c.Col), why, clipQuote(c.Value))
	case ck == KindDate && k.kind != kindDate:
		return fmt.Errorf("%w %s: %s is a date column (%s), and %s is not a date (%s)", ErrFilter, clipQuote(c.String()), clipQuote(c.Col), why, clipQuote(c.Value), k.dates.forms())
	}
	return nil
}

// notQuite says why v, an order comparison's value that is neither a
// number nor a date, reads as a try at one ("" if it does not): what
// datish reads as a date that parseDate does not (13/45/2010, 2015-02-30,
// 1.2.2005, Jan 2005), a number or date with spaces at its ends, or bytes
// that start as a number does and
// hold nothing but digits, signs, points, e, commas, spaces and _ (1e3,
// 1,000, 5 000). Compared as bytes, such a value would put "10" before "9".
// Any other value (5k, 3-Pack, Europe) compares as bytes.
func notQuite(v string) string {
	t := strings.Trim(v, " ")
	if t != v && t != "" {
		if _, _, err := parseWide([]byte(t)); err == nil {
			return "a number with spaces at its ends (write it without them)"
		}
		if _, ok := parseDate([]byte(t)); ok {
			return "a date with spaces at its ends (write it without them)"
		}
	}
	if datish(t) {
		return "not a calendar day in a form parlab knows, though it reads as a date (" + dateForms + ")"
	}
	start := strings.TrimLeft(t, "+-.")
	if len(start) < len(t)-2 || start == "" || start[0]-'0' > 9 || strings.Trim(t, "0123456789+-.eE,_ ") != "" {
		return ""
	}
	return "neither a decimal number ([+-]digits[.digits][e[+-]digits], no separators) nor a date; as bytes it would put 10 before 9"
}

// ErrNotComparable is a field that an order comparison cannot compare: not
// a number where the filter's value is one, or not a date.
var ErrNotComparable = errors.New("field cannot be compared")

// test reports whether field f (unquoted) passes the filter. An empty
// field is a missing value (SQL's NULL): it satisfies COL= (the empty
// value) and fails every other comparison, != included, without an error;
// COL!= holds for any field that is present. So no filter fails on a
// missing value, and filters AND in any order.
func (c *cond) test(f []byte) (bool, error) {
	if len(f) == 0 {
		return c.op == OpEq && len(c.val) == 0, nil
	}
	var r int
	switch c.op {
	case OpContains:
		return bytes.Contains(f, c.val), nil
	case OpContainsFold:
		return containsFold(f, c.val), nil
	case OpPrefix:
		return bytes.HasPrefix(f, c.val), nil
	case OpIn, OpNotIn:
		for i := range c.list {
			ok, err := c.list[i].test(f)
			if err != nil {
				return false, err
			}
			if ok {
				return c.op == OpIn, nil
			}
		}
		return c.op == OpNotIn, nil
	}
	if c.ckind == KindNumber || c.ckind == KindDate {
		return c.testStrict(f)
	}
	switch c.op {
	case OpEq:
		return c.equal(f), nil
	case OpNe:
		return !c.equal(f), nil
	}
	switch c.kind {
	case kindNumber:
		var err error
		if r, err = c.cmpNum(f); err != nil {
			return false, fmt.Errorf("%w: %s is compared as a number (%s %s): %w", ErrNotComparable, clipQuote(string(f)), c.op, c.val, err)
		}
	case kindDate:
		d, ok := parseDate(f)
		if !ok {
			return false, fmt.Errorf("%w: %s is compared as a date (%s %s) but is not one (%s)", ErrNotComparable, clipQuote(string(f)), c.op, c.val, dateForms)
		}
		r = cmpInt(d, c.day)
	default:
		r = bytes.Compare(f, c.val)
	}
	return c.op.holds(r), nil
}

// holds says whether a comparison's result r (as cmp.Compare's) passes o.
func (o Op) holds(r int) bool {
	switch o {
	case OpEq:
		return r == 0
	case OpNe:
		return r != 0
	case OpLt:
		return r < 0
	case OpLe:
		return r <= 0
	case OpGt:
		return r > 0
	}
	return r >= 0
}

// testStrict is test for a number or date column: f, present, must be a
// number or a date (ErrKind), and compares as one.
func (c *cond) testStrict(f []byte) (bool, error) {
	var r int
	if len(c.val) == 0 { // COL= or COL!= (f is present)
		return c.op == OpNe, nil
	}
	if c.ckind == KindNumber {
		var err error
		if r, err = c.cmpNum(f); err != nil {
			return false, kindError(c.name, c.ckind, c.why)
		}
	} else {
		d, ok := c.dates.parse(f)
		if !ok {
			return false, kindError(c.name, c.ckind, c.why)
		}
		r = cmpInt(d, c.day)
	}
	return c.op.holds(r), nil
}

// equal is = of Cond: f's bytes are the value's, or both are the same
// number or the same day. A field that is not a number (or a date) is
// compared by its bytes alone, never an error.
func (c *cond) equal(f []byte) bool {
	if string(f) == string(c.val) {
		return true
	}
	switch c.kind {
	case kindNumber:
		r, err := c.cmpNum(f)
		return err == nil && r == 0
	case kindDate:
		d, ok := parseDate(f)
		return ok && d == c.day
	}
	return false
}

// cmpNum compares the number f with c's value (kindNumber), or says why f
// is not a number.
func (c *cond) cmpNum(f []byte) (int, error) {
	if !c.wide {
		m, s, err := ParseFixed(f)
		if err == nil {
			return cmpDec(m, s, c.m, c.s), nil
		}
		if !errors.Is(err, ErrOverflow) {
			return 0, err
		}
	}
	wm, ws, err := parseWide(f)
	if err != nil {
		return 0, err
	}
	return cmpWide(wm, ws, c.wm, c.s), nil
}

// leadOK says whether c can lead the fast paths (bulk's sp bits, a
// hotWalk filter): = of bytes (a value neither a number nor a date), not
// empty, not starting with CR, with no delimiter (sep), quote or LF
// (which a bare field cannot hold).
func (c *cond) leadOK(sep byte) bool {
	return c.op == OpEq && c.list == nil && c.kind == kindBytes && len(c.val) > 0 && c.val[0] != '\r' &&
		bytes.IndexByte(c.val, sep) < 0 && !bytes.ContainsAny(c.val, "\"\n")
}

// preOK says whether c can turn rows away before the general path
// (takeRow, see general.pre): contains, starts with, contains any case, or
// in a list of values that each could lead (leadOK), none of which errs
// on a field of any kind.
func (c *cond) preOK(sep byte) bool {
	switch c.op {
	case OpContains, OpContainsFold, OpPrefix:
		return len(c.val) > 0
	case OpIn:
		for i := range c.list {
			if !c.list[i].leadOK(sep) {
				return false
			}
		}
		return len(c.list) > 0
	}
	return false
}

// pre is c's test of a bare field f (quote-free, so its bytes are its
// value) where preOK: what test says, with no error to give.
func (c *cond) pre(f []byte) bool {
	switch c.op {
	case OpContains:
		return bytes.Contains(f, c.val)
	case OpContainsFold:
		return containsFold(f, c.val)
	case OpPrefix:
		return bytes.HasPrefix(f, c.val)
	}
	for i := range c.list { // OpIn
		if string(f) == string(c.list[i].val) {
			return true
		}
	}
	return false
}

func cmpInt(a, b int64) int { return cmp.Compare(a, b) }

// cmpDec compares a·10^-sa with b·10^-sb exactly (scales at most MaxScale):
// the one with the smaller scale is brought to the larger in 128 bits, or,
// scales more than 18 apart, in a wide (cmpWide).
func cmpDec(a int64, sa int, b int64, sb int) int {
	if sa == sb {
		return cmpInt(a, b)
	}
	if sa-sb > maxPow || sb-sa > maxPow {
		return cmpWide(wideOf(a), sa, wideOf(b), sb)
	}
	if (a < 0) != (b < 0) {
		if a < 0 {
			return -1
		}
		return 1
	}
	// Same sign: compare magnitudes, then flip for negatives.
	neg := a < 0
	ua, ub := uint64(a), uint64(b)
	if neg {
		ua, ub = -ua, -ub
	}
	var ah, al, bh, bl uint64
	if sa < sb {
		ah, al = bits.Mul64(ua, uint64(pow10[sb-sa]))
		bl = ub
	} else {
		bh, bl = bits.Mul64(ub, uint64(pow10[sa-sb]))
		al = ua
	}
	r := cmp.Compare(ah, bh)
	if r == 0 {
		r = cmp.Compare(al, bl)
	}
	if neg {
		return -r
	}
	return r
}

// containsFold reports whether f holds v, letter case aside: from some
// rune of f on, each of v's runes equals f's next one under Unicode's
// simple case folding (as strings.EqualFold compares; "straße" holds
// "STRASSE" not, "ſ" and "s" and "S" are one letter). A byte that is not
// UTF-8 equals only itself.
func containsFold(f, v []byte) bool {
	for i := 0; ; {
		if prefixFold(f[i:], v) {
			return true
		}
		if i >= len(f) {
			return false
		}
		_, n := utf8.DecodeRune(f[i:])
		i += n
	}
}

// prefixFold reports whether f starts with v, letter case aside (see
// containsFold).
func prefixFold(f, v []byte) bool {
	for len(v) > 0 {
		if len(f) == 0 {
			return false
		}
		a, b := f[0], v[0]
		if a < utf8.RuneSelf && b < utf8.RuneSelf { // ASCII: its letters fold only to each other
			if a != b && (a|0x20 != b|0x20 || a|0x20 < 'a' || a|0x20 > 'z') {
				return false
			}
			f, v = f[1:], v[1:]
			continue
		}
		r, n := utf8.DecodeRune(f)
		s, m := utf8.DecodeRune(v)
		if r == utf8.RuneError && n == 1 || s == utf8.RuneError && m == 1 {
			if n != m || a != b { // a byte that is not UTF-8: itself only
				return false
			}
		} else if !runeFold(r, s) {
			return false
		}
		f, v = f[n:], v[m:]
	}
	return true
}

// runeFold reports whether r and s are one letter under simple case
// folding: s is in r's orbit of unicode.SimpleFold.
func runeFold(r, s rune) bool {
	if r == s {
		return true
	}
	for t := unicode.SimpleFold(r); t != r; t = unicode.SimpleFold(t) {
		if t == s {
			return true
		}
	}
	return false
}
