package render

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"parlab/input"
	"parlab/scan"
	"parlab/spawn"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// salesReport runs q over the command's small Sales files with the
// sequential strategy and makes its times fixed, so that what render
// writes of it is the same bytes on every run.
func salesReport(t *testing.T, q scan.Query) (*spawn.Report, spawn.Config) {
	t.Helper()
	dir := filepath.Join("..", "cmd", "parlab", "testdata", "sales")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range ents {
		paths = append(paths, filepath.Join(dir, e.Name()))
	}
	c := spawn.Config{Paths: paths, Query: q, Mode: input.Mmap, Workers: 1, Split: spawn.SplitFile}
	rep, err := spawn.Sequential{}.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	rep.Setup, rep.Spawn, rep.Scan, rep.Join, rep.Merge, rep.Total = time.Millisecond, 0, 4*time.Millisecond, 0, time.Millisecond, 6*time.Millisecond
	for i := range rep.PerWorker {
		w := &rep.PerWorker[i]
		w.Start, w.End = time.Millisecond, 5*time.Millisecond
	}
	return rep, c
}

// golden compares got with testdata/name.golden (go test -update writes it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", name, p, got, want)
	}
}

// TestGolden writes three reports (a filter and its sums; a group-by with
// every aggregate kind over numbers, dates and text; the top groups of two
// keys) in each form: the text report with --verbose's tables, CSV and JSON.
func TestGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		q    scan.Query
	}{
		{"europe", scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}, Sum: []string{"Total Revenue", "Total Profit"}}},
		{"by_channel", scan.Query{By: []string{"Sales Channel"}, Sum: []string{"Units Sold"}, Avg: []string{"Unit Price"},
			Min: []string{"Order Date"}, Max: []string{"Country"}}},
		{"top_two_keys", scan.Query{By: []string{"Region", "Item Type"}, Sum: []string{"Total Profit"},
			Sort: []scan.SortKey{{Col: "Total Profit", Desc: true}}, Limit: 3}},
	} {
		rep, c := salesReport(t, tt.q)
		var text, csv, js bytes.Buffer
		Text(&text, rep, input.Mmap)
		Kinds(&text, rep)
		Workers(&text, rep)
		if err := CSV(&csv, rep); err != nil {
			t.Fatal(err)
		}
		if err := JSON(&js, rep, c); err != nil {
			t.Fatal(err)
		}
		golden(t, tt.name+"_text", text.Bytes())
		golden(t, tt.name+"_csv", csv.Bytes())
		golden(t, tt.name+"_json", js.Bytes())
	}
}
