package main

import (
	"errors"
	"io"
	"syscall"

	"parlab/input"
	"parlab/render"
	"parlab/scan"
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

// rowsOut writes a query's rows to w in format out: those the run hands
// to sink as it scans (spawn.RowSink: seq, goroutines, streams), then what
// it left in Result.Out (the other strategies), after one header line.
type rowsOut struct {
	w     io.Writer
	out   scan.OutFormat
	wrote bool // the header
}

func (o *rowsOut) sink(spec *scan.Spec, rows []byte) error {
	if !o.wrote {
		o.wrote = true
		if err := render.RowsHead(o.w, spec.Select, o.out); err != nil {
			return err
		}
	}
	_, err := o.w.Write(rows)
	return err
}

// rows prints the rows a query selected that the run did not hand to o
// already, and with verbose the run's report and workers to standard
// error. Standard output closed early (a reader such as head that has
// what it wants) ends the command quietly and well, as grep does.
func (a *app) rows(rep *spawn.Report, o *rowsOut, text, verbose bool, mode input.Mode) error {
	var err error
	switch {
	case text:
		err = render.RowsText(a.stdout, rep)
	case !o.wrote:
		err = render.Rows(a.stdout, rep, o.out)
	default:
		_, err = a.stdout.Write(rep.Result.Out)
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
