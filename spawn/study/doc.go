// Package study is the query study that `parlab bench` runs: the matrix
// of configurations (strategy, split, workers) over one set of files, the
// reference run whose answer every trial must give, the trials interleaved
// A B A B (bench.Run) with the page cache's state recorded, and the
// analysis: speedup against seq, Karp–Flatt and Amdahl's fit, the floor (a
// newline count: the machine's limit), the work a row, load imbalance, and
// disk reads for cold trials. It writes the text report, the plots, the
// HTML page and the JSON document, and reads the JSON back (report
// --compare). It knows the strategies through package spawn, and measures
// with the generic kit in package bench.
package study

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"parlab/bench"
	"parlab/scan"
	"parlab/spawn"
)

// Baseline is the strategy every speedup is measured against, and Floor the
// one whose rows are the machine's floor (a newline count: no answer to
// check, shown apart, every time shown as a multiple of it).
var (
	Baseline spawn.Strategy = spawn.Sequential{}
	Floor    spawn.Strategy = spawn.Floor{}
)

// Config is one configuration of the study: a strategy, a split
// (spawn.SplitNone for the baseline) and a worker count. It is comparable
// (a map key): every strategy is a comparable value.
type Config struct {
	Strategy spawn.Strategy
	Split    spawn.Split
	Workers  int
}

func (p Config) String() string {
	if p.Strategy == Baseline {
		return p.Strategy.Name()
	}
	return fmt.Sprintf("%s/%s/%d", p.Strategy.Name(), p.Split, p.Workers)
}

// kind is the configuration's strategy and split, as the figures' series
// and the fits name them.
func (p Config) kind() string { return p.Strategy.Name() + "/" + p.Split.String() }

// Params is the configuration as the kit's parameters (the JSON's
// "parameters").
func (p Config) Params() bench.Params {
	return bench.Params{{Name: "strategy", Value: p.Strategy.Name()}, {Name: "split", Value: p.Split.String()}, {Name: "workers", Value: p.Workers}}
}

// configOf reads a Config back from its parameters.
func configOf(p bench.Params) (Config, error) {
	st, ok1 := p.Get("strategy").(string)
	sp, ok2 := p.Get("split").(string)
	n, ok3 := p.Get("workers").(float64)
	if !ok1 || !ok2 || !ok3 || n != math.Trunc(n) || n < 1 {
		return Config{}, fmt.Errorf("parameters %v: want a strategy, a split and a whole worker count", p)
	}
	c := Config{Workers: int(n)}
	var err error
	if c.Strategy, err = spawn.ParseStrategy(st); err != nil {
		return Config{}, fmt.Errorf("parameters %v: %w", p, err)
	}
	if c.Split, err = spawn.ParseReportedSplit(sp); err != nil {
		return Config{}, fmt.Errorf("parameters %v: %w", p, err)
	}
	return c, nil
}

// Phase is a named part of a trial's time.
type Phase struct {
	Name    string
	Seconds float64
}

// Sample is one trial.
type Sample struct {
	Seconds float64
	Phases  []Phase
	Busy    []float64 // each worker's busy time
	Units   []int     // each worker's share of the work (files, ranges, chunks)
	// Answer is compared with the expected answer (scan.Answer.Equal); the
	// floor answers no query and has none.
	Answer *scan.Answer
	// DiskRead is what the trial read from disk, in bytes (getrusage's
	// inblock, its worker processes' included): above zero, the page cache
	// lacked pages the trial needed (of the data, or of parlab itself), and
	// the time is partly the disk's.
	DiskRead int64
}

// Trial runs one configuration once.
type Trial func(Config) (Sample, error)

// Options steer Run.
type Options struct {
	Trials, Warmup int
	// Before runs before every trial (--cold evicts the page cache there).
	Before func() error
	// OnTrial sees every recorded trial (--log appends it as a JSON line).
	OnTrial func(p Config, trial int, s Sample) error
	// OnRound sees the document after each round of trials (--json rewrites
	// it, so a crash leaves the results so far).
	OnRound func(*Doc) error
	// Progress is told how many of total trials (warmups included) are done.
	Progress func(done, total int)
	// Resident, if set, says how the page cache holds the data set: the
	// fraction of its pages it holds, and the fraction of those (of whole
	// 2 MiB blocks) in 2 MiB folios, NaN if unknown. Run asks before the
	// first round and after the last (Doc.Cache).
	Resident func() (resident, huge float64, err error)
}

// Run runs every configuration through bench.Run: Trials times after Warmup
// unrecorded rounds, interleaved. Every trial's answer must equal expected
// (the floor's excepted), or Run stops with an error; after each round the
// document is analysed again.
func Run(doc *Doc, configs []Config, trial Trial, expected *scan.Answer, opt Options) error {
	doc.Trials, doc.Warmup = opt.Trials, opt.Warmup
	doc.Results = make([]Result, len(configs))
	for i, p := range configs {
		doc.Results[i].Config = p
	}
	doc.Cache = nil
	if opt.Resident != nil {
		f, h, err := opt.Resident()
		if err != nil {
			return err
		}
		doc.Cache = &PageCache{Start: f, End: math.NaN(), HugeStart: h, HugeEnd: math.NaN()}
	}
	err := bench.Run(len(configs), func(i int) (Sample, error) {
		p := configs[i]
		s, err := trial(p)
		if err != nil {
			return s, fmt.Errorf("%v: %w", p, err)
		}
		if p.Strategy != Floor && (s.Answer == nil || !s.Answer.Equal(expected)) {
			return s, fmt.Errorf("%v: wrong answer %v (expected %v)", p, s.Answer, expected)
		}
		return s, nil
	}, bench.Options[Sample]{
		Trials: opt.Trials, Warmup: opt.Warmup, Before: opt.Before, Progress: opt.Progress,
		OnTrial: func(i, n int, s Sample) error {
			r := &doc.Results[i]
			r.Times = append(r.Times, s.Seconds)
			r.samples = append(r.samples, s)
			if opt.OnTrial != nil {
				return opt.OnTrial(configs[i], n, s)
			}
			return nil
		},
		OnRound: func(int) error {
			for i := range doc.Results {
				doc.Results[i].fromSamples()
			}
			doc.Analyze()
			if opt.OnRound != nil {
				return opt.OnRound(doc)
			}
			return nil
		},
	})
	if err != nil {
		return err
	}
	if doc.Cache != nil {
		f, h, err := opt.Resident()
		if err != nil {
			return err
		}
		doc.Cache.End, doc.Cache.HugeEnd = f, h
	}
	return nil
}

// fromSamples sets what a result keeps of its trials beyond their times:
// median phases, and the busy times and units of its median trial.
func (r *Result) fromSamples() {
	if len(r.samples) == 0 {
		return
	}
	r.Phases = nil
	for k, ph := range r.samples[0].Phases {
		var v []float64
		for _, s := range r.samples {
			if k < len(s.Phases) {
				v = append(v, s.Phases[k].Seconds)
			}
		}
		r.Phases = append(r.Phases, Phase{ph.Name, bench.Summarize(v).Median})
	}
	var imb []float64
	for _, s := range r.samples {
		imb = append(imb, bench.Imbalance(s.Busy))
	}
	r.Imbalance = bench.Summarize(imb).Median
	order := make([]int, len(r.samples))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return r.samples[order[a]].Seconds < r.samples[order[b]].Seconds })
	mid := r.samples[order[len(order)/2]]
	r.Busy, r.Units = slices.Clone(mid.Busy), slices.Clone(mid.Units)
	r.DiskTrials, r.DiskRead = nil, 0
	for i, s := range r.samples {
		if s.DiskRead > 0 {
			r.DiskTrials = append(r.DiskTrials, i+1)
			r.DiskRead += s.DiskRead
		}
	}
}

// RowCost is the work a row took in r's median trial, in seconds: every
// worker's busy time added up, over rows. Workers that do not slow each
// other keep it at one worker's figure; what it gains with more workers is
// contention (for the memory bus, shared caches, or past the core count the
// cores: busy time is wall time), which a fit of Amdahl's law counts as
// serial. NaN without busy times or rows.
func (r *Result) RowCost(rows int64) float64 {
	if rows <= 0 || len(r.Busy) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, b := range r.Busy {
		sum += b
	}
	return sum / float64(rows)
}

// Doc is a benchmark's results: what bench --json writes and report reads.
type Doc struct {
	Env            Env
	Expected       Expected
	Trials, Warmup int
	Cold           bool
	Results        []Result
	// Derived by Analyze:
	Floor  []Result // the floor rows, by worker count
	Amdahl []AmdahlResult
	// IncludeOversubscribed puts worker counts above Env.Cores into the fits.
	IncludeOversubscribed bool
	// Cache is how much of the data set the page cache held, if measured.
	Cache *PageCache
}

// PageCache is the fraction of the data set's pages that were in the page
// cache (mincore) before the first round and after the last (NaN: not
// known). Below 1 at the start, the first round read the rest from disk;
// below 1 at the end, something evicted pages during the run.
//
// HugeStart and HugeEnd are, at the same moments, the fraction of those
// pages (of the files' whole 2 MiB blocks) held in 2 MiB folios, which map
// with one page-table entry each (NaN: not known). The rest map 4 KiB at a
// time, and a scan over them is slower: see input.Folios.
type PageCache struct{ Start, End, HugeStart, HugeEnd float64 }

// Env is the machine and the data.
type Env struct {
	CPU        string
	Cores      int
	GOMAXPROCS int
	Go         string
	Kernel     string
	Data       string
	Files      int
	Rows       int64
	Bytes      int64
	Query      string
	IO         string
	// Populate: each scan's pages were faulted in before it (--populate),
	// not during it.
	Populate bool
	Started  string
	// ForkExecSelf is the measured cost of starting one worker process, if
	// known (seconds): what the processes strategy pays per worker.
	ForkExecSelf float64
	// MPIRanks, where the study ran the mpi strategy: the job's ranks
	// (mpirun -np). The mpi strategy's worker count is its threads a rank.
	MPIRanks int
}

// Expected is the sequential answer every trial must give.
type Expected struct {
	Matched int64
	Sums    []NamedValue
}

// NamedValue is a sum's column and exact decimal.
type NamedValue struct{ Name, Value string }

// Result is one configuration's trials and what follows from them. Values
// that do not apply are NaN in memory and absent in JSON.
type Result struct {
	Config
	bench.Summary
	Times         []float64
	Speedup       float64
	Efficiency    float64
	KarpFlatt     float64
	Imbalance     float64
	FloorMultiple float64
	// FloorPaired is the median of the per-round ratios of this
	// configuration's time to the floor's at its worker count (they ran in
	// the same round, seconds apart, so a machine that drifts moves both),
	// with a 95% confidence interval (see bench.MedianCI); NaN without a floor.
	FloorPaired, FloorLo, FloorHi float64
	Phases                        []Phase
	Busy                          []float64
	Units                         []int
	Outliers                      []int
	// DiskTrials are the recorded trials (from 1) that read from disk, and
	// DiskRead what they read in all, in bytes (see Sample.DiskRead).
	DiskTrials []int
	DiskRead   int64

	samples []Sample
}

// AmdahlResult is the fit for one strategy and split.
type AmdahlResult struct {
	Strategy spawn.Strategy
	Split    spawn.Split
	bench.Fit
	Excluded  []int // worker counts left out of the fit (more workers than cores)
	OnePointN int   // the reference's one-point fit: at this worker count …
	OnePointF float64
	Predicted []FitPoint
}

// FitPoint is measured against predicted time at a worker count.
type FitPoint struct {
	Workers             int
	Measured, Predicted float64
}

// oversubscribed tells whether n workers are more than the machine's cores
// (where they are known).
func (d *Doc) oversubscribed(n int) bool { return d.Env.Cores > 0 && n > d.Env.Cores }

// Analyze derives everything from the results' times: summaries, speedup
// against the baseline, efficiency, Karp–Flatt, floor multiples, and an
// Amdahl fit per strategy and split. report runs it again on a loaded file.
func (d *Doc) Analyze() {
	d.Floor = nil
	base := math.NaN()
	floors := map[int]*Result{}
	for i := range d.Results {
		r := &d.Results[i]
		if len(r.Times) == 0 {
			continue
		}
		r.Summary = bench.Summarize(r.Times)
		r.Outliers = bench.Outliers(r.Times)
		switch r.Strategy {
		case Baseline:
			base = r.Median
		case Floor:
			floors[r.Workers] = r
			d.Floor = append(d.Floor, *r)
		}
	}
	for i := range d.Results {
		r := &d.Results[i]
		r.Speedup, r.Efficiency, r.KarpFlatt, r.FloorMultiple = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		r.FloorPaired, r.FloorLo, r.FloorHi = math.NaN(), math.NaN(), math.NaN()
		if len(r.Times) == 0 || r.Strategy == Floor {
			continue
		}
		r.Speedup = base / r.Median
		r.Efficiency = r.Speedup / float64(r.Workers)
		if !d.oversubscribed(r.Workers) {
			// (past the cores a serial fraction means nothing: NaN)
			r.KarpFlatt = bench.OnePointF(r.Speedup, r.Workers)
		}
		if f, ok := floors[r.Workers]; ok {
			r.FloorMultiple = r.Median / f.Median
			if len(f.Times) == len(r.Times) { // one time a round each
				ratios := make([]float64, len(r.Times))
				for k, t := range r.Times {
					ratios[k] = t / f.Times[k]
				}
				r.FloorPaired, r.FloorLo, r.FloorHi = bench.MedianCI(ratios)
			}
		}
	}
	d.Amdahl = nil
	type key struct {
		st spawn.Strategy
		sp spawn.Split
	}
	groups := map[key][]*Result{}
	var keys []key
	for i := range d.Results {
		r := &d.Results[i]
		if r.Strategy == Baseline || r.Strategy == Floor || len(r.Times) == 0 {
			continue
		}
		k := key{r.Strategy, r.Split}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range keys {
		a := AmdahlResult{Strategy: k.st, Split: k.sp, OnePointF: math.NaN()}
		var ns []int
		var ts []float64
		for _, r := range groups[k] {
			if d.oversubscribed(r.Workers) && !d.IncludeOversubscribed {
				a.Excluded = append(a.Excluded, r.Workers)
				continue
			}
			ns, ts = append(ns, r.Workers), append(ts, r.Median)
		}
		fit, ok := bench.FitAmdahl(ns, ts)
		if !ok {
			a.Fit = bench.Fit{F: math.NaN(), R2: math.NaN(), Ceiling: math.NaN(), T1: math.NaN(), Points: len(ns)}
		} else {
			a.Fit = fit
		}
		// The reference fitted one point, at 4 workers; take the measured
		// count nearest to 4 that the cores can run at once.
		best := -1
		for i, r := range groups[k] {
			if r.Workers > 1 && !d.oversubscribed(r.Workers) && (best < 0 || abs(r.Workers-4) < abs(groups[k][best].Workers-4)) {
				best = i
			}
		}
		if best >= 0 {
			r := groups[k][best]
			a.OnePointN, a.OnePointF = r.Workers, bench.OnePointF(r.Speedup, r.Workers)
		}
		for _, r := range groups[k] {
			p := FitPoint{Workers: r.Workers, Measured: r.Median, Predicted: math.NaN()}
			if ok {
				p.Predicted = fit.Predict(r.Workers)
			}
			a.Predicted = append(a.Predicted, p)
		}
		d.Amdahl = append(d.Amdahl, a)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Find returns the result for p, or nil.
func (d *Doc) Find(p Config) *Result {
	for i := range d.Results {
		if d.Results[i].Config == p {
			return &d.Results[i]
		}
	}
	return nil
}

// Worst returns the configuration with the largest imbalance among those
// with the given split, preferring more workers on ties (the picture the
// reference's "8 workers slower than 4" needed).
func (d *Doc) Worst(split spawn.Split) *Result {
	var best *Result
	for i := range d.Results {
		r := &d.Results[i]
		if r.Split != split || r.Strategy == Floor || r.Workers < 2 || len(r.Busy) == 0 {
			continue
		}
		if best == nil || r.Imbalance > best.Imbalance+1e-9 {
			best = r
		}
	}
	return best
}
