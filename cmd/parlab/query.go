package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"parlab/input"
	"parlab/input/stage"
	"parlab/render"
	"parlab/scan"
	"parlab/spawn"
)

// queryFlags are the flags every command that runs a query shares.
type queryFlags struct {
	// each list flag may be given more than once: its values add up
	// (--sum a --sum b is --sum a,b)
	where, any, by, sum, min, max, avg, sort listFlag
	sel                                      listFlag             // --select: query's alone
	holistic                                 map[string]*listFlag // by scan.HolisticFuncs' Func
	out                                      scan.OutFormat
	types, dateFormats                       listFlag
	limit                                    int
	io                                       input.Mode
	populate                                 bool
	strategy                                 spawn.StrategyFlag // nil: goroutines
	split                                    spawn.Split
	workers                                  int
	timeout                                  time.Duration
	delimiter                                string
	decimalComma                             bool
	dialect                                  dialectFlags
	maxMemory                                byteSize
	maxRatio                                 int64
	noHeader                                 bool
	skipBad                                  bool
	stdin                                    io.Reader     // for the PATH "-": nil where a command reads its own
	inputs                                   *stage.Inputs // staged by config; close after the run
	// stream: a lone stream or compressed input is scanned while it is
	// read, where the strategy can (spawn.Streams), not staged first. For
	// a command that runs the query once (query; bench and menu run it
	// again and again).
	stream bool
}

// close releases what config staged (memory files of stdin, compressed or
// transcoded inputs).
func (q *queryFlags) close() {
	if q.inputs != nil {
		q.inputs.Close()
		q.inputs = nil
	}
}

// listFlag is a flag that may be given more than once.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func (q *queryFlags) register(fs *flag.FlagSet) {
	fs.Var(&q.where, "where", "a filter COLUMN OP VALUE, OP one of = != < <= > >= ~ (contains) ~* (contains, any case) ^= (starts with), or COLUMN in (V1,V2,…) / not in (…); give it again for more (all must hold); it compares as the column's kind (number, date or text, decided from a sample: --verbose, --types); a quoted value is text; an empty cell is missing (docs/query.md); none: every row")
	fs.Var(&q.any, "any", "a filter as --where takes, given twice or more: a row must pass at least one of them (an OR), and every --where too")
	fs.Var(&q.by, "by", "group by these columns, comma-separated (or the flag given again): one row per distinct key")
	fs.Var(&q.sum, "sum", "columns to sum, comma-separated (or the flag given again); with no aggregate named, a plain count (and \"Total Revenue,Total Profit\" where the files have both)")
	fs.Var(&q.min, "min", "columns whose exact minimum to report, comma-separated (or the flag given again)")
	fs.Var(&q.max, "max", "columns whose exact maximum to report, comma-separated (or the flag given again)")
	fs.Var(&q.avg, "avg", "columns whose average (exact sum / count, rounded half to even) to report, comma-separated (or the flag given again)")
	q.holistic = map[string]*listFlag{}
	for _, f := range scan.HolisticFuncs {
		q.holistic[f.Func] = new(listFlag)
		fs.Var(q.holistic[f.Func], f.Flag, f.Help)
	}
	fs.Var(&q.sort, "sort", "with --select: order the rows by these selected columns (each as its kind, COL:desc for descending); with --by: order the groups by these output columns, comma-separated (or the flag given again), each COLUMN or COLUMN:desc (a group-by column, count, a summed column, min(COL), max(COL), avg(COL)); default: by the group-by columns")
	fs.Var(&q.dateFormats, "date-format", "the form of the files' dates, strftime's (%Y-%m-%d, %d/%m/%Y %H:%M, %b %d %Y …; give it again for more; DuckDB's dateformat): read before parlab's own forms, of which only the year-first and month-name ones stay (docs/query.md)")
	fs.IntVar(&q.limit, "limit", 0, "with --by: print only the first N groups; with --select: the first N rows, and read no further than they need; 0: all")
	fs.Var(&q.types, "types", "column kinds, COL=KIND comma-separated (or the flag given again), KIND number, date or text: overrides the kind parlab decides from a sample of rows (a column is a number or date column if every sampled value is one, else text; see --verbose)")
	fs.StringVar(&q.delimiter, "delimiter", "", "the field delimiter: , ; | or tab (default: tab for .tsv and .tab files, else the first line's: , if it has one outside quotes, else the tab, ; or | it has most)")
	fs.BoolVar(&q.decimalComma, "decimal-comma", false, "numbers are written with a decimal comma (1,5 is 1.5; quoted in a comma-separated file), as in much of Europe's spreadsheets, in the files and in --where values alike; 1.234,5 stays no number")
	q.dialect.register(fs)
	fs.BoolVar(&q.skipBad, "skip-bad-rows", false, "leave out a row that cannot be read (too short, a value that does not fit its column, a quote out of place) and count it, instead of stopping with an error (DuckDB's ignore_errors); every row is then read the careful way, slower")
	fs.BoolVar(&q.noHeader, "no-header", false, "the files have no header row: columns are named by position, 1 to N")
	fs.TextVar(&q.io, "io", input.Mmap, "how bytes arrive: "+input.ModeHelp())
	fs.BoolVar(&q.populate, "populate", false, "with --io mmap: fault pages in before scanning them, so the setup phase (seq: MADV_POPULATE_READ at open) or each worker (its own units) pays for them apart from the scan; off, they fault in during the scan, which is as fast for seq and faster for 2 workers")
	fs.Var(&q.maxMemory, "max-memory", "the most that inputs held whole in memory may take, all together (a stream, compressed or transcoded input staged for processes, mpi, the file and keys splits), and apart from them what a query holds until it ends (distinct values, a median's values, rows --select cannot write as it goes), e.g. 8GiB; default: half of this machine's memory")
	fs.Int64Var(&q.maxRatio, "max-ratio", stage.DefaultMaxRatio, "fail a compressed input that grows more than this many times its size (a decompression bomb), judged past 64 MiB out; -1: no bound")
	fs.DurationVar(&q.timeout, "timeout", 0, "fail the query if it has not finished after this long, setup included, in every strategy (workers are stopped, children killed), e.g. 3s; 0: never")
	q.strategy, q.workers, q.split = spawn.StrategyFlag{}, 0, spawn.SplitAuto
}

// registerStrategy adds the flags that pick one strategy (query and menu;
// bench sweeps them instead).
func (q *queryFlags) registerStrategy(fs *flag.FlagSet) {
	fs.TextVar(&q.strategy, "strategy", spawn.StrategyFlag{}, "one of "+spawn.StrategyHelp()+"; default: goroutines with one worker per core, the fastest")
	fs.IntVar(&q.workers, "workers", 0, "workers for goroutines and processes, threads a rank for mpi; 0: one per core (mpi: 1)")
	fs.TextVar(&q.split, "split", spawn.SplitAuto, "how work is cut: "+spawn.SplitHelp())
}

// query turns the query flags into a checked scan.Query (scan.Compile);
// every fault is a usage error that names the flag and the bad part.
func (q *queryFlags) query() (scan.Query, error) {
	t := scan.Text{Where: q.where, Any: q.any, By: q.by, Sum: q.sum, Min: q.min, Max: q.max, Avg: q.avg,
		Holistic: map[string][]string{}, Sort: q.sort, Select: q.sel, Types: q.types, DateFormat: q.dateFormats,
		Limit: q.limit, Out: q.out, DecimalComma: q.decimalComma, NoHeader: q.noHeader, SkipBad: q.skipBad,
		MaxHeld: cmp.Or(int64(q.maxMemory), stage.DefaultMaxMemory())}
	for f, l := range q.holistic {
		t.Holistic[f] = *l
	}
	sq, err := scan.Compile(t)
	if err != nil {
		return sq, usagef("%v", err)
	}
	return sq, nil
}

// config turns the flags and PATHs into a run's configuration. cores is
// the machine's core count, the default worker count.
func (q *queryFlags) config(ctx context.Context, paths []string, cores int) (spawn.Config, error) {
	var c spawn.Config
	if len(paths) == 0 {
		return c, usagef("no PATH given: name CSV files or directories")
	}
	var err error
	if c.Query, err = q.query(); err != nil {
		return c, err
	}
	c.Mode, c.Opt = q.io, input.Options{Populate: q.populate}
	if q.strategy.Strategy == nil {
		q.strategy.Strategy = spawn.Goroutines{} // the fastest (docs/performance.md)
	}
	c.Split = q.split
	if c.Split == spawn.SplitKeys && len(c.Query.By) == 0 {
		return c, usagef("--split keys needs a group-by (--by): it splits the work by the groups' keys")
	}
	if q.workers < 0 || q.workers > maxWorkers {
		return c, usagef("--workers must be 0 (one per core) to %d, got %d", maxWorkers, q.workers)
	}
	if q.timeout < 0 {
		return c, usagef("--timeout must not be negative")
	}
	c.Workers, c.Timeout = q.workers, q.timeout
	caps := spawn.CapsOf(q.strategy.Strategy)
	mpi := caps.Ranks
	if c.Workers == 0 {
		c.Workers = cores
		if mpi {
			c.Workers = 1 // a rank: mpirun starts as many as asked
		}
	}
	if caps.OneWorker {
		c.Workers = 1
	}
	sep, err := input.ParseDelimiter(q.delimiter)
	if err != nil {
		return c, usagef("--delimiter: %v", err)
	}
	if i := slices.Index(paths, input.Stdin); i >= 0 && slices.Contains(paths[i+1:], input.Stdin) {
		return c, usagef("standard input (-) is named twice: it can be read once")
	}
	expand := input.ExpandPaths
	if mpi {
		for _, p := range paths {
			if p == input.Stdin {
				return c, usagef("--strategy mpi: standard input (-) reaches rank 0 only: name files")
			}
		}
		if c.Split == spawn.SplitFile || c.Split == spawn.SplitFileNaive {
			expand = input.ExpandPathsElsewhere // a rank opens only its own files
		}
	}
	if c.Paths, err = expand(paths); err != nil {
		return c, err
	}
	q.close() // the menu asks again and again
	how := stage.Stage
	if q.stream && spawn.Streams(q.strategy.Strategy, c.Split) {
		how = stage.Stream
	}
	if q.maxRatio == 0 || q.maxRatio < -1 {
		return c, usagef("--max-ratio must be -1 (no bound) or at least 1, got %d", q.maxRatio)
	}
	d := stage.Dialect{Sep: sep, DecimalComma: q.decimalComma, MaxMemory: int64(q.maxMemory), MaxRatio: q.maxRatio, Columns: c.Query.Names()}
	if err := q.dialect.apply(&d); err != nil {
		return c, err
	}
	if q.inputs, err = how(ctx, c.Paths, d, q.stdin); err != nil {
		return c, err
	}
	if q.inputs.Rest != nil && !q.stream { // (query reports it after its run: errors in PATH order)
		return c, q.inputs.Rest
	}
	c.Paths, c.Names, c.Seps, c.HeadAdded, c.Stream, c.Opens = q.inputs.Paths, q.inputs.Names, q.inputs.Seps, q.inputs.HeadAdded, q.inputs.Stream, q.inputs.Opens
	return c, nil
}

// maxWorkers bounds --workers: far past any core count here, and below
// the point where a process per worker would strain the system.
const maxWorkers = 1024

func (a *app) query(args []string) error {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	var qf queryFlags
	qf.register(fs)
	qf.registerStrategy(fs)
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	asCSV := fs.Bool("csv", false, "print the answer as CSV (a header, then one row per group, or one row) instead of text")
	format := fs.String("format", "", "text (the default), csv or json: the output, as --csv and --json say; with --select also tsv (and csv is its default)")
	fs.Var(&qf.sel, "select", "print the matching rows, these columns (comma-separated, or the flag given again; * for every column) in file order, as CSV (--format tsv, json for JSON lines, text for an aligned table), instead of figures")
	verbose := fs.Bool("verbose", false, "print what each worker did")
	rejects := fs.String("rejects", "", "write the bad rows to this CSV file (file, line, column, field, reason, row), as DuckDB's store_rejects; implies --skip-bad-rows")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	qf.skipBad = qf.skipBad || *rejects != ""
	text := false
	if len(qf.sel) > 0 {
		if qf.out, text, err = rowsFormat(*format, *asJSON, *asCSV); err != nil {
			return err
		}
		*format, *asJSON, *asCSV = "", false, false
	}
	switch *format {
	case "", "text":
	case "csv":
		*asCSV = true
	case "json":
		*asJSON = true
	default:
		return usagef("--format %q: want text, csv or json", *format)
	}
	if *asJSON && *asCSV || *format == "text" && (*asJSON || *asCSV) {
		return usagef("--json, --csv and --format ask for one output each: give one")
	}
	if (*asCSV || len(qf.sel) > 0) && spawn.CapsOf(qf.strategy.Strategy).Counts {
		return usagef("--csv and --select: the floor counts lines and answers no query (--json shows its count)")
	}
	qf.stdin, qf.stream = a.stdin, true
	// --timeout bounds the whole run from here: opening, sniffing and
	// staging the inputs too (a FIFO without a writer, a silent pipe).
	ctx, cancel := spawn.WithTimeout(context.Background(), qf.timeout)
	defer cancel()
	c, err := qf.config(ctx, pos, a.cores())
	defer qf.close()
	if err != nil {
		return err
	}
	var rows *rowsOut
	if len(qf.sel) > 0 {
		rows = &rowsOut{w: a.stdout, out: qf.out}
		if !text { // (the aligned table is made whole)
			c.Rows = rows.sink
		}
	}
	if spawn.CapsOf(qf.strategy.Strategy).Ranks {
		if rank, _, err := spawn.MPIRank(); err == nil && rank == 0 {
			a.warnMPIBinding(c.Workers)
		}
	}
	rep, err := qf.strategy.Run(ctx, c)
	if err == nil && qf.inputs.Rest != nil { // a later PATH's error: none came before it
		err = qf.inputs.Rest
	}
	if err != nil {
		return err
	}
	if rep.Rank > 0 {
		return nil // an MPI rank that sent its part: rank 0 prints the answer
	}
	if *rejects != "" {
		if err := render.Rejects(*rejects, &rep.Result); err != nil {
			return err
		}
	}
	if a.fixTimes != nil {
		a.fixTimes(rep)
	}
	if rows != nil {
		return a.rows(rep, rows, text, *verbose, c.Mode)
	}
	switch {
	case *asJSON:
		return render.JSON(a.stdout, rep, c)
	case *asCSV:
		return render.CSV(a.stdout, rep)
	}
	render.Text(a.stdout, rep, c.Mode)
	if *verbose {
		render.Kinds(a.stdout, rep)
		render.Workers(a.stdout, rep)
	}
	return nil
}

// warnMPIBinding warns when an MPI rank's threads outnumber the cores it
// may use: mpirun binds each rank to one core by default (two ranks or
// fewer), and the threads then share it.
func (a *app) warnMPIBinding(threads int) {
	if n := runtime.NumCPU(); threads > n {
		fmt.Fprintf(a.stderr, "parlab: warning: each rank may use %s (mpirun binds a rank to a core by default) for %d threads: run mpirun --bind-to none, or --map-by slot:PE=%d\n", render.Plural(int64(n), "core"), threads, threads)
	}
}
