package scan

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
)

const fuzzHeader = "f,x,y\n"

// FuzzScan feeds arbitrary bytes (after a fixed header) to the scanner and
// requires the reference's answer, or an error of the same kind.
func FuzzScan(f *testing.F) {
	for _, s := range []struct{ body, value string }{
		{"a,1,2\nb,3,4\n", "a"},
		{"a,1.5,2\r\n\r\na,\"3\",-4.25", "a"},
		{"\"a,b\",1,2\n\"a\"\"\",1,1\n", `a"`},
		{"a,1\n", "a"},
		{"\"a\nb\",1,2\na,5,5\n", "a"},
		{"a,9223372036854775807,0\na,1,0\n", "a"},
		{"a,\"1\"x,2\n", "a"},
		{"\xef\xbb\xbfa,1,2", "a"},
		{"a,,\n", "b"},
		{"a,1.25,2.50\nb,3.00,4.10\r\na,12345678.99,0.01\n", "a"},
		{"\"Once upon \r\na time\",5,6\r\n7,8,9\r\n", "Once upon \r\na time"},
		{"\"lone\rcr\",1,2\r\n\"lf\nonly\",3,4\n", "lone\rcr"},
		{"\"\r\n\",1,2\r\n\"\n\",3,4\r\n", "\r\n"},
		{"27\" tv,1,2\n\"AGENT\" K,3,4\n\"a\tb\",5,6\n\"open,7,8\n", "27\" tv"}, // (a TSV's quotes, swapped)
		// money as R and DuckDB write it (9.30 as 9.3, 10.00 as 10) in a
		// column of cents: hotWalk's lanes take it at scale 2
		{"a,1.25,2.5\na,3.5,4\na,10,2.50\nb,7.1,1\na,0.3,99\na,12345678.9,1\n", "a"},
		// R's quoting, walked in place (quotedLeadOK): a quoted number, a
		// short row, an empty first field, a bare one, a CR LF end
		{"\"a\",1,2\n\"b\",3,4\n\"a\",\"5\",6\n\"\",8,9\n\"a\",1.25,2\n", "a"},
		{"\"a\",1,2\n\"a\",7\n\"a\",1,1\n", "a"},
		{"\"ab\",1.5,2\n\"ab\",99999999999999999999,1\n\"a\",3,4\n", "ab"},
		{"\"a\",1,2\n\"b\",3,4\na,1,1\n\"a\",2,2\r\n\"a\",\"x\"\"y\",1\n", "a"},
	} {
		f.Add([]byte(s.body), s.value)
	}
	f.Fuzz(func(t *testing.T, body []byte, value string) {
		in := append([]byte(fuzzHeader), body...)
		// the filter on the first column (bulk, hit, hotWalk) and on the
		// second (fieldStart, fieldIs, addTail)
		for _, q := range []Query{{Filters: []Cond{Eq("f", value)}, Sum: []string{"x", "y"}}, {Filters: []Cond{Eq("x", value)}, Sum: []string{"y"}}} {
			fuzzScanOnce(t, "fuzz.csv", in, body, q)
			// the same bytes with the delimiter made a tab, ';' or '|'
			for _, name := range []string{"fuzz.tsv", "fuzz.ssv", "fuzz.psv"} {
				sep := sepOf(name)
				q := q
				q.Filters = []Cond{Eq(q.Filters[0].Col, string(swapSep([]byte(value), sep)))}
				fuzzScanOnce(t, name, swapSep(in, sep), swapSep(body, sep), q)
			}
		}
	})
}

func fuzzScanOnce(t *testing.T, name string, in, body []byte, q Query) {
	// each of bulk's ways to take rows (see hotModes), every one with the
	// same error, word for word and place for place (a quoted batch's
	// error is its source row's: quotedBatch's againAt)
	first := ""
	for k, mode := range hotModes() {
		m := name + ", " + mode()
		got, err := scanAll([]refFile{{name, in}}, q)
		var want refAnswer
		werr := refQuery([]refFile{{name, in}}, q, &want)
		if es := fmt.Sprint(err); k == 0 {
			first = es
		} else if es != first {
			t.Fatalf("%s: error %s, the first way's %s", m, es, first)
		}
		if err != nil || werr != nil {
			if err == nil || werr == nil || !sameKind(err, werr) {
				t.Fatalf("%s: scanner error %v, reference error %v", m, err, werr)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Column < 1 {
				t.Fatalf("%s: error without a place: %v", m, err)
			}
			continue
		}
		if got.Rows != want.rows || got.Matched != want.matched {
			t.Fatalf("%s %+v: scanner %d %d, reference %d %d", m, q, got.Rows, got.Matched, want.rows, want.matched)
		}
		for i := range want.sums {
			if got.Sums[i].String() != want.sums[i].String() {
				t.Fatalf("%s %+v: sum %d %s, reference %s", m, q, i, got.Sums[i], want.sums[i])
			}
		}
		// With no quotes, any cut moved to the next row start splits the rows
		// exactly: the two halves add up to the whole.
		if bytes.IndexByte(in, '"') < 0 && len(body) > 0 {
			tb, _ := NewTableSep(name, in, sepOf(name), &q)
			s, e := tb.Body()
			c := s + int(body[0])%(e-s+1)
			if c > s {
				if i := bytes.IndexByte(in[c-1:], '\n'); i >= 0 {
					c += i
				} else {
					c = e
				}
			}
			if parts, err := scanInTwo(tb, c); err != nil || !parts.Equal(&got) {
				t.Fatalf("%s: cut at %d: %+v (%v), whole %+v", m, c, parts, err, got)
			}
		}
	}
}

// FuzzParseFixed checks the number parser against a regular expression and
// math/big.
func FuzzParseFixed(f *testing.F) {
	for _, s := range []string{"0", "-12.50", ".5", "5.", "+1", "9223372036854775807", "9223372036854775808", "1e5", "", "0.0000000000000000001", "1234567.89", "12345678.90", "0.0a", "1.2.3",
		"99999999999999999999999999999999999999", "-999999999999999999999999999999999999999", "1.5e30", "0.0000000000000000001e5", "123456789012345678901234567890.123456789",
		"-0.00000000000000000000000000000000000001", "0.000000000000000000000000000000000000001", "1e-38", "7.25e-37", "1.2345678901234567890123456789012345678"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// with spare capacity after the bytes (as a field in a file has), so
		// the SWAR path runs, and without, so the loop does
		roomy := append([]byte(s), "0123456789.-,\n0123456789"...)[:len(s)]
		m2, sc2, err2 := ParseFixed(roomy)
		m, sc, err := ParseFixed([]byte(s))
		if m != m2 || sc != sc2 || err != err2 {
			t.Fatalf("ParseFixed(%q) = %d, %d, %v with spare capacity; %d, %d, %v without", s, m2, sc2, err2, m, sc, err)
		}
		var r refSum
		r.v = new(big.Int)
		rerr := r.add(s)
		// parseWide is the grammar's whole range
		w, wsc, werr := parseWide([]byte(s))
		if werr != rerr || (werr == nil && (w.big().Cmp(r.v) != 0 || wsc != r.scale)) {
			t.Fatalf("parseWide(%q) = %s, %d, %v; reference %s, %d, %v", s, w.big(), wsc, werr, r.v, r.scale, rerr)
		}
		// ParseFixed: the same value, or ErrOverflow for a valid number
		// it leaves to parseWide, which it must not for a plain one of 18
		// digits or fewer
		switch {
		case err == nil && (rerr != nil || m != r.v.Int64() || sc != r.scale):
			t.Fatalf("ParseFixed(%q) = %d, %d; reference %s, %d, %v", s, m, sc, r.v, r.scale, rerr)
		case err == ErrOverflow && rerr == ErrSyntax, err == ErrSyntax && rerr != ErrSyntax:
			t.Fatalf("ParseFixed(%q) error %v, reference %v", s, err, rerr)
		case err != nil && rerr == nil && !strings.ContainsAny(s, "eE") && len(r.v.String()) <= 18:
			t.Fatalf("ParseFixed(%q) error %v on a value of 18 digits (%s)", s, err, r.v)
		}
	})
}

// FuzzQuery is FuzzScan for the general queries: a filter with any
// operator and value on either column, and up to two more, with or without
// a group-by, and every aggregate, against refGeneral.
func FuzzQuery(f *testing.F) {
	for _, s := range []struct {
		body, value string
		op, shape   uint8
	}{
		{"a,1,2\nb,3,4\n", "2", 4, 0},
		{"a,1.5,2\r\n\r\na,\"3\",-4.25", "a", 0, 1},
		{"\"a,b\",1,2\n\"a\"\"\",1,1\n", `a"`, 1, 3},
		{"a,1/2/2015,2\nb,2015-01-03,4\n", "1/2/2015", 5, 7},
		{"a,Jan 2 2015,2\nb,2015-01-03T10:00,4\nc,\"March 1, 2015\",1\nd,2 Feb 2015,3\n", "Jan 3, 2015", 4, 1},
		{"a,2015-01,2\nb,2015/1/3,4\nc,1-Mar-2015,1\n", "2015-01-01 00:00:00Z", 3, 9},
		{"a,,2\n,3,4\nb,\"\",1\na,5,\n", "a", 1 + 6*1, 64 + 1}, // empty cells: missing
		{"x,,2\ny,7,3\n", "", 0, 2 + 64},
		{"a,12345678901234567890123,2\nb,-1e30,99999999999999999999.5\nc,7,3\n", "99999999999999999999", 4, 9}, // numbers of 19 to 38 digits
		{"a,7.1,2\nb,7.10,4\na,-0,1\n", "7.1", 3, 15},
		{"a,0.00000000000000000000000000000000000001,99999999999999999999999999999999999999\nb,1e-30,-0.5\na,12.5,1.0000000000000000000001\n", "1e-30", 4, 15}, // scales of up to 38
		{"x,1,2\ny,2,3\nx,3,4\n", "y", 2, 31},
		{"Europe,1,Online\nAsia,2,Online\nEurope,3,Offline\nEurope,4,Online\n", "Online", 6, 64 + 128 + 1},
	} {
		f.Add([]byte(s.body), s.value, s.op, s.shape)
	}
	f.Fuzz(func(t *testing.T, body []byte, value string, op, shape uint8) {
		in := append([]byte(fuzzHeader), body...)
		col := "f"
		if shape&16 != 0 {
			col = "x"
		}
		q := Query{Filters: []Cond{{col, Op(op % 6), value, op >= 216, nil}}}
		if shape&64 != 0 { // later filters, which hotWalk may test itself
			q.Filters = append(q.Filters, Cond{"y", Op(op / 6 % 6), value, false, nil})
		}
		if shape&128 != 0 {
			q.Filters = append(q.Filters, Cond{"f", Op(op / 36 % 6), value, false, nil})
		}
		if shape&1 != 0 {
			q.By = []string{"f"}
			if shape&32 != 0 {
				q.By = append(q.By, "y")
			}
		}
		if shape&2 != 0 {
			q.Min = []string{"x"}
		}
		if shape&4 != 0 {
			q.Max = []string{"y", "x"}
		}
		if shape&8 != 0 {
			q.Avg = []string{"y"}
		}
		if q.Min == nil && q.Max == nil && q.Avg == nil {
			q.Sum = []string{"x", "y"}
		}
		checkGen(t, "fuzz", []refFile{{"fuzz.csv", in}}, q)
		hq := q // and holistic aggregates
		hq.Sum, hq.Min, hq.Max, hq.Avg = nil, nil, nil, nil
		hq.Holistic = []Holistic{{"count_distinct", "x", ""}, {"quantile", "y", []string{"0.5", "0", "1", "0.25", "0.999"}[op%5]}}
		if shape&4 != 0 { // (no distinct set: the fast group-by path may take it)
			hq.Holistic = hq.Holistic[1:]
		}
		if shape&2 != 0 {
			hq.Holistic = append(hq.Holistic, Holistic{"median", "x", ""})
		}
		checkGen(t, "fuzz, holistic", []refFile{{"fuzz.csv", in}}, hq)
		if q.Min == nil && q.Max == nil && q.Avg == nil && q.By == nil { // its rows out too
			sq := q
			sq.Sum, sq.Select, sq.Out, sq.Limit = nil, []string{"x", "f"}, OutFormat(op%3), int(shape&3)
			if shape&32 != 0 {
				sq.Select = []string{"*"}
			}
			checkGen(t, "fuzz, rows out", []refFile{{"fuzz.csv", in}}, sq)
			sq.Sort = []SortKey{{"x", shape&128 != 0}, {"f", false}} // and in order
			checkGen(t, "fuzz, rows out sorted", []refFile{{"fuzz.csv", in}}, sq)
		}
		for _, name := range []string{"fuzz.tsv", "fuzz.ssv", "fuzz.psv"} {
			sep := sepOf(name)
			q := q
			q.Filters = slices.Clone(q.Filters)
			for i := range q.Filters {
				q.Filters[i].Value = string(swapSep([]byte(q.Filters[i].Value), sep))
			}
			checkGen(t, "fuzz "+name, []refFile{{name, swapSep(in, sep)}}, q)
		}
	})
}

// FuzzDecodeGroups feeds arbitrary bytes to DecodeGroups (the parent's read
// of a child's groups): an error, or groups with distinct keys that survive
// their binary form again. Never a panic.
func FuzzDecodeGroups(f *testing.F) {
	g := newGroups(2, NeedSum|NeedMin|NeedMax)
	for i, k := range []string{"a", "", "a\x00b", "a key of more than 15 bytes"} {
		j := g.at([]byte(k))
		g.Count[j] += int64(i + 1)
		g.Sums[j*2].Add(int64(i*100), 2)
		g.Mins[j*2+1].takeMin(int64(-i), 1)
		g.Maxs[j*2].takeMax(int64(i), 0)
		day, _ := parseDate([]byte("Jan 1 2005"))
		slotWords(&g.Words, j*2+1).take([]byte("Jan 1 2005"), day, true)
		slotWords(&g.Words, j*2).take([]byte(k+"x"), 0, false)
	}
	f.Add(g.AppendBinary(nil))
	f.Add([]byte{0, 0, 2, 1, 'a', 2, 1, 'a', 2, 0, 0})
	f.Add([]byte{0, 0, 3, 1, 'a', 2, 1, 'b', 2, 1, 'c', 2, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := DecodeGroups(b)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for i := range g.Len() {
			if k := g.Key(i); seen[k] {
				t.Fatalf("key %q twice", k)
			} else {
				seen[k] = true
			}
		}
		back, err := DecodeGroups(g.AppendBinary(nil))
		if err != nil || !back.Equal(g) || !g.Equal(back) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// FuzzDate: parseDate reads a date exactly when refDate (package time)
// does, and two dates order as their instants; datish (for a value neither
// reads) agrees with the reference's expressions.
func FuzzDate(f *testing.F) {
	for _, s := range [][2]string{{"1/31/2015", "2015-01-31"}, {"Jan 1 2005", "1 Jan 2005"}, {"January 1, 2005", "2005-01-01T10:00"},
		{"2005-01-01 10:00:00.5Z", "2005/1/1"}, {"2005-02", "1-Feb-2005"}, {"Sept 9 2005", "feb 29 2004"}, {"1.2.2005", "Jan 2005"},
		{"4/23/2019 7:11:11 AM", "4/23/2019 12:00 pm"}, {"12/31/1999 12:59 AM", "Jan-1-1995"}, {"Sept-9-2005", "1/1/2005 13:00 PM"},
		{"1995-01-01T00:00:00Z", "1994-12-31T23:30:00-01:00"}, {"2000-03-01 00:30+0100", "2000-02-29 23:00"},
		{"2/29/2001", "02/9/2004"}, {"13/1/2001", "2001-13-01"}, {"1//2001", "1/1/20015"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if d, ok, sure := plainDay([]byte(a)); sure {
			if gd, gok := anyDate([]byte(a)); d != gd || ok != gok {
				t.Fatalf("plainDay(%q) = %d %v, anyDate %d %v", a, d, ok, gd, gok)
			}
		}
		da, oka := parseDate([]byte(a))
		ta, refa := refDate(a)
		if oka != refa {
			t.Fatalf("parseDate(%q) ok %v, refDate %v (%v)", a, oka, refa, ta)
		}
		if !oka {
			if datish(a) != (refDatish.MatchString(a) && strings.ContainsAny(a, "0123456789") || refDayThen(a)) {
				t.Fatalf("datish(%q) = %v, reference differs", a, datish(a))
			}
			return
		}
		db, okb := parseDate([]byte(b))
		if tb, _ := refDate(b); okb && cmpInt(da, db) != ta.Compare(tb) {
			t.Fatalf("%q vs %q: %d vs %d, reference %v vs %v", a, b, da, db, ta, tb)
		}
	})
}

// FuzzKinds is FuzzQuery with column kinds: each of f, x and y decided from
// the body (as spawn's Decider decides them) or given (two bits a column:
// decided, number, date, text), and bad rows skipped (bit 6), against
// refGeneral, which learns the same rules: a text column compares bytes, a
// number or date column's present values must be numbers or dates, and a
// row that would stop the scan is left out and counted.
func FuzzKinds(f *testing.F) {
	for _, s := range []struct {
		body, value     string
		op, shape, kind uint8
	}{
		{"00E009,1,2\n0000E0,3,4\n00C1,5,6\n", "0000E0", 0, 2, 0},
		{"a,1,2\nb,NA,4\n", "1", 4, 1, 4},
		{"a,1/2/2015,2\nb,2015-01-03,4\n", "1/2/2015", 5, 7, 8},
		{"a,x,2\nb,7,4\n", "7", 1, 6, 63},
		{"a,16063,2\nb,Acme,4\n", "B", 2, 4, 48},
		{"a,1,2\nb,NA,4\nc,\"x,3\nd,5\n\"e\"\"\",1,x\n", "1", 4, 14, 0x44},
		{"7.1,1,2\n7.10,3,4\n07.1,5,6\n1/31/2015,1,1\n2015-01-31,2,2\n", "7.1", 4, 3, 0},
		{"2015-01-31,1,2\n1/31/2015,3,4\nJan 31 2015,5,6\n", "", 1, 1, 2},
		{"Europe,1,2\nAsia,3,4\nEurope Union,5,6\n,7,8\n", "Europe|Asia", 6, 2, 0},
		{"a,1,2\nb,2.0,3\nc,x,4\n", "1|2", 7, 16, 4},
		{"Cisco Systems,1,2\nSysco,3,4\nciscoe,5,6\n", "isco", 8, 68, 0},
		{"Cisco Systems,1,2\nSYSCO,3,4\nCİSCO,5,6\n", "ISCO", 10, 68, 0},
		{"2015-01-31,1,2\n1/31/2015,3,4\n", "2015-01-31|x", 96, 8, 2},
	} {
		f.Add([]byte(s.body), s.value, s.op, s.shape, s.kind)
	}
	f.Fuzz(func(t *testing.T, body []byte, value string, op, shape, kind uint8) {
		in := append([]byte(fuzzHeader), body...)
		// every operator, in and not in with the value's |-separated parts
		mk := func(col string, o Op, quoted bool) Cond {
			c := Cond{Col: col, Op: o, Value: value, Quoted: quoted}
			if o == OpIn || o == OpNotIn {
				c.Value, c.Values = "", strings.Split(value, "|")
			}
			return c
		}
		q := Query{Filters: []Cond{mk([]string{"f", "x"}[shape>>4&1], Op(op%11), op >= 216)}}
		if shape&64 != 0 {
			q.Filters = append(q.Filters, mk("y", Op(op/11%11), false))
		}
		if shape&32 != 0 { // an OR group
			q.Any = []Cond{mk("y", Op(op/11%11), op&1 != 0), mk("x", Op(op%7), false), mk("f", OpEq, false)}
		}
		if shape&1 != 0 {
			q.By = []string{"f"}
		}
		if shape&2 != 0 {
			q.Min = []string{"x", "f"}
		}
		if shape&4 != 0 {
			q.Max = []string{"y"}
		}
		if shape&8 != 0 {
			q.Sum = []string{"y"}
		}
		files := []refFile{{"fuzz.csv", in}}
		dq, err := decided(t, files, q)
		if err != nil { // a header's or a filter's error: the reference's too
			checkGen(t, "kinds, undecided", files, q)
			return
		}
		for i, col := range []string{"f", "x", "y"} {
			if k := Kind(kind >> (2 * i) & 3); k != KindAuto {
				dq.Kinds = append([]ColumnKind{{col, k, "fuzz"}}, dq.Kinds...)
			}
		}
		dq.SkipBad = kind&0x40 != 0 // --skip-bad-rows
		checkGen(t, "kinds", files, dq)
	})
}

// FuzzTextLead: a contains or starts with on a later column, which hotWalk
// takes as its lead (hotPlan.textLead) where no other filter leads: every
// hot mode against the reference, on fields long and short, empty, last in
// their row or quoted, and rows of the wrong length.
func FuzzTextLead(f *testing.F) {
	for _, s := range []struct {
		body, value string
		op          uint8
	}{
		{"a,1,Kazakhstan\nb,2,Chad\nc,3,Pakistan\r\n", "stan", 0},
		{"a,1,Saint Vincent and the Grenadines and more\nb,2,Sao Tome\n", "and", 0},
		{"a,1,\nb,2,x\n,3,stan\n", "stan", 1},
		{"a,1,\"Af,ghanistan\"\nb,2,Tajikistan,9\nc,3\n", "stan", 0},
		{"a,1,abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\nb,2,zzzz\n", "xyz", 2},
		{"a,1,STAN\nb,2,stan\n", "Stan", 2},
		{"a,Kazakhstan,1\nb,Saint Vincent and the Grenadines,2\nc,,3\r\nd,Pakistan\n", "stan", 9},
		{"a,the longest name a country was ever given in this file,1\nb,stan,2\n", "stan", 10},
		{strings.Repeat("a,a long country name then Kazakhstan,1\nb,one that ends in Kazakhstan,2\nz,a row after it,3\n", 4), "stan", 9},
		{strings.Repeat("a,one that starts with a name longer than the lead reads,1\nz,a row after it,3\n", 4), "one that", 10},
	} {
		f.Add([]byte(s.body), s.value, s.op)
	}
	f.Fuzz(func(t *testing.T, body []byte, value string, op uint8) {
		if value == "" {
			return
		}
		in := append([]byte(fuzzHeader), body...)
		c := Cond{"y", []Op{OpContains, OpPrefix, OpContainsFold}[op%3], value, false, nil} // (op&8: on x)
		q := Query{Filters: []Cond{c}, Sum: []string{"x"}}
		if op&8 != 0 { // the lead a middle field, not the row's last
			q.Filters[0].Col, q.Sum = "x", []string{"y"}
		}
		if op&4 != 0 {
			q.By = []string{"f"}
		}
		checkGen(t, "fuzz text lead", []refFile{{"fuzz.csv", in}}, q)
	})
}
