package spawn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"parlab/data"
	"parlab/input"
	"parlab/input/stage"
	"parlab/internal/child"
	"parlab/scan"
)

// way is one way of running a query.
type way struct {
	st      Strategy
	split   Split
	workers int
	mode    input.Mode
}

func (w way) String() string {
	return fmt.Sprintf("%s/%s/%d/%s", stName(w.st), w.split, w.workers, w.mode)
}

// everyWay lists seq and the parallel strategies with every split, 1 to 3
// workers, in every I/O mode; the keys and auto splits only for a group-by
// (groups). Goroutines run the whole cross-product: they share Set, Plan
// and the merge with every other strategy. The harness (the processes'
// code in-process) and the in-process MPI ranks run pairwise: every split
// in every mode, the worker count turning with them, so that each pair of
// split, mode and worker count comes at least once. Real child processes run 2
// workers, one split a mode, and the keys split. Under -short (the race
// run, which looks for races inside this process) no real children,
// goroutines at 3 workers only (in every split and mode), and the pairwise
// ways in one mode a split.
func everyWay(groups bool) []way {
	var ws []way
	splits := []Split{SplitFileNaive, SplitFile, SplitRows, SplitDynamic}
	if groups {
		splits = append(splits, SplitKeys, SplitAuto)
	}
	for mi, m := range []input.Mode{input.Mmap, input.ReadAt, input.Read} {
		ws = append(ws, way{Sequential{}, SplitFile, 1, m})
		for _, st := range parallel {
			_, full := st.(Goroutines)
			for si, sp := range splits {
				for _, n := range []int{1, 2, 3} {
					switch {
					case isReal(st):
						if testing.Short() || n != 2 || sp != []Split{SplitRows, SplitDynamic, SplitFile}[mi] && sp != SplitKeys {
							continue
						}
					case full:
						if testing.Short() && n != 3 {
							continue
						}
					case n != 1+(mi+si)%3: // pairwise
						continue
					case testing.Short() && si%3 != mi: // and a mode a split
						continue
					}
					ws = append(ws, way{st, sp, n, m})
				}
			}
		}
	}
	return ws
}

// agree runs q over paths every way and checks that each gives want's
// answer (want nil: the answer of the first way), or, if the first way
// fails, that every way fails with the same message. A tiny chunk and a
// tiny read buffer cut even small files into many units and pieces. It
// returns the answer and the error.
func agree(t *testing.T, label string, paths []string, q scan.Query, want *scan.Result) (scan.Result, error) {
	t.Helper()
	var first error
	var ans scan.Result
	for i, w := range everyWay(len(q.By) > 0) {
		c := Config{Paths: paths, Query: q, Mode: w.mode, Opt: input.Options{Buffer: 300},
			Workers: w.workers, Split: w.split, Chunk: 1 << 10, Timeout: time.Minute}
		rep, err := w.st.Run(context.Background(), c)
		if i == 0 {
			first = err
			if err == nil {
				ans = rep.Result
				if want != nil && !ans.Equal(want) {
					t.Fatalf("%s %s: %+v, want %+v", label, w, ans, *want)
				}
			}
			continue
		}
		switch {
		case first != nil && (err == nil || err.Error() != first.Error()):
			t.Fatalf("%s %s: error %v, the first way said %v", label, w, err, first)
		case first == nil && err != nil:
			t.Fatalf("%s %s: %v", label, w, err)
		case first == nil && !rep.Result.Equal(&ans):
			t.Fatalf("%s %s: %+v, the first way gave %+v", label, w, rep.Result, ans)
		}
	}
	return ans, first
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Values, column names and paths are bytes: a Latin-1 value matches in
// every strategy (the processes' job once went as JSON, which replaced the
// byte), and a directory whose name is not UTF-8 opens in the children too.
func TestBytesNotUTF8(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d\xff\xfe")
	var b strings.Builder
	b.WriteString("Region,Countr\xff,Total Revenue,Total Profit\n")
	for i := range 300 {
		c := []string{"Cura\xe7ao", "Curacao", "Cura\xc3\xa7ao", "\"Cura\xe7ao\""}[i%4]
		fmt.Fprintf(&b, "Europe,%s,%d.25,1\n", c, i)
	}
	p := writeFile(t, filepath.Join(dir, "latin1.csv"), b.String())
	paths, err := input.ExpandPaths([]string{dir})
	if err != nil || len(paths) != 1 || paths[0] != p {
		t.Fatalf("ExpandPaths: %q, %v", paths, err)
	}
	got, err := agree(t, "latin-1", paths, scan.Query{Filters: []scan.Cond{scan.Eq("Countr\xff", "Cura\xe7ao")}}, nil)
	if err != nil || got.Matched != 150 || got.Rows != 300 {
		t.Fatalf("%+v, %v; want 150 of 300", got, err)
	}
	got, err = agree(t, "utf-8", paths, scan.Query{Filters: []scan.Cond{scan.Eq("Countr\xff", "Cura\xc3\xa7ao")}}, nil)
	if err != nil || got.Matched != 75 {
		t.Fatalf("%+v, %v; want 75", got, err)
	}
}

// A PATH is a path, never a pattern, and a directory contributes its
// regular, visible files named *.csv in any case.
func TestPathsAreNotPatterns(t *testing.T) {
	root := t.TempDir()
	const h = "Region,Total Revenue,Total Profit\n"
	for _, d := range []string{"exp[1]", "exp1", "sales*", "salesX", "only[x]", "bad[", "a?b", "a\\b"} {
		writeFile(t, filepath.Join(root, d, "x.csv"), h+"Europe,"+fmt.Sprint(len(d))+",1\n")
	}
	for _, d := range []string{"exp[1]", "sales*", "only[x]", "bad[", "a?b", "a\\b"} {
		got, err := input.ExpandPaths([]string{filepath.Join(root, d)})
		if err != nil || len(got) != 1 || got[0] != filepath.Join(root, d, "x.csv") {
			t.Errorf("%s: %q, %v", d, got, err)
		}
	}
	// what a directory contributes
	dir := filepath.Join(root, "mixed")
	writeFile(t, filepath.Join(dir, "b.csv"), h+"Europe,2,1\n")
	writeFile(t, filepath.Join(dir, "A.CSV"), h+"Europe,1,1\n")
	writeFile(t, filepath.Join(dir, "c.Csv"), h+"Asia,4,1\n")
	writeFile(t, filepath.Join(dir, "empty.csv"), "")
	writeFile(t, filepath.Join(dir, ".hidden.csv"), h+"Europe,100,1\n")
	writeFile(t, filepath.Join(dir, "notes.txt"), "not csv")
	writeFile(t, filepath.Join(dir, "csv"), "not csv either")
	got, err := input.ExpandPaths([]string{dir})
	want := []string{"A.CSV", "b.csv", "c.Csv", "empty.csv"}
	if err != nil || len(got) != len(want) {
		t.Fatalf("mixed: %q, %v; want %q", got, err, want)
	}
	for i := range want {
		if got[i] != filepath.Join(dir, want[i]) {
			t.Fatalf("mixed: %q, want %q", got, want)
		}
	}
	// The empty file contributes nothing and fails nothing.
	ans, err := agree(t, "mixed", got, scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, nil)
	if err != nil || ans.Rows != 3 || ans.Matched != 2 || ans.Sums[0].String() != "3" {
		t.Fatalf("mixed: %+v, %v", ans, err)
	}
	if _, err := Open(got[3:], scan.Query{}, input.Mmap, input.Options{}); !errors.Is(err, ErrNoData) {
		t.Errorf("only an empty file: %v, want %v", err, ErrNoData)
	}
	// a FIFO named *.csv in a directory is refused at once (nothing waits
	// on a pipe nobody named), and so is a device named itself; a FIFO
	// named itself is a stream (TestPipeInput)
	fifo := filepath.Join(dir, "pipe.csv")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for p, named := range map[string]string{dir: fifo, "/dev/null": "/dev/null"} {
		if _, err := input.ExpandPaths([]string{p}); !errors.Is(err, input.ErrNotRegular) || !strings.Contains(err.Error(), named) {
			t.Errorf("%s: %v, want %v naming %s", p, err, input.ErrNotRegular, named)
		}
	}
	if got, err := input.ExpandPaths([]string{fifo}); err != nil || len(got) != 1 {
		t.Errorf("a FIFO named itself: %q, %v", got, err)
	}
	// an unfinished gen's leftover makes the set incomplete
	unfinished := filepath.Join(root, "unfinished")
	writeFile(t, filepath.Join(unfinished, "xaa.csv"), h+"Europe,1,1\n")
	writeFile(t, filepath.Join(unfinished, "xab.csv.tmp"), h+"Europe,1,1\n")
	if _, err := input.ExpandPaths([]string{unfinished}); !errors.Is(err, input.ErrUnfinished) || !strings.Contains(err.Error(), "xab.csv.tmp") {
		t.Errorf("unfinished: %v", err)
	}
	// an unreadable directory says why
	if os.Geteuid() != 0 {
		locked := filepath.Join(root, "locked")
		writeFile(t, filepath.Join(locked, "x.csv"), h)
		os.Chmod(locked, 0)
		defer os.Chmod(locked, 0o755)
		if _, err := input.ExpandPaths([]string{locked}); !errors.Is(err, os.ErrPermission) {
			t.Errorf("unreadable directory: %v", err)
		}
	}
	if _, err := input.ExpandPaths([]string{filepath.Join(root, "salesX"), "/dev/zero"}); !errors.Is(err, input.ErrNotRegular) {
		t.Errorf("/dev/zero: %v", err)
	}
}

// A sum that leaves the int64 range in one order and not in another gives
// the same exact answer every way: the running sums cannot overflow.
func TestSumsPastInt64(t *testing.T) {
	var b strings.Builder
	b.WriteString("Region,Total Revenue,Total Profit\n")
	want := new(big.Int)
	want2 := new(big.Int)
	add := func(region, v, p string) {
		fmt.Fprintf(&b, "%s,%s,%s\n", region, v, p)
		if region == "Europe" {
			x, _ := new(big.Int).SetString(strings.ReplaceAll(v, ".", ""), 10)
			want.Add(want, x)
			y, _ := new(big.Int).SetString(strings.ReplaceAll(p, ".", ""), 10)
			want2.Add(want2, y)
		}
	}
	for i := range 400 {
		switch {
		case i < 200:
			add("Europe", "5000000000000000000", "9223372036854775807")
		case i < 399:
			add("Europe", "-5000000000000000000", "1")
		default:
			add("Asia", "1", "1")
		}
	}
	p := writeFile(t, filepath.Join(t.TempDir(), "big.csv"), b.String())
	got, err := agree(t, "past int64", []string{p}, scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sums[0].String() != want.String() || got.Sums[1].String() != want2.String() {
		t.Fatalf("sums %s, %s; want %s, %s", got.Sums[0], got.Sums[1], want, want2)
	}
}

// One value with 17 decimals among many with 2 moves the column to scale 17,
// and the sum is still exact (it once failed, blaming that value).
func TestMixedScales(t *testing.T) {
	var b strings.Builder
	b.WriteString("Region,Total Revenue,Total Profit\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "Europe,%d.99,1\n", 999999999+i)
		if i == 500 {
			b.WriteString("Europe,0.12345678901234567,1\n")
		}
	}
	p := writeFile(t, filepath.Join(t.TempDir(), "scales.csv"), b.String())
	got, err := agree(t, "scales", []string{p}, scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 1000·999999999 + (0+…+999) + 1000·0.99 + 0.12345678901234567
	if want := "1000000499490.12345678901234567"; got.Sums[0].String() != want {
		t.Fatalf("sum %s, want %s", got.Sums[0], want)
	}
}

// Bad data gives one error, the same every way and in every I/O mode, with
// the line counted from the start of the file (a copying mode's piece
// starts part way in).
func TestBadDataEveryWay(t *testing.T) {
	var b strings.Builder
	b.WriteString("Region,Total Revenue,Total Profit\n")
	for i := range 500 {
		if i == 433 {
			b.WriteString("Europe,12x.5,1\n")
			continue
		}
		fmt.Fprintf(&b, "Europe,%d,\"%d\"\n", i, i)
	}
	p := writeFile(t, filepath.Join(t.TempDir(), "bad.csv"), b.String())
	_, err := agree(t, "bad", []string{p}, scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, nil)
	var pe *scan.ParseError
	if !errors.As(err, &pe) || pe.Line != 435 || pe.Column != 8 || !errors.Is(err, scan.ErrSyntax) {
		t.Fatalf("%v, want a syntax error at line 435, column 8", err)
	}
}

// A group-by's bad data fails every way with the first bad row in file
// order, the keys split's too: each of its parts meets every bad row, and
// the one of the first file is reported, not a later file's.
func TestBadGroupByEveryWay(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for f, bad := range []int{-1, 301, 17} {
		var b strings.Builder
		b.WriteString("Order ID,Region,Total Revenue,Total Profit\n")
		for i := range 400 {
			if i == bad {
				fmt.Fprintf(&b, "%d,Asia,1.2.%d,1\n", 1000*f+i, f)
				continue
			}
			fmt.Fprintf(&b, "%d,Asia,%d.5,%d\n", 1000*f+i, i, f)
		}
		paths = append(paths, writeFile(t, filepath.Join(dir, fmt.Sprintf("x%c.csv", 'a'+f)), b.String()))
	}
	_, err := agree(t, "bad group-by", paths, scan.Query{By: []string{"Order ID"}}, nil)
	var pe *scan.ParseError
	if !errors.As(err, &pe) || pe.File != paths[1] || pe.Line != 303 || !errors.Is(err, scan.ErrSyntax) {
		t.Fatalf("%v, want a syntax error in %s at line 303", err, paths[1])
	}
	// and without the bad rows, every way's answer is seq's
	for _, p := range paths[1:] {
		b, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.NewReplacer("1.2.1,", "1.5,", "1.2.2,", "1.5,").Replace(string(b))), 0o644)
	}
	if got, err := agree(t, "group-by", paths, scan.Query{By: []string{"Order ID"}}, nil); err != nil || got.Groups.Len() != 1200 {
		t.Fatalf("%v: %d groups", err, got.Groups.Len())
	}
}

// A quoted field longer than a copying mode's buffer, holding newlines, is
// read whole: the buffer grows for it.
func TestLongQuotedRowCopying(t *testing.T) {
	var b strings.Builder
	b.WriteString("Region,Note,Total Revenue,Total Profit\n")
	for i := range 40 {
		note := strings.Repeat(fmt.Sprintf("line %d,\n", i), 1+i*20)
		fmt.Fprintf(&b, "Europe,\"%s\",%d,1\n", note, i)
	}
	p := writeFile(t, filepath.Join(t.TempDir(), "long.csv"), b.String())
	got, err := agree(t, "long", []string{p}, scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, nil)
	if err != nil || got.Matched != 40 || got.Sums[0].String() != "780" {
		t.Fatalf("%+v, %v", got, err)
	}
}

// A file truncated while it is read fails the run with an error naming it,
// in every mode and strategy: a mapping's fault (mmap, readat) is caught,
// and a short read (read) is an error.
func TestTruncatedEveryMode(t *testing.T) {
	for _, m := range []input.Mode{input.ReadAt, input.Read} {
		paths := genSet(t, 20000, 1)
		set, err := OpenLazy(paths, scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, m, input.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(paths[0], 4096); err != nil {
			t.Fatal(err)
		}
		var r scan.Result
		err = set.scanUnit(context.Background(), set.WholeFile(0), &r)
		set.Close()
		if err == nil || !strings.Contains(err.Error(), paths[0]) {
			t.Fatalf("%v: scan of a truncated file: %v", m, err)
		}
	}
}

// The timeout bounds the whole run in every strategy, setup and scan
// included, and names itself.
func TestTimeoutEveryStrategy(t *testing.T) {
	paths := genSet(t, 20000, 3)
	for _, st := range []Strategy{Sequential{}, Goroutines{}, Processes{}, Floor{}} {
		for _, m := range []input.Mode{input.Mmap, input.Read} {
			c := Config{Paths: paths, Query: scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, Mode: m,
				Workers: 2, Split: SplitDynamic, Chunk: 4 << 10, Timeout: time.Nanosecond}
			rep, err := st.Run(context.Background(), c)
			var te *TimeoutError
			if !errors.As(err, &te) || rep != nil {
				t.Errorf("%s %v: %v, want a timeout", st.Name(), m, err)
			}
		}
	}
	// a hung child: the run ends at its timeout, not later
	t.Setenv(FailpointEnv, "child-hang:0")
	c := cfg(paths, SplitFile, 2)
	c.Timeout = 500 * time.Millisecond
	t0 := time.Now()
	_, err := Processes{}.Run(context.Background(), c)
	var te *TimeoutError
	if !errors.As(err, &te) || time.Since(t0) > 5*time.Second {
		t.Errorf("hung child: %v after %v", err, time.Since(t0))
	}
	child.Reaped(t)
}

// With --io read, a worker process holds one buffer, not the file: its peak
// memory is the same for a file five times the size. (readat copies out of
// a mapping of the whole file, whose touched pages count in a child's RSS
// though they are the shared page cache, not copies: no RSS bound says
// anything there, so it is checked to keep no copy of the file instead.)
func TestCopyingMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 75 MB data set")
	}
	peak := func(rows int) (file, most int64) {
		dir := t.TempDir()
		if err := data.Generate(dir, data.Options{Rows: rows, Files: 1, Seed: 3}, false, nil); err != nil {
			t.Fatal(err)
		}
		paths, _ := input.ExpandPaths([]string{dir})
		st, _ := os.Stat(paths[0])
		c := Config{Paths: paths, Query: scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}}, Mode: input.Read,
			Workers: 2, Split: SplitRows, Timeout: time.Minute}
		rep, err := Processes{}.Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range rep.PerWorker {
			if s.MaxRSS <= 0 {
				t.Fatalf("no peak memory for a worker: %+v", s)
			}
			most = max(most, s.MaxRSS)
		}
		return st.Size(), most
	}
	smallFile, small := peak(100000)
	bigFile, big := peak(500000)
	t.Logf("--io read, 2 worker processes: %d KiB peak for a %d MB file, %d KiB for %d MB",
		small>>10, smallFile/1e6, big>>10, bigFile/1e6)
	if big-small > 8<<20 {
		t.Errorf("a worker's peak grew by %d KiB for %d MB more data", (big-small)>>10, (bigFile-smallFile)/1e6)
	}
	paths := genSet(t, 1000, 1)
	set, err := OpenLazy(paths, scan.Query{}, input.ReadAt, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if set.Files[0].Bytes() != nil {
		t.Error("readat holds the file's bytes")
	}
	set.Close()
}

// A quoted field keeps its bytes: CR LF, a lone LF and a lone CR inside the
// quotes are part of it, in a CRLF file, every way, with row cuts (1 KiB
// chunks, 300-byte read pieces) landing next to such fields.
func TestQuotedLineBreaksKept(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,Total Revenue,Total Profit\r\n")
	kinds := []string{"Once upon \r\na time", "Once upon \na time", "Once upon \ra time", "Once upon a time"}
	for i := range 600 {
		fmt.Fprintf(&b, "\"%s\",%d,%d,1\r\n", kinds[i%4], i, i%7)
		if i%9 == 0 {
			b.WriteString("plain,x,100,1\r\n")
		}
	}
	p := writeFile(t, filepath.Join(t.TempDir(), "crlf.csv"), b.String())
	for k, v := range kinds {
		got, err := agree(t, fmt.Sprintf("%q", v), []string{p}, scan.Query{Filters: []scan.Cond{scan.Eq("a", v)}}, nil)
		want := int64(0)
		for i := k; i < 600; i += 4 {
			want += int64(i % 7)
		}
		if err != nil || got.Matched != 150 || got.Sums[0].String() != fmt.Sprint(want) {
			t.Errorf("%q: %+v, %v; want 150 rows summing to %d", v, got, err, want)
		}
	}
}

// endless is a stream that never ends: yes(1), or /dev/zero.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "a,b\n"[i%4]
	}
	return len(p), nil
}

// The timeout bounds opening, sniffing and staging too (it started at the
// run, after them): a FIFO that no writer opens, one whose writer stalls
// before its first line ends, and an endless stream staged for processes
// (it read 4 GiB into memory) all end at the timeout, as a
// *TimeoutError, for a stream and for staging alike.
func TestTimeoutBoundsStaging(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := unix.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	silent := fifo("silent")
	stalls := fifo("stalls")
	stop := make(chan struct{})
	go func() { // a writer that says a little, then nothing until the test ends
		if f, err := os.OpenFile(stalls, os.O_WRONLY, 0); err == nil {
			f.WriteString("a,b")
			<-stop
			f.Close()
		}
	}()
	// At the end the writer closes; what the timed-out reads left open
	// must then close (bounded's promise), before a later test counts
	// its descriptors.
	t.Cleanup(func() {
		close(stop)
		deadline := time.Now().Add(10 * time.Second)
		for n := fdsUnder(t, dir); n > 0; n = fdsUnder(t, dir) {
			if time.Now().After(deadline) {
				t.Errorf("%d descriptors of the FIFOs still open after the writer closed", n)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	for _, c := range []struct {
		name  string
		paths []string
		stdin io.Reader
	}{
		{"no writer", []string{silent}, nil},
		{"a writer that stalls", []string{stalls}, nil},
		{"endless standard input", []string{"-"}, endless{}},
	} {
		for _, how := range []struct {
			name string
			f    func(context.Context, []string, stage.Dialect, io.Reader) (*stage.Inputs, error)
		}{{"stage", stage.Stage}, {"stream", stage.Stream}} {
			if c.name == "endless standard input" && how.name == "stream" {
				continue // (streamed, a run reads it: TestTimeoutEveryStrategy)
			}
			ctx, cancel := WithTimeout(context.Background(), 200*time.Millisecond)
			t0 := time.Now()
			in, err := how.f(ctx, c.paths, stage.Dialect{}, c.stdin)
			cancel()
			var te *TimeoutError
			if !errors.As(err, &te) || in != nil || time.Since(t0) > 5*time.Second {
				t.Errorf("%s, %s: %v after %v, want a timeout", c.name, how.name, err, time.Since(t0))
			}
		}
	}
}

// fdsUnder counts this process's descriptors open on files under dir.
func fdsUnder(t *testing.T, dir string) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.HasPrefix(l, dir+"/") {
			n++
		}
	}
	return n
}

// With several bad inputs the error is the first in PATH order, whatever
// the strategy: a header that does not bind (the Set's Rest), or an input
// that cannot be staged (Inputs.Rest), after a file with a bad value, is
// reported only if the files before it are good. (The header's error, and
// the staging's, came first in every way, before any scan.)
func TestErrorsInPathOrder(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("Region,Total Revenue,Total Profit\n")
	for i := range 300 {
		if i == 200 {
			b.WriteString("Europe,1,12x.5\n")
			continue
		}
		fmt.Fprintf(&b, "Europe,%d,%d\n", i, i)
	}
	good := writeFile(t, filepath.Join(dir, "a.csv"), strings.Replace(b.String(), "12x.5", "7", 1))
	badValue := writeFile(t, filepath.Join(dir, "b.csv"), b.String())
	badHeader := writeFile(t, filepath.Join(dir, "c.csv"), "Region,Country\nEurope,Norway\n")
	q := scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}, Sum: []string{"Total Profit"}}
	_, err := agree(t, "a bad value, then a bad header", []string{good, badValue, badHeader}, q, nil)
	if err == nil || !strings.HasPrefix(err.Error(), badValue+":202:") {
		t.Errorf("a bad value, then a bad header: %v, want %s's line 202", err, badValue)
	}
	_, err = agree(t, "a bad header after good files", []string{good, good, badHeader}, q, nil)
	if !errors.Is(err, scan.ErrColumn) {
		t.Errorf("a bad header after good files: %v, want its error", err)
	}
	// a staged input that fails (not gzip data) after a bad value
	notGzip := writeFile(t, filepath.Join(dir, "d.csv.gz"), "Region\nEurope\n")
	in, err := stage.Stage(context.Background(), []string{good, badValue, notGzip}, stage.Dialect{}, nil)
	if err != nil || len(in.Paths) != 2 || in.Rest == nil || !strings.Contains(in.Rest.Error(), "not gzip data") {
		t.Fatalf("Stage: %v, %v", in, err)
	}
	defer in.Close()
	if _, err := agree(t, "staged", in.Paths, q, nil); err == nil || !strings.HasPrefix(err.Error(), badValue+":202:") {
		t.Errorf("a bad value, then a bad gzip: %v", err)
	}
}

// A header longer than scan.MaxHeaderBytes (here a sparse file of NUL
// bytes, no line end) is ErrLongHeader in every mode, read no further
// than the bound: --io read read the whole 1 GB line, doubling its
// buffer, and peaked at 4.1 GB.
func TestLongHeaderEveryMode(t *testing.T) {
	if testing.Short() {
		t.Skip("scans 256 MiB a way")
	}
	p := filepath.Join(t.TempDir(), "zeros.csv")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(scan.MaxHeaderBytes + 4096)
	f.Close()
	for _, st := range []Strategy{Sequential{}, Goroutines{}} { // (Set.Open: every strategy's)
		for _, m := range []input.Mode{input.Mmap, input.Read} { // (readat reads a header as read does)
			_, err := st.Run(context.Background(), Config{Paths: []string{p}, Query: scan.Query{Sum: []string{"a"}}, Mode: m, Workers: 2, Timeout: time.Minute})
			var pe *scan.ParseError
			if !errors.Is(err, scan.ErrLongHeader) || !errors.As(err, &pe) || pe.Line != 1 {
				t.Errorf("%s %v: %v, want ErrLongHeader at line 1", st.Name(), m, err)
			}
		}
	}
}

// More files than a process may map or hold open (65,530 mappings, the
// descriptor limit) are read, each through a descriptor opened for each
// read (Set.Transient), in every strategy; more staged inputs than
// descriptors are packed into a few memory files (input.RegionPath).
// 65,490 files failed with "mmap: cannot allocate memory", and the Go heap
// then could not grow ("out of memory"). Here the bound is lowered to 500
// and 600 files pass it: the same code, a fifteenth of the files.
func TestManyFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 900 files")
	}
	defer func(n int) { manyFiles = n }(manyFiles)
	manyFiles = 500
	dir := t.TempDir()
	var paths, zips []string
	want := 0
	for i := range manyFiles + 100 {
		p := filepath.Join(dir, fmt.Sprintf("f%05d.csv", i))
		if err := os.WriteFile(p, fmt.Appendf(nil, "a,b\n%d,x\n", i), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		want += i
	}
	for i := range packOverTest {
		zips = append(zips, writeFile(t, filepath.Join(dir, fmt.Sprintf("z%03d.csv.gz", i)), gzipOf(fmt.Appendf(nil, "a,b\n%d,x\n", i))))
	}
	q := scan.Query{Sum: []string{"a"}}
	check := func(label string, paths []string, w way, want int, transient bool) {
		t.Helper()
		rep, err := w.st.Run(context.Background(), Config{Paths: paths, Query: q, Mode: w.mode, Workers: w.workers, Split: w.split, Timeout: time.Minute})
		if err != nil || rep.Result.Sums[0].String() != fmt.Sprint(want) || rep.Files != len(paths) || rep.Transient != transient {
			t.Fatalf("%s %s: %v, %+v", label, w, err, rep)
		}
		if transient && rep.IO(w.mode) != input.Read {
			t.Errorf("%s %s: reports %v, want read", label, w, rep.IO(w.mode))
		}
	}
	for _, w := range []way{{Sequential{}, SplitFile, 1, input.Mmap}, {Goroutines{}, SplitRows, 2, input.Mmap},
		{Goroutines{}, SplitFile, 3, input.ReadAt}, {Processes{}, SplitDynamic, 2, input.Mmap}} {
		check("plain files", paths, w, want, true)
	}
	in, err := stage.Stage(context.Background(), zips, stage.Dialect{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if !strings.Contains(in.Paths[0], "\x00") {
		t.Fatalf("%d staged inputs, not packed: %q", len(zips), in.Paths[0])
	}
	for _, w := range []way{{Sequential{}, SplitFile, 1, input.Mmap}, {Goroutines{}, SplitRows, 2, input.Read},
		{Processes{}, SplitFile, 2, input.ReadAt}, {Processes{}, SplitRows, 2, input.Mmap}} {
		check("packed inputs", in.Paths, w, packOverTest*(packOverTest-1)/2, false)
	}
}

// packOverTest is more inputs than stage packs one a memory file.
const packOverTest = 300

// Under a descriptor limit lower than the inputs: the Read mode holds no
// descriptor a file past half the limit, and staging packs its memory
// files (each took a descriptor: "too many open files").
func TestDescriptorLimit(t *testing.T) {
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	low := old
	low.Cur = 200
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	defer unix.Setrlimit(unix.RLIMIT_NOFILE, &old)
	dir := t.TempDir()
	var paths, zips []string
	for i := range packOverTest {
		paths = append(paths, writeFile(t, filepath.Join(dir, fmt.Sprintf("f%03d.csv", i)), fmt.Sprintf("a,b\n%d,x\n", i)))
		zips = append(zips, writeFile(t, filepath.Join(dir, fmt.Sprintf("z%03d.csv.gz", i)), gzipOf(fmt.Appendf(nil, "a,b\n%d,x\n", i))))
	}
	want := fmt.Sprint(packOverTest * (packOverTest - 1) / 2)
	q := scan.Query{Sum: []string{"a"}}
	for _, st := range []Strategy{Sequential{}, Goroutines{}} {
		rep, err := st.Run(context.Background(), Config{Paths: paths, Query: q, Mode: input.Read, Workers: 2, Split: SplitFile, Timeout: time.Minute})
		if err != nil || rep.Result.Sums[0].String() != want || !rep.Transient {
			t.Errorf("%s, read mode: %v, %+v", st.Name(), err, rep)
		}
	}
	in, err := stage.Stage(context.Background(), zips, stage.Dialect{}, nil)
	if err != nil {
		t.Fatalf("staging %d inputs under a limit of %d descriptors: %v", len(zips), low.Cur, err)
	}
	defer in.Close()
	rep, err := Goroutines{}.Run(context.Background(), Config{Paths: in.Paths, Names: in.Names, Query: q, Workers: 2, Split: SplitRows, Timeout: time.Minute})
	if err != nil || rep.Result.Sums[0].String() != want {
		t.Errorf("packed: %v, %+v", err, rep)
	}
}

// Filters in any order: a filter's field that cannot be compared (NA where
// a number should be) or is missing (a short row) is an error only in a
// row that passes every other filter, so the answer, or the error, is the
// same for the filters in either order, every way (one order answered, the
// other failed).
func TestFiltersInAnyOrder(t *testing.T) {
	p := writeFile(t, filepath.Join(t.TempDir(), "na.csv"), "k,n\na,NA\nb,5\nb,7\na\n")
	num := scan.Cond{Col: "n", Op: scan.OpGt, Value: "1"}
	for _, c := range []struct {
		key  string
		want string // the error, or "" for an answer
	}{
		{"b", ""},                     // the NA row and the short row are a's: no error
		{"a", "not a decimal number"}, // the NA row passes k=a: its n is an error
	} {
		key := scan.Cond{Col: "k", Op: scan.OpEq, Value: c.key}
		var first scan.Result
		for i, conds := range [][]scan.Cond{{num, key}, {key, num}, {num, key}, {key, num}} {
			q := scan.Query{Filters: conds, Sum: []string{"n"}}
			if i >= 2 { // a group-by, every split
				q.By = []string{"k"}
			}
			got, err := agree(t, fmt.Sprint(conds), []string{p}, q, nil)
			switch {
			case c.want == "" && (err != nil || got.Matched != 2):
				t.Errorf("k=%s, order %d: %+v, %v; want 2 rows", c.key, i, got, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("k=%s, order %d: %v, want %q", c.key, i, err, c.want)
			case i%2 == 1 && err == nil && !got.Equal(&first):
				t.Errorf("k=%s: the two orders differ: %+v, %+v", c.key, got, first)
			}
			first = got
		}
	}
}

// A key split's parts each pass over the rows whose keys another part owns,
// and may meet a later error first: the run's error is still the earliest
// in the file, the one a sequential scan reports (FuzzKinds found a key
// that was no number before an open quote).
func TestKeySplitErrorOrder(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("k,v\n")
	for i := range 50 {
		fmt.Fprintf(&b, "%d,%d\n", i, i)
	}
	b.WriteString("x,1\n\"")
	p := writeFile(t, filepath.Join(dir, "k.csv"), b.String())
	q := scan.Query{By: []string{"k"}, Max: []string{"v"}, Types: []scan.ColumnKind{{Col: "k", Kind: scan.KindNumber}}}
	_, err := agree(t, "key kinds", []string{p}, q, nil)
	if err == nil || !strings.Contains(err.Error(), "k.csv:52:1") {
		t.Fatalf("%v, want the key at line 52 that is no number", err)
	}
}
