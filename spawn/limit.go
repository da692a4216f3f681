package spawn

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"parlab/scan"
)

// ErrMaxHeld: what a query holds until its run ends would be more than
// Query.MaxHeld bytes: its rows out (written at the end, in file order),
// its distinct values and its medians' values.
var ErrMaxHeld = errors.New("what the query holds is more than --max-memory")

// heldBytes is what r holds that Query.MaxHeld bounds.
func heldBytes(r *scan.Result) int64 { return int64(len(r.Out)) + r.Held }

// hold counts what r holds beyond n (heldBytes before a step) against q's
// MaxHeld, held the bytes that every scan of the run in this process holds.
func hold(q *scan.Query, held *atomic.Int64, r *scan.Result, n int64) error {
	if q.MaxHeld <= 0 || heldBytes(r) == n {
		return nil
	}
	if held.Add(heldBytes(r)-n) > q.MaxHeld {
		return fmt.Errorf("%w: rows out, distinct values and the values of a median are held in memory until the scan ends; --limit N writes the first N rows, fewer columns or groups hold less, or give a larger --max-memory", ErrMaxHeld)
	}
	return nil
}

// firstRows follows, for a query that selects at most Limit rows, the
// units that a run's workers have scanned, from the plan's first on: once
// those in an unbroken run from the first hold Limit rows, no later unit
// can add a row to the answer, and the workers take no more (Set.merge
// then leaves the units not taken out, see donePrefix). A unit counts only
// where its rows are sure to be the file's: it did not fail, and the unit
// before it in its file did not run past its end (Result.Over), else the
// merge may read it again and find fewer. Safe for concurrent use.
type firstRows struct {
	mu    sync.Mutex
	limit int64
	units []Unit
	done  []bool
	rows  []int64 // per done unit, its rows (at most limit)
	over  []bool  // per done unit, whether it ran past its end
	fail  []bool  // per done unit, whether it failed
	next  int     // the first unit not yet counted
	total int64
	full  atomic.Bool
}

// newFirstRows returns the tracker of s's query over p's units, or nil
// where the query does not select rows with a limit.
func newFirstRows(s *Set, p *Plan) *firstRows {
	limit := s.Query.RowLimit()
	if limit == 0 {
		return nil
	}
	n := len(p.Units)
	return &firstRows{limit: limit, units: p.Units, done: make([]bool, n), rows: make([]int64, n), over: make([]bool, n), fail: make([]bool, n)}
}

// enough reports whether the units counted hold limit rows (false for a
// nil tracker).
func (f *firstRows) enough() bool { return f != nil && f.full.Load() }

// add counts unit i, scanned: o its outcome.
func (f *firstRows) add(i int, o *unitOutcome) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.done[i], f.rows[i], f.over[i], f.fail[i] = true, min(o.res.Matched, f.limit), o.res.Over > 0, o.err != nil
	for f.next < len(f.units) && f.done[f.next] && !f.full.Load() {
		j := f.next
		if f.fail[j] || j > 0 && f.over[j-1] && f.units[j-1].File == f.units[j].File {
			return // (its rows may be read again: count no further)
		}
		if f.total += f.rows[j]; f.total >= f.limit {
			f.full.Store(true)
		}
		f.next++
	}
}

// donePrefix is how many of p's units, from the first, the merge takes:
// all of them, but where a query selecting at most Limit rows stopped its
// workers early (firstRows), the units before the first one not scanned,
// which must hold Limit rows between them.
func (s *Set) donePrefix(p *Plan, out []unitOutcome) (int, error) {
	for i := range p.Units {
		if out[i].done {
			continue
		}
		var rows int64
		for _, o := range out[:i] {
			rows += o.res.Matched
		}
		if n := s.Query.RowLimit(); n == 0 || rows < n {
			u := p.Units[i]
			return 0, fmt.Errorf("unit %d (%s bytes %d..%d) was never scanned", i, s.Names[u.File], u.Start, u.End)
		}
		return i, nil
	}
	return len(p.Units), nil
}
