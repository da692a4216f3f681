package spawn

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Goroutines runs N goroutines over one mapping of the data set. Each writes
// only its own result slots: no locks and no atomics in the scan; the
// dynamic split takes units from one atomic cursor, once per chunk.
type Goroutines struct{}

func (Goroutines) Name() string { return "goroutines" }

// paddedOutcome keeps each unit's result on cache lines of its own, so
// workers writing neighbouring slots do not share lines (false sharing).
type paddedOutcome struct {
	unitOutcome
	_ [64]byte
}

type paddedStat struct {
	WorkerStat
	_ [64]byte
}

func (Goroutines) Run(ctx context.Context, c Config) (*Report, error) {
	t0 := time.Now()
	set, err := OpenLazy(c.Paths, c.Query, c.Mode, c.Opt)
	if err != nil {
		return nil, err
	}
	defer set.Close()
	plan, err := NewPlan(set, c.Split, c.Workers, c.Chunk)
	if err != nil {
		return nil, err
	}
	rep := set.report("goroutines", c.Split.String(), c.Workers)
	rep.Setup = time.Since(t0)
	out := make([]paddedOutcome, len(plan.Units))
	stats := make([]paddedStat, c.Workers)
	var cursor atomic.Int64
	var wg sync.WaitGroup
	for w := range c.Workers {
		wg.Go(func() {
			st := &stats[w].WorkerStat
			st.Start = time.Since(t0)
			next := func() int { // the next unit index, or -1
				if plan.Assign == nil {
					if i := int(cursor.Add(1) - 1); i < len(plan.Units) {
						return i
					}
					return -1
				}
				if st.Units < len(plan.Assign[w]) {
					return plan.Assign[w][st.Units]
				}
				return -1
			}
			for i := next(); i >= 0 && ctx.Err() == nil; i = next() {
				u := plan.Units[i]
				o := &out[i].unitOutcome
				o.err = set.scanUnit(u, &o.res)
				o.done = true
				st.Units++
				st.Bytes += int64(u.End - u.Start)
				st.Rows += o.res.Rows
			}
			st.End = time.Since(t0)
		})
	}
	wg.Wait()
	joined := time.Since(t0)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	outcomes := make([]unitOutcome, len(out))
	for i := range out {
		outcomes[i] = out[i].unitOutcome
	}
	rep.PerWorker = make([]WorkerStat, c.Workers)
	for w := range stats {
		rep.PerWorker[w] = stats[w].WorkerStat
	}
	rep.phases(t0, joined)
	res, rescanned, err := set.merge(plan, outcomes)
	if err != nil {
		return nil, err
	}
	rep.Result, rep.Rescanned = res, rescanned
	rep.Merge = time.Since(t0) - joined
	rep.Total = time.Since(t0)
	return rep, nil
}

// phases derives the spawn, scan and join phases from the workers' clocks:
// spawn lasts until the last worker started, scan from the first start to
// the last end, join from the last end until the parent knew (joined).
func (r *Report) phases(t0 time.Time, joined time.Duration) {
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
