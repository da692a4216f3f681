package scan

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// generalQueries are the shapes beyond the reference's, each checked
// against refGeneral in every dialect variant.
var generalQueries = []Query{
	{Filters: []Cond{Eq("Region", "Europe"), {"Sales Channel", OpEq, "Online", false, nil}, {"Units Sold", OpGt, "5000", false, nil}}},
	{By: []string{"Region"}},
	{By: []string{"Country"}, Sum: []string{"Units Sold", "Total Profit"}},
	{By: []string{"Item Type"}, Min: []string{"Units Sold"}, Max: []string{"Unit Price", "Total Profit"}, Avg: []string{"Total Profit"}, Sum: []string{"Total Cost"}},
	{Filters: []Cond{Eq("Sales Channel", "Offline")}, By: []string{"Order Priority"}, Max: []string{"Units Sold"}},
	{By: []string{"Region", "Item Type"}, Min: []string{"Units Sold"}, Max: []string{"Unit Price"}, Avg: []string{"Total Profit"}},
	{Filters: []Cond{{"Order Date", OpGe, "1/1/2015", false, nil}, {"Order Date", OpLt, "2016-01-01", false, nil}, {"Unit Price", OpLe, "100.5", false, nil}}},
	{Filters: []Cond{{"Region", OpGe, "M", false, nil}, {"Country", OpNe, "Chad", false, nil}}, Min: []string{"Total Revenue"}, Max: []string{"Total Revenue"}, Avg: []string{"Total Revenue"}},
	{By: []string{"Order ID"}, Sort: []SortKey{{"Total Revenue", true}}, Limit: 5},
	{By: []string{"Item Type"}, Sort: []SortKey{{"count", true}}, Limit: 3},
	{By: []string{"Sales Channel", "Order Priority"}, Avg: []string{"Unit Price"}, Sort: []SortKey{{"avg(unit price)", false}}},
	{By: []string{"Ship Date"}, Filters: []Cond{{"Ship Date", OpLe, "3/1/2012", false, nil}}, Sum: []string{"Units Sold"}},
	{By: []string{"Units Sold"}, Max: []string{"Total Cost"}, Limit: 10},
	{Filters: []Cond{{"Total Profit", OpLt, "100", false, nil}}, Min: []string{"Total Profit"}},
	{By: []string{"Region"}, Min: []string{"Order Date", "Country"}, Max: []string{"Ship Date", "Item Type"}, Sort: []SortKey{{"max(Ship Date)", true}}},
	{Filters: []Cond{Eq("Region", "Europe")}, Min: []string{"Country"}, Max: []string{"Order Date", "Units Sold"}},
}

// newQueries are generalQueries of issue 66, run over a smaller set (the
// test's time: make test's budget).
var newQueries = []Query{
	// an OR group, beside filters and alone
	{Filters: []Cond{Eq("Region", "Europe")}, Any: []Cond{{"Units Sold", OpGt, "9000", false, nil}, {"Country", OpIn, "", false, []string{"France", "Spain"}}}, By: []string{"Country"}},
	{Any: []Cond{{"Item Type", OpEq, "Fruits", false, nil}, {"Unit Price", OpGe, "600", false, nil}, {"Order Date", OpLt, "2011-01-01", false, nil}}, Sum: []string{"Units Sold"}},
	// holistic aggregates, with and without a group-by, sorted by one
	{Holistic: []Holistic{{"count_distinct", "Country", ""}, {"median", "Unit Price", ""}, {"quantile", "Total Profit", "0.9"}}},
	{By: []string{"Region"}, Holistic: []Holistic{{"count_distinct", "Item Type", ""}, {"median", "Units Sold", ""}, {"quantile", "Unit Cost", "0.25"}, {"quantile", "Unit Cost", "1"}},
		Sort: []SortKey{{"median(Units Sold)", true}}},
	{Filters: []Cond{Eq("Region", "Europe")}, By: []string{"Sales Channel"}, Max: []string{"Unit Price"}, Holistic: []Holistic{{"count_distinct", "Order Date", ""}, {"median", "Unit Price", ""}}},
	{By: []string{"Item Type"}, Holistic: []Holistic{{"count_distinct", "Total Profit", ""}}, Sort: []SortKey{{"count_distinct(Total Profit)", false}}, Limit: 4},
	// medians alone take the fast group-by path (groupsHot, addAccs)
	{By: []string{"Region"}, Holistic: []Holistic{{"median", "Unit Price", ""}, {"quantile", "Total Profit", "0.9"}}, Max: []string{"Units Sold"}},
	{Filters: []Cond{Eq("Region", "Europe"), {"Units Sold", OpGt, "5000", false, nil}}, Holistic: []Holistic{{"median", "Units Sold", ""}}},
	// rows out, in every format; the reference reads them back (readOut)
	{Filters: []Cond{Eq("Region", "Europe")}, Select: []string{"Order ID", "Total Profit"}},
	{Filters: []Cond{{"Country", OpContains, "stan", false, nil}}, Select: []string{"*"}, Limit: 7},
	{Filters: []Cond{{"Units Sold", OpGt, "9000", false, nil}}, Select: []string{"Country", "Unit Price", "Order Date", "Country"}, Out: OutTSV},
	{Filters: []Cond{{"Unit Price", OpLe, "100.5", false, nil}}, Select: []string{"Total Profit", "Region"}, Out: OutJSON, Limit: 40},
	{Select: []string{"*"}, Out: OutJSON, Limit: 25},
	// rows out in order (FinishRows)
	{Filters: []Cond{{"Region", OpEq, "Asia", false, nil}}, Select: []string{"Country", "Unit Price", "Order Date"}, Sort: []SortKey{{"Unit Price", true}, {"Order Date", false}}, Limit: 30},
}

func TestGeneralGenerated(t *testing.T) {
	oneGoroutine(t)
	base, small := generated(t, 2000, 2), generated(t, 600, 2)
	for qi, q := range append(slices.Clone(generalQueries), newQueries...) {
		base := base
		if qi >= len(generalQueries) {
			base = small
		}
		var first *refTable
		for name, v := range variants(t) {
			var files []refFile
			for _, f := range base {
				files = append(files, refFile{variantFile(f.name, name), v(f.data)})
			}
			got, err := checkGen(t, name, files, q)
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			if first == nil {
				first = &got
			} else if len(got.cells) != len(first.cells) {
				t.Fatalf("%s %+v: %d rows, another variant %d", name, q, len(got.cells), len(first.cells))
			}
		}
		if first.matched == 0 || len(first.cells) == 0 {
			t.Errorf("%+v matched nothing: a weak test", q)
		}
	}
}

// Dates in every form parlab reads, in one column (testdata/dates.csv),
// against filters written in other forms, and grouped: the scanner agrees
// with the reference (package time) in every hot mode. Before dates by
// month name were read, "when>=Jan 1 2005" compared bytes, silently.
func TestDateForms(t *testing.T) {
	files := fixture(t, "dates.csv")
	for _, c := range []struct {
		q       Query
		matched int64
	}{
		{Query{Filters: []Cond{{"when", OpGe, "Jan 1 2005", false, nil}}, Sum: []string{"amount"}}, 13},
		{Query{Filters: []Cond{{"when", OpGe, "2005-01-01", false, nil}, {"when", OpLt, "2005-02", false, nil}}, Sum: []string{"amount"}}, 7},
		{Query{Filters: []Cond{{"when", OpEq, "1/1/2005", false, nil}}, Sum: []string{"amount"}}, 4}, // midnight only
		{Query{Filters: []Cond{{"when", OpGt, "2005-01-01T00:00:00", false, nil}, {"when", OpLe, "31-Dec-2005", false, nil}}, Sum: []string{"amount"}}, 9},
		{Query{Filters: []Cond{{"when", OpLt, "2004-12-31 23:59:00.5", false, nil}}, Sum: []string{"amount"}}, 2},
		{Query{Filters: []Cond{{"when", OpNe, "February 1, 2005", false, nil}}, Sum: []string{"amount"}}, 12},
		{Query{By: []string{"when"}, Sum: []string{"amount"}}, 15},
		{Query{By: []string{"when"}, Sort: []SortKey{{"when", true}}, Sum: []string{"amount"}, Limit: 4}, 15},
	} {
		got, err := checkGen(t, "dates", files, c.q)
		if err != nil {
			t.Fatalf("%+v: %v", c.q, err)
		}
		if got.matched != c.matched {
			t.Errorf("%+v: %d rows matched, want %d", c.q, got.matched, c.matched)
		}
	}
}

// Minimums and maximums read dates and text (testdata/kinds.csv): dates
// as instants, printed as written; text by its bytes; a column that mixes
// kinds orders numbers before dates before text (SQLite's rule). In every
// hot mode and key split, against the reference, with the values spelled
// out; and a value that tries to be a number or a date fails, named.
func TestMinMaxOfDatesAndText(t *testing.T) {
	files := fixture(t, "kinds.csv")
	for _, c := range []struct {
		q    Query
		want [][]string
	}{
		{Query{Min: []string{"when", "name", "mixed", "num"}, Max: []string{"when", "name", "mixed", "num"}},
			[][]string{{"2004-12-31 23:59", "Zoë", "-3", "-1.5", "Sept 9 2005", "Émile", "text", "12"}}},
		{Query{By: []string{"team"}, Min: []string{"when"}, Max: []string{"name", "mixed"}},
			[][]string{{"a", "2", "2004-12-31 23:59", "zebra", "text"}, {"b", "3", "2005-01-01", "Émile", "Mar 1 2005"}, {"c", "1", "", "", ""}}},
		{Query{By: []string{"team"}, Max: []string{"when"}, Sort: []SortKey{{"max(when)", true}}},
			[][]string{{"a", "2", "Sept 9 2005"}, {"b", "3", "1-Feb-2005"}, {"c", "1", ""}}},
		{Query{Filters: []Cond{{"name", OpNe, "", false, nil}}, Min: []string{"name"}, Max: []string{"when"}, Sum: []string{"num"}},
			[][]string{{"10.5", "Zoë", "Sept 9 2005"}}},
	} {
		wantCells(t, "kinds", files, c.q, c.want)
	}
	for _, c := range []struct {
		body string
		q    Query
		want error
	}{
		{"k,v\na,5\nb,$1.00\n", Query{Max: []string{"v"}}, ErrNotComparable},
		{"k,v\na,5\nb,5 %\n", Query{Max: []string{"v"}}, ErrNotComparable},
		{"k,v\na,x\nb,€ -1\n", Query{By: []string{"k"}, Min: []string{"v"}}, ErrNotComparable},
		{"k,v\na,5\nb,\"1,234\"\n", Query{Max: []string{"v"}}, ErrNotComparable},
		{"k,v\na,5\nb,2015-02-30\n", Query{Min: []string{"v"}}, ErrNotComparable},
		{"k,v\na,5\nb,999999999999999999999999999999999999999\n", Query{Min: []string{"v"}}, ErrOverflow},
		{"k,v\na,5\nb,Jan 1 2005\n", Query{Min: []string{"v"}, Sum: []string{"v"}}, ErrSyntax}, // a sum reads numbers only
		{"k,v\na,5\nb,abc\n", Query{By: []string{"k"}, Max: []string{"v"}, Avg: []string{"v"}}, ErrSyntax},
	} {
		_, err := checkGen(t, c.body, []refFile{{"e.csv", []byte(c.body)}}, c.q)
		if err == nil || !sameKind(err, c.want) || !strings.Contains(err.Error(), "e.csv:3:") {
			t.Errorf("%q %+v: %v, want %v at e.csv:3", c.body, c.q, err, c.want)
		}
	}
}

// A query that names no aggregate is a plain count over a file without the
// Sales sums, and the Sales question over one with both; a file without a
// header names its columns 1 to N. Every hot mode agrees with the
// reference.
func TestPlainCountAndNoHeader(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "dates.csv"))
	if err != nil {
		t.Fatal(err)
	}
	body := data[bytes.IndexByte(data, '\n')+1:]
	for _, c := range []struct {
		files   []refFile
		q       Query
		matched int64
		cols    int
	}{
		{[]refFile{{"dates.csv", data}}, Query{}, 15, 1},
		{[]refFile{{"dates.csv", data}}, Query{Filters: []Cond{{"when", OpLt, "2005-01-01", false, nil}}}, 2, 1},
		{[]refFile{{"dates.csv", data}}, Query{Filters: []Cond{Eq("id", "7")}}, 1, 1},
		{[]refFile{{"dates.csv", data}}, Query{By: []string{"when"}}, 15, 15},
		{[]refFile{{"body.csv", body}}, Query{NoHeader: true, Filters: []Cond{{"2", OpGe, "Jan 1 2005", false, nil}}, Sum: []string{"3"}}, 13, 1},
		{[]refFile{{"body.csv", body}}, Query{NoHeader: true, Filters: []Cond{Eq("1", "3")}}, 1, 1},
		{[]refFile{{"body.csv", body}}, Query{NoHeader: true, By: []string{"1"}, Max: []string{"3"}}, 15, 15},
	} {
		got, err := checkGen(t, "count", c.files, c.q)
		if err != nil {
			t.Fatalf("%+v: %v", c.q, err)
		}
		if got.matched != c.matched || len(got.cells) != c.cols {
			t.Errorf("%+v: %d matched, %d table rows; want %d, %d", c.q, got.matched, len(got.cells), c.matched, c.cols)
		}
	}
	sales := []byte("Region,Total Revenue,Total Profit\nEurope,1.50,0.50\nAsia,2,1\n")
	tb, err := NewTable("s.csv", sales, &Query{Filters: []Cond{Eq("Region", "Europe")}})
	if err != nil || !tb.Spec().Sales || len(tb.Spec().Aggs) != 2 {
		t.Errorf("the Sales question: %+v, %v", tb.Spec(), err)
	}
	tb, err = NewTable("d.csv", data, &Query{})
	if err != nil || tb.Spec().Sales || len(tb.Spec().Aggs) != 0 {
		t.Errorf("a plain count: %+v, %v", tb.Spec(), err)
	}
}

// blankFields empties field col (0-based) of every k-th data row.
func blankFields(data []byte, col, k int) []byte {
	lines := bytes.Split(data, []byte("\n"))
	for i := 1; i < len(lines); i += k {
		f := bytes.Split(lines[i], []byte(","))
		if len(f) > col {
			f[col] = nil
			lines[i] = bytes.Join(f, []byte(","))
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

// Empty is missing in filters: a missing field satisfies COL= and fails
// every other comparison, != included, with no error, so filters AND in
// any order; COL!= is "is present". Checked in every hot mode against the
// reference, on Sales rows with empty Country, Sales Channel and Order
// Date cells (hotWalk tests != on a span field itself).
func TestEmptyFieldsInFilters(t *testing.T) {
	oneGoroutine(t)
	base := generated(t, 3000, 1)[0]
	d := blankFields(blankFields(blankFields(base.data, 1, 7), 3, 5), 5, 3)
	files := []refFile{{"blank.csv", d}}
	var counts []int64
	for _, q := range []Query{
		{Filters: []Cond{{"Country", OpEq, "", false, nil}}},
		{Filters: []Cond{{"Country", OpNe, "", false, nil}}},
		{Filters: []Cond{Eq("Region", "Europe"), {"Country", OpNe, "Chad", false, nil}}, By: []string{"Item Type"}},
		{Filters: []Cond{Eq("Region", "Europe"), {"Sales Channel", OpNe, "Online", false, nil}, {"Country", OpNe, "France", false, nil}}, By: []string{"Order Priority"}},
		{Filters: []Cond{{"Order Date", OpLe, "2015-01-01", false, nil}, {"Order Date", OpNe, "", false, nil}}},
		{Filters: []Cond{{"Order Date", OpNe, "", false, nil}, {"Order Date", OpLe, "2015-01-01", false, nil}}},
		{Filters: []Cond{{"Order Date", OpGt, "2015-01-01", false, nil}}, By: []string{"Sales Channel"}, Min: []string{"Units Sold"}},
	} {
		got, err := checkGen(t, "blank", files, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		counts = append(counts, got.matched)
	}
	if counts[0]+counts[1] != 3000 || counts[0] == 0 || counts[4] != counts[5] || counts[4] == 0 {
		t.Errorf("missing + present != rows, or AND depends on the order: %v", counts)
	}
}

// Empty is missing in aggregates: a sum, minimum, maximum or average is
// over the rows that have the value, the count over every matching row,
// and the skipped values are counted. Sales rows with empty Total
// Revenue, Unit Price and Units Sold cells, through every hot mode (the
// fast paths hand such a row over), against both references.
func TestEmptyFieldsInAggregates(t *testing.T) {
	oneGoroutine(t)
	base := generated(t, 3000, 1)[0]
	d := blankFields(blankFields(blankFields(base.data, 11, 6), 9, 4), 8, 9)
	files := []refFile{{"blank.csv", d}}
	check(t, "blank simple", files, Query{Filters: []Cond{Eq("Region", "Europe")}})
	check(t, "blank all rows", files, Query{Sum: []string{"Total Revenue", "Units Sold"}})
	for _, q := range []Query{
		{Filters: []Cond{Eq("Region", "Europe")}, Avg: []string{"Total Revenue"}, Min: []string{"Unit Price"}, Max: []string{"Units Sold"}},
		{By: []string{"Region"}, Avg: []string{"Total Revenue", "Unit Price"}},
		{By: []string{"Item Type"}, Sum: []string{"Total Revenue"}, Min: []string{"Units Sold"}},
		{By: []string{"Country"}, Avg: []string{"Units Sold"}, Sort: []SortKey{{"avg(Units Sold)", true}}, Limit: 5},
		{Filters: []Cond{{"Units Sold", OpGt, "5000", false, nil}}, By: []string{"Sales Channel"}, Max: []string{"Unit Price"}},
	} {
		if _, err := checkGen(t, "blank", files, q); err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
	}
	// the count of skipped values, and an aggregate of values all missing
	r, err := scanAll([]refFile{{"m.csv", []byte("k,v\na,\na,\nb,2\n")}}, Query{By: []string{"k"}, Avg: []string{"v"}, Sum: []string{"v"}})
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := NewTable("m.csv", []byte("k,v\n"), &Query{By: []string{"k"}, Avg: []string{"v"}, Sum: []string{"v"}})
	a := &Answer{Spec: tb.Spec(), Result: r}
	gt := a.Groups()
	if gt.Len() != 2 || strings.Join(gt.Row(nil, 0, false), "|") != "a|2||" || strings.Join(gt.Row(nil, 1, false), "|") != "b|1|2|2.000000" {
		t.Errorf("groups: %q, %q", gt.Row(nil, 0, false), gt.Row(nil, 1, false))
	}
	if i := r.Groups.find([]byte("a")); r.Groups.Present(i, 0) != 0 || r.Groups.Skipped[i*r.Groups.Slots] != 2 {
		t.Errorf("group a: %d present, skipped %v", r.Groups.Present(i, 0), r.Groups.Skipped)
	}
}

// A quoted value is text: version="1.0" matches the bytes 1.0 alone, where
// version=1.0 matches 1 and 1.00 too; zip="00501" keeps its zeros. In every
// hot mode, against the reference.
func TestQuotedValueIsText(t *testing.T) {
	files := []refFile{{"v.csv", []byte("version,zip\n1.0,00501\n1,501\n1.00,0501\n1.10,00501\n")}}
	for _, c := range []struct {
		q       Query
		matched int64
	}{
		{Query{Filters: []Cond{{"version", OpEq, "1.0", false, nil}}, By: []string{"zip"}}, 3},
		{Query{Filters: []Cond{{"version", OpEq, "1.0", true, nil}}, By: []string{"zip"}}, 1},
		{Query{Filters: []Cond{{"zip", OpEq, "00501", false, nil}}}, 4},
		{Query{Filters: []Cond{{"zip", OpEq, "00501", true, nil}}}, 2},
		{Query{Filters: []Cond{{"zip", OpNe, "00501", true, nil}}}, 2},
		{Query{Filters: []Cond{{"version", OpGt, "1.0", true, nil}}}, 2},  // bytes: "1.00" and "1.10"
		{Query{Filters: []Cond{{"version", OpGt, "1.0", false, nil}}}, 1}, // numbers: 1.10
	} {
		got, err := checkGen(t, "quoted", files, c.q)
		if err != nil || got.matched != c.matched {
			t.Errorf("%+v: %d matched (%v), want %d", c.q, got.matched, err, c.matched)
		}
	}
}

func TestGeneralFixtures(t *testing.T) {
	for _, file := range []string{"edge.csv", "reordered.csv", "decimals.csv"} {
		for _, q := range []Query{
			{By: []string{"Region"}},
			{By: []string{"Country", "Region"}, Min: []string{"Total Revenue"}, Max: []string{"Total Profit"}, Avg: []string{"Units Sold"}},
			{Filters: []Cond{{"Country", OpEq, "Line\r\nbreak", false, nil}}, Avg: []string{"Total Profit"}},
			{Filters: []Cond{{"Region", OpNe, "Europe", false, nil}, {"Units Sold", OpGe, "2", false, nil}}},
			{Filters: []Cond{{"Region", OpEq, "Nowhere", false, nil}}, Min: []string{"Total Profit"}, Avg: []string{"Units Sold"}},
			{Filters: []Cond{{"Region", OpEq, "Nowhere", false, nil}}, By: []string{"Region"}},
			{Filters: []Cond{{"Item Type", OpGt, "Fruits", false, nil}}, By: []string{"Item Type"}, Sort: []SortKey{{"Total Profit", true}}},
		} {
			checkGen(t, file, fixture(t, file), q)
		}
	}
}

// Errors of the general path: each names its place, and matches the
// reference's kind.
func TestGeneralErrors(t *testing.T) {
	const h = "Region,Units Sold,Total Revenue,Total Profit,Order Date\n"
	for _, tt := range []struct {
		body string
		q    Query
		want error
	}{
		{"Europe,x,1.00,2.00,1/1/2015\n", Query{Filters: []Cond{{"Units Sold", OpGt, "5", false, nil}}}, ErrNotComparable},
		{"Europe,5,1.00,2.00,13/1/2015\n", Query{Filters: []Cond{{"Order Date", OpGt, "1/1/2015", false, nil}}}, ErrNotComparable},
		{"Europe,5,1.00,2.00,2/30/2015\n", Query{Filters: []Cond{{"Order Date", OpLt, "2015-03-01", false, nil}}}, ErrNotComparable},
		{"Europe,5,1.x0,2.00,1/1/2015\n", Query{By: []string{"Region"}}, ErrSyntax},
		{"Europe,5\n", Query{By: []string{"Region"}}, ErrShortRow},
		{"Europe,5,1,2,1/1/2015\n", Query{By: []string{"Nope"}}, ErrColumn},
		{"Europe,5,1,2,1/1/2015\n", Query{Filters: []Cond{{"Units Sold", OpGt, "999999999999999999999999999999999999999", false, nil}}}, ErrFilter},
		{"Europe,5,1,2,1/1/2015\n", Query{By: []string{"Region"}, Sort: []SortKey{{"Nope", false}}}, ErrColumn},
		{"Europe,5,1,2,1/1/2015\n", Query{Min: []string{"Units Sold", "units_sold"}}, ErrDupSum},
	} {
		_, err := checkGen(t, tt.body, []refFile{{"e.csv", []byte(h + tt.body)}}, tt.q)
		if err == nil || !sameKind(err, tt.want) {
			t.Errorf("%q %+v: %v, want %v", tt.body, tt.q, err, tt.want)
		}
		if err != nil && !strings.Contains(err.Error(), "e.csv") {
			t.Errorf("%v does not name the file", err)
		}
	}
}

// = and != hold for the same number or day written another way (09.330 for
// 9.33, 2015-01-31 for 1/31/2015), in every strategy and split, on
// generated data; the written form gives the same answer, and != the rest.
func TestEqualityAcrossForms(t *testing.T) {
	oneGoroutine(t)
	files := generated(t, 3000, 2)
	r := &refReader{data: files[0].data}
	header, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	row, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) string { return row[slices.Index(header, name)] }
	date, err := time.Parse("1/2/2006", col("Order Date"))
	if err != nil {
		t.Fatal(err)
	}
	price := col("Unit Price")
	for _, c := range []struct{ col, written, other string }{
		{"Unit Price", price, "0" + price + "0"},
		{"Order Date", col("Order Date"), date.Format("2006-01-02")},
		{"Units Sold", col("Units Sold"), col("Units Sold") + ".000"},
	} {
		for _, op := range []Op{OpEq, OpNe} {
			for _, by := range [][]string{nil, {"Region"}} {
				as := Query{Filters: []Cond{{c.col, op, c.written, false, nil}}, By: by}
				other := Query{Filters: []Cond{{c.col, op, c.other, false, nil}}, By: by}
				want, err := checkGen(t, "written", files, as)
				if err != nil {
					t.Fatal(err)
				}
				got, err := checkGen(t, "other form", files, other)
				if err != nil {
					t.Fatal(err)
				}
				if got.matched != want.matched || want.matched == 0 || !slices.EqualFunc(got.cells, want.cells, slices.Equal) {
					t.Errorf("%s %s %q matched %d, %q %d", c.col, op, c.other, got.matched, c.written, want.matched)
				}
			}
		}
	}
}

// wantCells checks q over files against the reference (checkGen: every hot
// mode and key split) and the reference's answer against want, spelled out.
func wantCells(t *testing.T, label string, files []refFile, q Query, want [][]string) {
	t.Helper()
	got, err := checkGen(t, label, files, q)
	if err != nil {
		t.Fatalf("%+v: %v", q, err)
	}
	if !slices.EqualFunc(got.cells, want, slices.Equal) {
		t.Errorf("%+v:\n%q\nwant\n%q", q, got.cells, want)
	}
}

// Numbers of 19 to 38 significant digits (DuckDB's DECIMAL(38)) are read
// exactly wherever a number is: sums and averages, minimums and maximums
// beside shorter numbers, filters on either side, and a group-by key
// ordered as numbers. Every hot mode and key split agrees with the
// reference; the figures are also checked by hand (Python's decimal).
func TestWideNumbers(t *testing.T) {
	files := fixture(t, "wide.csv")
	for _, c := range []struct {
		q    Query
		want [][]string
	}{
		{Query{Sum: []string{"amount"}, Avg: []string{"amount"}, Min: []string{"amount", "id"}, Max: []string{"amount", "id"}},
			[][]string{{"1123456788763580246791358024681.876543210987654323", "-150000000000000000000",
				"-3", "1000000000000000000000000000000", "100000000000000000000000000000000000",
				"187242798127263374465226337446.979423868497942387"}}},
		{Query{By: []string{"team"}, Sum: []string{"amount"}, Min: []string{"amount"}, Max: []string{"id"}},
			[][]string{{"a", "3", "-98765432109876543208.623456789012345677", "-98765432109876543210.123456789012345678", "12345678901234567890123"},
				{"b", "2", "123456789012345678901234567890.5", "123456789012345678901234567890.5", "99999999999999999999"},
				{"c", "2", "999999999850000000000000000000", "-150000000000000000000", "100000000000000000000000000000000000"}}},
		{Query{By: []string{"id"}}, // numeric order of the keys, long and short
			[][]string{{"-3", "1"}, {"5", "1"}, {"7", "1"}, {"18446744073709551616", "1"}, {"99999999999999999999", "1"},
				{"12345678901234567890123", "1"}, {"100000000000000000000000000000000000", "1"}}},
		{Query{Filters: []Cond{{"amount", OpGt, "1e25", false, nil}}, Sum: []string{"price"}},
			[][]string{{"60"}}},
		{Query{Filters: []Cond{{"amount", OpLe, "-1.0e19", false, nil}, {"id", OpLt, "18446744073709551616", false, nil}}, Sum: []string{"price"}},
			[][]string{{"100"}}},
		{Query{Filters: []Cond{{"id", OpEq, "99999999999999999999.00", false, nil}}, Max: []string{"amount"}},
			[][]string{{"123456789012345678901234567890.5"}}},
		{Query{Filters: []Cond{Eq("team", "a")}, Sum: []string{"amount", "id"}}, // the reference's shape
			[][]string{{"-98765432109876543208.623456789012345677", "12364125645308277441744"}}},
		{Query{By: []string{"team"}, Max: []string{"amount"}, Sort: []SortKey{{"max(amount)", true}}},
			[][]string{{"c", "2", "1000000000000000000000000000000"}, {"b", "2", "123456789012345678901234567890.5"}, {"a", "3", "1.5"}}},
	} {
		wantCells(t, "wide", files, c.q, c.want)
	}
}

// A group-by of two columns in a tab file whose fields hold commas: the
// fast path's joined key (twoKey, with the file's delimiter) keeps
// ("a,b", "c") and ("a", "b,c") two groups, in every hot mode.
func TestTwoKeysOtherDelimiter(t *testing.T) {
	var b strings.Builder
	b.WriteString("k1\tk2\tn\n")
	for i := range 600 {
		if i%2 == 0 {
			fmt.Fprintf(&b, "a,b\tc\t%d\n", i)
		} else {
			fmt.Fprintf(&b, "a\tb,c\t%d\n", i)
		}
	}
	got, err := checkGen(t, "two keys", []refFile{{"k.tsv", []byte(b.String())}}, Query{By: []string{"k1", "k2"}, Sum: []string{"n"}})
	if err != nil || len(got.cells) != 2 {
		t.Fatalf("%d groups (%v), want 2", len(got.cells), err)
	}
}

// A count distinct by one column takes hotWalk's key table with the
// distinct column as the key's second part (groupHot.dk): a pair is learnt
// only once its value is in its group's set (a row that teaches a pair may
// fail a filter in lineGen that hotWalk could not test: here a value at
// another scale), and a row whose value is missing counts as skipped,
// whichever column the value is. Every hot mode, the key splits and the
// reference agree.
func TestDistinctKeyTable(t *testing.T) {
	var b, last strings.Builder // (d last: an empty last field is a key's part)
	b.WriteString("k,d,n\n")
	last.WriteString("k,n,d\n")
	row := func(k, d, n string) {
		fmt.Fprintf(&b, "%s,%s,%s\n", k, d, n)
		fmt.Fprintf(&last, "%s,%s,%s\n", k, n, d)
	}
	for i := range 3000 {
		k := string(rune('a' + i%5))
		row(k, fmt.Sprintf("y%d", i%7), "20.00")
		row(k, fmt.Sprintf("x%d", i%11), "5.000") // first of its pair, and fails n>10
		row(k, fmt.Sprintf("x%d", i%11), fmt.Sprintf("%d.25", 30+i%3))
		if i%4 == 0 {
			row(k, "", "40.00")
		}
	}
	for _, files := range [][]refFile{{{"d.csv", []byte(b.String())}}, {{"last.csv", []byte(last.String())}}} {
		cd := []Holistic{{"count_distinct", "d", ""}}
		for _, c := range []struct {
			q       Query
			skipped int64
		}{
			{Query{Filters: []Cond{{"n", OpGt, "10", false, nil}}, By: []string{"k"}, Holistic: cd}, 750},
			{Query{By: []string{"k"}, Holistic: cd, Sum: []string{"n"}}, 750},
			{Query{Filters: []Cond{Eq("k", "c")}, By: []string{"k"}, Holistic: cd}, 150},
		} {
			label := fmt.Sprintf("%+v", c.q)
			if _, err := checkGen(t, label, files, c.q); err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			for _, mode := range hotModes() {
				m := mode()
				_, ans, err := answerIn(files, c.q, 1)
				if err != nil {
					t.Fatal(err)
				}
				for _, g := range ans.Aggs {
					if g.Label() == "count_distinct(d)" && ans.Skipped(g) != c.skipped {
						t.Errorf("%s %s (%s): %d rows skipped, want %d", files[0].name, label, m, ans.Skipped(g), c.skipped)
					}
				}
			}
		}
	}
}
