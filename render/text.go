package render

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"parlab/bench"
	"parlab/input"
	"parlab/scan"
	"parlab/spawn"
)

// Text writes a report as parlab query prints it: the question and the
// data, the answer (a group-by's table, aligned), the missing values, and
// the time by phase. mode is the I/O mode the run used (a stream's is
// read, whatever it was asked). A write error is not reported: no text
// output's is.
func Text(w io.Writer, rep *spawn.Report, mode input.Mode) {
	mode = rep.IO(mode)
	filter, _ := DisplayString(rep.Spec.Describe())
	if rep.Floor() {
		fmt.Fprintf(w, "floor (newline count only, %d workers, %s split): %s lines, %s in %.4f s (scan %.4f s)\n",
			rep.Workers, rep.Split, Group(rep.Result.Rows), HumanBytes(rep.Bytes), rep.Total.Seconds(), rep.Scan.Seconds())
		return
	}
	how := rep.Strategy.Name()
	switch {
	case rep.Ranks > 0:
		how = fmt.Sprintf("%s, %s x %s, %s split", how, Plural(int64(rep.Ranks), "rank"), Plural(int64(rep.Workers/rep.Ranks), "thread"), rep.Split)
	case !rep.Sequential():
		how = fmt.Sprintf("%s, %d workers, %s split", how, rep.Workers, rep.Split)
	}
	fmt.Fprintf(w, "%s: %s, %s, %s (%s, %s)\n", filter, Plural(int64(rep.Files), "file"),
		Plural(rep.Result.Rows, "row"), HumanBytes(rep.Bytes), how, mode)
	ans := rep.Answer()
	lines := ans.Lines()
	if gt := ans.Groups(); gt != nil {
		lines = []scan.Line{{Label: ans.MatchedLabel(), Value: Group(ans.Matched)}, {Label: "Groups", Value: Group(int64(ans.Result.Groups.Len()))}}
		if gt.Len() < ans.Result.Groups.Len() {
			lines[1].Value += fmt.Sprintf(" (the first %s shown)", Group(int64(gt.Len())))
		}
		printGroups(w, gt, len(ans.By))
	}
	var skipped []string
	for _, g := range ans.Aggs {
		if n := ans.Skipped(g); n > 0 {
			skipped = append(skipped, fmt.Sprintf("%s %s", g.Label(), Group(n)))
		}
	}
	if skipped != nil { // empty cells: each aggregate is over the rows that have a value
		lines = append(lines, scan.Line{Label: "Missing values", Value: strings.Join(skipped, ", ") + " (empty cells, left out)"})
	}
	if bad := rep.Result.Bad; bad > 0 {
		lines = append(lines, scan.Line{Label: "Bad rows", Value: Group(bad) + " (left out: --rejects FILE lists them)"})
	}
	width := len("Time")
	labels := make([]string, len(lines))
	widths := make([]int, len(lines))
	for i, l := range lines {
		labels[i], widths[i] = DisplayString(l.Label)
		width = max(width, widths[i])
	}
	for i, l := range lines {
		v, _ := DisplayString(l.Value)
		fmt.Fprintf(w, "  %s%*s  %s\n", labels[i], width-widths[i], "", v)
	}
	if rep.Sequential() {
		setup := "open+map" // a stream's: until its header was read
		if rep.Streamed {
			setup = "header"
		}
		fmt.Fprintf(w, "  %-*s  %.4f s (%s %.4f s, scan %.4f s)\n", width, "Time",
			rep.Total.Seconds(), setup, rep.Setup.Seconds(), rep.Scan.Seconds())
		return
	}
	fmt.Fprintf(w, "  %-*s  %.4f s (setup %.4f s, spawn %.4f s, scan %.4f s, join+merge %.4f s)\n", width, "Time",
		rep.Total.Seconds(), rep.Setup.Seconds(), rep.Spawn.Seconds(), rep.Scan.Seconds(), (rep.Join + rep.Merge).Seconds())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// Kinds writes the kind of each column the query read, and how it was
// decided (scan.Kind), one line each, and names an empty header cell's
// column.
func Kinds(w io.Writer, rep *spawn.Report) {
	for _, ck := range rep.Spec.Kinds {
		col, _ := DisplayString(ck.Col)
		line, _ := DisplayString(fmt.Sprintf("column %s: %s (%s)", col, ck.Kind, ck.Why))
		fmt.Fprintf(w, "  %s\n", line)
	}
	for _, c := range rep.Spec.Unnamed {
		fmt.Fprintf(w, "  column %s: its header cell is empty; named by its position from 0, as DuckDB names it\n", c)
	}
}

// Workers writes the per-worker table: where each worker's time went, and
// the load imbalance (the run lasts as long as its busiest worker).
func Workers(w io.Writer, rep *spawn.Report) {
	fmt.Fprintf(w, "  %-6s %9s %9s %9s %6s %10s %12s", "worker", "start s", "end s", "busy s", "units", "MB", "rows")
	if rep.Children() {
		fmt.Fprintf(w, " %9s %9s %9s", "fork ms", "start ms", "setup ms")
	}
	fmt.Fprintln(w)
	for i, s := range rep.PerWorker {
		fmt.Fprintf(w, "  %-6d %9.4f %9.4f %9.4f %6d %10.1f %12s", i, s.Start.Seconds(), s.End.Seconds(),
			s.Busy().Seconds(), s.Units, float64(s.Bytes)/1e6, Group(s.Rows))
		if rep.Children() {
			fmt.Fprintf(w, " %9.3f %9.3f %9.3f", ms(s.Fork), ms(s.ChildStart()), ms(s.ChildSetup()))
		}
		if s.Units == 0 {
			fmt.Fprint(w, "  idle: no work for this worker")
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  phases: setup %.4f s, spawn %.4f s, scan %.4f s, join %.4f s, merge %.4f s\n",
		rep.Setup.Seconds(), rep.Spawn.Seconds(), rep.Scan.Seconds(), rep.Join.Seconds(), rep.Merge.Seconds())
	fmt.Fprintf(w, "  imbalance (busiest / mean busy): %.2f\n", bench.Imbalance(rep.Busy()))
	if rep.Child != "" {
		fmt.Fprintf(w, "  workers started from %s\n", rep.Child)
	}
	if len(rep.Rescanned) > 0 {
		fmt.Fprintf(w, "  rescanned in part (a row cut fell in a quoted field): %d files\n", len(rep.Rescanned))
	}
}

// printGroups prints a group-by's table, aligned: the group-by columns (the
// first nkeys) to the left, the figures to the right.
func printGroups(out io.Writer, gt *scan.GroupTable, nkeys int) {
	width := make([]int, len(gt.Header))
	for j, h := range gt.Header {
		width[j] = ShownWidth([]byte(h))
	}
	parts := runtime.GOMAXPROCS(0)
	pw := make([][]int, parts) // each part's widths
	for p := range pw {
		pw[p] = slices.Clone(width)
	}
	gt.EachRow(true, parts, func(p int, b []byte, ends []int) {
		for j, v := range scan.Cells(b, ends) {
			pw[p][j] = max(pw[p][j], ShownWidth(v))
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
			dst, w := DisplayCell(dst, v)
			return append(dst, spaces[:width[j]-w]...)
		}
		dst = append(dst, spaces[:width[j]-ShownWidth(v)]...)
		dst, _ = DisplayCell(dst, v)
		return dst
	}
	var head []byte
	for j, h := range gt.Header {
		head = cell(head, j, []byte(h))
	}
	out.Write(append(head, '\n'))
	// (a write error is not reported: no text output's is)
	WritePieces(out, gt.Len(), func() PieceMaker {
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

// Group formats n with thousands separators: 1000000 -> "1,000,000".
func Group(n int64) string {
	return string(scan.Fixed{V: n}.Append(nil, true))
}

// Plural is "1 file", "2 files", with n grouped.
func Plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return Group(n) + " " + what + "s"
}

// HumanBytes formats a size in decimal units, as du --si does.
func HumanBytes(n int64) string {
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

// Rejects writes r's bad rows (scan.Reject) to the CSV file path: a
// header, then file, line, column (the byte in the line), field (the
// column's name, if the fault is one field's), reason and the row's bytes,
// one record each, in file order; a row kept cut (scan.MaxRejectRow) ends
// in "…", and past the rows r keeps, a last record says how many more.
func Rejects(path string, r *scan.Result) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--rejects: %w", err)
	}
	bw := bufio.NewWriter(f)
	w := csv.NewWriter(bw)
	w.Write([]string{"file", "line", "column", "field", "reason", "row"})
	for _, x := range r.Rejects {
		row := string(x.Row)
		if len(x.Row) == scan.MaxRejectRow {
			row += "…"
		}
		w.Write([]string{x.File, strconv.FormatInt(x.Line, 10), strconv.Itoa(x.Column), x.Field, x.Reason, row})
	}
	if more := r.Bad - int64(len(r.Rejects)); more > 0 {
		w.Write([]string{"", "", "", "", fmt.Sprintf("%d more bad rows, not kept", more), ""})
	}
	w.Flush()
	if err = w.Error(); err == nil {
		err = bw.Flush()
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("--rejects: %w", err)
	}
	return f.Close()
}
