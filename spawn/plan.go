package spawn

import (
	"errors"
	"fmt"

	"parlab/scan"
)

// DefaultChunk is the size of a dynamic split's chunks: big enough that
// taking one costs nothing next to scanning it, small enough that workers
// finish within a chunk of each other (1BRC's winner used 2 MB segments).
const DefaultChunk = 2 << 20

// Plan is the work of one run cut into units and given to workers.
type Plan struct {
	Split   Split
	Workers int
	Units   []Unit // in file order, then offset order (the keys split: part by part, each in file order)
	// Assign lists each worker's units (indexes into Units). For the
	// dynamic split it is nil: workers take the next unit from a shared
	// cursor until none is left.
	Assign [][]int
	// Steal: the auto split's rows split, whose workers in one process
	// take each other's units not yet taken once their own are done
	// (steals); a rows split asked for by name keeps each worker to its
	// own, as the study of the splits wants.
	Steal bool
}

// NewPlan cuts set's rows into units for workers with split. A row split's
// cuts are moved to line starts without looking for quotes; Merge checks
// afterwards (see Result.QuotedLines) and rescans any file where that mattered.
// The dynamic split's units end at plain byte offsets, which the worker
// moves to line starts (Set.rows). chunk is the dynamic split's chunk size
// (0: DefaultChunk). The keys split gives every worker every file whole
// and a part of a group-by's keys; the auto split is the keys split for a
// group-by whose sampled rows are mostly distinct keys (Set.manyKeys) and
// more than one worker, the rows split otherwise, whose workers steal
// (Plan.Steal), and the plan's Split is the one it took.
func NewPlan(set *Set, split Split, workers, chunk int) (*Plan, error) {
	if workers < 1 {
		return nil, fmt.Errorf("a plan needs at least 1 worker, got %d", workers)
	}
	if chunk <= 0 {
		chunk = DefaultChunk
	}
	auto := split == SplitAuto
	if auto {
		split = SplitRows
		if set.Query.Select != nil {
			split = SplitDynamic // (rows out: written a chunk at a time, in order, see runRows)
		} else if workers > 1 && set.manyKeys() {
			split = SplitKeys
		}
	}
	p := &Plan{Split: split, Workers: workers, Steal: auto && split == SplitRows}
	nf := len(set.Tables)
	switch split {
	case SplitKeys:
		if len(set.Query.By) == 0 {
			return nil, errors.New("the keys split needs a group-by (--by): it splits the work by the groups' keys")
		}
		p.Assign = make([][]int, workers)
		for w := range workers {
			for f := range nf {
				u := set.WholeFile(f)
				u.Part = scan.KeyPart{K: int32(w), N: int32(workers)}
				p.Assign[w] = append(p.Assign[w], len(p.Units))
				p.Units = append(p.Units, u)
			}
		}
	case SplitFileNaive, SplitFile:
		p.Assign = make([][]int, workers)
		for f := range nf {
			p.Units = append(p.Units, set.WholeFile(f))
		}
		for w := range workers {
			lo, hi := fileShare(split, nf, workers, w)
			for f := lo; f < hi; f++ {
				p.Assign[w] = append(p.Assign[w], f)
			}
		}
	case SplitRows:
		p.Assign = make([][]int, workers)
		var total int64
		for f := range nf {
			a, b := set.body(f)
			total += int64(b - a)
		}
		// Worker j takes global body bytes [j·B/N, (j+1)·B/N), each cut
		// moved to the next row start of the file it falls in.
		var g int64 // global offset of the current file's body start
		for f := range nf {
			a, b := set.body(f)
			size := int64(b - a)
			for w := range workers {
				lo := max(total*int64(w)/int64(workers)-g, 0)
				hi := min(total*int64(w+1)/int64(workers)-g, size)
				if lo >= hi {
					continue
				}
				s, err := set.rowStart(f, a+int(lo))
				if err != nil {
					return nil, err
				}
				e, err := set.rowStart(f, a+int(hi))
				if err != nil {
					return nil, err
				}
				if s >= e {
					continue // both cuts moved to the same row start
				}
				p.Assign[w] = append(p.Assign[w], len(p.Units))
				p.Units = append(p.Units, Unit{File: f, Start: s, End: e})
			}
			g += size
		}
	case SplitDynamic:
		// Cut at plain byte offsets: the worker that takes a chunk moves
		// both ends to row starts (see Set.rows), touching the pages it is
		// about to scan anyway; cut here, every chunk end would fault a
		// page in the parent, serially, in the setup phase.
		for f := range nf {
			a, b := set.body(f)
			for s := a; s < b; s += chunk {
				p.Units = append(p.Units, Unit{File: f, Start: s, End: min(s+chunk, b)})
			}
		}
	default:
		return nil, fmt.Errorf("unknown split %d", split)
	}
	return p, nil
}

// fileShare is worker j's files [lo, hi) of n under a file split of
// workers: balanced, [j·n/N, (j+1)·n/N); or the reference's (file-naive),
// n/N files each (integer division), the last worker taking the rest (with
// N > n, all of it). The mpi strategy shares files among ranks by it too.
func fileShare(split Split, n, workers, j int) (lo, hi int) {
	if split == SplitFileNaive {
		per := n / workers
		lo, hi = j*per, (j+1)*per
		if j == workers-1 {
			hi = n
		}
		return lo, hi
	}
	return j * n / workers, (j + 1) * n / workers
}

// next returns the index of worker w's next unit, or -1 when it has no more:
// its next assigned unit once it has taken taken of them, or, for the dynamic
// split, the next one from the shared cursor (take returns the cursor's old
// value and advances it, atomically).
// files is which of n files worker w's units are in, or nil where any
// may be (the dynamic split: units are taken from a shared cursor).
func (p *Plan) files(w, n int) []bool {
	if p.Assign == nil {
		return nil
	}
	in := make([]bool, n)
	for _, i := range p.Assign[w] {
		in[p.Units[i].File] = true
	}
	return in
}

func (p *Plan) next(w, taken int, take func() int64) int {
	if p.Assign == nil {
		if i := int(take()); i < len(p.Units) {
			return i
		}
		return -1
	}
	if taken < len(p.Assign[w]) {
		return p.Assign[w][taken]
	}
	return -1
}
