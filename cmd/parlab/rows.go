package main

import (
	"errors"
	"slices"
	"syscall"

	"parlab/render"
	"parlab/scan"
	"parlab/shm"
	"parlab/spawn"
)

// rowsFormat is how query --select writes its rows, from --format, --json
// and --csv: CSV unless one of them says otherwise; text is the aligned
// table (render.RowsText), whose rows the scan writes as CSV.
func rowsFormat(format string, asJSON, asCSV bool) (out scan.OutFormat, text bool, err error) {
	if asJSON && asCSV || format != "" && (asJSON || asCSV) {
		return 0, false, usagef("--json, --csv and --format ask for one output each: give one")
	}
	switch {
	case asJSON:
		return scan.OutJSON, false, nil
	case asCSV, format == "":
		return scan.OutCSV, false, nil
	case format == "text":
		return scan.OutCSV, true, nil
	}
	if out, err = scan.ParseOutFormat(format); err != nil {
		return 0, false, usagef("--format: %v, or text", err)
	}
	return out, false, nil
}

// rows prints the rows a query selected to standard output, and with
// verbose the run's report and workers to standard error. Standard output
// closed early (a reader such as head that has what it wants) ends the
// command quietly and well, as grep does.
func (a *app) rows(rep *spawn.Report, out scan.OutFormat, text, verbose bool, mode shm.Mode) error {
	var err error
	if text {
		err = render.RowsText(a.stdout, rep)
	} else {
		err = render.Rows(a.stdout, rep, out)
	}
	if errors.Is(err, syscall.EPIPE) {
		err = nil
	}
	if verbose {
		render.Text(a.stderr, rep, mode)
		render.Kinds(a.stderr, rep)
		render.Workers(a.stderr, rep)
	}
	return err
}

// jsonColumns is what a JSON lines input writes for q (stage.Dialect's
// Columns): the names q reads, with the Sales sums where it names no
// aggregate, or every key (nil) where it selects "*".
func jsonColumns(q scan.Query) []string {
	if slices.Contains(q.Select, "*") {
		return nil
	}
	names := q.Names()
	if q.Select == nil && q.Sum == nil && q.Min == nil && q.Max == nil && q.Avg == nil && q.Holistic == nil {
		names = append(names, scan.DefaultSums...)
	}
	if names == nil {
		names = []string{} // (a count: not every key)
	}
	return names
}
