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

func (Goroutines) Caps() Caps { return Caps{Streams: StreamRowSplits} }

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

func (g Goroutines) Run(ctx context.Context, c Config) (*Report, error) {
	if c.streamed() {
		if !Streams(g, c.Split) {
			return nil, errNoStream
		}
		return runStream(ctx, c, g, c.Workers)
	}
	return runGoroutines(ctx, c, g, scanBody)
}

// scanBody is a worker's body that scans: Set.scanUnit.
func scanBody(ctx context.Context, set *Set, u Unit, r *scan.Result) error {
	return set.scanUnit(ctx, u, r)
}

// runGoroutines runs c.Workers goroutines over the plan's units, each unit
// through body, which adds what it finds to r; then merges.
//
// A unit that is a whole file adds to its worker's own result, not to one
// of its own: no merge can need it apart (Set.merge sets apart only the
// units of a cut file), and a group-by of many keys (Order ID) then builds
// one set of groups a worker, its keys met again in later files found, not
// a set a unit, each merged again at the end.
func runGoroutines(ctx context.Context, c Config, st Strategy, body func(context.Context, *Set, Unit, *scan.Result) error) (rep *Report, err error) {
	if c.streamed() {
		return nil, errNoStream
	}
	ctx, cancel := WithTimeout(ctx, c.Timeout)
	defer cancel()
	defer func() { rep, err = stopped(ctx, rep, err) }()
	r, err := start(c, st)
	if err != nil {
		return nil, err
	}
	defer r.set.Close()
	if c.sinks() && st == (Goroutines{}) {
		return r.runRows(ctx, c.Workers, c.Rows)
	}
	return r.runAll(ctx, c.Workers, body)
}

// runAll runs every worker of r's plan, a goroutine each, over the plan's
// units through body, and merges (see runGoroutines).
func (r *run) runAll(ctx context.Context, workers int, body func(context.Context, *Set, Unit, *scan.Result) error) (*Report, error) {
	ws := make([]int, workers)
	for w := range ws {
		ws[w] = w
	}
	var cursor atomic.Int64
	wk := r.work(ctx, ws, func() int64 { return cursor.Add(1) - 1 }, body)
	joined := time.Since(r.t0)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	outcomes := make([]unitOutcome, len(wk.out))
	for i := range wk.out {
		outcomes[i] = wk.out[i].unitOutcome
	}
	for w := range wk.stats {
		r.rep.PerWorker[w] = wk.stats[w].WorkerStat
	}
	owned := make([]*scan.Result, len(wk.own))
	for w := range wk.own {
		owned[w] = &wk.own[w].Result
	}
	return r.finish(ctx, joined, outcomes, owned...)
}

// worked is what the workers of one process did: an outcome a unit of the
// plan (those no worker of this process took stay not done), and each
// worker's figures and own result, in the order of the workers run.
type worked struct {
	out   []paddedOutcome
	stats []paddedStat
	own   []paddedResult // each worker's whole files
}

// work runs a goroutine for each of the plan's workers ws over its units,
// each unit through body, and returns when all have ended. take is the
// dynamic split's cursor: it returns the next unit's index and advances,
// atomically; past the last unit a worker may take, it returns
// len(r.plan.Units) or more.
func (r *run) work(ctx context.Context, ws []int, take func() int64, body func(context.Context, *Set, Unit, *scan.Result) error) worked {
	wk := worked{
		out:   r.out,
		stats: make([]paddedStat, len(ws)),
		own:   make([]paddedResult, len(ws)),
	}
	if wk.out == nil {
		wk.out = make([]paddedOutcome, len(r.plan.Units))
	}
	first := newFirstRows(r.set, r.plan)
	steal := newSteals(r.plan, ws)
	var wg sync.WaitGroup
	for k, w := range ws {
		wg.Go(func() {
			st := &wk.stats[k].WorkerStat
			st.Start = time.Since(r.t0)
			next := func() int {
				if steal != nil {
					return steal.next(k)
				}
				return r.plan.next(w, st.Units, take)
			}
			for i := next(); i >= 0 && ctx.Err() == nil && !first.enough(); i = next() {
				u := r.plan.Units[i]
				o := &wk.out[i].unitOutcome
				dst := &o.res
				if r.set.fold(u) {
					dst, o.folded = &wk.own[k].Result, true
				}
				rows := dst.Rows
				o.err = body(ctx, r.set, u, dst)
				if !o.folded {
					o.res.ReleaseKeys() // (its own result: no scan takes it again)
				}
				o.done = true
				first.add(i, o)
				if r.notify != nil {
					close(r.notify[i])
				}
				st.Units++
				st.Bytes += int64(u.End - u.Start)
				st.Rows += dst.Rows - rows
			}
			st.End = time.Since(r.t0)
		})
	}
	wg.Wait()
	return wk
}

// run is one parallel run in progress: its start, data, plan and report.
type run struct {
	t0   time.Time
	set  *Set
	plan *Plan
	rep  *Report
	// out, if not nil, are the units' outcomes for work to fill (else
	// it makes them), and notify[i] is closed once unit i is done
	// (runRows: its writer reads each unit as it ends)
	out    []paddedOutcome
	notify []chan struct{}
	// part: a run of an MPI rank's share of the files, whose rows out
	// rank 0 finishes (sorts, writes in their format) with the others'
	part bool
}

// start maps the data set lazily (with --populate, each worker populates
// its own units), plans the work and starts the report; the setup phase
// ends here. The caller closes r.set.
func start(c Config, st Strategy) (*run, error) { return startAt(c, st, time.Now()) }

// startAt is start with the run's clock started at t0.
func startAt(c Config, st Strategy, t0 time.Time) (*run, error) {
	r := &run{t0: t0}
	set, err := openConfig(&c, c.Mode, c.Opt, true)
	if err != nil {
		return nil, err
	}
	r.set = set
	if r.plan, err = NewPlan(set, c.Split, c.Workers, c.Chunk); err != nil {
		set.Close()
		return nil, err
	}
	r.rep = set.report(st, r.plan.Split, c.Workers)
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
	if !r.part || !r.set.Query.RowsSorted() {
		if err := scan.FinishRows(&res, &r.set.Query, &r.rep.Spec); err != nil {
			return nil, err
		}
	}
	if r.set.Rest != nil { // a later file's error: none came before it
		return nil, r.set.Rest
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

// steals hands a rows split's units to a process's workers (Plan.Steal):
// each takes its own from the front, in order, and a worker whose own are
// done takes the last not yet taken of the worker with the most left, if
// those left are of minSteal bytes or more (fewer would end about when
// their owner's scan of them would: taking them changes nothing but which
// worker's figures hold them, which then depended on the race). A
// worker that ends early (its core slower, or shared with another's) so
// takes work off the last one, as the dynamic split would, while the units
// stay the rows split's: whole files, each folded into the result of the
// worker that scans it, and a cut file's pieces, each with its own, merged
// in unit order whoever scanned them. Safe for concurrent use.
type steals struct {
	plan  *Plan
	units [][]int         // per worker of ws, its units (Plan.Assign)
	left  []atomic.Uint64 // per worker: its next unit to take (high half) and one past its last (low)
}

// minSteal is the smallest unit a worker takes from another: the dynamic
// split's chunk, which costs nothing to take next to its scan.
const minSteal = DefaultChunk

// newSteals returns the steals of p's units among workers ws, or nil where
// each must take its own: a plan without Steal (the keys split's units are
// each its worker's key part), or one worker.
func newSteals(p *Plan, ws []int) *steals {
	if !p.Steal || p.Split != SplitRows || len(ws) < 2 || p.Assign == nil {
		return nil
	}
	s := &steals{plan: p, units: make([][]int, len(ws)), left: make([]atomic.Uint64, len(ws))}
	for k, w := range ws {
		s.units[k] = p.Assign[w]
		s.left[k].Store(uint64(len(p.Assign[w])))
	}
	return s
}

// next is the index of worker k's next unit (of ws), or -1 when none is
// left to any.
func (s *steals) next(k int) int {
	for {
		v := s.left[k].Load()
		lo, hi := v>>32, v&0xFFFFFFFF
		if lo >= hi {
			break
		}
		if s.left[k].CompareAndSwap(v, (lo+1)<<32|hi) {
			return s.units[k][lo]
		}
	}
	for {
		victim, most := -1, uint64(0)
		for j := range s.left {
			v := s.left[j].Load()
			if lo, hi := v>>32, v&0xFFFFFFFF; hi > lo && hi-lo > most && s.bytes(j, int(lo), int(hi)) >= minSteal {
				victim, most = j, hi-lo
			}
		}
		if victim < 0 {
			return -1
		}
		v := s.left[victim].Load()
		lo, hi := v>>32, v&0xFFFFFFFF
		if lo < hi && s.left[victim].CompareAndSwap(v, lo<<32|(hi-1)) {
			return s.units[victim][hi-1]
		}
	}
}

// bytes is the bytes of worker k's units [lo, hi).
func (s *steals) bytes(k, lo, hi int) int {
	n := 0
	for _, i := range s.units[k][lo:hi] {
		n += s.plan.Units[i].End - s.plan.Units[i].Start
	}
	return n
}
