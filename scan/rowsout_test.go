package scan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// readOut reads rows written in format f back into cells, the slow way:
// CSV by its grammar byte by byte (encoding/csv would drop a CR before an
// LF in quotes), TSV by its escapes, JSON lines by encoding/json (a
// number as written, null as an empty cell). Each row must have n cells.
func readOut(out []byte, f OutFormat, n int) ([][]string, error) {
	var rows [][]string
	switch f {
	case OutCSV:
		var row []string
		var cell []byte
		in, quoted := false, false
		for i := 0; i < len(out); i++ {
			c := out[i]
			switch {
			case in && c == '"' && i+1 < len(out) && out[i+1] == '"':
				cell = append(cell, '"')
				i++
			case in && c == '"':
				in = false
			case in:
				cell = append(cell, c)
			case c == '"' && len(cell) == 0 && !quoted:
				in, quoted = true, true
			case c == ',' || c == '\n':
				row, cell, quoted = append(row, string(cell)), nil, false
				if c == '\n' {
					rows, row = append(rows, row), nil
				}
			case c == '"' || c == '\r':
				return nil, fmt.Errorf("byte %d: %q outside quotes", i, c)
			default:
				cell = append(cell, c)
			}
		}
		if in || row != nil || cell != nil {
			return nil, fmt.Errorf("the rows do not end with a line end")
		}
	case OutTSV:
		if len(out) > 0 && out[len(out)-1] != '\n' {
			return nil, fmt.Errorf("the rows do not end with a line end")
		}
		for line := range strings.SplitSeq(strings.TrimSuffix(string(out), "\n"), "\n") {
			if len(out) == 0 {
				break
			}
			var row []string
			for cell := range strings.SplitSeq(line, "\t") {
				var v []byte
				for i := 0; i < len(cell); i++ {
					if cell[i] != '\\' {
						v = append(v, cell[i])
						continue
					}
					if i++; i == len(cell) {
						return nil, fmt.Errorf("cell %q ends in a backslash", cell)
					}
					e := strings.IndexByte(`\tnr`, cell[i])
					if e < 0 {
						return nil, fmt.Errorf("cell %q: \\%c is no escape", cell, cell[i])
					}
					v = append(v, "\\\t\n\r"[e])
				}
				row = append(row, string(v))
			}
			rows = append(rows, row)
		}
	case OutJSON:
		d := json.NewDecoder(bytes.NewReader(out))
		d.UseNumber()
		for d.More() {
			var row []string
			if t, err := d.Token(); err != nil || t != json.Delim('{') {
				return nil, fmt.Errorf("row %d: %v %v", len(rows), t, err)
			}
			for d.More() {
				if _, err := d.Token(); err != nil { // the key
					return nil, err
				}
				t, err := d.Token()
				if err != nil {
					return nil, err
				}
				switch v := t.(type) {
				case nil:
					row = append(row, "")
				case string:
					row = append(row, v)
				case json.Number:
					row = append(row, string(v))
				default:
					return nil, fmt.Errorf("value %v", v)
				}
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
		if !bytes.HasSuffix(out, []byte("}\n")) && len(out) > 0 || bytes.Count(out, []byte("\n")) != len(rows) {
			return nil, fmt.Errorf("not a row a line")
		}
	}
	for i, r := range rows {
		if len(r) != n {
			return nil, fmt.Errorf("row %d has %d cells, want %d: %q", i, len(r), n, r)
		}
	}
	return rows, nil
}

func TestRowsOutFields(t *testing.T) {
	for _, c := range []struct {
		v, csv, tsv, json string
	}{
		{"", "", "", "null"},
		{"plain", "plain", "plain", `"plain"`},
		{"a,b", `"a,b"`, "a,b", `"a,b"`},
		{`say "hi"`, `"say ""hi"""`, `say "hi"`, `"say \"hi\""`},
		{"two\r\nlines", "\"two\r\nlines\"", `two\r\nlines`, `"two\r\nlines"`},
		{"tab\there", "tab\there", `tab\there`, `"tab\there"`},
		{`back\slash`, `back\slash`, `back\\slash`, `"back\\slash"`},
		{"bell\x07", "bell\x07", "bell\x07", `"bell\u0007"`},
		{"Cura\xe7ao", "Cura\xe7ao", "Cura\xe7ao", `"Cura` + "\ufffd" + `ao"`},
		{"Straße", "Straße", "Straße", `"Straße"`},
		{"437.20", "437.20", "437.20", "437.20"},
		{"-0.5e3", "-0.5e3", "-0.5e3", "-0.5e3"},
		{"007", "007", "007", `"007"`}, // (not JSON's number: as read, text)
	} {
		v := []byte(c.v)
		if got := string(AppendCSVField(nil, v)); got != c.csv {
			t.Errorf("CSV of %q: %q, want %q", c.v, got, c.csv)
		}
		if got := string(AppendTSVField(nil, v)); got != c.tsv {
			t.Errorf("TSV of %q: %q, want %q", c.v, got, c.tsv)
		}
		s := &selector{out: OutJSON, keys: [][]byte{[]byte(`{"k":`)}, kinds: []Kind{KindAuto}, whys: []string{""}, names: []string{"k"}}
		got, err := s.field(nil, 0, v)
		if err != nil || string(got) != `{"k":`+c.json {
			t.Errorf("JSON of %q: %q %v, want %q", c.v, got, err, c.json)
		}
		var back map[string]any
		if err := json.Unmarshal(append(got, '}'), &back); err != nil {
			t.Errorf("JSON of %q: %v", c.v, err)
		}
	}
	// A number column's values are JSON numbers, whatever their spelling;
	// text stays a string, a value that is no number is an error.
	s := &selector{out: OutJSON, keys: [][]byte{[]byte(`{"n":`)}, kinds: []Kind{KindNumber}, whys: []string{"sampled"}, names: []string{"n"}}
	for v, want := range map[string]string{"+5": "5", ".50": "0.50", "007": "7", "-0": "-0", "12345678901234567890123": "12345678901234567890123"} {
		if got, err := s.field(nil, 0, []byte(v)); err != nil || string(got) != `{"n":`+want {
			t.Errorf("number %q: %q %v, want %q", v, got, err, want)
		}
	}
	if _, err := s.field(nil, 0, []byte("abc")); !errors.Is(err, ErrKind) {
		t.Errorf("number abc: %v, want ErrKind", err)
	}
	s.kinds[0] = KindText
	if got, _ := s.field(nil, 0, []byte("42")); string(got) != `{"n":"42"` {
		t.Errorf("text 42: %q", got)
	}
}

func FuzzRowsOut(f *testing.F) {
	f.Add("a", "b,\"c\"\r\n", "\\t\x00\xff")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		want := [][]string{{a, b, c}}
		for _, of := range []OutFormat{OutCSV, OutTSV, OutJSON} {
			s := &selector{out: of, names: []string{"a", "b", "c"}, kinds: make([]Kind, 3), whys: make([]string, 3)}
			for k, n := range s.names {
				key := []byte{','}
				if k == 0 {
					key[0] = '{'
				}
				s.keys = append(s.keys, append(appendJSONString(key, []byte(n)), ':'))
			}
			var o []byte
			for k, v := range want[0] {
				var err error
				if o, err = s.field(o, k, []byte(v)); err != nil {
					t.Fatal(err)
				}
			}
			o = s.end(o)
			got, err := readOut(o, of, 3)
			if err != nil {
				t.Fatalf("%s %q: %v", of, o, err)
			}
			exp := want
			if of == OutJSON { // (JSON's strings are UTF-8: a stray byte is U+FFFD)
				exp = [][]string{{string([]rune(a)), string([]rune(b)), string([]rune(c))}} // (a rune error a byte)
				for k, v := range want[0] {
					if isJSONNumber([]byte(v)) || v == "" {
						exp[0][k] = v
					}
				}
				if !utf8.Valid(o) {
					t.Fatalf("JSON %q is not UTF-8", o)
				}
			}
			if !slices.EqualFunc(got, exp, slices.Equal) {
				t.Fatalf("%s %q: read back %q, want %q", of, o, got, exp)
			}
			if cut := CutRows(append(slices.Clone(o), o...), of, 1); !bytes.Equal(cut, o) {
				t.Fatalf("%s: CutRows of two rows to one: %q, want %q", of, cut, o)
			}
		}
	})
}

// refJSONNumber is JSON's number grammar the slow way: what encoding/json
// takes as a number and gives back as written.
func refJSONNumber(v string) bool {
	var n json.Number
	return json.Unmarshal([]byte(v), &n) == nil && string(n) == v
}

func FuzzJSONNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "01", "1.", ".1", "1e5", "1E+5", "-", "1.5e", "+1", "12.50", " 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if got, want := isJSONNumber([]byte(v)), refJSONNumber(v); got != want {
			t.Fatalf("isJSONNumber(%q) = %v, want %v", v, got, want)
		}
	})
}

func TestSelectValidate(t *testing.T) {
	for _, c := range []struct {
		q    Query
		want string
	}{
		{Query{Select: []string{"a"}, By: []string{"b"}}, "--by"},
		{Query{Select: []string{"a"}, Sum: []string{"b"}}, "figures"},
		{Query{Select: []string{"*", "a"}}, "alone"},
		{Query{Select: []string{" "}}, "empty column"},
		{Query{Select: []string{}}, "names no column"},
		{Query{Select: []string{"a"}, Out: 9}, "format"},
	} {
		if err := c.q.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error saying %q", c.q, err, c.want)
		}
	}
	if err := (&Query{Select: []string{"a"}, Limit: 3, Sort: []SortKey{{Col: "a"}}}).Validate(); err != nil {
		t.Errorf("--select with --limit and --sort: %v", err)
	}
}

func TestCutRows(t *testing.T) {
	csv := []byte("a,\"x\ny\"\nb,2\nc,3\n")
	for n, want := range []string{"", "a,\"x\ny\"\n", "a,\"x\ny\"\nb,2\n", string(csv), string(csv)} {
		if n == 0 {
			continue
		}
		if got := CutRows(csv, OutCSV, n); string(got) != want {
			t.Errorf("CutRows(%d): %q, want %q", n, got, want)
		}
	}
}
