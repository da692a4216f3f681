package spawn

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"parlab/data"
	"parlab/input"
	"parlab/scan"
)

// A query that selects rows writes the same bytes every way (strategy,
// split, worker count, I/O mode), in file order, also where a row split
// cuts inside a quoted field that holds a newline and units are read
// again; with a limit, every way writes the first rows of the sequential
// answer, however early its workers stopped. The rows themselves are
// checked against the slow reference in package scan.
func TestSelectEveryWay(t *testing.T) {
	plain, quoted := chadQuoted(t, data.Options{Rows: 1500, Files: 3, Seed: 6})
	europe := scan.Cond{Col: "Region", Op: scan.OpEq, Value: "Sub-Saharan Africa"}
	queries := []scan.Query{
		{Filters: []scan.Cond{europe}, Select: []string{"Order ID", "Country", "Total Profit"}},
		{Filters: []scan.Cond{{Col: "Units Sold", Op: scan.OpGt, Value: "8000"}}, Select: []string{"*"}, Out: scan.OutJSON},
		{Filters: []scan.Cond{europe}, Select: []string{"*"}, Out: scan.OutTSV},
		{Filters: []scan.Cond{europe}, Select: []string{"Units Sold", "Country"}, Sort: []scan.SortKey{{Col: "Units Sold", Desc: true}, {Col: "Country"}}, Out: scan.OutJSON},
	}
	for qi, q := range queries {
		for _, paths := range [][]string{plain, quoted} {
			seq, err := Sequential{}.Run(context.Background(), Config{Paths: paths, Query: q, Workers: 1, Timeout: time.Minute})
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			if seq.Result.Matched < 50 || int64(bytes.Count(seq.Result.Out, []byte("\n"))) < seq.Result.Matched {
				t.Fatalf("%+v: a weak test: %d rows, %d bytes", q, seq.Result.Matched, len(seq.Result.Out))
			}
			agree(t, "rows out", paths, q, &seq.Result)
			// every way again, with a limit and without, the rows handed
			// to a sink where the strategy can (RowSink) and the rest left
			// in Out: the same bytes, in file order
			for _, limit := range []int{0, 1, 40}[:2+min(qi, 1)] {
				lq := q
				lq.Limit = limit
				want := seq.Result.Out
				if limit > 0 {
					want = scan.CutRows(want, q.Out, limit)
				}
				for _, sink := range []bool{false, true} {
					if limit == 0 && !sink {
						continue // (agree's)
					}
					for _, w := range everyWay(false) {
						var got []byte
						c := Config{Paths: paths, Query: lq, Mode: w.mode, Opt: input.Options{Buffer: 300},
							Workers: w.workers, Split: w.split, Chunk: 1 << 10, Timeout: time.Minute}
						if sink {
							c.Rows = func(spec *scan.Spec, rows []byte) error {
								if len(spec.Select) == 0 {
									t.Error("a sink's spec names no column")
								}
								got = append(got, rows...)
								return nil
							}
						}
						rep, err := w.st.Run(context.Background(), c)
						if err != nil {
							t.Fatalf("%+v %s: %v", lq, w, err)
						}
						if got = append(got, rep.Result.Out...); !bytes.Equal(got, want) {
							t.Fatalf("%+v %s, sink %v:\n%q\nwant\n%q", lq, w, sink, got, want)
						}
					}
				}
			}
		}
	}
}

// Rows out past Query.MaxHeld fail the run, every way, before they fill
// memory.
func TestSelectMaxHeld(t *testing.T) {
	dir := t.TempDir()
	if err := data.Generate(dir, data.Options{Rows: 3000, Files: 2, Seed: 4}, false, nil); err != nil {
		t.Fatal(err)
	}
	paths, _ := input.ExpandPaths([]string{dir})
	q := scan.Query{Select: []string{"*"}, MaxHeld: 64 << 10}
	for i, w := range everyWay(false) {
		if i%3 != 0 {
			continue // (a third of the ways, for make test's time)
		}
		_, err := w.st.Run(context.Background(), Config{Paths: paths, Query: q, Mode: w.mode, Workers: w.workers, Split: w.split, Timeout: time.Minute})
		if err == nil || !strings.Contains(err.Error(), ErrMaxHeld.Error()) {
			t.Fatalf("%s: %v, want %v", w, err, ErrMaxHeld)
		}
	}
	q.MaxHeld = 1 << 30
	if _, err := (Goroutines{}).Run(context.Background(), Config{Paths: paths, Query: q, Workers: 2, Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	// Rows handed to a sink as they are written are not held: the same
	// bound holds them, in seq and the goroutines (units of 16 KiB); an
	// error from the sink (a reader gone: EPIPE) is the run's.
	q.MaxHeld = 64 << 10
	wrote := 0
	sink := func(_ *scan.Spec, rows []byte) error { wrote += len(rows); return nil }
	for _, st := range []Strategy{Sequential{}, Goroutines{}} {
		c := Config{Paths: paths, Query: q, Workers: 2, Split: SplitDynamic, Chunk: 16 << 10, Timeout: time.Minute, Rows: sink}
		if _, err := st.Run(context.Background(), c); err != nil || wrote < 256<<10 {
			t.Fatalf("%s with a sink: %v, %d bytes written", st.Name(), err, wrote)
		}
		wrote = 0
		c.Rows = func(*scan.Spec, []byte) error { return syscall.EPIPE }
		if _, err := st.Run(context.Background(), c); !errors.Is(err, syscall.EPIPE) {
			t.Fatalf("%s, a sink that fails: %v", st.Name(), err)
		}
	}
	// and a median's values, a distinct set
	for _, h := range []scan.Holistic{{Func: "median", Col: "Units Sold"}, {Func: "count_distinct", Col: "Order ID"}} {
		q := scan.Query{By: []string{"Region"}, Holistic: []scan.Holistic{h}, MaxHeld: 32 << 10}
		for _, st := range []Strategy{Sequential{}, Goroutines{}, Processes{}} {
			_, err := st.Run(context.Background(), Config{Paths: paths, Query: q, Workers: 2, Timeout: time.Minute})
			if err == nil || !strings.Contains(err.Error(), ErrMaxHeld.Error()) {
				t.Fatalf("%s %s: %v, want %v", st.Name(), h.Func, err, ErrMaxHeld)
			}
		}
	}
}

// A limit stops the scan: the goroutines read the units they need and
// not the rest of a large file.
func TestSelectLimitStops(t *testing.T) {
	dir := t.TempDir()
	if err := data.Generate(dir, data.Options{Rows: 200000, Files: 1, Seed: 2}, false, nil); err != nil {
		t.Fatal(err)
	}
	paths, _ := input.ExpandPaths([]string{dir})
	q := scan.Query{Select: []string{"Order ID"}, Limit: 10}
	for _, st := range []Strategy{Sequential{}, Goroutines{}} {
		for _, split := range []Split{SplitDynamic, SplitRows} {
			rep, err := st.Run(context.Background(), Config{Paths: paths, Query: q, Workers: 2, Split: split, Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Result.Rows >= 100000 || bytes.Count(rep.Result.Out, []byte("\n")) != 10 {
				t.Errorf("%s %s: read %d rows of 200,000 for 10, wrote %q", st.Name(), split, rep.Result.Rows, rep.Result.Out)
			}
		}
	}
}
