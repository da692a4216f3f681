package scan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// hotRows are rows that Table.hit and hotWalk must turn down (or count as no match),
// each for a different reason, so that line gives the answer.
var hotRows = []string{
	"Europeans,X,Fruits,Online,C,1/1/2010,1,1/2/2010,1,9.33,6.92,9.33,6.92,2.41",         // longer first field
	"Europe,X,Fruits,Online,C,1/1/2010,1,1/2/2010,1,9.33,6.92,9.33,6.92,-2.41",           // a sign
	"Europe,X,Fruits,Online,C,1/1/2010,1,1/2/2010,1,9.33,6.92,9,6.92,2.41",               // no cents
	"Europe,X,Fruits,Online,C,1/1/2010,1,1/2/2010,1,9.33,6.92,9333,6.92,2.41",            // no point, yet 4 bytes
	"Europe,X,Fruits,Online,C,1/1/2010,1,1/2/2010,1,9.33,6.92,123456789012.34,6.92,2.41", // 12 digits
	"Europe,X,Fruits,Online,C,1/1/2010,1,1/2/2010,1,9.33,6.92,9.33,6.92,2.41,7.77",       // a field more, a number
	// The comma before Total Revenue lies out of the last 64 bytes, and what
	// of the field lies in them reads as a number: 81.25.
	"Europe,X,Fruits,Online,C,1/1/2010,1,1/2/2010,1,9.33,6.92,123456781.25," + strings.Repeat("0", 47) + "6.92,2.41",
	"Europe,X,Fruits,Online,C,1/1/2010,1,1/2/2010,1,9.33,6.92,1.5,6.92,0.125", // new scales: hit stays off after
	"",   // blank
	"\r", // blank, CRLF
	"E",  // a one-byte row (not Europe: no match)
}

// The hot path's refusals, mixed into generated rows at random places (so
// some sit at window edges), give the reference's answer, whole and cut
// at every row start near a window edge.
func TestHotPath(t *testing.T) {
	base := generated(t, 2000, 1)[0].data
	lines := bytes.SplitAfter(base, []byte("\n"))
	rng := rand.New(rand.NewPCG(3, 4))
	for round, scale := range []bool{false, true} {
		var b bytes.Buffer
		b.Write(lines[0]) // header
		for i, l := range lines[1:] {
			b.Write(l)
			if rng.IntN(20) == 0 {
				h := hotRows[rng.IntN(len(hotRows))]
				if !scale && strings.HasSuffix(h, "0.125") {
					continue // round 0 keeps every sum in cents throughout
				}
				fmt.Fprintf(&b, "%s\n", h)
			}
			if i == 1000 && scale {
				b.WriteString(hotRows[6] + "\n")
			}
		}
		in := b.Bytes()
		name := fmt.Sprintf("hot%d.csv", round)
		q := Query{Filters: []Cond{Eq("Region", "Europe")}}
		whole, err := check(t, name, []refFile{{name, in}}, q)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := NewTable(name, in, &q)
		if err != nil {
			t.Fatal(err)
		}
		s, e := tb.Body()
		for _, mode := range hotModes() {
			m := mode()
			for c := s + 1; c < e; c += winBytes - 37 {
				cut := tb.RowStart(c)
				if parts, err := scanInTwo(tb, cut); err != nil || !parts.Equal(&whole) {
					t.Fatalf("%s (%s) cut at %d: %+v (%v), whole %+v", name, m, cut, parts, err, whole)
				}
			}
		}
	}
}

// A money field that is not a number fails the query, whichever path
// meets it: the point and each cent are checked.
func TestHotPathBadNumbers(t *testing.T) {
	base := generated(t, 300, 1)[0].data
	// ':' and '/' sit next to the digits; UTF-8 bytes have the top bit
	// set; '&' to '/' (not ',') differ from '.' by at most 9.
	for _, bad := range []string{"9x33", "9.x3", "9.3x", "9.33x", "x.33", "9:3.33", "9/3.33", "9\xc3\xa9.33",
		"9.3:", "9.:3", "9./3", "9.\xc3\xa9",
		"93&33", "93'33", "93(33", "93)33", "93*33", "93+33", "93-33", "93/33"} {
		row := "Europe,X,Fruits,Online,C,1/1/2010,1,1/2/2010,1,9.33,6.92," + bad + ",6.92,2.41\n"
		in := append(append([]byte{}, base...), row...)
		in = append(in, base[bytes.IndexByte(base, '\n')+1:]...)
		if _, err := check(t, bad, []refFile{{"bad.csv", in}}, Query{Filters: []Cond{Eq("Region", "Europe")}}); !errors.Is(err, ErrSyntax) {
			t.Fatalf("revenue %q: error %v, want a syntax error", bad, err)
		}
	}
}

// A row that ends right after the filter value matches and is short: hit
// must leave it to line, which reports it.
func TestHotPathShortRow(t *testing.T) {
	base := generated(t, 300, 1)[0].data
	in := append(append([]byte{}, base...), "Europe\n"...)
	in = append(in, base[bytes.IndexByte(base, '\n')+1:]...)
	if _, err := check(t, "short", []refFile{{"short.csv", in}}, Query{Filters: []Cond{Eq("Region", "Europe")}}); err == nil {
		t.Fatal("a matching one-field row gave no error")
	}
}

// A sum that would leave the int64 range in hit is put back, with the sums
// added before it (hotWalk adds none of its call's rows), and line adds the
// row into the sum's carried part: every row counts once, and the total is
// exact past the int64 range.
func TestHotPathOverflow(t *testing.T) {
	f := generated(t, 200, 1)[0]
	q := Query{Filters: []Cond{Eq("Region", "Europe")}}
	tb, err := NewTable(f.name, f.data, &q)
	if err != nil {
		t.Fatal(err)
	}
	s, e := tb.Body()
	var want refAnswer
	if err := refQuery([]refFile{f}, q, &want); err != nil {
		t.Fatal(err)
	}
	full := int64(math.MaxInt64 - 1)
	for _, mode := range hotModes() {
		m := mode()
		r := Result{}
		r.Sums[0] = Fixed{V: 0, Scale: 2}
		r.Sums[1] = Fixed{V: full, Scale: 2} // Total Profit: full
		if err := tb.Scan(s, e, &r); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if got := r.Sums[0].String(); got != want.sums[0].String() {
			t.Fatalf("%s: revenue %s, want %s", m, got, want.sums[0])
		}
		wantProfit := new(big.Int).Add(want.sums[1].v, big.NewInt(full))
		if got := r.Sums[1].String(); got != (refSum{v: wantProfit, scale: 2}).String() {
			t.Fatalf("%s: profit %s, want %s", m, got, refSum{v: wantProfit, scale: 2})
		}
		if r.Matched != want.matched || r.Rows != want.rows {
			t.Fatalf("%s: %d of %d rows, want %d of %d", m, r.Matched, r.Rows, want.matched, want.rows)
		}
	}
}

// The scan allocates nothing, whichever way bulk takes its rows: the
// marks and the walk's state stay on the stack (hotWalk once made the marks
// escape, an allocation of 2 KB a Scan).
func TestScanAllocs(t *testing.T) {
	f := generated(t, 2000, 1)[0]
	// (a group-by allocates its groups once: the runs after AllocsPerRun's
	// first find them made)
	for _, q := range []Query{{Filters: []Cond{Eq("Region", "Europe")}}, {Filters: []Cond{Eq("Country", "France")}}, {},
		{Filters: []Cond{Eq("Item Type", "Office Supplies")}}, {Sum: []string{"Units Sold"}},
		{By: []string{"Region"}, Sum: []string{"Total Revenue", "Total Profit"}},
		{Filters: []Cond{Eq("Sales Channel", "Online")}, By: []string{"Item Type"}, Min: []string{"Units Sold"}, Avg: []string{"Total Profit"}},
		{By: []string{"Country", "Item Type"}, Sum: []string{"Total Profit"}}} {
		tb, err := NewTable(f.name, f.data, &q)
		if err != nil {
			t.Fatal(err)
		}
		s, e := tb.Body()
		for _, mode := range hotModes() {
			m := mode()
			var r Result
			if n := testing.AllocsPerRun(5, func() {
				if err := tb.Scan(s, e, &r); err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("%+v (%s): %.0f allocations a Scan", q, m, n)
			}
		}
	}
}

// A window packed with the largest values hotWalk takes (about 290 rows of
// eight 9s and 99 cents) sums exactly: its digit lanes do not overflow.
func TestHotPathDenseWindow(t *testing.T) {
	in := []byte("R,S\n" + strings.Repeat("E,99999999.99\n", 3000) + strings.Repeat("E,1.01\nF,7.00\n", 500))
	r, err := check(t, "dense", []refFile{{"dense.csv", in}}, Query{Filters: []Cond{Eq("R", "E")}, Sum: []string{"S"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "300000000475.00"; r.Sums[0].String() != want {
		t.Fatalf("sum %s, want %s", r.Sums[0], want)
	}
}

// A filter whose field ends the row (the last column, or a row of one
// field) has no comma after its value: hotWalk hands such a row back, and
// every path matches it as the reference does, in LF and CR LF files.
func TestFilterAtRowEnd(t *testing.T) {
	oneGoroutine(t)
	f := generated(t, 2000, 1)[0]
	rows := bytes.Split(f.data, []byte("\n"))
	last := string(rows[5][bytes.LastIndexByte(rows[5], ',')+1:])
	crlf := bytes.ReplaceAll(f.data, []byte("\n"), []byte("\r\n"))
	long := "a long value 15" // 15 bytes, as long as hotWalk compares
	short := []byte("R,S\n" + strings.Repeat(long+"\n"+long+",1.00\nx,2.00\n", 40))
	for _, c := range []struct {
		name string
		in   []byte
		q    Query
	}{
		{"last column", f.data, Query{Filters: []Cond{Eq("Total Profit", last)}}},
		{"last column, CR LF", crlf, Query{Filters: []Cond{Eq("Total Profit", last)}}},
		{"last column, grouped", f.data, Query{Filters: []Cond{{"Total Profit", OpEq, last, false, nil}}, By: []string{"Region"}, Sum: []string{"Units Sold"}}},
		{"last column, then another", crlf, Query{Filters: []Cond{{"Total Profit", OpEq, last, false, nil}, {"Units Sold", OpGt, "0", false, nil}}}},
	} {
		if c.q.By == nil && len(c.q.Filters) == 0 {
			if r, err := check(t, c.name, []refFile{{"f.csv", c.in}}, c.q); err != nil || r.Matched == 0 {
				t.Errorf("%s: matched %d, error %v", c.name, r.Matched, err)
			}
			continue
		}
		if got, err := checkGen(t, c.name, []refFile{{"f.csv", c.in}}, c.q); err != nil || got.matched == 0 {
			t.Errorf("%s: matched %d, error %v", c.name, got.matched, err)
		}
	}
	// a row of the value alone is short: an error, in every path
	for _, q := range []Query{{Filters: []Cond{Eq("R", long)}, Sum: []string{"S"}}, {Filters: []Cond{{"R", OpEq, long, false, nil}}, Min: []string{"S"}}} {
		if _, err := checkGen(t, "short", []refFile{{"s.csv", short}}, q); err == nil {
			t.Errorf("%+v: a row of the value alone is no error", q)
		}
	}
}

// numOn's bounds hold a value exactly when the filter does, for values at
// scale 0 and 2 around filters with fewer, as many and more decimals,
// negative ones, and ones far out of range, under every operator (hotWalk
// compares v - lo with hi - lo as unsigned words).
func TestNumericBounds(t *testing.T) {
	for _, val := range []string{"5000", "5000.5", "0.125", "-3", "12.99", "0", "99999999999999999", "-1e3x", "9999999999", "1", "13.00"} {
		for op := OpEq; op <= OpGe; op++ {
			c, err := bindCond(Cond{"x", op, val, false, nil})
			if err != nil {
				t.Fatal(err)
			}
			c.field = 1
			hp := hotPlan{nsum: 0, nparse: 0}
			if ok := hp.numOn(&c, 3); ok != (c.kind == kindNumber) {
				t.Fatalf("%s %s: numOn %v, kind %v", op, val, ok, c.kind)
			}
			if c.kind != kindNumber {
				continue
			}
			for si, sc := range []int{0, 2} {
				for _, v := range []int64{0, 1, 2, 12, 13, 1298, 1299, 1300, 4999, 5000, 5001, 500049, 500050, 500051, 9999999999} {
					want, _ := c.test([]byte(Fixed{V: v, Scale: int64(sc)}.String()))
					lo, hi := hp.numlo[0][si], hp.numhi[0][si]
					if got := uint64(v-lo) <= uint64(hi-lo); got != want {
						t.Errorf("%d at scale %d %s %s: bounds [%d, %d] say %v", v, sc, op, val, hp.numlo[0][si], hp.numhi[0][si], got)
					}
				}
			}
		}
	}
}

// dateSpanFile is a file of n rows whose column d holds dates in every
// shape hotWalk reads (M/D/YYYY of each width, YYYY-MM-DD), the last
// days of months, leap days, and the values it hands back (a time of
// day, other forms, an empty field), extra (if not empty) among them, in
// rows whose other fields are long or short;
// the date is the first column, the second, (from the row's end) the
// third of four, or the last, as at says.
func dateSpanFile(n, at int, extra string) []byte {
	vals := []string{"1/1/2015", "1/9/2015", "9/30/2015", "10/1/2015", "10/10/2015", "12/31/2014", "12/31/2015",
		"1/1/2016", "2/28/2015", "2/29/2016", "2/28/2016", "3/1/2016", "4/30/2015", "6/15/2015", "11/30/2015",
		"01/01/2015", "01/5/2015", "2015-01-01", "2015-12-31", "2016-01-01", "2015-06-15", "2014-12-31",
		"6/15/2015 12:00 PM", "2015-06-15T12:00:00", "2015-06-15 00:00", "Jun 15 2015", "2015/6/15", "15-Jun-2015", "",
		"1/1/0000", "12/31/9999", "2015-02-28"}
	if extra != "" {
		vals = append(vals, extra)
	}
	head := [4]string{"D,R,N,V\n", "R,D,N,V\n", "R,N,D,V\n", "R,N,V,D\n"}[at]
	b := []byte(head)
	for i := range n {
		d := vals[(i*7)%len(vals)]
		if i%5 != 0 { // mostly the fast shapes
			d = vals[(i*3)%22]
		}
		r := "r"
		if i%4 == 1 { // the date's comma past the row's first 64 bytes (hotWalk's lead finds it the long way)
			r += strings.Repeat("x", 70)
		}
		v := fmt.Sprintf("%d.%02d", i%1000, i%100)
		if i%6 == 2 { // a row that ends within a few bytes of the date
			v = strconv.Itoa(i % 10)
		}
		row := [4]string{d + ",%s,%d,%s\n", "%s," + d + ",%d,%s\n", "%s,%d," + d + ",%s\n", "%s,%d,%s," + d + "\n"}[at]
		b = fmt.Appendf(b, row, r, i%97, v)
	}
	return b
}

// A date column's filters, read by hotWalk on their span (hotPlan.dateOn:
// a range's two filters on one span) or as its lead (dateLead: a later
// column's, with no = to lead) or handed back, give the
// reference's answer in every way bulk takes rows, for every comparison
// with a day or an instant, a date column decided or read as it looks,
// the column first, in the middle, near the row's end or last; and a
// value that is no date is the same error.
func TestDateSpans(t *testing.T) {
	bounds := []string{"2015-01-01", "2016-02-29", "2015-06-15 12:00", "2014-12-31T23:59:59"}
	kinds := [][]ColumnKind{nil, {{"D", KindDate, "a date"}, {"V", KindNumber, "summed"}}}
	short := testing.Short() // (the race run: the middle column, two bounds, every other bad value; the full run has them all)
	if short {
		bounds = bounds[1:3]
	}
	for at := range 4 {
		if short && at != 1 {
			continue
		}
		in := dateSpanFile(1500, at, "")
		files := []refFile{{"d.csv", in}}
		q := Query{Filters: []Cond{{Col: "D", Op: OpGe, Value: bounds[0]}, {Col: "D", Op: OpLt, Value: bounds[1]}}, Sum: []string{"V"}}
		if tb, err := NewTable("d.csv", in, &q); err != nil {
			t.Fatal(err)
		} else if h := tb.b.gen.hot; h == nil || !h.lanes || h.tested != 2 || h.hp.span[2] != -1 ||
			(at == 0) != (h.hp.eqop[1] == 3) || (at == 0) == (h.hp.ldate == 1 && h.hp.span[1] == -1) {
			// (the first column's is a span: a lead is a later column's)
			t.Fatalf("at %d: the range is not one date span or lead of hotWalk's: %+v", at, h)
		}
		for ki, ks := range kinds {
			for _, lo := range bounds {
				for _, op := range []Op{OpLt, OpLe, OpGt, OpGe, OpEq} {
					q := Query{Filters: []Cond{{Col: "D", Op: op, Value: lo}}, Sum: []string{"V"}, Kinds: ks}
					checkGen(t, fmt.Sprintf("at %d, kinds %d, %s", at, ki, q.Filters[0]), files, q)
				}
				for _, hi := range bounds {
					q := Query{Filters: []Cond{{Col: "D", Op: OpGe, Value: lo}, {Col: "D", Op: OpLt, Value: hi}}, Sum: []string{"V"}, Kinds: ks}
					checkGen(t, fmt.Sprintf("at %d, kinds %d, %s and %s", at, ki, q.Filters[0], q.Filters[1]), files, q)
					if lo != bounds[0] {
						continue
					}
					q.Filters = append([]Cond{{Col: "R", Op: OpEq, Value: "r"}}, q.Filters...)
					q.By = []string{"N"}
					checkGen(t, fmt.Sprintf("at %d, kinds %d, r, %s and %s by N", at, ki, q.Filters[1], q.Filters[2]), files, q)
				}
			}
		}
		bads := []string{"2/30/2015", "13/1/2015", "0/5/2015", "1/0/2015", "2015-13-01", "2015-00-10", "2/29/2015", "1/1/15", "2015-1-1x", "x/1/2015", "1//2015", "1/1/201x"}
		for m := 1; m <= 12; m++ { // each month's first day past its last
			bads = append(bads, fmt.Sprintf("%d/%d/2015", m, daysIn(2015, m)+1), fmt.Sprintf("2015-%02d-%02d", m, daysIn(2015, m)+1))
		}
		for i, bad := range bads {
			if short && i%2 == 1 {
				continue
			}
			q := Query{Filters: []Cond{{Col: "D", Op: OpGe, Value: "2015-01-01"}, {Col: "D", Op: OpLt, Value: "2016-01-01"}}, Sum: []string{"V"}}
			if _, err := checkGen(t, fmt.Sprintf("at %d, %q", at, bad), []refFile{{"d.csv", dateSpanFile(1500, at, bad)}}, q); err == nil {
				t.Errorf("at %d: %q in a date column gave no error", at, bad)
			}
		}
	}
}

// dateKey is the key hotWalk makes of a date value (hot_amd64.s's
// spandate, dateOfKey's inverse): the day's ordinal above the field's
// first 4 bytes, big-endian.
func dateKey(y, m, d int, text []byte) int64 {
	return int64(y*512+m*32+d)<<32 | int64(binary.BigEndian.Uint32(text))
}

// dateKey orders the spellings of a day as cmpDateWord orders their
// Words (by their bytes), and dateOfKey gives back each one's text and
// instant, for each form hotWalk reads a date value in.
func TestDateKeys(t *testing.T) {
	for _, day := range [][3]int{{2015, 1, 1}, {2015, 1, 10}, {2015, 10, 1}, {2015, 12, 31}, {1015, 12, 5}, {115, 1, 5}, {2, 2, 2}, {9999, 9, 28}} {
		y, m, d := day[0], day[1], day[2]
		var texts []string
		for _, mf := range []string{"%d", "%02d"} {
			for _, df := range []string{"%d", "%02d"} {
				texts = append(texts, fmt.Sprintf(mf+"/"+df+"/%04d", m, d, y))
			}
		}
		texts = append(texts, fmt.Sprintf("%04d-%02d-%02d", y, m, d))
		slices.Sort(texts)
		texts = slices.Compact(texts)
		var keys []int64
		for _, text := range texts {
			want, ok := parseDate([]byte(text))
			if !ok {
				t.Fatalf("%q: not a date", text)
			}
			key := dateKey(y, m, d, []byte(text))
			if got, at := dateOfKey(key); got != text || at != want {
				t.Errorf("%q: key %#x reads back as %q at %d, want %d", text, key, got, at, want)
			}
			keys = append(keys, key)
		}
		if !slices.IsSorted(keys) || len(slices.Compact(slices.Clone(keys))) != len(keys) {
			t.Errorf("%v: keys %x do not order as the texts", texts, keys)
		}
	}
}

// A date column's minimum and maximum by group, which hotWalk reads on a
// span (groupHot.dslot: slot mode's entries keep their keys, emit mode
// and the portable path read the field), are the reference's, with the
// day's spelling that sorts last (first) among those of the extreme day:
// the column first, in the middle or last; with sums beside, a filter, a
// second key; and with values it hands back (empty, a leap day, a time,
// other forms) among them.
func TestDateExtremes(t *testing.T) {
	spell := []string{"%[2]d/%[3]d/%[1]d", "%02[2]d/%02[3]d/%[1]d", "%[2]d/%02[3]d/%[1]d", "%[1]d-%02[2]d-%02[3]d"}
	odd := []string{"", "2/29/2016", "6/15/2015 10:00 AM", "Jun 15 2015", "2015-06-15T23:00:00"}
	for at := range 3 {
		if testing.Short() && at != 1 {
			continue // (the race run: the middle column; the full run has all three)
		}
		b := []byte([3]string{"D,K,L,V\n", "K,D,L,V\n", "K,L,V,D\n"}[at])
		for i := range 2500 {
			y, m, d := 2010+i%7, 1+(i*5)%12, 1+(i*11)%28
			if i%97 == 0 {
				y, m, d = 2017, 12, 28 // the last day, in every spelling
			}
			day := fmt.Sprintf(spell[(i/3)%len(spell)], y, m, d)
			if i%13 == 0 {
				day = odd[(i/13)%len(odd)]
			}
			k, l := string(rune('a'+i%5)), string(rune('x'+i%2))
			row := [3]string{day + ",%s,%s,%d.%02d\n", "%s," + day + ",%s,%d.%02d\n", "%s,%s,%d.%02d," + day + "\n"}[at]
			b = fmt.Appendf(b, row, k, l, i%1000, i%100)
		}
		files := []refFile{{"d.csv", b}}
		kinds := []ColumnKind{{"D", KindDate, "a date"}, {"V", KindNumber, "summed"}}
		for _, q := range []Query{
			{By: []string{"K"}, Max: []string{"D"}, Kinds: kinds},
			{By: []string{"K"}, Min: []string{"D"}, Max: []string{"D", "V"}, Sum: []string{"V"}, Kinds: kinds},
			{Filters: []Cond{{Col: "L", Op: OpEq, Value: "x"}}, By: []string{"K"}, Min: []string{"D"}, Kinds: kinds},
			{Filters: []Cond{{Col: "K", Op: OpEq, Value: "a"}, {Col: "L", Op: OpNe, Value: "x"}}, By: []string{"K"}, Max: []string{"D"}, Kinds: kinds},
			{By: []string{"K", "L"}, Max: []string{"D"}, Min: []string{"D"}, Kinds: kinds},
			{Max: []string{"D"}, Min: []string{"D"}, Kinds: kinds},
		} {
			tb, err := NewTable("d.csv", b, &q)
			if err != nil {
				t.Fatal(err)
			}
			if h := tb.b.gen.hot; h == nil || h.dslot < 0 || !h.all {
				t.Fatalf("at %d, %+v: no date value on a span: %+v", at, q, h)
			}
			checkGen(t, fmt.Sprintf("at %d, %+v", at, q), files, q)
		}
	}
}

// textSpanFile is 1500 rows of columns K (vals in turn), L (a, b or c),
// N and V (a number), K first, second or third of four as at says.
func textSpanFile(vals []string, at int) []byte {
	b := []byte([3]string{"K,L,N,V\n", "L,K,N,V\n", "L,N,K,V\n"}[at])
	for i := range 1500 {
		k, l := vals[(i*7)%len(vals)], string(rune('a'+i%3))
		row := [3]string{"%[1]s,%[2]s,%[3]d,%[4]d.%02[5]d\n", "%[2]s,%[1]s,%[3]d,%[4]d.%02[5]d\n", "%[2]s,%[3]d,%[1]s,%[4]d.%02[5]d\n"}[at]
		b = fmt.Appendf(b, row, k, l, i%50, i%1000, i%100)
	}
	return b
}

// An in or not in list that hotWalk tests on its span (hotPlan.inOn: up
// to maxIn values of at most 16 bytes) gives the reference's answer in
// every way bulk takes rows: values that share a prefix, are 15, 16 or
// 17 bytes long, or missing, the column first, in the middle or near the
// row's end, with a later filter and a group-by; a longer list, or a
// longer value, is left to Go and agrees too.
func TestInSpans(t *testing.T) {
	vals := []string{"Euro", "Europe", "Europe2", "Asia", "", "abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq", "x", "Oceania and more"}
	for at := range 3 {
		if testing.Short() && at != 1 {
			continue // (the race run: the middle column; the full run has all three)
		}
		b := textSpanFile(vals, at)
		files := []refFile{{"k.csv", b}}
		for _, list := range [][]string{{"Europe"}, {"Europe", "Asia"}, {"Euro", "abcdefghijklmnop", "x"}, {"abcdefghijklmno", "Oceania and more", "Europe2", "Asia"},
			{"abcdefghijklmnopq"}, {"Euro", "Europe", "Europe2", "Asia", "x"}} {
			for _, op := range []Op{OpIn, OpNotIn} {
				c := Cond{Col: "K", Op: op, Values: list}
				inAsm := len(list) <= maxIn && len(list[0]) <= 16
				for _, q := range []Query{
					{Filters: []Cond{c}, Sum: []string{"V"}},
					{Filters: []Cond{c, {Col: "L", Op: OpNe, Value: "b"}}, By: []string{"N"}, Sum: []string{"V"}},
					{Filters: []Cond{{Col: "L", Op: OpEq, Value: "a"}, c}, By: []string{"L"}, Max: []string{"V"}},
				} {
					tb, err := NewTable("k.csv", b, &q)
					if err != nil {
						t.Fatal(err)
					}
					h := tb.b.gen.hot
					if got := h != nil && h.hp.st.nin > 0; got != inAsm {
						t.Fatalf("at %d, %s: hotWalk tests it %v, want %v", at, c, got, inAsm)
					}
					checkGen(t, fmt.Sprintf("at %d, %+v", at, q), files, q)
				}
			}
		}
	}
}

// An in list on the first column lets the classifier mark only the rows
// that start with one of its values' first bytes (groupHot.firsts); the
// others are counted, not walked. Against the reference, in every way bulk
// takes rows: values that share a first byte, a row that starts with one
// but is no value, blank lines, a line that is a CR alone and CRLF line
// ends, an empty first field, a quoted one (its window goes to
// quotedBatch), a short row that starts with another byte (never looked
// at, as a first = filter's), and one that starts with a value's byte (an
// error), over several windows.
func TestInFirstBytes(t *testing.T) {
	var b []byte
	b = append(b, "K,N,V\n"...)
	firsts := []string{"Europe", "Asia", "Australia and Oceania", "Eur", "Africa", "", "Zeta", "Europe"}
	for i := range 3 * winBytes / 20 {
		k := firsts[i%len(firsts)]
		switch {
		case i%97 == 0:
			b = append(b, '\n')
		case i%89 == 0:
			b = append(b, "\r\n"...)
		case i%83 == 0 && i > 3*winBytes/40:
			b = fmt.Appendf(b, "%q,%d,%d.%02d\r\n", k, i%7, i%1000, i%100)
		default:
			b = fmt.Appendf(b, "%s,%d,%d.%02d\n", k, i%7, i%1000, i%100)
		}
	}
	short := append(slices.Clone(b), "Zeta,1\n"...)
	bad := append(slices.Clone(b), "Asia,1\n"...)
	for _, list := range [][]string{{"Europe", "Asia"}, {"Asia", "Africa"}, {"Africa", "Eur", "Asia", "Zeta"}, {"Europe"}, {"Asia", "Australia and Oceania"}} {
		marked := !slices.ContainsFunc(list, func(v string) bool { return len(v) > 16 }) // (a longer value: Go tests the list, every row walked)
		c := Cond{Col: "K", Op: OpIn, Values: list}
		for _, q := range []Query{
			{Filters: []Cond{c}, Sum: []string{"V"}},
			{Filters: []Cond{c, {Col: "N", Op: OpNe, Value: "3"}}, By: []string{"N"}, Sum: []string{"V"}},
		} {
			tb, err := NewTable("k.csv", b, &q)
			if err != nil {
				t.Fatal(err)
			}
			if hotAsm && (tb.b.gen.hot != nil && tb.b.gen.hot.firsts != 0) != marked {
				t.Fatalf("%+v: the classifier marks the list's first bytes: %v, want %v", q, !marked, marked)
			}
			for name, data := range map[string][]byte{"k.csv": b, "short.csv": short, "bad.csv": bad} {
				checkGen(t, fmt.Sprintf("%s, %+v", name, q), []refFile{{name, data}}, q)
			}
		}
	}
}

// Contains and starts with, which hotWalk tests on their span
// (hotPlan.textOn: a value of 1 to 16 bytes), give the reference's answer
// in every way bulk takes rows: the value at a field's start, end or
// middle, overlapping itself, the whole field, its first and last bytes
// without the middle (a start to reject), a field of 0 to 40 bytes
// (one whose last start is past 31 goes back), the column first, in the
// middle or near the row's end; a longer value is left to Go.
func TestTextSpans(t *testing.T) {
	vals := []string{"Afghanistan", "Uzbekistan", "stan", "sta", "", "Pakistani food", "aaaaab", "aab", "x", "sewn", "a sewn stan", "abb",
		"Saint Vincent and the Grenadines", strings.Repeat("ab", 20), strings.Repeat("c", 31) + "stan", strings.Repeat("d", 33) + "stan", "0123456789abcdef", "0123456789abcdefg"}
	for at := range 3 {
		if testing.Short() && at != 1 {
			continue // (the race run: the middle column; the full run has all three)
		}
		b := textSpanFile(vals, at)
		files := []refFile{{"k.csv", b}}
		for _, v := range []string{"stan", "a", "aab", "ab", "x", "Afghanistan", "0123456789abcdef", "0123456789abcdefg", "cstan", "dstan", "Saint"} {
			for _, op := range []Op{OpContains, OpPrefix} {
				c := Cond{Col: "K", Op: op, Value: v}
				for _, q := range []Query{
					{Filters: []Cond{c}, Sum: []string{"V"}},
					{Filters: []Cond{{Col: "L", Op: OpEq, Value: "a"}, c}, By: []string{"N"}, Sum: []string{"V"}},
				} {
					tb, err := NewTable("k.csv", b, &q)
					if err != nil {
						t.Fatal(err)
					}
					h := tb.b.gen.hot
					if got := h != nil && h.tested == len(h.rest); got != (len(v) <= 16) {
						t.Fatalf("at %d, %s: hotWalk tests it %v", at, c, got)
					}
					checkGen(t, fmt.Sprintf("at %d, %+v", at, q), files, q)
				}
			}
		}
	}
}

// A key table given back (Result.ReleaseKeys) is emptied and taken by the
// next Groups that needs one: scans of pieces, each into its own Result
// and each released after, answer as one scan of the whole does, and a
// released Result scanned again makes a table of its own.
func TestReleaseKeys(t *testing.T) {
	oneGoroutine(t)
	data := generated(t, 6000, 1)[0].data
	for _, q := range []Query{
		{By: []string{"Country"}, Sum: []string{"Total Profit"}, Max: []string{"Units Sold"}},
		{By: []string{"Region"}, Holistic: []Holistic{{"count_distinct", "Item Type", ""}}},
	} {
		tb, whole := scanWhole(t, "r.csv", data, q)
		var parts []*Result
		for a := tb.body; a < len(data); {
			b := min(a+40000, len(data))
			for b < len(data) && data[b-1] != '\n' {
				b++
			}
			r := &Result{}
			if err := tb.Scan(a, b, r); err != nil {
				t.Fatal(err)
			}
			r.ReleaseKeys()
			if r.Groups != nil && r.Groups.keys != nil {
				t.Fatal("a released Result keeps its key table")
			}
			parts, a = append(parts, r), b
		}
		if got := MergeAll(parts, 1); !got.Equal(&whole) {
			t.Errorf("%+v: the released pieces' answer differs from the whole scan's", q)
		}
		again := *parts[0]
		if err := tb.Scan(tb.body, len(data), &again); err != nil {
			t.Fatal(err)
		}
		if again.Groups.keys == nil && hotAsm {
			t.Errorf("%+v: a released Result scanned again has no key table", q)
		}
	}
}
