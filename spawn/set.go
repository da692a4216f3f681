// Package spawn runs a query over a data set with a strategy: sequentially,
// with goroutines, or with child processes. A Plan assigns work units (whole
// files or row-aligned byte ranges) to workers; a Strategy runs a Plan and
// times each phase, so every run says where its time went.
package spawn

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"

	"parlab/scan"
	"parlab/shm"
)

// ExpandPaths turns the command line's PATHs into a list of files: a file is
// taken as it is, a directory gives all its *.csv files in name order.
func ExpandPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, "*.csv"))
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no .csv files in this directory", p)
		}
		sort.Strings(m)
		out = append(out, m...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no input files")
	}
	return out, nil
}

// Set is a data set opened for one query: each file's bytes and its Table.
type Set struct {
	Paths  []string
	Query  scan.Query
	Files  []*shm.File
	Tables []*scan.Table
	Bytes  int64
	// populateUnits: the files were mapped lazily and each unit's pages are
	// populated by the worker that scans it (see OpenLazy).
	populateUnits bool
}

// Open opens every file in mode and binds q to each one's header. On error
// nothing stays open.
func Open(paths []string, q scan.Query, mode shm.Mode, opt shm.Options) (*Set, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	s := &Set{Paths: paths, Query: q}
	for _, p := range paths {
		f, err := shm.Open(p, mode, opt)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.Files = append(s.Files, f)
		t, err := scan.NewTable(p, f.Bytes(), &s.Query)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.Tables = append(s.Tables, t)
		s.Bytes += int64(len(f.Bytes()))
	}
	return s, nil
}

// OpenLazy is Open for parallel strategies: with opt.Populate, files are
// mapped without populating and each worker populates the pages of its own
// units, so the page-table work is done in parallel and counted in the
// workers' time, not serially in the parent's setup.
func OpenLazy(paths []string, q scan.Query, mode shm.Mode, opt shm.Options) (*Set, error) {
	lazy := opt
	lazy.Populate = false
	s, err := Open(paths, q, mode, lazy)
	if err != nil {
		return nil, err
	}
	s.populateUnits = opt.Populate && mode == shm.Mmap
	return s, nil
}

// Close releases every file. The Set's Tables must not be scanned after.
func (s *Set) Close() {
	for _, f := range s.Files {
		f.Close()
	}
	s.Files, s.Tables = nil, nil
}

// SumNames returns the header names of the summed columns (as the first file
// spells them), in the query's order.
func (s *Set) SumNames() []string { return s.Tables[0].SumNames() }

// FilterName returns the header name of the filter column, "" for none.
func (s *Set) FilterName() string { return s.Tables[0].FilterName() }

// Unit is a piece of work: the rows of file File that start in [Start, End).
type Unit struct {
	File       int
	Start, End int
}

// WholeFile is the unit that covers file i's data rows.
func (s *Set) WholeFile(i int) Unit {
	a, b := s.Tables[i].Body()
	return Unit{i, a, b}
}

// scanUnit scans the rows of one unit into r, under guard: populated
// first if asked, and a fault on a mapped page (the file was truncated
// under us: SIGBUS) an error naming the file instead of a crash.
func (s *Set) scanUnit(u Unit, r *scan.Result) (err error) {
	return s.guard(u, func() error {
		a, b := s.rows(u)
		return s.Tables[u.File].Scan(a, b, r)
	})
}

// rows is the byte range of the rows u stands for: its ends moved to line
// starts (see scan.Table.RowStart; ends already there stay), so units that
// meet at a byte offset meet at a row start.
func (s *Set) rows(u Unit) (start, end int) {
	t := s.Tables[u.File]
	return t.RowStart(u.Start), t.RowStart(u.End)
}

// guard runs work on unit u's bytes, populating them first if the Set was
// opened to, and turns a memory fault on them (the file shrank under its
// mapping: SIGBUS) into an error that names the file.
func (s *Set) guard(u Unit, work func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if p := recover(); p != nil {
			// debug.SetPanicOnFault: a memory fault's panic value has an
			// Addr method; anything else is a real bug and goes on up.
			if f, ok := p.(interface{ Addr() uintptr }); ok {
				err = fmt.Errorf("%s: %w at %#x", s.Paths[u.File], errFault, f.Addr())
				return
			}
			panic(p)
		}
	}()
	if s.populateUnits {
		s.Files[u.File].Populate(u.Start, u.End-u.Start)
	}
	return work()
}
