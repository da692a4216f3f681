package spawn

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"parlab/scan"
)

// RowSink takes the rows of a query that selects rows (scan.Query.Select)
// while a run scans, in file order, in the query's format: spec names
// their columns, and rows is valid only during the call. The run calls it
// from one goroutine at a time. An error (EPIPE: the reader went away)
// stops the run and is its error; rows written before it stay written.
//
// So the rows are held a unit at a time, not all until the run ends: seq
// hands them over after each step of its scan, a stream after each block,
// and the goroutines' writer (writeRows) each unit once every unit before
// it has been written, taking the units as the merge takes them (takeCut:
// a unit after one whose last row ran over is read again). A limit stops
// the workers once its rows are written.
type RowSink func(spec *scan.Spec, rows []byte) error

// aheadUnits is how many units a worker may scan past the last one
// written (runRows).
const aheadUnits = 4

// sinks reports whether c's rows go to c.Rows as they are written.
func (c *Config) sinks() bool {
	return c.Rows != nil && c.Query.Select != nil && !c.Query.RowsSorted() // (sorted: all rows first)
}

// flushTo is the flush of a seq run's Set or of a stream whose rows go to
// sink: r's rows written and dropped (never counted against MaxHeld: see
// scanRows), spec the columns' names once a header is bound.
func flushTo(sink RowSink, spec func() *scan.Spec) func(r *scan.Result) error {
	return func(r *scan.Result) error {
		if len(r.Out) == 0 {
			return nil
		}
		err := sink(spec(), r.Out)
		r.Out = r.Out[:0]
		return err
	}
}

// runRows is runAll for a query whose rows go to sink: the workers scan
// as runAll's do while writeRows writes each unit's rows in order, and the
// workers stop once the rows are written (a limit) or writing failed.
//
// Under the dynamic split a worker takes unit i only once unit
// i-aheadUnits·workers is written, so what waits to be written is a few
// chunks a worker, whatever the size of the input (MaxHeld is not needed
// then); a static split's units (rows, file) are as large as its parts.
func (r *run) runRows(ctx context.Context, workers int, sink RowSink) (*Report, error) {
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	n := len(r.plan.Units)
	r.notify = make([]chan struct{}, n)
	written := make([]chan struct{}, n)
	for i := range r.notify {
		r.notify[i], written[i] = make(chan struct{}), make(chan struct{})
	}
	r.out = make([]paddedOutcome, n)
	ws := make([]int, workers)
	for w := range ws {
		ws[w] = w
	}
	ahead := int64(aheadUnits * workers)
	r.set.sinking = r.plan.Assign == nil
	var cursor atomic.Int64
	take := func() int64 {
		i := cursor.Add(1) - 1
		if j := i - ahead; j >= 0 && j < int64(n) {
			select {
			case <-written[j]:
			case <-wctx.Done():
				return int64(n) // (no more units)
			}
		}
		return i
	}
	ended := make(chan struct{})
	var wk worked
	go func() {
		defer close(ended)
		wk = r.work(wctx, ws, take, scanBody)
	}()
	res, rescanned, err := r.set.writeRows(ctx, r.plan, r.out, r.notify, written, ended, &r.rep.Spec, sink)
	stop() // (the rows are written, or writing failed: no more units)
	<-ended
	joined := time.Since(r.t0)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for w := range wk.stats {
		r.rep.PerWorker[w] = wk.stats[w].WorkerStat
	}
	r.rep.phases(joined)
	if r.set.Rest != nil {
		return nil, r.set.Rest // a later file's error: none came before it (as every strategy reports it)
	}
	r.rep.Result, r.rep.Rescanned = res, rescanned
	r.rep.Merge = time.Since(r.t0) - joined
	r.rep.Total = time.Since(r.t0)
	return r.rep, nil
}

// writeRows writes the rows of p's units to sink in unit order, which is
// file order, each once it is done (done[i] closed) and every unit before
// it written (closing written[i] once it is), taking each as Set.merge does (a cut file's units by
// takeCut, a whole file's as it is), and returns the run's result (its
// rows written, not held), the files it read a unit of again, and the
// first error in file order. ended is closed once the workers have
// stopped: a unit not done by then was never taken.
func (s *Set) writeRows(ctx context.Context, p *Plan, out []paddedOutcome, done, written []chan struct{}, ended <-chan struct{}, spec *scan.Spec, sink RowSink) (scan.Result, []int, error) {
	units := make([]int, len(s.Tables)) // each file's units
	for _, u := range p.Units {
		units[u.File]++
	}
	var total scan.Result
	var rescanned []int
	limit := int64(s.Query.Limit)
	left := limit // rows still to write, with a limit
	file, over := -1, 0
	for i, u := range p.Units {
		if i > 0 {
			close(written[i-1]) // (the one before is written, or had no row)
		}
		select {
		case <-done[i]:
		case <-ended:
			select {
			case <-done[i]:
			default:
				if err := ctx.Err(); err != nil {
					return total, rescanned, err
				}
				return total, rescanned, fmt.Errorf("%w: unit %d (%s bytes %d..%d) was never scanned", ErrBug, i, s.Names[u.File], u.Start, u.End)
			}
		}
		o := &out[i].unitOutcome
		if u.File != file {
			file, over = u.File, 0
		}
		part := &o.res
		if units[u.File] > 1 || u != s.WholeFile(u.File) {
			var read bool
			var err error
			part, over, read, err = s.takeCut(ctx, u, o, over)
			if read && !slices.Contains(rescanned, u.File) {
				rescanned = append(rescanned, u.File)
			}
			if err != nil {
				return total, rescanned, err
			}
			if part == nil {
				continue
			}
		} else if o.err != nil {
			return total, rescanned, o.err
		}
		rows := part.Out
		if limit > 0 { // (a part writes at most limit rows: min(Matched, limit))
			n := min(part.Matched, limit, left)
			rows, left = scan.CutRows(rows, s.Query.Out, int(n)), left-n
		}
		if len(rows) > 0 {
			if err := sink(spec, rows); err != nil {
				return total, rescanned, err
			}
		}
		t := *part
		t.Out = nil
		total.Merge(&t)
		s.outHeld.Add(-int64(len(part.Out))) // (written: no longer held)
		part.Out, o.res.Out = nil, nil
		if limit > 0 && left == 0 {
			break
		}
	}
	return total, rescanned, s.placeRejects(ctx, &total)
}
