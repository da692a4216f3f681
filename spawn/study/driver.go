package study

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"parlab/bench"
	"parlab/input"
	"parlab/lab"
	"parlab/spawn"
)

// Setup is one study: the query (Base: paths, query, I/O mode, timeout; its
// strategy fields are ignored), the matrix to sweep, and the trials.
type Setup struct {
	Base       spawn.Config
	Strategies []spawn.Strategy // the floor is added unless NoFloor
	Splits     []spawn.Split
	Workers    []int
	// MPIRanks, for the mpi strategy: the job's ranks (mpirun -np). A
	// worker count is ranks x threads, so mpi runs at the counts that are
	// multiples of it, with that many threads a rank, and compares with
	// the other strategies at equal workers.
	MPIRanks int
	NoFloor  bool
	Trials   int
	Warmup   int
	Cold     bool // evict the data set's pages before every trial
	FitAll   bool // fit worker counts above the core count too
	Data     string
	// Hooks, as in Options: each recorded trial, each round, progress.
	OnTrial  func(p Config, trial int, s Sample) error
	OnRound  func(*Doc) error
	Progress func(done, total int)
}

// Configs is the matrix: the baseline once, each parallel strategy at every
// split and worker count, and the floor at every worker count.
func (s *Setup) Configs() ([]Config, error) {
	var cs []Config
	for _, st := range s.Strategies {
		switch st {
		case Baseline:
			cs = append(cs, Config{Strategy: Baseline, Split: spawn.SplitNone, Workers: 1})
		case Floor:
			return nil, fmt.Errorf("the floor is measured at every worker count unless left out, not named as a strategy")
		default:
			if spawn.CapsOf(st).Ranks && s.MPIRanks < 1 {
				return nil, fmt.Errorf("the mpi strategy runs in an MPI job: its ranks are not known")
			}
			for _, sp := range s.Splits {
				for _, n := range s.Workers {
					if spawn.CapsOf(st).Ranks && n%s.MPIRanks != 0 {
						continue // not ranks x threads
					}
					cs = append(cs, Config{Strategy: st, Split: sp, Workers: n})
				}
			}
		}
	}
	if !s.NoFloor {
		for _, n := range s.Workers {
			cs = append(cs, Config{Strategy: Floor, Split: spawn.SplitRows, Workers: n})
		}
	}
	return cs, nil
}

// Execute runs the study: one sequential run for the expected answer and
// what the data set is, the cost of one worker process (if processes run),
// then every configuration, interleaved, each answer checked.
func Execute(s Setup) (*Doc, error) {
	configs, err := s.Configs()
	if err != nil {
		return nil, err
	}
	c := s.Base
	c.Workers = 1
	ref, err := spawn.Sequential{}.Run(context.Background(), c)
	if err != nil {
		return nil, err
	}
	expected := ref.Answer()
	doc := &Doc{Env: environment(c, ref), Cold: s.Cold, IncludeOversubscribed: s.FitAll}
	doc.Env.MPIRanks = s.MPIRanks
	doc.Env.Query = ref.Spec.Describe()
	doc.Env.Data = s.Data
	doc.Expected.Matched = expected.Matched
	for _, v := range expected.Values() {
		doc.Expected.Sums = append(doc.Expected.Sums, NamedValue{Name: v.Label, Value: v.Value})
	}
	for _, p := range configs {
		if p.Strategy.Caps().Children {
			// What one worker process costs to start and end, measured the
			// spawn lab's way (forkexec-self, batch), so the report can
			// explain the processes strategy's spawn phase.
			var per []float64
			for range 3 {
				r, err := lab.Lab(lab.MethodForkExecSelf, lab.ModeBatch, 16, "")
				if err != nil {
					return nil, err
				}
				per = append(per, r.Total.Seconds()/16)
			}
			doc.Env.ForkExecSelf = bench.Summarize(per).Median
			break
		}
	}
	trial := func(p Config) (Sample, error) {
		cc := c
		cc.Workers = p.Workers
		if p.Strategy.Caps().Ranks {
			cc.Workers = p.Workers / s.MPIRanks // threads a rank
		}
		if p.Split != spawn.SplitNone {
			cc.Split = p.Split
		}
		before := diskRead()
		rep, err := p.Strategy.Run(context.Background(), cc)
		if err != nil {
			return Sample{}, err
		}
		smp := sampleOf(rep)
		smp.DiskRead = diskRead() - before
		return smp, nil
	}
	opt := Options{Trials: s.Trials, Warmup: s.Warmup, OnTrial: s.OnTrial, OnRound: s.OnRound, Progress: s.Progress}
	if !s.Cold {
		opt.Resident = func() (float64, float64, error) { return resident(c.Paths) }
	} else {
		opt.Before = func() error {
			for _, p := range c.Paths {
				if err := input.Evict(p); err != nil {
					return fmt.Errorf("evicting %s: %w", p, err)
				}
			}
			return nil
		}
	}
	if err := Run(doc, configs, trial, expected, opt); err != nil {
		return nil, err
	}
	return doc, nil
}

// sampleOf turns a run's report into a sample.
func sampleOf(rep *spawn.Report) Sample {
	phase := func(name string, d time.Duration) Phase { return Phase{Name: name, Seconds: d.Seconds()} }
	s := Sample{
		Seconds: rep.Total.Seconds(),
		Phases: []Phase{phase("setup", rep.Setup), phase("spawn", rep.Spawn),
			phase("scan", rep.Scan), phase("join", rep.Join), phase("merge", rep.Merge)},
		Answer: rep.Answer(),
	}
	var fork time.Duration
	for _, w := range rep.PerWorker {
		s.Busy = append(s.Busy, w.Busy().Seconds())
		s.Units = append(s.Units, w.Units)
		fork += w.Fork
	}
	if rep.Children() && len(rep.PerWorker) > 0 {
		s.Phases = append(s.Phases, phase("fork", fork/time.Duration(len(rep.PerWorker))))
	}
	return s
}

// environment is the machine and the data set.
func environment(c spawn.Config, ref *spawn.Report) Env {
	e := Env{
		Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), Go: runtime.Version(),
		Files: ref.Files, Rows: ref.Result.Rows, Bytes: ref.Bytes, IO: c.Mode.String(), Populate: c.Opt.Populate,
		Started: time.Now().UTC().Format(time.RFC3339), CPU: "unknown",
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				e.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		e.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	return e
}

// diskRead is what this process and its waited-for children have read from
// disk so far, in bytes: getrusage's inblock counts 512-byte blocks that a
// read or a page fault had to fetch, never those the page cache served.
func diskRead() int64 {
	var self, children unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &self) != nil || unix.Getrusage(unix.RUSAGE_CHILDREN, &children) != nil {
		return 0
	}
	return 512 * (self.Inblock + children.Inblock)
}

// resident is the fraction of the files' pages in the page cache, and the
// fraction of those (of whole 2 MiB blocks) in 2 MiB folios: NaN if the
// kernel cannot tell, or the files have no whole block.
func resident(paths []string) (float64, float64, error) {
	c, err := input.State(paths)
	if err != nil {
		return 0, 0, err
	}
	return c.ResidentFraction(), c.HugeFraction(), nil
}

// WriteFile writes the document atomically: a crash mid-write leaves the
// previous round's file, never half of one.
func (d *Doc) WriteFile(path string) error {
	b, err := d.MarshalJSON()
	if err != nil {
		return err
	}
	return bench.WriteFile(path, append(b, '\n'))
}

// TrialJSON is one trial as a line of the trial log (encoding/json, so any
// bytes in the answer still make valid JSON): its parameters, number, time,
// phases, answer and disk reads.
func TrialJSON(p Config, n int, s Sample) []byte {
	var ph bench.Ordered[float64]
	for _, x := range s.Phases {
		ph.Add(x.Name, x.Seconds)
	}
	answer := ""
	if s.Answer != nil {
		answer = s.Answer.String()
	}
	b, err := json.Marshal(struct {
		Parameters bench.Params           `json:"parameters"`
		Trial      int                    `json:"trial"`
		Time       float64                `json:"time"`
		Phases     bench.Ordered[float64] `json:"phases"`
		Answer     string                 `json:"answer"`
		DiskRead   int64                  `json:"disk_read"`
	}{p.Params(), n, s.Seconds, ph, answer, s.DiskRead})
	if err != nil {
		panic(err) // plain values only: cannot fail
	}
	return b
}
