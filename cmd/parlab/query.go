package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"parlab/bench"
	"parlab/scan"
	"parlab/shm"
	"parlab/spawn"
)

// queryFlags are the flags every command that runs a query shares.
type queryFlags struct {
	where, sum, io  string
	populate        bool
	strategy, split string
	workers         int
	timeout         time.Duration
}

func (q *queryFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&q.where, "where", "", "filter COLUMN=VALUE (exact, byte for byte); none: every row")
	fs.StringVar(&q.sum, "sum", "", "columns to sum, comma-separated (default \"Total Revenue,Total Profit\")")
	fs.StringVar(&q.io, "io", "mmap", "how bytes arrive: mmap (zero-copy), readat (x/exp/mmap, copies), read (read(2))")
	fs.BoolVar(&q.populate, "populate", false, "with --io mmap: fault pages in before scanning them, so the setup phase (seq: MADV_POPULATE_READ at open) or each worker (its own units) pays for them apart from the scan; off, they fault in during the scan, which is as fast for seq and faster for 2 workers")
	fs.DurationVar(&q.timeout, "timeout", 0, "fail the query if it has not finished after this long, setup included, in every strategy (workers are stopped, children killed), e.g. 3s; 0: never")
	q.strategy, q.workers, q.split = "seq", 2, "rows"
}

// registerStrategy adds the flags that pick one strategy (query and menu;
// bench sweeps them instead).
func (q *queryFlags) registerStrategy(fs *flag.FlagSet) {
	fs.StringVar(&q.strategy, "strategy", "seq", "seq, goroutines or processes (or floor: only count newlines, the machine's limit)")
	fs.IntVar(&q.workers, "workers", 2, "workers for goroutines and processes")
	fs.StringVar(&q.split, "split", "rows", "how work is cut: file-naive, file, rows or dynamic")
}

// config turns the flags and PATHs into a run's configuration.
func (q *queryFlags) config(paths []string) (spawn.Config, error) {
	var c spawn.Config
	if len(paths) == 0 {
		return c, usagef("no PATH given: name CSV files or directories")
	}
	if q.where != "" {
		col, val, err := scan.ParseWhere(q.where)
		if err != nil {
			return c, usagef("%v", err)
		}
		c.Query.Where, c.Query.Equals = col, val
	}
	if q.sum != "" {
		if c.Query.Sum = splitList(q.sum); len(c.Query.Sum) == 0 {
			return c, usagef("--sum %q names no column", q.sum)
		}
	}
	if err := c.Query.Validate(); err != nil {
		return c, usagef("%v", err)
	}
	mode, err := shm.ParseMode(q.io)
	if err != nil {
		return c, usagef("--io: %v", err)
	}
	c.Mode, c.Opt = mode, shm.Options{Populate: q.populate}
	if _, err := spawn.ParseStrategy(q.strategy); err != nil {
		return c, usagef("--strategy: %v", err)
	}
	if c.Split, err = spawn.ParseSplit(q.split); err != nil {
		return c, usagef("--split: %v", err)
	}
	if q.workers < 1 || q.workers > maxWorkers {
		return c, usagef("--workers must be 1 to %d, got %d", maxWorkers, q.workers)
	}
	if q.timeout < 0 {
		return c, usagef("--timeout must not be negative")
	}
	c.Workers, c.Timeout = q.workers, q.timeout
	if q.strategy == spawn.NameSeq {
		c.Workers = 1
	}
	if c.Paths, err = spawn.ExpandPaths(paths); err != nil {
		return c, err
	}
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
	verbose := fs.Bool("verbose", false, "print what each worker did")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	c, err := qf.config(pos)
	if err != nil {
		return err
	}
	st, _ := spawn.ParseStrategy(qf.strategy) // config checked the name
	rep, err := st.Run(context.Background(), c)
	if err != nil {
		return err
	}
	if a.fixTimes != nil {
		a.fixTimes(rep)
	}
	if *asJSON {
		a.stdout.Write(reportJSON(rep, c))
		a.stdout.Write([]byte{'\n'})
		return nil
	}
	a.printReport(rep, c)
	if *verbose {
		a.printWorkers(rep)
	}
	return nil
}

// printWorkers is the per-worker table: where each worker's time went, and
// the load imbalance (the run lasts as long as its busiest worker).
func (a *app) printWorkers(rep *spawn.Report) {
	w := a.stdout
	fmt.Fprintf(w, "  %-6s %9s %9s %9s %6s %10s %12s", "worker", "start s", "end s", "busy s", "units", "MB", "rows")
	if rep.Strategy == "processes" {
		fmt.Fprintf(w, " %9s", "fork ms")
	}
	fmt.Fprintln(w)
	for i, s := range rep.PerWorker {
		fmt.Fprintf(w, "  %-6d %9.4f %9.4f %9.4f %6d %10.1f %12s", i, s.Start.Seconds(), s.End.Seconds(),
			s.Busy().Seconds(), s.Units, float64(s.Bytes)/1e6, group(s.Rows))
		if rep.Strategy == "processes" {
			fmt.Fprintf(w, " %9.3f", float64(s.Fork.Microseconds())/1e3)
		}
		if s.Units == 0 {
			fmt.Fprint(w, "  idle: no work for this worker")
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  phases: setup %.4f s, spawn %.4f s, scan %.4f s, join %.4f s, merge %.4f s\n",
		rep.Setup.Seconds(), rep.Spawn.Seconds(), rep.Scan.Seconds(), rep.Join.Seconds(), rep.Merge.Seconds())
	fmt.Fprintf(w, "  imbalance (busiest / mean busy): %.2f\n", bench.Imbalance(busy(rep)))
	if len(rep.Rescanned) > 0 {
		fmt.Fprintf(w, "  rescanned whole (a row cut fell in a quoted field): %d files\n", len(rep.Rescanned))
	}
}

func (a *app) printReport(rep *spawn.Report, c spawn.Config) {
	w := a.stdout
	filter := "all rows"
	if rep.Filter != "" {
		filter = rep.Filter + " = " + c.Query.Equals
	}
	if rep.Strategy == "floor" {
		fmt.Fprintf(w, "floor (newline count only, %d workers, %s split): %s lines, %s in %.4f s (scan %.4f s)\n",
			rep.Workers, rep.Split, group(rep.Result.Rows), humanBytes(rep.Bytes), rep.Total.Seconds(), rep.Scan.Seconds())
		return
	}
	how := rep.Strategy
	if rep.Strategy != "seq" {
		how = fmt.Sprintf("%s, %d workers, %s split", rep.Strategy, rep.Workers, rep.Split)
	}
	fmt.Fprintf(w, "%s: %s, %s, %s (%s, %s)\n", filter, plural(int64(rep.Files), "file"),
		plural(rep.Result.Rows, "row"), humanBytes(rep.Bytes), how, c.Mode)
	lines := rep.Answer().Lines()
	width := 0
	for _, l := range lines {
		width = max(width, len(l.Label))
	}
	for _, l := range lines {
		fmt.Fprintf(w, "  %-*s  %s\n", width, l.Label, l.Value)
	}
	if rep.Strategy == "seq" {
		fmt.Fprintf(w, "  %-*s  %.4f s (open+map %.4f s, scan %.4f s)\n", width, "Time",
			rep.Total.Seconds(), rep.Setup.Seconds(), rep.Scan.Seconds())
		return
	}
	fmt.Fprintf(w, "  %-*s  %.4f s (setup %.4f s, spawn %.4f s, scan %.4f s, join+merge %.4f s)\n", width, "Time",
		rep.Total.Seconds(), rep.Setup.Seconds(), rep.Spawn.Seconds(), rep.Scan.Seconds(), (rep.Join + rep.Merge).Seconds())
}

// The query's JSON object (encoding/json, so it is valid JSON whatever the
// bytes): times in seconds, counts as numbers, sums as exact decimals in
// strings so no digit is lost to a float. A string that is not valid UTF-8
// is written with each invalid byte as U+FFFD; where the exact bytes matter
// (the filter's column and value, file paths) a field named with the suffix
// "_hex" beside it holds them in hex.
type queryJSON struct {
	Strategy   string                 `json:"strategy"`
	Split      string                 `json:"split"`
	Workers    int                    `json:"workers"`
	IO         string                 `json:"io"`
	Where      *whereJSON             `json:"where"`
	Matched    *int64                 `json:"matched,omitempty"` // left out for the floor, which answers no query
	Sums       *bench.Ordered[string] `json:"sums,omitempty"`
	Lines      *int64                 `json:"lines,omitempty"` // the floor's newline count
	Data       dataJSON               `json:"data"`
	Time       timesJSON              `json:"time"`
	PerWorker  []workerJSON           `json:"per_worker"`
	Imbalance  json.Number            `json:"imbalance"`
	QuotedRows *int64                 `json:"quoted_rows,omitempty"`
	Rescanned  []pathJSON             `json:"rescanned"`
}

type whereJSON struct {
	Column    string `json:"column"`
	ColumnHex string `json:"column_hex,omitempty"`
	Value     string `json:"value"`
	ValueHex  string `json:"value_hex,omitempty"`
}

type dataJSON struct {
	Files int   `json:"files"`
	Rows  int64 `json:"rows"`
	Bytes int64 `json:"bytes"`
}

type timesJSON struct {
	Setup, Spawn, Scan, Join, Merge, Total float64
}

// MarshalJSON keeps the phases in their order, lower-case.
func (t timesJSON) MarshalJSON() ([]byte, error) {
	return json.Marshal(&struct {
		Setup float64 `json:"setup"`
		Spawn float64 `json:"spawn"`
		Scan  float64 `json:"scan"`
		Join  float64 `json:"join"`
		Merge float64 `json:"merge"`
		Total float64 `json:"total"`
	}{t.Setup, t.Spawn, t.Scan, t.Join, t.Merge, t.Total})
}

type workerJSON struct {
	Worker int      `json:"worker"`
	Start  float64  `json:"start"`
	End    float64  `json:"end"`
	Busy   float64  `json:"busy"`
	Units  int      `json:"units"`
	Bytes  int64    `json:"bytes"`
	Rows   int64    `json:"rows"`
	Fork   *float64 `json:"fork,omitempty"`    // processes
	MaxRSS *int64   `json:"max_rss,omitempty"` // processes: peak resident bytes
}

// pathJSON is a path: a string, or, if it is not UTF-8, an object with the
// string and its bytes in hex.
type pathJSON string

func (p pathJSON) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(p)) {
		return json.Marshal(string(p))
	}
	return json.Marshal(struct {
		Path string `json:"path"`
		Hex  string `json:"path_hex"`
	}{string(p), hex.EncodeToString([]byte(p))})
}

// hexIfNotUTF8 is s in hex if s is not valid UTF-8, else "".
func hexIfNotUTF8(s string) string {
	if utf8.ValidString(s) {
		return ""
	}
	return hex.EncodeToString([]byte(s))
}

// reportJSON renders a report as one JSON object (see queryJSON).
func reportJSON(rep *spawn.Report, c spawn.Config) []byte {
	j := queryJSON{Strategy: rep.Strategy, Split: rep.Split, Workers: rep.Workers, IO: c.Mode.String(),
		Data: dataJSON{rep.Files, rep.Result.Rows, rep.Bytes},
		Time: timesJSON{rep.Setup.Seconds(), rep.Spawn.Seconds(), rep.Scan.Seconds(), rep.Join.Seconds(),
			rep.Merge.Seconds(), rep.Total.Seconds()},
		Imbalance: json.Number(strconv.FormatFloat(bench.Imbalance(busy(rep)), 'f', 4, 64)),
		Rescanned: []pathJSON{},
	}
	if rep.Strategy == "floor" {
		j.Lines = &rep.Result.Rows
	} else {
		j.Matched, j.QuotedRows = &rep.Result.Matched, &rep.Result.Quoted
		j.Sums = &bench.Ordered[string]{}
		for _, v := range rep.Answer().Values() {
			j.Sums.Add(v.Label, v.Value)
		}
		if rep.Filter != "" {
			j.Where = &whereJSON{rep.Filter, hexIfNotUTF8(rep.Filter), c.Query.Equals, hexIfNotUTF8(c.Query.Equals)}
		}
	}
	for i, s := range rep.PerWorker {
		w := workerJSON{Worker: i, Start: s.Start.Seconds(), End: s.End.Seconds(), Busy: s.Busy().Seconds(),
			Units: s.Units, Bytes: s.Bytes, Rows: s.Rows}
		if rep.Strategy == "processes" {
			f, rss := s.Fork.Seconds(), s.MaxRSS
			w.Fork, w.MaxRSS = &f, &rss
		}
		j.PerWorker = append(j.PerWorker, w)
	}
	for _, f := range rep.Rescanned {
		j.Rescanned = append(j.Rescanned, pathJSON(c.Paths[f]))
	}
	b, err := json.Marshal(&j)
	if err != nil {
		panic(err) // every field is a plain value: cannot fail
	}
	return b
}

// group formats n with thousands separators: 1000000 -> "1,000,000".
func group(n int64) string {
	return string(scan.Fixed{V: n}.Append(nil, true))
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return group(n) + " " + what + "s"
}

// humanBytes formats a size in decimal units, as du --si does.
func humanBytes(n int64) string {
	switch {
	case n >= 1e9:
		return strconv.FormatFloat(float64(n)/1e9, 'f', 2, 64) + " GB"
	case n >= 1e6:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
	case n >= 1e3:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " kB"
	}
	return strconv.FormatInt(n, 10) + " B"
}
