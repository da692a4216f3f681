package spawn

import (
	"context"
	"slices"

	"parlab/scan"
)

// placeRejects puts r's rejects (a run that skips bad rows: scan.Reject)
// in file order and gives each its line in its file: a reject counts
// lines from where its scan started (a unit's start, a piece of a copying
// mode), and that place's line is counted here, once for every file that
// has rejects, in one pass over it.
func (s *Set) placeRejects(ctx context.Context, r *scan.Result) error {
	if len(r.Rejects) == 0 {
		return nil
	}
	order := make(map[string]int, len(s.Names))
	for i, n := range s.Names {
		if _, ok := order[n]; !ok {
			order[n] = i
		}
	}
	scan.SortRejects(r.Rejects, order)
	for a := 0; a < len(r.Rejects); {
		name := r.Rejects[a].File
		b := a
		for b < len(r.Rejects) && r.Rejects[b].File == name {
			b++
		}
		i, ok := order[name]
		if !ok {
			a = b
			continue
		}
		rs := r.Rejects[a:b]
		froms := make([]int64, len(rs))
		for k, x := range rs {
			froms[k] = x.From
		}
		slices.Sort(froms)
		froms = slices.Compact(froms)
		lines := make(map[int64]int64, len(froms))
		line, at := int64(1), 0
		for _, f := range froms {
			n, err := s.countLines(ctx, i, at, int(f))
			if err != nil {
				return err
			}
			line, at = line+n, int(f)
			lines[f] = line
		}
		shift := int64(-1)
		if s.added(i) {
			shift = -2 // (the input's line: its header is parlab's)
		}
		for k := range rs {
			rs[k].Line += lines[rs[k].From] + shift
		}
		a = b
	}
	return nil
}
