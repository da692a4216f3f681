package scan

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"parlab/data"
)

func TestParseFixed(t *testing.T) {
	tests := []struct {
		in    string
		mant  int64
		scale int
		err   error
	}{
		{"0", 0, 0, nil},
		{"7", 7, 0, nil},
		{"3.5", 35, 1, nil},
		{"0.25", 25, 2, nil},
		{"-12.50", -1250, 2, nil},
		{"+2.", 2, 0, nil},
		{".5", 5, 1, nil},
		{"-.05", -5, 2, nil},
		{"00001.10", 110, 2, nil},
		{"9223372036854775807", math.MaxInt64, 0, nil},
		{"-9223372036854775807", -math.MaxInt64, 0, nil},
		{"922337203685477580.7", math.MaxInt64, 1, nil},
		{"0.000000000000000001", 1, 18, nil},
		{"0000000000000000000000000012", 12, 0, nil},
		{"9223372036854775808", 0, 0, ErrOverflow},
		{"99999999999999999999", 0, 0, ErrOverflow},
		{"0.0000000000000000001", 1, 19, nil},
		{"-0.00000000000000000000000000000000000001", -1, 38, nil},
		{"0.000000000000000000000000000000000000001", 0, 0, ErrOverflow}, // 39 after the point
		{"", 0, 0, ErrSyntax},
		{"-", 0, 0, ErrSyntax},
		{".", 0, 0, ErrSyntax},
		{"1.2.3", 0, 0, ErrSyntax},
		{"1e5", 100000, 0, nil},
		{"1.5E-3", 15, 4, nil},
		{"-2.50e+2", -250, 0, nil},
		{"1.25e1", 125, 1, nil},
		{"9.2e18", 9200000000000000000, 0, nil},
		{"9.3e18", 0, 0, ErrOverflow},
		{"1e-19", 1, 19, nil},
		{"1e-38", 1, 38, nil},
		{"1e-39", 0, 0, ErrOverflow},
		{"1e", 0, 0, ErrSyntax},
		{"e5", 0, 0, ErrSyntax},
		{"1e1000", 0, 0, ErrSyntax},
		{"1e5.5", 0, 0, ErrSyntax},
		{"1ee5", 0, 0, ErrSyntax},
		{" 1", 1, 0, nil}, // spaces and tabs around a number
		{"\t-2.5 ", -25, 1, nil},
		{" 1e5\t", 100000, 0, nil},
		{" ", 0, 0, ErrSyntax},
		{"1 2", 0, 0, ErrSyntax},
		{"1 e5", 0, 0, ErrSyntax},
		{"1e 5", 0, 0, ErrSyntax},
		{"- 1", 0, 0, ErrSyntax},
		{"1\n", 0, 0, ErrSyntax},
		{"1,000", 0, 0, ErrSyntax},
		{"--1", 0, 0, ErrSyntax},
		{"$5", 0, 0, ErrSyntax},
	}
	for _, tt := range tests {
		m, s, err := ParseFixed([]byte(tt.in))
		if err != tt.err || (err == nil && (m != tt.mant || s != tt.scale)) {
			t.Errorf("ParseFixed(%q) = %d, %d, %v; want %d, %d, %v", tt.in, m, s, err, tt.mant, tt.scale, tt.err)
		}
	}
}

// parseWide reads every number of up to 38 significant digits, at most 38
// after the point once the exponent is applied.
func TestParseWide(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // the mantissa in decimal, "" for an error
		sc   int
		err  error
	}{
		{"7", "7", 0, nil},
		{"9223372036854775808", "9223372036854775808", 0, nil},
		{"-99999999999999999999999999999999999999", "-99999999999999999999999999999999999999", 0, nil},
		{"999999999999999999999999999999999999999", "", 0, ErrOverflow},
		{"0000000000000000000000000000000000000000012.5", "125", 1, nil},
		{"12345678901234567890.123456789012345678", "12345678901234567890123456789012345678", 18, nil},
		{"1.0000000000000000000", "10000000000000000000", 19, nil},
		{"0.12345678901234567890123456789012345678", "12345678901234567890123456789012345678", 38, nil},
		{"1.2345678901234567890123456789012345678", "12345678901234567890123456789012345678", 37, nil},
		{"1.23456789012345678901234567890123456789", "", 0, ErrOverflow},  // 39 digits
		{"0.000000000000000000000000000000000000001", "", 0, ErrOverflow}, // 39 after the point
		{"1.5e-38", "", 0, ErrOverflow},
		{"0.0000000000000000001e5", "1", 14, nil},
		{"1.5e30", "1500000000000000000000000000000", 0, nil},
		{"1e37", "10000000000000000000000000000000000000", 0, nil},
		{"1e38", "", 0, ErrOverflow},
		{"0e900", "0", 0, nil},
		{"-2.5E-3", "-25", 4, nil},
		{"12345678901234567890x", "", 0, ErrSyntax},
		{"1e", "", 0, ErrSyntax},
	} {
		m, sc, err := parseWide([]byte(tt.in))
		if err != tt.err || (err == nil && (m.big().String() != tt.want || sc != tt.sc)) {
			t.Errorf("parseWide(%q) = %s, %d, %v; want %s, %d, %v", tt.in, m.big(), sc, err, tt.want, tt.sc, tt.err)
		}
	}
}

// A sum of the largest values at both ends of the scales stays exact: 2^20
// of them, each brought to scale MaxScale (past 2^256: the fifth word).
func TestWideSumExact(t *testing.T) {
	oneGoroutine(t)
	var f Fixed
	want := new(big.Int)
	top, _ := new(big.Int).SetString("-99999999999999999999999999999999999999", 10)
	m, _, _ := parseWide([]byte(top.String()))
	for i := range 1 << 20 {
		if i%2 == 0 {
			f.AddWide(m, 0)
			want.Add(want, new(big.Int).Mul(top, pow10big(MaxScale)))
		} else {
			f.Add(-1, MaxScale)
			want.Sub(want, big.NewInt(1))
		}
	}
	if f.Scale != MaxScale || f.total().big().Cmp(want) != 0 || want.BitLen() <= 256 {
		t.Fatalf("sum %s at scale %d, want %s at %d (%d bits)", f.total().big(), f.Scale, want, MaxScale, want.BitLen())
	}
}

// An empty sum takes a sum of any width whole: one whose top word alone is
// set (as a total past 2^256 can be) is not an int64.
func TestAddFixedTopWord(t *testing.T) {
	var f Fixed
	o := Fixed{C: wide{5, 0, 0, 0, 1}}
	f.AddFixed(o)
	if f.total() != o.total() {
		t.Fatalf("%s, want %s", f.total().big(), o.total().big())
	}
}

func TestFixedAddAndFormat(t *testing.T) {
	var f Fixed
	for _, s := range []string{"7", "3.5", "0.25"} {
		m, sc, _ := ParseFixed([]byte(s))
		f.Add(m, sc)
	}
	if f.String() != "10.75" {
		t.Errorf("7+3.5+0.25 = %s, want 10.75", f)
	}
	cases := []struct {
		f     Fixed
		plain string
		group string
	}{
		{Fixed{}, "0", "0"},
		{Fixed{V: 5, Scale: 2}, "0.05", "0.05"},
		{Fixed{V: -5, Scale: 3}, "-0.005", "-0.005"},
		{Fixed{V: 34484912532315, Scale: 2}, "344849125323.15", "344,849,125,323.15"},
		{Fixed{V: -1234567}, "-1234567", "-1,234,567"},
		{Fixed{V: 123}, "123", "123"},
		{Fixed{V: math.MinInt64}, "-9223372036854775808", "-9,223,372,036,854,775,808"},
		{Fixed{V: 1, Scale: 2, C: wideOf(math.MaxInt64)}, "92233720368547758.08", "92,233,720,368,547,758.08"},
		{Fixed{V: -1, C: wideOf(math.MinInt64)}, "-9223372036854775809", "-9,223,372,036,854,775,809"},
	}
	for _, c := range cases {
		if got := c.f.String(); got != c.plain {
			t.Errorf("%+v.String() = %q, want %q", c.f, got, c.plain)
		}
		if got := string(c.f.Append(nil, true)); got != c.group {
			t.Errorf("%+v grouped = %q, want %q", c.f, got, c.group)
		}
	}
}

// Append, plain and with thousands grouped, against refSum's text (the
// grouping put in by hand) for random values, scales and signs, small and
// past the int64 range.
func TestFixedAppendRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	groupRef := func(s string) string {
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimPrefix(s, "-")
		ip, frac, _ := strings.Cut(s, ".")
		var b strings.Builder
		for i := range len(ip) {
			if i > 0 && (len(ip)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteByte(ip[i])
		}
		out := b.String()
		if frac != "" {
			out += "." + frac
		}
		if neg {
			out = "-" + out
		}
		return out
	}
	for range 20000 {
		f := Fixed{V: rng.Int64() >> rng.IntN(64), Scale: int64(rng.IntN(MaxScale + 1))}
		if rng.IntN(2) == 0 {
			f.V = -f.V
		}
		if rng.IntN(8) == 0 {
			f.C = wideOf(rng.Int64() >> rng.IntN(64))
		}
		want := refSum{v: f.total().big(), scale: int(f.Scale)}.String()
		if got := string(f.Append(nil, false)); got != want {
			t.Fatalf("%+v plain = %q, want %q", f, got, want)
		}
		if got, want := string(f.Append([]byte("x"), true)), "x"+groupRef(want); got != want {
			t.Fatalf("%+v grouped = %q, want %q", f, got, want)
		}
	}
}

// Sums past the int64 range are exact, and the same in every order: the
// values +5e18, +5e18, -5e18 overflow an int64 one way round and not the
// other. Checked against math/big for random orders, scales and signs.
func TestFixedWideSums(t *testing.T) {
	vals := []struct {
		m int64
		s int
	}{{5e18, 0}, {5e18, 0}, {-5e18, 0}, {math.MaxInt64, 0}, {math.MinInt64 + 1, 3}, {7, 18}, {math.MaxInt64, 18}, {-3, 2}, {math.MaxInt64, 1}}
	rng := rand.New(rand.NewPCG(1, 2))
	var first Fixed
	for round := range 200 {
		perm := rng.Perm(len(vals))
		n := 1 + rng.IntN(len(vals))
		want := refSum{v: new(big.Int)}
		var got Fixed
		for _, i := range perm[:n] {
			v := vals[i]
			got.Add(v.m, v.s)
			want.add(Fixed{V: v.m, Scale: int64(v.s)}.String())
		}
		if got.String() != want.String() {
			t.Fatalf("round %d: %s, want %s", round, got, want)
		}
		// the whole set, in two halves merged either way round
		if n == len(vals) {
			var a, b Fixed
			k := rng.IntN(n)
			for j, i := range perm {
				if j < k {
					a.Add(vals[i].m, vals[i].s)
				} else {
					b.Add(vals[i].m, vals[i].s)
				}
			}
			b.AddFixed(a)
			if !b.Equal(got) || b.String() != got.String() {
				t.Fatalf("round %d: halves merged %s, in order %s", round, b, got)
			}
			if first == (Fixed{}) {
				first = got
			} else if !first.Equal(got) {
				t.Fatalf("round %d: %s, an earlier order gave %s", round, got, first)
			}
		}
	}
	if first == (Fixed{}) {
		t.Fatal("no round used every value")
	}
}

func TestResultMerge(t *testing.T) {
	a := Result{Rows: 3, Matched: 2, Sums: [MaxSums]Fixed{{V: 150, Scale: 2}, {V: 7}}}
	b := Result{Rows: 4, Matched: 1, Sums: [MaxSums]Fixed{{V: 5, Scale: 1}, {V: -1, Scale: 3}}}
	a.Merge(&b)
	if a.Rows != 7 || a.Matched != 3 || a.Sums[0].String() != "2.00" || a.Sums[1].String() != "6.999" {
		t.Errorf("merged %+v", a)
	}
	c := Result{Sums: [MaxSums]Fixed{{V: math.MaxInt64}}}
	c.Merge(&Result{Sums: [MaxSums]Fixed{{V: 1}}})
	if c.Sums[0].String() != "9223372036854775808" {
		t.Errorf("merged past int64: %s", c.Sums[0])
	}
	// the binary form round-trips, carried part included
	enc := c.AppendBinary(nil)
	if len(enc) != ResultSize {
		t.Fatalf("%d bytes, want %d", len(enc), ResultSize)
	}
	back, err := DecodeResult(enc)
	if err != nil || !back.Equal(&c) || !reflect.DeepEqual(back, c) {
		t.Errorf("decoded %+v, %v; want %+v", back, err, c)
	}
	if _, err := DecodeResult(enc[:ResultSize-1]); err == nil {
		t.Error("a short encoding decoded")
	}
}

// scanAll runs the scanner over whole files, the way the sequential strategy
// does, and returns the answer as strings.
func scanAll(files []refFile, q Query) (Result, error) {
	var r Result
	for _, f := range files {
		tb, err := NewTableSep(f.name, f.data, sepOf(f.name), &q)
		if err != nil {
			return r, err
		}
		s, e := tb.Body()
		if err := tb.Scan(s, e, &r); err != nil {
			return r, err
		}
	}
	return r, nil
}

// check compares the scanner with the reference on files and q: the same
// answer to the digit, or errors of the same kind.
// check runs the scanner over files with each of its hot paths (see
// hotModes) and checks every answer against the reference's.
func check(t *testing.T, label string, files []refFile, q Query) (got Result, err error) {
	t.Helper()
	for _, mode := range hotModes() {
		got, err = checkOnce(t, label+" ("+mode()+")", files, q)
	}
	return got, err
}

func checkOnce(t *testing.T, label string, files []refFile, q Query) (Result, error) {
	t.Helper()
	got, err := scanAll(files, q)
	var want refAnswer
	werr := refQuery(files, q, &want)
	switch {
	case err != nil || werr != nil:
		if err == nil || werr == nil || !sameKind(err, werr) {
			t.Fatalf("%s: scanner error %v, reference error %v", label, err, werr)
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File == "" || pe.Line < 1 || pe.Column < 1 {
			t.Fatalf("%s: error %v has no position", label, err)
		}
		return got, err
	case got.Rows != want.rows || got.Matched != want.matched:
		t.Fatalf("%s: rows %d matched %d, reference %d %d", label, got.Rows, got.Matched, want.rows, want.matched)
	}
	for i, s := range want.sums {
		if got.Skipped[i] != want.skipped[i] {
			t.Fatalf("%s: sum %d skipped %d values, reference %d", label, i, got.Skipped[i], want.skipped[i])
		}
		if got.Sums[i].String() != s.String() {
			t.Fatalf("%s: sum %d = %s, reference %s", label, i, got.Sums[i], s)
		}
	}
	return got, nil
}

func fixture(t *testing.T, name string) []refFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return []refFile{{name, b}}
}

func TestFixtures(t *testing.T) {
	tests := []struct {
		file            string
		q               Query
		rows, matched   int64
		revenue, profit string
	}{
		{"edge.csv", Query{Filters: []Cond{Eq("Region", "Europe")}}, 9, 5, "2891.29", "887.38"},
		{"edge.csv", Query{Filters: []Cond{Eq("Region", `Euro"pe`)}}, 9, 1, "9.33", "2.41"},
		{"edge.csv", Query{Filters: []Cond{Eq("Country", "Line\r\nbreak")}}, 9, 1, "421.89", "57.20"},
		{"edge.csv", Query{Filters: []Cond{Eq("Region", "Nowhere")}}, 9, 0, "0", "0"},
		{"reordered.csv", Query{Filters: []Cond{Eq("Region", "Europe")}}, 3, 2, "103.80", "20.85"},
		{"decimals.csv", Query{Filters: []Cond{Eq("Region", "Europe")}}, 5, 4, "11.00", "1.125"},
	}
	for _, tt := range tests {
		label := tt.file + " " + fmt.Sprint(tt.q.Filters)
		r, err := scanAll(fixture(t, tt.file), tt.q)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		if r.Rows != tt.rows || r.Matched != tt.matched || r.Sums[0].String() != tt.revenue || r.Sums[1].String() != tt.profit {
			t.Errorf("%s: rows %d matched %d sums %s %s; want %d %d %s %s", label,
				r.Rows, r.Matched, r.Sums[0], r.Sums[1], tt.rows, tt.matched, tt.revenue, tt.profit)
		}
		{
			check(t, label, fixture(t, tt.file), tt.q)
		}
	}
}

func TestColumnNames(t *testing.T) {
	f := fixture(t, "edge.csv")
	for _, q := range []Query{
		{Filters: []Cond{Eq("region", "Europe")}},
		{Filters: []Cond{Eq("REGION", "Europe")}, Sum: []string{"total_revenue", "TOTAL PROFIT"}},
		{Filters: []Cond{Eq("channel", "Offline")}, Sum: []string{"units sold"}},
		{Filters: []Cond{Eq("item", "Fruits")}},
	} {
		if _, err := scanAll(f, q); err != nil {
			t.Errorf("%+v: %v", q, err)
		}
	}
	// A column summed twice is refused, by name or through the rules.
	for _, sums := range [][]string{{"Units Sold", "Units Sold"}, {"Units Sold", "units_sold"}} {
		if _, err := scanAll(f, Query{Sum: sums}); !errors.Is(err, ErrDupSum) {
			t.Errorf("%q: %v, want %v", sums, err, ErrDupSum)
		}
	}
	if err := (&Query{Sum: []string{}}).Validate(); err == nil {
		t.Error("an empty sum list is valid")
	}
}

// Names resolve exactly first, then loosely, then by alias; aliases are
// never applied to header names.
func TestColumnRules(t *testing.T) {
	const in = "Item,Item Type,Channel,Sales Channel,Total Revenue,Total Profit,\ufeffSku\n" +
		"a,b,c,d,1,2,s\n"
	f := []refFile{{"rules.csv", []byte(in)}}
	for _, c := range []struct{ name, want string }{
		{"Item", "a"}, {"item", "a"}, {"Item Type", "b"}, {"item_type", "b"}, {"ITEMTYPE", "b"},
		{"Channel", "c"}, {"channel", "c"}, {"sales-channel", "d"},
	} {
		r, err := scanAll(f, Query{Filters: []Cond{Eq(c.name, c.want)}})
		if err != nil || r.Matched != 1 {
			t.Errorf("%q=%q: %+v, %v", c.name, c.want, r, err)
		}
	}
	// the alias works where the loose match finds nothing
	g := []refFile{{"alias.csv", []byte("Region,Item Type,Total Revenue,Total Profit\nE,Fruits,1,2\n")}}
	if r, err := scanAll(g, Query{Filters: []Cond{Eq("item", "Fruits")}}); err != nil || r.Matched != 1 {
		t.Errorf("alias: %+v, %v", r, err)
	}
	// two fields one rule matches: an error naming both
	h := []refFile{{"dup.csv", []byte("region,REGION,Total Revenue,Total Profit\nE,E,1,2\n")}}
	_, err := scanAll(h, Query{Filters: []Cond{Eq("Region", "E")}})
	if !errors.Is(err, ErrDupColumn) || !strings.Contains(err.Error(), `"region"`) || !strings.Contains(err.Error(), `"REGION"`) {
		t.Errorf("ambiguous: %v", err)
	}
	if r, err := scanAll(h, Query{Filters: []Cond{Eq("REGION", "E")}}); err != nil || r.Matched != 1 {
		t.Errorf("exact beats loose: %+v, %v", r, err)
	}
	// a BOM inside a name shows in the message
	_, err = scanAll(f, Query{Filters: []Cond{Eq("Sku", "s")}})
	if !errors.Is(err, ErrColumn) || !strings.Contains(err.Error(), `"\ufeffSku"`) {
		t.Errorf("BOM: %v", err)
	}
}

// An error quotes at most about 200 bytes of any name, value or header,
// however large: a file of lone CRs is one 20 MB header line.
func TestErrorQuotesAreCapped(t *testing.T) {
	oneGoroutine(t)
	big := "Region," + strings.Repeat("x", 5<<20) + "\r" + strings.Repeat("Europe,1,2\r", 1<<16)
	many := strings.Repeat("Column,", 50000) + "Last\n"
	for name, in := range map[string]string{"lone CRs": big, "many fields": many} {
		_, err := scanAll([]refFile{{"cr.csv", []byte(in)}}, Query{Filters: []Cond{Eq("Region", "Europe")}, Sum: []string{"Total Revenue"}})
		if err == nil || len(err.Error()) > 1000 {
			t.Errorf("%s: %d-byte error", name, len(fmt.Sprint(err)))
		}
	}
	bad := "Region,Total Revenue,Total Profit\nEurope," + strings.Repeat("9", 1<<20) + ",1\n"
	if _, err := scanAll([]refFile{{"v.csv", []byte(bad)}}, Query{Filters: []Cond{Eq("Region", "Europe")}}); err == nil || len(err.Error()) > 1000 {
		t.Errorf("long value: %d-byte error", len(fmt.Sprint(err)))
	}
}

// Every kind of bad input is an error with the right place.
func TestErrors(t *testing.T) {
	const h = "Region,Total Revenue,Total Profit\n"
	tests := []struct {
		name, in  string
		err       error
		line, col int
		field     string
	}{
		{"bad number", h + "Europe,1.00,2.00\nEurope,12x.5,1\n", ErrSyntax, 3, 8, "Total Revenue"},
		{"not a number", h + "Europe,x,1\n", ErrSyntax, 2, 8, "Total Revenue"},
		{"overflow value", h + "Europe,999999999999999999999999999999999999999,1\n", ErrOverflow, 2, 8, "Total Revenue"},
		{"short matching row", h + "Europe,1.00,2.00\nEurope,5\n", ErrShortRow, 3, 9, "Total Profit"},
		{"short row, no filter column", "Total Revenue,Total Profit,Region\n1,2\n", ErrShortRow, 2, 4, "Region"},
		{"short quoted row", h + "\"Europe\",\"1\"\n", ErrShortRow, 2, 13, "Total Profit"},
		{"unterminated quote", h + "Europe,1,2\n\"Europe,1,2\n", ErrQuote, 3, 1, ""},
		{"junk after quote", h + "\"Europe\"x,1,2\n", ErrQuote, 2, 9, ""},
		{"bare quote", h + "Eu\"rope,1,2\n", ErrBareQuote, 2, 3, ""},
		{"quoted bad number", h + "Europe,\"1,5\",2\n", ErrSyntax, 2, 9, "Total Revenue"},
		{"missing column", "Place,Total Revenue,Total Profit\nEurope,1,2\n", ErrColumn, 1, 1, ""},
		{"duplicate column", "region,Total Revenue,Total Profit,REGION\nEurope,1,2,x\n", ErrDupColumn, 1, 1, ""},
		{"no header", "\n\r\n", ErrNoHeader, 3, 1, ""},
		{"empty file", "", ErrNoHeader, 1, 1, ""},
		{"utf-16", "\xff\xfeR\x00e\x00g\x00i\x00o\x00n\x00\n\x00", ErrUTF16, 1, 1, ""},
		{"utf-16 big-endian", "\xfe\xff\x00R\x00e\x00g\x00i\x00o\x00n\x00\n", ErrUTF16, 1, 1, ""},
	}
	for _, tt := range tests {
		f := []refFile{{"in.csv", []byte(tt.in)}}
		_, err := scanAll(f, Query{Filters: []Cond{Eq("Region", "Europe")}})
		var pe *ParseError
		if !errors.Is(err, tt.err) || !errors.As(err, &pe) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.err)
			continue
		}
		if pe.File != "in.csv" || pe.Line != tt.line || pe.Column != tt.col || pe.Field != tt.field {
			t.Errorf("%s: at %s:%d:%d field %q, want line %d col %d field %q (%v)",
				tt.name, pe.File, pe.Line, pe.Column, pe.Field, tt.line, tt.col, tt.field, err)
		}
		check(t, tt.name, f, Query{Filters: []Cond{Eq("Region", "Europe")}})
	}
	// A bad value in a row that does not match is not an error.
	f := []refFile{{"in.csv", []byte(h + "Asia,oops,x\nEurope,1,2\n")}}
	if r, err := scanAll(f, Query{Filters: []Cond{Eq("Region", "Europe")}}); err != nil || r.Matched != 1 {
		t.Errorf("non-matching bad row: %v %+v", err, r)
	}
}

func TestErrorMessage(t *testing.T) {
	_, err := scanAll([]refFile{{"xab.csv", []byte("Region,Total Revenue,Total Profit\nEurope,12x,1\n")}},
		Query{Filters: []Cond{Eq("Region", "Europe")}})
	want := `xab.csv:2:8: column "Total Revenue": not a decimal number: "12x"`
	if err == nil || err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	// lines that end in a CR alone: one header line, and a hint
	_, err = scanAll([]refFile{{"mac.csv", []byte("Region,Total Revenue,Total Profit\rEurope,1,2\r")}}, Query{Filters: []Cond{Eq("Region", "Europe")}, Sum: []string{"Total Profit"}})
	if !errors.Is(err, ErrColumn) || !strings.Contains(err.Error(), "CR alone") {
		t.Errorf("CR line ends: %v", err)
	}
}

// generated returns a small generated data set as files.
func generated(t testing.TB, rows, files int) []refFile {
	t.Helper()
	dir := t.TempDir()
	if err := data.Generate(dir, data.Options{Rows: rows, Files: files, Seed: 7}, false, nil); err != nil {
		t.Fatal(err)
	}
	var out []refFile
	for i := range files {
		b, err := os.ReadFile(filepath.Join(dir, data.FileName(i)))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, refFile{data.FileName(i), b})
	}
	return out
}

// reencode rewrites a file through encoding/csv: every field quoted if
// quoteAll, CRLF line ends if crlf, columns in order perm.
func reencode(t testing.TB, b []byte, quoteAll, crlf bool, perm []int) []byte {
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	nl := "\n"
	if crlf {
		nl = "\r\n"
	}
	for _, r := range recs {
		for j, c := range perm {
			if j > 0 {
				out.WriteByte(',')
			}
			f := r[c]
			if quoteAll || strings.ContainsAny(f, "\",\r\n") {
				f = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
			}
			out.WriteString(f)
		}
		out.WriteString(nl)
	}
	return out.Bytes()
}

// The same data in every dialect variant gives the same answer, and it is
// the reference's.
func TestDifferentialGenerated(t *testing.T) {
	oneGoroutine(t)
	base := generated(t, 3000, 3)
	variants := variants(t)
	queries := []Query{
		{Filters: []Cond{Eq("Region", "Europe")}},
		{Filters: []Cond{Eq("Country", "Cote d'Ivoire")}, Sum: []string{"Units Sold", "Total Cost"}},
		{Filters: []Cond{Eq("Item Type", "Household")}},
		{Filters: []Cond{Eq("Sales Channel", "Online")}, Sum: []string{"Unit Price", "Total Revenue", "Total Cost", "Total Profit"}},
		{Sum: []string{"Total Profit"}},
	}
	for _, q := range queries {
		var first *Result
		for name, v := range variants {
			var files []refFile
			for _, f := range base {
				files = append(files, refFile{variantFile(f.name, name), v(f.data)})
			}
			r, _ := check(t, name+" "+fmt.Sprint(q.Filters), files, q)
			// A quote-free file takes no row to the full parser, and a
			// quoted one only its rows that quotedBatch cannot copy:
			// those with a quoted delimiter, here none.
			if r.Quoted > 0 {
				t.Errorf("%s: %d rows took the full parser", name, r.Quoted)
			}
			r.Quoted = 0 // how rows were parsed differs; the answer must not
			if first == nil {
				first = &r
			} else if !reflect.DeepEqual(r, *first) {
				t.Fatalf("%s %+v: %+v differs from another variant's %+v", name, q, r, *first)
			}
		}
		if first.Matched == 0 {
			t.Errorf("%+v matched nothing: a weak test", q)
		}
	}
}

// Ranges that meet at row starts scan every row exactly once, wherever the
// boundaries fall (this is what the row splits rely on).
func TestScanRanges(t *testing.T) {
	f := generated(t, 500, 1)[0]
	q := Query{Filters: []Cond{Eq("Region", "Europe")}}
	tb, err := NewTable(f.name, f.data, &q)
	if err != nil {
		t.Fatal(err)
	}
	s, e := tb.Body()
	var whole Result
	if err := tb.Scan(s, e, &whole); err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{s, s + 1, s + 700, (s + e) / 2, e - 1, e} {
		c := cut
		if c > s {
			c = bytes.IndexByte(f.data[c-1:], '\n') + c // next row start
		}
		if parts, err := scanInTwo(tb, c); err != nil || !reflect.DeepEqual(parts, whole) {
			t.Errorf("cut at %d: %+v (%v), whole %+v", c, parts, err, whole)
		}
	}
}

// scanInTwo scans a Table's body as two ranges that meet at cut, a row
// start, into one Result, as the row splits do.
func scanInTwo(tb *Table, cut int) (Result, error) {
	s, e := tb.Body()
	var r Result
	if err := tb.Scan(s, cut, &r); err != nil {
		return r, err
	}
	return r, tb.Scan(cut, e, &r)
}

func Example() {
	csvText := []byte("Region,Total Revenue,Total Profit\nEurope,10.50,2.25\nAsia,1.00,0.10\nEurope,3,1.5\n")
	q := Query{Filters: []Cond{Eq("region", "Europe")}}
	tb, err := NewTable("example.csv", csvText, &q)
	if err != nil {
		panic(err)
	}
	var r Result
	start, end := tb.Body()
	if err := tb.Scan(start, end, &r); err != nil {
		panic(err)
	}
	fmt.Println(r.Matched, r.Sums[0], r.Sums[1])
	// Output: 2 13.50 3.75
}

// Rows longer than a classification window, with and without quotes, and a
// row that straddles two windows, against the reference.
func TestLongRows(t *testing.T) {
	long := strings.Repeat("x", 3*winBytes)
	var b strings.Builder
	b.WriteString("f,x,y\n")
	for i := range 300 {
		switch i % 7 {
		case 0:
			fmt.Fprintf(&b, "a,%d,1\n", i)
		case 1:
			fmt.Fprintf(&b, "a%s,%d,2\n", long, i) // long, no match
		case 2:
			fmt.Fprintf(&b, "\"a\",\"%d\",\"%s\"\n", i, long) // long and quoted: short for y? no: y is long text
		case 3:
			fmt.Fprintf(&b, "a,%d.5,%s\n", i, strings.Repeat("0", 17)) // matches
		default:
			fmt.Fprintf(&b, "b,%d,%s\n", i, strings.Repeat("9", i)) // straddles windows
		}
	}
	f := []refFile{{"long.csv", []byte(b.String())}}
	// the quoted long rows hold text in y: sum x only
	got, err := check(t, "long rows", f, Query{Filters: []Cond{Eq("f", "a")}, Sum: []string{"x"}})
	if err != nil || got.Matched == 0 {
		t.Fatalf("long rows: %v, %+v", err, got)
	}
	if _, err := check(t, "long rows, y", f, Query{Filters: []Cond{Eq("f", "a")}, Sum: []string{"x", "y"}}); err == nil {
		t.Fatal("text in y gave no error")
	}
}

func TestRowStartAndQuoted(t *testing.T) {
	d := []byte("h,x,y\na,1,2\n\"b\nc\",3,4\nd,5,6")
	q := Query{Sum: []string{"x"}}
	tb, err := NewTable("q.csv", d, &q)
	if err != nil {
		t.Fatal(err)
	}
	for off, want := range map[int]int{0: 6, 6: 6, 7: 12, 12: 12, 13: 15, 15: 15, 16: 22, 23: 27, 40: 27} {
		if got := tb.RowStart(off); got != want {
			t.Errorf("RowStart(%d) = %d, want %d", off, got, want)
		}
	}
	var r Result
	s, e := tb.Body()
	if err := tb.Scan(s, e, &r); err != nil || r.Rows != 3 || r.Quoted != 1 || r.Sums[0].String() != "9" {
		t.Errorf("scan: %v %+v", err, r)
	}
	// A cut inside the quoted field looks like a row start and misparses:
	// the unit after it errors or sees a quote, which is how callers know.
	var bad Result
	err = tb.Scan(tb.RowStart(13), e, &bad)
	if err == nil && bad.Quoted == 0 {
		t.Errorf("a cut inside quotes went unnoticed: %+v", bad)
	}
}

func TestAnswer(t *testing.T) {
	a := &Answer{Spec: Spec{Filters: []Cond{{Col: "Region", Value: "Europe"}}, Aggs: []Agg{{Func: "sum", Col: "Total Revenue"}}},
		Result: Result{Rows: 10, Matched: 3, Quoted: 1, Sums: [MaxSums]Fixed{{V: 123456, Scale: 2}}}}
	b := *a
	b.Quoted = 0
	b.Sums[0] = Fixed{V: 0, Scale: 2, C: wideOf(123456)} // the same value, split otherwise
	if !a.Equal(&b) {
		t.Error("equal answers differ")
	}
	for _, change := range []func(x *Answer){
		func(x *Answer) { x.Matched++ }, func(x *Answer) { x.Rows++ }, func(x *Answer) { x.Filters[0].Value = "Asia" },
		func(x *Answer) { x.Aggs[0].Col = "Total Profit" }, func(x *Answer) { x.Sums[0].V++ },
		func(x *Answer) { x.Aggs[0].Func = "min" }, func(x *Answer) { x.Filters[0].Op = OpNe },
	} {
		c := *a
		c.Filters, c.Aggs = slices.Clone(a.Filters), slices.Clone(a.Aggs)
		change(&c)
		if a.Equal(&c) {
			t.Errorf("%+v equals %+v", c, *a)
		}
	}
	if got := a.String(); got != "matched=3; Total Revenue=1234.56" {
		t.Errorf("String: %q", got)
	}
	if l := a.Lines(); len(l) != 2 || l[0] != (Line{"Matching rows", "3"}) || l[1] != (Line{"Total Revenue", "1,234.56"}) {
		t.Errorf("Lines: %v", l)
	}
	if v := a.Values(); len(v) != 1 || v[0] != (Line{"Total Revenue", "1234.56"}) {
		t.Errorf("Values: %v", v)
	}
	if (*Answer)(nil).Equal(a) || !(*Answer)(nil).Equal(nil) {
		t.Error("nil answers")
	}
}

// variants are the six dialect variants of one data set: plain, all quoted,
// CRLF, columns reversed, all three, and a BOM with blank lines and no final
// newline.
func variants(t testing.TB) map[string]func([]byte) []byte {
	ident := make([]int, len(data.Header))
	rev := make([]int, len(data.Header))
	for i := range ident {
		ident[i], rev[i] = i, len(ident)-1-i
	}
	return map[string]func([]byte) []byte{
		"plain":      func(b []byte) []byte { return b },
		"all quoted": func(b []byte) []byte { return reencode(t, b, true, false, ident) },
		"crlf":       func(b []byte) []byte { return reencode(t, b, false, true, ident) },
		"reversed":   func(b []byte) []byte { return reencode(t, b, false, false, rev) },
		"quoted crlf reversed": func(b []byte) []byte {
			return reencode(t, b, true, true, rev)
		},
		"bom, blank lines, no final newline": func(b []byte) []byte {
			out := append([]byte{}, bom...)
			out = append(out, bytes.ReplaceAll(b, []byte("\nEurope"), []byte("\n\n\r\nEurope"))...)
			return bytes.TrimSuffix(out, []byte("\n"))
		},
		// the other delimiters, scanned in place (variantFile names the
		// files so that sepOf gives each its own)
		"tab":                   func(b []byte) []byte { return swapSep(b, '\t') },
		"tab all quoted":        func(b []byte) []byte { return swapSep(reencode(t, b, true, false, ident), '\t') },
		"semicolon quoted crlf": func(b []byte) []byte { return swapSep(reencode(t, b, true, true, ident), ';') },
		"pipe reversed":         func(b []byte) []byte { return swapSep(reencode(t, b, false, false, rev), '|') },
	}
}

// swapSep is b with every ',' made sep and every sep a ',': the same
// records in the dialect of sep (for ';' and '|' byte for byte the same
// grammar; for a tab as long as b's quotes are fields' own).
func swapSep(b []byte, sep byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		switch c {
		case ',':
			c = sep
		case sep:
			c = ','
		}
		out[i] = c
	}
	return out
}

// variantFile is the name of file name in the variant called variant: its
// extension says a delimiter other than ',' (sepOf).
func variantFile(name, variant string) string {
	for _, v := range []struct{ prefix, ext string }{{"tab", ".tsv"}, {"semicolon", ".ssv"}, {"pipe", ".psv"}} {
		if strings.HasPrefix(variant, v.prefix) {
			return name + v.ext
		}
	}
	return name
}

// sepOf is the delimiter a test file's name says: a tab for .tsv, ';' for
// .ssv and '|' for .psv (a convention of these tests only), else ','. The
// scanner and the reference both read each file in it.
func sepOf(name string) byte {
	switch {
	case strings.HasSuffix(name, ".tsv"):
		return '\t'
	case strings.HasSuffix(name, ".ssv"):
		return ';'
	case strings.HasSuffix(name, ".psv"):
		return '|'
	}
	return ','
}

// A Table made like another shares its binding only where its header is
// the other's: a file whose columns come in another order, or with
// another delimiter, is bound again and summed by its own columns.
func TestNewTableLike(t *testing.T) {
	q := Query{Filters: []Cond{Eq("k", "a")}, Sum: []string{"v"}}
	first, err := NewTableLike("1.csv", []byte("k,v\na,1\nb,2\n"), ',', &q, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data   string
		sep    byte
		shared bool
		want   string
	}{
		{"k,v\na,10\na,5\n", ',', true, "15"},
		{"v,k\n10,a\n5,b\n", ',', false, "10"},
		{"k\tv\na\t7\n", '\t', false, "7"},
		{"k;v\na;7\n", ';', false, "7"},
	} {
		tb, err := NewTableLike("2.csv", []byte(c.data), c.sep, &q, first)
		if err != nil {
			t.Fatalf("%q: %v", c.data, err)
		}
		if got := tb.b.gen == first.b.gen && &tb.header[0] == &first.header[0]; got != c.shared {
			t.Errorf("%q: shared %v, want %v", c.data, got, c.shared)
		}
		var r Result
		if err := tb.Scan(tb.body, len(tb.data), &r); err != nil {
			t.Fatalf("%q: %v", c.data, err)
		}
		if got := r.Sums[0].String(); got != c.want {
			t.Errorf("%q: sum %s, want %s", c.data, got, c.want)
		}
	}
}
