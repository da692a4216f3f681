package render

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
	"unicode/utf8"

	"parlab/bench"
	"parlab/scan"
	"parlab/spawn"
)

// QueryDoc is the schema of parlab query --json: one object, its fields in
// this order (encoding/json writes them, so it is valid JSON whatever the
// bytes), then, for a group-by, "groups" last: an array of one object per
// group, the group-by columns by name, "count" (a number), then each
// aggregate's label with its value in a string (null for none), streamed
// in table order (JSON). Times are in seconds, counts numbers, sums,
// minimums, maximums and averages exact decimals in strings so no digit is
// lost to a float (a minimum or maximum of dates or text as written). A
// string that is not valid UTF-8 is written with each invalid byte as
// U+FFFD; where the exact bytes matter (the filter's column and value,
// file paths) a field named with the suffix "_hex" beside it holds them in
// hex.
type QueryDoc struct {
	Strategy spawn.StrategyFlag `json:"strategy"`
	Split    spawn.Split        `json:"split"`
	Workers  int                `json:"workers"`
	// Ranks, for mpi: the job's ranks (Workers is ranks x threads).
	Ranks   int                     `json:"ranks,omitempty"`
	IO      string                  `json:"io"`
	Filters []Filter                `json:"filters"`
	Any     []Filter                `json:"any,omitempty"` // the OR group (--any)
	Kinds   []Kind                  `json:"kinds,omitempty"`
	By      []string                `json:"by,omitempty"`
	Matched *int64                  `json:"matched,omitempty"` // left out for the floor, which answers no query
	Sums    *bench.Ordered[*string] `json:"sums,omitempty"`    // null: no row had a value
	Min     *bench.Ordered[*string] `json:"min,omitempty"`
	Max     *bench.Ordered[*string] `json:"max,omitempty"`
	Avg     *bench.Ordered[*string] `json:"avg,omitempty"`
	// CountDistinct, Median and Quantile: the holistic aggregates
	// (scan.Holistic), by column; a quantile's by COLUMN:P
	CountDistinct *bench.Ordered[*string] `json:"count_distinct,omitempty"`
	Median        *bench.Ordered[*string] `json:"median,omitempty"`
	Quantile      *bench.Ordered[*string] `json:"quantile,omitempty"`
	// Skipped: per aggregate (by its label), the matching rows whose value
	// was missing (an empty field), which it left out.
	Skipped *bench.Ordered[int64] `json:"skipped,omitempty"`
	Lines   *int64                `json:"lines,omitempty"` // the floor's newline count
	// BadRows: with --skip-bad-rows, the rows left out as bad
	BadRows    *int64      `json:"bad_rows,omitempty"`
	Data       Data        `json:"data"`
	Time       Times       `json:"time"`
	PerWorker  []Worker    `json:"per_worker"`
	Imbalance  json.Number `json:"imbalance"`
	QuotedRows *int64      `json:"quoted_rows,omitempty"`
	Child      string      `json:"child,omitempty"` // processes: the binary the workers were started from
	Rescanned  []Path      `json:"rescanned"`
}

// Kind is one column the query reads, its kind (number, date or text) and
// how that was decided.
type Kind struct {
	Column string `json:"column"`
	Kind   string `json:"kind"`
	Why    string `json:"why"`
}

// Filter is one of the query's filters, as the header spells its column.
type Filter struct {
	Column    string `json:"column"`
	ColumnHex string `json:"column_hex,omitempty"`
	Op        string `json:"op"`
	Value     string `json:"value"`
	ValueHex  string `json:"value_hex,omitempty"`
	Quoted    bool   `json:"quoted,omitempty"` // text: compared by its bytes alone
	// Values: in's and not in's list
	Values []string `json:"values,omitempty"`
}

// writeGroupsJSON writes a group-by's table as the elements of a JSON
// array, one object per group: the group-by columns, "count" (a number),
// then each aggregate's label with its exact decimal in a string ("" for a
// minimum or average of no value). In pieces (WritePieces): millions of
// groups are never one buffer.
func writeGroupsJSON(w io.Writer, gt *scan.GroupTable, nkeys int) error {
	names := make([][]byte, len(gt.Header)) // each `"label":`
	for j, h := range gt.Header {
		k, _ := json.Marshal(h)
		names[j] = append(k, ':')
	}
	return WritePieces(w, gt.Len(), func() PieceMaker {
		t := gt.Fork()
		return func(out []byte, lo, hi int) []byte {
			var b []byte // (a piece's own)
			var ends []int
			for i := lo; i < hi; i++ {
				if i > 0 {
					out = append(out, ',')
				}
				b, ends = t.AppendRow(b[:0], ends[:0], i, false)
				out = append(out, '{')
				for j, v := range scan.Cells(b, ends) {
					if j > 0 {
						out = append(out, ',')
					}
					out = append(out, names[j]...)
					switch {
					case j == nkeys: // the count
						out = append(out, v...)
					case j > nkeys && len(v) == 0: // an aggregate no row had a value for
						out = append(out, "null"...)
					default:
						out = appendJSONString(out, v)
					}
				}
				out = append(out, '}')
			}
			return out
		}
	})
}

// appendJSONString appends v as a JSON string: as it is, quoted, if it is
// printable ASCII without a quote or backslash (every number, most keys),
// else as encoding/json writes it (invalid UTF-8 as U+FFFD), with '<', '>'
// and '&' left as they are, as in the rest of the report.
func appendJSONString(dst, v []byte) []byte {
	for _, c := range v {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.Encode(string(v)) // a string: cannot fail
			return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, v...)
	return append(dst, '"')
}

// Data is what the run read: files, data rows and bytes.
type Data struct {
	Files int   `json:"files"`
	Rows  int64 `json:"rows"`
	Bytes int64 `json:"bytes"`
}

// Times are the run's phases (spawn.Report), in seconds.
type Times struct {
	Setup, Spawn, Scan, Join, Merge, Total float64
}

// MarshalJSON keeps the phases in their order, lower-case.
func (t Times) MarshalJSON() ([]byte, error) {
	return json.Marshal(&struct {
		Setup float64 `json:"setup"`
		Spawn float64 `json:"spawn"`
		Scan  float64 `json:"scan"`
		Join  float64 `json:"join"`
		Merge float64 `json:"merge"`
		Total float64 `json:"total"`
	}{t.Setup, t.Spawn, t.Scan, t.Join, t.Merge, t.Total})
}

// Worker is what one worker did (spawn.WorkerStats), times in seconds
// since the run's start.
type Worker struct {
	Worker int      `json:"worker"`
	Start  float64  `json:"start"`
	End    float64  `json:"end"`
	Busy   float64  `json:"busy"`
	Units  int      `json:"units"`
	Bytes  int64    `json:"bytes"`
	Rows   int64    `json:"rows"`
	Fork   *float64 `json:"fork,omitempty"`    // processes
	MaxRSS *int64   `json:"max_rss,omitempty"` // processes: peak resident bytes
	// processes: the child's start (its ForkExec call's end to its main:
	// the exec, the Go runtime, the package initialisers) and its setup
	// (main to its scan: region, job, inputs mapped)
	Start0 *float64 `json:"child_start,omitempty"`
	Setup  *float64 `json:"child_setup,omitempty"`
}

// Path is a path: a string, or, if it is not UTF-8, an object with the
// string and its bytes in hex.
type Path string

func (p Path) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(p)) {
		return json.Marshal(string(p))
	}
	return json.Marshal(struct {
		Path string `json:"path"`
		Hex  string `json:"path_hex"`
	}{string(p), hex.EncodeToString([]byte(p))})
}

// hexIfNotUTF8 is s in hex if s is not valid UTF-8, else "".
func hexIfNotUTF8(s string) string {
	if utf8.ValidString(s) {
		return ""
	}
	return hex.EncodeToString([]byte(s))
}

// JSON writes a report as one JSON object (see QueryDoc) and a newline; a
// group-by's rows go straight to w (writeGroupsJSON), after the rest. c is
// the run's configuration (its I/O mode, and the names of its inputs).
func JSON(w io.Writer, rep *spawn.Report, c spawn.Config) error {
	j := QueryDoc{Strategy: spawn.StrategyFlag{Strategy: rep.Strategy}, Split: rep.Split, Workers: rep.Workers, Ranks: rep.Ranks, IO: rep.IO(c.Mode).String(),
		Data: Data{rep.Files, rep.Result.Rows, rep.Bytes},
		Time: Times{rep.Setup.Seconds(), rep.Spawn.Seconds(), rep.Scan.Seconds(), rep.Join.Seconds(),
			rep.Merge.Seconds(), rep.Total.Seconds()},
		Imbalance: json.Number(strconv.FormatFloat(bench.Imbalance(rep.Busy()), 'f', 4, 64)),
		Rescanned: []Path{},
	}
	var gt *scan.GroupTable
	var nkeys int
	if rep.Floor() {
		j.Lines = &rep.Result.Rows
	} else {
		ans := rep.Answer()
		j.Matched, j.QuotedRows = &rep.Result.Matched, &rep.Result.Quoted
		if c.Query.SkipBad {
			j.BadRows = &rep.Result.Bad
		}
		j.Filters = []Filter{}
		for _, f := range ans.Filters {
			j.Filters = append(j.Filters, Filter{f.Col, hexIfNotUTF8(f.Col), f.Op.String(), f.Value, hexIfNotUTF8(f.Value), f.Quoted, f.Values})
		}
		for _, f := range ans.Any {
			j.Any = append(j.Any, Filter{f.Col, hexIfNotUTF8(f.Col), f.Op.String(), f.Value, hexIfNotUTF8(f.Value), f.Quoted, f.Values})
		}
		for _, ck := range ans.Kinds {
			j.Kinds = append(j.Kinds, Kind{ck.Col, ck.Kind.String(), ck.Why})
		}
		if gt = ans.Groups(); gt != nil {
			j.By, nkeys = ans.By, len(ans.By)
		} else {
			for i, v := range ans.Values() {
				to := map[string]**bench.Ordered[*string]{"sum": &j.Sums, "min": &j.Min, "max": &j.Max, "avg": &j.Avg,
					"count_distinct": &j.CountDistinct, "median": &j.Median, "quantile": &j.Quantile}[ans.Aggs[i].Func]
				if *to == nil {
					*to = &bench.Ordered[*string]{}
				}
				var value *string
				if v.Value != "" {
					value = &v.Value
				}
				key := ans.Aggs[i].Col
				if p := ans.Aggs[i].P; p != "" {
					key += ":" + p
				}
				(*to).Add(key, value)
			}
		}
		if len(ans.Aggs) > 0 {
			j.Skipped = &bench.Ordered[int64]{}
			for _, g := range ans.Aggs {
				j.Skipped.Add(g.Label(), ans.Skipped(g))
			}
		}
	}
	for i, s := range rep.PerWorker {
		w := Worker{Worker: i, Start: s.Start.Seconds(), End: s.End.Seconds(), Busy: s.Busy().Seconds(),
			Units: s.Units, Bytes: s.Bytes, Rows: s.Rows}
		if rep.Children() {
			f, rss, st, su := s.Fork.Seconds(), s.MaxRSS, s.ChildStart().Seconds(), s.ChildSetup().Seconds()
			w.Fork, w.MaxRSS, w.Start0, w.Setup = &f, &rss, &st, &su
		}
		j.PerWorker = append(j.PerWorker, w)
	}
	j.Child = rep.Child
	for _, f := range rep.Rescanned {
		j.Rescanned = append(j.Rescanned, Path(c.Name(f)))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // ">=" as it is, not "\u003e="
	if err := enc.Encode(&j); err != nil {
		panic(err) // every field is a plain value: cannot fail
	}
	out := bufio.NewWriterSize(w, 1<<16)
	doc := buf.Bytes() // {…}\n
	if gt == nil {
		out.Write(doc)
		return out.Flush()
	}
	out.Write(doc[:len(doc)-2]) // the object open: "groups" goes last
	out.WriteString(`,"groups":[`)
	if err := writeGroupsJSON(out, gt, nkeys); err != nil {
		return err
	}
	out.WriteString("]}\n")
	return out.Flush()
}
