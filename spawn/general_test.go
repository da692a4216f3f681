package spawn

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parlab/data"
	"parlab/input"
	"parlab/internal/testrun"
	"parlab/scan"
)

// The general queries (several filters, order comparisons, group-by,
// min/max/avg) give one answer every way: every strategy, split, worker
// count and I/O mode, on plain files and on a copy with quoted fields that
// hold newlines, where row splits must rescan. Their answers are checked
// against the slow reference in package scan; here they must agree.
func TestGeneralEveryWay(t *testing.T) {
	plain, quoted := chadQuoted(t, data.Options{Rows: 1500, Files: 2, Seed: 5})
	queries := []scan.Query{
		{Filters: []scan.Cond{scan.Eq("Region", "Europe"), {Col: "Sales Channel", Op: scan.OpEq, Value: "Online"}, {Col: "Units Sold", Op: scan.OpGt, Value: "5000"}}},
		{By: []string{"Region"}, Min: []string{"Units Sold"}, Max: []string{"Unit Price"}, Avg: []string{"Total Profit"}},
		{By: []string{"Country", "Sales Channel"}},
		{By: []string{"Order ID"}, Sum: []string{"Units Sold"}},
		{Filters: []scan.Cond{{Col: "Order Date", Op: scan.OpGe, Value: "2015-01-01"}}, Min: []string{"Total Revenue"}, Avg: []string{"Total Revenue"}},
		{Holistic: []scan.Holistic{{Func: "count_distinct", Col: "Country"}, {Func: "median", Col: "Unit Price"}, {Func: "quantile", Col: "Total Profit", P: "0.9"}}},
		{Any: []scan.Cond{{Col: "Country", Op: scan.OpContains, Value: "had"}, {Col: "Units Sold", Op: scan.OpGt, Value: "9000"}}, By: []string{"Region"}},
		{By: []string{"Region"}, Holistic: []scan.Holistic{{Func: "count_distinct", Col: "Order Date"}, {Func: "median", Col: "Units Sold"}}, Max: []string{"Units Sold"}},
	}
	sets := [][]string{plain, quoted}
	if testing.Short() {
		sets = sets[1:] // the race run: the quoted set, which rescans
	}
	for _, q := range queries {
		for _, paths := range sets {
			seq, err := Sequential{}.Run(context.Background(), Config{Paths: paths, Query: q, Workers: 1, Timeout: time.Minute})
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			if seq.Result.Matched == 0 || (q.By != nil && (seq.Result.Groups == nil || seq.Result.Groups.Len() < 2)) {
				t.Fatalf("%+v: a weak test: %+v", q, seq.Result)
			}
			agree(t, seq.Spec.Describe(), paths, q, &seq.Result)
		}
	}
}

// chadQuoted generates a data set as o says, and a copy of it whose Chad
// is a quoted field that holds a comma, a newline and doubled quotes: row
// splits cut inside such fields, and units are read again.
func chadQuoted(t *testing.T, o data.Options) (plain, quoted []string) {
	dir, qdir := t.TempDir(), t.TempDir()
	if err := data.Generate(dir, o, false, nil); err != nil {
		t.Fatal(err)
	}
	plain, _ = input.ExpandPaths([]string{dir})
	for _, p := range plain {
		b, _ := os.ReadFile(p)
		b = bytes.ReplaceAll(b, []byte(",Chad,"), []byte(",\"Ch\nad, \"\"the\"\"\","))
		writeFile(t, filepath.Join(qdir, filepath.Base(p)), string(b))
	}
	quoted, _ = input.ExpandPaths([]string{qdir})
	return plain, quoted
}

// A group-by with a group per row: the processes' variable part carries
// every unit's groups, however many.
func TestGroupsEveryRow(t *testing.T) {
	testrun.FullRunOnly(t, "real worker processes")
	dir := t.TempDir()
	if err := data.Generate(dir, data.Options{Rows: 40000, Files: 1, Seed: 9}, false, nil); err != nil {
		t.Fatal(err)
	}
	paths, _ := input.ExpandPaths([]string{dir})
	q := scan.Query{By: []string{"Order ID"}, Max: []string{"Total Profit"}}
	var want *Report
	for _, st := range []Strategy{Sequential{}, Goroutines{}, Processes{}} {
		for _, split := range []Split{SplitDynamic, SplitKeys, SplitAuto} {
			rep, err := st.Run(context.Background(), Config{Paths: paths, Query: q, Workers: 3, Split: split, Chunk: 64 << 10, Timeout: time.Minute})
			if err != nil {
				t.Fatalf("%s %s: %v", st.Name(), split, err)
			}
			if n := rep.Result.Groups.Len(); n < 39000 {
				t.Fatalf("%s %s: %d groups of 40000 rows", st.Name(), split, n)
			}
			if st.Name() != NameSeq && split == SplitAuto && rep.Split != SplitKeys {
				t.Errorf("%s: the auto split of a group per row was %s, not keys", st.Name(), rep.Split)
			}
			if want == nil {
				want = rep
			} else if !rep.Result.Equal(&want.Result) {
				t.Fatalf("%s %s: a different answer", st.Name(), split)
			}
		}
	}
}

// The auto split picks keys for a group-by of mostly distinct keys (a
// sample of the rows says), rows for anything else; the keys split refuses
// a query without a group-by; and each key part of a keys split is a part
// of every file.
func TestKeysSplit(t *testing.T) {
	dir := t.TempDir()
	if err := data.Generate(dir, data.Options{Rows: 40000, Files: 3, Seed: 9}, false, nil); err != nil {
		t.Fatal(err)
	}
	paths, _ := input.ExpandPaths([]string{dir})
	for _, c := range []struct {
		q       scan.Query
		workers int
		want    Split
	}{
		{scan.Query{By: []string{"Order ID"}}, 2, SplitKeys},
		{scan.Query{By: []string{"Order ID"}, Filters: []scan.Cond{{Col: "Region", Op: scan.OpEq, Value: "Europe"}}}, 2, SplitKeys},
		{scan.Query{By: []string{"Order ID"}}, 1, SplitRows},
		{scan.Query{By: []string{"Country"}}, 2, SplitRows},
		{scan.Query{By: []string{"Order Date"}}, 2, SplitRows},
		{scan.Query{By: []string{"Order ID"}, Filters: []scan.Cond{{Col: "Country", Op: scan.OpEq, Value: "Chad"}}}, 2, SplitRows}, // too few matches to judge
		{scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, 2, SplitRows},
	} {
		set, err := Open(paths, c.q, input.Mmap, input.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(set, SplitAuto, c.workers, 0)
		set.Close()
		if err != nil || p.Split != c.want {
			t.Errorf("%+v, %d workers: the auto split is %v (%v), want %v", c.q, c.workers, p.Split, err, c.want)
		}
		// the groups the sample expects (every Order ID is distinct; a
		// quarter of the rows are Europe's, 48 countries of 185)
		lo, hi := int64(0), int64(0)
		if p.Split == SplitKeys {
			lo, hi = 40000*8/10, 40000*12/10
			if c.q.Filters != nil {
				lo, hi = 40000/6, 40000/3
			}
		}
		if set.expect < lo || set.expect > hi {
			t.Errorf("%+v, %d workers: the sample expects %d groups, want %d to %d", c.q, c.workers, set.expect, lo, hi)
		}
	}
	// what --max-memory allows bounds it
	bset, err := Open(paths, scan.Query{By: []string{"Order ID"}, MaxHeld: 1000 * groupRoom}, input.Mmap, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := NewPlan(bset, SplitAuto, 2, 0); err != nil || p.Split != SplitKeys || bset.expect != 1000 {
		t.Errorf("by Order ID under --max-memory of 1,000 groups: the sample expects %d (%v split, %v)", bset.expect, p.Split, err)
	}
	bset.Close()
	// a set smaller than the sample's 16 pieces: each row is sampled once,
	// so its distinct keys look distinct (overlapping pieces counted rows
	// three times, and saw few keys)
	small := t.TempDir()
	if err := data.Generate(small, data.Options{Rows: 3000, Files: 1, Seed: 9}, false, nil); err != nil {
		t.Fatal(err)
	}
	smallPaths, _ := input.ExpandPaths([]string{small})
	sset, err := Open(smallPaths, scan.Query{By: []string{"Order ID"}}, input.Mmap, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := NewPlan(sset, SplitAuto, 2, 0); err != nil || p.Split != SplitKeys {
		t.Errorf("by Order ID on 3,000 rows: the auto split is %v (%v), want keys", p.Split, err)
	}
	sset.Close()
	set, err := Open(paths, scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, input.Mmap, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if _, err := NewPlan(set, SplitKeys, 2, 0); err == nil || !strings.Contains(err.Error(), "needs a group-by") {
		t.Errorf("a keys split without a group-by: %v", err)
	}
	set.Query = scan.Query{By: []string{"Region"}}
	p, err := NewPlan(set, SplitKeys, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	for w, units := range p.Assign {
		if len(units) != len(paths) {
			t.Fatalf("worker %d has %d units of %d files", w, len(units), len(paths))
		}
		for f, i := range units {
			if u := p.Units[i]; u != (Unit{File: f, Start: u.Start, End: u.End, Part: scan.KeyPart{K: int32(w), N: 3}}) || !set.whole(u) {
				t.Errorf("worker %d's unit %d: %+v", w, f, u)
			}
		}
	}
}
