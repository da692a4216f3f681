package spawn

import (
	"context"

	"parlab/scan"
)

// Floor is not a way to answer the query: its workers only count newlines
// (bytes.Count, vectorised) over the same mapped files, cut the same way,
// with the same page population. No scan can do less work per byte, so its
// time is this machine's floor for a pass over the data with N workers, the
// yardstick every strategy's time is measured against. Result.Rows holds
// the newlines counted; nothing else is filled in.
type Floor struct{}

func (Floor) Name() string { return NameFloor }

func (Floor) Caps() Caps { return Caps{Counts: true} }

func (Floor) Help() string { return "only count newlines: the machine's limit, no answer" }

func (Floor) Run(ctx context.Context, c Config) (*Report, error) {
	return runGoroutines(ctx, c, Floor{}, func(ctx context.Context, set *Set, u Unit, r *scan.Result) error {
		return set.guard(u, func() error {
			a, b, err := set.rows(u)
			if err == nil {
				var n int64
				n, err = set.countLines(ctx, u.File, a, b)
				r.Rows += n
			}
			return err
		})
	})
}
