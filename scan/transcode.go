package scan

import (
	"bufio"
	"bytes"
	"io"
	"strings"
)

// Transcoding says how Transcode reads its input.
type Transcoding struct {
	// Sep is the field delimiter: a tab, ';', '|', or ',' itself.
	Sep byte
	// DecimalComma: a field that is a number with a decimal comma (as
	// decimalCommaAt reads it: 1,5, -0,25, quoted where Sep is ',') is
	// written with a point (1.5), so that the scanner reads it; any other
	// field as it is (1.234,5 too, which no number reads: no silent guess
	// at a thousands separator).
	DecimalComma bool
	// Comment: a line that starts with this byte is a comment (DuckDB's
	// comment): it is written as a blank line, which the dialect skips, so
	// the lines after it keep their numbers. 0: none.
	Comment byte
	// Skip: the first Skip lines (a title, metadata) are written as blank
	// lines, whatever they hold (DuckDB's skip).
	Skip int
	// Null: an unquoted field equal to one of these (NA, NULL, \N) is a
	// missing value: it is written empty (DuckDB's nullstr).
	Null []string
	// Ragged: a record with fewer fields than the header (the first
	// record) gets empty ones, missing values, up to the header's count
	// (DuckDB's null_padding); a longer one is written as it is, and stays
	// an error.
	Ragged bool
}

// Plain reports whether o changes nothing of a comma-separated input: one
// that can be scanned where it is.
func (o Transcoding) Plain() bool {
	return o.Sep == ',' && !o.DecimalComma && o.Comment == 0 && o.Skip == 0 && len(o.Null) == 0 && !o.Ragged
}

// lineOptions reports whether o acts on whole lines or records (comment,
// skip, null, ragged), which the plain-line fast path does not look at.
func (o Transcoding) lineOptions() bool {
	return o.Comment != 0 || o.Skip > 0 || len(o.Null) > 0 || o.Ragged
}

// Transcode rewrites a file in the package's dialect with another field
// delimiter (a tab, ';' or '|': o.Sep) into the dialect itself, with ',':
// the scanner's fast paths know only ','. It reads src as the grammar in
// the package comment with o.Sep in place of ',' (quotes quote, "" is a
// quote), and writes each record with ',' between its fields, quoting a
// field (and doubling its quotes) only where it holds ',', '"', CR or LF.
// Line ends, blank lines and a BOM are kept as they were, so a line of the
// output is the same line of the input: errors the scan reports later name
// the input's lines (their columns count the output's bytes). With
// o.DecimalComma, a number's decimal comma is made a point (see
// Transcoding).
//
// A quote inside a bare field, a byte after a closing quote other than
// o.Sep or a line end, and a quote never closed are *ParseErrors naming
// file and the input's line and column, as the scanner's would be. But a
// TSV knows no quotes (its writers quote a field only to hold a tab or a
// line break, and many never do): there a quote inside a bare field is a
// byte of it (27" monitor), and a field that starts with a quote is a
// quoted one only where it closes as one (quotedAhead), else bare ("AGENT"
// K …). Read and write errors are returned as they come.
func Transcode(dst io.Writer, src io.Reader, o Transcoding, file string) error {
	r := bufio.NewReaderSize(src, 1<<20)
	w := bufio.NewWriterSize(dst, 1<<20)
	t := transcoder{r: r, w: w, sep: o.Sep, dec: o.DecimalComma, o: o, file: file, line: 1, col: 1}
	if err := t.run(); err != nil {
		w.Flush() // what came before the error is written, not dropped
		return err
	}
	return w.Flush()
}

type transcoder struct {
	r         *bufio.Reader
	w         *bufio.Writer
	sep       byte
	dec       bool // Transcoding.DecimalComma
	o         Transcoding
	nf, want  int  // Ragged: the record's fields so far; the header's (0: not read yet)
	empty     bool // the record so far is one empty bare field (a blank line)
	file      string
	line, col int    // of the next byte read
	pos       int64  // the offset of the next byte read
	field     []byte // the field being read, unquoted
	// plainLines's last finds of a quote, a comma and a CR
	quote, comma, cr seen
}

// next reads one byte; io.EOF at the end.
func (t *transcoder) next() (byte, error) {
	c, err := t.r.ReadByte()
	if err != nil {
		return 0, err
	}
	t.pos++
	if c == '\n' {
		t.line, t.col = t.line+1, 1
	} else {
		t.col++
	}
	return c, nil
}

func (t *transcoder) fail(line, col int, err error) error {
	v := t.field
	if len(v) > 40 {
		v = v[:40]
	}
	return &ParseError{File: t.file, Line: line, Column: col, Value: string(v), Err: err}
}

// put writes the field read, quoted if the dialect needs it; an empty
// field that was quoted stays "" (alone on its line, it is a record, not
// a blank line).
func (t *transcoder) put(quoted bool) {
	t.nf++
	t.empty = t.nf == 1 && !quoted && len(t.field) == 0
	if !quoted && len(t.o.Null) > 0 {
		for _, n := range t.o.Null {
			if string(t.field) == n {
				t.field = t.field[:0]
				break
			}
		}
	}
	if t.dec {
		if i := decimalCommaAt(t.field); i >= 0 {
			t.field[i] = '.'
		}
	}
	if bytes.ContainsAny(t.field, ",\"\r\n") || quoted && len(t.field) == 0 {
		t.w.WriteByte('"')
		for _, c := range t.field {
			if c == '"' {
				t.w.WriteByte('"')
			}
			t.w.WriteByte(c)
		}
		t.w.WriteByte('"')
		return
	}
	t.w.Write(t.field)
}

// endRecord writes a record's end (its line end: LF, CR LF, CR, or none
// at the input's end), after the empty fields Ragged pads a short record
// with; the header (the first record that is not a blank line) sets the
// count.
func (t *transcoder) endRecord(end []byte) {
	if t.o.Ragged && !t.empty {
		if t.want == 0 {
			t.want = t.nf
		}
		for ; t.nf < t.want; t.nf++ {
			t.w.WriteByte(',')
		}
	}
	t.w.Write(end)
	t.nf, t.empty = 0, false
}

// skipLine is run's at a line's start: a line that Skip or Comment makes
// blank is read to its LF (raw: a quote in it quotes nothing) and written
// as its line end alone; it reports whether it took one. (A line that
// ends in a CR alone is not one line here: such input is made LF first.)
func (t *transcoder) skipLine() (bool, error) {
	if t.line > t.o.Skip {
		if t.o.Comment == 0 {
			return false, nil
		}
		b, err := t.r.Peek(1)
		if len(b) == 0 || b[0] != t.o.Comment {
			if err != nil && err != io.EOF {
				return false, err
			}
			return false, nil
		}
	}
	prev := byte(0)
	for {
		c, err := t.next()
		switch {
		case err == io.EOF:
			return true, nil
		case err != nil:
			return false, err
		case c == '\n':
			if prev == '\r' {
				t.w.WriteByte('\r')
			}
			t.w.WriteByte('\n')
			return true, nil
		}
		prev = c
	}
}

// quotedAhead reports, for a TSV field that starts with the quote just
// read, whether a closing quote follows it, and after that a tab, a line
// end or the end: a quoted field. Any other such field is bare (TSV knows
// no quotes: a summary "AGENT" K …). It looks at what the reader holds,
// filling it (up to its size); where the field goes on past that, it reads
// on into memory (up to MaxRowBytes, past which the field is bare: no
// row is longer) and puts what it read back in front of the reader.
func (t *transcoder) quotedAhead() bool {
	i := 0 // where the look goes on, in what the reader holds
	for n := t.r.Buffered(); ; {
		b, err := t.r.Peek(n)
		if q, known := closesAsQuoted(b, &i, err != nil); known {
			return q
		}
		if len(b) == t.r.Size() {
			return t.quotedFarAhead()
		}
		n = len(b) + 1
	}
}

// closesAsQuoted looks on from b[*i] for quotedAhead: known, where b
// says (end: nothing follows b), and whether the field is quoted; else
// *i is where the look must go on once more is read.
func closesAsQuoted(b []byte, i *int, end bool) (quoted, known bool) {
	for ; *i < len(b); *i++ {
		if b[*i] != '"' {
			continue
		}
		k := *i
		if !end && (k+1 == len(b) || b[k+1] == '\r' && k+2 == len(b)) {
			return false, false // what follows the quote not yet read
		}
		if k+1 < len(b) && b[k+1] == '"' {
			*i++ // a doubled quote
			continue
		}
		rest := b[k+1:]
		return len(rest) == 0 || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r' && (len(rest) == 1 || rest[1] == '\n'), true
	}
	return false, end // never closed: bare (a read error comes again, from next)
}

// quotedFarAhead is quotedAhead past the reader's buffer.
func (t *transcoder) quotedFarAhead() bool {
	var ahead bytes.Buffer
	i := 0
	var tail io.Reader = t.r
	for {
		n, err := ahead.ReadFrom(io.LimitReader(t.r, 1<<20))
		end := err != nil || n < 1<<20 // (ReadFrom takes the end for no error)
		if err != nil {
			tail = errReader{err} // (bufio gives an error once: keep it for next)
		}
		if q, known := closesAsQuoted(ahead.Bytes(), &i, end); known || ahead.Len() > MaxRowBytes {
			t.r = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(ahead.Bytes()), tail), t.r.Size())
			return q
		}
	}
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// decimalCommaAt is the index of the comma in b if b is a number with a
// decimal comma: an optional sign, digits, one comma, digits; else -1.
func decimalCommaAt(b []byte) int {
	i := 0
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		i = 1
	}
	comma := -1
	for j := i; j < len(b); j++ {
		switch c := b[j]; {
		case c == ',' && comma < 0 && j > i:
			comma = j
		case c-'0' > 9:
			return -1
		}
	}
	if comma < 0 || comma == len(b)-1 {
		return -1
	}
	return comma
}

// IsDecimalComma reports whether v is a number written with a decimal
// comma (1,5), which Transcoding.DecimalComma makes a number: for a hint
// where one is not a decimal number.
func IsDecimalComma(v string) bool { return decimalCommaAt([]byte(v)) >= 0 }

// transcodeFast turns on plainLines (tests turn it off, to compare).
var transcodeFast = true

// plainLines is run's fast path, at a line's start: it takes the whole
// lines in the reader's buffer that hold no quote, no comma and no CR but
// the one before their LF, which the field loop would copy as they are
// with sep made ','; it stops at the first other line, or at a line the
// buffer does not hold whole, and leaves that to the field loop. A plain
// line costs a few vectorised searches instead of a call a byte.
func (t *transcoder) plainLines() error {
	for {
		// What is buffered, filling only an empty buffer: Peek of more
		// would slide the buffered bytes down on every call, a copy of up
		// to 1 MiB a line in a file of quoted lines. A line that the
		// buffer ends inside goes to the field loop.
		if t.r.Buffered() == 0 {
			if _, err := t.r.Peek(1); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
		}
		b, _ := t.r.Peek(t.r.Buffered())
		p, lines := 0, 0
		for {
			k := bytes.IndexByte(b[p:], '\n')
			if k < 0 {
				break
			}
			end := p + k
			if t.quote.in(b, t.pos, '"') < end || t.comma.in(b, t.pos, ',') < end {
				break
			}
			if cr := t.cr.in(b, t.pos, '\r'); cr < end-1 {
				break
			} else if cr < end { // the line's own, before its LF
				t.cr = seen{at: t.pos + int64(end) + 1}
			}
			line := b[p:end]
			if t.w.Available() <= len(line) {
				if err := t.w.Flush(); err != nil {
					return err
				}
			}
			out := append(t.w.AvailableBuffer(), line...) // (in w's buffer: no copy if it fits)
			for i, c := range out {
				if c == t.sep {
					out[i] = ','
				}
			}
			t.w.Write(append(out, '\n'))
			p, lines = p+k+1, lines+1
		}
		if p == 0 {
			return nil
		}
		t.r.Discard(p)
		t.pos += int64(p)
		t.line, t.col = t.line+lines, 1
	}
}

// seen is where plainLines last found a byte: at, an offset in the input;
// found, whether the byte is there (else none lies before at). It is kept
// across calls, so that each byte of the input is searched once for each
// kind, however often the field loop hands back to plainLines.
type seen struct {
	at    int64
	found bool
}

// in is the index in b (which starts at offset base) of the next c at or
// after b's start, len(b) if b holds none.
func (s *seen) in(b []byte, base int64, c byte) int {
	if s.at < base {
		*s = seen{at: base}
	}
	if !s.found && s.at < base+int64(len(b)) {
		from := int(s.at - base)
		if i := bytes.IndexByte(b[from:], c); i >= 0 {
			s.at, s.found = base+int64(from+i), true
		} else {
			s.at = base + int64(len(b))
		}
	}
	if s.found {
		return int(s.at - base)
	}
	return len(b)
}

func (t *transcoder) run() error {
	if b, _ := t.r.Peek(3); bytes.Equal(b, bom) {
		t.r.Discard(3)
		t.pos = 3
		t.w.Write(bom)
	}
	fast := transcodeFast && !t.o.lineOptions()
	for lineStart := true; ; { // at the start of a field
		if lineStart && fast {
			if err := t.plainLines(); err != nil {
				return err
			}
		}
		if lineStart && (t.o.Skip > 0 || t.o.Comment != 0) {
			if skipped, err := t.skipLine(); err != nil {
				return err
			} else if skipped {
				if _, err := t.r.Peek(1); err == io.EOF {
					return nil
				}
				continue
			}
		}
		lineStart = false
		line, col := t.line, t.col
		c, err := t.next()
		if err == io.EOF {
			if t.nf > 0 { // the input ends after a separator: the record's last field is empty
				t.field = t.field[:0]
				t.put(false)
				t.endRecord(nil)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if c == '"' && (t.sep != '\t' || t.quotedAhead()) { // a quoted field, to its closing quote
			t.field = t.field[:0]
			for {
				c, err := t.next()
				if err == io.EOF {
					return t.fail(line, col, ErrOpenQuote)
				}
				if err != nil {
					return err
				}
				if c == '"' {
					if b, _ := t.r.Peek(1); len(b) == 1 && b[0] == '"' {
						t.next()
					} else {
						break
					}
				}
				t.field = append(t.field, c)
			}
			t.put(true)
			// after the closing quote: sep, a line end, or the end (else
			// the error names that byte, as the scanner's does)
			line, col := t.line, t.col
			c, err := t.next()
			switch {
			case err == io.EOF:
				t.endRecord(nil)
				return nil
			case err != nil:
				return err
			case c == t.sep:
				t.w.WriteByte(',')
				continue
			case c == '\n':
				t.endRecord([]byte{'\n'})
				lineStart = true
				continue
			case c == '\r':
				b, _ := t.r.Peek(1)
				if len(b) == 0 {
					t.endRecord([]byte{'\r'})
					continue
				}
				if b[0] == '\n' {
					t.next()
					t.endRecord([]byte{'\r', '\n'})
					lineStart = true
					continue
				}
			}
			return t.fail(line, col, ErrQuote)
		}
		// a bare field: to sep, LF or the end; a CR before LF (or the
		// end) is the line's end, not the field's
		t.field = t.field[:0]
		for {
			switch {
			case c == t.sep:
				t.put(false)
				t.w.WriteByte(',')
			case c == '\n':
				end := []byte{'\n'}
				if n := len(t.field); n > 0 && t.field[n-1] == '\r' {
					t.field, end = t.field[:n-1], []byte{'\r', '\n'}
				}
				t.put(false)
				t.endRecord(end)
				lineStart = true
			case c == '"' && t.sep != '\t':
				return t.fail(line, col, ErrBareQuote)
			default: // (a quote in a TSV's bare field is a byte of it)
				t.field = append(t.field, c)
				c, err = t.next()
				if err == io.EOF {
					end := []byte(nil)
					if n := len(t.field); n > 0 && t.field[n-1] == '\r' {
						t.field, end = t.field[:n-1], []byte{'\r'}
					}
					t.put(false)
					t.endRecord(end)
					return nil
				}
				if err != nil {
					return err
				}
				continue
			}
			break
		}
	}
}

// SniffDelimiter is the field delimiter that head, an input's first
// bytes, says, for an input whose delimiter neither the user nor its name
// (.tsv) gave, as DuckDB's and Miller's readers find one: ',' if its first
// line holds a comma outside quotes; else whichever of a tab, ';' and '|'
// that line holds most often outside quotes (a tie goes to the first of
// them in that order); else ',' (one column). The first line (blank lines
// before it left out, as the dialect skips them) ends at the
// first LF outside quotes, or at a CR there that no LF follows (crOnly: the
// input's lines end in a CR alone, as old Mac files' do, which the dialect
// does not read); whole reports whether head holds it all (if not, sep is
// what the part in head says).
func SniffDelimiter(head []byte) (sep byte, whole, crOnly bool) {
	var n [256]int
	in := false
	start := 0
	if bytes.HasPrefix(head, bom) {
		start = len(bom)
	}
	for start < len(head) && (head[start] == '\n' || head[start] == '\r') {
		start++ // blank lines before the header, which the dialect skips
	}
	for i := start; i < len(head); i++ {
		c := head[i]
		if in {
			if c == '"' {
				if i+1 < len(head) && head[i+1] == '"' {
					i++ // a doubled quote
					continue
				}
				in = false
			}
			continue
		}
		if c == '"' && (i == start || strings.IndexByte(",\t;|", head[i-1]) >= 0) {
			in = true // a quote opens a field only at its start (a TSV's bare quote is a byte)
			continue
		}
		if c == '\n' {
			whole = true
			break
		}
		if c == '\r' && i+1 < len(head) && head[i+1] != '\n' {
			whole, crOnly = true, true
			break
		}
		n[c]++
	}
	sep = ','
	if n[','] > 0 {
		return sep, whole, crOnly
	}
	best := 0
	for _, c := range []byte{'\t', ';', '|'} {
		if n[c] > best {
			sep, best = c, n[c]
		}
	}
	return sep, whole, crOnly
}
