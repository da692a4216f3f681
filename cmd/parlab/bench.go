package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"encoding/json"
	"golang.org/x/sys/unix"

	"parlab/bench"
	"parlab/shm"
	"parlab/spawn"
	"parlab/spawn/lab"
)

// parseWorkers parses "1,2,4", "2-20" or "1,2,4-8" into sorted, distinct
// counts.
func parseWorkers(s string) ([]int, error) {
	var out []int
	for _, part := range splitList(s) {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 1 || b < a || b > maxWorkers {
			return nil, fmt.Errorf("--workers: %q is not a count or range of counts (1 to %d)", part, maxWorkers)
		}
		for n := a; n <= b; n++ {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--workers: no worker counts")
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// answer is a run's result as text, compared exactly between trials.
func answer(rep *spawn.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "matched=%d", rep.Result.Matched)
	for i, n := range rep.SumNames {
		fmt.Fprintf(&b, "; %s=%s", n, rep.Result.Sums[i])
	}
	return b.String()
}

func phase(name string, d time.Duration) bench.Phase {
	return bench.Phase{Name: name, Seconds: d.Seconds()}
}

// busy is each worker's busy time in seconds.
func busy(rep *spawn.Report) []float64 {
	var b []float64
	for _, w := range rep.PerWorker {
		b = append(b, w.Busy().Seconds())
	}
	return b
}

// sample turns a report into a bench sample.
func sample(rep *spawn.Report) bench.Sample {
	s := bench.Sample{
		Seconds: rep.Total.Seconds(),
		Phases: []bench.Phase{phase("setup", rep.Setup), phase("spawn", rep.Spawn),
			phase("scan", rep.Scan), phase("join", rep.Join), phase("merge", rep.Merge)},
		Busy:   busy(rep),
		Answer: answer(rep),
	}
	var fork time.Duration
	for _, w := range rep.PerWorker {
		s.Units = append(s.Units, w.Units)
		fork += w.Fork
	}
	if rep.Strategy == "processes" && len(rep.PerWorker) > 0 {
		s.Phases = append(s.Phases, phase("fork", fork/time.Duration(len(rep.PerWorker))))
	}
	return s
}

func (a *app) bench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var qf queryFlags
	qf.register(fs)
	strategiesF := fs.String("strategies", "seq,goroutines,processes", "strategies to run")
	splitsF := fs.String("splits", "file-naive,file,rows,dynamic", "splits for the parallel strategies")
	workersF := fs.String("workers", "1,2,4,8,16,20", "worker counts: 1,2,4 or ranges such as 2-20")
	trials := fs.Int("trials", 5, "recorded trials per configuration")
	warmup := fs.Int("warmup", 1, "unrecorded rounds first")
	jsonOut := fs.String("json", "", "write the results as JSON to FILE (rewritten after each round), or - for stdout")
	logOut := fs.String("log", "", "append one JSON line per trial to FILE")
	plotDir := fs.String("plot", "", "write plots (PNG and SVG) into DIR")
	cold := fs.Bool("cold", false, "evict the data set's pages before every trial (posix_fadvise DONTNEED on each file)")
	fitAll := fs.Bool("fit-all", false, "include worker counts above the core count in the Amdahl fits")
	noFloor := fs.Bool("no-floor", false, "do not measure the floor (newline count) rows")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		pos = []string{"data/sales-1M"}
	}
	if qf.where == "" {
		qf.where = "Region=Europe"
	}
	if qf.timeout == 0 {
		qf.timeout = time.Minute // a hung worker must not hang the bench
	}
	c, err := qf.config(pos)
	if err != nil {
		return err
	}
	workers, err := parseWorkers(*workersF)
	if err != nil {
		return usagef("%v", err)
	}
	if *trials < 1 || *warmup < 0 {
		return usagef("--trials must be at least 1 and --warmup at least 0")
	}
	var configs []bench.Params
	var splits []spawn.Split
	for _, s := range splitList(*splitsF) {
		sp, err := spawn.ParseSplit(s)
		if err != nil {
			return usagef("%v", err)
		}
		splits = append(splits, sp)
	}
	for _, st := range splitList(*strategiesF) {
		switch st {
		case "seq":
			configs = append(configs, bench.Params{Strategy: "seq", Workers: 1})
		case "goroutines", "processes":
			for _, sp := range splits {
				for _, n := range workers {
					configs = append(configs, bench.Params{Strategy: st, Split: sp.String(), Workers: n})
				}
			}
		default:
			return usagef("--strategies: unknown %q (want seq, goroutines, processes)", st)
		}
	}
	if !*noFloor {
		for _, n := range workers {
			configs = append(configs, bench.Params{Strategy: bench.Floor, Split: "rows", Workers: n})
		}
	}

	// The expected answer, and what the data set is, from one sequential run.
	ref, err := spawn.Sequential{}.Run(context.Background(), c)
	if err != nil {
		return err
	}
	doc := &bench.Doc{Env: environment(c, ref), Cold: *cold, IncludeOversubscribed: *fitAll}
	doc.Env.Query = ref.Filter + "=" + c.Query.Equals
	if ref.Filter == "" {
		doc.Env.Query = "all rows"
	}
	doc.Env.Data = strings.Join(pos, " ")
	doc.Expected.Matched = ref.Result.Matched
	for i, n := range ref.SumNames {
		doc.Expected.Sums = append(doc.Expected.Sums, bench.NamedValue{Name: n, Value: ref.Result.Sums[i].String()})
	}

	if strings.Contains(*strategiesF, "processes") {
		// What one worker process costs to start and end, measured the spawn
		// lab's way (forkexec-self, batch), so the report can explain the
		// processes strategy's spawn phase.
		var per []float64
		for range 3 {
			r, err := lab.Lab(lab.MethodForkExecSelf, lab.ModeBatch, 16, "")
			if err != nil {
				return err
			}
			per = append(per, r.Total.Seconds()/16)
		}
		doc.Env.ForkExecSelf = bench.Summarize(per).Median
	}

	trial := func(p bench.Params) (bench.Sample, error) {
		cc := c
		cc.Workers = p.Workers
		if p.Split != "" {
			var err error
			if cc.Split, err = spawn.ParseSplit(p.Split); err != nil {
				return bench.Sample{}, err
			}
		}
		st, err := spawn.ParseStrategy(p.Strategy)
		if err != nil {
			return bench.Sample{}, err
		}
		before := diskRead()
		rep, err := st.Run(context.Background(), cc)
		if err != nil {
			return bench.Sample{}, err
		}
		s := sample(rep)
		s.DiskRead = diskRead() - before
		return s, nil
	}
	opt := bench.Options{Trials: *trials, Warmup: *warmup}
	if !*cold {
		opt.Resident = func() (float64, float64, error) { return resident(c.Paths) }
	} else {
		opt.Before = func() error {
			for _, p := range c.Paths {
				if err := shm.Evict(p); err != nil {
					return fmt.Errorf("--cold: %s: %w", p, err)
				}
			}
			return nil
		}
	}
	if *logOut != "" {
		if err := os.MkdirAll(filepath.Dir(*logOut), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(*logOut, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		lw := bufio.NewWriter(f)
		defer lw.Flush()
		opt.OnTrial = func(p bench.Params, n int, s bench.Sample) error {
			_, err := lw.Write(append(trialJSON(p, n, s), '\n'))
			return err
		}
	}
	if *jsonOut != "" && *jsonOut != "-" {
		opt.OnRound = func(d *bench.Doc) error { return writeDoc(*jsonOut, d) }
	}
	if a.tty(a.stderr) {
		opt.Progress = a.progressBar("bench", 1).withTotal()
	}
	fmt.Fprintf(a.stderr, "parlab bench: %d configurations × (%d warmup + %d trials), interleaved\n", len(configs), *warmup, *trials)
	if err := bench.Run(doc, configs, trial, answer(ref), opt); err != nil {
		return err
	}
	if opt.Progress != nil {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	out := a.stdout
	if *jsonOut == "-" {
		b, _ := doc.MarshalJSON()
		a.stdout.Write(append(b, '\n'))
		out = a.stderr // the tables still get printed, out of the JSON's way
	} else if *jsonOut != "" {
		if err := writeDoc(*jsonOut, doc); err != nil {
			return err
		}
	}
	doc.WriteText(out)
	if *plotDir != "" {
		files, err := doc.Plot(*plotDir, nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "\nplots: %s\n", strings.Join(files, " "))
	}
	if *jsonOut != "" && *jsonOut != "-" {
		fmt.Fprintf(out, "results: %s\n", *jsonOut)
	}
	return nil
}

func environment(c spawn.Config, ref *spawn.Report) bench.Env {
	e := bench.Env{
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

// writeDoc writes the document atomically: a crash mid-write leaves the
// previous round's file, never half of one.
func writeDoc(path string, d *bench.Doc) error {
	b, err := d.MarshalJSON()
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// trialJSON is one line of the --log file (encoding/json, so any bytes in
// the answer still make valid JSON).
func trialJSON(p bench.Params, n int, s bench.Sample) []byte {
	ph := &ordered[float64]{}
	for _, x := range s.Phases {
		ph.add(x.Name, x.Seconds)
	}
	b, err := json.Marshal(struct {
		Parameters struct {
			Strategy string `json:"strategy"`
			Split    string `json:"split"`
			Workers  int    `json:"workers"`
		} `json:"parameters"`
		Trial    int               `json:"trial"`
		Time     float64           `json:"time"`
		Phases   *ordered[float64] `json:"phases"`
		Answer   string            `json:"answer"`
		DiskRead int64             `json:"disk_read"`
	}{Parameters: struct {
		Strategy string `json:"strategy"`
		Split    string `json:"split"`
		Workers  int    `json:"workers"`
	}{p.Strategy, p.Split, p.Workers}, Trial: n, Time: s.Seconds, Phases: ph, Answer: s.Answer, DiskRead: s.DiskRead})
	if err != nil {
		panic(err) // plain values only: cannot fail
	}
	return b
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
	var in, all int
	var huge, cached int64
	known := true
	for _, p := range paths {
		r, n, err := shm.Resident(p)
		if err != nil {
			return 0, 0, fmt.Errorf("page cache: %w", err)
		}
		in, all = in+r, all+n
		h, c, err := shm.Folios(p)
		if errors.Is(err, shm.ErrNoFolioInfo) {
			known = false
		} else if err != nil {
			return 0, 0, fmt.Errorf("page cache: %w", err)
		}
		huge, cached = huge+h, cached+c
	}
	f, hf := 1.0, math.NaN()
	if all > 0 {
		f = float64(in) / float64(all)
	}
	if known && cached > 0 {
		hf = float64(huge) / float64(cached)
	}
	return f, hf, nil
}

func (a *app) report(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	compare := fs.String("compare", "", "an older results FILE: show new/old per configuration")
	plotDir := fs.String("plot", "", "write plots (PNG and SVG) into DIR")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("report takes one results file (parlab bench --json FILE)")
	}
	load := func(p string) (*bench.Doc, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		d, err := bench.ParseDoc(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return d, nil
	}
	d, err := load(pos[0])
	if err != nil {
		return err
	}
	if *compare != "" {
		old, err := load(*compare)
		if err != nil {
			return err
		}
		bench.Compare(a.stdout, d, old)
	} else {
		d.WriteText(a.stdout)
	}
	if *plotDir != "" {
		files, err := d.Plot(*plotDir, nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "\nplots: %s\n", strings.Join(files, " "))
	}
	return nil
}
