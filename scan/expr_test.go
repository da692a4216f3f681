package scan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// With a decimal comma, an unquoted value that is such a number is read
// as one; a quoted one is text; 1.234,5 is no number either way.
func TestParseCondDecimalComma(t *testing.T) {
	for _, c := range []struct{ in, value string }{
		{"amount>1,5", "1.5"}, {"amount <= -0,25", "-0.25"}, {`amount="1,5"`, "1,5"}, {"city=Oslo", "Oslo"}, {"n=12", "12"},
	} {
		if got, err := ParseCondDecimalComma(c.in); err != nil || got.Value != c.value {
			t.Errorf("ParseCondDecimalComma(%q) = %+v, %v; want the value %q", c.in, got, err, c.value)
		}
	}
	for _, bad := range []string{"amount>1.234,5", "amount>1,2,3"} {
		if _, err := ParseCondDecimalComma(bad); err == nil {
			t.Errorf("ParseCondDecimalComma(%q): no error", bad)
		}
	}
	if _, err := ParseCond("amount>1,5"); err == nil {
		t.Error("ParseCond(amount>1,5) without a decimal comma: no error")
	}
}

func TestParseCond(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Cond
	}{
		{"Region=Europe", Cond{"Region", OpEq, "Europe", false, nil}},
		{" Units Sold >= 5000", Cond{"Units Sold", OpGe, "5000", false, nil}},
		{"Region = Europe ", Cond{"Region", OpEq, "Europe", false, nil}},
		{`Note = " x "`, Cond{"Note", OpEq, " x ", true, nil}},
		{`Note=" 5 "`, Cond{"Note", OpEq, " 5 ", true, nil}},
		{"Order Date>=2016-02-29", Cond{"Order Date", OpGe, "2016-02-29", false, nil}},
		{"Code>5k", Cond{"Code", OpGt, "5k", false, nil}},
		{"Name<3-Pack", Cond{"Name", OpLt, "3-Pack", false, nil}},
		{"Units Sold>=.5", Cond{"Units Sold", OpGe, ".5", false, nil}},
		{"Note=a,b=c", Cond{"Note", OpEq, "a,b=c", false, nil}},
		{"Note!=", Cond{"Note", OpNe, "", false, nil}},
		{`Note="=x"`, Cond{"Note", OpEq, "=x", true, nil}},
		{`Note="say ""hi"""`, Cond{"Note", OpEq, `say "hi"`, true, nil}},
		{`zip="00501"`, Cond{"zip", OpEq, "00501", true, nil}},
		{`version>="1.10"`, Cond{"version", OpGe, "1.10", true, nil}},
		{`"a<b"<5`, Cond{"a<b", OpLt, "5", false, nil}},
		{`"x ""y""">=z`, Cond{`x "y"`, OpGe, "z", false, nil}},
		{"Order Date<=1/31/2015", Cond{"Order Date", OpLe, "1/31/2015", false, nil}},
		{"c>-1.5", Cond{"c", OpGt, "-1.5", false, nil}},
	} {
		got, err := ParseCond(tt.in)
		if err != nil || !got.same(tt.want) {
			t.Errorf("ParseCond(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			continue
		}
		// String gives back an expression that reads the same
		if again, err := ParseCond(got.String()); err != nil || !again.same(got) {
			t.Errorf("%q: String %q reads as %+v, %v", tt.in, got.String(), again, err)
		}
	}
	for _, bad := range []string{"Europe", "=x", " >5", `"open=x`, "a<", "a=>5", "a==5", `a="x"y`, "a!5"} {
		if _, err := ParseCond(bad); !errors.Is(err, ErrFilter) || !strings.Contains(err.Error(), clipQuote(bad)) {
			t.Errorf("ParseCond(%q): %v", bad, err)
		}
	}
	// an order comparison's value that reads as a failed number or date
	// (as bytes it would order them wrongly, silently): the error names it
	for bad, why := range map[string]string{
		"Order Date>13/45/2010":  "calendar day",
		"Order Date>=2015-02-30": "calendar day",
		"Order Date<2/29/2015":   "calendar day",
		"Units Sold>1,000":       "decimal number",
		"Units Sold>5 000":       "decimal number",
		"Units Sold>=5_000":      "decimal number",
		"Unit Price<1.2.3":       "decimal number",
		"Units Sold>999999999999999999999999999999999999999": "out of range",
	} {
		_, err := ParseCond(bad)
		if !errors.Is(err, ErrFilter) || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseCond(%q): %v; want an error about %q", bad, err, why)
		}
	}
	// = and != take any value (a failed number compares as bytes), and so
	// does a quoted value, which is text
	for _, ok := range []string{"Units Sold=1e3", "Units Sold>1e3", "x<1.5E-3", "Order Date!=13/45/2010", `Note=" 5 "`, `Units Sold>" 5000"`, `Order Date<"1/2/2015 "`, `v>"1.2.3"`} {
		if _, err := ParseCond(ok); err != nil {
			t.Errorf("ParseCond(%q): %v", ok, err)
		}
	}
}

func TestParseList(t *testing.T) {
	got, err := ParseList(` Units Sold, "Cost, total" ,"a ""b""",x`)
	if want := []string{"Units Sold", "Cost, total", `a "b"`, "x"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseList: %q, %v", got, err)
	}
	for _, bad := range []string{",", "a,,b", `"a`, `"a"b`, ""} {
		if _, err := ParseList(bad); err == nil {
			t.Errorf("ParseList(%q): no error", bad)
		}
	}
}

func TestDates(t *testing.T) {
	// in order; each row's forms are one instant
	order := [][]string{
		{"2/28/1900", "1900-02-28", "Feb 28 1900"},
		{"3/1/1900", "1900-03", "1 March 1900", "1900/3/1", "1900-03-01T00:00:00Z"},
		{"1999-12-31", "DEC 31, 1999", "31-Dec-1999", "December 31 1999", "31.12.1999"},
		{"1999-12-31 23:59:59.999999"},
		{"1/1/2000", "01/01/2000", "2000-01-01 00:00", "Jan 1, 2000", "1 jan 2000", "1.1.2000", "01.01.2000"},
		{"2000-01-01T00:00:00.000001"},
		{"2000-01-01T00:30", "1999-12-31T23:30:00-01:00"}, // a zone's offset rolls the day
		{"2000-01-01T10:00", "2000-01-01T12:00+02:00", "2000-01-01T09:30:00-0030", "2000-01-01 10:00Z"},
		{"2/29/2000", "Feb 29 2000", "29.2.2000"},
		{"2000-02-29T23:30", "2000-03-01 00:30+0100"},
		{"2000-03-01", "2000/03/01"},
		{"Sept 30 2015", "Sep 30, 2015", "30 September 2015"},
		{"12/31/2015"},
		{"2016-01-01", "2016-01"},
	}
	for i := range order {
		for j := range order {
			for _, x := range order[i] {
				for _, y := range order[j] {
					a, oka := parseDate([]byte(x))
					b, okb := parseDate([]byte(y))
					if !oka || !okb || cmpInt(a, b) != cmpInt(int64(i), int64(j)) {
						t.Fatalf("%s vs %s: %d %d %v %v", x, y, a, b, oka, okb)
					}
				}
			}
		}
	}
	for _, bad := range []string{"2/29/1900", "13/1/2000", "0/1/2000", "1/32/2000", "4/31/2000", "1/1/200", "1/1/20000",
		"2000-1-01", "1//2000", "", "a/b/cccc", "2000-13", "2000-1", "Jan 2000", "Janu 1 2000", "Jan  1 2000", "Jan 1,2000",
		"1 Jan, 2000", "2000-01-01T24:00", "2000-01-01T10", "2000-01-01 10:00:00.1234567", "2000-01-01T10:00+2:00", "2000-01-01T10:00+24:00",
		"2000-01-01Z", "1/1/2000 10:00", "2000-01-01T10:00:60", "31 Feb 2000", "1-Jan 2000", "Jan 1 2000 ",
		"31.2.2000", "1.13.2000", "1.1.20", "1..2000", "1.1.2000 10:00", "1.1/2000", "001.1.2000"} {
		if _, ok := parseDate([]byte(bad)); ok {
			t.Errorf("%q is a date", bad)
		}
	}
	// the reference reads the same forms
	for _, row := range order {
		for _, x := range row {
			if _, ok := refDate(x); !ok {
				t.Errorf("refDate(%q): not a date", x)
			}
		}
	}
}

// A filter value that reads as a date in a form parlab does not know is a
// usage error naming the forms, never a silent byte comparison.
func TestDatish(t *testing.T) {
	for _, v := range []string{"30.2.2005", "2005.1.2", "1/2/05", "2005-1-2", "Jan 2005", "2005 Jan 1", "1st Jan 2005",
		"2015-01-01T10:00 CET", "13/45/2010", "2015-02-30", "March 3rd, 2015"} {
		_, err := ParseCond("d<" + v)
		if err == nil || !strings.Contains(err.Error(), "Mon D YYYY") {
			t.Errorf("d<%s: %v, want an error naming the date forms", v, err)
		}
		if !refNotQuite(v) {
			t.Errorf("refNotQuite(%q) = false", v)
		}
	}
	for _, v := range []string{"Europe", "5k", "3-Pack", "1.2.3", "Maybe", "Mayo 3", "Jan 1 2005", "2015-01", "1.2.2005"} {
		if _, err := ParseCond("d<" + v); err != nil && strings.Contains(err.Error(), "Mon D YYYY") {
			t.Errorf("d<%s: %v", v, err)
		}
	}
}

func TestCmpDec(t *testing.T) {
	for _, tt := range []struct {
		a    int64
		sa   int
		b    int64
		sb   int
		want int
	}{
		{71, 1, 710, 2, 0}, {5000, 0, 50005, 1, -1}, {-1, 0, -10, 1, 0}, {-2, 0, -15, 1, -1},
		{1, 18, 0, 0, 1}, {-1, 18, 0, 0, -1}, {9223372036854775807, 0, 9223372036854775807, 18, 1},
		{-9223372036854775807, 18, -9223372036854775807, 0, 1}, {3, 0, -3, 5, 1},
	} {
		if got := cmpDec(tt.a, tt.sa, tt.b, tt.sb); got != tt.want {
			t.Errorf("cmpDec(%d e-%d, %d e-%d) = %d", tt.a, tt.sa, tt.b, tt.sb, got)
		}
		if got := cmpDec(tt.b, tt.sb, tt.a, tt.sa); got != -tt.want {
			t.Errorf("cmpDec(%d e-%d, %d e-%d) = %d", tt.b, tt.sb, tt.a, tt.sa, got)
		}
	}
}

// avg rounds half to even at AvgScale or the sum's scale.
func TestAvg(t *testing.T) {
	for _, tt := range []struct {
		sum  Fixed
		n    int64
		want string
	}{
		{Fixed{V: 1, Scale: 0}, 3, "0.333333"}, {Fixed{V: 2, Scale: 0}, 3, "0.666667"},
		{Fixed{V: 5, Scale: 7}, 2, "0.0000002"}, {Fixed{V: 15, Scale: 7}, 2, "0.0000008"},
		{Fixed{V: -15, Scale: 7}, 2, "-0.0000008"}, {Fixed{V: -1, Scale: 0}, 3, "-0.333333"},
		{Fixed{V: 1000, Scale: 2}, 4, "2.500000"}, {Fixed{C: wideOf(-7)}, 2, "-3.500000"},
	} {
		if got := string(appendAvg(nil, tt.sum, tt.n, false)); got != tt.want {
			t.Errorf("avg(%s / %d) = %s, want %s", tt.sum, tt.n, got, tt.want)
		}
	}
	if string(appendAvg(nil, Fixed{}, 0, false)) != "" {
		t.Error("an average of no rows")
	}
}

// avgQuick, the 64-bit average, agrees with the big.Int one wherever it
// answers, answers for sums that fit, and declines those that do not.
func TestAvgQuick(t *testing.T) {
	oneGoroutine(t)
	r := rand.New(rand.NewPCG(3, 4))
	check := func(sum Fixed, n int64) bool {
		scale := max(AvgScale, int(sum.Scale))
		q, ok := avgQuick(sum, n, scale)
		if ok {
			want := roundDiv(scaleTo(sum, int64(scale)), big.NewInt(n))
			if !want.IsInt64() || want.Int64() != q {
				t.Fatalf("avgQuick(%s / %d) = %d, want %s", sum, n, q, want)
			}
		}
		return ok
	}
	for _, c := range []struct {
		sum Fixed
		n   int64
		ok  bool
	}{
		{Fixed{V: 5, Scale: 7}, 2, true}, {Fixed{V: 15, Scale: 7}, 2, true}, {Fixed{V: -15, Scale: 7}, 2, true},
		{Fixed{V: 25, Scale: 7}, 10, true}, {Fixed{V: -25, Scale: 7}, 10, true}, {Fixed{V: 35, Scale: 7}, 10, true},
		{Fixed{V: math.MaxInt64, Scale: 6}, 3, true}, {Fixed{V: math.MinInt64 + 1, Scale: 6}, 3, true},
		{Fixed{V: math.MaxInt64 / 10, Scale: 5}, 7, true}, {Fixed{V: math.MaxInt64/10 + 1, Scale: 5}, 7, false},
		{Fixed{V: math.MinInt64, Scale: 6}, 3, false}, {Fixed{V: 1, Scale: 0}, math.MaxInt64, true},
		{Fixed{V: 1, C: wideOf(-1), Scale: 2}, 4, true}, {Fixed{C: wideOf(math.MaxInt64), V: math.MaxInt64}, 2, false},
	} {
		if ok := check(c.sum, c.n); ok != c.ok {
			t.Errorf("avgQuick(%s / %d): ok %v, want %v", c.sum, c.n, ok, c.ok)
		}
	}
	for range 100000 {
		sum := Fixed{V: r.Int64() >> r.IntN(64), Scale: int64(r.IntN(MaxScale + 1))}
		if r.IntN(2) == 0 {
			sum.V = -sum.V
		}
		n := r.Int64()>>r.IntN(63) + 1
		if r.IntN(4) == 0 { // ties: the scaled sum an odd multiple of n/2
			n = 2 * (r.Int64N(1000) + 1)
			sum = Fixed{V: (2*r.Int64N(1000) + 1) * n / 2, Scale: AvgScale}
		}
		check(sum, n)
	}
}

// Groups survive their binary form, and a damaged one is an error.
func TestGroupsBinary(t *testing.T) {
	g := newGroups(2, NeedSum|NeedMin|NeedMax)
	for i, k := range []string{"a", "", "a\x00b", "a"} {
		j := g.at([]byte(k))
		g.Count[j]++
		g.Sums[j*2].Add(int64(i*100), 2)
		g.Mins[j*2+1].takeMin(int64(-i), 1)
		g.Maxs[j*2].takeMax(int64(i), 0)
	}
	g.Sums[0].AddFixed(Fixed{C: wideOf(-5), Scale: 2})
	b := g.AppendBinary(nil)
	back, err := DecodeGroups(b)
	if err != nil || !back.Equal(g) || !g.Equal(back) || back.Len() != 3 {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	for cut := range len(b) {
		if _, err := DecodeGroups(b[:cut]); err == nil {
			t.Fatalf("cut at %d: no error", cut)
		}
	}
	if _, err := DecodeGroups(append(b, 0)); err == nil {
		t.Error("a trailing byte: no error")
	}
	// counts alone: slots 0, need 0, then groups of (key length, key, count);
	// more than a batch of the index's build (hotRecs), long keys among them
	many := binary.AppendUvarint([]byte{0, 0}, 300)
	for i := range 300 {
		key := fmt.Sprint(i)
		if i%7 == 0 {
			key = fmt.Sprintf("a key of more than 15 bytes, %d", i)
		}
		many = append(binary.AppendUvarint(many, uint64(len(key))), key...)
		many = binary.AppendVarint(many, int64(i))
	}
	many = append(many, 0, 0) // no value skipped, no dates or text
	if g, err := DecodeGroups(many); err != nil || g.Len() != 300 || g.Count[g.find([]byte("299"))] != 299 ||
		g.Count[g.find([]byte("a key of more than 15 bytes, 294"))] != 294 {
		t.Errorf("300 groups: %v", err)
	}
	// counts alone: slots 0, need 0, then groups of (key length, key, count)
	if g, err := DecodeGroups([]byte{0, 0, 2, 1, 'a', 2, 1, 'b', 4, 0, 0}); err != nil || g.Len() != 2 || g.Count[g.find([]byte("b"))] != 2 {
		t.Errorf("two groups: %v %+v", err, g)
	}
	for _, b := range [][]byte{
		{0, 0, 2, 1, 'a', 2, 1, 'a', 2, 0, 0},            // a key twice in a row
		{0, 0, 3, 1, 'a', 2, 1, 'b', 2, 1, 'a', 2, 0, 0}, // a key twice
		{0, 0, 5, 1, 'a', 2, 1, 'b', 2, 1, 'c', 2},       // more groups than the bytes hold
		append(append(append([]byte{0, 0, 2, 16}, "0123456789abcdef"...), 2, 16), "0123456789abcdef\x02\x00\x00"...), // a long key twice
		{1, 0, 1, 1, 'a', 2, 0, 1, 1, 0, 0, 0, 0, 1, 'x', 1, 'x', 0, 0, 0},                                           // a word past the groups' slots
		{1, 0, 1, 1, 'a', 2, 0, 1, 0, 0, 0, 0, 0, 200, 'x', 1, 'x', 0, 0, 0},                                         // a word longer than the bytes
	} {
		if _, err := DecodeGroups(b); err == nil {
			t.Errorf("% x: no error", b)
		}
	}
}

// notQuite against refNotQuite, on random values over the bytes numbers,
// dates and their near misses are made of.
func TestNotQuiteReference(t *testing.T) {
	oneGoroutine(t)
	const alphabet = "0123456789+-.eE,_ /-kx"
	rng := rand.New(rand.NewPCG(3, 5))
	declined := 0
	for range 200000 {
		b := make([]byte, rng.IntN(13))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		v := string(b)
		_, err := bindCond(Cond{"c", OpLt, v, false, nil})
		if got, want := err != nil, refNotQuite(v); got != want {
			t.Fatalf("%q: bindCond %v, reference declines: %v", v, err, want)
		}
		if err != nil {
			declined++
			if !errors.Is(err, ErrFilter) {
				t.Fatalf("%q: %v, not ErrFilter", v, err)
			}
		}
	}
	if declined < 1000 {
		t.Fatalf("only %d values declined: the generator misses the near misses", declined)
	}
}

// TestContainsFold checks containsFold on letters that fold across scripts
// and widths, and on bytes that are not UTF-8, against refContainsFold.
func TestContainsFold(t *testing.T) {
	for _, c := range []struct {
		f, v string
		want bool
	}{
		{"Cisco Systems", "cisco", true}, {"CISCO", "Cisco", true}, {"Cis co", "cisco", false},
		{"KELVIN \u212a", "k", true}, {"ſtop", "STOP", true}, {"Straße", "STRASSE", false},
		{"ÉCOLE", "école", true}, {"Σίσυφος", "ΣΊΣΥΦΟΣ", true}, {"a\xffb", "A\xffB", true},
		{"a\xffb", "a\xfeb", false}, {"@", "`", false}, {"[", "{", false}, {"x", "", true}, {"", "x", false},
		{"\ufffd", "\ufffd", true}, {"\xef\xbf", "\ufffd", false},
	} {
		if got := containsFold([]byte(c.f), []byte(c.v)); got != c.want || got != refContainsFold(c.f, c.v) {
			t.Errorf("containsFold(%q, %q) = %v, want %v (reference %v)", c.f, c.v, got, c.want, refContainsFold(c.f, c.v))
		}
	}
}

func FuzzContainsFold(f *testing.F) {
	f.Add("Cisco Systems", "SYS")
	f.Add("ſ\u212a\xff", "SK\xff")
	f.Fuzz(func(t *testing.T, s, v string) {
		if got, want := containsFold([]byte(s), []byte(v)), refContainsFold(s, v); got != want {
			t.Fatalf("containsFold(%q, %q) = %v, reference %v", s, v, got, want)
		}
	})
}
