package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"runtime"
	"slices"

	"parlab/input"
	"parlab/input/stage"
	"parlab/render"
	"parlab/scan"
	"parlab/spawn"
)

// query turns the query flags into a checked scan.Query (scan.Compile);
// every fault is a usage error that names the flag and the bad part.
func (q *queryFlags) query() (scan.Query, error) {
	t := scan.Text{Where: q.where, Any: q.any, By: q.by,
		Aggs: map[string][]string{}, Sort: q.sort, Select: q.sel, Types: q.types, DateFormat: q.dateFormats,
		Limit: q.limit, Out: q.out, DecimalComma: q.decimalComma, NoHeader: q.noHeader, SkipBad: q.skipBad,
		MaxHeld: cmp.Or(int64(q.maxMemory), stage.DefaultMaxMemory())}
	for f, l := range q.aggs {
		t.Aggs[f] = *l
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
