package scan

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"testing"
)

// benchSet is a generated set (about 12.5 MB) kept in memory, so these
// benchmarks measure the scanner, not the page cache.
func benchSet(b *testing.B) []refFile {
	b.Helper()
	return generated(b, 100000, 4)
}

func benchScan(b *testing.B, q Query) {
	benchScanFiles(b, q, benchSet(b))
}

func benchScanFiles(b *testing.B, q Query, files []refFile) {
	var want refAnswer
	if err := refQuery(files, q, &want); err != nil {
		b.Fatal(err)
	}
	r := loopScan(b, files, q)
	if r.Matched != want.matched || r.Sums[0].String() != want.sums[0].String() {
		b.Fatalf("answer %d %s, reference %d %s", r.Matched, r.Sums[0], want.matched, want.sums[0])
	}
}

// loopScan binds q to files and scans them whole in the benchmark's loop,
// reporting bytes and allocations; it returns the last answer.
// tablesOf binds q to each of files; n is their bytes.
func tablesOf(b *testing.B, files []refFile, q *Query) (tables []*Table, n int) {
	for _, f := range files {
		tb, err := NewTable(f.name, f.data, q)
		if err != nil {
			b.Fatal(err)
		}
		tables = append(tables, tb)
		n += len(f.data)
	}
	return tables, n
}

func loopScan(b *testing.B, files []refFile, q Query) Result {
	tables, n := tablesOf(b, files, &q)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	var r Result
	for b.Loop() {
		r = Result{}
		for _, tb := range tables {
			s, e := tb.Body()
			if err := tb.Scan(s, e, &r); err != nil {
				b.Fatal(err)
			}
		}
	}
	return r
}

// The reference query: Region is the first column, 26% of rows match.
func BenchmarkScanRegion(b *testing.B) {
	benchScan(b, Query{Filters: []Cond{Eq("Region", "Europe")}})
}

// The reference query over 3,000 rows (370 kB) that stay in the L2 cache:
// the scanner's own work, without waiting for memory. ns/row is per row.
func BenchmarkScanRegionInCache(b *testing.B) {
	benchScanFiles(b, Query{Filters: []Cond{Eq("Region", "Europe")}}, generated(b, 3000, 1))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/3000, "ns/row")
}

// A rarer match deeper in the row: the filter is found by walking fields.
func BenchmarkScanCountry(b *testing.B) {
	benchScan(b, Query{Filters: []Cond{Eq("Country", "France")}})
}

// Every row matches: the number parser's cost.
func BenchmarkScanAll(b *testing.B) {
	benchScan(b, Query{})
}

// The same data, every field quoted: the slow path's cost.
func BenchmarkScanQuoted(b *testing.B) {
	q := Query{Filters: []Cond{Eq("Region", "Europe")}}
	files := benchSet(b)
	ident := make([]int, 14)
	for i := range ident {
		ident[i] = i
	}
	f := reencode(b, files[0].data, true, false, ident)
	tb, err := NewTable("q.csv", f, &q)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(f)))
	scanLoop(b, tb)
}

// Each dequote this CPU runs (dequoters), over the quoted bench set one
// window at a time, as quotedBatch takes it.
func BenchmarkQuoteBatch(b *testing.B) {
	files := benchSet(b)
	ident := make([]int, 14)
	for i := range ident {
		ident[i] = i
	}
	f := reencode(b, files[0].data, true, false, ident)
	names := []string{"portable", "avx2", "avx512"}
	for _, d := range dequoters() {
		b.Run(names[d], func(b *testing.B) {
			b.SetBytes(int64(len(f)))
			dst := make([]byte, winBytes+64)
			for b.Loop() {
				for p := 0; p < len(f); {
					ok, _, _ := quoteBatchWith(d, dst, f[p:min(p+winBytes, len(f))], ',', p+winBytes >= len(f))
					if ok == 0 {
						b.Fatalf("no rows taken at %d", p)
					}
					p += ok
				}
			}
		})
	}
}

// The floor: one pass counting newlines, no parsing at all.
func BenchmarkFloorCountNewlines(b *testing.B) {
	files := benchSet(b)
	n := 0
	for _, f := range files {
		n += len(f.data)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		rows = 0
		for _, f := range files {
			rows += bytes.Count(f.data, []byte{'\n'})
		}
	}
	if rows != 100000+len(files) {
		b.Fatalf("%d lines", rows)
	}
}

// A money value as it sits in a file: with bytes after it.
func BenchmarkParseFixed(b *testing.B) {
	in := []byte("1234567.89,1234567.89\n")[:10]
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	var s int64
	for b.Loop() {
		m, _, err := ParseFixed(in)
		if err != nil {
			b.Fatal(err)
		}
		s += m
	}
	if s == 0 {
		b.Fatal("no sum")
	}
}

// No row matches: the cost of walking rows alone.
func BenchmarkScanNoMatch(b *testing.B) {
	benchScan(b, Query{Filters: []Cond{Eq("Region", "Nowhere")}})
}

// BenchmarkScanNoMatch's in-cache twin, over ScanRegionInCache's rows: no
// row is looked at past its first byte, so this is the classifier and the
// walk over windows alone, and the difference from ScanRegionInCache is
// what the 26% of rows that match cost (4.4 and 9.1 ns a row here).
func BenchmarkScanNoMatchInCache(b *testing.B) {
	benchScanFiles(b, Query{Filters: []Cond{Eq("Region", "Nowhere")}}, generated(b, 3000, 1))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/3000, "ns/row")
}

// Each classifier this CPU runs, over one window at a time of the bench set.
func BenchmarkClassify(b *testing.B) {
	data := benchSet(b)[0].data
	for name, f := range allClassifiers() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var m marks
			rows := 0
			for b.Loop() {
				rows = 0
				for p := 0; p < len(data); p += winBytes {
					rows += f(data[p:min(p+winBytes, len(data))], &m, 'E', ',').nl
				}
			}
			if rows != bytes.Count(data, []byte{'\n'}) {
				b.Fatalf("%d newlines counted", rows)
			}
		})
	}
}

// benchShape is benchScanFiles for the general queries: the answer is
// checked against refGeneral after the loop.
func benchShape(b *testing.B, q Query) {
	files := benchSet(b)
	want, err := refGeneral(files, q)
	if err != nil {
		b.Fatal(err)
	}
	r := loopScan(b, files, q)
	got, _, err := answerOf(files, q)
	if err != nil || r.Matched != want.matched || !slices.EqualFunc(got.cells, want.cells, slices.Equal) {
		b.Fatalf("answer %d %v (%v), reference %d %v", r.Matched, head(got.cells), err, want.matched, head(want.cells))
	}
}

// The shapes (docs/performance.md has the table against Region).
func BenchmarkShapeItemType(b *testing.B) {
	benchShape(b, Query{Filters: []Cond{{"Item Type", OpEq, "Cosmetics", false, nil}}})
}

func BenchmarkShapeChannel(b *testing.B) {
	benchShape(b, Query{Filters: []Cond{{"Sales Channel", OpEq, "Online", false, nil}}})
}

func BenchmarkShapeUnitsSold(b *testing.B) {
	benchShape(b, Query{Sum: []string{"Units Sold"}})
}

func BenchmarkShapeByRegion(b *testing.B) {
	benchShape(b, Query{By: []string{"Region"}})
}

func BenchmarkShapeByCountry(b *testing.B) {
	benchShape(b, Query{By: []string{"Country"}})
}

func BenchmarkShapeThreeFilters(b *testing.B) {
	benchShape(b, Query{Filters: []Cond{{"Region", OpEq, "Europe", false, nil}, {"Sales Channel", OpEq, "Online", false, nil}, {"Units Sold", OpGt, "5000", false, nil}}})
}

func BenchmarkShapeMinMaxAvg(b *testing.B) {
	benchShape(b, Query{By: []string{"Item Type"}, Min: []string{"Units Sold"}, Max: []string{"Unit Price"}, Avg: []string{"Total Profit"}})
}

// Thousands of keys (the bench set has fewer than 10M rows' 2,766 dates):
// the key table grown past its first 256 keys.
func BenchmarkShapeByOrderDate(b *testing.B) {
	benchShape(b, Query{By: []string{"Order Date"}})
}

// A two-column key (twoKey), of about 2,000 pairs here.
func BenchmarkShapeByCountryItemType(b *testing.B) {
	benchShape(b, Query{By: []string{"Country", "Item Type"}})
}

func BenchmarkShapeByOrderID(b *testing.B) {
	benchShape(b, Query{By: []string{"Order ID"}, Sum: []string{"Total Revenue"}})
}

// A key split's worker: the scan of part 0 of N of a group-by on Order ID
// (400k rows, about 320k keys), each part reading every row (MB/s is of
// them all). After the loop, the parts' results put together
// (MergeParts) must be the whole's.
func BenchmarkKeySplitByOrderID(b *testing.B) {
	files := generated(b, 400000, 4)
	q := Query{By: []string{"Order ID"}, Sum: []string{"Total Revenue"}}
	want, err := scanAll(files, q)
	if err != nil {
		b.Fatal(err)
	}
	tables, n := tablesOf(b, files, &q)
	scanPart := func(part KeyPart) *Result {
		r := &Result{Part: part}
		for _, tb := range tables {
			s, e := tb.Body()
			if err := tb.Scan(s, e, r); err != nil {
				b.Fatal(err)
			}
		}
		return r
	}
	for _, parts := range []int32{1, 2} {
		b.Run(fmt.Sprintf("part 0 of %d", parts), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			var rs []*Result
			for b.Loop() {
				rs = []*Result{scanPart(KeyPart{0, parts})}
			}
			for k := int32(1); k < parts; k++ {
				rs = append(rs, scanPart(KeyPart{k, parts}))
			}
			got, err := MergeParts(rs, int(parts), 2)
			if err != nil || !got.Equal(&want) {
				b.Fatalf("the parts' answer differs from the whole's (%v)", err)
			}
		})
	}
}

// The merge of many groups (a group-by on Order ID, 8 parts of 40k rows,
// each with its own groups, as a parallel scan's units have them), one
// goroutine against one a core: ns/group is per group merged in.
func BenchmarkMergeManyGroups(b *testing.B) {
	files := generated(b, 320000, 8)
	q := Query{By: []string{"Order ID"}, Sum: []string{"Total Revenue"}}
	var rs []*Result
	n := 0
	for _, f := range files {
		r, err := scanAll([]refFile{f}, q)
		if err != nil {
			b.Fatal(err)
		}
		rs = append(rs, &r)
		n += r.Groups.Len()
	}
	want := MergeAll(rs, 1)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			var got Result
			for b.Loop() {
				got = MergeAll(rs, workers)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/group")
			if !got.Equal(&want) {
				b.Fatal("the merged answer differs from one goroutine's")
			}
		})
	}
}

// A group-by's table of about 950k groups (by Order ID on 1M rows, with
// the sum, average, minimum and maximum of a column): ordering it (the
// table made by Groups) and writing every row's cells with
// AppendRow, plain and grouped. MB/s is of the cells written; after the
// loop they must be Row's.
func BenchmarkGroupTable(b *testing.B) {
	files := generated(b, 1000000, 4)
	q := Query{By: []string{"Order ID"}, Sum: []string{"Total Revenue"}, Avg: []string{"Total Revenue"},
		Min: []string{"Unit Price"}, Max: []string{"Total Profit"}}
	_, a, err := answerOf(files, q)
	if err != nil {
		b.Fatal(err)
	}
	// Ordering: by key (the whole table), and the first 3 by a sum (a
	// heap). After the loop the table must be in the comparator's order,
	// and no group left out may come before its last row.
	for _, c := range []struct {
		name  string
		sort  []SortKey
		limit int
	}{{"order", nil, 0}, {"top 3 by a sum", []SortKey{{"Total Revenue", true}}, 3}} {
		qc := q
		qc.Sort, qc.Limit = c.sort, c.limit
		_, ac, err := answerOf(files, qc)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var gt *GroupTable
			for b.Loop() {
				gt = ac.Groups()
			}
			n := ac.Result.Groups.Len()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/group")
			o := newGroupOrder(ac)
			in := make([]bool, n)
			for i, x := range gt.order {
				in[x] = true
				if i > 0 && o.cmp(gt.order[i-1], x) >= 0 {
					b.Fatalf("rows %d and %d out of order", i-1, i)
				}
			}
			for x := range n {
				if !in[x] && o.cmp(x, gt.order[len(gt.order)-1]) < 0 {
					b.Fatalf("group %d left out comes before the table's last row", x)
				}
			}
			if len(gt.order) != cmp.Or(c.limit, n) {
				b.Fatalf("%d rows, want %d", len(gt.order), cmp.Or(c.limit, n))
			}
		})
	}
	gt := a.Groups()
	for _, group := range []bool{false, true} {
		b.Run(fmt.Sprintf("rows group=%v", group), func(b *testing.B) {
			var out []byte
			var ends []int
			b.ReportAllocs()
			for b.Loop() {
				out, ends = out[:0], ends[:0]
				for i := range gt.Len() {
					out, ends = gt.AppendRow(out, ends, i, group)
				}
			}
			b.SetBytes(int64(len(out)))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(gt.Len()), "ns/row")
			var want []string
			for i := range gt.Len() {
				want = gt.Row(want, i, group)
			}
			if got := cellsOf(out, 0, ends); !slices.Equal(got, want) {
				b.Fatal("AppendRow's cells are not Row's")
			}
		})
	}
}

// The shapes that sum over ScanRegionInCache's 3,000 rows (370 kB,
// in the L2 cache): the scanner's own cost a row, without waiting for
// memory, so that a change to the walk or the parse shows in a few rounds.
// (A group-by is left to ShapeByRegion: over 3,000 rows its tables' first
// allocation would be most of the time.) Answers checked.
func BenchmarkShapesInCache(b *testing.B) {
	files := generated(b, 3000, 1)
	for _, s := range []struct {
		name string
		q    Query
	}{
		{"Region=Europe", Query{Filters: []Cond{Eq("Region", "Europe")}}},
		{"no filter", Query{}},
		{"Sales Channel=Online", Query{Filters: []Cond{{"Sales Channel", OpEq, "Online", false, nil}}}},
		{"sum Units Sold", Query{Sum: []string{"Units Sold"}}},
	} {
		b.Run(s.name, func(b *testing.B) {
			want, err := refGeneral(files, s.q)
			if err != nil {
				b.Fatal(err)
			}
			r := loopScan(b, files, s.q)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/3000, "ns/row")
			got, _, err := answerOf(files, s.q)
			if err != nil || r.Matched != want.matched || !slices.EqualFunc(got.cells, want.cells, slices.Equal) {
				b.Fatalf("answer %d %v (%v), reference %d %v", r.Matched, head(got.cells), err, want.matched, head(want.cells))
			}
		})
	}
}

// A date range (two filters on Order Date, M/D/YYYY, a date column) and the
// two sums: issue 64's date question, against BenchmarkScanRegionInCache.
func BenchmarkScanDateRange(b *testing.B) {
	q := Query{Filters: []Cond{{Col: "Order Date", Op: OpGe, Value: "2015-01-01"}, {Col: "Order Date", Op: OpLt, Value: "2016-01-01"}},
		Kinds: []ColumnKind{{"Order Date", KindDate, "a date"}, {"Total Revenue", KindNumber, "summed"}, {"Total Profit", KindNumber, "summed"}}}
	files := benchSet(b)
	tb, err := NewTable("d.csv", files[0].data, &q)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(files[0].data)))
	scanLoop(b, tb)
}

// scanLoop scans tb's body again and again, every scan required to match.
func scanLoop(b *testing.B, tb *Table) {
	b.ReportAllocs()
	for b.Loop() {
		var r Result
		s, e := tb.Body()
		if err := tb.Scan(s, e, &r); err != nil || r.Matched == 0 {
			b.Fatal(err)
		}
	}
}
