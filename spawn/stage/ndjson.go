package stage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/valyala/fastjson"

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
	base := strings.ToLower(p[:len(p)-len(compression(p))])
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
// Dialect.Columns). One fastjson.Parser serves
// every line: a value it returns is valid until the next line is parsed,
// and each is written before that.
func jsonToCSV(w io.Writer, r io.Reader, want []string, name string) error {
	br := bufio.NewReaderSize(r, copyBytes)
	out := bufio.NewWriterSize(w, copyBytes)
	var p fastjson.Parser
	var paths [][]string   // per column, the keys that lead to its value
	var top map[string]int // a column that is a top-level key: its index (-1: no column)
	// at is, per key position, the key last seen there and its column
	// (lines mostly write their keys in one order: a compare, not a
	// lookup)
	var at []struct {
		key string
		col int
	}
	var fields [][]byte // per column, this line's field (nil: missing), as CSV
	var row, long, num []byte
	vals := make([]byte, 0, 1024)
	for line := 1; ; line++ {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer
			long = append(long[:0], b...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= scan.MaxRowBytes {
				b, err = br.ReadSlice('\n')
				long = append(long, b...)
			}
			if len(long) > scan.MaxRowBytes {
				return &scan.ParseError{File: name, Line: line, Column: 1, Err: fmt.Errorf("a line longer than %d MiB", scan.MaxRowBytes>>20)}
			}
			b = long
		}
		if err != nil && err != io.EOF {
			return err
		}
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			v, perr := p.ParseBytes(t)
			if perr == nil && v.Type() != fastjson.TypeObject {
				perr = fmt.Errorf("a line holds %s", v.Type())
			}
			if perr != nil {
				return &scan.ParseError{File: name, Line: line, Column: 1, Err: fmt.Errorf("%w: %v", ErrJSON, perr)}
			}
			if paths == nil {
				var cols []string
				cols, paths = jsonColumns(v, want)
				top = map[string]int{}
				for k, path := range paths {
					if len(path) == 1 {
						top[path[0]] = k
					}
				}
				fields = make([][]byte, len(paths))
				row = row[:0]
				for k, c := range cols {
					if k > 0 {
						row = append(row, ',')
					}
					row = scan.AppendCSVField(row, []byte(c))
				}
				if _, err := out.Write(append(row, '\n')); err != nil {
					return err
				}
			}
			// One pass over the object's keys for the top-level columns
			// (Object.Get would search the keys once a column), then the
			// dotted paths; each field made in vals, joined in row.
			clear(fields)
			vals = vals[:0]
			var offs [2]int
			i := 0
			v.GetObject().Visit(func(key []byte, x *fastjson.Value) {
				if i == len(at) {
					at = append(at, struct {
						key string
						col int
					}{"", -1})
				}
				a := &at[i]
				i++
				if a.key != string(key) {
					a.key, a.col = string(key), -1
					if k, ok := top[a.key]; ok {
						a.col = k
					}
				}
				if k := a.col; k >= 0 && fields[k] == nil {
					offs[0] = len(vals)
					vals, num = appendJSONField(vals, num, x)
					fields[k] = vals[offs[0]:len(vals):len(vals)]
				}
			})
			for k, path := range paths {
				if len(path) > 1 {
					offs[0] = len(vals)
					vals, num = appendJSONField(vals, num, v.Get(path...))
					fields[k] = vals[offs[0]:len(vals):len(vals)]
				}
			}
			row = row[:0]
			for k, f := range fields {
				if k > 0 {
					row = append(row, ',')
				}
				row = append(row, f...)
			}
			if _, err := out.Write(append(row, '\n')); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return out.Flush()
		}
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
	return cols, paths
}

// appendJSONField appends value v (nil: a missing key) as a CSV field;
// num is scratch for a number's or a nested value's JSON text, returned
// for the next call.
func appendJSONField(row, num []byte, v *fastjson.Value) ([]byte, []byte) {
	if v == nil {
		return row, num
	}
	switch v.Type() {
	case fastjson.TypeNull:
		return row, num
	case fastjson.TypeString:
		return scan.AppendCSVField(row, v.GetStringBytes()), num
	case fastjson.TypeTrue:
		return append(row, "true"...), num
	case fastjson.TypeFalse:
		return append(row, "false"...), num
	}
	num = v.MarshalTo(num[:0]) // a number as written; an object or array as JSON
	return scan.AppendCSVField(row, num), num
}

// jsonHead reports whether the regular file f starts as JSON lines do
// (sniffJSON), read at its start without moving its offset.
func jsonHead(f *os.File) bool {
	head := make([]byte, 4096)
	n, _ := f.ReadAt(head, 0)
	return sniffJSON(bufio.NewReader(bytes.NewReader(head[:n])))
}
