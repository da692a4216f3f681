package spawn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"parlab/input"
	"parlab/scan"
)

// Config is one query run: what to read, how, and with how many workers.
type Config struct {
	Paths []string
	Names []string // what messages call each path (Inputs.Names); nil: the paths
	// Seps is each path's field delimiter (Inputs.Seps): a file in
	// another than ',' is scanned in place in it. nil or 0: ','.
	Seps []byte
	// HeadAdded says of each path whether its first line is a header
	// parlab wrote (Inputs.HeadAdded: JSON lines): its errors and rejected
	// rows name the input's line, one less than the CSV's. nil: none.
	HeadAdded []bool
	Query     scan.Query
	Mode      input.Mode
	Opt       input.Options
	Workers   int
	Split     Split
	Chunk     int // the dynamic split's chunk size; 0: DefaultChunk
	// Timeout bounds the whole run, setup included, in every strategy: past
	// it the run stops (children are killed) and fails with a
	// *TimeoutError. 0: no bound.
	Timeout time.Duration
	Exe     string // processes: the binary to start; "": child.WorkerExe()
	// Stream, if not nil, is the input instead of Paths: one CSV stream
	// (decompressed, in its delimiter: see delimiterOf), named by
	// Names[0], scanned while it is read (see Streams; stage.Stream). A
	// run reads it once.
	Stream io.Reader
	// Opens, if not empty, are the inputs instead of Paths: each opens one
	// CSV stream (decompressed, in its delimiter), named by Names[i], and
	// returns the function that closes it (safe while a Read is in
	// flight, see stage.Stream). Workers take them a whole stream each,
	// and each reads and scans its own (see Streams).
	Opens []func() (io.Reader, func(), error)
	// Rows, if not nil, takes the rows of a query that selects rows as
	// the run writes them, in file order, where the strategy can (seq,
	// goroutines, streams: see RowSink); the others leave them all in
	// Result.Out.
	Rows RowSink
}

// streamed reports whether c's inputs are streams (Stream or Opens).
func (c *Config) streamed() bool { return c.Stream != nil || len(c.Opens) > 0 }

// Name is what messages call input file i.
func (c *Config) Name(i int) string {
	if len(c.Names) == len(c.Paths) {
		return c.Names[i]
	}
	return c.Paths[i]
}

// Strategy runs a query with a way of using the machine.
type Strategy interface {
	Name() string
	Help() string // what it is, in a few words, for help text
	Caps() Caps   // what kind of strategy it is
	Run(ctx context.Context, c Config) (*Report, error)
}

// The strategies' names.
const (
	NameSeq        = "seq"
	NameGoroutines = "goroutines"
	NameProcesses  = "processes"
	NameFloor      = "floor" // answers no query: see Floor
)

// Strategies lists every strategy, in the order the study runs them: the one
// list that the command line, the menu and the study take names from.
func Strategies() []Strategy {
	return []Strategy{Sequential{}, Goroutines{}, Processes{}, MPI{}, Floor{}}
}

// ParseStrategy returns the strategy named name.
func ParseStrategy(name string) (Strategy, error) {
	var names []string
	for _, s := range Strategies() {
		if s.Name() == name {
			return s, nil
		}
		names = append(names, s.Name())
	}
	return nil, fmt.Errorf("unknown strategy %q (want %s)", name, strings.Join(names, ", "))
}

// StrategyHelp lists the strategies and what each is, for help text.
func StrategyHelp() string {
	var parts []string
	for _, st := range Strategies() {
		parts = append(parts, st.Name()+" ("+st.Help()+")")
	}
	return strings.Join(parts, ", ")
}

// StrategyFlag is a strategy named on a command line: flag.TextVar binds
// it. Its zero value names none (Strategy nil), for a caller's default.
type StrategyFlag struct{ Strategy }

func (f StrategyFlag) MarshalText() ([]byte, error) {
	if f.Strategy == nil {
		return nil, nil
	}
	return []byte(f.Name()), nil
}

func (f *StrategyFlag) UnmarshalText(b []byte) error {
	st, err := ParseStrategy(string(b))
	if err == nil {
		f.Strategy = st
	}
	return err
}

// Report is an answer and where the run's time went. Times are durations
// from the start of the run (Start, End) or lengths of phases.
type Report struct {
	Strategy Strategy
	Split    Split // SplitNone for seq, SplitStream for a stream
	Workers  int
	Result   scan.Result
	Spec     scan.Spec // the query's names, as the first file's header spells them
	Files    int
	Bytes    int64

	Setup time.Duration // open + map + bind (+ the shared region for processes)
	Spawn time.Duration // until every worker has started
	Scan  time.Duration // from the first worker's start to the last one's end
	Join  time.Duration // from the last worker's end until the parent knows it
	Merge time.Duration
	Total time.Duration

	PerWorker []WorkerStat
	// Rank and Ranks, for mpi: this process's rank and the job's ranks.
	// Only rank 0's report holds the answer and the figures; PerWorker
	// is then every rank's workers, rank by rank (each rank's times since
	// its own start, the ranks' clocks started together).
	Rank, Ranks int
	// Child, for processes: the binary the workers were started from
	// (child.WorkerExe, or Config.Exe).
	Child string
	// Streamed: the input was a stream, scanned while it was read
	// (Config.Stream): read(2) into blocks, whatever the I/O mode.
	Streamed bool
	// Transient: there were too many files to hold open (Set.Transient):
	// each was read, through a descriptor opened for each read.
	Transient bool
	// Rescanned lists the files a row split had cut inside a quoted field,
	// found out after the scan, whose units after such a cut were read
	// again from the row's end (see Set.merge).
	Rescanned []int
}

// IO is the I/O mode the run used, asked the mode it was given: a
// stream is read (read(2) into blocks) whatever was asked.
func (r *Report) IO(asked input.Mode) input.Mode {
	if r.Streamed || r.Transient {
		return input.Read
	}
	return asked
}

// Busy is each worker's busy time, in seconds.
func (r *Report) Busy() []float64 {
	b := make([]float64, len(r.PerWorker))
	for i, w := range r.PerWorker {
		b[i] = w.Busy().Seconds()
	}
	return b
}

// Answer is the report's answer with its names (nil for the floor, which
// answers no query).
func (r *Report) Answer() *scan.Answer {
	if r.Floor() {
		return nil
	}
	return &scan.Answer{Spec: r.Spec, Result: r.Result}
}

// WorkerStat is what one worker did.
type WorkerStat struct {
	Start, End time.Duration // since the start of the run
	Fork       time.Duration // processes: the parent's ForkExec call for it
	// Launched and Main, processes: when the parent's ForkExec call for it
	// began, and when the child's own code began (its main entered, after
	// the exec, the Go runtime's start and every package initialiser),
	// since the start of the run. Main to Start is the child's setup: the
	// region read, the job decoded, the inputs mapped.
	Launched, Main time.Duration
	// MaxRSS is a child's peak resident memory in bytes (processes only;
	// its VmHWM). Pages of a mapped file it touched count in it.
	MaxRSS int64
	Units  int
	Bytes  int64
	Rows   int64
}

// ChildStart is a child's start (processes): from the end of the parent's
// ForkExec call to the child's main (the exec, the Go runtime's start, the
// package initialisers). The workers start side by side, so on a busy
// machine the parent's goroutine may resume from the call after its child
// has reached main: the start is then negative, and Fork holds the wait.
func (w WorkerStat) ChildStart() time.Duration { return w.Main - w.Launched - w.Fork }

// ChildSetup is a child's setup (processes): from its main to its scan
// (the region read, the job decoded, the inputs mapped).
func (w WorkerStat) ChildSetup() time.Duration { return w.Start - w.Main }

// Busy is how long the worker scanned.
func (w WorkerStat) Busy() time.Duration { return w.End - w.Start }

// Sequential is the baseline: one loop over every file in order, in this
// goroutine.
type Sequential struct{}

func (Sequential) Name() string { return NameSeq }

func (Sequential) Help() string { return "one goroutine, the baseline" }

func (Sequential) Caps() Caps { return Caps{OneWorker: true, Streams: StreamAlways} }

func (Sequential) Run(ctx context.Context, c Config) (rep *Report, err error) {
	if c.streamed() {
		return runStream(ctx, c, Sequential{}, 1)
	}
	ctx, cancel := WithTimeout(ctx, c.Timeout)
	defer cancel()
	defer func() { rep, err = stopped(ctx, rep, err) }()
	t0 := time.Now()
	set, err := openConfig(&c, c.Mode, c.Opt, false)
	if err != nil {
		return nil, err
	}
	defer set.Close()
	rep = set.report(Sequential{}, SplitNone, 1)
	rep.Setup = time.Since(t0)
	if c.sinks() {
		set.flush = flushTo(c.Rows, func() *scan.Spec { return &rep.Spec })
	}
	w := WorkerStat{Start: rep.Setup, Units: len(set.Tables)}
	for i := range set.Tables {
		u := set.WholeFile(i)
		if err := set.scanUnit(ctx, u, &rep.Result); err != nil {
			return nil, err
		}
		w.Bytes += int64(u.End - u.Start)
	}
	if set.Rest != nil { // a later file's error: none came before it
		return nil, set.Rest
	}
	if err := set.placeRejects(ctx, &rep.Result); err != nil {
		return nil, err
	}
	if err := scan.FinishRows(&rep.Result, &set.Query, &rep.Spec); err != nil {
		return nil, err
	}
	w.End = time.Since(t0)
	w.Rows = rep.Result.Rows
	rep.PerWorker = []WorkerStat{w}
	rep.Scan = w.Busy()
	rep.Total = time.Since(t0)
	return rep, ctx.Err()
}

// TimeoutError is the error of a run that Config.Timeout stopped.
type TimeoutError struct{ After time.Duration }

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the run did not finish within the timeout (%v) and was stopped", e.After)
}

// WithTimeout is ctx bounded by d (none if d is 0), with a *TimeoutError
// as its cause: Config.Timeout's bound, for a caller whose run starts
// earlier (stage.Stage, say, before Run).
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, &TimeoutError{d})
}

// stopped is the outcome of a run under ctx: once ctx has ended, the run
// failed with its cause (a *TimeoutError, or the caller's cancellation),
// whatever else went wrong on the way out. Every strategy's run ends here,
// so a finished answer's group-by keys are united here too (scan.UniteKeys).
func stopped(ctx context.Context, rep *Report, err error) (*Report, error) {
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); err == nil || !errors.Is(err, cause) {
			return nil, cause
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if rep != nil {
		if err := scan.UniteKeys(&rep.Result, &rep.Spec); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func (s *Set) report(strategy Strategy, split Split, workers int) *Report {
	return &Report{
		Strategy: strategy, Split: split, Workers: workers,
		Spec:  s.Tables[0].Spec(),
		Files: len(s.Tables), Bytes: s.Bytes, Transient: s.Transient,
	}
}

// The kinds of run a Report is of, for what renders it: here, so that no
// one outside spawn decides by a strategy's name.

// Floor reports whether the run was the floor's: newlines counted, no
// query answered.
func (r *Report) Floor() bool { return r.caps().Counts }

// Children reports whether the run's workers were child processes, whose
// fork, start and peak memory PerWorker holds.
func (r *Report) Children() bool { return r.caps().Children }

// Sequential reports whether the run was the sequential baseline's.
func (r *Report) Sequential() bool { return r.caps().OneWorker }

func (r *Report) caps() Caps { return CapsOf(r.Strategy) }

// Caps are what kind of strategy a strategy is, for the commands that set
// up and report a run, so that none decides by its name.
type Caps struct {
	// Ranks: each run is an MPI job's, a rank a process mpirun starts,
	// whose workers are threads (one by default); standard input reaches
	// rank 0 only, and under the file splits a rank opens only its files.
	Ranks bool
	// OneWorker: it runs one worker, whatever the Config says (seq).
	OneWorker bool
	// Counts: it counts newlines and answers no query (the floor).
	Counts bool
	// Children: its workers are child processes, whose fork, start and
	// peak memory a Report's PerWorker holds (processes).
	Children bool
	// Streams: under which splits it scans a stream while it reads it
	// (Config.Stream, Config.Opens); under the others a stream is staged
	// whole in memory first, where every worker can reach any part of it.
	Streams Streamable
}

// CapsOf is st's Caps (none for nil).
func CapsOf(st Strategy) Caps {
	if st == nil {
		return Caps{}
	}
	return st.Caps()
}
