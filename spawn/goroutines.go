package spawn

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"parlab/scan"
)

// Goroutines runs N goroutines over one mapping of the data set. Each writes
// only its own result slots: no locks and no atomics in the scan; the
// dynamic split takes units from one atomic cursor, once per chunk.
type Goroutines struct{}

func (Goroutines) Name() string { return NameGoroutines }

func (Goroutines) Help() string { return "a goroutine a worker" }

// paddedOutcome keeps each unit's result on cache lines of its own, so
// workers writing neighbouring slots do not share lines (false sharing).
type paddedOutcome struct {
	unitOutcome
	_ [64]byte
}

type paddedResult struct {
	scan.Result
	_ [64]byte
}

type paddedStat struct {
	WorkerStat
	_ [64]byte
}

func (Goroutines) Run(ctx context.Context, c Config) (*Report, error) {
	return runGoroutines(ctx, c, NameGoroutines, func(ctx context.Context, set *Set, u Unit, r *scan.Result) error {
		return set.scanUnit(ctx, u, r)
	})
}

// runGoroutines runs c.Workers goroutines over the plan's units, each unit
// through body, which adds what it finds to r; then merges.
//
// A unit that is a whole file adds to its worker's own result, not to one
// of its own: no merge can need it apart (Set.merge sets apart only the
// units of a cut file), and a group-by of many keys (Order ID) then builds
// one set of groups a worker, its keys met again in later files found, not
// a set a unit, each merged again at the end.
func runGoroutines(ctx context.Context, c Config, name string, body func(context.Context, *Set, Unit, *scan.Result) error) (rep *Report, err error) {
	ctx, cancel := withTimeout(ctx, c.Timeout)
	defer cancel()
	defer func() { rep, err = stopped(ctx, rep, err) }()
	r, err := start(c, name)
	if err != nil {
		return nil, err
	}
	defer r.set.Close()
	out := make([]paddedOutcome, len(r.plan.Units))
	stats := make([]paddedStat, c.Workers)
	own := make([]paddedResult, c.Workers) // each worker's whole files
	var cursor atomic.Int64
	take := func() int64 { return cursor.Add(1) - 1 }
	var wg sync.WaitGroup
	for w := range c.Workers {
		wg.Go(func() {
			st := &stats[w].WorkerStat
			st.Start = time.Since(r.t0)
			for i := r.plan.next(w, 0, take); i >= 0 && ctx.Err() == nil; i = r.plan.next(w, st.Units, take) {
				u := r.plan.Units[i]
				o := &out[i].unitOutcome
				dst := &o.res
				if r.set.whole(u) {
					dst, o.folded = &own[w].Result, true
				}
				rows := dst.Rows
				o.err = body(ctx, r.set, u, dst)
				o.done = true
				st.Units++
				st.Bytes += int64(u.End - u.Start)
				st.Rows += dst.Rows - rows
			}
			st.End = time.Since(r.t0)
		})
	}
	wg.Wait()
	joined := time.Since(r.t0)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	outcomes := make([]unitOutcome, len(out))
	for i := range out {
		outcomes[i] = out[i].unitOutcome
	}
	for w := range stats {
		r.rep.PerWorker[w] = stats[w].WorkerStat
	}
	owned := make([]*scan.Result, len(own))
	for w := range own {
		owned[w] = &own[w].Result
	}
	return r.finish(ctx, joined, outcomes, owned...)
}

// run is one parallel run in progress: its start, data, plan and report.
type run struct {
	t0   time.Time
	set  *Set
	plan *Plan
	rep  *Report
}

// start maps the data set lazily (with --populate, each worker populates
// its own units), plans the work and starts the report; the setup phase
// ends here. The caller closes r.set.
func start(c Config, name string) (*run, error) {
	r := &run{t0: time.Now()}
	set, err := OpenLazy(c.Paths, c.Query, c.Mode, c.Opt, c.Names...)
	if err != nil {
		return nil, err
	}
	r.set = set
	if r.plan, err = NewPlan(set, c.Split, c.Workers, c.Chunk); err != nil {
		set.Close()
		return nil, err
	}
	r.rep = set.report(name, r.plan.Split.String(), c.Workers)
	r.rep.PerWorker = make([]WorkerStat, c.Workers)
	r.rep.Setup = time.Since(r.t0)
	return r, nil
}

// finish derives the phases from the workers' clocks, merges the units'
// outcomes and the workers' own results (see Set.merge) and closes the
// report.
func (r *run) finish(ctx context.Context, joined time.Duration, outcomes []unitOutcome, owned ...*scan.Result) (*Report, error) {
	r.rep.phases(joined)
	res, rescanned, err := r.set.merge(ctx, r.plan, outcomes, owned)
	if err != nil {
		return nil, err
	}
	r.rep.Result, r.rep.Rescanned = res, rescanned
	r.rep.Merge = time.Since(r.t0) - joined
	r.rep.Total = time.Since(r.t0)
	return r.rep, nil
}

// phases derives the spawn, scan and join phases from the workers' clocks:
// spawn lasts until the last worker started, scan from the first start to
// the last end, join from the last end until the parent knew (joined).
func (r *Report) phases(joined time.Duration) {
	if len(r.PerWorker) == 0 {
		return
	}
	first, lastStart, lastEnd := r.PerWorker[0].Start, time.Duration(0), time.Duration(0)
	for _, w := range r.PerWorker {
		first = min(first, w.Start)
		lastStart = max(lastStart, w.Start)
		lastEnd = max(lastEnd, w.End)
	}
	r.Spawn = lastStart - r.Setup
	r.Scan = lastEnd - first
	r.Join = joined - lastEnd
}
