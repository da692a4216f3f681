package scan

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// decided is q with its kinds decided from the whole of each file (every
// row a head sample), as spawn decides them from a sample.
func decided(t testing.TB, files []refFile, q Query) (Query, error) {
	t.Helper()
	var d *Decider
	for _, f := range files {
		tb, err := NewTable(f.name, f.data, &q)
		if err != nil {
			return q, err
		}
		if d == nil {
			if d, err = NewDecider(&q, tb); err != nil {
				return q, err
			}
		}
		a, e := tb.Body()
		d.Sample(tb, f.data[a:], a, e-a, true, true, 1+bytes.Count(f.data[:a], []byte{'\n'}))
	}
	q.Kinds = d.Kinds()
	return q, nil
}

// The issue's five hex codes: a text column, so = compares bytes and the
// minimum is the least in byte order, where each value read by itself
// made 0000E0 equal every code that reads as a zero.
func TestKindsHexCodes(t *testing.T) {
	files := []refFile{{"codes.csv", []byte("code,n\n00E009,1\n0000E0,2\n000E40,3\n00C1,4\n0041,5\n")}}
	q, err := decided(t, files, Query{Filters: []Cond{{Col: "code", Op: OpEq, Value: "0000E0"}}, Sum: []string{"n"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Kinds) != 2 || q.Kinds[0].Col != "n" || q.Kinds[0].Kind != KindNumber || q.Kinds[1].Kind != KindText ||
		!strings.Contains(q.Kinds[1].Why, `"00C1" at codes.csv line 5 is not a number`) {
		t.Fatalf("kinds %+v", q.Kinds)
	}
	got, err := checkGen(t, "hex", files, q)
	if err != nil || got.matched != 1 || got.cells[0][0] != "2" {
		t.Fatalf("code=0000E0: %+v %v, want 1 row summing 2", got, err)
	}
	// undecided, the old rule: five matches of six (every code that reads as 0)
	auto := q
	auto.Kinds = nil
	if got, _ := checkGen(t, "hex auto", files, auto); got.matched != 3 {
		t.Fatalf("undecided: %d matches, want the value-by-value rule's 3", got.matched)
	}
	q, _ = decided(t, files, Query{Min: []string{"code"}, Max: []string{"code"}})
	got, err = checkGen(t, "hex min", files, q)
	if err != nil || got.cells[0][0] != "0000E0" || got.cells[0][1] != "00E009" {
		t.Fatalf("min/max code: %+v %v", got.cells, err)
	}
}

// A number column compares numbers; a value in it that is not one is an
// error that says how the kind was decided and names the flags, in
// whatever filter, aggregate or order it is met.
func TestKindsStrict(t *testing.T) {
	body := "name,price,day\nA,437.20,2015-01-02\nB,5,1/3/2015\nC,NA,2015-01-04\n"
	files := []refFile{{"p.csv", []byte(body)}}
	numeric := []ColumnKind{{"price", KindNumber, "every value in 2 sampled rows is a number"}, {"day", KindDate, "--types"}}
	for _, c := range []struct {
		q       Query
		matched int64
		err     string
	}{
		{Query{Filters: []Cond{{Col: "price", Op: OpEq, Value: "437.2"}}, Kinds: numeric}, 0, `p.csv:4:3: column "price": not a number, in a number column (every value in 2 sampled rows is a number); --types 'price=text' reads it as text, or --null VALUE makes VALUE mean missing: "NA"`},
		{Query{Filters: []Cond{{Col: "price", Op: OpEq, Value: "437.2"}, {Col: "name", Op: OpNe, Value: "C"}}, Kinds: numeric}, 1, ""},
		{Query{Filters: []Cond{{Col: "name", Op: OpNe, Value: "C"}, {Col: "price", Op: OpEq, Value: "437.2"}}, Kinds: numeric}, 1, ""},
		{Query{Filters: []Cond{{Col: "day", Op: OpGe, Value: "Jan 3 2015"}}, Kinds: numeric}, 2, ""},
		{Query{Filters: []Cond{{Col: "day", Op: OpEq, Value: "5"}}, Kinds: numeric}, 0, "is a date column (--types), and \"5\" is not a date"},
		{Query{Filters: []Cond{{Col: "price", Op: OpGt, Value: "abc"}}, Kinds: numeric}, 0, "is a number column"},
		{Query{Max: []string{"price"}, Kinds: numeric}, 0, "not a number, in a number column"},
		{Query{Sum: []string{"name"}, Kinds: []ColumnKind{{"name", KindText, "--types"}}}, 0, "\"name\" is a text column (--types): only numbers are summed, averaged or have a median"},
		{Query{Min: []string{"price"}, Max: []string{"day"}, Kinds: []ColumnKind{{"price", KindText, "t"}}}, 3, ""},
	} {
		got, err := checkGen(t, fmt.Sprint(c.q), files, c.q)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: error %v, want %q", c.q, err, c.err)
			}
			continue
		}
		if err != nil || got.matched != c.matched {
			t.Errorf("%+v: %d matched, %v; want %d", c.q, got.matched, err, c.matched)
		}
	}
}

// The decider: --types first, then sums, then the sample; a value that is
// not the kind is named with its place; a window that may be misaligned
// is left out whole.
func TestDecider(t *testing.T) {
	data := []byte("id,note,amount,when\n1,\"x,\n2\",3.5,2015-01-01\n2,NA,4,2015-01-02\n3,,5,\n")
	q := Query{By: []string{"note"}, Min: []string{"id", "when"}, Sum: []string{"amount"}, Types: []ColumnKind{{"ID", KindText, "--types"}}}
	tb, err := NewTable("a.csv", data, &q)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDecider(&q, tb)
	if err != nil {
		t.Fatal(err)
	}
	a, e := tb.Body()
	d.Sample(tb, data[a:], a, e-a, true, true, 2)
	want := []ColumnKind{
		{"id", KindText, "--types"},
		{"amount", KindNumber, "summed"},
		{"note", KindText, `"x,\n2" at a.csv line 2 is not a number or a date`},
		{"when", KindDate, "every value in 3 sampled rows is a date"},
	}
	if got := d.Kinds(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("kinds\n%+v, want\n%+v", got, want)
	}
	// a window from the middle: the quoted newline misaligns it, so the
	// row "2\",3.5,…" is not taken
	d, _ = NewDecider(&Query{Min: []string{"amount"}}, tb)
	d.Sample(tb, data[a+3:], a+3, e-a-3, false, true, 0)
	if got := d.Kinds(); got[0].Kind != KindText || !strings.Contains(got[0].Why, "no value in 0 sampled rows") {
		t.Fatalf("misaligned window: %+v", got)
	}
	// a head sample that meets NA among numbers says which --null reads it
	d, _ = NewDecider(&Query{Max: []string{"note"}}, tb)
	d.Sample(tb, data[a+24:], a+24, e-a-24, true, true, 4)
	if got := d.Kinds(); got[0].Kind != KindText || got[0].Why != `"NA" at a.csv line 4 is not a number or a date; --null 'NA' would make it missing` {
		t.Fatalf("NA: %+v", got)
	}
	for _, bad := range []Query{
		{Sum: []string{"note"}, Types: []ColumnKind{{"note", KindText, "--types"}}},
		{Min: []string{"id"}, Types: []ColumnKind{{"nope", KindText, "--types"}}},
	} {
		if _, err := NewDecider(&bad, tb); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestParseTypes(t *testing.T) {
	got, err := ParseTypes(`code=text, Unit Price = DOUBLE,"a,b=c"=date`)
	if err != nil || fmt.Sprint(got) != "[{code text --types} {Unit Price number --types} {a,b=c date --types}]" {
		t.Fatalf("%+v %v", got, err)
	}
	for _, bad := range []string{"code", "code=hex", "a=text,A=number", "=text", ""} {
		if _, err := ParseTypes(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if !errors.Is(kindError("x", KindNumber, "--types"), ErrKind) {
		t.Error("kindError is not ErrKind")
	}
}

// Every general query over generated Sales files, with kinds decided from
// them, and again with each column it reads made text: the scanner's
// answer is the reference's in every hot mode.
func TestKindsGenerated(t *testing.T) {
	oneGoroutine(t)
	files := generated(t, 1500, 2)
	for _, q0 := range generalQueries {
		q, err := decided(t, files, q0)
		if err != nil {
			t.Fatal(err)
		}
		for _, ck := range q.Kinds {
			if ck.Why != "summed" && ck.Why != "averaged" && strings.Contains(ck.Col, "Unit") && ck.Kind != KindNumber {
				t.Fatalf("%+v: %s decided %s", q0, ck.Col, ck.Why)
			}
		}
		if _, err := checkGen(t, "decided", files, q); err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		text := q
		text.Kinds = nil
		for _, ck := range q.Kinds {
			if ck.Why != "summed" && ck.Why != "averaged" {
				ck.Kind = KindText
			}
			text.Kinds = append(text.Kinds, ck)
		}
		checkGen(t, "text", files, text)
	}
}

// A query as parlab's commands make one: its filter parsed, each column's
// kind decided from a sample of the file (here all of it), the query bound
// again to the decided kinds, then scanned. The codes are text, so
// code=0000E0 matches that code alone, though 00E009 reads as a number.
func Example_columnKinds() {
	data := []byte("code,n\n00E009,1\n0000E0,2\n00C1,4\n")
	f, err := ParseCond("code=0000E0")
	if err != nil {
		panic(err)
	}
	q := Query{Filters: []Cond{f}, Sum: []string{"n"}}
	tb, err := NewTable("codes.csv", data, &q)
	if err != nil {
		panic(err)
	}
	d, err := NewDecider(&q, tb)
	if err != nil {
		panic(err)
	}
	start, end := tb.Body()
	d.Sample(tb, data[start:], start, end-start, true, true, 2)
	q.Kinds = d.Kinds()
	if err := tb.Rebind(&q); err != nil {
		panic(err)
	}
	var r Result
	if err := tb.Scan(start, end, &r); err != nil {
		panic(err)
	}
	for _, k := range q.Kinds {
		fmt.Printf("%s: %s (%s)\n", k.Col, k.Kind, k.Why)
	}
	fmt.Println(r.Matched, r.Sums[0])
	// Output:
	// n: number (summed)
	// code: text ("00C1" at codes.csv line 4 is not a number)
	// 1 2
}

// Bad rows and their rejects, and the rows over quoted line ends, survive
// a Result's binary form (a child process's answer): the fixed part and
// the variable one; a malformed rejects part is an error.
func TestBadRowsBinaryForm(t *testing.T) {
	r := Result{Rows: 9, Matched: 3, Quoted: 4, QuotedLines: 2, Bad: 5, Words: map[int]*Words{0: {MinText: Word{Text: "a"}}},
		Rejects: []Reject{{File: "a.csv", Off: 100, From: 50, Line: 3, Column: 7, Field: "n", Reason: "not a decimal number", Row: []byte("x,\"y\"\n")},
			{File: "b\xff.csv", Off: -1, Line: 1 << 40, Reason: "quote"}}}
	back, err := DecodeResult(r.AppendBinary(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := back.DecodeVar(r.AppendVar(nil)); err != nil {
		t.Fatal(err)
	}
	if !back.Equal(&r) || !reflect.DeepEqual(back.Rejects, r.Rejects) {
		t.Fatalf("decoded %+v\nwant %+v", back, r)
	}
	v := r.AppendVar(nil)
	for cut := 1; cut < len(v); cut++ {
		var x Result
		if err := x.DecodeVar(v[:cut]); err == nil && cut < len(v) && len(x.Rejects) == len(r.Rejects) && reflect.DeepEqual(x.Rejects, r.Rejects) && x.Words != nil {
			t.Fatalf("a variable part cut at %d of %d decoded whole", cut, len(v))
		}
	}
}

// in, not in, ~ and ^=: their grammar (a list's values quoted where they
// hold a comma), their String read back the same, and their answers against
// the reference in a text, a number and a date column; a missing value
// passes none of them.
func TestInAndContains(t *testing.T) {
	for in, want := range map[string]Cond{
		"Region in (Europe, Asia)":                         {Col: "Region", Op: OpIn, Values: []string{"Europe", "Asia"}},
		`Country NOT IN ("Bonaire, Sint Eustatius", Chad)`: {Col: "Country", Op: OpNotIn, Values: []string{"Bonaire, Sint Eustatius", "Chad"}},
		`"a in (b)" in (1)`:                                {Col: "a in (b)", Op: OpIn, Values: []string{"1"}},
		"name~Cisco":                                       {Col: "name", Op: OpContains, Value: "Cisco"},
		"name ~* cisco":                                    {Col: "name", Op: OpContainsFold, Value: "cisco"},
		`name~"*x"`:                                        {Col: "name", Op: OpContains, Value: "*x", Quoted: true},
		"name ^= Sys":                                      {Col: "name", Op: OpPrefix, Value: "Sys"},
	} {
		got, err := ParseCond(in)
		if err != nil || !got.same(want) {
			t.Errorf("ParseCond(%q) = %+v, %v; want %+v", in, got, err, want)
			continue
		}
		if again, err := ParseCond(got.String()); err != nil || !again.same(got) {
			t.Errorf("%q: String %q reads as %+v, %v", in, got.String(), again, err)
		}
	}
	for _, bad := range []string{"a in ()", "a in (x,,y)", `a in ("x)`, "a~", "a^=", " in (x)"} {
		if _, err := ParseCond(bad); !errors.Is(err, ErrFilter) {
			t.Errorf("ParseCond(%q): %v, want ErrFilter", bad, err)
		}
	}
	body := "name,n,day\nCisco Systems,1,2015-01-31\nSysco,2.0,1/31/2015\n,3,\nciscoe,x,2015-02-01\n"
	files := []refFile{{"c.csv", []byte(body)}}
	for _, c := range []struct {
		cond    string
		matched int64
	}{
		{"name in (Sysco, Cisco Systems)", 2},
		{"name not in (Sysco)", 2}, // the missing name passes neither
		{"name~isco", 2},
		{"name^=Sys", 1},
		{"n~.", 1}, // bytes as written, in a number column too
		{"day in (2015-01-31)", 2},
		{"day not in (Jan 31 2015)", 1},
	} {
		f, err := ParseCond(c.cond)
		if err != nil {
			t.Fatal(err)
		}
		q, err := decided(t, files, Query{Filters: []Cond{f}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := checkGen(t, c.cond, files, q)
		if err != nil || got.matched != c.matched {
			t.Errorf("%s: %d matched, %v; want %d", c.cond, got.matched, err, c.matched)
		}
	}
	// a number column's list must hold numbers; its fields are read as such
	f, _ := ParseCond("n in (1, 2)")
	q := Query{Filters: []Cond{f}, Kinds: []ColumnKind{{"n", KindNumber, "--types"}}}
	if _, err := checkGen(t, "n in", files, q); !errors.Is(err, ErrKind) {
		t.Errorf("n in (1, 2) over a number column holding x: %v, want ErrKind", err)
	}
	f, _ = ParseCond("n in (1, one)")
	q.Filters = []Cond{f}
	if _, err := checkGen(t, "n in one", files, q); !errors.Is(err, ErrFilter) {
		t.Errorf("n in (1, one): %v, want ErrFilter", err)
	}
}

// FuzzPlainNumber checks that a key plainNumber passes is its own
// canonical spelling (canonField's), so that two such keys are never one
// number and UniteKeys may leave them.
func FuzzPlainNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "7", "-7", "007", "+7", "7.0", "1e3", "123456789012345678", "1234567890123456789", " 7", "-", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !plainNumber([]byte(s)) {
			return
		}
		if c, err := canonField([]byte(s), KindNumber, nil); err != nil || c != "n"+s {
			t.Fatalf("plainNumber(%q), but canonField gives %q %v", s, c, err)
		}
	})
}

// FuzzFieldFits checks fieldFits against canonField's error, in every
// kind.
func FuzzFieldFits(f *testing.F) {
	for _, s := range []string{"0", "-0", "7", "007", "+7", "7.0", "1e3", "x", "", "1/31/2015", "2015-02-30", "99999999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, k := range []Kind{KindAuto, KindNumber, KindDate, KindText} {
			_, err := canonField([]byte(s), k, nil)
			if got := fieldFits([]byte(s), k, nil); got != (err == nil) {
				t.Fatalf("fieldFits(%q, %v) = %v, canonField's error %v", s, k, got, err)
			}
		}
	})
}
