// Package spawn runs a query over a data set with a strategy: sequentially,
// with goroutines, or with child processes. A Plan assigns work units (whole
// files or row-aligned byte ranges) to workers; a Strategy runs a Plan and
// times each phase, so every run says where its time went.
package spawn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"parlab/input"
	"parlab/scan"
)

// Set is a data set opened for one query: each file's bytes and its Table.
type Set struct {
	outHeld atomic.Int64 // the rows out its scans hold (hold)
	// flush, if not nil, takes a scan's rows out after each step
	// (scanRows, stream): seq's run, whose rows go to a RowSink
	flush func(r *scan.Result) error
	// sinking: the goroutines write the rows out as they go, with the
	// workers held back (runRows): what they hold is not bounded by
	// MaxHeld
	sinking bool
	Paths   []string
	Names   []string // what messages call each file (Inputs.Names; else its path)
	// Seps is each file's field delimiter, as it is scanned in place
	// (Inputs.Seps): ',', a tab, ';' or '|'
	Seps []byte
	// HeadAdded says of each file whether its header is parlab's
	// (Config.HeadAdded): scanRows' errors and placeRejects' rows count
	// its lines without it.
	HeadAdded []bool
	Query     scan.Query
	Files     []*input.File
	Tables    []*scan.Table
	Bytes     int64
	// populateUnits: the files were mapped lazily and each unit's pages are
	// populated by the worker that scans it (see OpenLazy).
	populateUnits bool
	// expect: how many groups manyKeys's sample says the whole query
	// makes (0: not sampled, or few keys), each key split part's share
	// of which its Result reserves room for (scan.Result.Expect)
	expect int64
	buffer int // the copying modes' buffer (input.Options.Buffer)
	// Transient: the files were more than a process may hold open or
	// mapped (tooMany), so each is read (input.Read) through a descriptor
	// opened for each read, whatever mode was asked.
	Transient bool
	// input is each file's index among the paths the Set was opened
	// with (empty files are left out of it)
	input []int
	// Rest, if not nil, is the error of the first file that could not be
	// opened or bound, after the Set's last: a run reports it if its scan
	// of the Set finds no error (see stopAt).
	Rest error
}

// ErrNoData: every input of a query was empty (noData names it, if
// there is one).
var ErrNoData = errors.New("no data: every input file is empty")

// noData is ErrNoData for inputs named names: a lone input is named (a
// closed standard input reads as /dev/null does, empty).
func noData(names []string) error {
	if len(names) == 1 {
		return fmt.Errorf("%s: %w (it holds no byte)", names[0], ErrNoData)
	}
	return ErrNoData
}

// ErrBug: a worker panicked, a bug in parlab (never the input's fault);
// the error says where, with the worker's stack.
var ErrBug = errors.New("internal error (a bug in parlab; please report it with the command line)")

// Open opens every file in mode and binds q to each one's header. An empty
// file (0 bytes) contributes no rows and is left out of the Set; if every
// file is empty, the error is ErrNoData. names, if given (one a path), are
// what messages call the files (a memory file's path says nothing). On
// error nothing stays open.
func Open(paths []string, q scan.Query, mode input.Mode, opt input.Options, names ...string) (*Set, error) {
	return open(paths, q, mode, opt, names, nil, nil, nil)
}

// openConfig is Open (OpenLazy if lazy) of c's Paths, Names and Seps.
func openConfig(c *Config, mode input.Mode, opt input.Options, lazy bool) (*Set, error) {
	if lazy {
		return openLazy(c.Paths, c.Query, mode, opt, c.Names, c.Seps, c.HeadAdded, nil)
	}
	return open(c.Paths, c.Query, mode, opt, c.Names, c.Seps, c.HeadAdded, nil)
}

// open is Open, where a non-nil want leaves out the files it says false
// for: their entries in Files and Tables are nil, so every other file keeps
// its index (a worker process opens only the files of its own units).
// seps are the files' delimiters (nil: all ','), added whether a file's
// header is parlab's (Set.HeadAdded; nil: none).
func open(paths []string, q scan.Query, mode input.Mode, opt input.Options, names []string, seps []byte, added, want []bool) (*Set, error) {
	s := &Set{Query: q, buffer: opt.Buffer}
	if s.buffer <= 0 {
		s.buffer = streamBytes
	}
	if len(names) != len(paths) {
		names = paths
	}
	if tooMany(len(paths), mode) {
		mode, opt.Transient, s.Transient = input.Read, true, true
	}
	sepOf := func(i int) byte {
		if i < len(seps) && seps[i] != 0 {
			return seps[i]
		}
		return ','
	}
	keep := func(i int, p string) {
		s.Paths, s.Names, s.Seps = append(s.Paths, p), append(s.Names, names[i]), append(s.Seps, sepOf(i))
		s.HeadAdded = append(s.HeadAdded, i < len(added) && added[i])
	}
	var like *scan.Table // the last Table bound to s.Query as it is now
	for i, p := range paths {
		if want != nil && !want[i] {
			keep(i, p)
			s.Files, s.Tables = append(s.Files, nil), append(s.Tables, nil)
			continue
		}
		f, err := input.Open(p, mode, opt)
		if err != nil {
			if names[i] != p {
				err = fmt.Errorf("%s: %w", names[i], err)
			}
			if s.stopAt(err, want) {
				break
			}
			return nil, err
		}
		if f.Size() == 0 {
			f.Close()
			continue
		}
		t, err := s.newTable(f, names[i], sepOf(i), like)
		if err != nil {
			f.Close()
			if s.stopAt(err, want) {
				break
			}
			return nil, err
		}
		like = t
		if len(s.Tables) == 0 && want == nil {
			s.selectAll(t)
			like = nil // (the query may have changed: the next file binds again)
		}
		keep(i, p)
		s.Files = append(s.Files, f)
		s.Tables = append(s.Tables, t)
		s.input = append(s.input, i)
		s.Bytes += int64(f.Size())
	}
	if len(s.Tables) == 0 {
		if s.Rest != nil {
			return nil, s.Rest
		}
		return nil, noData(names)
	}
	if want == nil && s.Query.Kinds == nil {
		if err := s.decide(len(paths)); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// manyFiles is how many files a Set maps or holds open at most: past it,
// it holds none (Set.Transient). A process may hold 65,530 mappings by
// default (vm.max_map_count), the Go runtime's own among them. A variable
// so tests can pass it with a few hundred files.
var manyFiles = 8192

// tooMany reports whether n files in mode are more than a Set should hold
// open: past manyFiles, or in the Read mode (a descriptor each) past half
// of the process's descriptor limit.
func tooMany(n int, mode input.Mode) bool {
	if n > manyFiles {
		return true
	}
	var lim unix.Rlimit
	return mode == input.Read && unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && uint64(n) > lim.Cur/2
}

// stopAt takes err, a file's that cannot be opened or whose header does
// not bind, as the Set's Rest: the files before it are the Set, and a run
// over them reports their own first error, or else err, so that a run's
// error is the first in PATH order, whatever the strategy (a header error
// in the fifth file came before a bad value in the second). false, with
// the Set closed, where err is the run's now: a worker process's Set
// (want: its parent has cut the plan already).
func (s *Set) stopAt(err error, want []bool) bool {
	if want == nil {
		s.Rest = err
		return true
	}
	s.Close()
	return false
}

// newTable binds the Set's query to f's header. A copying mode reads only
// the file's head, more until the header ends inside it: the Table then
// holds just that piece, and units are scanned through views (see stream).
//
// like, if not nil, is a Table bound to the Set's query as it is now,
// whose binding a file with its header shares (scan.NewTableLike).
func (s *Set) newTable(f *input.File, name string, sep byte, like *scan.Table) (*scan.Table, error) {
	if !f.Copying() {
		return scan.NewTableLike(name, f.Bytes(), sep, &s.Query, like)
	}
	limit := min(f.Size(), scan.MaxHeaderBytes+1) // (a longer header is an error: read no more)
	for n := min(headBytes, limit); ; n = min(2*n, limit) {
		head := make([]byte, n)
		if err := f.ReadAt(head, 0); err != nil {
			return nil, err
		}
		if n < limit && bytes.IndexByte(head, '\n') < 0 {
			continue // no line ends in it: read more before binding
		}
		t, err := scan.NewTableLike(name, head, sep, &s.Query, like)
		if n == f.Size() {
			return headOnly(t), err
		}
		// The header ended inside the piece if its body starts before the
		// piece's end; otherwise it may go on past it, up to the bound.
		var pe *scan.ParseError
		if err == nil {
			if a, _ := t.Body(); a < n {
				return headOnly(t), nil
			}
		} else if !errors.As(err, &pe) || !errors.Is(err, scan.ErrOpenQuote) && !errors.Is(err, scan.ErrNoHeader) {
			return nil, err
		}
		if n == limit {
			return nil, &scan.ParseError{File: name, Line: 1, Column: 1, Err: scan.ErrLongHeader}
		}
	}
}

// headOnly is t, a copying mode's Table of a file's head, holding only
// the header's bytes (its units are scanned through views): a Set of
// 100,000 files held 64 KiB of each.
func headOnly(t *scan.Table) *scan.Table {
	if t == nil {
		return nil
	}
	a, n := t.Body()
	if a == n {
		return t
	}
	h := t.View(bytes.Clone(t.Head()), 0)
	return &h
}

// headBytes is the first piece a copying mode reads for a file's header.
const headBytes = 64 << 10

// OpenLazy is Open for parallel strategies: with opt.Populate, files are
// mapped without populating and each worker populates the pages of its own
// units, so the page-table work is done in parallel and counted in the
// workers' time, not serially in the parent's setup.
func OpenLazy(paths []string, q scan.Query, mode input.Mode, opt input.Options, names ...string) (*Set, error) {
	return openLazy(paths, q, mode, opt, names, nil, nil, nil)
}

func openLazy(paths []string, q scan.Query, mode input.Mode, opt input.Options, names []string, seps []byte, added, want []bool) (*Set, error) {
	lazy := opt
	lazy.Populate = false
	s, err := open(paths, q, mode, lazy, names, seps, added, want)
	if err != nil {
		return nil, err
	}
	s.populateUnits = opt.Populate && mode == input.Mmap
	return s, nil
}

// Close releases every file. The Set's Tables must not be scanned after.
func (s *Set) Close() {
	for _, f := range s.Files {
		if f != nil {
			f.Close()
		}
	}
	s.Files, s.Tables = nil, nil
}

// Unit is a piece of work: the rows of file File that start in [Start, End),
// keeping the groups of the keys in Part (the keys split's; the zero
// KeyPart keeps every key).
type Unit struct {
	File       int
	Start, End int
	Part       scan.KeyPart
}

// whole reports whether u covers all of its file's data rows.
func (s *Set) whole(u Unit) bool {
	a, b := s.body(u.File)
	return u.Start == a && u.End == b
}

// fold reports whether unit u's result may be added to its worker's own
// result (see runGoroutines): u is a whole file, which no merge needs
// apart, and the query writes no rows, whose order is the units'.
func (s *Set) fold(u Unit) bool { return s.Query.Select == nil && s.whole(u) }

// selectAll makes a Select of "*" the columns of t's header, the Set's
// first file's, by name, so that every file writes its rows in that
// order: by their names in its own header. A header that names no column,
// or one twice, keeps "*" (each file then writes its own columns).
func (s *Set) selectAll(t *scan.Table) {
	q := &s.Query
	if len(q.Select) != 1 || q.Select[0] != "*" {
		return
	}
	h := t.Header()
	seen := make(map[string]bool, len(h))
	for _, n := range h {
		if n == "" || seen[n] {
			return
		}
		seen[n] = true
	}
	q.Select = slices.Clone(h)
}

// WholeFile is the unit that covers file i's data rows.
func (s *Set) WholeFile(i int) Unit {
	a, b := s.body(i)
	return Unit{File: i, Start: a, End: b}
}

// body is the byte range of file i's data rows: from the header's end to
// the end of the file.
func (s *Set) body(i int) (start, end int) {
	a, _ := s.Tables[i].Body()
	return a, s.Files[i].Size()
}

// rowStart is scan.Table.RowStart for file i in any mode: a copying mode
// reads the bytes from off-1 until a newline.
func (s *Set) rowStart(i, off int) (int, error) {
	f := s.Files[i]
	if !f.Copying() {
		return s.Tables[i].RowStart(off), nil
	}
	a, size := s.body(i)
	if off <= a {
		return a, nil
	}
	if off >= size {
		return size, nil
	}
	var buf [4096]byte
	for p := off - 1; p < size; p += len(buf) {
		n := min(len(buf), size-p)
		if err := f.ReadAt(buf[:n], p); err != nil {
			return 0, err
		}
		if k := bytes.IndexByte(buf[:n], '\n'); k >= 0 {
			return p + k + 1, nil
		}
	}
	return size, nil
}

// scanUnit scans the rows of one unit into r, under guard, and checks ctx
// between steps of at most stepBytes (a copying mode's buffer is one step),
// so a deadline ends even a scan of one huge file. r holds the rows of the
// steps done when it fails; else r.Over says how far its last row ran past
// the unit (see Set.merge).
func (s *Set) scanUnit(ctx context.Context, u Unit, r *scan.Result) error {
	r.Part = u.Part
	if u.Part.N > 1 && r.Groups == nil {
		r.Expect = int(s.expect / int64(u.Part.N))
	}
	return s.guard(u, func() error {
		a, b, err := s.rows(u)
		if err != nil {
			return err
		}
		start, _ := s.body(u.File)
		stop, err := s.scanRows(ctx, u.File, a, b, r, a == start)
		r.Over = int64(max(stop-b, 0))
		return err
	})
}

// added says whether file i's header is parlab's (HeadAdded).
func (s *Set) added(i int) bool { return i < len(s.HeadAdded) && s.HeadAdded[i] }

// scanRows scans the rows of file i that start in [a, b), a a row's
// start, into r, and returns where the row after them starts (b, or past
// it where the last one runs on). sure says that a is known to be a row's
// start (the file's first, or one a scan found): a copying mode then reads
// on through a quoted field open at the end of its buffer, where a unit
// that may have started inside one stops with its error, the input's line
// in it (one less where the file's header is parlab's: HeadAdded).
func (s *Set) scanRows(ctx context.Context, i, a, b int, r *scan.Result, sure bool) (int, error) {
	p, err := s.scanRowsOf(ctx, i, a, b, r, sure)
	var pe *scan.ParseError
	if err != nil && s.added(i) && errors.As(err, &pe) {
		pe.Shift(-1)
	}
	return p, err
}

// scanRowsOf is scanRows with its error's line the CSV's.
func (s *Set) scanRowsOf(ctx context.Context, i, a, b int, r *scan.Result, sure bool) (int, error) {
	if s.Files[i].Copying() {
		return s.stream(ctx, i, a, b, r, sure)
	}
	t := s.Tables[i]
	p := a
	step := stepBytes
	if s.Query.RowLimit() > 0 {
		step = limitStepBytes
	}
	for p < b && !enough(&s.Query, r) {
		if err := ctx.Err(); err != nil {
			return p, err
		}
		var err error
		n := heldBytes(r)
		if p, err = t.ScanPart(p, min(p+step, b), r); err != nil {
			return p, err
		}
		switch {
		case s.flush != nil: // (written, so not held)
			err = s.flush(r)
		case !s.sinking:
			err = hold(&s.Query, &s.outHeld, r, n)
		}
		if err != nil {
			return p, err
		}
	}
	return p, nil
}

// stepBytes is how much a mapped scan does between two looks at its
// context: a few milliseconds. limitStepBytes is the step of a query that
// selects at most Limit rows, which looks as often whether it has them.
const (
	stepBytes      = 8 << 20
	limitStepBytes = 64 << 10
)

// enough reports whether r holds every row a scan of q writes (its
// RowLimit): a scan into r can stop.
func enough(q *scan.Query, r *scan.Result) bool {
	n := q.RowLimit()
	return n > 0 && r.Matched >= n
}

// streamBytes is a copying mode's buffer: each worker holds one while it
// scans (more only for a row longer than that, see stream). maxRowBytes
// bounds that growth: a longer row is an error in the copying modes.
const (
	streamBytes = 1 << 20
	maxRowBytes = scan.MaxRowBytes
)

var streamBufs sync.Pool // of *[]byte, streamBytes long

// getBuffer returns a copying mode's buffer and the function that gives it
// back.
func (s *Set) getBuffer() ([]byte, func()) {
	if s.buffer != streamBytes {
		return make([]byte, s.buffer), func() {}
	}
	bp, _ := streamBufs.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, streamBytes)
		bp = &b
	}
	return *bp, func() { streamBufs.Put(bp) }
}

// stream is scanRows in a copying mode: it scans the rows of file i that
// start in [a, b):
// it reads a buffer's worth at a time, scans the whole lines in it through
// a view of the Table, and goes on from where that scan stopped. A row that
// a piece ends inside (a quoted field holding newlines: the view's scan says
// ErrOpenQuote) is read again in a buffer twice the size, so memory is one
// buffer of streamBytes, or up to twice the longest row if that is larger
// (at most maxRowBytes). An error's line is counted from the start of the
// file.
func (s *Set) stream(ctx context.Context, i, a, b int, r *scan.Result, sure bool) (int, error) {
	f, t := s.Files[i], s.Tables[i]
	_, size := s.body(i)
	buf, put := s.getBuffer()
	defer put()
	p := a
	for p < b && !enough(&s.Query, r) {
		if err := ctx.Err(); err != nil {
			return p, err
		}
		n := min(len(buf), size-p)
		if err := f.ReadAt(buf[:n], p); err != nil {
			return p, err
		}
		piece, eof := buf[:n], p+n == size
		if !eof {
			k := bytes.LastIndexByte(piece, '\n')
			if k < 0 { // a line longer than the buffer
				if len(buf) >= maxRowBytes {
					return p, fmt.Errorf("%s: a line longer than %d MiB starts at byte %d (the copying modes hold a whole line in memory; the mmap mode does not)",
						s.Names[i], maxRowBytes>>20, p)
				}
				buf = make([]byte, min(2*len(buf), maxRowBytes))
				continue
			}
			piece = piece[:k+1]
		}
		v := t.View(piece, p)
		if !eof {
			v.Cut()
		}
		part := scan.Result{Part: r.Part}
		next, err := v.ScanPart(0, b-p, &part)
		if err == nil && s.flush == nil && !s.sinking {
			err = hold(&s.Query, &s.outHeld, &part, 0)
		}
		if err != nil {
			// A unit not sure to start at a row may start inside a quoted
			// field, and then every quote after looks open: its error
			// makes the merge read it again from a sure start (see
			// Set.merge), so it need not read on.
			if !eof && errors.Is(err, scan.ErrOpenQuote) && sure {
				if len(buf) >= maxRowBytes {
					return p, fmt.Errorf("%s: a row longer than %d MiB starts at byte %d (the copying modes hold a whole row in memory; the mmap mode does not)",
						s.Names[i], maxRowBytes>>20, p)
				}
				buf = make([]byte, min(2*len(buf), maxRowBytes))
				continue
			}
			var pe *scan.ParseError
			if errors.As(err, &pe) {
				lines, lerr := s.linesBefore(i, p)
				if lerr != nil {
					return p, lerr
				}
				pe.Shift(lines)
			}
			r.Merge(&part)
			return p, err
		}
		r.Merge(&part)
		if s.flush != nil {
			if err := s.flush(r); err != nil {
				return p, err
			}
		}
		p += next
	}
	return p, nil
}

// linesBefore counts the newlines in file i before offset off, for an error
// found in a piece that starts there.
func (s *Set) linesBefore(i, off int) (int, error) {
	f := s.Files[i]
	buf := make([]byte, min(streamBytes, off))
	n := 0
	for p := 0; p < off; p += len(buf) {
		m := min(len(buf), off-p)
		if err := f.ReadAt(buf[:m], p); err != nil {
			return 0, err
		}
		n += bytes.Count(buf[:m], []byte{'\n'})
	}
	return n, nil
}

// rows is the byte range of the rows u stands for: its ends moved to line
// starts (see scan.Table.RowStart; ends already there stay), so units that
// meet at a byte offset meet at a row start.
func (s *Set) rows(u Unit) (start, end int, err error) {
	if start, err = s.rowStart(u.File, u.Start); err != nil {
		return 0, 0, err
	}
	end, err = s.rowStart(u.File, u.End)
	return start, end, err
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
			// Addr method; anything else is a bug in parlab, which fails
			// the run as ErrBug (a worker goroutine's panic would end the
			// process with the exit status of bad usage).
			if f, ok := p.(interface{ Addr() uintptr }); ok {
				err = fmt.Errorf("%s: %w at %#x", s.Names[u.File], input.ErrFault, f.Addr())
				return
			}
			err = fmt.Errorf("%w: %v, scanning %s bytes %d to %d\n%s", ErrBug, p, s.Names[u.File], u.Start, u.End, debug.Stack())
		}
	}()
	if f := s.Files[u.File]; s.populateUnits || f.SmallPages() {
		f.Populate(u.Start, u.End-u.Start)
	}
	return work()
}

// countLines counts the newlines in file i's bytes [a, b), in steps, checking
// ctx between them: the floor's work.
func (s *Set) countLines(ctx context.Context, i, a, b int) (int64, error) {
	f := s.Files[i]
	var buf []byte
	if f.Copying() {
		var put func()
		buf, put = s.getBuffer()
		defer put()
	}
	var n int64
	for p := a; p < b; {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		var piece []byte
		if f.Copying() {
			piece = buf[:min(len(buf), b-p)]
			if err := f.ReadAt(piece, p); err != nil {
				return n, err
			}
		} else {
			piece = f.Bytes()[p:min(p+stepBytes, b)]
		}
		n += int64(bytes.Count(piece, []byte{'\n'}))
		p += len(piece)
	}
	return n, nil
}

// head is the start of file i up to the end of its first data row: what
// binds a query to the file's columns (its header; without a header, the
// first record's field count). The result is the caller's.
func (s *Set) head(i int) ([]byte, error) {
	a, size := s.body(i)
	end := size
	if a < size {
		var err error
		if end, err = s.rowStart(i, a+1); err != nil {
			return nil, err
		}
	}
	b := make([]byte, end)
	if !s.Files[i].Copying() {
		copy(b, s.Files[i].Bytes())
		return b, nil
	}
	return b, s.Files[i].ReadAt(b, 0)
}
