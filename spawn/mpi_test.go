package spawn

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"parlab/scan"
)

// mpiLocal is the mpi strategy run as ranks goroutines of this process,
// joined by localComm: the ranks' protocol, their parts and rank 0's merge
// are the real ones, only MPI and the processes are left out, so the full
// matrices cost no mpirun. Real jobs (mpirun, bin/parlab-mpi) are tested
// in cmd/parlab at fewer points, and with a rank that dies.
type mpiLocal struct{ ranks int }

func (m mpiLocal) Name() string { return fmt.Sprintf("mpi(%d in-process ranks)", m.ranks) }

func (m mpiLocal) Help() string { return "the mpi strategy's ranks as goroutines" }

func (m mpiLocal) Caps() Caps { return MPI{}.Caps() }

// Run runs every rank and returns rank 0's outcome; a rank other than 0
// must report its rank and fail only where rank 0 has failed too.
func (m mpiLocal) Run(ctx context.Context, c Config) (*Report, error) {
	w := &localWorld{size: m.ranks, gather: make(chan localMsg, m.ranks)}
	for range m.ranks {
		w.bcast = append(w.bcast, make(chan []byte, 1))
	}
	reps := make([]*Report, m.ranks)
	errs := make([]error, m.ranks)
	var wg sync.WaitGroup
	for k := range m.ranks {
		wg.Go(func() { reps[k], errs[k] = MPI{comm: localComm{w, k}}.Run(ctx, c) })
	}
	wg.Wait()
	for k := 1; k < m.ranks; k++ {
		switch {
		case errs[k] != nil && errs[0] == nil:
			return nil, fmt.Errorf("rank %d failed where rank 0 did not: %w", k, errs[k])
		case errs[k] == nil && (reps[k].Rank != k || reps[k].Ranks != m.ranks):
			return nil, fmt.Errorf("rank %d's report says rank %d of %d", k, reps[k].Rank, reps[k].Ranks)
		}
	}
	if errs[0] == nil && (reps[0].Rank != 0 || reps[0].Ranks != m.ranks || reps[0].Workers != m.ranks*c.Workers || len(reps[0].PerWorker) != reps[0].Workers) {
		return nil, fmt.Errorf("rank 0's report: rank %d of %d, %d workers, %d worker figures", reps[0].Rank, reps[0].Ranks, reps[0].Workers, len(reps[0].PerWorker))
	}
	return reps[0], errs[0]
}

// localWorld joins in-process ranks: rank 0's Bcast sends to each rank's
// channel, and the other ranks' Gather sends to rank 0's.
type localWorld struct {
	size   int
	bcast  []chan []byte
	gather chan localMsg
}

type localMsg struct {
	rank int
	b    []byte
}

type localComm struct {
	w    *localWorld
	rank int
}

func (c localComm) Rank() int { return c.rank }
func (c localComm) Size() int { return c.w.size }

func (c localComm) Bcast(b []byte) ([]byte, error) {
	if c.rank != 0 {
		return <-c.w.bcast[c.rank], nil
	}
	for k := 1; k < c.w.size; k++ {
		c.w.bcast[k] <- bytes.Clone(b) // as MPI: each rank's own copy
	}
	return b, nil
}

func (c localComm) Gather(b []byte) ([][]byte, error) {
	if c.rank != 0 {
		c.w.gather <- localMsg{c.rank, bytes.Clone(b)}
		return nil, nil
	}
	out := make([][]byte, c.w.size)
	out[0] = b
	for range c.w.size - 1 {
		m := <-c.w.gather
		out[m.rank] = m.b
	}
	return out, nil
}

// The mpi strategy gives seq's answer at 1 to 4 ranks of 1 and 2 threads,
// every split, every shape of query, on plain files and on quoted ones
// whose row cuts must be rescanned; and ranks that would have nothing to
// do (more ranks than files, or than chunks) still answer.
func TestMPIAgrees(t *testing.T) {
	sets := map[string][]string{"generated": genSet(t, 3000, 5), "quoted": quotedSet(t)}
	queries := []scan.Query{
		{Filters: []scan.Cond{scan.Eq("Region", "Europe")}},
		{By: []string{"Region"}, Min: []string{"Total Revenue"}, Max: []string{"Total Profit"}, Avg: []string{"Total Revenue"}},
		{By: []string{"Country"}, Sum: []string{"Total Profit"}},
	}
	for name, paths := range sets {
		rescans := 0
		for _, q := range queries {
			if name == "generated" {
				q.Filters = append(q.Filters, scan.Cond{Col: "Sales Channel", Op: scan.OpEq, Value: "Online"})
			}
			want, err := Sequential{}.Run(context.Background(), Config{Paths: paths, Query: q, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			splits := []Split{SplitFileNaive, SplitFile, SplitRows, SplitDynamic, SplitKeys, SplitAuto}
			if q.By == nil {
				splits = splits[:4]
			}
			for ranks := 1; ranks <= 4; ranks++ {
				for _, threads := range []int{1, 2} {
					for si, sp := range splits {
						// under -short (the race run) a third of the
						// matrix: each split at 2 or 3 of the 8 shapes
						if testing.Short() && ((ranks-1)*2+threads-1+si)%3 != 0 {
							continue
						}
						label := fmt.Sprintf("%s %+v: %d ranks x %d, %s", name, q, ranks, threads, sp)
						c := Config{Paths: paths, Query: q, Workers: threads, Split: sp, Chunk: 4 << 10, Timeout: time.Minute}
						got, err := mpiLocal{ranks}.Run(context.Background(), c)
						if err != nil {
							t.Fatalf("%s: %v", label, err)
						}
						if !got.Result.Equal(&want.Result) {
							t.Fatalf("%s: %+v, want %+v", label, got.Result, want.Result)
						}
						rescans += len(got.Rescanned)
						if got.Spec.Describe() != want.Spec.Describe() || got.Files != want.Files || got.Bytes != want.Bytes {
							t.Fatalf("%s: %q, %d files, %d bytes; want %q, %d, %d", label, got.Spec.Describe(), got.Files, got.Bytes, want.Spec.Describe(), want.Files, want.Bytes)
						}
					}
				}
			}
		}
		if name == "quoted" && rescans == 0 {
			t.Error("no rank's row cut fell in a quoted field: rank 0's rescan went untested")
		}
	}
}

// In a bench, rank 0 alone decides what runs: the other ranks follow its
// runs, whatever their options, and stop when told.
func TestMPIFollowers(t *testing.T) {
	paths := genSet(t, 2000, 3)
	const ranks = 3
	w := &localWorld{size: ranks, gather: make(chan localMsg, ranks)}
	for range ranks {
		w.bcast = append(w.bcast, make(chan []byte, 1))
	}
	errs := make(chan error, ranks)
	for k := 1; k < ranks; k++ {
		go func() { errs <- MPI{comm: localComm{w, k}}.follow(Config{Paths: paths, Timeout: time.Minute}) }()
	}
	lead := MPI{comm: localComm{w, 0}}
	for _, c := range []Config{
		{Paths: paths, Query: scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, Workers: 2, Split: SplitRows},
		{Paths: paths, Query: scan.Query{By: []string{"Country"}}, Workers: 1, Split: SplitKeys},
		{Paths: paths, Query: scan.Query{By: []string{"Item Type"}, Max: []string{"Order Date"}}, Workers: 3, Split: SplitFile},
	} {
		want, err := Sequential{}.Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := lead.Run(context.Background(), c)
		if err != nil {
			t.Fatalf("%+v: %v", c.Query, err)
		}
		if !got.Result.Equal(&want.Result) || got.Workers != ranks*c.Workers {
			t.Fatalf("%+v: %+v (%d workers), want %+v", c.Query, got.Result, got.Workers, want.Result)
		}
	}
	if err := stopFollowers(localComm{w, 0}); err != nil {
		t.Fatal(err)
	}
	for k := 1; k < ranks; k++ {
		select {
		case err := <-errs:
			if err != nil {
				t.Errorf("a follower: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a follower did not stop")
		}
	}
}
