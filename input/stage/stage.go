package stage

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/sys/unix"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"parlab/input"
	"parlab/scan"
	"parlab/shm"
)

// Inputs are a query's PATHs made ready to scan. A plain file is scanned
// where it is (Paths[i] is its path), and so is standard input redirected
// from one (Paths[i] is /proc/PID/fd/0; see inPlace), in its own delimiter
// (Seps[i]: the Dialect's Sep, a tab for .tsv and .tab, or the one its first
// line has: scan.SniffDelimiter). Anything else lands once in a
// memory file (shm.NewMemFile) in the dialect scan reads, with ',', which every
// strategy then maps in place like a file, child processes included
// (Paths[i] is /proc/PID/fd/N): standard input ("-") or a pipe (a FIFO,
// bash's <(…)), a compressed file (.gz, .zst, or a stream that starts as
// one), a file in UTF-16 or whose lines end in a CR alone (see readable),
// and every file under a Dialect that rewrites lines or fields (decimal
// commas, comments, skipped lines, null tokens, ragged rows:
// Dialect.readAll), transcoded by scan.Transcode.
// Names[i] is what messages call input i (its PATH, or "standard input").
type Inputs struct {
	Paths, Names []string
	// Seps is each of Paths' field delimiter (0 for ','; see Sep): a
	// plain file whose delimiter is a tab, ';' or '|' is scanned where it
	// is, in its own (scan.NewTableSep); a staged one is in ','.
	Seps []byte
	// HeadAdded says of each of Paths whether its first line is a header
	// parlab wrote, not the input's (JSON lines, whose line n is line n+1
	// of their CSV: ndjson.go): an error's or a rejected row's line is
	// then one less (spawn.Config.HeadAdded). A stream says it itself
	// (its HeadAdded method). nil: none.
	HeadAdded []bool
	// Stream, from Stream only: the lone input's CSV bytes, read as they
	// come (Paths is then empty, and Names[0] names it).
	Stream io.Reader
	// Opens, from Stream only: the PATHs, all files to read (compressed,
	// say), each opened as a stream of its CSV
	// bytes when a worker takes it (Names name them; Paths is empty). See
	// spawn.Config.Opens.
	Opens []func() (io.Reader, func(), error)
	// Rest, if not nil, is the error of the first PATH that could not be
	// made ready, after the last of Paths: the run's error if the scan of
	// Paths finds none, so that errors come in PATH order whatever the
	// strategy (a scan that streams each file finds them in that order).
	Rest    error
	mem     []*os.File
	closers []func()
}

// Sep is the field delimiter of Paths[i] (of Stream, for 0 where there is
// one): ',' unless Seps (the stream's Delimiter) says another.
func (in *Inputs) Sep(i int) byte {
	if d, ok := in.Stream.(interface{ Delimiter() byte }); ok && i == 0 {
		return d.Delimiter()
	}
	if i < len(in.Seps) && in.Seps[i] != 0 {
		return in.Seps[i]
	}
	return ','
}

// Close releases the memory files, and the stream's file and
// decompressor. The Paths that named them must not be opened after, nor
// Stream read.
func (in *Inputs) Close() {
	for _, f := range in.mem {
		f.Close()
	}
	for _, c := range in.closers {
		c()
	}
	in.mem, in.closers = nil, nil
}

// Dialect is how a query's inputs are written, as far as the user said.
type Dialect struct {
	// Sep is every input's field delimiter; 0: each one's by its name,
	// else by its first line.
	Sep byte
	// DecimalComma: numbers are written with a decimal comma (1,5), as in
	// much of Europe's spreadsheets; the transcoder makes them points
	// (scan.Transcoding), so every input is read, none scanned in place.
	DecimalComma bool
	// Comment, Skip, Null and Ragged are scan.Transcoding's: lines to take
	// as blank, tokens that mean missing, short rows padded. Like
	// DecimalComma they make every input read through the transcoder.
	Comment byte
	Skip    int
	Null    []string
	Ragged  bool
	// MaxMemory bounds what Stage holds in memory files, all its inputs
	// together (they are RAM: memfd); past it Stage fails with
	// ErrMaxMemory. 0: DefaultMaxMemory().
	MaxMemory int64
	// MaxRatio bounds how many times its own size a compressed input may
	// grow, once past ratioFloor bytes out (a decompression bomb); past
	// it the read fails with ErrRatio. 0: DefaultMaxRatio; -1: no bound.
	MaxRatio int64
	// Columns are the names the query reads: a JSON lines input writes
	// those of its keys, and the names it has no key for (ndjson.go); nil:
	// every key (a query that selects "*").
	Columns []string
	// json: this input is JSON lines by its name; sniff: it has no name
	// that says (standard input, a pipe), so its first byte decides
	// (openSource sets them for each input)
	json, sniff bool
	// alone: the input is read by itself, not beside others (a lone
	// stream, or one PATH staged): its JSON lines are converted on every
	// core (convertBlocks), not on one
	alone bool
}

// DefaultMaxRatio is Dialect.MaxRatio's default: gzip's best is about
// 1,030 to 1 (a file of one byte repeated), and CSV files people have
// compress 5 to 50 times.
const DefaultMaxRatio = 1000

// ratioFloor is the output below which no ratio is judged: a small file
// of repeated lines may compress far.
const ratioFloor = 64 << 20

// DefaultMaxMemory is Dialect.MaxMemory's default: half of this machine's
// memory (sysinfo(2)), or 4 GiB where that cannot be read.
func DefaultMaxMemory() int64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil || si.Totalram == 0 {
		return 4 << 30
	}
	return int64(si.Totalram) * int64(si.Unit) / 2
}

// ErrMaxMemory: staged inputs reached Dialect.MaxMemory.
var ErrMaxMemory = errors.New("the inputs held in memory reach --max-memory")

// maxMemoryHint follows ErrMaxMemory: why, and what to do.
const maxMemoryHint = "the processes and mpi strategies, the file and keys splits, bench and menu hold a stream, compressed or transcoded input whole in memory; raise --max-memory, or let it be scanned as it is read (parlab query with seq, or goroutines with the rows split)"

// errRowBound is the error of a staged line longer than scan.MaxRowBytes.
var errRowBound = fmt.Errorf("a row longer than %d bytes", scan.MaxRowBytes)

// ErrRatio: a compressed input grew more than Dialect.MaxRatio times its
// size.
var ErrRatio = errors.New("it decompresses to more than --max-ratio times its size")

// budget is what memory files may still take, shared by a Stage's inputs.
type budget struct {
	left  atomic.Int64
	limit int64
}

func newBudget(limit int64) *budget {
	if limit <= 0 {
		limit = DefaultMaxMemory()
	}
	b := &budget{limit: limit}
	b.left.Store(limit)
	return b
}

// memWriter writes a staged input into its memory file: it takes each
// write from the budget (ErrMaxMemory past it), and fails a line longer
// than scan.MaxRowBytes as a stream's reader does, so that a file of no
// line ends (a gzip'd run of NUL bytes) stops there, in any strategy.
type memWriter struct {
	w       io.Writer
	b       *budget
	name    string
	off     int64 // bytes written
	lineAt  int64 // where the line being written starts
	newline bool  // a line has ended
}

func (m *memWriter) Write(p []byte) (int, error) {
	if m.b.left.Add(-int64(len(p))) < 0 {
		return 0, fmt.Errorf("%s: %w (%d MiB): %s", m.name, ErrMaxMemory, m.b.limit>>20, maxMemoryHint)
	}
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		m.lineAt, m.newline = m.off+int64(i)+1, true
	}
	m.off += int64(len(p))
	if m.off-m.lineAt > scan.MaxRowBytes {
		if !m.newline { // (the header: as the scan would say)
			return 0, &scan.ParseError{File: m.name, Line: 1, Column: 1, Err: scan.ErrLongHeader}
		}
		return 0, fmt.Errorf("%s: %w starts at byte %d (parlab holds a whole row of a stream in memory)", m.name, errRowBound, m.lineAt)
	}
	return m.w.Write(p)
}

// transcoding is how an input of d in delimiter sep is read.
func (d Dialect) transcoding(sep byte) scan.Transcoding {
	return scan.Transcoding{Sep: sep, DecimalComma: d.DecimalComma, Comment: d.Comment, Skip: d.Skip, Null: d.Null, Ragged: d.Ragged}
}

// readAll reports whether d makes every input read (transcoded), none
// scanned in place, whatever its delimiter.
func (d Dialect) readAll() bool { return !d.transcoding(',').Plain() }

// Stage makes paths (files, as input.ExpandPaths gives them, and input.Stdin) ready to
// scan, reading standard input from stdin, as d says they are written.
// Inputs that must be read into memory
// are read side by side, as many at once as Go may run threads
// (GOMAXPROCS): a set of compressed files decompresses on every core. If
// the first PATH fails, its error is Stage's and nothing stays open; if a
// later one does, the PATHs before it are the Inputs and its error is
// Inputs.Rest (errors in PATH order). ctx bounds it all (see bounded):
// opening, sniffing, reading.
func Stage(ctx context.Context, paths []string, d Dialect, stdin io.Reader) (*Inputs, error) {
	return bounded(ctx, func() (*Inputs, error) { return stageAll(ctx, paths, d, stdin) })
}

// bounded runs f, which makes Inputs, and returns its outcome, or ctx's
// cause (a *spawn.TimeoutError, say) as soon as ctx ends, whatever f is
// waiting for: an open(2) of a FIFO that no writer opened, or a read from
// a silent pipe, which nothing interrupts. f then goes on in its goroutine
// until that call returns, and what it made is closed then. (f's own
// reads stop at ctx's end: see ctxReader.)
func bounded(ctx context.Context, f func() (*Inputs, error)) (*Inputs, error) {
	if ctx.Done() == nil {
		return f()
	}
	type outcome struct {
		in  *Inputs
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		in, err := f()
		done <- outcome{in, err}
	}()
	select {
	case o := <-done:
		return o.in, o.err
	case <-ctx.Done():
		go func() {
			if o := <-done; o.in != nil {
				o.in.Close()
			}
		}()
		return nil, fmt.Errorf("%w (while opening and reading the inputs)", context.Cause(ctx))
	}
}

// ctxReader is r, whose reads fail with ctx's cause once ctx has ended: a
// copy of an endless stream stops at the timeout. (A read blocked in r is
// not interrupted: see bounded.)
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p)
}

func stageAll(ctx context.Context, paths []string, d Dialect, stdin io.Reader) (*Inputs, error) {
	n := len(paths)
	d.alone = n == 1
	in := &Inputs{Paths: make([]string, n), Names: make([]string, n), Seps: make([]byte, n), HeadAdded: make([]bool, n)}
	errs := make([]error, n)
	b := newBudget(d.MaxMemory)
	var next atomic.Int64
	var mu sync.Mutex // in.mem
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			var pk *pack // past packOver inputs, this worker's: one descriptor for all it stages
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				src, err := openSource(paths[i], d, stdin)
				in.Paths[i], in.Names[i], errs[i] = src.path, src.name, err
				if err != nil || src.r == nil {
					in.Seps[i] = src.sep // (in place: its own)
					continue
				}
				if pk == nil && n > packOver {
					if pk, errs[i] = newPack(); errs[i] != nil {
						src.close()
						continue
					}
					mu.Lock()
					in.mem = append(in.mem, pk.f)
					mu.Unlock()
				}
				var mem *os.File
				mem, in.Paths[i], in.Seps[i], in.HeadAdded[i], errs[i] = stage(ctxReader{ctx, src.r}, src.zip, src.d, src.sep, src.name, b, pk)
				src.close()
				if mem != nil {
					mu.Lock()
					in.mem = append(in.mem, mem)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for k, err := range errs {
		switch {
		case err == nil:
			continue
		case k == 0:
			in.Close()
			return nil, err
		}
		// the PATHs before k are ready: the run's error is theirs, if
		// any, else this one (Inputs.Rest)
		in.Paths, in.Names, in.Seps, in.HeadAdded, in.Rest = in.Paths[:k], in.Names[:k], in.Seps[:k], in.HeadAdded[:k], err
		break
	}
	return in, nil
}

// Stream is Stage for a strategy that scans a stream while it reads it
// (spawn.Streams): a lone PATH that Stage would land in a memory file
// (standard input or a pipe, perhaps compressed; a .gz or .zst file) is
// left a stream: Inputs.Stream reads its
// CSV bytes, decompressed and transcoded, Names[0] is what messages call
// it, and Paths is empty. Several PATHs that are all files of that kind
// are left streams too, opened one by one as the workers take them
// (Inputs.Opens). Anything else is staged as Stage stages it. Inputs.Close closes the
// lone stream's file and decompressor (each of Opens is closed by whoever
// opened it).
//
// ctx bounds the opening and the first line's reading, as it bounds Stage;
// the stream itself is read later, by the run, which its ctx bounds.
func Stream(ctx context.Context, paths []string, d Dialect, stdin io.Reader) (*Inputs, error) {
	return bounded(ctx, func() (*Inputs, error) { return stream(ctx, paths, d, stdin) })
}

func stream(ctx context.Context, paths []string, d Dialect, stdin io.Reader) (*Inputs, error) {
	if len(paths) > 1 {
		if seps, ok := allRead(paths, d); ok {
			in := &Inputs{Names: paths}
			for i, p := range paths {
				di := d
				di.Sep = seps[i]
				in.Opens = append(in.Opens, func() (io.Reader, func(), error) { return openStream(p, di) })
			}
			return in, nil
		}
	}
	if len(paths) != 1 {
		return stageAll(ctx, paths, d, stdin)
	}
	d.alone = true
	src, err := openSource(paths[0], d, stdin)
	if err != nil {
		return nil, err
	}
	if src.r == nil {
		return &Inputs{Paths: []string{src.path}, Names: []string{src.name}, Seps: []byte{src.sep}}, nil
	}
	r, closeIt, err := streamOf(src)
	if err != nil {
		return nil, err
	}
	return &Inputs{Names: []string{src.name}, Stream: r, closers: []func(){closeIt}}, nil
}

// streamOf is src (from openSource, its r not nil) as a stream of CSV
// bytes in its delimiter (the stream's Delimiter method says it):
// decompressed, and transcoded to the comma dialect only if the Dialect
// rewrites lines or fields (scan.Transcode, in a goroutine of its own,
// writing into a pipe that the stream reads), and the function that
// closes it, safe while a Read is in flight (lateClose). The transcoder
// alone reads the decompressor, so it closes it and the file when it
// ends; closing the pipe makes it end at its next write. On error src is
// closed.
func streamOf(src source) (io.Reader, func(), error) {
	r, zclose, err := decompress(src.r, src.zip, src.d.MaxRatio, src.name)
	if err != nil {
		src.close()
		return nil, nil, err
	}
	var json bool
	if r, json = asJSON(r, src.d); json {
		pr, pw := io.Pipe()
		go func() {
			pw.CloseWithError(jsonToCSV(pw, r, src.d.Columns, src.d.Null, src.name, src.d.alone))
			zclose()
			src.close()
		}()
		lc := &lateClose{r: pr, sep: ',', headAdded: true, closers: []func(){func() { pr.Close() }}}
		return lc, lc.close, nil
	}
	if r, src.sep, err = readable(r, src.sep); err != nil {
		zclose()
		src.close()
		return nil, nil, fmt.Errorf("%s: %w", src.name, err)
	}
	closers := []func(){zclose, src.close}
	sep := src.sep
	if o := src.d.transcoding(src.sep); src.d.readAll() {
		sep = ','
		pr, pw := io.Pipe()
		go func(r io.Reader) {
			pw.CloseWithError(scan.Transcode(pw, r, o, src.name))
			zclose()
			src.close()
		}(r)
		r, closers = pr, []func(){func() { pr.Close() }}
	}
	lc := &lateClose{r: r, sep: sep, closers: closers}
	return lc, lc.close, nil
}

// allRead reports whether every PATH is a regular file that must be read
// to be scanned (compressed, in another dialect than a comma's, or any
// under d.readAll): what Stream leaves to Inputs.Opens. seps are
// their delimiters as far as known here (delimiter's, or a plain file's
// first line's), so that opening them does not look again.
func allRead(paths []string, d Dialect) (seps []byte, ok bool) {
	seps = make([]byte, len(paths))
	for i, p := range paths {
		if p == input.Stdin {
			return nil, false
		}
		seps[i] = input.NameDelimiter(p, d.Sep)
		if input.Compression(p) == "" && !d.readAll() && !jsonName(p) && input.PlainDelimiter(p, d.Sep) != 0 {
			return nil, false // scanned in place (0: read as a stream)
		}
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			return nil, false // (the error comes when Stage opens it)
		}
	}
	return seps, true
}

// openStream opens PATH p, a file to read, as a stream of its CSV
// bytes (Inputs.Opens), and returns the function that closes it (after
// the Read in flight, if any: see lateClose).
func openStream(p string, d Dialect) (io.Reader, func(), error) {
	src, err := openSource(p, d, nil)
	if err != nil {
		return nil, nil, err
	}
	return streamOf(src)
}

// lateClose is a stream that closes its decompressor and file once no
// Read is in flight: a run stopped by its timeout may leave its reader in
// a Read (spawn.Config.Stream), and a decompressor closed under a Read
// fails in it (klauspost's zstd: a slice out of range). close in the
// middle of a Read leaves the closing to the Read's end; a Read after
// close reads nothing. Safe for one reader and one closer at once.
type lateClose struct {
	r         io.Reader
	sep       byte // the stream's field delimiter (Delimiter)
	headAdded bool // (HeadAdded)
	mu        sync.Mutex
	reading   bool
	closed    bool
	closers   []func()
}

// Delimiter is the field delimiter of the stream's CSV bytes: ',', a tab,
// ';' or '|' (a stream is transcoded only for what else it needs). A
// scan of a stream reads it from here (spawn's delimiterOf).
func (l *lateClose) Delimiter() byte { return l.sep }

// HeadAdded says whether the stream's first line is a header parlab wrote,
// not the input's (JSON lines: see Inputs.HeadAdded).
func (l *lateClose) HeadAdded() bool { return l.headAdded }

// errStreamClosed is a Read's error after Inputs.Close.
var errStreamClosed = errors.New("the input was closed")

func (l *lateClose) Read(p []byte) (int, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return 0, errStreamClosed
	}
	l.reading = true
	l.mu.Unlock()
	n, err := l.r.Read(p)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reading = false
	if l.closed {
		l.release()
	}
	return n, err
}

func (l *lateClose) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if !l.reading {
		l.release()
	}
}

// release runs the closers, once; l.mu is held.
func (l *lateClose) release() {
	for _, c := range l.closers {
		c()
	}
	l.closers = nil
}

// source is one PATH opened: scanned where it is (r nil: path), or read
// from r, raw (zip says its input.Compression), in delimiter sep.
type source struct {
	path, name string
	r          io.Reader
	zip        string
	sep        byte
	d          Dialect  // how it is read (its Sep aside: sep)
	file       *os.File // r's file, if Stage opened one
}

// close closes the file that openSource opened, if any.
func (s *source) close() {
	if s.file != nil {
		s.file.Close()
	}
}

// readable is r, a stream, made ready for scan.Transcode: decoded to UTF-8
// if it starts with UTF-16's byte order mark (which it drops; the mark says
// the byte order), and each CR made an LF if its first line ends in a CR
// alone (an old Mac file's line ends; in quotes too, where such a file's
// line breaks are CRs as well). Its delimiter is sep, or if sep is 0 the
// one its first line says (scan.SniffDelimiter). It reads r as far as the
// end of that line (or input.SniffBytes, or r's end), waiting for a slow
// writer's bytes, and keeps them for the reader it returns. A read error is
// returned at once.
func readable(r io.Reader, sep byte) (io.Reader, byte, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, input.SniffBytes)
	}
	if head, err := br.Peek(2); err != nil && err != io.EOF {
		return nil, 0, err
	} else if input.IsUTF16(head) {
		u := transform.NewReader(br, unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder())
		br = bufio.NewReaderSize(u, input.SniffBytes)
	}
	limit := min(input.SniffBytes, br.Size())
	for n := 1; ; {
		_, err := br.Peek(n)                          // (waits for n bytes: a pipe's writer may be slow)
		head, _ := br.Peek(min(br.Buffered(), limit)) // (the same bytes however they came)
		found, whole, crOnly := scan.SniffDelimiter(head)
		switch {
		case err == io.EOF || whole || len(head) >= limit:
			if sep == 0 {
				sep = found
			}
			if crOnly {
				return crToLF{br}, sep, nil
			}
			return br, sep, nil
		case err != nil:
			return nil, 0, err
		}
		n = len(head) + 1
	}
}

// crToLF reads r with every CR made an LF.
type crToLF struct{ r io.Reader }

func (c crToLF) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i, b := range p[:n] {
		if b == '\r' {
			p[i] = '\n'
		}
	}
	return n, err
}

// openSource opens PATH p: a plain CSV file (or standard input redirected
// from one, see inPlace) is scanned where it is; anything else is a
// stream to read, its input.Compression by its name or, for a stream, by its
// first bytes.
func openSource(p string, d Dialect, stdin io.Reader) (source, error) {
	src := source{path: p, name: p, zip: input.Compression(p), sep: input.NameDelimiter(p, d.Sep), d: d}
	src.d.json = p != input.Stdin && jsonName(p)
	pipe := false
	if p != input.Stdin {
		st, err := os.Stat(p)
		pipe = err == nil && input.IsPipe(st)
	}
	src.d.sniff = (p == input.Stdin || pipe) && !src.d.json
	if p != input.Stdin && !pipe && src.zip == "" && !src.d.json {
		if found := input.PlainDelimiter(p, d.Sep); found != 0 {
			if src.sep = found; !d.readAll() {
				return src, nil // in place, in its delimiter
			}
		}
	}
	if p == input.Stdin {
		if stdin == nil {
			return src, errors.New("standard input (-) is not available here")
		}
		src.r, src.name = stdin, "standard input"
		if f, ok := stdin.(*os.File); ok && inPlace(f) && !jsonHead(f) {
			found := input.SniffFile(shm.MemFilePath(f)) // (0: read as a stream, as input.PlainDelimiter says)
			if src.sep == 0 {
				src.sep = found
			}
			if found != 0 && !d.readAll() {
				src.r, src.path = nil, shm.MemFilePath(f)
				return src, nil
			}
		}
	} else {
		f, err := os.Open(p) // (a pipe: waits for its writer, as cat does)
		if err != nil {
			return src, err
		}
		src.r, src.file = f, f
	}
	if p == input.Stdin || pipe { // a stream: compressed if its first bytes say so
		widen(src.r)
		br := bufio.NewReaderSize(src.r, copyBytes)
		magic, _ := br.Peek(4)
		if z := input.StreamZip(magic); z != "" {
			src.zip = z
		}
		src.r = br
	}
	return src, nil
}

// inPlace reports whether f, standard input, can be scanned where it is,
// as a file is: it is a regular file (parlab query - < x.csv), read from
// its start (a shell that read some of it first leaves the rest to stage),
// and does not start as a compressed stream does.
func inPlace(f *os.File) bool {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	if off, err := f.Seek(0, io.SeekCurrent); err != nil || off != 0 {
		return false
	}
	var magic [4]byte
	n, _ := f.ReadAt(magic[:], 0)
	return !input.Compressed(magic[:n])
}

// packOver is how many inputs Stage lands in a memory file each: past it,
// each staging worker lands its inputs back to back in one memory file of
// its own (a pack), each at a page boundary, and names them by
// RegionPath; a memory file each (a descriptor each) failed past the
// process's descriptor limit (25,000 .gz files: "too many open files").
const packOver = 256

// pack is a memory file that inputs are staged into back to back; end is
// where the next one starts (a page boundary).
type pack struct {
	f   *os.File
	end int64
}

func newPack() (*pack, error) {
	f, err := shm.NewMemFile("parlab-inputs")
	if err != nil {
		return nil, err
	}
	return &pack{f: f}, nil
}

var pageSize = int64(os.Getpagesize())

// copyBufs are stage's copy buffers, copyBytes each: a set of many small
// inputs allocated one for each.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, copyBytes); return &b }}

// stage writes src, decompressed (and transcoded to ',' if d rewrites
// lines or fields), into a new memory file (returned, with its path), or
// at the end of pk if not nil (its region's path), taking its bytes from
// b. It returns the delimiter of what it wrote: src's own (sep, or its
// first line's), or ',' where it transcoded; and whether its first line
// is a header it wrote (JSON lines: Inputs.HeadAdded).
func stage(src io.Reader, zip string, d Dialect, sep byte, name string, b *budget, pk *pack) (*os.File, string, byte, bool, error) {
	src, zclose, err := decompress(src, zip, d.MaxRatio, name)
	if err != nil {
		return nil, "", 0, false, err
	}
	defer zclose()
	src, json := asJSON(src, d)
	if !json {
		if src, sep, err = readable(src, sep); err != nil {
			return nil, "", 0, false, fmt.Errorf("%s: %w", name, err)
		}
	}
	var mem *os.File
	var start int64
	if pk == nil {
		if mem, err = shm.NewMemFile("parlab-input"); err != nil {
			return nil, "", 0, false, err
		}
	} else {
		mem, start = pk.f, pk.end
		if _, err := mem.Seek(start, io.SeekStart); err != nil {
			return nil, "", 0, false, err
		}
	}
	w := &memWriter{w: mem, b: b, name: name}
	if json {
		err = jsonToCSV(w, src, d.Columns, d.Null, name, d.alone)
		sep = ','
	} else if d.readAll() {
		err = scan.Transcode(w, src, d.transcoding(sep), name)
		sep = ','
	} else {
		// read(2) and write(2) through a buffer of copyBytes, not
		// io.Copy's splice(2) (what *os.File's ReadFrom does with a
		// pipe): the struct wrappers hide ReadFrom and WriteTo.
		bp := copyBufs.Get().(*[]byte)
		_, err = io.CopyBuffer(w, struct{ io.Reader }{src}, *bp)
		copyBufs.Put(bp)
	}
	if err == nil && pk != nil { // the next input starts on a page
		pk.end = (start + w.off + pageSize - 1) / pageSize * pageSize
		err = mem.Truncate(pk.end)
	}
	if err != nil {
		if pk == nil {
			mem.Close()
		} else {
			mem.Truncate(start) // (what it wrote is given back)
		}
		var pe *scan.ParseError
		if errors.As(err, &pe) || errors.Is(err, ErrMaxMemory) || errors.Is(err, errRowBound) {
			return nil, "", 0, false, err // (named already)
		}
		return nil, "", 0, false, fmt.Errorf("%s: %w", name, err)
	}
	if pk != nil {
		return nil, input.RegionPath(mem, start, w.off), sep, json, nil
	}
	return mem, shm.MemFilePath(mem), sep, json, nil
}

// decompress is src decompressed as zip says (".gz", ".zst", or "" for
// none), and the function that releases the decompressor.
// Its reads fail with a *ZipError where the compressed data ends early or
// fails its checksum, never ending as if the data were whole.
func decompress(src io.Reader, zip string, ratio int64, name string) (io.Reader, func(), error) {
	in := &counter{r: src}
	if ratio == 0 {
		ratio = DefaultMaxRatio
	}
	switch zip {
	case ".gz":
		zr, err := gzip.NewReader(in)
		if err == io.EOF && in.n == 0 { // an empty file: no data, as zstd says too
			return bytes.NewReader(nil), func() {}, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: not gzip data: %w", name, err)
		}
		return &zipReader{r: zr, in: in, kind: "gzip", ratio: ratio}, func() { zr.Close() }, nil
	case ".zst":
		// Synchronous decoding: the decoder's goroutines (its default,
		// concurrency GOMAXPROCS) were slower into a memory file than
		// one (docs/experiments.md, 2026-12-06).
		zr, err := zstd.NewReader(in, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return &zipReader{r: zr, in: in, kind: "zstd", ratio: ratio}, zr.Close, nil
	}
	return src, func() {}, nil
}

// ZipError is a decompressor's failure: the compressed data ends before
// its last frame does (a file cut short, an interrupted download) or fails
// its checksum. At is how many compressed bytes had been read when it
// failed: for data cut short, its length.
type ZipError struct {
	Kind string // gzip or zstd
	At   int64
	Err  error
}

func (e *ZipError) Error() string {
	if errors.Is(e.Err, io.ErrUnexpectedEOF) {
		return fmt.Sprintf("the %s data ends early, at byte %d (cut short? an interrupted download or copy): %v", e.Kind, e.At, e.Err)
	}
	return fmt.Sprintf("the %s data is damaged, at or before byte %d: %v", e.Kind, e.At, e.Err)
}

func (e *ZipError) Unwrap() error { return e.Err }

// zipReader is a decompressor whose errors (any but io.EOF, the clean end
// of its last frame) become *ZipErrors.
type zipReader struct {
	r     io.Reader
	in    *counter
	kind  string
	ratio int64 // Dialect.MaxRatio (-1: none)
	out   int64 // bytes given
}

func (z *zipReader) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	if z.out += int64(n); z.ratio > 0 && z.out > ratioFloor && z.out > z.ratio*z.in.n {
		return n, fmt.Errorf("%w (%d: %d bytes from %d; a decompression bomb?); --max-ratio -1 lifts the bound", ErrRatio, z.ratio, z.out, z.in.n)
	}
	if err != nil && err != io.EOF {
		var ze *ZipError
		if !errors.As(err, &ze) {
			err = &ZipError{Kind: z.kind, At: z.in.n, Err: err}
		}
	}
	return n, err
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// copyBytes is the buffer a stream is read through, and the size widen
// asks of a pipe: each read moves a megabyte, not a page or sixteen (as
// io.Copy's splice through a 64 KiB pipe does), and the writer blocks a
// sixteenth as often (docs/experiments.md, 2026-12-06).
const copyBytes = 1 << 20

// widen asks that r, if it is a pipe, hold copyBytes (F_SETPIPE_SZ). It
// is a hint: a pipe that cannot grow (past /proc/sys/fs/pipe-max-size for
// a user without CAP_SYS_RESOURCE, or the user's pipe quota) stays as it
// is, and is read all the same.
func widen(r io.Reader) {
	f, ok := r.(*os.File)
	if !ok {
		return
	}
	if st, err := f.Stat(); err != nil || !input.IsPipe(st) {
		return
	}
	unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, copyBytes)
}
