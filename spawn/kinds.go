package spawn

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"

	"parlab/scan"
)

// sampleFiles is how many of a Set's files deciding kinds samples: the
// first, the last and others evenly between (each file's head costs a
// read of up to 128 KiB).
const sampleFiles = 8

// decide decides the kinds of the Set's query's columns (scan.Decider)
// from a sample of its files, once, in the process that opened the whole
// Set, and binds every Table to them; the workers get them with the query
// (a child's job, an MPI rank's options), so every worker reads each
// column alike. What is sampled depends on the inputs alone, never on the
// strategy: each sampled file's head, and windows spread through its
// body if it is a plain file (streamable says yes for an input that a
// strategy might stream instead, which can only read a head).
func (s *Set) decide(inputs int) error {
	d, err := scan.NewDecider(&s.Query, s.Tables[0])
	if err != nil {
		return err
	}
	for _, in := range sampled(inputs) {
		// (an empty input, or one past the Set's end, see Rest: none)
		if i, ok := slices.BinarySearch(s.input, in); ok {
			if err := s.sampleFile(d, i); err != nil {
				return err
			}
		}
	}
	s.Query.Kinds = d.Kinds()
	if len(s.Query.Kinds) == 0 {
		return nil
	}
	var prev *scan.Table
	for _, t := range s.Tables {
		if t == nil {
			continue
		}
		if err := t.RebindLike(prev, &s.Query); err != nil {
			return err
		}
		prev = t
	}
	return nil
}

// sampled is which of n files deciding samples: every one up to
// sampleFiles, else that many spread evenly, the first and last among them.
func sampled(n int) []int {
	if n <= sampleFiles {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, sampleFiles)
	for k := range out {
		out[k] = k * (n - 1) / (sampleFiles - 1)
	}
	return out
}

// streamable reports whether input path is sampled by its head alone: a
// memory file (standard input, a decompressed or transcoded input, which
// package stage lands in one, a /proc path) could have been a stream,
// which is read once from its start.
func streamable(path string) bool { return strings.HasPrefix(path, "/proc/") }

// sampleFile samples file i: its head, and its body's windows (see
// scan.SampleHead).
func (s *Set) sampleFile(d *scan.Decider, i int) error {
	t := s.Tables[i]
	a, n := s.body(i)
	line := 1 + bytes.Count(t.Head(), []byte{'\n'})
	window := func(off, size int, head bool, line int) error {
		end := min(n, off+size+scan.SampleSlack)
		var b []byte
		if f := s.Files[i]; !f.Copying() {
			b = f.Bytes()[off:end]
		} else {
			b = make([]byte, end-off)
			if err := f.ReadAt(b, off); err != nil {
				return err
			}
		}
		d.Sample(t, b, off, size, head, end == n, line)
		return nil
	}
	if err := window(a, scan.SampleHead, true, line); err != nil {
		return err
	}
	rest := n - a - scan.SampleHead
	if rest <= 0 || streamable(s.Paths[i]) {
		return nil
	}
	for k := 1; k <= scan.SampleSpread; k++ {
		off := a + scan.SampleHead + rest*k/(scan.SampleSpread+1)
		if err := window(off, scan.SampleWindow, false, 0); err != nil {
			return err
		}
	}
	return nil
}

// sampleHead samples the head of stream r, input name in delimiter sep, into *d (made from
// its header if nil), as sampleFile samples a file's head: it reads the
// header and SampleHead+SampleSlack bytes more (or to the end), and
// returns what it read, for the stream to be read again from its start
// (replay), and the read's error, if any, which replay gives after those
// bytes. A header it cannot bind leaves *d as it was: the stream's own
// read reports it. Its one error of its own (err) is a --types or
// --date-format error (scan.NewDecider's), which ends the run.
func sampleHead(r io.Reader, name string, sep byte, q *scan.Query, d **scan.Decider) (head []byte, rerr error, err error) {
	want := scan.SampleHead + scan.SampleSlack
	buf := make([]byte, 0, 2*want)
	for {
		n, e := fill(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		eof := e == io.EOF
		if e != nil && !eof {
			return buf, e, nil
		}
		more := func() bool { // read on, if a header may still end within the bound
			if eof || cap(buf) > scan.MaxHeaderBytes+want {
				return false
			}
			buf = append(buf[:cap(buf)], 0)[:len(buf)]
			return true
		}
		cut := len(buf)
		if !eof {
			cut = scan.RowEnd(buf, sep)
		}
		if cut < 0 {
			if more() {
				continue
			}
			return buf, nil, nil
		}
		t, terr := scan.NewTableSep(name, buf[:cut], sep, q)
		if terr != nil {
			if (errors.Is(terr, scan.ErrOpenQuote) || errors.Is(terr, scan.ErrNoHeader)) && more() {
				continue
			}
			return buf, nil, nil
		}
		a, _ := t.Body()
		if !eof && len(buf) < a+want && more() {
			continue
		}
		if *d == nil {
			if *d, err = scan.NewDecider(q, t); err != nil {
				return buf, nil, err
			}
		}
		end := min(len(buf), a+want)
		(*d).Sample(t, buf[a:end], a, scan.SampleHead, true, eof && end == len(buf), 1+bytes.Count(t.Head(), []byte{'\n'}))
		if e == io.EOF {
			e = nil
		}
		return buf, e, nil
	}
}

// replay is r read again from its start: head, what sampleHead read, then
// rerr if it failed, else the rest of r.
func replay(head []byte, r io.Reader, rerr error) io.Reader {
	if rerr != nil {
		return io.MultiReader(bytes.NewReader(head), errReader{rerr})
	}
	return io.MultiReader(bytes.NewReader(head), r)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// decideStreams decides the kinds of c's query over c.Opens, as decide
// does over a Set of the same inputs staged (each sampled input's head,
// read from an opening of its own), before any worker binds one: c with
// its Query's Kinds set. An input that cannot be opened or read is left
// out (its worker reports it). It returns when ctx ends, even if a read
// is blocked.
func decideStreams(ctx context.Context, c Config) (Config, error) {
	done := make(chan error, 1)
	q := c.Query
	go func() {
		var d *scan.Decider
		for _, i := range sampled(len(c.Opens)) {
			rd, closeIt, err := c.Opens[i]()
			if err != nil {
				continue
			}
			name := "standard input" // (as newStreamRun names it)
			if i < len(c.Names) {
				name = c.Names[i]
			}
			_, _, err = sampleHead(rd, name, delimiterOf(rd), &q, &d)
			closeIt()
			if err != nil {
				done <- err
				return
			}
		}
		if d != nil {
			q.Kinds = d.Kinds()
		}
		done <- nil
	}()
	select {
	case err := <-done:
		c.Query = q
		return c, err
	case <-ctx.Done():
		return c, ctx.Err()
	}
}
