package spawn

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Floor is not a way to answer the query: its workers only count newlines
// (bytes.Count, vectorised) over the same mapped files, cut the same way,
// with the same page population. No scan can do less work per byte, so its
// time is this machine's floor for a pass over the data with N workers, the
// yardstick every strategy's time is measured against. Result.Rows holds
// the newlines counted; nothing else is filled in.
type Floor struct{}

func (Floor) Name() string { return "floor" }

func (Floor) Run(ctx context.Context, c Config) (*Report, error) {
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
	rep := set.report("floor", c.Split.String(), c.Workers)
	rep.Setup = time.Since(t0)
	stats := make([]paddedStat, c.Workers)
	var cursor atomic.Int64
	var wg sync.WaitGroup
	nl := []byte{'\n'}
	for w := range c.Workers {
		wg.Go(func() {
			st := &stats[w].WorkerStat
			st.Start = time.Since(t0)
			for {
				i := -1
				if plan.Assign == nil {
					if k := int(cursor.Add(1) - 1); k < len(plan.Units) {
						i = k
					}
				} else if st.Units < len(plan.Assign[w]) {
					i = plan.Assign[w][st.Units]
				}
				if i < 0 || ctx.Err() != nil {
					break
				}
				u := plan.Units[i]
				if set.populateUnits {
					set.Files[u.File].Populate(u.Start, u.End-u.Start)
				}
				st.Rows += int64(bytes.Count(set.Files[u.File].Bytes()[u.Start:u.End], nl))
				st.Units++
				st.Bytes += int64(u.End - u.Start)
			}
			st.End = time.Since(t0)
		})
	}
	wg.Wait()
	joined := time.Since(t0)
	rep.PerWorker = make([]WorkerStat, c.Workers)
	for w := range stats {
		rep.PerWorker[w] = stats[w].WorkerStat
		rep.Result.Rows += stats[w].Rows
	}
	rep.phases(t0, joined)
	rep.Total = time.Since(t0)
	return rep, ctx.Err()
}
