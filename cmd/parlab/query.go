package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"parlab/bench"
	"parlab/scan"
	"parlab/shm"
	"parlab/spawn"
)

// queryFlags are the flags every command that runs a query shares.
type queryFlags struct {
	// each list flag may be given more than once: its values add up
	// (--sum a --sum b is --sum a,b)
	where, by, sum, min, max, avg, sort listFlag
	limit                               int
	io                                  shm.Mode
	populate                            bool
	strategy                            spawn.StrategyFlag // nil: goroutines
	split                               spawn.Split
	workers                             int
	timeout                             time.Duration
	delimiter                           string
	noHeader                            bool
	stdin                               io.Reader     // for the PATH "-": nil where a command reads its own
	inputs                              *spawn.Inputs // staged by config; close after the run
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
	fs.Var(&q.where, "where", "a filter COLUMN OP VALUE, OP one of = != < <= > >=; give it again for more (all must hold); = and != compare bytes, and numbers or dates as such when the value is one; the others numbers, dates or bytes by the value; a quoted value is text; an empty cell is missing (docs/query.md); none: every row")
	fs.Var(&q.by, "by", "group by these columns, comma-separated (or the flag given again): one row per distinct key")
	fs.Var(&q.sum, "sum", "columns to sum, comma-separated (or the flag given again); with no aggregate named, a plain count (and \"Total Revenue,Total Profit\" where the files have both)")
	fs.Var(&q.min, "min", "columns whose exact minimum to report, comma-separated (or the flag given again)")
	fs.Var(&q.max, "max", "columns whose exact maximum to report, comma-separated (or the flag given again)")
	fs.Var(&q.avg, "avg", "columns whose average (exact sum / count, rounded half to even) to report, comma-separated (or the flag given again)")
	fs.Var(&q.sort, "sort", "with --by: order the groups by these output columns, comma-separated (or the flag given again), each COLUMN or COLUMN:desc (a group-by column, count, a summed column, min(COL), max(COL), avg(COL)); default: by the group-by columns")
	fs.IntVar(&q.limit, "limit", 0, "with --by: print only the first N groups; 0: all")
	fs.StringVar(&q.delimiter, "delimiter", "", "the field delimiter: , ; | or tab (default: tab for .tsv and .tab files, else ,)")
	fs.BoolVar(&q.noHeader, "no-header", false, "the files have no header row: columns are named by position, 1 to N")
	fs.TextVar(&q.io, "io", shm.Mmap, "how bytes arrive: "+shm.ModeHelp())
	fs.BoolVar(&q.populate, "populate", false, "with --io mmap: fault pages in before scanning them, so the setup phase (seq: MADV_POPULATE_READ at open) or each worker (its own units) pays for them apart from the scan; off, they fault in during the scan, which is as fast for seq and faster for 2 workers")
	fs.DurationVar(&q.timeout, "timeout", 0, "fail the query if it has not finished after this long, setup included, in every strategy (workers are stopped, children killed), e.g. 3s; 0: never")
	q.strategy, q.workers, q.split = spawn.StrategyFlag{}, 0, spawn.SplitAuto
}

// registerStrategy adds the flags that pick one strategy (query and menu;
// bench sweeps them instead).
func (q *queryFlags) registerStrategy(fs *flag.FlagSet) {
	fs.TextVar(&q.strategy, "strategy", spawn.StrategyFlag{}, "one of "+spawn.StrategyHelp()+"; default: goroutines with one worker per core, the fastest")
	fs.IntVar(&q.workers, "workers", 0, "workers for goroutines and processes; 0: one per core")
	fs.TextVar(&q.split, "split", spawn.SplitAuto, "how work is cut: "+spawn.SplitHelp())
}

// query turns the query flags into a scan.Query; every fault is a usage
// error that names the flag and the bad part.
func (q *queryFlags) query() (scan.Query, error) {
	var sq scan.Query
	for _, w := range q.where {
		c, err := scan.ParseCond(w)
		if err != nil {
			return sq, usagef("--where: %v", err)
		}
		sq.Filters = append(sq.Filters, c)
	}
	var sort []string
	for _, l := range []struct {
		flag string
		vals listFlag
		to   *[]string
	}{{"by", q.by, &sq.By}, {"sum", q.sum, &sq.Sum}, {"min", q.min, &sq.Min}, {"max", q.max, &sq.Max}, {"avg", q.avg, &sq.Avg}, {"sort", q.sort, &sort}} {
		for _, v := range l.vals {
			names, err := scan.ParseList(v)
			if err != nil {
				return sq, usagef("--%s: %v", l.flag, err)
			}
			*l.to = append(*l.to, names...)
		}
	}
	for _, n := range sort {
		k := scan.SortKey{Col: n}
		if c, ok := strings.CutSuffix(n, ":desc"); ok {
			k = scan.SortKey{Col: strings.TrimSpace(c), Desc: true}
		} else if c, ok := strings.CutSuffix(n, ":asc"); ok {
			k.Col = strings.TrimSpace(c)
		}
		sq.Sort = append(sq.Sort, k)
	}
	sq.Limit, sq.NoHeader = q.limit, q.noHeader
	if err := sq.Validate(); err != nil {
		return sq, usagef("%v", err)
	}
	return sq, nil
}

// config turns the flags and PATHs into a run's configuration. cores is
// the machine's core count, the default worker count.
func (q *queryFlags) config(paths []string, cores int) (spawn.Config, error) {
	var c spawn.Config
	if len(paths) == 0 {
		return c, usagef("no PATH given: name CSV files or directories")
	}
	var err error
	if c.Query, err = q.query(); err != nil {
		return c, err
	}
	c.Mode, c.Opt = q.io, shm.Options{Populate: q.populate}
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
	if c.Workers == 0 {
		c.Workers = cores
	}
	if q.strategy.Name() == spawn.NameSeq {
		c.Workers = 1
	}
	sep, err := spawn.ParseDelimiter(q.delimiter)
	if err != nil {
		return c, usagef("--delimiter: %v", err)
	}
	if c.Paths, err = spawn.ExpandPaths(paths); err != nil {
		return c, err
	}
	q.close() // the menu asks again and again
	if q.inputs, err = spawn.Stage(c.Paths, sep, q.stdin); err != nil {
		return c, err
	}
	c.Paths, c.Names = q.inputs.Paths, q.inputs.Names
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
	verbose := fs.Bool("verbose", false, "print what each worker did")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *asJSON && *asCSV {
		return usagef("--json and --csv are two outputs: give one")
	}
	qf.stdin = a.stdin
	c, err := qf.config(pos, a.cores())
	defer qf.close()
	if err != nil {
		return err
	}
	rep, err := qf.strategy.Run(context.Background(), c)
	if err != nil {
		return err
	}
	if a.fixTimes != nil {
		a.fixTimes(rep)
	}
	if *asJSON {
		return writeJSON(a.stdout, rep, c)
	}
	if *asCSV {
		return writeCSV(a.stdout, rep)
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
	filter, _ := displayString(rep.Spec.Describe())
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
	ans := rep.Answer()
	lines := ans.Lines()
	if gt := ans.Groups(); gt != nil {
		lines = []scan.Line{{Label: ans.MatchedLabel(), Value: group(ans.Matched)}, {Label: "Groups", Value: group(int64(ans.Result.Groups.Len()))}}
		if gt.Len() < ans.Result.Groups.Len() {
			lines[1].Value += fmt.Sprintf(" (the first %s shown)", group(int64(gt.Len())))
		}
		printGroups(w, gt, len(ans.By))
	}
	var skipped []string
	for _, g := range ans.Aggs {
		if n := ans.Skipped(g); n > 0 {
			skipped = append(skipped, fmt.Sprintf("%s %s", g.Label(), group(n)))
		}
	}
	if skipped != nil { // empty cells: each aggregate is over the rows that have a value
		lines = append(lines, scan.Line{Label: "Missing values", Value: strings.Join(skipped, ", ") + " (empty cells, left out)"})
	}
	width := len("Time")
	labels := make([]string, len(lines))
	widths := make([]int, len(lines))
	for i, l := range lines {
		labels[i], widths[i] = displayString(l.Label)
		width = max(width, widths[i])
	}
	for i, l := range lines {
		v, _ := displayString(l.Value)
		fmt.Fprintf(w, "  %s%*s  %s\n", labels[i], width-widths[i], "", v)
	}
	if rep.Strategy == "seq" {
		fmt.Fprintf(w, "  %-*s  %.4f s (open+map %.4f s, scan %.4f s)\n", width, "Time",
			rep.Total.Seconds(), rep.Setup.Seconds(), rep.Scan.Seconds())
		return
	}
	fmt.Fprintf(w, "  %-*s  %.4f s (setup %.4f s, spawn %.4f s, scan %.4f s, join+merge %.4f s)\n", width, "Time",
		rep.Total.Seconds(), rep.Setup.Seconds(), rep.Spawn.Seconds(), rep.Scan.Seconds(), (rep.Join + rep.Merge).Seconds())
}

// printGroups prints a group-by's table, aligned: the group-by columns (the
// first nkeys) to the left, the figures to the right.
func printGroups(out io.Writer, gt *scan.GroupTable, nkeys int) {
	width := make([]int, len(gt.Header))
	for j, h := range gt.Header {
		width[j] = shownWidth([]byte(h))
	}
	parts := runtime.GOMAXPROCS(0)
	pw := make([][]int, parts) // each part's widths
	for p := range pw {
		pw[p] = slices.Clone(width)
	}
	gt.EachRow(true, parts, func(p int, b []byte, ends []int) {
		for j, v := range scan.Cells(b, ends) {
			pw[p][j] = max(pw[p][j], shownWidth(v))
		}
	})
	for _, w := range pw {
		for j := range width {
			width[j] = max(width[j], w[j])
		}
	}
	spaces := []byte(strings.Repeat(" ", slices.Max(width)+2))
	cell := func(dst []byte, j int, v []byte) []byte {
		dst = append(dst, "  "...)
		if j < nkeys {
			dst, w := displayCell(dst, v)
			return append(dst, spaces[:width[j]-w]...)
		}
		dst = append(dst, spaces[:width[j]-shownWidth(v)]...)
		dst, _ = displayCell(dst, v)
		return dst
	}
	var head []byte
	for j, h := range gt.Header {
		head = cell(head, j, []byte(h))
	}
	out.Write(append(head, '\n'))
	// (a write error is not reported: no text output's is)
	writePieces(out, gt.Len(), func() pieceMaker {
		t := gt.Fork()
		return func(dst []byte, lo, hi int) []byte {
			var b []byte // (a piece's own)
			var ends []int
			for i := lo; i < hi; i++ {
				b, ends = t.AppendRow(b[:0], ends[:0], i, true)
				for j, v := range scan.Cells(b, ends) {
					dst = cell(dst, j, v)
				}
				dst = append(dst, '\n')
			}
			return dst
		}
	})
}

// writeCSV writes the answer as CSV: for a group-by, its table's header and
// rows; otherwise the header "matched" and the aggregates' labels, and one
// row. Numbers are exact and ungrouped.
func writeCSV(out io.Writer, rep *spawn.Report) error {
	ans := rep.Answer()
	if ans == nil {
		return usagef("--csv: the floor answers no query")
	}
	cw := csv.NewWriter(out)
	if gt := ans.Groups(); gt != nil {
		cw.Write(gt.Header)
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		return writePieces(out, gt.Len(), csvRows(gt))
	} else {
		head, row := []string{"matched"}, []string{strconv.FormatInt(ans.Matched, 10)}
		for _, v := range ans.Values() {
			head, row = append(head, v.Label), append(row, v.Value)
		}
		cw.Write(head)
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// tablePiece is how many rows of a group-by's table writePieces has made
// at a time in one goroutine (a variable for the tests, which cut tables of
// a few rows into many pieces).
var tablePiece = 4096

// A pieceMaker appends rows [lo, hi) of a table, as text, to dst. Each is
// used by one goroutine (see writePieces).
type pieceMaker func(dst []byte, lo, hi int) []byte

// writePieces writes rows [0, n) of a table to out, in order, as the
// pieceMakers that newMaker returns make them: with millions of groups,
// making the text is most of the time after the scan, so pieces of
// tablePiece rows are made by a goroutine a core at once (goroutine k, with
// a pieceMaker of its own, makes pieces k, k+workers, …, each into one of
// its two buffers) and written one after another as they come. The first
// write error stops it.
func writePieces(out io.Writer, n int, newMaker func() pieceMaker) error {
	piece := tablePiece
	pieces := (n + piece - 1) / piece
	workers := max(1, min(runtime.GOMAXPROCS(0), pieces))
	done := make(chan struct{}) // closed when the writer stops
	defer close(done)
	made := make([]chan []byte, workers) // goroutine k's pieces, in order
	free := make([]chan []byte, workers) // its buffers, back from the writer
	for k := range workers {
		made[k], free[k] = make(chan []byte, 1), make(chan []byte, 2)
		free[k] <- nil
		free[k] <- nil
		go func(mk pieceMaker) {
			for p := k; p < pieces; p += workers {
				var dst []byte
				select {
				case dst = <-free[k]:
				case <-done:
					return
				}
				dst = mk(dst[:0], p*piece, min(n, (p+1)*piece))
				select {
				case made[k] <- dst:
				case <-done:
					return
				}
			}
		}(newMaker())
	}
	for p := range pieces {
		b := <-made[p%workers]
		if _, err := out.Write(b); err != nil {
			return err
		}
		free[p%workers] <- b
	}
	return nil
}

// csvRows makes pieces of gt's rows as CSV, for writePieces.
func csvRows(gt *scan.GroupTable) func() pieceMaker {
	return func() pieceMaker {
		t := gt.Fork()
		return func(dst []byte, lo, hi int) []byte {
			// (a piece's own buffers, made once a piece)
			buf := bytes.NewBuffer(dst)
			cw := csv.NewWriter(buf)
			var b []byte
			var ends []int
			cells := make([]string, len(t.Header))
			for i := lo; i < hi; i++ {
				// One string a row, each cell a part of it: csv.Writer
				// quotes what needs it and copies the bytes.
				b, ends = t.AppendRow(b[:0], ends[:0], i, false)
				cw.Write(stringCells(cells, string(b), ends))
			}
			cw.Flush() // (into buf: it cannot fail)
			return buf.Bytes()
		}
	}
}

// stringCells puts row's cells (see scan.Cells) in cells and returns it. A
// function of its own so that the iterator is inlined: in the closure of a
// pieceMaker its state went to the heap, an allocation a row.
func stringCells(cells []string, row string, ends []int) []string {
	for j, v := range scan.Cells(row, ends) {
		cells[j] = v
	}
	return cells
}

// The query's JSON object (encoding/json, so it is valid JSON whatever the
// bytes): times in seconds, counts as numbers, sums as exact decimals in
// strings so no digit is lost to a float. A string that is not valid UTF-8
// is written with each invalid byte as U+FFFD; where the exact bytes matter
// (the filter's column and value, file paths) a field named with the suffix
// "_hex" beside it holds them in hex.
type queryJSON struct {
	Strategy string                  `json:"strategy"`
	Split    string                  `json:"split"`
	Workers  int                     `json:"workers"`
	IO       string                  `json:"io"`
	Filters  []filterJSON            `json:"filters"`
	By       []string                `json:"by,omitempty"`
	Matched  *int64                  `json:"matched,omitempty"` // left out for the floor, which answers no query
	Sums     *bench.Ordered[*string] `json:"sums,omitempty"`    // null: no row had a value
	Min      *bench.Ordered[*string] `json:"min,omitempty"`
	Max      *bench.Ordered[*string] `json:"max,omitempty"`
	Avg      *bench.Ordered[*string] `json:"avg,omitempty"`
	// Skipped: per aggregate (by its label), the matching rows whose value
	// was missing (an empty field), which it left out.
	Skipped    *bench.Ordered[int64] `json:"skipped,omitempty"`
	Groups     json.RawMessage       `json:"groups,omitempty"` // "[]", its rows streamed in by writeJSON
	Lines      *int64                `json:"lines,omitempty"`  // the floor's newline count
	Data       dataJSON              `json:"data"`
	Time       timesJSON             `json:"time"`
	PerWorker  []workerJSON          `json:"per_worker"`
	Imbalance  json.Number           `json:"imbalance"`
	QuotedRows *int64                `json:"quoted_rows,omitempty"`
	Rescanned  []pathJSON            `json:"rescanned"`
}

type filterJSON struct {
	Column    string `json:"column"`
	ColumnHex string `json:"column_hex,omitempty"`
	Op        string `json:"op"`
	Value     string `json:"value"`
	ValueHex  string `json:"value_hex,omitempty"`
	Quoted    bool   `json:"quoted,omitempty"` // text: compared by its bytes alone
}

// writeGroupsJSON writes a group-by's table as the elements of a JSON
// array, one object per group: the group-by columns, "count" (a number),
// then each aggregate's label with its exact decimal in a string ("" for a
// minimum or average of no value). In pieces (writePieces): millions of
// groups are never one buffer.
func writeGroupsJSON(w io.Writer, gt *scan.GroupTable, nkeys int) error {
	names := make([][]byte, len(gt.Header)) // each `"label":`
	for j, h := range gt.Header {
		k, _ := json.Marshal(h)
		names[j] = append(k, ':')
	}
	return writePieces(w, gt.Len(), func() pieceMaker {
		t := gt.Fork()
		return func(out []byte, lo, hi int) []byte {
			var b []byte // (a piece's own)
			var ends []int
			for i := lo; i < hi; i++ {
				if i > 0 {
					out = append(out, ',')
				}
				b, ends = t.AppendRow(b[:0], ends[:0], i, false)
				out = append(out, '{')
				for j, v := range scan.Cells(b, ends) {
					if j > 0 {
						out = append(out, ',')
					}
					out = append(out, names[j]...)
					switch {
					case j == nkeys: // the count
						out = append(out, v...)
					case j > nkeys && len(v) == 0: // an aggregate no row had a value for
						out = append(out, "null"...)
					default:
						out = appendJSONString(out, v)
					}
				}
				out = append(out, '}')
			}
			return out
		}
	})
}

// appendJSONString appends v as a JSON string: as it is, quoted, if it is
// printable ASCII without a quote or backslash (every number, most keys),
// else as encoding/json writes it (invalid UTF-8 as U+FFFD), with '<', '>'
// and '&' left as they are, as in the rest of the report.
func appendJSONString(dst, v []byte) []byte {
	for _, c := range v {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.Encode(string(v)) // a string: cannot fail
			return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, v...)
	return append(dst, '"')
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

// writeJSON writes a report as one JSON object (see queryJSON) and a
// newline; a group-by's rows go straight to w (writeGroupsJSON).
func writeJSON(w io.Writer, rep *spawn.Report, c spawn.Config) error {
	j := queryJSON{Strategy: rep.Strategy, Split: rep.Split, Workers: rep.Workers, IO: c.Mode.String(),
		Data: dataJSON{rep.Files, rep.Result.Rows, rep.Bytes},
		Time: timesJSON{rep.Setup.Seconds(), rep.Spawn.Seconds(), rep.Scan.Seconds(), rep.Join.Seconds(),
			rep.Merge.Seconds(), rep.Total.Seconds()},
		Imbalance: json.Number(strconv.FormatFloat(bench.Imbalance(busy(rep)), 'f', 4, 64)),
		Rescanned: []pathJSON{},
	}
	var gt *scan.GroupTable
	var nkeys int
	if rep.Strategy == "floor" {
		j.Lines = &rep.Result.Rows
	} else {
		ans := rep.Answer()
		j.Matched, j.QuotedRows = &rep.Result.Matched, &rep.Result.Quoted
		j.Filters = []filterJSON{}
		for _, f := range ans.Filters {
			j.Filters = append(j.Filters, filterJSON{f.Col, hexIfNotUTF8(f.Col), f.Op.String(), f.Value, hexIfNotUTF8(f.Value), f.Quoted})
		}
		if gt = ans.Groups(); gt != nil {
			j.By, j.Groups, nkeys = ans.By, json.RawMessage("[]"), len(ans.By)
		} else {
			for i, v := range ans.Values() {
				to := map[string]**bench.Ordered[*string]{"sum": &j.Sums, "min": &j.Min, "max": &j.Max, "avg": &j.Avg}[ans.Aggs[i].Func]
				if *to == nil {
					*to = &bench.Ordered[*string]{}
				}
				var value *string
				if v.Value != "" {
					value = &v.Value
				}
				(*to).Add(ans.Aggs[i].Col, value)
			}
		}
		if len(ans.Aggs) > 0 {
			j.Skipped = &bench.Ordered[int64]{}
			for _, g := range ans.Aggs {
				j.Skipped.Add(g.Label(), ans.Skipped(g))
			}
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
		j.Rescanned = append(j.Rescanned, pathJSON(c.Name(f)))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // ">=" as it is, not "\u003e="
	if err := enc.Encode(&j); err != nil {
		panic(err) // every field is a plain value: cannot fail
	}
	out := bufio.NewWriterSize(w, 1<<16)
	head, tail := buf.Bytes(), []byte(nil)
	if gt != nil {
		// The one `"groups":[]` is the key's, not a string's: in a string
		// a '"' is escaped, so `s":` cannot end one.
		mark := []byte(`,"groups":[`)
		k := bytes.Index(head, mark) + len(mark)
		head, tail = head[:k], head[k:]
	}
	out.Write(head)
	if gt != nil {
		if err := writeGroupsJSON(out, gt, nkeys); err != nil {
			return err
		}
		out.Write(tail)
	}
	return out.Flush()
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
