package scan

// The slow, obviously correct reference: a byte-at-a-time reader of the
// grammar in doc.go reads the records, math/big adds the numbers, a regular
// expression says what a number is. Every fast path in this package is
// checked against it. (It once used encoding/csv, which rewrites a quoted
// CR LF as LF; the dialect keeps a quoted field's bytes as they are.)

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

var refNumber = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,3})?$`)

type refSum struct {
	v     *big.Int
	scale int
}

type refAnswer struct {
	rows, matched int64
	sums          []refSum
	skipped       []int64 // per sum, the matching rows whose value was missing (empty)
}

// pow10big is 10^n, a new Int each call; the powers are made once.
func pow10big(n int) *big.Int {
	pow10bigOnce.Do(func() {
		for i := range pow10bigs {
			pow10bigs[i] = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(i)), nil)
		}
	})
	if n < len(pow10bigs) {
		return new(big.Int).Set(pow10bigs[n])
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

var (
	pow10bigOnce sync.Once
	pow10bigs    [80]*big.Int
)

// add follows the documented rule: a value has at most MaxDigits
// significant digits and MaxScale after the point, once its exponent is
// applied; a sum is exact and unbounded.
func (s *refSum) add(text string) error {
	text = strings.Trim(text, " \t") // spaces and tabs around a number
	if !refNumber.MatchString(text) {
		return ErrSyntax
	}
	neg := strings.HasPrefix(text, "-")
	text = strings.TrimLeft(text, "+-")
	text, exp, hasExp := strings.Cut(strings.ToLower(text), "e")
	ip, fp, _ := strings.Cut(text, ".")
	m, _ := new(big.Int).SetString("0"+ip+fp, 10)
	if neg {
		m.Neg(m)
	}
	scale := len(fp)
	if hasExp {
		x, _ := strconv.Atoi(exp)
		if scale -= x; scale < 0 {
			m.Mul(m, pow10big(-scale))
			scale = 0
		}
	}
	// the mantissa's digits, its leading zeros not counted but its
	// trailing ones (1.50 is 150 at scale 2: 3 digits): more than
	// MaxDigits of them iff |m| >= 10^MaxDigits
	if new(big.Int).Abs(m).Cmp(pow10big(MaxDigits)) >= 0 || scale > MaxScale {
		return ErrOverflow
	}
	fp = strings.Repeat("0", scale) // (only its length counts below)
	sc := max(s.scale, len(fp))
	acc := new(big.Int).Set(s.v)
	if sc > s.scale {
		acc.Mul(acc, pow10big(sc-s.scale))
	}
	if sc > len(fp) {
		m.Mul(m, pow10big(sc-len(fp)))
	}
	s.v, s.scale = acc.Add(acc, m), sc
	return nil
}

func (s refSum) String() string {
	// formatted independently of Fixed.Append: big.Int text, then the point
	t := new(big.Int).Abs(s.v).String()
	for len(t) <= s.scale {
		t = "0" + t
	}
	if s.scale > 0 {
		t = t[:len(t)-s.scale] + "." + t[len(t)-s.scale:]
	}
	if s.v.Sign() < 0 {
		t = "-" + t
	}
	return t
}

type refFile struct {
	name string
	data []byte
}

// refQuery answers q over files the slow way. Its errors wrap the scan
// package's sentinels so tests can compare kinds.
func refQuery(files []refFile, q Query, ans *refAnswer) error {
	if len(q.Filters) > 1 || len(q.Filters) == 1 && q.Filters[0].Op != OpEq {
		return fmt.Errorf("refQuery answers at most one = filter, got %v", q.Filters) // (refGeneral the rest)
	}
	var where Cond // (no Col: no filter)
	if len(q.Filters) == 1 {
		where = q.Filters[0]
	}
	sumNames := q.Sum
	if sumNames == nil {
		sumNames = DefaultSums
	}
	if ans.sums == nil {
		for range sumNames {
			ans.sums = append(ans.sums, refSum{v: new(big.Int)})
			ans.skipped = append(ans.skipped, 0)
		}
	}
	for _, f := range files {
		if len(f.data) >= 2 && (f.data[0] == 0xFF && f.data[1] == 0xFE || f.data[0] == 0xFE && f.data[1] == 0xFF) {
			return ErrUTF16 // UTF-16's byte order mark
		}
		r := &refReader{data: bytes.TrimPrefix(f.data, bom), comma: sepOf(f.name)}
		header, err := r.Read()
		if err == io.EOF {
			return ErrNoHeader
		}
		if err != nil {
			return err
		}
		for i, h := range header { // an empty header cell is named by its position
			if h == "" {
				header[i] = fmt.Sprintf("column%d", i)
			}
		}
		col := func(name string) (int, error) { return refCol(header, name) }
		filter := -1
		if where.Col != "" {
			if filter, err = col(where.Col); err != nil {
				return err
			}
		}
		var sumCols []int
		for _, n := range sumNames {
			c, err := col(n)
			if err != nil {
				return err
			}
			sumCols = append(sumCols, c)
		}
		order := make([]int, len(sumCols))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return sumCols[order[a]] < sumCols[order[b]] })
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			ans.rows++
			if filter >= 0 {
				if len(rec) <= filter {
					return ErrShortRow
				}
				if !refEqual(where.Value, rec[filter]) { // a number or date: the same one written otherwise too
					continue
				}
			}
			ans.matched++
			for _, c := range sumCols {
				if len(rec) <= c {
					return ErrShortRow
				}
			}
			// values are parsed in column order, as the scanner walks a row
			for _, i := range order {
				if rec[sumCols[i]] == "" { // missing: skipped
					ans.skipped[i]++
					continue
				}
				if err := ans.sums[i].add(rec[sumCols[i]]); err != nil {
					return fmt.Errorf("%s: %w", f.name, err)
				}
			}
		}
	}
	return nil
}

// sameKind reports whether the scanner's error and the reference's are the
// same kind of fault.
func sameKind(got, want error) bool {
	pairs := [][2]error{
		{ErrQuote, ErrQuote}, {ErrBareQuote, ErrBareQuote},
		{ErrSyntax, ErrSyntax}, {ErrOverflow, ErrOverflow}, {ErrShortRow, ErrShortRow},
		{ErrNoHeader, ErrNoHeader}, {ErrColumn, ErrColumn}, {ErrDupColumn, ErrDupColumn},
		{ErrFilter, ErrFilter}, {ErrNotComparable, ErrNotComparable}, {ErrDupSum, ErrDupSum}, {ErrUTF16, ErrUTF16},
		{ErrKind, ErrKind}, {errSumKind, errRefSumKind},
	}
	for _, p := range pairs {
		if errors.Is(got, p[0]) && errors.Is(want, p[1]) {
			return true
		}
	}
	return false
}

// refReader reads the records of doc.go's grammar one byte at a time:
//
//	record = field { "," field } ( LF | CRLF | end-of-input )
//	blank  = LF | CRLF (or a lone CR at the end of the input)
//	quoted = DQUOTE { any byte but DQUOTE | DQUOTE DQUOTE } DQUOTE
//	bare   = { any byte but "," LF DQUOTE }
//
// A quoted field's bytes are kept as they are (CR and LF included), a
// doubled quote standing for one. A CR just before a record's LF, or at the
// very end of the input, ends the line and is not part of the last field.
// refQuoted reports whether the quote at d[p] opens a quoted field that
// closes: its closing quote followed by sep, a line end or the end. (In a
// TSV any other field that starts with a quote is bare: TSV knows no
// quotes.)
func refQuoted(d []byte, p int, sep byte) bool {
	for i := p + 1; i < len(d); i++ {
		if d[i] != '"' {
			continue
		}
		if i+1 < len(d) && d[i+1] == '"' {
			i++
			continue
		}
		rest := d[i+1:]
		return len(rest) == 0 || rest[0] == sep || rest[0] == '\n' || rest[0] == '\r' && (len(rest) == 1 || rest[1] == '\n')
	}
	return false
}

type refReader struct {
	data  []byte
	pos   int
	comma byte // the delimiter; 0: ','
}

func (r *refReader) Read() ([]string, error) {
	d := r.data
	for { // blank lines are not records
		switch {
		case r.pos < len(d) && d[r.pos] == '\n':
			r.pos++
			continue
		case r.pos+1 < len(d) && d[r.pos] == '\r' && d[r.pos+1] == '\n':
			r.pos += 2
			continue
		case r.pos+1 == len(d) && d[r.pos] == '\r':
			r.pos++
		}
		break
	}
	if r.pos >= len(d) {
		return nil, io.EOF
	}
	sep := r.comma
	if sep == 0 {
		sep = ','
	}
	var rec []string
	for {
		var field []byte
		if r.pos < len(d) && d[r.pos] == '"' && (sep != '\t' || refQuoted(d, r.pos, sep)) {
			open := r.pos
			r.pos++
			for {
				if r.pos >= len(d) {
					r.pos = open         // (where a reader that skips bad rows goes on from: the next line)
					return nil, ErrQuote // never closed
				}
				c := d[r.pos]
				r.pos++
				if c != '"' {
					field = append(field, c)
					continue
				}
				if r.pos < len(d) && d[r.pos] == '"' {
					field = append(field, '"')
					r.pos++
					continue
				}
				break // the closing quote
			}
			rec = append(rec, string(field))
			switch {
			case r.pos == len(d):
				return rec, nil
			case d[r.pos] == sep:
				r.pos++
				continue
			case d[r.pos] == '\n':
				r.pos++
				return rec, nil
			case d[r.pos] == '\r' && r.pos+1 == len(d):
				r.pos++
				return rec, nil
			case d[r.pos] == '\r' && d[r.pos+1] == '\n':
				r.pos += 2
				return rec, nil
			}
			return nil, ErrQuote // something after the closing quote
		}
		for r.pos < len(d) && d[r.pos] != sep && d[r.pos] != '\n' {
			if d[r.pos] == '"' && sep != '\t' { // (in a TSV's bare field, a byte of it)
				return nil, ErrBareQuote
			}
			field = append(field, d[r.pos])
			r.pos++
		}
		if r.pos < len(d) && d[r.pos] == sep {
			rec = append(rec, string(field))
			r.pos++
			continue
		}
		// the last field: LF or the end of the input; a CR before either is not part of it
		if n := len(field); n > 0 && field[n-1] == '\r' {
			field = field[:n-1]
		}
		rec = append(rec, string(field))
		if r.pos < len(d) {
			r.pos++ // the LF
		}
		return rec, nil
	}
}
