package spawn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"parlab/scan"
)

// Streams reports whether strategy st with split scans a stream while it
// reads it (Config.Stream): seq, and goroutines with the rows, dynamic or
// auto split. Any other way needs the whole input in memory first, where
// every worker or child can reach any part of it (stage.Stage).
func Streams(st Strategy, split Split) bool {
	return split.streams(CapsOf(st).Streams)
}

// errNoStream is the error of a run given a Config.Stream that its
// strategy and split cannot scan (see Streams).
var errNoStream = errors.New("a stream (Config.Stream) is scanned by seq, or by goroutines with the rows, dynamic or auto split; for any other way stage it first (stage.Stage)")

// streamMaxRow bounds a stream's buffer: a row longer than that is an
// error. A variable so tests can reach it with small rows.
var streamMaxRow = maxRowBytes

// runStream runs c's query over c.Stream with workers goroutines while one
// more reads it: the reader fills blocks of c.Chunk bytes (DefaultChunk if
// 0), cuts each after its last whole row (rowEnd) and carries the rest to
// the next; the workers take blocks in the order they were read and scan
// each through a view of the Table bound to the stream's header, into a
// result of their own, merged at the end. A block is the only copy (no
// memory file); besides the scan, the reader looks for a quote in it and
// its worker counts its newlines, two vectorised passes while it is in
// cache. Memory is workers+2 blocks, more only for a row longer than a
// block (its buffer doubles, up to streamMaxRow).
//
// Errors are the file's: the earliest block's error wins, its line counted
// from the start of the stream (each block's newlines are counted after
// its scan), and a read or decompression error comes after every block
// read before it. After a failure no more is read. A timeout or
// cancellation ends the run at once, but a read that is blocked (a pipe
// whose writer is silent) is not interrupted: the reader goroutine ends
// when that read returns, and its file is not closed before.
func runStream(ctx context.Context, c Config, st Strategy, workers int) (rep *Report, err error) {
	ctx, cancel := WithTimeout(ctx, c.Timeout)
	defer cancel()
	defer func() { rep, err = stopped(ctx, rep, err) }()
	workers = max(workers, 1)
	if c.Query.Select != nil {
		workers = 1 // (the rows in the order read: one worker takes every block)
	}
	t0 := time.Now()
	if c.Stream == nil {
		if c.Query.Kinds == nil {
			if c, err = decideStreams(ctx, c); err != nil {
				return nil, err
			}
		}
		return runStreams(ctx, c, st, workers, t0)
	}
	s := newStreamRun(&c, c.Stream, 0, workers, t0)
	s.decide = c.Query.Kinds == nil
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	rep = &Report{Strategy: st, Split: SplitStream, Workers: workers, Spec: s.table.Spec(), Files: 1,
		Setup: s.setup, Streamed: true, PerWorker: make([]WorkerStat, workers)}
	own := make([]paddedResult, workers)
	outs := make([][]blockOutcome, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { outs[w] = s.work(ctx, &rep.PerWorker[w], &own[w].Result) })
	}
	wg.Wait()
	joined := time.Since(t0)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	<-s.done // the blocks' channel is closed: the reader has ended
	all := slices.Concat(outs...)
	if err := s.failure(all); err != nil {
		return nil, err
	}
	for w := range own {
		s.placeRejects(own[w].Rejects, all)
	}
	return rep.streamed(joined, own, t0, &c)
}

// runStreams is runStream over c.Opens: each worker takes the next input
// not taken, opens it, and reads and scans it (a reader goroutine beside
// it, as runStream's), so that inputs are read, and decompressed, side by
// side. An input that holds no byte is left out (ErrNoData if all do).
// The error of the first input in c.Opens's order that failed wins; each
// input is closed once read.
func runStreams(ctx context.Context, c Config, st Strategy, workers int, t0 time.Time) (*Report, error) {
	n := len(c.Opens)
	tables := make([]*scan.Table, n)
	errs := make([]error, n)
	own := make([]paddedResult, workers)
	rep := &Report{Strategy: st, Split: SplitStream, Workers: workers, Streamed: true, PerWorker: make([]WorkerStat, workers)}
	var next atomic.Int64
	var failedAt atomic.Int64          // the first input that failed: no later one is opened
	spare := make([][][]byte, workers) // each worker's blocks, kept from one input to the next
	failedAt.Store(math.MaxInt64)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			st := &rep.PerWorker[w]
			start := time.Since(t0) // (each input's work sets st's clock)
			for {
				i := int(next.Add(1) - 1)
				if i >= n || int64(i) > failedAt.Load() || ctx.Err() != nil {
					break
				}
				if tables[i], errs[i] = streamOne(ctx, c, i, st, &own[w].Result, t0, &spare[w]); errs[i] != nil {
					lowerTo(&failedAt, i)
				}
			}
			st.Start, st.End = start, time.Since(t0)
		})
	}
	wg.Wait()
	joined := time.Since(t0)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := range n {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if tables[i] != nil {
			rep.Files++
			if rep.Files == 1 {
				rep.Spec = tables[i].Spec()
			}
		}
	}
	if rep.Files == 0 {
		return nil, noData(c.Names)
	}
	rep.Setup = rep.PerWorker[0].Start
	for _, w := range rep.PerWorker {
		rep.Setup = min(rep.Setup, w.Start)
	}
	return rep.streamed(joined, own, t0, &c)
}

// streamOne opens input i of c.Opens, and reads and scans it into r (its
// rows and blocks counted in st): its Table (nil if it held no byte) and
// its error.
//
// spare are blocks to read into, and come back with the blocks it used:
// a set of many small inputs allocated a few blocks for each.
func streamOne(ctx context.Context, c Config, i int, st *WorkerStat, r *scan.Result, t0 time.Time, spare *[][]byte) (*scan.Table, error) {
	rd, closeIt, err := c.Opens[i]()
	if err != nil {
		return nil, err
	}
	defer closeIt()
	rejects := len(r.Rejects) // the worker's result's, before this stream's
	s := newStreamRun(&c, rd, i, 1, t0)
	for len(*spare) > 0 && len(s.free) > 0 {
		<-s.free // (nil: to allocate)
		s.free <- (*spare)[len(*spare)-1]
		*spare = (*spare)[:len(*spare)-1]
	}
	defer func() {
		for len(s.free) > 0 {
			if b := <-s.free; b != nil {
				*spare = append(*spare, b)
			}
		}
	}()
	if err := s.start(ctx); err != nil {
		if errors.Is(err, ErrNoData) {
			return nil, nil
		}
		return nil, err
	}
	outs := s.work(ctx, st, r)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	<-s.done
	if err := s.failure(outs); err != nil {
		return s.table, err
	}
	s.placeRejects(r.Rejects[rejects:], outs)
	return s.table, nil
}

// streamed closes a streamed run's report: its phases, bytes and merged
// result.
func (rep *Report) streamed(joined time.Duration, own []paddedResult, t0 time.Time, c *Config) (*Report, error) {
	names := c.Names
	if rep.Sequential() {
		rep.Split = SplitNone
	}
	rep.phases(joined)
	rs := make([]*scan.Result, len(own))
	for w := range own {
		rs[w] = &own[w].Result
		rep.Bytes += rep.PerWorker[w].Bytes
	}
	rep.Result = scan.MergeAll(rs, len(own))
	order := map[string]int{}
	for i, n := range names {
		if _, ok := order[n]; !ok {
			order[n] = i
		}
	}
	scan.SortRejects(rep.Result.Rejects, order)
	if err := scan.FinishRows(&rep.Result, &c.Query, &rep.Spec); err != nil {
		return nil, err
	}
	rep.Merge = time.Since(t0) - joined
	rep.Total = time.Since(t0)
	return rep, nil
}

// headAdded says whether stream r's header is parlab's (JSON lines: its
// HeadAdded method's; see stage.Inputs.HeadAdded).
func headAdded(r io.Reader) bool {
	h, ok := r.(interface{ HeadAdded() bool })
	return ok && h.HeadAdded()
}

// delimiterOf is the field delimiter of stream r: its Delimiter method's
// (a stream stage opened says its own), else ','.
func delimiterOf(r io.Reader) byte {
	if d, ok := r.(interface{ Delimiter() byte }); ok {
		return d.Delimiter()
	}
	return ','
}

// newStreamRun is the run of c's query over r, input i of c.Names, for
// workers workers, its clock started at t0.
func newStreamRun(c *Config, r io.Reader, i, workers int, t0 time.Time) *streamRun {
	size := c.Chunk
	if size <= 0 {
		size = DefaultChunk
	}
	s := &streamRun{
		t0: t0, r: r, name: "standard input", sep: delimiterOf(r), added: headAdded(r), q: c.Query, size: size,
		blocks: make(chan block, workers), free: make(chan []byte, workers+2),
		bound: make(chan struct{}), done: make(chan struct{}),
	}
	if i < len(c.Names) {
		s.name = c.Names[i]
	}
	if c.sinks() { // (one worker: see runStream)
		s.flush = flushTo(c.Rows, func() *scan.Spec { spec := s.table.Spec(); return &spec })
	}
	s.failedAt.Store(math.MaxInt64)
	for range cap(s.free) {
		s.free <- nil // allocated when first taken
	}
	return s
}

// start starts the reader and waits until the stream's header is bound
// (s.table, s.setup): the error if the reader ended first, or ctx did.
func (s *streamRun) start(ctx context.Context) error {
	go s.read(ctx)
	select {
	case <-s.bound:
		return nil
	case <-s.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if s.table != nil { // bound, then ended: both were closed
		return nil
	}
	return s.err
}

// streamRun is one streamed run: the reader's state and what it shares
// with the workers.
type streamRun struct {
	t0   time.Time
	r    io.Reader
	name string
	sep  byte // the stream's delimiter (delimiterOf)
	// added: the stream's header is parlab's (headAdded): its errors and
	// rejects name the input's lines, one less than the CSV's
	added bool
	q     scan.Query
	size  int
	// decide: the reader decides q's kinds from the stream's head before
	// it binds the header (a lone stream, whose Query has none)
	decide bool

	blocks chan block  // read, in order; closed when the reader ends
	free   chan []byte // buffers to read into (nil: not allocated yet)
	// failedAt is the index of the earliest block whose scan failed
	// (math.MaxInt64: none): no more is read, and no later block scanned.
	failedAt atomic.Int64
	outHeld  atomic.Int64 // the rows out held (hold)
	// flush, if not nil, writes a block's rows out to the run's RowSink
	// (Config.Rows) once it is scanned
	flush func(r *scan.Result) error

	// Set by the reader before it closes bound (table, setup) or done
	// (err, blocks); read after.
	bound  chan struct{}
	table  *scan.Table // bound to the stream's header; its data is not scanned
	setup  time.Duration
	done   chan struct{}
	err    error // the reader's: a read error, or a header's
	nblock int   // blocks sent
	// the blank lines before the header, dropped: block offsets and lines
	// count from the header's start, and errors add these
	blankLines, blankBytes int
}

// block is a piece of the stream: whole rows (the first block: the header
// and rows), at offset off, in buf, which goes back to the free list after
// its scan. over: a row does not end within streamMaxRow bytes, and data
// is those bytes.
type block struct {
	data, buf []byte
	idx       int
	off       int
	over      bool
}

// blockOutcome is how a block's scan ended: its newlines (counted only
// if it succeeded), or its error.
type blockOutcome struct {
	idx, lines int
	off        int // the block's offset in the stream
	err        error
}

// read reads the stream into blocks for the workers, and closes s.blocks
// and s.done when it ends: at the end of the stream, on an error (s.err),
// after a block's scan failed, or when ctx ends.
func (s *streamRun) read(ctx context.Context) {
	defer close(s.done)
	defer close(s.blocks)
	if s.decide {
		var d *scan.Decider
		head, rerr, err := sampleHead(s.r, s.name, s.sep, &s.q, &d)
		if err != nil {
			s.err = err
			return
		}
		if d != nil {
			s.q.Kinds = d.Kinds()
		}
		s.r = replay(head, s.r, rerr)
	}
	buf := s.get(ctx, s.size)
	have, off := 0, 0
	for buf != nil && s.failedAt.Load() == math.MaxInt64 {
		n, err := fill(s.r, buf[have:])
		have += n
		eof := err == io.EOF
		if err != nil && !eof {
			var pe *scan.ParseError // (a transcoder's: it names the input)
			if s.err = err; !errors.As(err, &pe) {
				s.err = fmt.Errorf("%s: %w", s.name, err)
			}
			return
		}
		if eof && have == 0 {
			switch {
			case s.table == nil && s.blankLines > 0: // blank lines alone, as a file of them says
				s.err = &scan.ParseError{File: s.name, Line: s.blankLines + 1, Column: 1, Err: scan.ErrNoHeader}
			case s.table == nil:
				s.err = noData([]string{s.name})
			}
			return
		}
		cut := have
		if !eof {
			cut = scan.RowEnd(buf[:have], s.sep)
		}
		if s.table == nil && cut > 0 {
			t, err := scan.NewTableSep(s.name, buf[:cut], s.sep, &s.q)
			switch {
			case err == nil:
				s.table, s.setup = t, time.Since(s.t0)
				close(s.bound)
			case !eof && errors.Is(err, scan.ErrNoHeader):
				// blank lines so far: dropped, and counted, so that a
				// stream may start with more of them than a buffer holds
				// (as a file may)
				s.blankLines += bytes.Count(buf[:cut], []byte{'\n'})
				s.blankBytes += cut
				have = copy(buf, buf[cut:have]) // (a line not ended yet: the header's start)
				continue
			default:
				var pe *scan.ParseError
				if errors.As(err, &pe) {
					pe.Shift(s.blankLines)
				}
				s.err = err
				return
			}
		}
		if cut < 0 { // no row ends in buf: read on into a larger one
			if len(buf) >= streamMaxRow {
				if s.table != nil {
					s.send(ctx, block{data: buf[:have], buf: buf, off: off, over: true})
				} else {
					s.err = &scan.ParseError{File: s.name, Line: s.blankLines + 1, Column: 1, Err: scan.ErrLongHeader}
				}
				return
			}
			b := make([]byte, min(2*len(buf), streamMaxRow))
			copy(b, buf[:have])
			buf = b
			continue
		}
		var next []byte
		if rest := have - cut; !eof {
			if next = s.get(ctx, 2*rest); next == nil {
				return
			}
			copy(next, buf[cut:have])
		}
		if !s.send(ctx, block{data: buf[:cut], buf: buf, off: off}) || eof {
			return
		}
		buf, have, off = next, have-cut, off+cut
	}
}

// fill reads r into b until b is full (nil error), r ends (io.EOF, with
// what came before it), or r fails (its error as it is). Unlike
// io.ReadFull it never takes a reader's io.ErrUnexpectedEOF (a
// decompressor's for data cut short) for the end.
func fill(r io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := r.Read(b[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// get takes a buffer from the free list, at least n bytes long and at
// least a block; nil if ctx ended first.
func (s *streamRun) get(ctx context.Context, n int) []byte {
	select {
	case b := <-s.free:
		if len(b) < max(n, s.size) {
			b = make([]byte, max(n, s.size))
		}
		return b
	case <-ctx.Done():
		return nil
	}
}

// send hands b to the workers; false if ctx ended first.
func (s *streamRun) send(ctx context.Context, b block) bool {
	b.idx = s.nblock
	select {
	case s.blocks <- b:
		s.nblock++
		return true
	case <-ctx.Done():
		return false
	}
}

// work is one worker: it scans blocks into r until the reader ends (or
// ctx does), and returns each block's outcome. A block after one that
// failed it only gives back: its outcome cannot matter. (One before it
// is scanned: it may hold the earlier error, and its lines are needed.)
func (s *streamRun) work(ctx context.Context, st *WorkerStat, r *scan.Result) []blockOutcome {
	var outs []blockOutcome
	st.Start = time.Since(s.t0)
	defer func() { st.End = time.Since(s.t0) }()
	for {
		var b block
		var ok bool
		select {
		case b, ok = <-s.blocks:
		case <-ctx.Done():
			return outs
		}
		if !ok {
			return outs
		}
		if int64(b.idx) < s.failedAt.Load() && ctx.Err() == nil && !enough(&s.q, r) {
			rows, n := r.Rows, heldBytes(r)
			v := s.table.View(b.data, b.off)
			_, err := v.ScanPart(0, len(b.data), r)
			switch {
			case err == nil && s.flush != nil: // (written, so not held)
				err = s.flush(r)
			case err == nil:
				err = hold(&s.q, &s.outHeld, r, n)
			}
			o := blockOutcome{idx: b.idx, off: b.off, err: err}
			if b.over && (err == nil || errors.Is(err, scan.ErrOpenQuote)) {
				o.err = fmt.Errorf("%s: a row longer than %d bytes starts at byte %d (parlab holds a whole row of a stream in memory)", s.name, streamMaxRow, s.blankBytes+b.off)
			}
			if o.err != nil {
				lowerTo(&s.failedAt, b.idx)
			} else {
				o.lines = bytes.Count(b.data, []byte{'\n'})
			}
			outs = append(outs, o)
			st.Units++
			st.Bytes += int64(len(b.data))
			st.Rows += r.Rows - rows
		}
		s.free <- b.buf
	}
}

// lowerTo sets a to i if i is lower, atomically: a keeps the earliest
// index that failed.
func lowerTo(a *atomic.Int64, i int) {
	for {
		at := a.Load()
		if int64(i) >= at || a.CompareAndSwap(at, int64(i)) {
			return
		}
	}
}

// linesBefore is what a block's lines are counted after: the blank lines
// before the header, less the header where it is parlab's (added), so
// that errors and rejects name the input's lines.
func (s *streamRun) linesBefore() int {
	if s.added {
		return s.blankLines - 1
	}
	return s.blankLines
}

// failure is the run's error, if any: the earliest block's, its line
// moved past the newlines of the blocks before it; else the reader's.
func (s *streamRun) failure(outs []blockOutcome) error {
	slices.SortFunc(outs, func(a, b blockOutcome) int { return a.idx - b.idx })
	lines := s.linesBefore()
	for _, o := range outs {
		if o.err != nil {
			var pe *scan.ParseError
			if errors.As(o.err, &pe) {
				pe.Shift(lines)
			}
			return o.err
		}
		lines += o.lines
	}
	return s.err
}

// placeRejects gives rs, rejects this stream's blocks found (outs: every
// block's outcome, all of them scanned without error), their lines in
// the stream: a block's first line is the blank lines before the header,
// then every earlier block's newlines, counted after its scan.
func (s *streamRun) placeRejects(rs []scan.Reject, outs []blockOutcome) {
	if len(rs) == 0 {
		return
	}
	sorted := slices.Clone(outs)
	slices.SortFunc(sorted, func(a, b blockOutcome) int { return a.idx - b.idx })
	first := make(map[int64]int64, len(sorted)) // a block's offset: its first line
	line := int64(s.linesBefore()) + 1
	for _, o := range sorted {
		first[int64(o.off)] = line
		line += int64(o.lines)
	}
	for k := range rs {
		rs[k].Line += first[rs[k].From] - 1
	}
}
