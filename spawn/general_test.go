package spawn

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"parlab/data"
	"parlab/scan"
)

// The general queries (several filters, order comparisons, group-by,
// min/max/avg) give one answer every way: every strategy, split, worker
// count and I/O mode, on plain files and on a copy with quoted fields that
// hold newlines, where row splits must rescan. Their answers are checked
// against the slow reference in package scan; here they must agree.
func TestGeneralEveryWay(t *testing.T) {
	dir := t.TempDir()
	if err := data.Generate(dir, data.Options{Rows: 3000, Files: 2, Seed: 5}, false, nil); err != nil {
		t.Fatal(err)
	}
	plain, _ := ExpandPaths([]string{dir})
	// a quoted copy: a Country with a comma and a newline in it
	qdir := t.TempDir()
	for _, p := range plain {
		b, _ := os.ReadFile(p)
		b = bytes.ReplaceAll(b, []byte(",Chad,"), []byte(",\"Ch\nad, \"\"the\"\"\","))
		writeFile(t, filepath.Join(qdir, filepath.Base(p)), string(b))
	}
	quoted, _ := ExpandPaths([]string{qdir})
	queries := []scan.Query{
		{Where: "Region", Equals: "Europe", Filters: []scan.Cond{{Col: "Sales Channel", Op: scan.OpEq, Value: "Online"}, {Col: "Units Sold", Op: scan.OpGt, Value: "5000"}}},
		{By: []string{"Region"}, Min: []string{"Units Sold"}, Max: []string{"Unit Price"}, Avg: []string{"Total Profit"}},
		{By: []string{"Country", "Sales Channel"}},
		{By: []string{"Order ID"}, Sum: []string{"Units Sold"}},
		{Filters: []scan.Cond{{Col: "Order Date", Op: scan.OpGe, Value: "2015-01-01"}}, Min: []string{"Total Revenue"}, Avg: []string{"Total Revenue"}},
	}
	for _, q := range queries {
		for _, paths := range [][]string{plain, quoted} {
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

// A group-by with a group per row: the processes' variable part carries
// every unit's groups, however many.
func TestGroupsEveryRow(t *testing.T) {
	dir := t.TempDir()
	if err := data.Generate(dir, data.Options{Rows: 40000, Files: 1, Seed: 9}, false, nil); err != nil {
		t.Fatal(err)
	}
	paths, _ := ExpandPaths([]string{dir})
	q := scan.Query{By: []string{"Order ID"}, Max: []string{"Total Profit"}}
	var want *Report
	for _, st := range []Strategy{Sequential{}, Goroutines{}, Processes{}} {
		rep, err := st.Run(context.Background(), Config{Paths: paths, Query: q, Workers: 3, Split: SplitDynamic, Chunk: 64 << 10, Timeout: time.Minute})
		if err != nil {
			t.Fatalf("%s: %v", st.Name(), err)
		}
		if n := rep.Result.Groups.Len(); n < 39000 {
			t.Fatalf("%s: %d groups of 40000 rows", st.Name(), n)
		}
		if want == nil {
			want = rep
		} else if !rep.Result.Equal(&want.Result) {
			t.Fatalf("%s: a different answer", st.Name())
		}
	}
}
