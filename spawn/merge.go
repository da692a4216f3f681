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
// whole and says how far it ran past its own rows (scan.Result.Over). So
// the units of a file are taken in order, each sure of its start while the
// one before ended where its rows did; a unit after one that ran over is
// read again from where that one's last row ended (scanRows), and only
// that answer counts. A unit sure of its start that failed is read again
// too (a copying mode's unit stops at a quoted field open at its buffer's
// end, see stream), which gives the file's own error. A file whose cuts
// all fell at row starts costs nothing extra, whatever its quotes. It
// returns the files it read a unit of again.
func (s *Set) merge(ctx context.Context, p *Plan, out []unitOutcome, owned []*scan.Result) (scan.Result, []int, error) {
	if p.Split == SplitKeys { // whole files only: nothing to rescan
		r, err := s.mergeKeys(ctx, p, out, owned, runtime.GOMAXPROCS(0))
		if err == nil {
			err = s.placeRejects(ctx, &r)
		}
		return r, nil, err
	}
	var parts []*scan.Result // in unit order; merged at the end, the groups in parallel
	var rescanned []int
	perFile := make([][]int, len(s.Tables))
	n, err := s.donePrefix(p, out)
	if err != nil {
		return scan.Result{}, nil, err
	}
	for i, u := range p.Units[:n] {
		perFile[u.File] = append(perFile[u.File], i)
	}
	for f, units := range perFile {
		whole := s.WholeFile(f)
		cut := len(units) > 1 || (len(units) == 1 && p.Units[units[0]] != whole)
		if cut { // (no unit of a cut file was folded)
			got, again, err := s.mergeCut(ctx, p, units, out)
			if again {
				rescanned = append(rescanned, f)
			}
			if err != nil {
				return scan.Result{}, rescanned, err
			}
			parts = append(parts, got...)
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

// mergeCut takes the units of one cut file (in order, each starting where
// the one before ends) as merge says: their results, each unit after one
// whose last row ran over read again from that row's end. again says
// whether it read one again; the error is the file's first.
func (s *Set) mergeCut(ctx context.Context, p *Plan, units []int, out []unitOutcome) (parts []*scan.Result, again bool, err error) {
	over := 0 // how far the last unit's last row ran past its rows: 0 where the next unit starts at a row
	for k, i := range units {
		u := p.Units[i]
		if k > 0 && p.Units[units[k-1]].End != u.Start {
			return nil, again, fmt.Errorf("%w: the units of %s do not meet (bytes %d and %d)", ErrBug, s.Names[u.File], p.Units[units[k-1]].End, u.Start)
		}
		r, next, read, err := s.takeCut(ctx, u, &out[i], over)
		again = again || read
		if err != nil {
			return nil, again, err
		}
		if r != nil {
			parts = append(parts, r)
		}
		over = next
	}
	return parts, again, nil
}

// takeCut is unit u of a cut file (o its outcome) as the merge takes it, where the unit
// before it in the file ran over past its end by over bytes (0 for the
// file's first): its own result, or, after one that ran over or where it
// failed, a result of the unit read again from where its first row starts
// (read); nil where that row holds every line of the unit. next is how far
// the result's last row ran past the unit's end.
func (s *Set) takeCut(ctx context.Context, u Unit, o *unitOutcome, over int) (r *scan.Result, next int, read bool, err error) {
	if over == 0 && o.err == nil {
		return &o.res, int(o.res.Over), false, nil
	}
	a, b, err := s.rows(u)
	if err != nil {
		return nil, 0, false, err
	}
	if a += over; a >= b { // that row holds every line of this unit
		return nil, a - b, false, nil
	}
	r = &scan.Result{Part: u.Part}
	stop := a
	if err := s.guard(u, func() (err error) {
		stop, err = s.scanRows(ctx, u.File, a, b, r, true)
		return err
	}); err != nil {
		return nil, 0, true, err
	}
	return r, max(stop-b, 0), true, nil
}
