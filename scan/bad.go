package scan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Bad rows (Query.SkipBad, --skip-bad-rows): a row that a scan would
// stop at (ErrShortRow, a value that is not its column's kind or not a
// number to sum, a quote out of place) is left out and counted in
// Result.Bad instead, and kept as a Reject, as DuckDB's ignore_errors and
// store_rejects do. Rows longer than the header are read, as they are
// without the flag.
//
// Such a scan first scans the way it would without the flag, into a
// Result of its own, and keeps it if no row was bad; else it scans the
// same rows again the careful way (carefulPart): one at a time, each
// checked whole before anything of it is added (line, slowRow and rowGen
// check first, then add), so a bad row leaves nothing behind. (The
// windows' fast paths count rows ahead of reading them: past a bad row
// they cannot go on.) So a step of ScanPart without a bad row costs what
// it costs without the flag, and a step with one about four times that.

// Reject is one bad row.
type Reject struct {
	File string
	// Off is where the row starts in its file (or stream), From where the
	// scan that found it started, and Line the fault's line counted from
	// From's (1 for From's own): the caller that knows From's line makes it
	// the file's (spawn counts it: Set.placeRejects, a stream's blocks).
	Off, From int64
	Line      int64
	Column    int    // the byte of the line where the fault is (1-based)
	Field     string // the header name of the column, if the fault is a field's
	Reason    string
	Row       []byte // the row's bytes, cut to MaxRejectRow
}

// MaxRejectRow is how much of a bad row a Reject keeps.
const MaxRejectRow = 4 << 10

// maxRejects is how many Rejects a Result keeps (it counts every bad
// row in Bad): a file of bad rows must not fill the memory.
const maxRejects = 1 << 20

// errAt is errAt for the Table's data; a careful scan's (SkipBad) error
// leaves Line and Column to carefulPart, which counts lines as it goes
// (errAt counts from the data's start: once for an error that stops the
// scan, but not for every bad row of a file).
func (t *Table) errAt(off int, field string, value []byte, err error) *ParseError {
	if !t.b.skipBad && !t.lazy {
		return errAt(t.name, t.data, off, field, value, err)
	}
	v := value
	if len(v) > 40 {
		v = v[:40]
	}
	return &ParseError{File: t.name, Field: field, Value: string(v), Err: err, off: off}
}

// scanSkipping is ScanPart for a scan that skips bad rows: the fast
// scan of [start, end) if it finds none, else the careful one.
func (t *Table) scanSkipping(start, end int, r *Result) (int, error) {
	fast := *t
	fast.b.skipBad, fast.lazy = false, true // (its error is only a sign: no line counted)
	try := Result{Part: r.Part}
	var sc rowScratch
	sc.span = end - start
	p, err := fast.scanPart(start, end, &try, &sc)
	fast.foldKeys(&try, &sc)
	var pe *ParseError
	switch {
	case err == nil:
		r.Merge(&try)
		return p, nil
	case !errors.As(err, &pe) || t.cut && errors.Is(err, ErrOpenQuote):
		return p, err
	}
	sc = rowScratch{span: end - start}
	p, err = t.carefulPart(start, end, r, &sc)
	t.foldKeys(r, &sc)
	return p, err
}

// carefulPart is scanPart for a scan that skips bad rows: every row one
// at a time, a bad one counted in r.Bad and kept in r.Rejects.
func (t *Table) carefulPart(start, end int, r *Result, sc *rowScratch) (int, error) {
	data := t.data
	end = min(end, len(data))
	p := max(start, t.body)
	line := 1 + int64(bytes.Count(data[min(start, p):p], []byte{'\n'})) // p's line, counted from start's
	for p < end {
		if q := skipBlank(data, p); q != p {
			line += int64(bytes.Count(data[p:q], []byte{'\n'}))
			if p = q; p >= end {
				break
			}
		}
		e, next := len(data), len(data)
		if i := bytes.IndexByte(data[p:], '\n'); i >= 0 {
			e, next = p+i, p+i+1
		}
		rows, matched, quoted, lines := r.Rows, r.Matched, r.Quoted, r.QuotedLines
		var err error
		quote := bytes.IndexByte(data[p:e], '"') >= 0
		if quote {
			var n int
			if n, err = t.slowRow(p, r); n > p {
				next = n
			}
		} else {
			err = t.anyLine(p, e, r, nil, 0, sc)
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || t.cut && errors.Is(err, ErrOpenQuote) {
				return p, err
			}
			if pe.off > next { // a quote not closed, or closed wrong: the line where it failed ends the row
				next = len(data)
				if i := bytes.IndexByte(data[pe.off:], '\n'); i >= 0 {
					next = pe.off + i + 1
				}
			}
			r.Rows, r.Matched, r.Quoted, r.QuotedLines = rows+1, matched, quoted, lines
			if quote {
				// (a bad row with a quote may be a cut inside a quoted
				// field: a row split rescans the file)
				r.Quoted++
				r.QuotedLines++
			}
			t.reject(r, pe, p, next, start, line)
		}
		line += int64(bytes.Count(data[p:next], []byte{'\n'}))
		p = next
	}
	return p, nil
}

// reject counts the bad row data[p:next], at line (counted from start's),
// whose fault pe is, in r.
func (t *Table) reject(r *Result, pe *ParseError, p, next, start int, line int64) {
	r.Bad++
	if len(r.Rejects) >= maxRejects {
		return
	}
	row := stripCR(bytes.TrimSuffix(t.data[p:next], []byte{'\n'}))
	if len(row) > MaxRejectRow {
		row = row[:MaxRejectRow]
	}
	off := min(max(pe.off, p), len(t.data))
	ls := bytes.LastIndexByte(t.data[p:off], '\n') + 1 // the fault's line within the row
	r.Rejects = append(r.Rejects, Reject{
		File: t.name, Off: int64(t.base + p), From: int64(t.base + start),
		Line:   line + int64(bytes.Count(t.data[p:p+ls], []byte{'\n'})),
		Column: off - (p + ls) + 1, Field: pe.Field, Reason: pe.Err.Error(), Row: bytes.Clone(row),
	})
}

// appendRejects appends rs's binary form: uvarint their count, then each
// one's fields (strings and bytes as uvarint length and bytes, numbers as
// varints).
func appendRejects(b []byte, rs []Reject) []byte {
	b = binary.AppendUvarint(b, uint64(len(rs)))
	for _, x := range rs {
		for _, s := range [...][]byte{[]byte(x.File), []byte(x.Field), []byte(x.Reason), x.Row} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		for _, n := range [...]int64{x.Off, x.From, x.Line, int64(x.Column)} {
			b = binary.AppendVarint(b, n)
		}
	}
	return b
}

// decodeRejects reads what appendRejects wrote at the start of b: the
// rejects and the rest of b.
func decodeRejects(b []byte) ([]Reject, []byte, error) {
	bad := errors.New("rejects: malformed binary form")
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, nil, bad
	}
	b = b[k:]
	rs := make([]Reject, n)
	for i := range rs {
		var s [4][]byte
		for j := range s {
			l, k := binary.Uvarint(b)
			if k <= 0 || l > uint64(len(b)-k) {
				return nil, nil, bad
			}
			if l > 0 { // (none: nil, as it was)
				s[j] = slices.Clone(b[k : k+int(l)])
			}
			b = b[k+int(l):]
		}
		var v [4]int64
		for j := range v {
			x, k := binary.Varint(b)
			if k <= 0 {
				return nil, nil, bad
			}
			v[j], b = x, b[k:]
		}
		rs[i] = Reject{File: string(s[0]), Field: string(s[1]), Reason: string(s[2]), Row: s[3],
			Off: v[0], From: v[1], Line: v[2], Column: int(v[3])}
	}
	return rs, b, nil
}

// SortRejects puts rejects in the order of their files (fileOrder: a
// file's name, its index) and then of their places, as one scan of the
// files one after another finds them.
func SortRejects(rs []Reject, fileOrder map[string]int) {
	slices.SortStableFunc(rs, func(a, b Reject) int {
		if c := fileOrder[a.File] - fileOrder[b.File]; c != 0 {
			return c
		}
		return int(a.Off - b.Off)
	})
}

// String is the reject as one line of text: file:line:column, the column's
// name, the reason.
func (x Reject) String() string {
	s := fmt.Sprintf("%s:%d:%d: ", x.File, x.Line, x.Column)
	if x.Field != "" {
		s += fmt.Sprintf("column %q: ", x.Field)
	}
	return s + x.Reason
}
