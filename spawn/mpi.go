package spawn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"runtime"
	"sync/atomic"
	"time"

	"parlab/input"
	"parlab/internal/child"
	"parlab/internal/mpi"
	"parlab/scan"
)

// MPI runs a query as the ranks of an MPI job: every rank is this program,
// started by mpirun (mpirun -np R parlab-mpi query --strategy mpi
// --workers T ...), and runs this strategy with the same Config. The work
// is split across ranks as the other strategies split it across workers,
// and each rank runs T goroutines on its share (MPI+threads). Rank 0
// gathers every rank's exact partial answer, in the binary forms the
// processes strategy's children write (scan.Result.AppendBinary and
// AppendVar), merges them as the other strategies merge their workers', and
// its Report holds the answer; every other rank's Report holds only its
// Rank.
//
// The splits, across R ranks of T threads:
//   - file-naive and file give rank r its files (the split's rule over R),
//     and its T threads split those files with the same rule. A rank opens
//     only its own files, so a data set whose files are spread across hosts
//     works: each host needs only its ranks' files.
//   - rows, dynamic, keys and auto plan the whole set for R·T workers, as
//     the goroutines strategy plans it for that many: rank r runs workers
//     r·T … r·T+T−1 (under the dynamic split, on a cursor of its own over
//     its R-th of the chunks). Every rank maps every file, and rank 0
//     checks that each saw the same sizes and made the same plan. Rank 0
//     merges per unit, so a row cut inside a quoted field is rescanned as
//     the other strategies rescan it (Set.merge).
//
// Every rank makes the same two collective calls in every run, whatever
// fails: a Bcast of rank 0's options (a rank started with others fails the
// run) and a Gather of the parts. A rank whose part failed sends its error,
// and rank 0 fails the run with the first in rank order; a rank that dies
// ends the job (mpirun kills the rest); a rank whose Config.Timeout passes
// stops waiting and fails, and the caller ends the job with EndMPI.
type MPI struct {
	// comm, for this package's tests only: one rank of ranks that are
	// goroutines of this process, joined by an in-process Comm. nil: the
	// world of the MPI job this process is a rank of (internal/mpi).
	comm Comm
}

// NameMPI is the mpi strategy's name.
const NameMPI = "mpi"

// Comm is what the mpi strategy needs of MPI: who this rank is, and two
// collectives, each called by every rank in the same order.
// internal/mpi.Comm is the real one.
type Comm interface {
	Rank() int
	Size() int
	// Gather sends b to rank 0; at rank 0 it returns every rank's bytes in
	// rank order, elsewhere nil.
	Gather(b []byte) ([][]byte, error)
	// Bcast returns rank 0's b at every rank.
	Bcast(b []byte) ([]byte, error)
}

func (MPI) Name() string { return NameMPI }

func (MPI) Caps() Caps { return Caps{Ranks: true} }

func (MPI) Help() string {
	return "an MPI rank a share, --workers goroutines in each: mpirun -np R parlab-mpi"
}

// ErrNotLaunched is the mpi strategy's error in a process that mpirun did
// not start.
var ErrNotLaunched = errors.New("the mpi strategy runs as the ranks of an MPI job: mpirun -np R bin/parlab-mpi query --strategy mpi [--workers T] [flags] PATH")

// mpiOptions is what rank 0 broadcasts: every rank must run the same query
// the same way, over the same inputs. Inputs are named as the user named
// them (Config.Names): each rank stages a compressed or transcoded input
// itself, so where its copy is (Config.Paths) differs from rank to rank.
type mpiOptions struct {
	Names    []string
	Query    scan.Query
	Mode     int
	Populate bool
	Buffer   int
	Split    Split
	Threads  int
	Chunk    int
	// Stop: no run; the ranks that follow rank 0 (FollowMPI) stop.
	Stop bool
	// Kinds are the query's column kinds, which rank 0 decides over every
	// input (Set.decide) for every rank, or KindsErr why it could not.
	Kinds    []scan.ColumnKind
	KindsErr string
}

func optionsOf(c Config) mpiOptions {
	names := c.Names
	if len(names) != len(c.Paths) {
		names = c.Paths
	}
	return mpiOptions{Names: names, Query: c.Query, Mode: int(c.Mode), Populate: c.Opt.Populate,
		Buffer: c.Opt.Buffer, Split: c.Split, Threads: c.Workers, Chunk: c.Chunk}
}

// config is the run that o describes over this rank's inputs (paths, as
// own names them), under timeout.
func (o mpiOptions) config(own Config, timeout time.Duration) Config {
	return Config{Paths: own.Paths, Names: own.Names, Seps: own.Seps, HeadAdded: own.HeadAdded, Query: o.Query, Mode: input.Mode(o.Mode),
		Opt: input.Options{Populate: o.Populate, Buffer: o.Buffer}, Split: o.Split, Workers: o.Threads, Chunk: o.Chunk, Timeout: timeout}
}

// rankPart is one rank's part of a run, as it is gathered (child.WriteJob).
type rankPart struct {
	Err string // the rank could not do its part: why
	// FileSplit: the rank ran its own files (the file splits), and Units
	// holds one entry, their merged answer (Unit -1).
	FileSplit bool
	Split     string // the plan's split (the auto split's choice)
	Files     int
	Bytes     int64
	Sizes     []int  // each file's size (the whole-set splits)
	Head      []byte // the header of the rank's first file (the file splits)
	HeadSep   byte   // that file's delimiter
	Setup     time.Duration
	Workers   []WorkerStat
	Units     []partUnit
	Rescanned []int // the file splits: files the rank rescanned, global indexes
}

// partUnit is one unit's outcome, or (Unit -1) a worker's own result.
type partUnit struct {
	Unit   int
	Worker int // the worker (of the plan's) whose own result it is
	Failed bool
	Folded bool
	Msg    string
	Fixed  []byte // scan.Result.AppendBinary
	Var    []byte // scan.Result.AppendVar
}

func putPartResult(p *partUnit, r *scan.Result) {
	p.Fixed = r.AppendBinary(nil)
	p.Var = r.AppendVar(nil)
}

func (p *partUnit) result() (scan.Result, error) {
	r, err := scan.DecodeResult(p.Fixed)
	if err == nil && len(p.Var) > 0 {
		err = r.DecodeVar(p.Var)
	}
	return r, err
}

// rankRun is a rank's part in progress: the part, and for the whole-set
// splits the run (set and plan) that rank 0 merges with.
type rankRun struct {
	part rankPart
	run  *run
}

// world is m's Comm: the in-process one of a test, or this MPI job's.
func (m MPI) world() (Comm, error) {
	if m.comm != nil {
		return m.comm, nil
	}
	if !mpi.Launched() {
		return nil, ErrNotLaunched
	}
	return mpi.World()
}

// MPIRank is this process's rank and the job's size, MPI initialised on
// the way; ErrNotLaunched outside an MPI job.
func MPIRank() (rank, size int, err error) {
	comm, err := MPI{}.world()
	if err != nil {
		return 0, 0, err
	}
	return comm.Rank(), comm.Size(), nil
}

// FollowMPI is the life of a rank other than 0 in a job where rank 0 alone
// decides what runs (parlab bench): it runs the mpi strategy with the
// options of each of rank 0's runs, as they come, over own's inputs (the
// same as rank 0's, staged by this rank), until rank 0 calls
// StopMPIFollowers, and returns nil then. own.Timeout bounds each run.
func FollowMPI(own Config) error {
	return MPI{}.follow(own)
}

func (m MPI) follow(own Config) error {
	comm, err := m.world()
	if err != nil {
		return err
	}
	if comm.Rank() == 0 {
		return errors.New("rank 0 leads: it does not follow")
	}
	for {
		b, err := comm.Bcast(nil)
		if err != nil {
			return err
		}
		var o mpiOptions
		if err := child.ReadJob(bytes.NewReader(b), &o); err != nil {
			return fmt.Errorf("rank %d: rank 0's options: %w", comm.Rank(), err)
		}
		if o.Stop {
			return nil
		}
		if _, err := m.run(context.Background(), o.config(own, own.Timeout), comm, b); err != nil {
			return err
		}
	}
}

// StopMPIFollowers tells the ranks in FollowMPI to stop (rank 0 calls it
// once it has run everything).
func StopMPIFollowers() error {
	comm, err := MPI{}.world()
	if err != nil {
		return err
	}
	return stopFollowers(comm)
}

func stopFollowers(comm Comm) error {
	var enc bytes.Buffer
	if err := child.WriteJob(&enc, &mpiOptions{Stop: true}); err != nil {
		return err
	}
	_, err := comm.Bcast(enc.Bytes())
	return err
}

func (m MPI) Run(ctx context.Context, c Config) (*Report, error) {
	if c.streamed() {
		return nil, errNoStream
	}
	comm, err := m.world()
	if err != nil {
		return nil, err
	}
	return m.run(ctx, c, comm, nil)
}

// run is one run at this rank. rank0, for a follower, is rank 0's options
// as broadcast, already received: the run takes them as they are (c is
// made of them). Otherwise every rank broadcasts (rank 0) or receives and
// checks (the others) the options first.
func (m MPI) run(ctx context.Context, c Config, comm Comm, rank0 []byte) (rep *Report, err error) {
	if c.Workers < 1 {
		return nil, fmt.Errorf("the mpi strategy needs at least 1 worker a rank, got %d", c.Workers)
	}
	ctx, cancel := WithTimeout(ctx, c.Timeout)
	defer cancel()
	defer func() { rep, err = stopped(ctx, rep, err) }()

	opts := optionsOf(c)
	got := rank0
	if got == nil {
		send := opts
		if comm.Rank() == 0 {
			send.Kinds, send.KindsErr = decideAll(c)
		}
		var enc bytes.Buffer
		if err := child.WriteJob(&enc, &send); err != nil {
			return nil, err
		}
		if got, err = comm.Bcast(enc.Bytes()); err != nil {
			return nil, err
		}
	}
	t0 := time.Now() // the ranks' clocks start together, just after the Bcast
	var rr rankRun
	var root mpiOptions
	err = child.ReadJob(bytes.NewReader(got), &root)
	opts.Kinds, opts.KindsErr = root.Kinds, root.KindsErr // (rank 0's to give)
	switch {
	case err != nil:
		rr.part.Err = fmt.Sprintf("rank %d: rank 0's options: %v", comm.Rank(), err)
	case !reflect.DeepEqual(root, opts):
		rr.part.Err = fmt.Sprintf("rank %d was started with other options than rank 0: %+v, rank 0 %+v", comm.Rank(), opts, root)
	case root.KindsErr != "":
		rr.part.Err = root.KindsErr
	default:
		c.Query.Kinds = append([]scan.ColumnKind{}, root.Kinds...) // (not nil: decided)
		rr = m.part(ctx, c, comm, t0)
	}
	if rr.run != nil {
		defer rr.run.set.Close()
	}
	// Rank 0 keeps its own part as it is: it sends nothing to itself.
	var out bytes.Buffer
	if comm.Rank() != 0 {
		if err := child.WriteJob(&out, &rr.part); err != nil {
			return nil, err
		}
	}
	// The gather waits for every rank: a rank's timeout ends the wait (the
	// caller then ends the job, EndMPI).
	type gathered struct {
		parts [][]byte
		err   error
	}
	done := make(chan gathered, 1)
	go func() {
		parts, err := comm.Gather(out.Bytes())
		done <- gathered{parts, err}
	}()
	var g gathered
	select {
	case g = <-done:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if g.err != nil {
		return nil, g.err
	}
	if comm.Rank() != 0 {
		return &Report{Strategy: MPI{}, Rank: comm.Rank(), Ranks: comm.Size()}, nil
	}
	parts := make([]rankPart, len(g.parts))
	parts[0] = rr.part
	for k := 1; k < len(parts); k++ {
		if err := child.ReadJob(bytes.NewReader(g.parts[k]), &parts[k]); err != nil {
			return nil, fmt.Errorf("rank %d's part: %w", k, err)
		}
	}
	for _, p := range parts {
		if p.Err != "" {
			return nil, errors.New(p.Err)
		}
	}
	if parts[0].FileSplit {
		return mergeFileParts(ctx, c, t0, parts)
	}
	return mergeUnitParts(ctx, c, rr.run, parts)
}

// part does this rank's part of the run.
func (m MPI) part(ctx context.Context, c Config, comm Comm, t0 time.Time) rankRun {
	R, me, T := comm.Size(), comm.Rank(), c.Workers
	var rr rankRun
	p := &rr.part
	fail := func(err error) rankRun {
		p.Err = err.Error()
		return rr
	}
	if c.Split == SplitFile || c.Split == SplitFileNaive {
		p.FileSplit = true
		lo, hi := fileShare(c.Split, len(c.Paths), R, me)
		if lo >= hi {
			return rr
		}
		cc := c
		n := len(c.Paths)
		cc.Paths, cc.Names, cc.Seps, cc.HeadAdded = c.Paths[lo:hi], share(c.Names, n, lo, hi), share(c.Seps, n, lo, hi), share(c.HeadAdded, n, lo, hi)
		cc.Workers = T
		r, err := startAt(cc, MPI{}, t0)
		if errors.Is(err, ErrNoData) {
			return rr // every file of its share is empty
		}
		if err != nil {
			return fail(notHere(err, me))
		}
		defer r.set.Close()
		r.part = true // (rank 0 sorts and writes the rows of every rank's files)
		rep, err := r.runAll(ctx, T, rankBody(me))
		if err != nil {
			return fail(notHere(err, me))
		}
		p.Files, p.Bytes, p.Setup, p.Workers = rep.Files, rep.Bytes, rep.Setup, rep.PerWorker
		for _, f := range rep.Rescanned {
			p.Rescanned = append(p.Rescanned, lo+f) // (empty files are left out: an index of the rank's set)
		}
		u := partUnit{Unit: -1}
		putPartResult(&u, &rep.Result)
		p.Units = []partUnit{u}
		head, err := r.set.head(0)
		if err != nil {
			return fail(err)
		}
		p.Head, p.HeadSep = head, r.set.Seps[0]
		return rr
	}
	cc := c
	cc.Workers = R * T
	r, err := startAt(cc, MPI{}, t0)
	if err != nil {
		return fail(err)
	}
	rr.run = r
	p.Split, p.Files, p.Bytes, p.Setup = r.plan.Split.String(), len(r.set.Files), r.set.Bytes, r.rep.Setup
	for _, f := range r.set.Files {
		p.Sizes = append(p.Sizes, f.Size())
	}
	ws := make([]int, T)
	for k := range ws {
		ws[k] = me*T + k
	}
	n := len(r.plan.Units)
	lo, hi := int64(me*n/R), int64((me+1)*n/R) // the dynamic split: this rank's chunks
	var cursor atomic.Int64
	take := func() int64 {
		if i := lo + cursor.Add(1) - 1; i < hi {
			return i
		}
		return int64(n)
	}
	wk := r.work(ctx, ws, take, rankBody(me))
	if err := ctx.Err(); err != nil {
		return fail(context.Cause(ctx))
	}
	for i := range wk.out {
		o := &wk.out[i].unitOutcome
		if !o.done {
			continue
		}
		pu := partUnit{Unit: i, Folded: o.folded}
		if o.err != nil {
			pu.Failed, pu.Msg = true, o.err.Error()
		}
		if !o.folded {
			putPartResult(&pu, &o.res)
		}
		p.Units = append(p.Units, pu)
	}
	for k := range wk.own {
		pu := partUnit{Unit: -1, Worker: ws[k]}
		putPartResult(&pu, &wk.own[k].Result)
		p.Units = append(p.Units, pu)
	}
	for k := range wk.stats {
		p.Workers = append(p.Workers, wk.stats[k].WorkerStat)
	}
	return rr
}

// rankBody is rank me's workers' body: a scan, then, where a test set
// one, rank me's failpoint (mid-scan: once a unit is scanned).
func rankBody(me int) func(context.Context, *Set, Unit, *scan.Result) error {
	fail := failpointOf("rank", me)
	if fail == nil {
		return scanBody
	}
	return func(ctx context.Context, s *Set, u Unit, res *scan.Result) error {
		err := s.scanUnit(ctx, u, res)
		fail()
		return err
	}
}

// mergeFileParts is rank 0's merge under the file splits: the ranks'
// answers, in rank order (file order).
func mergeFileParts(ctx context.Context, c Config, t0 time.Time, parts []rankPart) (*Report, error) {
	joined := time.Since(t0)
	rep := &Report{Strategy: MPI{}, Split: c.Split, Workers: len(parts) * c.Workers, Ranks: len(parts)}
	var results []*scan.Result
	for k, p := range parts {
		rep.Files += p.Files
		rep.Bytes += p.Bytes
		rep.Rescanned = append(rep.Rescanned, p.Rescanned...)
		ws := p.Workers
		if len(ws) == 0 {
			ws = make([]WorkerStat, c.Workers) // a rank without files: idle workers
		}
		rep.PerWorker = append(rep.PerWorker, ws...)
		if k == 0 {
			rep.Setup = p.Setup
		}
		if len(p.Units) == 0 {
			continue
		}
		r, err := p.Units[0].result()
		if err != nil {
			return nil, fmt.Errorf("rank %d's answer: %w", k, err)
		}
		results = append(results, &r)
		if rep.Files == p.Files { // the first rank with files: the names
			q := c.Query
			t, err := scan.NewTableSep(fmt.Sprintf("rank %d's first file", k), p.Head, p.HeadSep, &q)
			if err != nil {
				return nil, err
			}
			rep.Spec = t.Spec()
		}
	}
	if rep.Files == 0 {
		names := c.Names
		if len(names) != len(c.Paths) {
			names = c.Paths
		}
		return nil, noData(names)
	}
	rep.phases(joined)
	rep.Result = scan.MergeAll(results, runtime.GOMAXPROCS(0)) // (in rank order: each rank's files follow the one's before)
	if err := scan.FinishRows(&rep.Result, &c.Query, &rep.Spec); err != nil {
		return nil, err
	}
	rep.Merge = time.Since(t0) - joined
	rep.Total = time.Since(t0)
	return rep, ctx.Err()
}

// mergeUnitParts is rank 0's merge under the whole-set splits: every
// unit's outcome and every worker's own result, merged as the goroutines
// strategy merges its workers' (Set.merge: rescans, the keys split).
func mergeUnitParts(ctx context.Context, c Config, r *run, parts []rankPart) (*Report, error) {
	joined := time.Since(r.t0)
	outcomes := make([]unitOutcome, len(r.plan.Units))
	var owned []*scan.Result
	r.rep.Ranks = len(parts)
	r.rep.PerWorker = r.rep.PerWorker[:0]
	for k, p := range parts {
		if p.Split != r.plan.Split.String() || !reflect.DeepEqual(p.Sizes, parts[0].Sizes) {
			return nil, fmt.Errorf("rank %d saw other files than rank 0 (sizes %v, split %s; rank 0: %v, %s): the %s split needs the same files at every rank",
				k, p.Sizes, p.Split, parts[0].Sizes, parts[0].Split, c.Split)
		}
		if len(p.Workers) != c.Workers {
			return nil, fmt.Errorf("rank %d reported %d workers, not %d", k, len(p.Workers), c.Workers)
		}
		r.rep.PerWorker = append(r.rep.PerWorker, p.Workers...)
		for _, u := range p.Units {
			if u.Unit < -1 || u.Unit >= len(outcomes) || u.Unit >= 0 && outcomes[u.Unit].done {
				return nil, fmt.Errorf("rank %d's part names unit %d twice or of %d", k, u.Unit, len(outcomes))
			}
			var res scan.Result
			if !u.Folded {
				var err error
				if res, err = u.result(); err != nil {
					return nil, fmt.Errorf("rank %d's unit %d: %w", k, u.Unit, err)
				}
			}
			if u.Unit < 0 {
				// A worker's own result has its units' key part (not in
				// the binary form; the keys split's merge needs it).
				if w := u.Worker; r.plan.Assign != nil && w >= 0 && w < len(r.plan.Assign) && len(r.plan.Assign[w]) > 0 {
					res.Part = r.plan.Units[r.plan.Assign[w][0]].Part
				}
				owned = append(owned, &res)
				continue
			}
			res.Part = r.plan.Units[u.Unit].Part // (not in the binary form)
			o := unitOutcome{res: res, done: true, folded: u.Folded}
			if u.Failed {
				o.err = errors.New(u.Msg)
			}
			outcomes[u.Unit] = o
		}
	}
	return r.finish(ctx, joined, outcomes, owned...)
}

// EndMPI ends this process's part in an MPI job, if it is a rank of one
// that the mpi strategy joined: with code 0 it finalises (MPI_Finalize, which
// waits for every rank), else it aborts the whole job with code
// (MPI_Abort), so no rank outlives a failed run. main calls it last.
func EndMPI(code int) {
	if !mpi.Initialized() {
		return
	}
	if code != 0 {
		mpi.Abort(code)
		return
	}
	mpi.Finalize()
}

// decideAll is rank 0's decision of c's query's kinds over all of c's
// inputs (its own copies of every rank's), as any strategy's Set decides
// them, or why it could not.
func decideAll(c Config) ([]scan.ColumnKind, string) {
	if c.Query.Kinds != nil {
		return c.Query.Kinds, ""
	}
	s, err := open(c.Paths, c.Query, input.Read, input.Options{}, c.Names, c.Seps, c.HeadAdded, nil)
	if errors.Is(err, fs.ErrNotExist) {
		// rank 0 holds none of the files (each rank its own, none here):
		// every rank reads each value as it looks (scan.KindAuto), alike
		return []scan.ColumnKind{}, ""
	}
	if err != nil {
		return nil, err.Error()
	}
	defer s.Close()
	return s.Query.Kinds, ""
}

// notHere is err, a file split rank's, saying where: a file of the rank's
// share that its host lacks is a file no rank opens (each file is one
// rank's), so the message names the rank and its host.
func notHere(err error, rank int) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	host, _ := os.Hostname()
	return fmt.Errorf("rank %d on %s: %w (with --split file each file is one rank's to open, on that rank's host: no rank opened this one)", rank, host, err)
}

// share is xs[lo:hi] where xs has an entry for each of n paths (a Config's
// per-path lists), else nil.
func share[T any](xs []T, n, lo, hi int) []T {
	if len(xs) != n {
		return nil
	}
	return xs[lo:hi]
}
