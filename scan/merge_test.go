package scan

import (
	"fmt"
	"slices"
	"testing"
)

// MergeAll's parallel merge (enough groups, several goroutines) gives the
// answer of merging the parts one by one, and the reference's table, for
// sums, minimums, maximums and averages; its result finds every key (the
// index is made when asked for), and it can be merged into again.
func TestMergeAll(t *testing.T) {
	defer func(n int) { mergeMin = n }(mergeMin)
	mergeMin = 4000
	rows := 12000
	if testing.Short() {
		rows = 6000 // still past mergeMin's 4000 groups
	}
	files := generated(t, rows, 6)
	queries := []Query{
		{By: []string{"Order ID"}, Min: []string{"Units Sold"}, Max: []string{"Total Profit"}, Avg: []string{"Unit Cost"}, Sum: []string{"Total Cost"}},
		{By: []string{"Order ID", "Units Sold"}},
	}
	if testing.Short() {
		queries = queries[:1]
	}
	for _, q := range queries {
		var rs []*Result
		var seq Result
		for _, f := range files {
			r, err := scanAll([]refFile{f}, q)
			if err != nil {
				t.Fatal(err)
			}
			rs = append(rs, &r)
			seq.Merge(&r)
		}
		if seq.Groups.Len() < mergeMin {
			t.Fatalf("%+v: %d groups, too few for the parallel merge", q, seq.Groups.Len())
		}
		want, err := refGeneral(files, q)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := NewTable(files[0].name, files[0].data, &q)
		if err != nil {
			t.Fatal(err)
		}
		workers := []int{1, 2, 3, 8}
		if testing.Short() {
			workers = []int{3}
		}
		for _, workers := range workers {
			got := MergeAll(rs, workers)
			if !got.Equal(&seq) || !seq.Equal(&got) {
				t.Fatalf("%+v, %d workers: the merged answer differs from the one merged in turn", q, workers)
			}
			a := &Answer{Spec: tb.Spec(), Result: got}
			gt := a.Groups()
			if gt.Len() != len(want.cells) {
				t.Fatalf("%+v, %d workers: %d groups, reference %d", q, workers, gt.Len(), len(want.cells))
			}
			for i := range gt.Len() {
				if row := gt.Row(nil, i, false); !slices.Equal(row, want.cells[i]) {
					t.Fatalf("%+v, %d workers: row %d %v, reference %v", q, workers, i, row, want.cells[i])
				}
			}
			again := got
			again.Groups = MergeAll([]*Result{&got}, 1).Groups
			again.Merge(rs[0])
			if again.Groups.Len() != got.Groups.Len() || again.Matched != got.Matched+rs[0].Matched {
				t.Fatalf("%+v, %d workers: merging into the result again: %d groups of %d", q, workers, again.Groups.Len(), got.Groups.Len())
			}
		}
		for _, r := range rs[:1] {
			if c, err := scanAll(files[:1], q); err != nil || !c.Equal(r) {
				t.Fatalf("%+v: MergeAll changed its argument", q)
			}
		}
	}
}

// Keys of 16 bytes or more go through Groups.recent: every lookup, hit or
// miss, collision or not, gives the key's own group, before and after the
// groups are put end to end and indexed again.
func TestGroupsRecent(t *testing.T) {
	g := newGroups(1, NeedSum)
	var keys []string
	for i := range 500 { // far more keys than recent's 64 entries
		keys = append(keys, fmt.Sprintf("a long region name %d", i*7919%1000))
	}
	want := map[string]int{}
	for round := range 3 {
		for j, k := range keys {
			if round > 0 && j%3 == 0 {
				k = keys[len(keys)-1-j] // another order, other collisions
			}
			i := g.at([]byte(k))
			if w, ok := want[k]; ok && w != i || g.Key(i) != k {
				t.Fatalf("round %d: %q is group %d (key %q), want %d", round, k, i, g.Key(i), want[k])
			}
			want[k] = i
		}
	}
	c := concatGroups([]*Groups{g})
	for _, k := range keys {
		if i := c.at([]byte(k)); c.Key(i) != k || c.Len() != len(want) {
			t.Fatalf("after concat: %q is group %d (key %q), %d groups", k, i, c.Key(i), c.Len())
		}
	}
}
