package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"parlab/bench"
	"parlab/input"
	"parlab/spawn"
	"parlab/spawn/study"
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

func (a *app) bench(args []string) (err error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var qf queryFlags
	qf.register(fs)
	strategiesF := fs.String("strategies", "seq,goroutines,processes", "strategies to run, comma-separated, of "+spawn.StrategyHelp()+" (the floor runs unless --no-floor)")
	splitsF := fs.String("splits", "", "splits for the parallel strategies, comma-separated, of "+spawn.SplitHelp()+" (default: file-naive,file,rows,dynamic, and keys for a group-by)")
	workersF := fs.String("workers", "1,2,4,8,16,20", "worker counts: 1,2,4 or ranges such as 2-20 (mpi: ranks x threads, at the multiples of the ranks)")
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
	if len(qf.where)+len(qf.by) == 0 && !qf.namesAggregate() {
		qf.where = listFlag{"Region=Europe"} // the reference's question
	}
	if qf.timeout == 0 {
		qf.timeout = time.Minute // a hung worker must not hang the bench
	}
	qf.stdin = a.stdin
	c, err := qf.config(context.Background(), pos, a.cores())
	defer qf.close()
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
	setup := study.Setup{Base: c, Workers: workers, NoFloor: *noFloor, Trials: *trials, Warmup: *warmup,
		Cold: *cold, FitAll: *fitAll, Data: strings.Join(pos, " ")}
	if *splitsF == "" {
		*splitsF = "file-naive,file,rows,dynamic"
		if len(c.Query.By) > 0 {
			*splitsF += ",keys"
		}
	}
	for _, sp := range splitList(*splitsF) {
		split, err := spawn.ParseSplit(sp)
		if err != nil {
			return usagef("--splits: %v", err)
		}
		setup.Splits = append(setup.Splits, split)
	}
	for _, name := range splitList(*strategiesF) {
		st, err := spawn.ParseStrategy(name)
		if err != nil || st.Caps().Counts {
			var want []string
			for _, st := range spawn.Strategies() {
				if !st.Caps().Counts {
					want = append(want, st.Name())
				}
			}
			return usagef("--strategies: unknown %q (want %s; the floor runs unless --no-floor)", name, strings.Join(want, ", "))
		}
		setup.Strategies = append(setup.Strategies, st)
	}
	if slices.ContainsFunc(setup.Strategies, func(st spawn.Strategy) bool { return st.Caps().Ranks }) {
		// An MPI job (mpirun -np R parlab-mpi bench --strategies mpi,...):
		// rank 0 runs the study and reports; the other ranks take part in
		// each of its mpi runs and print nothing.
		if slices.Contains(pos, input.Stdin) {
			return usagef("--strategies mpi: standard input (-) reaches rank 0 only: name files")
		}
		rank, ranks, err := spawn.MPIRank()
		if err != nil {
			return err
		}
		if rank > 0 {
			return spawn.FollowMPI(c)
		}
		setup.MPIRanks = ranks
		if !slices.ContainsFunc(workers, func(n int) bool { return n%ranks == 0 }) {
			return usagef("--strategies mpi: no worker count is a multiple of the %d ranks (mpi runs ranks x threads workers)", ranks)
		}
		a.warnMPIBinding(slices.Max(workers) / ranks)
		defer func() {
			if stopErr := spawn.StopMPIFollowers(); err == nil {
				err = stopErr
			}
		}()
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
		setup.OnTrial = func(p study.Config, n int, s study.Sample) error {
			_, err := lw.Write(append(study.TrialJSON(p, n, s), '\n'))
			return err
		}
	}
	if *jsonOut != "" && *jsonOut != "-" {
		setup.OnRound = func(d *study.Doc) error { return d.WriteFile(*jsonOut) }
	}
	if a.tty(a.stderr) {
		setup.Progress = a.progressBar("bench", 1).withTotal()
	}
	if cs, err := setup.Configs(); err == nil {
		fmt.Fprintf(a.stderr, "parlab bench: %d configurations × (%d warmup + %d trials), interleaved\n", len(cs), *warmup, *trials)
	}
	doc, err := study.Execute(setup)
	if err != nil {
		return err
	}
	if setup.Progress != nil {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	out := io.Writer(a.stdout)
	if *jsonOut != "" {
		if out, err = a.jsonTo(*jsonOut, doc); err != nil {
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

func (a *app) report(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	compare := fs.String("compare", "", "an older results FILE: show new/old per configuration")
	plotDir := fs.String("plot", "", "write plots (PNG and SVG) into DIR")
	htmlOut := fs.String("html", "", "write one self-contained HTML page (tables, plots as SVG) to FILE")
	markdown := fs.Bool("markdown", false, "print the report as Markdown")
	csvOut := fs.Bool("csv", false, "print the main table as CSV")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("report takes one results file (parlab bench --json FILE)")
	}
	load := func(p string) (*study.Doc, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		d, err := study.ParseDoc(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return d, nil
	}
	d, err := load(pos[0])
	if err != nil {
		return err
	}
	var old *study.Doc
	if *compare != "" {
		if old, err = load(*compare); err != nil {
			return err
		}
	}
	if *markdown && *csvOut {
		return usagef("report: --markdown and --csv are two ways to print; pick one")
	}
	switch {
	case *csvOut:
		if err := d.WriteCSV(a.stdout); err != nil {
			return err
		}
	case *markdown:
		d.WriteMarkdown(a.stdout)
		if old != nil {
			study.CompareTable(d, old).WriteMarkdown(a.stdout)
		}
	case old != nil:
		study.Compare(a.stdout, d, old)
	case *htmlOut == "":
		d.WriteText(a.stdout)
	}
	if *htmlOut != "" {
		if err := writeHTML(*htmlOut, d, old); err != nil {
			return err
		}
		if !*csvOut && !*markdown {
			fmt.Fprintf(a.stdout, "report: %s\n", *htmlOut)
		}
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

// writeHTML writes the HTML report to path, through a temporary file.
func writeHTML(path string, d, old *study.Doc) error {
	var b strings.Builder
	if err := d.WriteHTML(&b, old); err != nil {
		return err
	}
	return bench.WriteFile(path, []byte(b.String()))
}

// jsonTo writes v as JSON to dest, a file (atomically) or "-" for stdout,
// and returns where text output should go: stderr when stdout has the JSON.
func (a *app) jsonTo(dest string, v any) (io.Writer, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if dest == "-" {
		a.stdout.Write(append(b, '\n'))
		return a.stderr, nil // the tables still get printed, out of the JSON's way
	}
	return a.stdout, bench.WriteFile(dest, append(b, '\n'))
}
