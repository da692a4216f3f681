package scan

import (
	"bufio"
	"bytes"
	"io"
)

// Transcode rewrites a file in the package's dialect with another field
// delimiter (a tab, ';' or '|': sep) into the dialect itself, with ',':
// the scanner's fast paths know only ','. It reads src as the grammar in
// the package comment with sep in place of ',' (quotes quote, "" is a
// quote), and writes each record with ',' between its fields, quoting a
// field (and doubling its quotes) only where it holds ',', '"', CR or LF.
// Line ends, blank lines and a BOM are kept as they were, so a line of the
// output is the same line of the input: errors the scan reports later name
// the input's lines (their columns count the output's bytes).
//
// A quote inside a bare field, a byte after a closing quote other than sep
// or a line end, and a quote never closed are *ParseErrors naming file and
// the input's line and column, as the scanner's would be. Read and write
// errors are returned as they come.
func Transcode(dst io.Writer, src io.Reader, sep byte, file string) error {
	r := bufio.NewReaderSize(src, 1<<20)
	w := bufio.NewWriterSize(dst, 1<<20)
	t := transcoder{r: r, w: w, sep: sep, file: file, line: 1, col: 1}
	if err := t.run(); err != nil {
		return err
	}
	return w.Flush()
}

type transcoder struct {
	r         *bufio.Reader
	w         *bufio.Writer
	sep       byte
	file      string
	line, col int    // of the next byte read
	field     []byte // the field being read, unquoted
}

// next reads one byte; io.EOF at the end.
func (t *transcoder) next() (byte, error) {
	c, err := t.r.ReadByte()
	if err != nil {
		return 0, err
	}
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

func (t *transcoder) run() error {
	if b, _ := t.r.Peek(3); bytes.Equal(b, bom) {
		t.r.Discard(3)
		t.w.Write(bom)
	}
	for { // at the start of a field
		line, col := t.line, t.col
		c, err := t.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if c == '"' { // a quoted field, to its closing quote
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
			// after the closing quote: sep, a line end, or the end
			c, err := t.next()
			switch {
			case err == io.EOF:
				return nil
			case err != nil:
				return err
			case c == t.sep:
				t.w.WriteByte(',')
				continue
			case c == '\n':
				t.w.WriteByte('\n')
				continue
			case c == '\r':
				if b, _ := t.r.Peek(1); len(b) == 0 || b[0] == '\n' {
					t.w.WriteByte('\r')
					continue // the LF, if any, comes next as a line end
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
				t.w.Write(end)
			case c == '"':
				return t.fail(line, col, ErrBareQuote)
			default:
				t.field = append(t.field, c)
				c, err = t.next()
				if err == io.EOF {
					end := []byte(nil)
					if n := len(t.field); n > 0 && t.field[n-1] == '\r' {
						t.field, end = t.field[:n-1], []byte{'\r'}
					}
					t.put(false)
					t.w.Write(end)
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
