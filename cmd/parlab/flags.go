package main

import (
	"flag"
	"io"
	"parlab/input"
	"parlab/input/stage"
	"parlab/scan"
	"parlab/spawn"
	"strings"
	"time"
)

// queryFlags are the flags every command that runs a query shares.
type queryFlags struct {
	// each list flag may be given more than once: its values add up
	// (--sum a --sum b is --sum a,b)
	where, any, by, sort listFlag
	sel                  listFlag             // --select: query's alone
	aggs                 map[string]*listFlag // by scan.AggFuncs' Func
	out                  scan.OutFormat
	types, dateFormats   listFlag
	limit                int
	io                   input.Mode
	populate             bool
	strategy             spawn.StrategyFlag // nil: goroutines
	split                spawn.Split
	workers              int
	timeout              time.Duration
	delimiter            string
	decimalComma         bool
	dialect              dialectFlags
	maxMemory            byteSize
	maxRatio             int64
	noHeader             bool
	skipBad              bool
	stdin                io.Reader     // for the PATH "-": nil where a command reads its own
	inputs               *stage.Inputs // staged by config; close after the run
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
	q.aggs = map[string]*listFlag{}
	for _, f := range scan.AggFuncs {
		q.aggs[f.Func] = new(listFlag)
		fs.Var(q.aggs[f.Func], f.Flag, f.Help)
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

// namesAggregate reports whether an aggregate flag was given.
func (q *queryFlags) namesAggregate() bool {
	for _, l := range q.aggs {
		if len(*l) > 0 {
			return true
		}
	}
	return false
}
