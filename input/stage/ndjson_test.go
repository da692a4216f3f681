package stage

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"parlab/scan"
)

func TestJSONToCSV(t *testing.T) {
	in, err := os.ReadFile("../../testdata/events.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := jsonToCSV(&out, bytes.NewReader(in), []string{"user.id", "kind", "amount", "missing.key", "Kind"}, nil, "events.ndjson", false); err != nil {
		t.Fatal(err)
	}
	// (a blank line for a blank line, so that the CSV's line n+1 is the
	// input's line n: spawn.Config.HeadAdded)
	want := `kind,user.id,amount,missing.key
click,7,,
view,9,,

click,7,,
view,,,
buy,12,19.99,
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	// every key (nil), objects and arrays as their JSON text
	out.Reset()
	if err := jsonToCSV(&out, bytes.NewReader(in), nil, nil, "events.ndjson", false); err != nil {
		t.Fatal(err)
	}
	want = `ts,user,kind,ms,tags,ok
2024-03-01T10:00:00Z,"{""id"":7,""name"":""Ana""}",click,12.50,"[""a"",""b""]",true
2024-03-01T10:00:05Z,"{""id"":9,""name"":""Bo, \""the\"" Kid""}",view,3,,false

2024-03-02T08:30:00Z,"{""id"":7,""name"":""Ana""}",click,1e2,,
2024-03-02T09:00:00Z,,view,,,
2024-03-03T12:00:00Z,"{""id"":12}",buy,40.25,,
`
	if out.String() != want {
		t.Errorf("every key: got\n%s\nwant\n%s", out.String(), want)
	}
	// keys in another order, again, and twice in one line (the first
	// counts, as Object.Get finds it)
	out.Reset()
	if err := jsonToCSV(&out, strings.NewReader(`{"a":1,"b":2}
{"b":3,"a":4}
{"b":5,"a":6,"a":7}
{"a":8}
`), nil, nil, "o", false); err != nil {
		t.Fatal(err)
	}
	if want := "a,b\n1,2\n4,3\n6,5\n8,\n"; out.String() != want {
		t.Errorf("keys reordered: %q, want %q", out.String(), want)
	}
	// a string that --null names is a missing value (a number, and a
	// string that only holds one, are not)
	out.Reset()
	if err := jsonToCSV(&out, strings.NewReader(`{"a":"NA","b":"NA!"}
{"a":"-","b":2}
{"a":3,"b":"x"}
`), nil, []string{"NA", "-"}, "o", false); err != nil {
		t.Fatal(err)
	}
	if want := "a,b\n,NA!\n,2\n3,x\n"; out.String() != want {
		t.Errorf("--null: %q, want %q", out.String(), want)
	}
	// one column: a row whose value is missing is a row, not a blank line;
	// objects without keys a column of their own; blank lines, before the
	// first object too, kept (after the header)
	for in, want := range map[string]string{
		"{\"a\":1}\n{}\n{\"a\":null}\n": "a\n1\n\"\"\n\"\"\n",
		"{}\n\n{}\n":                    "column0\n\"\"\n\n\"\"\n",
		"\n \n{\"a\":1}\n":              "a\n\n\n1\n",
	} {
		out.Reset()
		if err := jsonToCSV(&out, strings.NewReader(in), nil, nil, "m", false); err != nil || out.String() != want {
			t.Errorf("%q: %q %v, want %q", in, out.String(), err, want)
		}
	}
	// a string field holding a newline and quotes stays one field
	var nested bytes.Buffer
	if err := jsonToCSV(&nested, strings.NewReader(`{"note":"line\nbreak, \"q\""}`+"\n"), nil, nil, "n", true); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&nested).ReadAll()
	if err != nil || len(recs) != 2 || recs[1][0] != "line\nbreak, \"q\"" {
		t.Errorf("%q: %v", recs, err)
	}
}

func TestJSONErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\"a\":1}\n{\"a\":2,}\n", "bad.ndjson:2:1"},
		{"{\"a\":1}\n\n[1,2]\n", "bad.ndjson:3:1: not a JSON object: a line holds array"},
		{"\"just a string\"\n", "bad.ndjson:1:1"},
		{"{\"a\":1}\n{\"a\":", "bad.ndjson:2:1"},
	} {
		err := jsonToCSV(&bytes.Buffer{}, strings.NewReader(c.in), nil, nil, "bad.ndjson", true)
		var pe *scan.ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrJSON) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an ErrJSON at %q", c.in, err, c.want)
		}
	}
}

// Whatever the bytes, jsonToCSV fails with a place or writes CSV whose
// every row has the header's field count.
func FuzzJSONToCSV(f *testing.F) {
	f.Add([]byte("{\"a\":1,\"b\":\"x,y\"}\n{\"b\":null,\"c\":[1,{\"d\":2}]}\n"), "c.d")
	f.Add([]byte("\ufeff{\"a\":\"\\u00e9\\n\"}\r\n"), "a")
	f.Fuzz(func(t *testing.T, in []byte, want string) {
		var out bytes.Buffer
		err := jsonToCSV(&out, bytes.NewReader(in), strings.Split(want, ","), nil, "f.ndjson", len(in)%2 == 0)
		if err != nil {
			var pe *scan.ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("%q: error %v has no place", in, err)
			}
			return
		}
		if out.Len() == 0 {
			return // (no line)
		}
		r := csv.NewReader(&out)
		recs, err := r.ReadAll()
		if err != nil || len(recs) < 2 {
			t.Fatalf("%q gave CSV %q: %v", in, out.String(), err)
		}
	})
}

// Lines past the first block are converted in parallel and written in
// order, a long line across blocks too, and an error names its line
// however far in.
func TestJSONBlocks(t *testing.T) {
	var in, want strings.Builder
	want.WriteString("id,note\n")
	for i := range 60000 {
		note := "short"
		if i == 31000 {
			note = strings.Repeat("long ", 700000) // (more than a block: 3.5 MB)
		}
		fmt.Fprintf(&in, "{\"id\":%d,\"note\":%q}\n", i, note)
		fmt.Fprintf(&want, "%d,%s\n", i, note)
		if i%1000 == 0 {
			in.WriteString("\n") // a blank line, kept
			want.WriteString("\n")
		}
	}
	var out bytes.Buffer
	if err := jsonToCSV(&out, strings.NewReader(in.String()), nil, nil, "big.ndjson", true); err != nil {
		t.Fatal(err)
	}
	if out.String() != want.String() {
		t.Fatalf("%d bytes of CSV, want %d; they differ", out.Len(), want.Len())
	}
	lines := strings.SplitAfter(in.String(), "\n")
	lines[50123] = "{\"id\":1,]\n"
	err := jsonToCSV(&bytes.Buffer{}, strings.NewReader(strings.Join(lines, "")), nil, nil, "big.ndjson", true)
	if err == nil || !strings.Contains(err.Error(), "big.ndjson:50124:1") {
		t.Fatalf("%v, want the error at line 50124", err)
	}
}
