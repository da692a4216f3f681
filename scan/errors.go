package scan

import (
	"bytes"
	"errors"
	"fmt"
)

// Errors the scanner reports, wrapped in a *ParseError that says where.
// ErrSyntax and ErrOverflow (numbers) are in fixed.go.
var (
	ErrQuote     = errors.New(`quoted field is not closed, or a closing quote is followed by something other than the delimiter or a line end`)
	ErrBareQuote = errors.New(`quote inside an unquoted field (a field holding a quote must be quoted, with the quote doubled)`)
	ErrShortRow  = errors.New("row is too short to hold the column")
	ErrNoHeader  = errors.New("no header line")
	ErrColumn    = errors.New("no such column in the header")
	ErrDupColumn = errors.New("column name appears twice in the header")
	// ErrUTF16 is bytes to scan that start with UTF-16's byte order mark
	// (Excel's "Unicode Text"): every other byte a zero, which no column
	// name or number holds. (A file whose delimiter parlab finds itself is
	// decoded before the scan: input/stage.)
	ErrUTF16 = errors.New("UTF-16 text (it starts with UTF-16's byte order mark): leave --delimiter out for parlab to decode it, or convert it first: iconv -f UTF-16 -t UTF-8")
	// ErrOpenQuote is the ErrQuote of a quoted field that the input ends
	// inside: errors.Is(ErrOpenQuote, ErrQuote) holds. A reader that holds
	// only a piece of a file reads more when it sees it (see Table.View).
	ErrOpenQuote error = openQuote{}
	// ErrLongHeader: a header longer than MaxHeaderBytes (a file that is
	// one long line, or no text at all: a run of NUL bytes, say). Every
	// way of reading refuses it alike, a stream before it holds more.
	ErrLongHeader = fmt.Errorf("the header is longer than %d MiB (is this a CSV file?)", MaxHeaderBytes>>20)
)

// MaxRowBytes bounds a row wherever parlab must hold one whole: in a
// stream, in the copying modes, in staged input. MaxHeaderBytes bounds a
// header line everywhere (see ErrLongHeader).
const (
	MaxRowBytes    = 256 << 20
	MaxHeaderBytes = MaxRowBytes
)

type openQuote struct{}

func (openQuote) Error() string        { return "quoted field is not closed before the end of the input" }
func (openQuote) Is(target error) bool { return target == ErrQuote }

// ParseError is bad input with its place. Line and Column are 1-based; Line
// counts physical lines (as an editor does), Column is the byte in that line
// where the offending field starts.
type ParseError struct {
	File   string
	Line   int
	Column int
	Field  string // the header name of the column involved, if any
	Value  string // the offending bytes, shortened, if any
	Err    error
	off    int // the fault's offset in the Table's data
}

// ErrorBefore reports whether a is a ParseError at an earlier line (or
// column of one line) than b, one of the same file: of the errors that the
// parts of a key split found in one file, the one a sequential scan meets
// first (a part may pass over a row whose key another part owns).
func ErrorBefore(a, b error) bool {
	var pa, pb *ParseError
	if !errors.As(a, &pa) || !errors.As(b, &pb) || pa.File != pb.File {
		return false
	}
	return pa.Line < pb.Line || pa.Line == pb.Line && pa.Column < pb.Column
}

func (e *ParseError) Error() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s:%d:%d: ", e.File, e.Line, e.Column)
	if e.Field != "" {
		fmt.Fprintf(&b, "column %q: ", e.Field)
	}
	b.WriteString(e.Err.Error())
	if e.Value != "" {
		fmt.Fprintf(&b, ": %q", e.Value)
	}
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }

// Shift adds lines to e.Line: a View's errors count lines from its base,
// and its caller knows how many lines lie before that.
func (e *ParseError) Shift(lines int) { e.Line += lines }

// errAt builds a ParseError for byte offset off of data. It counts lines from
// the start of the file, which is slow, but only errors pay for it.
func errAt(file string, data []byte, off int, field string, value []byte, err error) *ParseError {
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - (bytes.LastIndexByte(data[:off], '\n') + 1) + 1
	v := value
	if len(v) > 40 {
		v = v[:40]
	}
	return &ParseError{File: file, Line: line, Column: col, Field: field, Value: string(v), Err: err, off: off}
}
