package spawn

import (
	"context"
	"fmt"
	"runtime"

	"parlab/scan"
)

// unitOutcome is what scanning one unit gave.
type unitOutcome struct {
	res    scan.Result
	err    error
	done   bool
	folded bool // res is empty: the unit, a whole file, added to its worker's own result
}

// merge checks the units' outcomes in unit order, which is file order, so
// the first error reported is the one a sequential scan would report, and
// merges them and owned, the results the workers kept of their own for
// whole files (scan.MergeAll: the groups with a goroutine per core).
//
// A row split moved its cuts to line starts without looking for quotes: a
// cut inside a quoted field that holds a newline is not a row start. The
// row that holds it starts before the cut, in a unit whose own start was
// a row start (by induction from the file's first unit), which scans it
// whole and counts it (scan.Result.QuotedLines); so a cut file where no
// unit counted one, or failed, was cut at row starts only, and any other
// is scanned again whole, here, and only that answer counts. Files whose
// quoted fields hold no line end (nearly all: R's and Excel's exports
// quote every text field) cost nothing extra (before 2026-12-07 any quote
// rescanned the file). It returns the files it rescanned.
func (s *Set) merge(ctx context.Context, p *Plan, out []unitOutcome, owned []*scan.Result) (scan.Result, []int, error) {
	if p.Split == SplitKeys { // whole files only: nothing to rescan
		r, err := s.mergeKeys(p, out, owned, runtime.GOMAXPROCS(0))
		if err == nil {
			err = s.placeRejects(ctx, &r)
		}
		return r, nil, err
	}
	var parts []*scan.Result // in unit order; merged at the end, the groups in parallel
	var rescanned []int
	perFile := make([][]int, len(s.Tables))
	for i, u := range p.Units {
		if !out[i].done {
			return scan.Result{}, nil, fmt.Errorf("unit %d (%s bytes %d..%d) was never scanned", i, s.Names[u.File], u.Start, u.End)
		}
		perFile[u.File] = append(perFile[u.File], i)
	}
	for f, units := range perFile {
		whole := s.WholeFile(f)
		cut := len(units) > 1 || (len(units) == 1 && p.Units[units[0]] != whole)
		suspect := false
		for _, i := range units {
			suspect = suspect || out[i].err != nil || out[i].res.QuotedLines > 0
		}
		if cut && suspect { // (no unit of a cut file was folded)
			var r scan.Result
			if err := s.scanUnit(ctx, whole, &r); err != nil {
				return scan.Result{}, rescanned, err
			}
			rescanned = append(rescanned, f)
			parts = append(parts, &r)
			continue
		}
		for _, i := range units {
			if out[i].err != nil {
				return scan.Result{}, rescanned, out[i].err
			}
			if !out[i].folded {
				parts = append(parts, &out[i].res)
			}
		}
	}
	parts = append(parts, owned...)
	r := scan.MergeAll(parts, runtime.GOMAXPROCS(0))
	return r, rescanned, s.placeRejects(ctx, &r)
}
