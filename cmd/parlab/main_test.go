package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"parlab/ftp"
	"parlab/ftp/load"
	"parlab/input"
	"parlab/internal/child"
	"parlab/internal/testrun"
	"parlab/render"
	"parlab/spawn"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The processes strategy starts this test binary as its workers.
func TestMain(m *testing.M) {
	if code, ok := child.Run(os.Args); ok {
		os.Exit(code)
	}
	// The test binary as parlab itself, for tests that need a real process
	// (signals): see runParlab.
	if os.Getenv("PARLAB_TEST_MAIN") == "1" {
		pipeAsError()
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	testrun.LessGC()
	os.Exit(m.Run())
}

// fixedTimes makes a report's times deterministic for golden files.
func fixedTimes(r *spawn.Report) {
	r.Setup, r.Spawn, r.Scan, r.Join, r.Merge, r.Total = 1*time.Millisecond, 0, 2*time.Millisecond, 0, 0, 3*time.Millisecond
	for i := range r.PerWorker {
		r.PerWorker[i].Start, r.PerWorker[i].End = time.Millisecond, time.Duration(2+i)*time.Millisecond
		r.PerWorker[i].Fork, r.PerWorker[i].Launched, r.PerWorker[i].Main = 0, 0, 0
	}
}

// run runs parlab with args and returns its exit code, stdout and stderr.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, fixTimes: fixedTimes,
		tty: func(any) bool { return false }, ncpu: 2}
	code := a.main(args)
	return code, out.String(), errb.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", name, p, got, want)
	}
}

func TestQueryGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"query_text", []string{"query", "--where", "region=Europe", "testdata/sales"}},
		{"query_json", []string{"query", "--where", "Region=Europe", "--json", "testdata/sales"}},
		{"query_flags_after_path", []string{"query", "testdata/sales/xab.csv", "--where", "item=Cosmetics", "--sum", "units sold,total cost"}},
		{"query_all_rows", []string{"query", "--sum", "Total Profit", "testdata/sales"}},
		{"query_goroutines_verbose", []string{"query", "--where", "region=Europe", "--strategy", "goroutines",
			"--workers", "3", "--split", "file", "--verbose", "testdata/sales"}},
		{"query_seq", []string{"query", "--strategy", "seq", "--where", "region=Europe", "testdata/sales"}},
		{"query_by_region", []string{"query", "--by", "Region", "--sum", "Total Revenue", "--avg", "Units Sold", "testdata/sales"}},
		{"query_filters", []string{"query", "--where", "Region=Europe", "--where", "Sales Channel=Online", "--where", "Units Sold>5000",
			"--min", "Units Sold", "--max", "Total Profit", "testdata/sales"}},
		{"query_top", []string{"query", "--by", "Country,Item Type", "--sort", "Total Profit:desc", "--limit", "3", "--csv", "testdata/sales"}},
		{"query_by_json", []string{"query", "--where", "Order Date>=2014-01-01", "--by", "Sales Channel", "--max", "Unit Price", "--json", "testdata/sales"}},
		{"query_csv", []string{"query", "--where", "Item Type!=Fruits", "--where", `Country<"M"`, "--avg", "Total Profit", "--csv", "testdata/sales"}},
		{"query_any", []string{"query", "--where", "Region=Europe", "--any", "Units Sold>9000", "--any", "Country in (France,Spain)", "--json", "--strategy", "seq", "testdata/sales"}},
		{"query_holistic", []string{"query", "--by", "Region", "--count-distinct", "Country", "--median", "Unit Price", "--quantile", "Total Profit:0.9,Total Profit:0.1", "--sort", "median(Unit Price):desc", "testdata/sales"}},
		{"query_holistic_json", []string{"query", "--where", "Region=Europe", "--count-distinct", "Item Type,Order Date", "--median", "Units Sold", "--quantile", "Unit Cost:0.75", "--json", "--strategy", "seq", "testdata/sales"}},
		{"query_select", []string{"query", "--where", "Region=Europe", "--select", "Order ID,Country,Total Profit", "testdata/sales"}},
		{"query_select_all_tsv", []string{"query", "--where", "Units Sold>9000", "--select", "*", "--format", "tsv", "--strategy", "processes", "--limit", "3", "testdata/sales"}},
		{"query_select_json", []string{"query", "--where", "Country~an", "--select", "Country,Unit Price,Order Date", "--json", "--limit", "4", "testdata/sales"}},
		{"query_select_sorted", []string{"query", "--where", "Region=Europe", "--select", "Country,Units Sold,Order Date", "--sort", "Units Sold:desc,Country", "--limit", "6", "--format", "tsv", "testdata/sales"}},
		{"query_select_text", []string{"query", "--where", "Region in (Asia,Europe)", "--select", "Region,Country,Units Sold", "--format", "text", "--limit", "5", "testdata/sales"}},
	}
	for _, tt := range tests {
		code, out, errs := run(t, "", tt.args...)
		if code != exitOK || errs != "" {
			t.Fatalf("%s: exit %d, stderr %q", tt.name, code, errs)
		}
		golden(t, tt.name, out)
	}
}

func TestQueryJSONFields(t *testing.T) {
	_, out, _ := run(t, "", "query", "--where", "region=Europe", "--json", "testdata/sales")
	var doc struct {
		Strategy string            `json:"strategy"`
		Matched  int64             `json:"matched"`
		Sums     map[string]string `json:"sums"`
		Data     struct{ Files, Rows, Bytes int64 }
		Time     map[string]float64 `json:"time"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.Strategy != "goroutines" || doc.Matched == 0 || doc.Sums["Total Revenue"] == "" || doc.Data.Files != 2 ||
		doc.Data.Rows != 60 || doc.Data.Bytes == 0 || doc.Time["total"] != 0.003 || doc.Time["setup"] != 0.001 {
		t.Errorf("JSON fields: %+v", doc)
	}
}

// Every input path gives the same answer.
func TestIOModesAgree(t *testing.T) {
	var first string
	for _, io := range []string{"mmap", "readat", "read"} {
		for _, pop := range []string{"--populate=true", "--populate=false"} {
			code, out, errs := run(t, "", "query", "--where", "region=Europe", "--io", io, pop, "testdata/sales")
			if code != 0 {
				t.Fatalf("--io %s: exit %d: %s", io, code, errs)
			}
			out = strings.Replace(out, "split, "+io+")", "split, IO)", 1)
			if first == "" {
				first = out
			} else if out != first {
				t.Errorf("--io %s %s:\n%s\nwant\n%s", io, pop, out, first)
			}
		}
	}
}

// Spaces around a filter's operator are not part of its value: Region =
// Europe is Region=Europe (a value with spaces at its ends is quoted).
func TestWhereSpaces(t *testing.T) {
	answer := func(args ...string) string {
		code, out, errs := run(t, "", append(append([]string{"query", "--json"}, args...), "testdata/sales")...)
		if code != exitOK || errs != "" {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errs)
		}
		var rep struct {
			Filters []map[string]any
			Matched int
			Sums    map[string]string
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(rep.Filters, rep.Matched, rep.Sums)
	}
	spaced := answer("--where", " Region = Europe ", "--where", "Units Sold >= 5000")
	want := answer("--where", "Region=Europe", "--where", "Units Sold>=5000")
	if spaced != want || !strings.Contains(want, "value:Europe") || strings.Contains(want, " 0 ") {
		t.Errorf("with spaces %s, without %s", spaced, want)
	}
	if none := answer("--where", `Region=" Europe"`); none == want {
		t.Errorf("a quoted leading space is part of the value: %s", none)
	}
}

// A list flag given again adds to its list, as --where does: no column is
// dropped for being in the first --sum of two.
func TestListFlagsRepeat(t *testing.T) {
	out := func(args ...string) string {
		code, out, errs := run(t, "", append(append([]string{"query", "--csv"}, args...), "testdata/sales")...)
		if code != exitOK || errs != "" {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errs)
		}
		return out
	}
	for _, c := range [][2][]string{
		{{"--sum", "Units Sold", "--sum", "Total Cost"}, {"--sum", "Units Sold,Total Cost"}},
		{{"--by", "Region", "--by", "Sales Channel", "--min", "Units Sold", "--max", "Unit Price", "--max", "Total Profit"},
			{"--by", "Region,Sales Channel", "--min", "Units Sold", "--max", "Unit Price,Total Profit"}},
		{{"--by", "Item Type", "--avg", "Total Profit", "--avg", "Units Sold", "--sort", "count:desc", "--sort", "Item Type"},
			{"--by", "Item Type", "--avg", "Total Profit,Units Sold", "--sort", "count:desc,Item Type"}},
	} {
		twice, once := out(c[0]...), out(c[1]...)
		if twice != once || strings.Count(once, "\n") < 2 {
			t.Errorf("%q:\n%s\nwant, as %q:\n%s", c[0], twice, c[1], once)
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"bad number", []string{"query", "--where", "region=Europe", "testdata/bad.csv"}, exitFail,
			`parlab: testdata/bad.csv:3:14: column "Total Revenue": not a decimal number: "12x.50"`},
		{"no column", []string{"query", "--where", "planet=Mars", "testdata/sales"}, exitFail, `no such column in the header: "planet"`},
		{"missing file", []string{"query", "--where", "region=Europe", "testdata/nope.csv"}, exitFail, "nope.csv"},
		{"no path", []string{"query", "--where", "region=Europe"}, exitUsage, "no PATH given"},
		{"bad where", []string{"query", "--where", "Europe", "testdata/sales"}, exitUsage, `--where: bad filter "Europe": want COLUMN OP VALUE`},
		{"value starting with an operator", []string{"query", "--where", "Units Sold=>5", "testdata/sales"}, exitUsage, `a value that starts with = ! < or > must be quoted`},
		{"no column before op", []string{"query", "--where", ">5", "testdata/sales"}, exitUsage, `bad filter ">5": no column before the operator`},
		{"order without value", []string{"query", "--where", "Units Sold<", "testdata/sales"}, exitUsage, `< needs a value`},
		{"open quote", []string{"query", "--where", `"Units Sold<5`, "testdata/sales"}, exitUsage, `the column's quote is not closed`},
		{"not a calendar day", []string{"query", "--where", "Order Date>13/45/2010", "testdata/sales"}, exitUsage, `--where: bad filter "Order Date>13/45/2010": not a calendar day`},
		{"a number with separators", []string{"query", "--where", "Units Sold > 1_000", "testdata/sales"}, exitUsage, `bad filter "Units Sold>1_000": neither a decimal number`},
		{"a value out of range", []string{"query", "--where", "Units Sold>999999999999999999999999999999999999999", "testdata/sales"}, exitUsage, `--where: bad filter "Units Sold>999999999999999999999999999999999999999": number out of range`},
		{"not a number", []string{"query", "--where", "Region>5", "testdata/sales"}, exitFail, `bad filter "Region>5": "Region" is a text column ("Sub-Saharan Africa" at testdata/sales/xaa.csv line 2 is not a number or a date), which orders by bytes (10 before 9): quote the value to compare bytes ('Region>"5"')`},
		{"sort without by", []string{"query", "--sort", "count", "testdata/sales"}, exitUsage, "give --by"},
		{"sort unknown", []string{"query", "--by", "Region", "--sort", "Nope:desc", "testdata/sales"}, exitFail, `cannot sort by "Nope"`},
		{"by twice", []string{"query", "--by", "Region,region", "testdata/sales"}, exitFail, `"Region" and "region" are both field 1`},
		{"json and csv", []string{"query", "--json", "--csv", "testdata/nonexistent"}, exitUsage, "give one"}, // before any work: the path is not read
		{"floor as csv", []string{"query", "--strategy", "floor", "--csv", "testdata/nonexistent"}, exitUsage, "the floor counts lines"},
		{"bad list", []string{"query", "--min", `"Units Sold`, "testdata/sales"}, exitUsage, "--min: list"},
		{"bad io", []string{"query", "--io", "fread", "testdata/sales"}, exitUsage, `--io: unknown I/O mode "fread"`},
		{"bad flag", []string{"query", "--frobnicate", "testdata/sales"}, exitUsage, "frobnicate"},
		{"unknown command", []string{"frob"}, exitUsage, `unknown command "frob"`},
		{"too many sums", []string{"query", "--sum", "a,b,c,d,e,f,g,h,i", "testdata/sales"}, exitUsage, "at most 8"},
		{"empty sum list", []string{"query", "--sum", ",", "testdata/sales"}, exitUsage, `--sum: list ",": an empty column name`},
		{"sum twice", []string{"query", "--sum", "Total Revenue,Total Revenue", "testdata/sales"}, exitUsage, "summed twice"},
		{"sum twice, two spellings", []string{"query", "--sum", "Total Revenue,total_revenue", "testdata/sales"}, exitFail, "summed twice"},
		{"glob characters", []string{"query", "testdata/sa*"}, exitFail, "no such file"},
		{"not a regular file", []string{"query", "--io", "readat", "/dev/zero"}, exitFail, "/dev/zero: not a regular file"},
		{"select with the floor", []string{"query", "--select", "*", "--strategy", "floor", "testdata/sales"}, exitUsage, "the floor counts lines"},
		{"select and by", []string{"query", "--select", "Country", "--by", "Region", "testdata/sales"}, exitUsage, "--select prints rows and --by answers per group"},
		{"select and sum", []string{"query", "--select", "Country", "--sum", "Units Sold", "testdata/sales"}, exitUsage, "give one or the other"},
		{"sort by a column not selected", []string{"query", "--select", "Country", "--sort", "Region", "testdata/sales"}, exitFail, "--sort orders the rows by columns that --select prints"},
		{"select unknown column", []string{"query", "--select", "Country,Planet", "testdata/sales"}, exitFail, `no such column in the header: "Planet"`},
		{"select bad format", []string{"query", "--select", "Country", "--format", "xml", "testdata/sales"}, exitUsage, "rows are written as csv, tsv, json"},
		{"rows out past max-memory", []string{"query", "--select", "*", "--max-memory", "2KiB", "--strategy", "processes", "testdata/sales"}, exitFail, "what the query holds is more than --max-memory"},
		{"one any", []string{"query", "--any", "Region=Asia", "testdata/sales"}, exitUsage, "--any is an OR of two or more filters"},
		{"bad any", []string{"query", "--any", "Region", "--any", "Region=Asia", "testdata/sales"}, exitUsage, "--any: bad filter"},
		{"quantile without fraction", []string{"query", "--quantile", "Total Profit", "testdata/sales"}, exitUsage, "want COLUMN:P"},
		{"quantile past 1", []string{"query", "--quantile", "Total Profit:1.5", "testdata/sales"}, exitUsage, "a decimal from 0 to 1"},
		{"median of text", []string{"query", "--median", "Country", "testdata/sales"}, exitFail, "not a decimal number, in a column that is read by a median"},
		{"median twice", []string{"query", "--median", "Unit Price,unit price", "testdata/sales"}, exitFail, "asked for twice"},
		{"tsv without select", []string{"query", "--format", "tsv", "testdata/sales"}, exitUsage, `--format "tsv"`},
		{"gen args", []string{"gen", "somewhere"}, exitUsage, "takes no arguments"},
		{"gen bad rows", []string{"gen", "--rows", "-5"}, exitUsage, "--rows"},
	}
	for _, tt := range tests {
		code, out, errs := run(t, "", tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.msg) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tt.name, code, errs, tt.code, tt.msg)
		}
		if out != "" {
			t.Errorf("%s: printed %q on stdout; a failed run prints no total", tt.name, out)
		}
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := run(t, "", "help")
	if code != 0 || !strings.Contains(out, "parlab query") {
		t.Errorf("help: %d %q", code, out)
	}
	if code, _, errs := run(t, ""); code != exitUsage || !strings.Contains(errs, "Usage") {
		t.Errorf("no args: %d %q", code, errs)
	}
	// a command's help: its synopsis, a line per flag with its -- name, two
	// examples, exit 0; the same from parlab help CMD
	for _, args := range [][]string{{"query", "--help"}, {"help", "query"}, {"query", "-h"}} {
		code, out, _ := run(t, "", args...)
		if code != 0 || !strings.HasPrefix(out, "parlab query [flags] PATH...") || !strings.Contains(out, "\n  --where value\n") ||
			strings.Count(strings.SplitN(out, "Examples:\n", 2)[len(strings.SplitN(out, "Examples:\n", 2))-1], "parlab query") < 1 {
			t.Errorf("%q: exit %d\n%s", args, code, out)
		}
	}
	for _, cmd := range commandNames() {
		if code, out, errs := run(t, "", "help", cmd); code != 0 && cmd != "help" || cmd != "help" && !strings.Contains(out, "Examples:") {
			t.Errorf("help %s: exit %d, %q %q", cmd, code, out, errs)
		}
	}
	if code, out, _ := run(t, "", "--version"); code != 0 || !strings.HasPrefix(out, "parlab ") || !strings.Contains(out, "go1.") {
		t.Errorf("--version: %d %q", code, out)
	}
	// typos: the nearest command or flag, still exit 2
	for args, want := range map[string]string{"querry x": `did you mean "query"?`, "query --wher a=1 x": "did you mean --where?",
		"help qery": `did you mean "query"?`, "bench --trails 3": "did you mean --trials?"} {
		if code, _, errs := run(t, "", strings.Fields(args)...); code != exitUsage || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, %q; want %q", args, code, errs, want)
		}
	}
}

func TestGen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	code, out, errs := run(t, "", "gen", "--rows", "1000", "--files", "3", "--seed", "9", "--out", dir)
	if code != 0 || !strings.Contains(out, "wrote 1000 rows in 3 files") {
		t.Fatalf("gen: %d %q %q", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "xac.csv")); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run(t, "", "gen", "--rows", "10", "--out", dir)
	if code != exitFail || !strings.Contains(errs, "--force") {
		t.Errorf("second gen: %d %q", code, errs)
	}
	if code, _, errs = run(t, "", "gen", "--rows", "10", "--files", "1", "--out", dir, "--force"); code != 0 {
		t.Errorf("gen --force: %d %q", code, errs)
	}
	code, out, _ = run(t, "", "query", "--json", dir)
	if code != 0 || !strings.Contains(out, `"rows":10`) {
		t.Errorf("query after --force: %q", out)
	}
}

// Every strategy and split prints the same answer lines as seq.
func TestStrategiesCLI(t *testing.T) {
	answer := func(out string) string {
		lines := strings.Split(out, "\n")
		return strings.Join(lines[1:4], "\n")
	}
	_, seq, _ := run(t, "", "query", "--where", "region=Europe", "testdata/sales")
	// Under -short (the race run) the goroutines only: a worker process is
	// a race-built copy of this binary, and the detector cannot see into it.
	strategies := []string{"goroutines", "processes"}
	if testing.Short() {
		strategies = strategies[:1]
	}
	for _, st := range strategies {
		for _, sp := range []string{"file-naive", "file", "rows", "dynamic"} {
			code, out, errs := run(t, "", "query", "--where", "region=Europe", "--strategy", st,
				"--workers", "3", "--split", sp, "testdata/sales")
			if code != 0 || answer(out) != answer(seq) {
				t.Errorf("%s %s: exit %d %s\n%s\nwant\n%s", st, sp, code, errs, out, seq)
			}
		}
	}
	// a group-by's keys split: every worker reads every row, keeps its keys
	_, seqBy, _ := run(t, "", "query", "--by", "Order ID", "--sort", "count:desc,Order ID", "--limit", "5", "testdata/sales")
	for _, st := range strategies {
		code, out, errs := run(t, "", "query", "--by", "Order ID", "--sort", "count:desc,Order ID", "--limit", "5", "--strategy", st,
			"--workers", "3", "--split", "keys", "testdata/sales")
		body := func(s string) string { _, b, _ := strings.Cut(s, "\n"); b, _, _ = strings.Cut(b, "  Time"); return b }
		if code != 0 || !strings.Contains(out, "keys split") || body(out) != body(seqBy) || !strings.Contains(out, "Groups           60") {
			t.Errorf("%s keys: exit %d %s\n%s\nwant\n%s", st, code, errs, out, seqBy)
		}
	}
	if testing.Short() {
		return
	}
	// children read the files the same way the parent was told to
	for _, io := range []string{"readat", "read"} {
		code, out, errs := run(t, "", "query", "--where", "region=Europe", "--strategy", "processes", "--io", io,
			"--split", "dynamic", "--workers", "3", "testdata/sales")
		if code != 0 || answer(out) != answer(seq) {
			t.Errorf("processes --io %s: exit %d %s\n%s", io, code, errs, out)
		}
	}
	code, out, _ := run(t, "", "query", "--where", "region=Europe", "--strategy", "processes", "--json", "testdata/sales")
	var doc struct {
		Strategy  string `json:"strategy"`
		Workers   int    `json:"workers"`
		PerWorker []struct {
			Worker     int
			Busy, Fork float64
			Units      int
			Rows       int64
		} `json:"per_worker"`
		Imbalance float64 `json:"imbalance"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("processes --json: %v\n%s", err, out)
	}
	rows := int64(0)
	for _, w := range doc.PerWorker {
		rows += w.Rows
	}
	if doc.Strategy != "processes" || doc.Workers != 2 || len(doc.PerWorker) != 2 || rows != 60 || doc.Imbalance < 1 {
		t.Errorf("processes --json: %+v", doc)
	}
}

func TestFailingWorkerCLI(t *testing.T) {
	t.Setenv(spawn.FailpointEnv, "child-kill:1")
	code, out, errs := run(t, "", "query", "--where", "region=Europe", "--strategy", "processes",
		"--workers", "2", "testdata/sales")
	if code != exitFail || out != "" || !strings.Contains(errs, "worker 1 (pid ") || !strings.Contains(errs, "signal 9") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestStrategyUsage(t *testing.T) {
	for _, args := range [][]string{
		{"query", "--strategy", "threads", "testdata/sales"},
		{"query", "--workers", "-1", "testdata/sales"},
		{"query", "--split", "halves", "testdata/sales"},
		{"query", "--split", "keys", "--where", "region=Europe", "testdata/sales"},
		{"query", "--timeout", "-1s", "testdata/sales"},
	} {
		if code, out, _ := run(t, "", args...); code != exitUsage || out != "" {
			t.Errorf("%v: exit %d, stdout %q", args, code, out)
		}
	}
}

// The menu, driven through a pipe as a script would.
func TestMenu(t *testing.T) {
	script := "2\n1\nEurope\n3\n4\n-\ny\n9\n3\n3\n\n2\n5\nRegion, sales channel\nn\n"
	code, out, errs := run(t, script, "menu", "testdata/sales")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "menu", out)
	if strings.Count(out, "Matching orders") != 2 || !strings.Contains(out, "please answer 1 to 3") {
		t.Errorf("menu transcript:\n%s", out)
	}
	// A worker count out of range is asked again, not an exit.
	code, out, errs = run(t, "3\n1\nEurope\n99999\n0\n2\n3\n\nn\n", "menu", "testdata/sales")
	if code != 0 || strings.Count(out, "please answer 1 to 1024") != 2 || !strings.Contains(out, "Matching orders") {
		t.Errorf("menu, bad worker counts: exit %d\n%s%s", code, out, errs)
	}
	// End of input in the middle of a question ends the menu quietly.
	if code, _, _ := run(t, "3\n", "menu", "testdata/sales"); code != 0 {
		t.Errorf("menu at EOF: exit %d", code)
	}
}

// The study of a group-by runs the keys split too, by default, each trial's
// answer checked against seq's.
func TestBenchGroupBy(t *testing.T) {
	testrun.FullRunOnly(t, "the processes strategy runs")
	code, out, errs := run(t, "", "bench", "--by", "Order ID", "--trials", "1", "--warmup", "0", "--workers", "2",
		"--strategies", "seq,goroutines,processes", "--no-floor", "--json", "-", "testdata/sales")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Results []struct {
			Parameters struct{ Strategy, Split string }
		}
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &doc); err != nil {
		t.Fatalf("bench JSON: %v\n%s", err, out)
	}
	keys := 0
	for _, r := range doc.Results {
		if r.Parameters.Split == "keys" {
			keys++
		}
	}
	if len(doc.Results) != 11 || keys != 2 {
		t.Errorf("%d results, %d of the keys split: %+v", len(doc.Results), keys, doc.Results)
	}
}

// A short real bench: every strategy and split, 2 trials, on the fixture.
func TestBenchShortRun(t *testing.T) {
	testrun.FullRunOnly(t, "the study runs worker processes")
	dir := t.TempDir()
	// the log and JSON go into directories that do not exist yet
	js, logf, plots := filepath.Join(dir, "j", "b.json"), filepath.Join(dir, "l", "trials.log"), filepath.Join(dir, "plots")
	code, out, errs := run(t, "", "bench", "--trials", "2", "--warmup", "0", "--workers", "1-3",
		"--json", js, "--log", logf, "--plot", plots, "testdata/sales")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Amdahl", "Processes against goroutines", "Work a row", "Load imbalance", "Floor", "files per worker"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench output lacks %q", want)
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Env struct {
			CPU        string `json:"cpu"`
			Cores      int    `json:"cores"`
			GOMAXPROCS int    `json:"gomaxprocs"`
			Go         string `json:"go"`
			Kernel     string `json:"kernel"`
			Files      int    `json:"files"`
			Rows       int64  `json:"rows"`
			Bytes      int64  `json:"bytes"`
		} `json:"env"`
		Expected struct {
			Matched int64             `json:"matched"`
			Sums    map[string]string `json:"sums"`
		} `json:"expected"`
		Results []struct {
			Parameters struct {
				Strategy string `json:"strategy"`
				Split    string `json:"split"`
				Workers  int    `json:"workers"`
			} `json:"parameters"`
			Mean, Median, Min, Max float64
			Stddev                 *float64
			Times                  []float64
			Speedup, Efficiency    *float64
			KarpFlatt              *float64 `json:"karp_flatt"`
			Imbalance              float64
			Phases                 map[string]float64
			DiskRead               *int64   `json:"disk_read"`
			RowCost                *float64 `json:"row_cost"`
		} `json:"results"`
		PageCache *struct {
			Start, End *float64
			HugeStart  *float64 `json:"huge_start"`
			HugeEnd    *float64 `json:"huge_end"`
		} `json:"page_cache"`
		Floor []struct {
			Workers int
			Median  float64
		} `json:"floor"`
		Amdahl []struct {
			Strategy, Split string
			SerialFraction  *float64 `json:"serial_fraction"`
			R2              *float64 `json:"r2"`
			Ceiling         *float64 `json:"ceiling"`
		} `json:"amdahl"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("bench JSON: %v", err)
	}
	e := doc.Env
	if e.Cores < 1 || e.GOMAXPROCS < 1 || e.Go == "" || e.Kernel == "" || e.Files != 2 || e.Rows != 60 || e.Bytes == 0 {
		t.Errorf("env %+v", e)
	}
	if doc.Expected.Matched != 15 || doc.Expected.Sums["Total Revenue"] != "18407663.30" {
		t.Errorf("expected %+v", doc.Expected)
	}
	if pc := doc.PageCache; pc == nil || pc.Start == nil || pc.End == nil || *pc.Start < 0 || *pc.Start > 1 || *pc.End < 0 || *pc.End > 1 {
		t.Errorf("page_cache %+v", pc)
	}
	if pc := doc.PageCache; pc != nil && (pc.HugeStart != nil || pc.HugeEnd != nil) {
		t.Errorf("page_cache: folio figures for files with no whole 2 MiB block: %+v", pc)
	}
	// seq + 2 strategies × 4 splits × 3 worker counts
	if len(doc.Results) != 1+2*4*3+3 || len(doc.Floor) != 3 || len(doc.Amdahl) != 8 {
		t.Fatalf("%d results, %d floor, %d fits", len(doc.Results), len(doc.Floor), len(doc.Amdahl))
	}
	for _, r := range doc.Results {
		p := r.Parameters
		if len(r.Times) != 2 || r.Stddev == nil || r.Median <= 0 || r.Min > r.Median || r.Max < r.Median {
			t.Errorf("%+v: times %v", p, r.Times)
		}
		if p.Strategy != "floor" && (r.Speedup == nil || r.Efficiency == nil || r.Phases["scan"] <= 0) {
			t.Errorf("%+v: speedup/efficiency/phases missing", p)
		}
		// Karp-Flatt where the cores run every worker at once; past them
		// none (a serial fraction means nothing there)
		if over := doc.Env.Cores > 0 && p.Workers > doc.Env.Cores; p.Strategy != "floor" && p.Workers > 1 && (r.KarpFlatt == nil) != over {
			t.Errorf("%+v: karp_flatt %v on %d cores", p, r.KarpFlatt, doc.Env.Cores)
		}
		if r.DiskRead == nil {
			t.Errorf("%+v: no disk_read", p)
		}
		// the workers' busy times add up to at most workers × the trial's time
		if c := r.RowCost; c == nil || *c <= 0 || *c*float64(e.Rows) > float64(p.Workers)*r.Max {
			t.Errorf("%+v: row_cost %v", p, c)
		}
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, logf)), "\n")
	if len(lines) != 2*len(doc.Results) {
		t.Errorf("%d log lines, want %d", len(lines), 2*len(doc.Results))
	}
	for _, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil || v["answer"] == nil {
			t.Fatalf("log line %q: %v", l, err)
		}
	}
	for _, f := range []string{"speedup.png", "speedup.svg", "time.png", "busy.svg"} {
		if st, err := os.Stat(filepath.Join(plots, f)); err != nil || st.Size() == 0 {
			t.Errorf("plot %s: %v", f, err)
		}
	}
	// report re-renders the same tables from the file
	code, rep, errs := run(t, "", "report", js)
	if code != 0 || !strings.Contains(rep, "Amdahl") || !strings.Contains(out, firstTableLine(rep)) {
		t.Errorf("report: exit %d %s\n%s", code, errs, rep)
	}
	rplots := filepath.Join(dir, "rplots")
	if code, _, errs := run(t, "", "report", js, "--plot", rplots); code != 0 {
		t.Errorf("report --plot: %s", errs)
	}
	if st, err := os.Stat(filepath.Join(rplots, "speedup.png")); err != nil || st.Size() == 0 {
		t.Errorf("report --plot wrote no speedup.png: %v", err)
	}
	// --cold evicts the files before every trial and still checks answers;
	// every trial then reads from disk, the worker processes' included,
	// which is no cause for a warning there.
	cold := filepath.Join(dir, "cold.json")
	if code, out, errs := run(t, "", "bench", "--cold", "--trials", "1", "--warmup", "0", "--strategies", "seq,processes",
		"--splits", "rows", "--workers", "2", "--json", cold, privateCopy(t, "testdata/sales")); code != 0 || !strings.Contains(out, "cold: the data set's pages evicted") ||
		strings.Contains(out, "read from disk") {
		t.Errorf("bench --cold: exit %d %s\n%s", code, errs, out)
	}
	var cd struct {
		Results []struct {
			Parameters struct{ Strategy string }
			DiskTrials []int `json:"disk_trials"`
			DiskRead   int64 `json:"disk_read"`
		}
		PageCache any `json:"page_cache"`
	}
	if err := json.Unmarshal([]byte(readFile(t, cold)), &cd); err != nil || len(cd.Results) != 3 || cd.PageCache != nil {
		t.Fatalf("cold JSON (%v): %+v", err, cd)
	}
	for _, r := range cd.Results {
		if len(r.DiskTrials) != 1 || r.DiskRead <= 0 {
			t.Errorf("--cold, %s: disk_trials %v, disk_read %d: the evicted files were not read from disk", r.Parameters.Strategy, r.DiskTrials, r.DiskRead)
		}
	}
	code, cmp, _ := run(t, "", "report", js, "--compare", js)
	if code != 0 || !strings.Contains(cmp, "geometric mean of new/old: 1.000") {
		t.Errorf("compare: %s", cmp)
	}
	if code, _, errs := run(t, "", "report", "testdata/bad.csv"); code != exitFail || !strings.Contains(errs, "not a parlab bench file") {
		t.Errorf("report of a CSV: %d %s", code, errs)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// firstTableLine is the seq row of the main table.
func firstTableLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, " seq ") {
			return l
		}
	}
	return "no seq row"
}

func TestParseWorkers(t *testing.T) {
	for in, want := range map[string]string{"1,2,4": "[1 2 4]", "2-5": "[2 3 4 5]", "4,1-2,2": "[1 2 4]"} {
		got, err := parseWorkers(in)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("parseWorkers(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "0", "3-1", "x", "1-2000"} {
		if _, err := parseWorkers(bad); err == nil {
			t.Errorf("parseWorkers(%q): no error", bad)
		}
	}
}

func TestSpawnLab(t *testing.T) {
	testrun.FullRunOnly(t, "the lab starts processes")
	code, out, errs := run(t, "", "spawn", "--n", "4", "--rounds", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		N, Rounds int
		Kernel    string
		Methods   []struct {
			Method, Mode  string
			PerCreationUs struct{ Median, Min, Max float64 } `json:"per_creation_us"`
			TotalMs       struct{ Median float64 }           `json:"total_ms"`
			Ran           int
		}
		Ratios  map[string]float64
		Skipped []string
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// forkexec-go is skipped, and says why: no parlab-nop beside the test binary
	if doc.N != 4 || doc.Rounds != 2 || doc.Kernel == "" || len(doc.Methods) != 24 || doc.Ratios["fork_thread_create"] <= 0 ||
		len(doc.Skipped) != 1 || !strings.Contains(doc.Skipped[0], "parlab-nop") {
		t.Errorf("spawn JSON: %+v", doc)
	}
	for _, m := range doc.Methods {
		if m.Ran != 4 || m.PerCreationUs.Median <= 0 || m.PerCreationUs.Min > m.PerCreationUs.Max {
			t.Errorf("%+v", m)
		}
	}
	code, out, _ = run(t, "", "spawn", "--n", "2", "--rounds", "1", "--methods", "goroutine,fork", "--modes", "batch")
	if code != 0 || !strings.Contains(out, "2004") || !strings.Contains(out, "goroutine") {
		t.Errorf("spawn text: %s", out)
	}
	if code, _, _ := run(t, "", "spawn", "--methods", "vfork"); code != exitUsage {
		t.Errorf("unknown method: exit %d", code)
	}
}

func TestProgressAndTerminal(t *testing.T) {
	var errb bytes.Buffer
	a := &app{stderr: &errb}
	p := a.progressBar("gen", 100)
	p.draw(50)
	p.draw(100) // the last one is always drawn
	if out := errb.String(); !strings.Contains(out, "gen [###############               ]  50%") || !strings.Contains(out, "100%") {
		t.Errorf("progress bar: %q", out)
	}
	errb.Reset()
	a.progressBar("bench", 1).withTotal()(3, 4)
	if !strings.Contains(errb.String(), " 75%") {
		t.Errorf("withTotal: %q", errb.String())
	}
	if isTerminal(&errb) {
		t.Error("a buffer is a terminal")
	}
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	if isTerminal(w) {
		t.Error("a pipe is a terminal")
	}
	// and a pseudo-terminal is one (its master side answers tcgetattr)
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer pty.Close()
	if !isTerminal(pty) {
		t.Error("a pseudo-terminal is not a terminal")
	}
}

// Bytes that are not UTF-8 in a value, a column name and a path: the answer
// is the same in every strategy, and the JSON stays valid, with the exact
// bytes in hex beside the replaced text.
func TestJSONNotUTF8(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d\xe9")
	os.MkdirAll(dir, 0o755)
	content := "Region,Countr\xff,Total Revenue,Total Profit\n" +
		"Europe,Cura\xe7ao,1.50,1\nEurope,Curacao,2,1\nAsia,Cura\xe7ao,4,1\n\"Europe\",\"Cura\xe7ao\",8,1\n"
	os.WriteFile(filepath.Join(dir, "x.csv"), []byte(content), 0o644)
	for _, st := range []string{"seq", "goroutines", "processes"} {
		code, out, errs := run(t, "", "query", "--strategy", st, "--where", "Countr\xff=Cura\xe7ao", "--json", dir)
		if code != 0 || !json.Valid([]byte(out)) {
			t.Fatalf("%s: exit %d, valid %v: %s%s", st, code, json.Valid([]byte(out)), out, errs)
		}
		var doc struct {
			Matched int64             `json:"matched"`
			Sums    map[string]string `json:"sums"`
			Filters []struct {
				Column    string `json:"column"`
				ColumnHex string `json:"column_hex"`
				Op        string `json:"op"`
				Value     string `json:"value"`
				ValueHex  string `json:"value_hex"`
			} `json:"filters"`
		}
		json.Unmarshal([]byte(out), &doc)
		if doc.Matched != 3 || doc.Sums["Total Revenue"] != "13.50" || len(doc.Filters) != 1 || doc.Filters[0].ValueHex != "43757261e7616f" ||
			doc.Filters[0].ColumnHex != "436f756e7472ff" || doc.Filters[0].Value != "Cura\ufffdao" || doc.Filters[0].Op != "=" {
			t.Errorf("%s: %+v", st, doc)
		}
	}
}

// The floor answers no query: its JSON has a line count, no matched or sums.
func TestFloorJSON(t *testing.T) {
	code, out, _ := run(t, "", "query", "--strategy", "floor", "--json", "testdata/sales")
	var doc map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("exit %d: %s", code, out)
	}
	if _, ok := doc["matched"]; ok || doc["sums"] != nil || doc["strategy"] != "floor" || doc["lines"] == nil {
		t.Errorf("floor JSON: %s", out)
	}
}

// --timeout bounds every strategy; the error says it was the timeout.
func TestTimeoutCLI(t *testing.T) {
	for _, st := range []string{"seq", "goroutines", "processes", "floor"} {
		code, out, errs := run(t, "", "query", "--strategy", st, "--timeout", "1ns", "testdata/sales")
		if code != exitFail || out != "" || !strings.Contains(errs, "timeout (1ns)") {
			t.Errorf("%s: exit %d, %q %q", st, code, out, errs)
		}
	}
}

// parlabCmd is this test binary run as parlab with args.
func parlabCmd(t *testing.T, args ...string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "PARLAB_TEST_MAIN=1")
	return cmd
}

// Rows out to a reader that closes early (| head) end quietly with exit 0,
// as grep's do, in the real binary, whose runtime would otherwise die of
// SIGPIPE.
func TestSelectClosedPipe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	if code, _, errs := run(t, "", "gen", "--rows", "30000", "--files", "1", "--out", dir); code != exitOK {
		t.Fatal(errs)
	}
	cmd := parlabCmd(t, "query", "--select", "*", dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "Region,Country,") {
		t.Fatalf("first line %q: %v", line, err)
	}
	out.Close()
	if err := cmd.Wait(); err != nil || errb.Len() > 0 {
		t.Fatalf("after its reader closed: %v, stderr %q; want exit 0 and nothing said", err, errb.String())
	}
}

// SIGINT or SIGTERM during gen removes its unfinished files.
func TestGenInterrupted(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		dir := filepath.Join(t.TempDir(), "set")
		cmd := parlabCmd(t, "gen", "--rows", "20000000", "--files", "4", "--out", dir)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			if m, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(m) > 0 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("gen wrote no temporary file")
			}
			time.Sleep(5 * time.Millisecond)
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		ents, _ := os.ReadDir(dir)
		if err == nil || len(ents) != 0 || !strings.Contains(errb.String(), "removed") {
			t.Errorf("%v: %v, %d files left, stderr %q", sig, err, len(ents), errb.String())
		}
	}
}

// A value with a CR in it, as a shell's $'…' passes it, matches the quoted
// field that holds those bytes, in every strategy (RFC 4180: a quoted field
// keeps its line break as written).
func TestQuotedCRLFValue(t *testing.T) {
	p := filepath.Join(t.TempDir(), "newlines_crlf.csv")
	os.WriteFile(p, []byte("a,b,c\r\n1,2,3\r\n\"Once upon \r\na time\",5,6\r\n7,8,9\r\n"), 0o644)
	for _, st := range []string{"seq", "goroutines", "processes"} {
		for v, want := range map[string]string{"Once upon \r\na time": "1", "Once upon \na time": "0"} {
			code, out, errs := run(t, "", "query", "--strategy", st, "--where", "a="+v, "--sum", "b,c", "--json", p)
			var doc struct {
				Matched json.Number       `json:"matched"`
				Sums    map[string]string `json:"sums"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Matched.String() != want {
				t.Errorf("%s %q: exit %d, %s%s", st, v, code, out, errs)
			}
			if want == "1" && (doc.Sums["b"] != "5" || doc.Sums["c"] != "6") {
				t.Errorf("%s: sums %v", st, doc.Sums)
			}
		}
	}
}

// Group keys that JSON must escape and CSV must quote (a quote, a
// backslash, a comma, a tab, '<', non-ASCII and invalid UTF-8) come out of
// --json as encoding/json reads them back and of --csv as encoding/csv
// does, in the table's order, with their counts and sums.
func TestGroupKeysEscaped(t *testing.T) {
	keys := []string{`say "hi"`, `back\slash`, "a,b", "tab\there", "<b>&", "Curaçao", "Cura\xe7ao", "plain",
		"esc\x1b[31mred", "line\nbreak", `"quoted" first`, "日本", "e\u0301te", "zero\u200bwidth"}
	var b strings.Builder
	b.WriteString("k,v\n")
	for i, k := range keys {
		fmt.Fprintf(&b, "\"%s\",%d.5\n", strings.ReplaceAll(k, `"`, `""`), i)
	}
	p := filepath.Join(t.TempDir(), "keys.csv")
	os.WriteFile(p, []byte(b.String()), 0o644)
	want := slices.Clone(keys)
	slices.Sort(want)
	wantSum := func(k string) string { return fmt.Sprintf("%d.5", slices.Index(keys, k)) }

	code, out, errs := run(t, "", "query", "--by", "k", "--sum", "v", "--json", p)
	var doc struct {
		Groups []map[string]any `json:"groups"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Groups) != len(keys) {
		t.Fatalf("--json: exit %d, %s%s", code, out, errs)
	}
	for i, g := range doc.Groups {
		k := want[i]
		if !utf8.ValidString(k) {
			k = strings.ToValidUTF8(k, "\uFFFD")
		}
		if g["k"] != k || g["count"] != 1.0 || g["v"] != wantSum(want[i]) {
			t.Errorf("--json group %d: %v, want k %q", i, g, k)
		}
	}
	if strings.Contains(out, `\u003c`) {
		t.Errorf("--json escaped '<': %s", out)
	}

	code, out, errs = run(t, "", "query", "--by", "k", "--sum", "v", "--csv", p)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(recs) != len(keys)+1 {
		t.Fatalf("--csv: exit %d, %v, %s%s", code, err, out, errs)
	}
	for i, r := range recs[1:] {
		if r[0] != want[i] || r[1] != "1" || r[2] != wantSum(want[i]) {
			t.Errorf("--csv row %d: %q, want key %q", i, r, want[i])
		}
	}

	// The text table: a key with a byte that is not printable UTF-8, or
	// that starts with '"', Go-quoted; no control byte but '\n' at a line's
	// end; the count's last digit in the same terminal column on every row
	// (a wide rune takes two, a combining mark none).
	shown := map[string]string{"tab\there": `"tab\there"`, "Cura\xe7ao": `"Cura\xe7ao"`,
		"esc\x1b[31mred": `"esc\x1b[31mred"`, "line\nbreak": `"line\nbreak"`,
		`"quoted" first`: `"\"quoted\" first"`, "zero\u200bwidth": `"zero\u200bwidth"`}
	cols := map[string]int{"日本": 4, "e\u0301te": 3}
	code, out, errs = run(t, "", "query", "--by", "k", "--sum", "v", p)
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) < len(keys)+2 {
		t.Fatalf("table: exit %d, %s%s", code, out, errs)
	}
	for _, c := range out {
		if c != '\n' && (c < 0x20 || c == 0x7f) {
			t.Fatalf("table: control character %q in\n%s", c, out)
		}
	}
	countEnd := len("  k") + strings.Index(lines[1][3:], "count") + len("count")
	for i, k := range want {
		line := lines[i+2]
		s, ok := shown[k]
		if !ok {
			s = k
		}
		w, ok := cols[k]
		if !ok {
			w = utf8.RuneCountInString(s)
		}
		f := strings.Fields(strings.TrimPrefix(line, "  "+s))
		if !strings.HasPrefix(line, "  "+s) || len(f) != 2 || f[0] != "1" || f[1] != wantSum(k) {
			t.Errorf("table row %d: %q, want key %q shown as %q", i, line, k, s)
			continue
		}
		if end := 2 + w + strings.Index(line[2+len(s):], "1") + 1; end != countEnd {
			t.Errorf("table row %d: %q: the count ends at column %d, the header's at %d", i, line, end, countEnd)
		}
	}
}

// parlab ftp serve as a user runs it: it prints where it listens, serves a
// real client, and on SIGTERM stops and exits 0. ftp passwd makes a line
// that serve's --users takes.
func TestFTPServeCLI(t *testing.T) {
	testrun.FullRunOnly(t, "the servers are processes")
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("from the CLI\n"), 0o644)
	code, line, errs := run(t, "pw\n", "ftp", "passwd", "carol")
	if code != 0 || !strings.HasPrefix(line, "carol:$2") {
		t.Fatalf("ftp passwd: %d %q %s", code, line, errs)
	}
	users := filepath.Join(t.TempDir(), "users")
	os.WriteFile(users, []byte(line), 0o600)
	for _, model := range []string{"goroutines", "processes"} {
		cmd := parlabCmd(t, "ftp", "serve", "--root", root, "--listen", "127.0.0.1:0", "--model", model,
			"--users", users, "--backlog", "16", "--login-delay", "10ms")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		first, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			cmd.Process.Kill()
			t.Fatalf("%s: no address line: %v", model, err)
		}
		m := regexp.MustCompile(`on (127\.0\.0\.1:\d+) \(model ` + model + `, backlog 16\)`).FindStringSubmatch(first)
		if m == nil {
			cmd.Process.Kill()
			t.Fatalf("%s: %q", model, first)
		}
		c, err := net.DialTimeout("tcp", m[1], 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(c)
		say := func(s string) string {
			if s != "" {
				fmt.Fprintf(c, "%s\r\n", s)
			}
			l, _ := r.ReadString('\n')
			return l
		}
		if g := say(""); !strings.HasPrefix(g, "220 ") {
			t.Errorf("%s greeting %q", model, g)
		}
		say("USER carol")
		if l := say("PASS pw"); !strings.HasPrefix(l, "230 ") {
			t.Errorf("%s login: %q", model, l)
		}
		if l := say("SIZE a.txt"); l != "213 13\r\n" {
			t.Errorf("%s SIZE: %q", model, l)
		}
		say("QUIT")
		c.Close()
		// the load generator against it: every session ok, JSON valid
		lcode, lout, lerrs := run(t, "", "ftp", "load", "--addr", m[1], "--users", "5", "--delay", "1ms",
			"--user", "carol", "--pass", "pw", "--script", "LIST*2,RETR a.txt", "--json", "-")
		var doc struct {
			Outcomes map[string]int `json:"outcomes"`
		}
		if lcode != 0 || json.Unmarshal([]byte(lout), &doc) != nil || doc.Outcomes["ok"] != 5 || !strings.Contains(lerrs, "processed time") {
			t.Errorf("%s: ftp load: exit %d, %s %s", model, lcode, lout, lerrs)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s: after SIGTERM: %v", model, err)
		}
	}
	for _, args := range [][]string{{"ftp"}, {"ftp", "serve"}, {"ftp", "serve", "--root", root}, {"ftp", "serve", "--root", root, "--anonymous", "--model", "threads"},
		{"ftp", "serve", "--root", root, "--anonymous", "--pasv-ports", "10-20"}, {"ftp", "frob"},
		{"ftp", "load", "--addr", "192.0.2.1:21"}, {"ftp", "load", "--script", "DELE x"}, {"ftp", "load", "--timeout", "connect=x"}} {
		if code, _, _ := run(t, "", args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// A group-by's table made in pieces by several goroutines (--csv, --json
// and the text table) is the table made in one piece, byte for byte; a
// write that fails part way stops --csv with the error, and nothing waits
// forever.
func TestTablePieces(t *testing.T) {
	defer func(p int) { render.TablePiece = p }(render.TablePiece)
	query := []string{"query", "--by", "Order ID", "--sum", "Total Revenue", "--min", "Unit Price", "--avg", "Units Sold"}
	for _, out := range []string{"--csv", "--json", "--verbose"} { // (--verbose: the text table)
		args := append(slices.Clone(query), out, "testdata/sales")
		render.TablePiece = 1 << 20
		code, whole, errs := run(t, "", args...)
		if code != exitOK || strings.Count(whole, "\n") < 40 && strings.Count(whole, "},{") < 40 {
			t.Fatalf("%s, one piece: exit %d, %s%s", out, code, whole, errs)
		}
		for _, p := range []int{1, 3, 7} {
			render.TablePiece = p
			if code, got, errs := run(t, "", args...); code != exitOK || got != whole {
				t.Errorf("%s, pieces of %d rows: exit %d, %s\n%s\nwant\n%s", out, p, code, errs, got, whole)
			}
		}
	}
	render.TablePiece = 2
	var errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &failAfter{n: 300}, stderr: &errb, fixTimes: fixedTimes,
		tty: func(any) bool { return false }, ncpu: 2}
	if code := a.main(append(query, "--csv", "testdata/sales")); code != exitFail || !strings.Contains(errb.String(), "disk full") {
		t.Errorf("a failing write: exit %d, %q", code, errb.String())
	}
}

// failAfter takes n bytes, then fails every write.
type failAfter struct{ n int }

func (w *failAfter) Write(b []byte) (int, error) {
	if len(b) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(b)
	return len(b), nil
}

// cache prints a set's page-cache state and, with --warm, reads it in;
// a path it cannot read fails the run by name.
func TestCacheCLI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	if code, _, errs := run(t, "", "gen", "--rows", "2000", "--files", "2", "--out", dir); code != 0 {
		t.Fatalf("gen: %s", errs)
	}
	code, out, errs := run(t, "", "cache", dir)
	if code != 0 || !strings.HasPrefix(out, dir+": 2 files, ") || !strings.Contains(out, "% in the page cache") {
		t.Fatalf("cache: %d %q %q", code, out, errs)
	}
	code, out, errs = run(t, "", "cache", "--warm", dir)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[1], dir+": warmed (0 of 2 files evicted and read back): 2 files, ") ||
		!strings.Contains(lines[1], "100.0% in the page cache") {
		t.Fatalf("cache --warm: %d %q %q", code, out, errs)
	}
	// Files this small hold no whole 2 MiB block: no folio to tell.
	if !strings.Contains(lines[1], "no whole 2 MiB block") && !strings.Contains(lines[1], "the kernel does not say") {
		t.Errorf("cache --warm on small files: %q", lines[1])
	}
	missing := filepath.Join(dir, "missing")
	if code, _, errs = run(t, "", "cache", missing); code != exitFail || !strings.Contains(errs, missing) {
		t.Errorf("cache of a missing path: %d %q", code, errs)
	}
	if code, _, _ = run(t, "", "cache", "--bogus", dir); code != exitUsage {
		t.Errorf("cache --bogus: %d, want %d", code, exitUsage)
	}
}

// A file as people have them: from standard input, gzip'd, tab-separated,
// without a header; and the flags that say so, with their usage errors.
func TestInputsCLI(t *testing.T) {
	csv := "city,when,amount\nOslo,Jan 1 2005,1.50\nRome,2004-12-31,2\nOslo,\"March 3, 2005\",3\n"
	want := "matched,amount\n2,4.50\n"
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{csv, []string{"query", "--where", "when>=Jan 1 2005", "--sum", "amount", "--csv", "-"}},
		{"city\twhen\tamount\nOslo\tJan 1 2005\t1.50\nRome\t2004-12-31\t2\nOslo\tMarch 3, 2005\t3\n", []string{"query", "--delimiter", "tab", "--where", "when>=Jan 1 2005", "--sum", "amount", "--csv", "-"}},
		// no --delimiter: the first line's (a semicolon file with a quoted
		// comma in its header, from Excel in much of Europe, its days
		// D.M.YYYY, its numbers with spaces around them)
		{"\"city, name\";when;amount\r\nOslo;1.1.2005; 1.50\r\nRome;31.12.2004;2 \r\nOslo;03.03.2005;\t3\r\n", []string{"query", "--where", "when>=Jan 1 2005", "--sum", "amount", "--csv", "--strategy", "processes", "-"}},
		{"city|when|amount\nOslo|Jan 1 2005|1.50\nRome|2004-12-31|2\nOslo|March 3, 2005|3\n", []string{"query", "--where", "when>=Jan 1 2005", "--sum", "amount", "--csv", "-"}},
		// numbers with a decimal comma, as Excel writes them in much of
		// Europe (semicolons, D.M.YYYY), or quoted in a comma-separated file
		{"city;when;amount\r\nOslo;1.1.2005;1,50\r\nRome;31.12.2004;2\r\nOslo;03.03.2005;3\r\n", []string{"query", "--decimal-comma", "--where", "when>=Jan 1 2005", "--sum", "amount", "--csv", "--strategy", "processes", "-"}},
		{"city;when;amount\nOslo;1.1.2005;1,50\nRome;31.12.2004;2\nOslo;03.03.2005;3\n", []string{"query", "--decimal-comma", "--where", "when>=Jan 1 2005", "--sum", "amount", "--csv", "--strategy", "seq", "-"}},
		{"city,when,amount\nOslo,1.1.2005,\"1,50\"\nRome,31.12.2004,2\nOslo,03.03.2005,3\n", []string{"query", "--decimal-comma", "--where", "when>=Jan 1 2005", "--sum", "amount", "--csv", "-"}},
		// lines that end in a CR alone (Excel for Mac's "CSV (Macintosh)")
		{strings.ReplaceAll(csv, "\n", "\r"), []string{"query", "--where", "when>=Jan 1 2005", "--sum", "amount", "--csv", "--strategy", "processes", "-"}},
		{csv[strings.IndexByte(csv, '\n')+1:], []string{"query", "--no-header", "--where", "2>=2005-01-01", "--sum", "3", "--csv", "--strategy", "processes", "-"}},
	} {
		code, out, errs := run(t, c.stdin, c.args...)
		if got := strings.Replace(out, "matched,3\n", "matched,amount\n", 1); code != 0 || got != want {
			t.Errorf("%q: exit %d, %q (%s), want %q", c.args, code, out, errs, want)
		}
	}
	// Standard input is scanned while it is read where the strategy and
	// split can (spawn.Streams), else staged in memory first.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"query", "--json", "-"}, `"strategy":"goroutines","split":"stream","workers":2,"io":"read"`},
		{[]string{"query", "--json", "--strategy", "seq", "-"}, `"strategy":"seq","split":"","workers":1,"io":"read"`},
		{[]string{"query", "--json", "--split", "file", "-"}, `"strategy":"goroutines","split":"file","workers":2,"io":"mmap"`},
		{[]string{"query", "--json", "--strategy", "processes", "-"}, `"strategy":"processes","split":"rows","workers":2,"io":"mmap"`},
		{[]string{"query", "--strategy", "seq", "-"}, "1 file, 3 rows, 79 B (seq, read)\n  Matching rows  3\n  Time           0.0030 s (header 0.0010 s, scan"},
	} {
		code, out, errs := run(t, csv, c.args...)
		if code != 0 || !strings.Contains(out, c.want) || !strings.Contains(out, "3") {
			t.Errorf("%q: exit %d, %s%s, want %s", c.args, code, out, errs, c.want)
		}
	}
	for _, args := range [][]string{{"query", "--delimiter", "x", "-"}, {"query", "-", "-"}} {
		if code, _, errs := run(t, csv, args...); code != exitUsage || errs == "" {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
	// Excel's "Unicode Text" (UTF-16 with its byte order mark, tabs):
	// decoded, as a file (its delimiter found) or a stream; a file said
	// to be comma-separated is scanned in place, and refused, saying so,
	// never counted as bytes
	u16 := "\xff\xfec\x00i\x00t\x00y\x00\t\x00n\x00\n\x00O\x00\t\x001\x00.\x005\x00\n\x00R\x00\t\x003\x00\n\x00"
	u16be := "\xfe\xff\x00c\x00i\x00t\x00y\x00,\x00n\x00\n\x00O\x00,\x004\x00.\x005\x00\n"
	p16 := filepath.Join(t.TempDir(), "excel.txt")
	os.WriteFile(p16, []byte(u16), 0o644)
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"query", "--sum", "n", "--csv", p16}},
		{"", []string{"query", "--sum", "n", "--csv", "--strategy", "processes", p16}},
		{u16, []string{"query", "--sum", "n", "--csv", "-"}},
		{u16be, []string{"query", "--sum", "n", "--csv", "--strategy", "seq", "-"}},
	} {
		if code, out, errs := run(t, c.stdin, c.args...); code != 0 || out != "matched,n\n2,4.5\n" && out != "matched,n\n1,4.5\n" {
			t.Errorf("%q on UTF-16: exit %d, %q%s", c.args, code, out, errs)
		}
	}
	// with --delimiter too: the same bytes give the same answer as a file
	// and through a pipe (a file said to be tab- or comma-separated was
	// scanned in place: a CR-alone file with --delimiter , summed 0)
	mac := filepath.Join(t.TempDir(), "mac.csv")
	os.WriteFile(mac, []byte("k,n,t\ra,1,x\rb,2,y\r"), 0o644)
	for _, c := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"query", "--delimiter", "tab", "--sum", "n", "--csv", p16}, "matched,n\n2,4.5\n"},
		{u16, []string{"query", "--delimiter", "tab", "--sum", "n", "--csv", "-"}, "matched,n\n2,4.5\n"},
		{"", []string{"query", "--delimiter", ",", "--sum", "n", "--csv", "--strategy", "seq", mac}, "matched,n\n2,3\n"},
		{"", []string{"query", "--delimiter", ",", "--sum", "n", "--csv", "--strategy", "processes", mac}, "matched,n\n2,3\n"},
		{"k,n,t\ra,1,x\rb,2,y\r", []string{"query", "--delimiter", ",", "--sum", "n", "--csv", "-"}, "matched,n\n2,3\n"},
	} {
		if code, out, errs := run(t, c.stdin, c.args...); code != 0 || out != c.want {
			t.Errorf("%q: exit %d, %q%s, want %q", c.args, code, out, errs, c.want)
		}
	}
	// a TSV's bare quotes are bytes of their fields (TSV knows no quotes)
	inches := filepath.Join(t.TempDir(), "tv.tsv")
	os.WriteFile(inches, []byte("item\tprice\n27\" monitor\t199.99\n27\" monitor\t0.01\nsay \"hi\"\t5\n"), 0o644)
	if code, out, errs := run(t, "", "query", "--by", "item", "--sum", "price", "--csv", "--strategy", "processes", inches); code != 0 || out != "item,count,price\n\"27\"\" monitor\",2,200.00\n\"say \"\"hi\"\"\",1,5\n" {
		t.Errorf("a TSV with bare quotes: exit %d, %q%s", code, out, errs)
	}
	// a decimal comma without --decimal-comma: an error, and a hint
	eu := filepath.Join(t.TempDir(), "eu.csv")
	os.WriteFile(eu, []byte("city;amount\nOslo;1,50\n"), 0o644)
	if code, out, errs := run(t, "", "query", "--sum", "amount", eu); code != exitFail || !strings.Contains(errs, `not a decimal number: "1,50"`) || !strings.Contains(errs, "--decimal-comma") {
		t.Errorf("a decimal comma without --decimal-comma: exit %d, %s%s", code, out, errs)
	}
	if code, out, errs := run(t, "", "query", "--decimal-comma", "--sum", "amount", "--csv", eu); code != 0 || out != "matched,amount\n1,1.50\n" {
		t.Errorf("--decimal-comma on a file: exit %d, %q%s", code, out, errs)
	}
	for _, c := range []struct{ where, want string }{{"amount>1,4", "1"}, {"amount>1,6", "0"}} {
		if code, out, errs := run(t, "", "query", "--decimal-comma", "--where", c.where, "--csv", "--strategy", "processes", eu); code != 0 || out != "matched\n"+c.want+"\n" {
			t.Errorf("--decimal-comma --where %s: exit %d, %q%s", c.where, code, out, errs)
		}
	}
}

// Numbers of up to 38 digits, anywhere around the point, from the command
// line to the text, CSV and JSON writers, in worker processes too; 39
// after the point is an error that says so.
func TestWideNumbersCLI(t *testing.T) {
	csv := "team,amount\na,12345678901234567890123.5\nb,-1e30\na,0.000000000000000001\n"
	tiny := "amount\n0.00000000000000000000000000000000000001\n99999999999999999999999999999999999999\n-1e-38\n7.5e-37\n"
	for _, c := range []struct {
		in   string
		args []string
		want string
	}{
		{csv, []string{"query", "--by", "team", "--sum", "amount", "--max", "amount", "--csv", "--strategy", "processes", "-"},
			"team,count,amount,max(amount)\na,2,12345678901234567890123.500000000000000001,12345678901234567890123.5\nb,1,-1000000000000000000000000000000,-1000000000000000000000000000000\n"},
		{csv, []string{"query", "--where", "amount<-99999999999999999999999999999", "--min", "amount", "--json", "-"},
			`"matched":1,"min":{"amount":"-1000000000000000000000000000000"}`},
		{csv, []string{"query", "--sum", "amount", "-"}, "amount         -999,999,987,654,321,098,765,432,109,876.499999999999999999"},
		{tiny, []string{"query", "--sum", "amount", "--min", "amount", "--csv", "--strategy", "processes", "--workers", "2", "-"},
			"matched,amount,min(amount)\n4,99999999999999999999999999999999999999.00000000000000000000000000000000000075,-0.00000000000000000000000000000000000001\n"},
		{tiny, []string{"query", "--where", "amount<1e-37", "--csv", "-"}, "matched\n2\n"},
	} {
		code, out, errs := run(t, c.in, c.args...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%q: exit %d, %s\n%s\nwant %s", c.args, code, errs, out, c.want)
		}
	}
	code, _, errs := run(t, "amount\n0.000000000000000000000000000000000000001\n", "query", "--sum", "amount", "-")
	if want := `standard input:2:1: column "amount": number out of range (a value may have at most 38 significant digits, and at most 38 digits after the point)`; code != 1 || !strings.Contains(errs, want) {
		t.Errorf("39 digits after the point: exit %d, %s; want 1, %s", code, errs, want)
	}
}

// The menu offers the columns of the file it is given, each with an
// example value from the first row.
func TestMenuOtherFile(t *testing.T) {
	code, out, errs := run(t, "1\n2\nRome\n-\nn\n", "menu", "../../testdata/trips.csv")
	if code != 0 || !strings.Contains(out, "Filter column: 1) date 2) city 3) mode 4) km 5) fare") ||
		!strings.Contains(out, "Value [Oslo]") || !strings.Contains(out, "Matching rows  4") {
		t.Errorf("exit %d, %s\n%s", code, errs, out)
	}
	// a file as a query reads it: gzip'd, semicolons, found
	raw, err := os.ReadFile("../../testdata/trips.csv")
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(bytes.ReplaceAll(raw, []byte(","), []byte(";")))
	w.Close()
	p := filepath.Join(t.TempDir(), "trips.csv.gz")
	os.WriteFile(p, z.Bytes(), 0o644)
	code, out2, errs := run(t, "1\n2\nRome\n-\nn\n", "menu", p)
	if code != 0 || !strings.Contains(out2, "Filter column: 1) date 2) city 3) mode 4) km 5) fare") ||
		!strings.Contains(out2, "Value [Oslo]") || !strings.Contains(out2, "Matching rows  4") {
		t.Errorf("gzip'd semicolons: exit %d, %s\n%s", code, errs, out2)
	}
}

// The help text lists every strategy, split, I/O mode and FTP model from
// their registries, so a new one cannot be left out of it.
func TestHelpFromRegistries(t *testing.T) {
	_, qhelp, _ := run(t, "", "query", "--help")
	for _, st := range spawn.Strategies() {
		if !strings.Contains(qhelp, st.Name()+" ("+st.Help()+")") {
			t.Errorf("query --help lacks the strategy %s", st.Name())
		}
	}
	for _, sp := range spawn.Splits() {
		if !strings.Contains(qhelp, sp.String()+" (") {
			t.Errorf("query --help lacks the split %s", sp)
		}
	}
	for _, m := range []input.Mode{input.Mmap, input.ReadAt, input.Read} {
		if !strings.Contains(qhelp, m.String()+" (") {
			t.Errorf("query --help lacks the I/O mode %s", m)
		}
	}
	_, fhelp, _ := run(t, "", "ftp", "serve", "--help")
	for _, m := range []ftp.Model{ftp.Single, ftp.Goroutines, ftp.Batch, ftp.Pool, ftp.Processes} {
		if !strings.Contains(fhelp, m.String()+" (") {
			t.Errorf("ftp serve --help lacks the model %s", m)
		}
	}
	_, lhelp, _ := run(t, "", "ftp", "load", "--help")
	for _, v := range []encoding.TextMarshaler{load.Fixed, load.Poisson, load.ClientGoroutines, load.ClientProcesses} {
		if name, _ := v.MarshalText(); !strings.Contains(lhelp, string(name)+" (") {
			t.Errorf("ftp load --help lacks %s", name)
		}
	}
	if code, _, errOut := run(t, "", "ftp", "load", "--clients", "threads"); code != 2 || !strings.Contains(errOut, "--clients: unknown clients") {
		t.Errorf("--clients threads: exit %d, %q", code, errOut)
	}
	// The overview (parlab help): every query flag in its query lines, and
	// every strategy and split in their lists.
	_, overview, _ := run(t, "", "help")
	usage := overview[strings.Index(overview, "parlab query"):strings.Index(overview, "parlab bench")]
	for _, l := range strings.Split(qhelp, "\n") {
		if name, ok := strings.CutPrefix(l, "  --"); ok {
			name, _, _ = strings.Cut(name, " ")
			if !strings.Contains(usage, "--"+name) {
				t.Errorf("parlab help's query lines lack --%s", name)
			}
		}
	}
	for _, st := range spawn.Strategies() {
		if !strings.Contains(usage, "|"+st.Name()+"|") && !strings.Contains(usage, " "+st.Name()+"|") && !strings.Contains(usage, "|"+st.Name()+"]") {
			t.Errorf("parlab help lacks the strategy %s", st.Name())
		}
	}
	for _, sp := range spawn.Splits() {
		if !strings.Contains(usage, sp.String()) {
			t.Errorf("parlab help lacks the split %s", sp)
		}
	}
}

// privateCopy copies the files of directory src into a fresh directory
// and returns it: a copy that no other test reads back into the page
// cache while --cold expects its files read from disk (make test runs the
// race run's tests beside this one, over testdata). On tmpfs, whose pages
// cannot be evicted, it returns src.
func privateCopy(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dst, &st); err != nil || st.Type == 0x01021994 { // TMPFS_MAGIC
		return src
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// A group-by that no row passes, or over a header alone, prints its
// table's header and no row in text too (it panicked in render.Text, and
// exited 2, the status of bad usage), as CSV and JSON do, in every
// strategy.
func TestEmptyGroupBy(t *testing.T) {
	header := filepath.Join(t.TempDir(), "header.csv")
	os.WriteFile(header, []byte("date,city,mode,km,fare\n"), 0o644)
	for _, st := range []string{"seq", "goroutines", "processes"} {
		for _, args := range [][]string{
			{"query", "--strategy", st, "--by", "city", "--where", "km>1000", "../../testdata/trips.csv"},
			{"query", "--strategy", st, "--by", "city", "--sum", "km", header},
		} {
			code, out, errs := run(t, "", args...)
			if code != exitOK || errs != "" || !regexp.MustCompile(`\n  city  count(  km)?\n  Matching rows  0\n  Groups         0\n`).MatchString(out) {
				t.Errorf("%q: exit %d, %q, %s", args, code, out, errs)
			}
			code, out, _ = run(t, "", append(args, "--csv")...)
			if code != exitOK || !strings.HasPrefix(out, "city,count") || strings.Count(out, "\n") != 1 {
				t.Errorf("%q --csv: exit %d, %q", args, code, out)
			}
		}
	}
}

// A panic is a bug in parlab: exit 3, with its stack, never the 2 that
// says the command line was wrong.
func TestPanicIsABug(t *testing.T) {
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, tty: func(any) bool { panic("boom") }, ncpu: 2}
	if code := a.main([]string{"menu", "../../testdata/trips.csv"}); code != exitBug || !strings.Contains(errb.String(), "internal error") {
		t.Errorf("a panic: exit %d, %s", code, errb.String())
	}
}

// docs/query.md's date example compares dates unquoted; quoted, the
// value is text, compared by its bytes (the doc quoted it).
func TestDateValueUnquoted(t *testing.T) {
	for _, c := range []struct{ where, want string }{
		{"date<Feb 1, 2024", "matched\n4\n"},
		{`date<"Feb 1, 2024"`, "matched\n12\n"}, // every "2024-…" < "Feb…" by bytes
	} {
		if code, out, errs := run(t, "", "query", "--where", c.where, "--csv", "../../testdata/trips.csv"); code != 0 || out != c.want {
			t.Errorf("%s: exit %d, %q%s, want %q", c.where, code, out, errs, c.want)
		}
	}
}

// --max-memory bounds what is staged (a size as DuckDB's memory_limit
// reads one), --max-ratio a compressed input's growth; bad values are
// usage errors.
func TestMemoryFlags(t *testing.T) {
	csv := "a,b\n" + strings.Repeat("1,2\n", 1000)
	if code, _, errs := run(t, csv, "query", "--strategy", "processes", "--max-memory", "1KiB", "-"); code != exitFail || !strings.Contains(errs, "standard input: the inputs held in memory reach --max-memory (0 MiB)") {
		t.Errorf("over --max-memory: exit %d, %s", code, errs)
	}
	if code, out, errs := run(t, csv, "query", "--strategy", "processes", "--max-memory", "1MiB", "--csv", "-"); code != exitOK || out != "matched\n1000\n" {
		t.Errorf("under --max-memory: exit %d, %q%s", code, out, errs)
	}
	for _, args := range [][]string{{"--max-memory", "lots"}, {"--max-memory", "-1G"}, {"--max-ratio", "0"}, {"--max-ratio", "-2"}} {
		if code, _, errs := run(t, csv, append([]string{"query"}, append(args, "-")...)...); code != exitUsage {
			t.Errorf("%q: exit %d, %s", args, code, errs)
		}
	}
	var s byteSize
	for in, want := range map[string]int64{"8GiB": 8 << 30, "512MiB": 512 << 20, "2GB": 2e9, "1.5G": 3 << 29, "4096": 4096, "64 KiB": 64 << 10} {
		if err := s.Set(in); err != nil || int64(s) != want {
			t.Errorf("%q: %d, %v, want %d", in, s, err, want)
		}
	}
}

// FuzzQueryOutputs: any bytes on standard input, any filter, a group-by
// or none, in every output: an answer or an error (exit 1, or 2 for a bad
// --where), never a panic (exit 3); an empty group-by printed the
// table's header in text by crashing.
func FuzzQueryOutputs(f *testing.F) {
	f.Add([]byte("a,b\n1,2\n"), "a>1000", true)
	f.Add([]byte("a,b\n"), "b=", true)
	f.Add([]byte(""), "a=x", false)
	f.Add([]byte("a\n\"x\n"), "a!=1", true)
	f.Fuzz(func(t *testing.T, data []byte, where string, by bool) {
		for _, out := range []string{"", "--csv", "--json"} {
			args := []string{"query", "--strategy", "seq", "--no-header", "--where", "1" + where, "--max", "1"}
			if by {
				args = append(args, "--by", "1")
			}
			if out != "" {
				args = append(args, out)
			}
			code, _, errs := run(t, string(data), append(args, "-")...)
			if code == exitBug || code == exitOK && errs != "" || code != exitOK && errs == "" {
				t.Fatalf("%q on %q: exit %d, %s", args, data, code, errs)
			}
		}
	})
}

// ftp serve survives its plumbing: a log reader that goes away (--log - |
// head -c 200 killed it with SIGPIPE at the next session's end), and
// SIGHUP, which rereads --users and keeps serving (it ended the server and
// every session unanswered).
func TestFTPServeSignals(t *testing.T) {
	testrun.FullRunOnly(t, "the server is a process")
	root := t.TempDir()
	users := filepath.Join(t.TempDir(), "users")
	line := func(name, pw string) string {
		_, l, _ := run(t, pw+"\n", "ftp", "passwd", name)
		return l
	}
	carol, dave := line("carol", "pw"), line("dave", "new")
	for _, model := range []string{"goroutines", "processes"} {
		os.WriteFile(users, []byte(carol), 0o600)
		cmd := parlabCmd(t, "ftp", "serve", "--root", root, "--listen", "127.0.0.1:0", "--model", model,
			"--users", users, "--login-delay", "1ms", "--log", "-")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var errb testrun.SyncBuffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		first, _ := bufio.NewReader(out).ReadString('\n')
		m := regexp.MustCompile(`on (127\.0\.0\.1:\d+)`).FindStringSubmatch(first)
		if m == nil {
			cmd.Process.Kill()
			t.Fatalf("%s: %q", model, first)
		}
		out.Close() // the log's reader is gone
		session := func(user, pw string) string {
			c, err := net.DialTimeout("tcp", m[1], 5*time.Second)
			if err != nil {
				return err.Error()
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			r := bufio.NewReader(c)
			r.ReadString('\n')
			fmt.Fprintf(c, "USER %s\r\n", user)
			r.ReadString('\n')
			fmt.Fprintf(c, "PASS %s\r\n", pw)
			l, _ := r.ReadString('\n')
			fmt.Fprintf(c, "QUIT\r\n")
			r.ReadString('\n')
			return l
		}
		for range 3 { // each one's log line meets the closed pipe
			session("carol", "pw")
		}
		time.Sleep(100 * time.Millisecond)
		if l := session("carol", "pw"); !strings.HasPrefix(l, "230 ") {
			t.Errorf("%s: after the log's reader left: %q", model, l)
		}
		os.WriteFile(users, []byte(dave), 0o600)
		cmd.Process.Signal(syscall.SIGHUP)
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(errb.String(), "hangup: 1 users read again") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if l := session("dave", "new"); !strings.HasPrefix(l, "230 ") {
			t.Errorf("%s: after SIGHUP, the new user: %q (%s)", model, l, errb.String())
		}
		if l := session("carol", "pw"); !strings.HasPrefix(l, "530 ") {
			t.Errorf("%s: after SIGHUP, the old user: %q", model, l)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s: exit: %v (%s)", model, err, errb.String())
		}
	}
}

// The dialect flags as a user gives them: comment and title lines, R's NA,
// a short last row; a number column's NA without --null names the flag;
// sort keys take any case (x:DESC was refused); bad values are usage
// errors.
func TestDialectFlags(t *testing.T) {
	f := filepath.Join(t.TempDir(), "r.tsv")
	os.WriteFile(f, []byte("# from R\nmeasurements\nsite\tn\nA\t2\nB\tNA\n# dropped\nC\n"), 0o644)
	base := []string{"query", "--skip", "2", "--comment", "#", "--by", "site", "--sum", "n", "--csv"}
	for _, st := range []string{"seq", "goroutines", "processes"} {
		args := append(append([]string{}, base...), "--strategy", st, "--null", "NA", "--ragged", "--sort", "site:DESC", f)
		if code, out, errs := run(t, "", args...); code != 0 || out != "site,count,n\nC,1,\nB,1,\nA,1,2\n" {
			t.Errorf("%s: exit %d, %q %s", st, code, out, errs)
		}
	}
	if code, _, errs := run(t, "", append(base, "--ragged", f)...); code != exitFail || !strings.Contains(errs, `--null NA reads it`) {
		t.Errorf("NA without --null: exit %d, %s", code, errs)
	}
	quoted := filepath.Join(t.TempDir(), "quoted.csv") // (every field quoted, as Python's QUOTE_ALL writes)
	os.WriteFile(quoted, []byte("\"site\",\"n\"\n\"A\",\"2\"\n\"B\",\"NA\"\n"), 0o644)
	if code, _, errs := run(t, "", "query", "--null", "NA", "--sum", "n", quoted); code != exitFail || !strings.Contains(errs, `where it is not quoted (a quoted "NA" is text`) {
		t.Errorf("a quoted NA with --null NA: exit %d, %s", code, errs)
	}
	short := filepath.Join(t.TempDir(), "short.csv")
	os.WriteFile(short, []byte("a,b\n1,2\n3\n"), 0o644)
	if code, _, errs := run(t, "", "query", "--sum", "b", short); code != exitFail || !strings.Contains(errs, "--ragged reads") {
		t.Errorf("a short row without --ragged: exit %d, %s", code, errs)
	}
	for _, bad := range [][]string{{"--comment", "##"}, {"--skip", "-1"}, {"--comment", `"`}} {
		if code, _, _ := run(t, "", append(append([]string{"query"}, bad...), f)...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", bad, code, exitUsage)
		}
	}
}

// An R file's first header cell is empty (its row names' column): it is
// named column0, as DuckDB names it, so a query can use it.
func TestEmptyHeaderCellNamed(t *testing.T) {
	f := filepath.Join(t.TempDir(), "r.csv")
	os.WriteFile(f, []byte("\"\",\"x\"\n\"1\",5\n\"2\",6\n\"1\",7\n"), 0o644)
	for _, st := range []string{"seq", "processes"} {
		if code, out, errs := run(t, "", "query", "--strategy", st, "--by", "column0", "--sum", "x", "--csv", f); code != 0 || out != "column0,count,x\n1,2,12\n2,1,6\n" {
			t.Errorf("%s: exit %d, %q %s", st, code, out, errs)
		}
	}
}

// Dates people write: 12-hour times with AM/PM after M/D/YYYY, and
// Mon-D-YYYY, compared as instants (they were refused).
func TestMoreDateForms(t *testing.T) {
	f := filepath.Join(t.TempDir(), "log.csv")
	os.WriteFile(f, []byte("when,n\n4/23/2019 7:11:11 AM,1\n4/23/2019 12:30 PM,2\n4/23/2019 11:59 PM,4\n4/24/2019 12:00 AM,8\nApr-25-2019,16\n"), 0o644)
	for _, c := range []struct{ where, want string }{
		{"when>=4/23/2019 12:00 PM", "matched,n\n4,30\n"},
		{"when<4/23/2019 12:00 pm", "matched,n\n1,1\n"},
		{"when>Apr-24-2019", "matched,n\n1,16\n"},
	} {
		if code, out, errs := run(t, "", "query", "--where", c.where, "--sum", "n", "--csv", f); code != 0 || out != c.want {
			t.Errorf("%s: exit %d, %q %s, want %q", c.where, code, out, errs, c.want)
		}
	}
	if code, out, _ := run(t, "", "query", "--max", "when", "--csv", f); code != 0 || out != "matched,max(when)\n5,Apr-25-2019\n" {
		t.Errorf("max(when): %d %q", code, out)
	}
}

// ISO date-times with a zone's offset (or Z) are compared as the instants
// they name, across a day's end too (they were refused).
func TestDateTimesWithZones(t *testing.T) {
	f := filepath.Join(t.TempDir(), "events.csv")
	os.WriteFile(f, []byte("at,n\n2024-12-31T23:30:00-01:00,1\n2025-01-01T00:15:00Z,2\n2025-01-01T01:00:00+02:00,4\n"), 0o644)
	for _, c := range []struct{ where, want string }{
		{"at>=2025-01-01T00:00:00Z", "matched,n\n2,3\n"},     // 23:30-01:00 is 00:30Z, and 00:15Z; 01:00+02:00 is 23:00Z the day before
		{"at<2025-01-01T00:20:00+00:00", "matched,n\n2,6\n"}, // 00:15Z and 23:00Z the day before
	} {
		if code, out, errs := run(t, "", "query", "--where", c.where, "--sum", "n", "--csv", f); code != 0 || out != c.want {
			t.Errorf("%s: exit %d, %q %s, want %q", c.where, code, out, errs, c.want)
		}
	}
	if code, out, _ := run(t, "", "query", "--max", "at", "--csv", f); code != 0 || out != "matched,max(at)\n3,2024-12-31T23:30:00-01:00\n" {
		t.Errorf("max(at): %d %q", code, out)
	}
}

// Column kinds from the command line: the hex codes, --types,
// --date-format and the usage errors, the same from a file and from
// standard input in every strategy.
func TestKindsCLI(t *testing.T) {
	codes := "code,n\n00E009,1\n0000E0,2\n000E40,3\n00C1,4\n0041,5\n"
	dates := "day,n\n31/01/2015,1\n01/02/2015,2\n2015-02-03,4\n"
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "codes.csv"), []byte(codes), 0o644)
	os.WriteFile(filepath.Join(dir, "dates.csv"), []byte(dates), 0o644)
	for _, c := range []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{codes, []string{"--where", "code=0000E0", "--sum", "n", "--min", "code"}, exitOK, "matched,n,min(code)\n1,2,0000E0\n"},
		{codes, []string{"--where", "code<1", "--sum", "n"}, exitFail, `quote the value to compare bytes ('code<"1"')`},
		{codes, []string{"--where", `code<"1"`, "--sum", "n"}, exitOK, "matched,n\n5,15\n"},
		{codes, []string{"--types", "code=number", "--max", "code"}, exitFail, "not a number, in a number column (--types)"},
		{codes, []string{"--types", "code=hex", "--max", "code"}, exitUsage, "unknown kind"},
		{codes, []string{"--types", "n=text", "--sum", "n"}, exitFail, `"n" is a text column, but the query sums it`},
		{dates, []string{"--date-format", "%d/%m/%Y", "--where", "day>=01/02/2015", "--sum", "n", "--max", "day"}, exitOK, "matched,n,max(day)\n2,6,2015-02-03\n"},
		{dates, []string{"--where", "day>=2015-02-01", "--sum", "n"}, exitFail, "--date-format reads dates in another form"},
		{dates, []string{"--date-format", "%d/%q/%Y", "--sum", "n"}, exitUsage, "unknown directive %q"},
	} {
		name := map[bool]string{true: "codes.csv", false: "dates.csv"}[c.stdin == codes]
		for _, st := range []string{"seq", "goroutines", "processes"} {
			for _, in := range []string{filepath.Join(dir, name), "-"} {
				args := append(append([]string{"query", "--strategy", st, "--csv"}, c.args...), in)
				code, out, errs := run(t, c.stdin, args...)
				if code != c.code || c.code == exitOK && out != c.want || c.code != exitOK && !strings.Contains(errs, c.want) {
					t.Errorf("%q: exit %d, %q %s; want %d, %q", args, code, out, errs, c.code, c.want)
				}
			}
		}
	}
}

// --skip-bad-rows and --rejects from the command line: the answer without
// the bad rows, their count in the text and the JSON, and the reject file's
// records, the same in every strategy and from standard input.
func TestSkipBadRowsCLI(t *testing.T) {
	in := "k,n,d\na,1,2015-01-01\nb,NA,2015-01-02\nc,\"x\n3\",2015-01-03\nd\ne,5,\"bad\"x\nf,7,2015-13-01\ng,9,2015-01-09\n"
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.csv")
	os.WriteFile(p, []byte(in), 0o644)
	want := "file,line,column,field,reason,row\n" +
		"X,3,3,n,not a decimal number,\"b,NA,2015-01-02\"\n" +
		"X,4,4,n,not a decimal number,\"c,\"\"x\n3\"\",2015-01-03\"\n" +
		"X,6,2,n,row is too short to hold the column (it is field 2; the row has 1),d\n"
	for _, st := range []string{"seq", "goroutines", "processes"} {
		for _, path := range []string{p, "-"} {
			rej := filepath.Join(t.TempDir(), "rejects.csv")
			code, out, errs := run(t, in, "query", "--strategy", st, "--sum", "n", "--max", "d", "--rejects", rej, path)
			got, _ := os.ReadFile(rej)
			name := map[bool]string{true: p, false: "standard input"}[path == p]
			if code != exitOK || !strings.Contains(out, "Bad rows       5 (left out") || !strings.Contains(out, "n              10") ||
				!strings.HasPrefix(strings.ReplaceAll(string(got), name, "X"), want) || strings.Count(string(got), "\n") != 7 {
				t.Errorf("%s %s: exit %d\n%s%s\nrejects:\n%s", st, path, code, out, errs, got)
			}
		}
		if code, out, _ := run(t, in, "query", "--strategy", st, "--sum", "n", "--skip-bad-rows", "--json", p); code != exitOK || !strings.Contains(out, `"bad_rows":4`) {
			t.Errorf("%s --json: exit %d, %s", st, code, out)
		}
		if code, _, errs := run(t, in, "query", "--strategy", st, "--sum", "n", p); code != exitFail || !strings.Contains(errs, `bad.csv:3:3: column "n": not a decimal number: "NA"`) {
			t.Errorf("%s without the flag: exit %d, %s", st, code, errs)
		}
	}
}

// --format text|csv|json is --csv and --json by another name; two outputs
// asked at once, or an unknown one, are usage errors.
func TestFormatFlag(t *testing.T) {
	_, csvOut, _ := run(t, "", "query", "--csv", "--sum", "km", "../../testdata/trips.csv")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--format", "csv"}, exitOK, csvOut},
		{[]string{"--format", "json"}, exitOK, `{"strategy":`},
		{[]string{"--format", "text"}, exitOK, "Matching rows"},
		{[]string{"--format", "xml"}, exitUsage, ""},
		{[]string{"--format", "json", "--csv"}, exitUsage, ""},
		{[]string{"--format", "text", "--json"}, exitUsage, ""},
	} {
		code, out, errs := run(t, "", append(append([]string{"query"}, c.args...), "--sum", "km", "../../testdata/trips.csv")...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%q: exit %d, %q %s", c.args, code, out, errs)
		}
	}
}

// in, not in, ~ and ^= from the command line, in every strategy, and a
// malformed list a usage error that names the grammar.
func TestInAndContainsCLI(t *testing.T) {
	for _, st := range []string{"seq", "goroutines", "processes"} {
		for _, c := range []struct {
			where, want string
		}{
			{"city in (Lima, Rome)", "matched\n7\n"},
			{"city not in (Lima)", "matched\n9\n"},
			{"city~o", "matched\n9\n"},
			{"city^=O", "matched\n5\n"},
		} {
			if code, out, errs := run(t, "", "query", "--strategy", st, "--csv", "--where", c.where, "../../testdata/trips.csv"); code != exitOK || out != c.want {
				t.Errorf("%s %s: exit %d, %q %s; want %q", st, c.where, code, out, errs, c.want)
			}
		}
	}
	if code, out, errs := run(t, "", "query", "--json", "--where", "city in (Lima, Rome)", "../../testdata/trips.csv"); code != exitOK || !strings.Contains(out, `"filters":[{"column":"city","op":"in","value":"","values":["Lima","Rome"]}]`) {
		t.Errorf("in's list in the JSON: exit %d, %s%s", code, out, errs)
	}
	if code, _, errs := run(t, "", "query", "--where", "city in (Lima,,Rome)", "../../testdata/trips.csv"); code != exitUsage || !strings.Contains(errs, "an empty value") {
		t.Errorf("an empty value in a list: exit %d, %s", code, errs)
	}
}
