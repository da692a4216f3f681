package stage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/valyala/fastjson"

	"parlab/input"
	"parlab/scan"
)

// JSON lines (NDJSON, .ndjson, .jsonl, .json; compressed too, or a stream
// whose first byte past blanks is '{') are read as CSV: jsonToCSV writes
// a header and a row a line, which every strategy then scans as it scans a
// CSV input (a stream as it is read, or staged in a memory file).
//
// The columns are the first object's keys, in its order, then every name
// the query reads (Dialect.Columns) that none of them answers to (by
// scan.Resolve's rules): a key that later lines add, or a dotted path into
// nested objects (user.id; a key that holds a dot is found whole first).
// Where the query names its columns (no "*" to select, and no column is
// left to the Sales default), only the keys it reads are written.
// A field is its value as text: a string unescaped, a number as written
// (fastjson keeps its bytes, so 437.20 stays 437.20), true and false, an
// object or array as its JSON text; null, a missing key and "" are a
// missing value. The column kinds are then decided from the rows, as for
// any CSV input.
//
// Each line must be one JSON object (blank lines are skipped): anything
// else is an error that names the input and its line (ErrJSON).

// ErrJSON: a line of a JSON lines input is not one JSON object.
var ErrJSON = errors.New("not a JSON object")

// jsonName reports whether PATH p's name says JSON lines: .ndjson, .jsonl
// or .json, perhaps compressed (.gz, .zst).
func jsonName(p string) bool {
	base := input.Stem(p)
	return strings.HasSuffix(base, ".ndjson") || strings.HasSuffix(base, ".jsonl") || strings.HasSuffix(base, ".json")
}

// sniffJSON reports whether br's first byte past blanks and a UTF-8 BOM is
// '{' (a stream of JSON lines), peeking no further than 4 KiB.
func sniffJSON(br *bufio.Reader) bool {
	head, _ := br.Peek(4096)
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\ufeff")), " \t\r\n")
	return len(head) > 0 && head[0] == '{'
}

// asJSON says whether a stream r (decompressed) is to be read as JSON
// lines: yes where its name said so (d.json), else, where it has no name
// that says CSV (standard input, a pipe: d.sniff), by its first byte. It
// returns r, which it may have buffered to peek.
func asJSON(r io.Reader, d Dialect) (io.Reader, bool) {
	if d.json {
		return r, true
	}
	if !d.sniff {
		return r, false
	}
	br := bufio.NewReaderSize(r, copyBytes)
	return br, sniffJSON(br)
}

// jsonToCSV reads the JSON lines of r and writes them to w as CSV (see
// above); want are the names the query reads, nil for every key (see
// Dialect.Columns), and a string value in nulls is a missing value, as
// --null makes a CSV field one (Dialect.Null). The first object (its keys make the header) is read
// here. For an input read alone the lines after it go in blocks of about
// jsonBlock bytes, cut at line ends, to as many converters as there are
// cores (beside other inputs, which take the other cores, they are
// converted here, line by line), each with a
// fastjson.Parser of its own (a value it returns is valid until its next
// line is parsed, and each is written before that), and the blocks' CSV
// is written in the order they were read. The error is the earliest
// line's.
func jsonToCSV(w io.Writer, r io.Reader, want, nulls []string, name string, alone bool) error {
	br := bufio.NewReaderSize(r, copyBytes)
	out := bufio.NewWriterSize(w, copyBytes)
	var c *jsonConv
	var row []byte
	blanks := 0 // blank lines before the first object, written after the header
	for line := 1; ; line++ {
		if c != nil && alone { // the header is written: the rest in blocks, on every core
			if err := convertBlocks(out, br, c, line, runtime.GOMAXPROCS(0)); err != nil {
				return err
			}
			return out.Flush()
		}
		b, err := readJSONLine(br, name, line)
		if err != nil && err != io.EOF {
			return err
		}
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		switch t := bytes.TrimSpace(b); {
		case len(t) == 0 && len(b) > 0: // a blank line: a blank CSV line, so that line n+1 is JSON line n
			if c == nil {
				blanks++
			} else if err := out.WriteByte('\n'); err != nil {
				return err
			}
		case len(t) > 0:
			if c == nil { // the first object: its keys make the header
				var p fastjson.Parser
				v, perr := parseJSONLine(&p, t, name, line)
				if perr != nil {
					return perr
				}
				cols, paths := jsonColumns(v, want)
				c = newJSONConv(paths, nulls, name)
				var head []byte
				for k, col := range cols {
					if k > 0 {
						head = append(head, ',')
					}
					head = scan.AppendCSVField(head, []byte(col))
				}
				if len(cols) == 1 && cols[0] == "" {
					head = append(head, '"', '"') // (a key "": a header, not a blank line)
				}
				head = append(head, '\n')
				for range blanks {
					head = append(head, '\n')
				}
				if _, err := out.Write(head); err != nil {
					return err
				}
			}
			var cerr error
			if row, cerr = c.convert(row[:0], t, line); cerr != nil { // (beside other inputs, which take the other cores: line by line, no copy)
				return cerr
			}
			if _, err := out.Write(row); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return out.Flush()
		}
	}
}

// jsonBlock is about how many bytes of lines a converter takes at once.
const jsonBlock = 1 << 20

// jsonBufs are blocks' buffers, given back once a block is written.
var jsonBufs sync.Pool // of *[]byte

// readJSONLine reads the next line of br (line its number, for an error),
// its line end included, however long up to scan.MaxRowBytes; io.EOF
// with the last line if it has no line end.
func readJSONLine(br *bufio.Reader, name string, line int) ([]byte, error) {
	b, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return b, err
	}
	long := append([]byte(nil), b...)
	for errors.Is(err, bufio.ErrBufferFull) && len(long) <= scan.MaxRowBytes {
		b, err = br.ReadSlice('\n')
		long = append(long, b...)
	}
	if len(long) > scan.MaxRowBytes {
		return nil, &scan.ParseError{File: name, Line: line, Column: 1, Err: fmt.Errorf("a line longer than %d MiB", scan.MaxRowBytes>>20)}
	}
	return long, err
}

// parseJSONLine parses t, a line's bytes, which must be one object.
func parseJSONLine(p *fastjson.Parser, t []byte, name string, line int) (*fastjson.Value, error) {
	v, err := p.ParseBytes(t)
	if err == nil && v.Type() != fastjson.TypeObject {
		err = fmt.Errorf("a line holds %s", v.Type())
	}
	if err != nil {
		return nil, &scan.ParseError{File: name, Line: line, Column: 1, Err: fmt.Errorf("%w: %v", ErrJSON, err)}
	}
	return v, nil
}

// jsonBlockOf is a block of whole lines, the first of them line first,
// and then its CSV or its error.
type jsonBlockOf struct {
	data  []byte
	first int
	out   []byte
	err   error
	done  chan struct{}
}

// convertBlocks converts the lines left in br (the first of them line
// first) by blocks, in parallel, and writes their CSV to out in order.
func convertBlocks(out io.Writer, br *bufio.Reader, c *jsonConv, first, workers int) error {
	todo := make(chan *jsonBlockOf, workers)
	order := make(chan *jsonBlockOf, 2*workers) // (the reader's order: the writer's)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for k := range workers {
		conv := c
		if k > 0 {
			conv = c.clone()
		}
		wg.Go(func() {
			for b := range todo {
				b.out, b.err = conv.block(b.out[:0], b.data, b.first)
				close(b.done)
			}
		})
	}
	var readErr error
	go func() { // the reader: blocks cut at line ends, in order
		defer close(order)
		defer close(todo)
		line := first
		var rest []byte
		for {
			var buf []byte
			if bp, _ := jsonBufs.Get().(*[]byte); bp != nil && cap(*bp) >= jsonBlock+len(rest) {
				buf = (*bp)[:0]
			} else {
				buf = make([]byte, 0, jsonBlock+len(rest))
			}
			buf = append(buf, rest...)
			n, err := io.ReadFull(br, buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			eof := err == io.EOF || err == io.ErrUnexpectedEOF
			if err != nil && !eof {
				readErr = err
				return
			}
			cut := len(buf)
			if !eof {
				if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
					cut = i + 1
				} else if len(buf) > scan.MaxRowBytes {
					readErr = &scan.ParseError{File: c.name, Line: line, Column: 1, Err: fmt.Errorf("a line longer than %d MiB", scan.MaxRowBytes>>20)}
					return
				} else {
					rest = buf // (a line longer than a block: read on)
					continue
				}
			}
			b := &jsonBlockOf{data: buf[:cut], first: line, done: make(chan struct{})}
			rest = append([]byte(nil), buf[cut:]...)
			line += bytes.Count(b.data, []byte{'\n'})
			select {
			case order <- b:
			case <-stop:
				return
			}
			select {
			case todo <- b:
			case <-stop:
				return
			}
			if eof {
				return
			}
		}
	}()
	var err error
	for b := range order {
		if err != nil {
			continue // (drained: the reader has stopped)
		}
		<-b.done
		if err = b.err; err == nil {
			_, err = out.Write(b.out)
		}
		data := b.data[:0] // (its own variable: the pool keeps a pointer to it)
		jsonBufs.Put(&data)
		b.data = nil
		if err != nil {
			close(stop)
		}
	}
	wg.Wait()
	if err == nil {
		err = readErr
	}
	return err
}

// jsonConv converts JSON lines to CSV rows for one converter goroutine:
// its parser, and what it keeps from line to line.
type jsonConv struct {
	name  string
	p     fastjson.Parser
	paths [][]string     // per column, the keys that lead to its value
	top   map[string]int // a column that is a top-level key: its index (shared, read only)
	// at is, per key position, the key last seen there and its column
	// (lines mostly write their keys in one order: a compare, not a
	// lookup)
	at        []keyAt
	fields    [][]byte // per column, this line's field (nil: missing), as CSV
	vals, num []byte
	nulls     []string // string values that are missing values (--null; read only)
}

func newJSONConv(paths [][]string, nulls []string, name string) *jsonConv {
	c := &jsonConv{name: name, paths: paths, nulls: nulls, top: map[string]int{}, fields: make([][]byte, len(paths)), vals: make([]byte, 0, 1024)}
	for k, path := range paths {
		if len(path) == 1 {
			c.top[path[0]] = k
		}
	}
	return c
}

// clone is another converter of c's columns.
func (c *jsonConv) clone() *jsonConv {
	d := newJSONConv(c.paths, c.nulls, c.name)
	d.top = c.top
	return d
}

// block appends the CSV rows of data's lines (the first of them line
// first) to dst.
func (c *jsonConv) block(dst, data []byte, line int) ([]byte, error) {
	for len(data) > 0 {
		b := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			b, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			var err error
			if dst, err = c.convert(dst, t, line); err != nil {
				return dst, err
			}
		} else {
			dst = append(dst, '\n') // (see jsonToCSV: a line for a line)
		}
		line++
	}
	return dst, nil
}

// convert appends the CSV row of t, a line's bytes (not blank), to dst.
func (c *jsonConv) convert(dst, t []byte, line int) ([]byte, error) {
	if !c.flatLine(t) {
		if err := c.parsed(t, line); err != nil {
			return dst, err
		}
	}
	for k, f := range c.fields {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, f...)
	}
	if len(c.fields) == 1 && len(c.fields[0]) == 0 {
		dst = append(dst, '"', '"') // (a row of one missing value, not a blank line)
	}
	return append(dst, '\n'), nil
}

// parsed fills c.fields and c.vals from fastjson's parse of t: one pass
// over the object's keys for the top-level columns (Object.Get would
// search the keys once a column), then the dotted paths; each field made
// in vals.
func (c *jsonConv) parsed(t []byte, line int) error {
	v, err := parseJSONLine(&c.p, t, c.name, line)
	if err != nil {
		return err
	}
	c.reset()
	i := 0
	v.GetObject().Visit(func(key []byte, x *fastjson.Value) {
		if k := c.colAt(i, key); k >= 0 && c.fields[k] == nil {
			c.putValue(k, x)
		}
		i++
	})
	for k, path := range c.paths {
		if len(path) > 1 {
			c.putValue(k, v.Get(path...))
		}
	}
	return nil
}

// reset empties the fields of the line before.
func (c *jsonConv) reset() {
	clear(c.fields)
	c.vals = c.vals[:0]
}

// put makes column k's field of this line from v: a string's text (text;
// a missing value where --null names it, as in a CSV input), or a
// number's, a literal's or a nested value's JSON text, as a CSV field;
// v nil (null, or a missing key) leaves it missing. A field put stays: a
// key given twice keeps its first value.
func (c *jsonConv) put(k int, v []byte, text bool) {
	from := len(c.vals)
	switch {
	case v == nil || text && c.isNull(v):
	case text || v[0] == '{' || v[0] == '[':
		c.vals = scan.AppendCSVField(c.vals, v)
	default: // a number or a literal: no byte CSV quotes
		c.vals = append(c.vals, v...)
	}
	c.fields[k] = c.vals[from:len(c.vals):len(c.vals)]
}

// putValue is put of fastjson's value x (nil: a missing key); c.num holds
// a number's or a nested value's JSON text until the next call.
func (c *jsonConv) putValue(k int, x *fastjson.Value) {
	switch {
	case x == nil || x.Type() == fastjson.TypeNull:
		c.put(k, nil, false)
	case x.Type() == fastjson.TypeString:
		c.put(k, x.GetStringBytes(), true)
	default: // a number as written, true, false; an object or array as JSON
		c.num = x.MarshalTo(c.num[:0])
		c.put(k, c.num, false)
	}
}

// jsonColumns is the columns of a JSON lines input whose first object is
// v, and the keys that lead to each one's value (see above): every key if
// want is nil, else the keys that a name of want answers to (by
// scan.Resolve), in the object's order, then the names none answers to,
// but scan.DefaultSums's, which a query that names no aggregate reads only
// where the input has them.
func jsonColumns(v *fastjson.Value, want []string) (cols []string, paths [][]string) {
	var keys []string
	v.GetObject().Visit(func(key []byte, _ *fastjson.Value) { keys = append(keys, string(key)) })
	used := make([]bool, len(keys))
	var rest []string
	for _, n := range want {
		if n == "" {
			continue
		}
		if i, err := scan.Resolve(n, keys); err == nil {
			used[i] = true
		} else if !slices.Contains(scan.DefaultSums, n) && !slices.Contains(rest, n) {
			rest = append(rest, n)
		}
	}
	for i, k := range keys {
		if want == nil || used[i] {
			cols, paths = append(cols, k), append(paths, []string{k})
		}
	}
	if len(cols) == 0 && len(keys) > 0 { // (a count: one column makes the rows)
		cols, paths = append(cols, keys[0]), append(paths, []string{keys[0]})
	}
	for _, n := range rest {
		cols, paths = append(cols, n), append(paths, strings.Split(n, "."))
	}
	if len(cols) == 0 { // (objects without keys: a column that is always missing makes the rows)
		cols, paths = []string{"column0"}, [][]string{nil}
	}
	return cols, paths
}

// jsonHead reports whether the regular file f starts as JSON lines do
// (sniffJSON), read at its start without moving its offset.
func jsonHead(f *os.File) bool {
	head := make([]byte, 4096)
	n, _ := f.ReadAt(head, 0)
	return sniffJSON(bufio.NewReader(bytes.NewReader(head[:n])))
}
