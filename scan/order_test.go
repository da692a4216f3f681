package scan

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Keys and values whose spellings differ in scale (7.1 and 7.10, 10 and
// 10.0), with many groups (the default sums, Total Revenue and Total
// Profit, are in the file), so that each of groupOrder's ways meets the cases
// where a rank cannot be used (numbers at several scales) and where one can,
// with and without a limit, ascending and descending: every table must be
// the reference's, to the digit and in its order.
func TestGroupOrderScales(t *testing.T) {
	oneGoroutine(t)
	keys := []string{"7.1", "7.10", "10", "10.0", "-3", "2.5", "0", "-0.00", "99.999", "1e3x"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mixed := range []bool{false, true} {
		var b strings.Builder
		b.WriteString("Key,Num,Total Revenue,Total Profit\n")
		for i := range 1200 {
			k := fmt.Sprint(rng.IntN(900))
			if mixed && i%5 == 0 {
				k = keys[rng.IntN(len(keys)-1)] // numbers all, at several scales
			}
			v := fmt.Sprintf("%d.%d", rng.IntN(100), rng.IntN(10))
			if mixed && i%7 == 0 {
				v = fmt.Sprintf("%d.%02d", rng.IntN(100), rng.IntN(100))
			}
			fmt.Fprintf(&b, "%s,%d,%s,%d.%02d\n", k, rng.IntN(50), v, rng.IntN(1000), rng.IntN(100))
		}
		files := []refFile{{"scales.csv", []byte(b.String())}}
		for _, q := range []Query{
			{By: []string{"Key"}},
			{By: []string{"Key"}, Limit: 3},
			{By: []string{"Key"}, Sort: []SortKey{{"Key", true}}, Limit: 50},
			{By: []string{"Key"}, Sum: []string{"Total Revenue"}, Sort: []SortKey{{"Total Revenue", true}}},
			{By: []string{"Key"}, Sum: []string{"Total Profit"}, Sort: []SortKey{{"Total Profit", false}}},
			{By: []string{"Key"}, Sum: []string{"Total Profit"}, Sort: []SortKey{{"Total Profit", true}}, Limit: 9},
			{By: []string{"Key"}, Min: []string{"Total Revenue"}, Sort: []SortKey{{"min(total revenue)", false}}},
			{By: []string{"Key"}, Max: []string{"Total Profit"}, Sort: []SortKey{{"max(total profit)", true}}},
			{By: []string{"Num"}, Avg: []string{"Total Revenue"}, Sort: []SortKey{{"avg(total revenue)", true}}},
			{By: []string{"Num", "Key"}, Sort: []SortKey{{"count", true}, {"Num", true}}, Limit: 25},
			{By: []string{"Num"}, Avg: []string{"Total Revenue"}, Sort: []SortKey{{"avg(total revenue)", false}}, Limit: 4},
			{By: []string{"Key", "Num"}},
		} {
			got, err := checkGen(t, fmt.Sprintf("mixed=%v", mixed), files, q)
			if err != nil || len(got.cells) < min(q.Limit, 40) || len(got.cells) < 40 && q.Limit == 0 {
				t.Fatalf("%+v: %d rows, %v", q, len(got.cells), err)
			}
		}
	}
}

// Many groups of the generated set: each of groupOrder's ways (a heap for
// a small limit; ranks of a numeric key, a sum, a minimum) against the
// reference's sort, in every hot mode.
func TestGroupOrderGenerated(t *testing.T) {
	oneGoroutine(t)
	files := generated(t, 600, 2)
	for _, q := range []Query{
		{By: []string{"Order ID"}},
		{By: []string{"Order ID"}, Sort: []SortKey{{"count", false}}, Limit: 7},
		{By: []string{"Ship Date"}, Sort: []SortKey{{"Total Profit", true}}},
		{By: []string{"Units Sold"}, Min: []string{"Unit Price"}, Sort: []SortKey{{"min(unit price)", true}, {"count", false}}},
	} {
		got, err := checkGen(t, "generated", files, q)
		if err != nil || len(got.cells) < 7 {
			t.Fatalf("%+v: %d rows, %v", q, len(got.cells), err)
		}
	}
}

// smallest is a sort's first k, for every k.
func TestSmallest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	v := make([]int, 300)
	for i := range v {
		v[i] = rng.IntN(40) // ties, broken by index: a total order
	}
	cmp := func(x, y int) int {
		if v[x] != v[y] {
			return v[x] - v[y]
		}
		return x - y
	}
	all := smallest(len(v), len(v), cmp)
	for k := 1; k <= len(v); k += 7 {
		got := smallest(len(v), k, cmp)
		if fmt.Sprint(got) != fmt.Sprint(all[:k]) {
			t.Fatalf("k=%d: %v, want %v", k, got, all[:k])
		}
	}
	for i := 1; i < len(all); i++ {
		if cmp(all[i-1], all[i]) >= 0 {
			t.Fatalf("not in order at %d: %v", i, all)
		}
	}
}

// sortRanked orders as a stable sort by rank whose ties the comparator
// breaks, for ranks of narrow and wide ranges, negative, with many ties,
// and declines a range too wide to pack with an index.
func TestSortRanked(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 2, 3, 100, 5000} {
		for _, width := range []int{1, 8, 20, 40, 62 - bits.Len(uint(max(n-1, 0)))} {
			r := make([]int64, n)
			tieKey := make([]int, n) // the comparator's order within a rank
			base := rng.Int64() >> 2
			if rng.IntN(2) == 0 {
				base = -base
			}
			for i := range r {
				r[i] = base + rng.Int64N(int64(1)<<width)
				tieKey[i] = rng.IntN(1000)
			}
			tie := func(x, y int) int { return cmp.Or(cmp.Compare(tieKey[x], tieKey[y]), cmp.Compare(x, y)) }
			want := make([]int, n)
			for i := range want {
				want[i] = i
			}
			slices.SortFunc(want, func(x, y int) int { return cmp.Or(cmp.Compare(r[x], r[y]), tie(x, y)) })
			if got := sortRanked(r, tie); !slices.Equal(got, want) {
				t.Fatalf("n %d, width %d: %v, want %v", n, width, got, want)
			}
		}
	}
	if got := sortRanked([]int64{math.MinInt64, 0, math.MaxInt64}, nil); got != nil {
		t.Errorf("the whole int64 range with an index: %v, want nil", got)
	}
	if got := sortRanked([]int64{math.MaxInt64, 0}, nil); !slices.Equal(got, []int{1, 0}) {
		t.Errorf("63 bits and an index bit: %v", got)
	}
	if got := sortRanked([]int64{-1, math.MinInt64}, nil); !slices.Equal(got, []int{1, 0}) {
		t.Errorf("the negative half: %v", got)
	}
}

// cellsOf is AppendRow's cells as strings: b[start:ends[0]] and so on.
func cellsOf(b []byte, start int, ends []int) []string {
	var out []string
	for _, e := range ends {
		out, start = append(out, string(b[start:e])), e
	}
	return out
}

// AppendRow appends after what dst holds, with its ends as offsets in the
// whole slice, the cells Row gives; kept from row to row, dst and ends
// take a table of many rows without an allocation a row.
func TestAppendRow(t *testing.T) {
	files := generated(t, 2000, 1)
	q := Query{By: []string{"Order ID"}, Sum: []string{"Total Revenue"}, Avg: []string{"Units Sold", "Total Profit"},
		Min: []string{"Unit Price"}, Max: []string{"Total Profit"}}
	_, a, err := answerOf(files, q)
	if err != nil {
		t.Fatal(err)
	}
	gt := a.Groups()
	if gt.Len() < 1000 {
		t.Fatalf("%d groups", gt.Len())
	}
	for _, group := range []bool{false, true} {
		for i := range gt.Len() {
			b, ends := gt.AppendRow([]byte("prefix"), nil, i, group)
			if got, want := cellsOf(b, len("prefix"), ends), gt.Row(nil, i, group); !slices.Equal(got, want) || string(b[:6]) != "prefix" {
				t.Fatalf("row %d: AppendRow %q, Row %q", i, got, want)
			}
		}
	}
	var b []byte
	var ends []int
	i := 0
	allocs := testing.AllocsPerRun(gt.Len(), func() {
		b, ends = gt.AppendRow(b[:0], ends[:0], i%gt.Len(), true)
		i++
	})
	if allocs > 0.01 {
		t.Errorf("AppendRow: %.3f allocations a row", allocs)
	}
}

// EachRow visits the table's rows, each once, with Row's cells, in one part
// or in several goroutines' parts.
func TestEachRow(t *testing.T) {
	defer func(m int) { eachRowMin = m }(eachRowMin)
	eachRowMin = 1
	files := generated(t, 500, 1)
	for _, q := range []Query{{By: []string{"Order ID"}, Sort: []SortKey{{"Total Revenue", true}}, Limit: 30}, {By: []string{"Country"}}} {
		_, a, err := answerOf(files, q)
		if err != nil {
			t.Fatal(err)
		}
		gt := a.Groups()
		for _, parts := range []int{1, 3} {
			want := map[string]int{}
			for i := range gt.Len() {
				want[strings.Join(gt.Row(nil, i, true), "|")]++
			}
			var mu sync.Mutex
			n, seen := 0, map[int]bool{}
			gt.EachRow(true, parts, func(p int, b []byte, ends []int) {
				mu.Lock()
				defer mu.Unlock()
				n++
				seen[p] = true
				if k := strings.Join(cellsOf(b, 0, ends), "|"); want[k] != 1 {
					t.Errorf("%+v: row %q visited but not in the table once", q, k)
				} else {
					want[k] = 0
				}
			})
			if len(seen) != parts {
				t.Errorf("%+v: %d parts visited of %d", q, len(seen), parts)
			}
			if n != gt.Len() || gt.Len() < 30 {
				t.Errorf("%+v: %d rows visited of %d", q, n, gt.Len())
			}
		}
	}
}
