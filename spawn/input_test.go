package spawn

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/sys/unix"
	"golang.org/x/text/encoding/unicode"

	"parlab/data"
	"parlab/input"
	"parlab/input/stage"
	"parlab/scan"
	"parlab/shm"
)

// stagedWays are the ways an input that Stage put in memory is checked:
// every strategy, a cut file, the copying modes; the processes open the
// parent's memory file by its /proc path.
var stagedWays = []way{
	{Sequential{}, SplitFile, 1, input.Mmap},
	{Goroutines{}, SplitRows, 2, input.Mmap},
	{Goroutines{}, SplitDynamic, 3, input.Read},
	{Processes{}, SplitRows, 2, input.Mmap},
	{Processes{}, SplitFile, 2, input.ReadAt},
}

// streamedWays are the ways a stream is scanned while it is read
// (stage.Stream), with the block size of each: blocks of 64 bytes hold no
// whole Sales row, so every block's buffer grows first.
var streamedWays = []struct {
	way
	block int
}{
	{way{Sequential{}, SplitFile, 1, input.Mmap}, 64},
	{way{Goroutines{}, SplitRows, 2, input.Mmap}, 4096},
	{way{Goroutines{}, SplitDynamic, 3, input.Mmap}, 300},
}

// runStaged stages paths (stdin for "-") and runs q every staged way, and
// every streamed way: the answers, which must agree, or the error, which
// must be the same.
func runStaged(t *testing.T, paths []string, sep byte, stdin []byte, q scan.Query) (scan.Result, error) {
	t.Helper()
	return runDialect(t, paths, stage.Dialect{Sep: sep}, stdin, q)
}

// runDialect is runStaged for inputs written as d says.
func runDialect(t *testing.T, paths []string, d stage.Dialect, stdin []byte, q scan.Query) (scan.Result, error) {
	t.Helper()
	want, werr := runWays(t, stagedWays, paths, d, bytes.NewReader(stdin), q)
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
			return want, werr // read once: TestPipeInput streams one of its own
		}
	}
	for _, w := range streamedWays {
		got, err := runStreamed(paths, d, bytes.NewReader(stdin), q, w.way, w.block)
		switch {
		case (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error():
			t.Fatalf("streamed %s, blocks of %d: error %v, staged %v", w.way, w.block, err, werr)
		case err == nil && !got.Equal(&want):
			t.Fatalf("streamed %s, blocks of %d: %+v, staged %+v", w.way, w.block, got, want)
		}
	}
	return want, werr
}

// runStreamed runs q one way over paths made ready by stage.Stream, in
// blocks of block bytes.
func runStreamed(paths []string, d stage.Dialect, stdin io.Reader, q scan.Query, w way, block int) (scan.Result, error) {
	in, err := stage.Stream(context.Background(), paths, d, stdin)
	if err != nil {
		return scan.Result{}, err
	}
	defer in.Close()
	c := Config{Paths: in.Paths, Names: in.Names, Seps: in.Seps, HeadAdded: in.HeadAdded, Stream: in.Stream, Opens: in.Opens, Query: q, Mode: w.mode, Workers: w.workers,
		Split: w.split, Chunk: block, Timeout: time.Minute}
	rep, err := underShort(w.st).Run(context.Background(), c)
	if err != nil {
		return scan.Result{}, err
	}
	if in.Stream != nil && (!rep.Streamed || rep.Files != 1) || in.Opens != nil && !rep.Streamed {
		return scan.Result{}, fmt.Errorf("a stream's report: streamed %v, %d files", rep.Streamed, rep.Files)
	}
	return rep.Result, nil
}

// runWays is runStaged over ways.
func runWays(t *testing.T, ways []way, paths []string, d stage.Dialect, stdin io.Reader, q scan.Query) (scan.Result, error) {
	t.Helper()
	in, err := stage.Stage(context.Background(), paths, d, stdin)
	if err != nil {
		return scan.Result{}, err
	}
	defer in.Close()
	var first scan.Result
	var ferr error
	for i, w := range ways {
		c := Config{Paths: in.Paths, Names: in.Names, Seps: in.Seps, HeadAdded: in.HeadAdded, Query: q, Mode: w.mode, Workers: w.workers, Split: w.split,
			Chunk: 1 << 12, Opt: input.Options{Buffer: 4096}, Timeout: time.Minute}
		rep, err := underShort(w.st).Run(context.Background(), c)
		if err == nil && in.Rest != nil { // a later PATH's, as parlab query reports it
			err = in.Rest
		}
		switch {
		case i == 0:
			ferr = err
			if err == nil {
				first = rep.Result
			}
		case (err == nil) != (ferr == nil) || err != nil && err.Error() != ferr.Error():
			t.Fatalf("%s: error %v, the first way's %v", w, err, ferr)
		case err == nil && !rep.Result.Equal(&first):
			t.Fatalf("%s: %+v, the first way gave %+v", w, rep.Result, first)
		}
	}
	return first, ferr
}

// Standard input, gzip and zstd (by name, and on standard input by their
// magic), tab- and semicolon-separated files (by name and by the flag),
// and files without a header give the plain CSV file's answer in every
// strategy.
func TestStagedInputsAgree(t *testing.T) {
	plain := genSet(t, 3000, 1)[0]
	raw, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	q := scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}, By: []string{"Item Type"}, Sum: []string{"Total Profit"}, Max: []string{"Unit Price"}}
	want, err := runStaged(t, []string{plain}, 0, nil, q)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var gz, zs bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(raw)
	gw.Close()
	zw, _ := zstd.NewWriter(&zs)
	zw.Write(raw)
	zw.Close()
	// a tab file, and a semicolon file with CR LF line ends
	var tsv, semi bytes.Buffer
	r := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	for _, line := range r {
		tsv.Write(bytes.ReplaceAll(line, []byte(","), []byte("\t")))
		tsv.WriteByte('\n')
		semi.Write(bytes.ReplaceAll(line, []byte(","), []byte(";")))
		semi.WriteString("\r\n")
	}
	body := raw[bytes.IndexByte(raw, '\n')+1:]
	// the same rows in three compressed files (and an empty one), each
	// with the header: streamed side by side (Inputs.Opens)
	head := raw[:bytes.IndexByte(raw, '\n')+1]
	rows := bytes.SplitAfter(body, []byte("\n"))
	third := len(rows) / 3
	var parts []string
	for i, cut := range [][]byte{bytes.Join(rows[:third], nil), bytes.Join(rows[third:2*third], nil), nil, bytes.Join(rows[2*third:], nil)} {
		var z bytes.Buffer
		name := filepath.Join(dir, fmt.Sprintf("part%d.csv.gz", i))
		if i == 1 {
			w, _ := zstd.NewWriter(&z)
			w.Write(append(append([]byte{}, head...), cut...))
			w.Close()
			name = filepath.Join(dir, "part1.csv.zst")
		} else {
			w := gzip.NewWriter(&z)
			if cut != nil {
				w.Write(append(append([]byte{}, head...), cut...))
			}
			w.Close()
		}
		parts = append(parts, writeFile(t, name, z.String()))
	}
	for _, c := range []struct {
		name  string
		paths []string
		sep   byte
		stdin []byte
		q     scan.Query
	}{
		{"stdin", []string{"-"}, 0, raw, q},
		{"many compressed files", parts, 0, nil, q},
		{"two tsv files", []string{writeFile(t, filepath.Join(dir, "a.tsv"), tsv.String()), writeFile(t, filepath.Join(dir, "e.tab"), "")}, 0, nil, q},
		{"gzip", []string{writeFile(t, filepath.Join(dir, "a.csv.gz"), gz.String())}, 0, nil, q},
		{"zstd", []string{writeFile(t, filepath.Join(dir, "a.csv.zst"), zs.String())}, 0, nil, q},
		{"gzip on stdin", []string{"-"}, 0, gz.Bytes(), q},
		{"zstd on stdin", []string{"-"}, 0, zs.Bytes(), q},
		{"tsv", []string{writeFile(t, filepath.Join(dir, "a.tsv"), tsv.String())}, 0, nil, q},
		{"semicolons", []string{writeFile(t, filepath.Join(dir, "a.txt"), semi.String())}, ';', nil, q},
		{"tsv on stdin", []string{"-"}, '\t', tsv.Bytes(), q},
		// no delimiter given, nor by a name: the first line's
		{"semicolons, found", []string{writeFile(t, filepath.Join(dir, "b.txt"), semi.String())}, 0, nil, q},
		{"tsv on stdin, found", []string{"-"}, 0, tsv.Bytes(), q},
		{"pipes in a .csv, found", []string{writeFile(t, filepath.Join(dir, "p.csv"), string(bytes.ReplaceAll(raw, []byte(","), []byte("|"))))}, 0, nil, q},
		{"gzip semicolons, found", []string{writeFile(t, filepath.Join(dir, "s.csv.gz"), gzipOf(semi.Bytes()))}, 0, nil, q},
		{"gzip tsv on stdin, found", []string{"-"}, 0, []byte(gzipOf(tsv.Bytes())), q},
		// lines that end in a CR alone (an old Mac file): each CR made an LF
		{"CR line ends, found", []string{writeFile(t, filepath.Join(dir, "mac.csv"), strings.ReplaceAll(string(raw), "\n", "\r"))}, 0, nil, q},
		{"CR line ends, semicolons on stdin", []string{"-"}, ';', bytes.ReplaceAll(bytes.ReplaceAll(raw, []byte(","), []byte(";")), []byte("\n"), []byte("\r")), q},
		// UTF-16 with its byte order mark (Excel's "Unicode Text"): decoded
		{"utf-16 tsv, found", []string{writeFile(t, filepath.Join(dir, "u.txt"), utf16Of(t, tsv.Bytes(), unicode.LittleEndian))}, 0, nil, q},
		{"utf-16 tsv named", []string{writeFile(t, filepath.Join(dir, "u.tsv"), utf16Of(t, tsv.Bytes(), unicode.LittleEndian))}, 0, nil, q},
		{"gzip utf-16 big-endian on stdin", []string{"-"}, 0, []byte(gzipOf([]byte(utf16Of(t, raw, unicode.BigEndian)))), q},
		{"no header", []string{writeFile(t, filepath.Join(dir, "body.csv"), string(body))}, 0, nil,
			scan.Query{Filters: []scan.Cond{scan.Eq("1", "Europe")}, By: []string{"3"}, Sum: []string{"14"}, Max: []string{"10"}, NoHeader: true}},
	} {
		got, err := runStaged(t, c.paths, c.sep, c.stdin, c.q)
		if err != nil || !got.Equal(&want) {
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, want)
		}
	}
	// each file's own delimiter: a tab file (its name says nothing) and a
	// comma file, as the comma file twice
	want2, err := runStaged(t, []string{plain, plain}, 0, nil, q)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := runStaged(t, []string{writeFile(t, filepath.Join(dir, "t.txt"), tsv.String()), plain}, 0, nil, q); err != nil || !got.Equal(&want2) {
		t.Errorf("a tab file and a comma file: %+v, %v; want %+v", got, err, want2)
	}
}

// utf16Of is b in UTF-16 of byte order o, after its byte order mark.
func utf16Of(t *testing.T, b []byte, o unicode.Endianness) string {
	u, err := unicode.UTF16(o, unicode.UseBOM).NewEncoder().Bytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(u)
}

// gzipOf is b compressed by gzip.
func gzipOf(b []byte) string {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	w.Close()
	return z.String()
}

// A pipe named as a PATH (a FIFO here; bash's <(zcat x.gz) is one too) is
// read as a stream, gzip by its magic, and gives the file's answer in
// every strategy (TestPathsAreNotPatterns: one in a directory is refused).
func TestPipeInput(t *testing.T) {
	plain := genSet(t, 2000, 1)[0]
	raw, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	q := scan.Query{By: []string{"Region"}, Sum: []string{"Total Profit"}, Max: []string{"Order Date"}}
	want, err := runStaged(t, []string{plain}, 0, nil, q)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(raw)
	gw.Close()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "in.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // waits for the reader
		if err == nil {
			_, err = f.Write(gz.Bytes())
			f.Close()
		}
		done <- err
	}()
	paths, err := input.ExpandPaths([]string{fifo})
	if err != nil {
		t.Fatal(err)
	}
	got, err := runStaged(t, paths, 0, nil, q)
	if werr := <-done; err != nil || werr != nil || !got.Equal(&want) {
		t.Errorf("a gzip'd FIFO: %v (writer %v); %+v, want %+v", err, werr, got, want)
	}
	// and scanned while it is read
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write(gz.Bytes())
			f.Close()
		}
		done <- err
	}()
	got, err = runStreamed(paths, stage.Dialect{}, nil, q, way{Goroutines{}, SplitRows, 2, input.Mmap}, 4096)
	if werr := <-done; err != nil || werr != nil || !got.Equal(&want) {
		t.Errorf("a gzip'd FIFO streamed: %v (writer %v); %+v, want %+v", err, werr, got, want)
	}
}

// Standard input that is a pipe is widened to a megabyte before it is
// read (a 64 KiB pipe moves a stream at half the speed: stage's
// copyBytes), and lands whole.
func TestStdinPipeWidened(t *testing.T) {
	raw := bytes.Repeat([]byte("a,b\n1,2\n"), 400<<10) // 3.2 MB: the writer waits on the reader
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	size := make(chan int, 1)
	go func() {
		// The write ends after the reader's reads began, and widen runs
		// before the first.
		w.Write(raw)
		n, _ := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0)
		size <- n
		w.Close()
	}()
	in, err := stage.Stage(context.Background(), []string{"-"}, stage.Dialect{}, r)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if n := <-size; n != 1<<20 {
		t.Errorf("the pipe holds %d bytes, want 1 MiB", n)
	}
	if got, err := os.ReadFile(in.Paths[0]); err != nil || !bytes.Equal(got, raw) {
		t.Errorf("staged %d bytes (%v), want the %d written", len(got), err, len(raw))
	}
}

// Standard input redirected from a file (parlab query - < x.csv) is
// scanned where it is, as the file is, in every strategy; one that a shell
// read some of first is staged from where it was left, and a compressed
// one is decompressed.
func TestStdinFromAFile(t *testing.T) {
	plain := genSet(t, 2000, 1)[0]
	q := scan.Query{By: []string{"Region"}, Sum: []string{"Total Profit"}, Max: []string{"Order Date"}}
	want, err := runStaged(t, []string{plain}, 0, nil, q)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(plain)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := stage.Stage(context.Background(), []string{"-"}, stage.Dialect{}, f)
	if err != nil {
		t.Fatal(err)
	}
	in.Close()
	if p := in.Paths[0]; p != shm.MemFilePath(f) || in.Names[0] != "standard input" {
		t.Errorf("standard input from a file: path %q, name %q; want %q, not a copy", p, in.Names[0], shm.MemFilePath(f))
	}
	if got, err := runWays(t, stagedWays, []string{"-"}, stage.Dialect{}, f, q); err != nil || !got.Equal(&want) {
		t.Errorf("in place: %+v, %v; want %+v", got, err, want)
	}

	// Read from its second line: the rest is staged, and its first line
	// (a data row) is the header.
	raw, _ := os.ReadFile(plain)
	nl := bytes.IndexByte(raw, '\n')
	if _, err := f.Seek(int64(nl+1), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	in, err = stage.Stage(context.Background(), []string{"-"}, stage.Dialect{}, f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(in.Paths[0])
	in.Close()
	if err != nil || !bytes.Equal(got, raw[nl+1:]) {
		t.Errorf("read from an offset: staged %d bytes (%v), want the %d after it", len(got), err, len(raw)-nl-1)
	}

	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(raw)
	gw.Close()
	zf, err := os.Open(writeFile(t, filepath.Join(t.TempDir(), "in"), gz.String()))
	if err != nil {
		t.Fatal(err)
	}
	defer zf.Close()
	if got, err := runWays(t, stagedWays, []string{"-"}, stage.Dialect{}, zf, q); err != nil || !got.Equal(&want) {
		t.Errorf("gzip from a file: %+v, %v; want %+v", got, err, want)
	}
}

// A bad row in a compressed tab file is an error naming the file by its
// PATH (not the memory file's) with the row's line, in every strategy.
func TestStagedErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write([]byte("Region\tTotal Revenue\nEurope\t1.00\nEurope\t2.x0\n"))
	gw.Close()
	p := writeFile(t, filepath.Join(dir, "bad.tsv.gz"), gz.String())
	_, err := runStaged(t, []string{p}, 0, nil, scan.Query{Filters: []scan.Cond{scan.Eq("Region", "Europe")}, Sum: []string{"Total Revenue"}})
	if err == nil || !strings.Contains(err.Error(), p+":3:") {
		t.Errorf("a bad row: %v, want it named %s:3:", err, p)
	}
	_, err = runStaged(t, []string{"-"}, ';', []byte("a;b\nx\"y;1\n"), scan.Query{Sum: []string{"b"}})
	if err == nil || !strings.HasPrefix(err.Error(), "standard input:2:") {
		t.Errorf("a bare quote on standard input: %v", err)
	}
	if _, err := runStaged(t, []string{writeFile(t, filepath.Join(dir, "not.gz"), "plain")}, 0, nil, scan.Query{}); err == nil || !strings.Contains(err.Error(), "not.gz") {
		t.Errorf("a .gz file that is not gzip: %v", err)
	}
	// staged side by side, the first bad PATH's error, whichever failed first
	var many []string
	for i := range 6 {
		if i < 3 {
			many = append(many, p) // the bad row's file: fine to stage
		} else {
			many = append(many, writeFile(t, filepath.Join(dir, fmt.Sprintf("not%d.gz", i)), "plain"))
		}
	}
	// (the files before it are staged: Inputs.Rest is the run's error if
	// they scan clean; TestErrorsInPathOrder)
	for range 5 {
		in, err := stage.Stage(context.Background(), many, stage.Dialect{}, nil)
		if err != nil || len(in.Paths) != 3 || in.Rest == nil || !strings.HasPrefix(in.Rest.Error(), many[3]+": not gzip data") {
			t.Fatalf("six files, the last three not gzip: %v, %v, want %s's error", in, err, many[3])
		}
		in.Close()
	}
	if in, err := stage.Stage(context.Background(), many[3:], stage.Dialect{}, nil); err == nil || in != nil || !strings.HasPrefix(err.Error(), many[3]+": not gzip data") {
		t.Fatalf("three files, none gzip: %v, want %s's error and no inputs", err, many[3])
	}
}

// Empty cells are missing values in every strategy: the child protocol
// carries what each aggregate skipped, for a group-by's groups too, also
// when a key split puts the parts' groups end to end. (scan's tests run
// every scanner path against the reference; this checks the strategies.)
func TestEmptyCellsEveryWay(t *testing.T) {
	var b strings.Builder
	b.WriteString("city,km,fare,day,big\n")
	for i := range 4000 {
		km, fare := fmt.Sprint(i%17), fmt.Sprintf("%d.%02d", i%5, i%100)
		if i%7 == 0 {
			km = ""
		}
		if i%3 == 0 {
			fare = ""
		}
		day := []string{fmt.Sprintf("%d/%d/2015", i%12+1, i%28+1), fmt.Sprintf("2014-%02d-%02d", i%12+1, i%28+1), "", fmt.Sprintf("Jan %d 2016", i%31+1)}[i%4]
		// numbers of up to 38 digits among short ones and empty cells
		big := []string{"", fmt.Sprintf("%d%020d", i, i), fmt.Sprint(i), fmt.Sprintf("-%d%030d", i%9, i), fmt.Sprintf("%d.%018d", i, i)}[i%5]
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s\n", []string{"Oslo", "Rome", "Lima", ""}[i%4], km, fare, day, big)
	}
	p := writeFile(t, filepath.Join(t.TempDir(), "e.csv"), b.String())
	keys := append(slices.Clone(stagedWays), way{Goroutines{}, SplitKeys, 2, input.Mmap}, way{Processes{}, SplitKeys, 2, input.Mmap})
	every := func(q scan.Query) scan.Result { // q every staged way, a group-by the keys split too
		ways := stagedWays
		if q.By != nil {
			ways = keys
		}
		got, err := runWays(t, ways, []string{p}, stage.Dialect{}, nil, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		// on standard input, staged and streamed (runStaged)
		if in, err := runStaged(t, []string{"-"}, 0, []byte(b.String()), q); err != nil || !in.Equal(&got) {
			t.Fatalf("%+v on standard input: %+v, %v; the file's %+v", q, in, err, got)
		}
		return got
	}
	for _, q := range []scan.Query{
		{Sum: []string{"km"}, Avg: []string{"fare"}, Min: []string{"fare"}},
		{By: []string{"city"}, Sum: []string{"km"}, Avg: []string{"fare"}, Max: []string{"km"}},
		{Filters: []scan.Cond{{Col: "city", Op: scan.OpNe, Value: "Rome"}}, By: []string{"km"}, Avg: []string{"fare"}},
		{Min: []string{"city", "day"}, Max: []string{"day", "city"}, Avg: []string{"fare"}}, // dates and text
		{By: []string{"km"}, Min: []string{"day"}, Max: []string{"city"}, Sum: []string{"fare"}},
	} {
		got := every(q)
		if q.By == nil && (got.Skipped[0] == 0 || got.Skipped[1] == 0) {
			t.Errorf("%+v: skipped %v", q, got.Skipped)
		}
		if q.By != nil && len(got.Groups.Skipped) == 0 {
			t.Errorf("%+v: no group skipped a value", q)
		}
		if slices.Contains(q.Min, "day") && len(got.Words) == 0 && (got.Groups == nil || len(got.Groups.Words) == 0) {
			t.Errorf("%+v: no date or text extreme", q)
		}
	}
	// numbers of 19 to 38 digits: sums, averages, extremes (in the Words
	// of the variable part), filters and keys, every way
	for _, q := range []scan.Query{
		{Sum: []string{"big"}, Avg: []string{"big"}, Min: []string{"big"}, Max: []string{"big"}},
		{Filters: []scan.Cond{{Col: "big", Op: scan.OpGt, Value: "1e22"}}, By: []string{"city"}, Sum: []string{"big"}, Max: []string{"big"}},
		{By: []string{"big"}, Min: []string{"big"}},
	} {
		got := every(q)
		wide := 0
		for _, w := range got.Words {
			wide += len(w.MinNum.Text + w.MaxNum.Text)
		}
		if got.Groups != nil {
			for _, w := range got.Groups.Words {
				wide += len(w.MinNum.Text + w.MaxNum.Text)
			}
		}
		if wide == 0 || got.Matched == 0 {
			t.Errorf("%+v: %d rows matched, no extreme of more than 18 digits", q, got.Matched)
		}
	}
}

// A run stopped by its timeout while its reader is inside the
// decompressor's Read, its inputs closed at once (as parlab query does on
// its way out): the decompressor is closed only after that Read (closed
// under it, klauspost's zstd fails with a slice out of range).
func TestStreamClosedDuringARead(t *testing.T) {
	var zs bytes.Buffer
	zw, _ := zstd.NewWriter(&zs)
	for i := range 200000 {
		fmt.Fprintf(zw, "%d,x%d\n", i, i*7)
	}
	zw.Close()
	p := writeFile(t, filepath.Join(t.TempDir(), "a.csv.zst"), zs.String())
	p2 := writeFile(t, filepath.Join(t.TempDir(), "b.csv.zst"), zs.String())
	stopped := 0
	for i := range 20 {
		paths := []string{p}
		if i%2 == 1 { // two files: each closed by the worker that opened it (Config.Opens)
			paths = append(paths, p2)
		}
		in, err := stage.Stream(context.Background(), paths, stage.Dialect{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Goroutines{}.Run(context.Background(), Config{Stream: in.Stream, Opens: in.Opens, Names: in.Names, Query: scan.Query{Sum: []string{"1"}, NoHeader: true},
			Workers: 2, Split: SplitRows, Chunk: 4096, Timeout: time.Duration(i%5+1) * time.Millisecond})
		in.Close()
		var te *TimeoutError
		if errors.As(err, &te) {
			stopped++
		} else if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond) // the reader's Read ends, and closes
	}
	if stopped == 0 {
		t.Skip("every run finished within its timeout: nothing was closed under a read")
	}
}

// A compressed input cut short (an interrupted download), or whose
// checksum fails, is an error naming the input and the byte where the
// data ended, in every strategy, staged and streamed: never an answer
// from the part that is there (io.ReadFull took a decompressor's
// io.ErrUnexpectedEOF for the end of the stream). With several bad
// inputs the first in PATH order is named, whichever finishes first.
func TestCutArchivesEveryWay(t *testing.T) {
	raw, err := os.ReadFile(genSet(t, 3000, 1)[0])
	if err != nil {
		t.Fatal(err)
	}
	var tsv bytes.Buffer
	for _, line := range bytes.SplitAfter(raw, []byte("\n")) {
		tsv.Write(bytes.ReplaceAll(line, []byte(","), []byte("\t")))
	}
	gz, tgz := gzipOf(raw), gzipOf(tsv.Bytes())
	var zs bytes.Buffer
	zw, _ := zstd.NewWriter(&zs)
	zw.Write(raw)
	zw.Close()
	badCRC := []byte(gz)
	badCRC[len(badCRC)-6] ^= 0xff
	dir := t.TempDir()
	whole := writeFile(t, filepath.Join(dir, "a-whole.csv.gz"), gz)
	cut := writeFile(t, filepath.Join(dir, "b-cut.csv.gz"), gz[:len(gz)/2])
	cut2 := writeFile(t, filepath.Join(dir, "c-cut.csv.zst"), zs.String()[:len(zs.String())/3])
	q := scan.Query{Filters: []scan.Cond{{Col: "Region", Op: scan.OpEq, Value: "Europe"}}, Sum: []string{"Total Profit"}}
	for _, c := range []struct {
		name  string
		paths []string
		stdin []byte
		want  string
	}{
		{"gzip cut in half", []string{writeFile(t, filepath.Join(dir, "h.csv.gz"), gz[:len(gz)/2])}, nil,
			fmt.Sprintf("h.csv.gz: the gzip data ends early, at byte %d ", len(gz)/2)},
		{"gzip without its length", []string{writeFile(t, filepath.Join(dir, "l.csv.gz"), gz[:len(gz)-4])}, nil,
			fmt.Sprintf("l.csv.gz: the gzip data ends early, at byte %d ", len(gz)-4)},
		{"gzip without its trailer", []string{writeFile(t, filepath.Join(dir, "t.csv.gz"), gz[:len(gz)-8])}, nil,
			fmt.Sprintf("t.csv.gz: the gzip data ends early, at byte %d ", len(gz)-8)},
		{"gzip checksum", []string{writeFile(t, filepath.Join(dir, "k.csv.gz"), string(badCRC))}, nil,
			"k.csv.gz: the gzip data is damaged"},
		{"zstd cut", []string{writeFile(t, filepath.Join(dir, "z.csv.zst"), zs.String()[:len(zs.String())-10])}, nil,
			fmt.Sprintf("z.csv.zst: the zstd data ends early, at byte %d ", len(zs.String())-10)},
		{"gzip tsv cut", []string{writeFile(t, filepath.Join(dir, "s.tsv.gz"), tgz[:len(tgz)*2/3])}, nil,
			fmt.Sprintf("s.tsv.gz: the gzip data ends early, at byte %d ", len(tgz)*2/3)},
		{"gzip cut on stdin", []string{"-"}, []byte(gz[:len(gz)/3]),
			fmt.Sprintf("standard input: the gzip data ends early, at byte %d ", len(gz)/3)},
		{"one cut among several", []string{whole, cut, whole}, nil, cut + ": the gzip data ends early"},
		{"two cut: the first named", []string{whole, cut, cut2}, nil, cut + ": the gzip data ends early"},
	} {
		_, err := runStaged(t, c.paths, 0, c.stdin, q)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(c.name, "checksum") {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// The delimiter of a first line longer than what is sniffed is found in
// the same bytes however they arrive: a pipe that delivered more at once
// was judged by more of the line (10 runs of cat | parlab gave two
// answers), and so was a file.
func TestSniffSameBytesHoweverRead(t *testing.T) {
	var b strings.Builder
	b.WriteString("n")
	for i := 0; b.Len() < 70<<10; i++ {
		fmt.Fprintf(&b, ";c%d", i) // semicolons for the first 64 KiB ...
	}
	b.WriteString(",x\n") // ... then a comma
	for range 3 {
		b.WriteString("5\n")
	}
	data := b.String()
	file := writeFile(t, filepath.Join(t.TempDir(), "long.txt"), data)
	q := scan.Query{Sum: []string{"n"}}
	w := way{Sequential{}, SplitFile, 1, input.Mmap}
	for _, c := range []struct {
		name  string
		path  string
		stdin io.Reader
	}{
		{"all at once", "-", bytes.NewReader([]byte(data))},
		{"4 KiB at a time", "-", chunks{bytes.NewReader([]byte(data)), 4096}},
		{"half, then the rest", "-", io.MultiReader(strings.NewReader(data[:40<<10]), strings.NewReader(data[40<<10:]))},
		{"the file", file, nil},
	} {
		r, err := runStreamed([]string{c.path}, stage.Dialect{}, c.stdin, q, w, 1<<20)
		if err != nil || r.Rows != 3 || r.Sums[0].String() != "15" {
			t.Errorf("%s: %+v, %v; want 3 rows summing 15 (semicolons)", c.name, r, err)
		}
	}
}

// A zstd stream that starts with a skippable frame (as pzstd writes one
// first) is zstd data, piped too.
func TestZstdSkippableFrame(t *testing.T) {
	raw, err := os.ReadFile(genSet(t, 500, 1)[0])
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	z.Write([]byte{0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4}) // a skippable frame of 4 bytes
	zw, _ := zstd.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	q := scan.Query{Sum: []string{"Units Sold"}}
	want, err := runStaged(t, []string{writeFile(t, filepath.Join(t.TempDir(), "a.csv"), string(raw))}, 0, nil, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"-", writeFile(t, filepath.Join(t.TempDir(), "a.csv.zst"), z.String())} {
		if got, err := runStaged(t, []string{p}, 0, z.Bytes(), q); err != nil || !got.Equal(&want) {
			t.Errorf("%s: %+v, %v; want %+v", p, got, err, want)
		}
	}
}

// chunks reads r at most n bytes a Read, as a pipe delivers a slow
// writer's bytes.
type chunks struct {
	r io.Reader
	n int
}

func (c chunks) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// The dialect options (--comment, --skip, --null, --ragged) in every
// strategy, staged and streamed, for a file and standard input: the
// answer of the same rows written plainly, and an error's line the input's.
func TestDialectOptionsEveryWay(t *testing.T) {
	dir := t.TempDir()
	plain := writeFile(t, filepath.Join(dir, "plain.csv"), "code,n,note\n00E009,1,x\n0000E0,,y\nabc,3,\n")
	messy := "# exported 2026-12-07\ntitle: codes\ncode;n;note\n00E009;1;x\n# a comment, \"quoted\n0000E0;NA;\"y\"\nabc;3\n"
	d := stage.Dialect{Sep: ';', Comment: '#', Skip: 2, Null: []string{"NA"}, Ragged: true}
	q := scan.Query{By: []string{"code"}, Sum: []string{"n"}, Max: []string{"note"}}
	want, err := runStaged(t, []string{plain}, 0, nil, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		paths []string
		stdin []byte
	}{
		{"a file", []string{writeFile(t, filepath.Join(dir, "messy.txt"), messy)}, nil},
		{"standard input", []string{"-"}, []byte(messy)},
		{"gzip", []string{writeFile(t, filepath.Join(dir, "messy.csv.gz"), gzipOf([]byte(messy)))}, nil},
	} {
		if got, err := runDialect(t, c.paths, d, c.stdin, q); err != nil || !got.Equal(&want) {
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, want)
		}
	}
	// without --null: the NA is an error at its own line (6)
	d.Null = nil
	_, err = runDialect(t, []string{"-"}, d, []byte(messy), q)
	var pe *scan.ParseError
	if !errors.As(err, &pe) || pe.Line != 6 || pe.Value != "NA" {
		t.Errorf("NA without --null: %v, want an error at line 6", err)
	}
}

// A plain file with a tab, ';' or '|' between its fields is scanned where
// it is, in its own delimiter (stage keeps its path, Inputs.Seps says the
// delimiter), and so are its compressed copy and standard input, staged or
// streamed in it; every way answers as the same bytes transcoded to commas
// do (a null token that no field holds makes Transcode run): a TSV's bare
// quotes, a field that starts with a quote but does not close as one, and
// quoted fields holding a tab, a quote and a line end included, with row
// splits and stream blocks small enough to cut rows everywhere.
func TestOtherDelimitersInPlace(t *testing.T) {
	dir := t.TempDir()
	var tsv strings.Builder
	tsv.WriteString("name\tkind\tn\tprice\r\n")
	for i := range 400 {
		switch i % 7 {
		case 0:
			fmt.Fprintf(&tsv, "27\" tv\tscreen\t%d\t%d.50\r\n", i, i%13)
		case 1:
			fmt.Fprintf(&tsv, "\"AGENT\" K\tbook\t%d\t%d.25\r\n", i, i%5)
		case 2:
			fmt.Fprintf(&tsv, "\"a\ttab and \"\"quote\"\"\"\tbook\t%d\t1\r\n", i)
		case 3:
			fmt.Fprintf(&tsv, "\"two\nlines\"\tscreen\t%d\t2.5\r\n", i)
		default:
			fmt.Fprintf(&tsv, "plain %d\tscreen\t%d\t%d\r\n", i%3, i, i%11)
		}
	}
	semi := strings.NewReplacer("\t", ";", "27\" tv", "27 tv", "\"AGENT\" K", "AGENT K").Replace(tsv.String())
	pipe := strings.ReplaceAll(semi, ";", "|")
	qs := []scan.Query{
		{By: []string{"name"}, Sum: []string{"n", "price"}},
		{Filters: []scan.Cond{scan.Eq("kind", "screen")}, Sum: []string{"price"}},
		{Filters: []scan.Cond{{Col: "name", Op: scan.OpEq, Value: "27\" tv"}}, Max: []string{"price"}},
	}
	for _, c := range []struct{ name, body string }{{"t.tsv", tsv.String()}, {"s.txt", semi}, {"p.csv", pipe}} {
		plain := writeFile(t, filepath.Join(dir, c.name), c.body)
		zipped := writeFile(t, filepath.Join(dir, c.name+".gz"), gzipOf([]byte(c.body)))
		in, err := stage.Stage(context.Background(), []string{plain}, stage.Dialect{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if in.Paths[0] != plain || in.Sep(0) != map[byte]byte{'t': '\t', 's': ';', 'p': '|'}[c.name[0]] {
			t.Errorf("%s: staged as %q, delimiter %q; want in place", c.name, in.Paths[0], in.Sep(0))
		}
		in.Close()
		sep := in.Sep(0)
		for _, q := range qs {
			want, werr := runDialect(t, []string{zipped}, stage.Dialect{Sep: sep, Null: []string{"no such null"}}, nil, q)
			for _, in := range []struct {
				paths []string
				stdin []byte
			}{{[]string{plain}, nil}, {[]string{zipped}, nil}, {[]string{"-"}, []byte(c.body)}} {
				got, err := runStaged(t, in.paths, sep, in.stdin, q)
				if werr != nil || err != nil || !got.Equal(&want) || got.Matched == 0 && c.name == "t.tsv" {
					t.Errorf("%s %q %+v: %+v, %v; transcoded %+v, %v", c.name, in.paths, q, got, err, want, werr)
				}
			}
		}
	}
	// a bad quote in a semicolon file: the same error, at the same place
	bad := writeFile(t, filepath.Join(dir, "bad.txt"), "key;n\nk1;1\n\"k\"2;5\n")
	_, err := runStaged(t, []string{bad}, 0, nil, scan.Query{Sum: []string{"n"}})
	if want := bad + ":3:4: quoted field"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a bad quote in a semicolon file: %v, want %s…", err, want)
	}
}

// JSON lines give the answer of the CSV of the same rows in every strategy,
// staged and streamed: a file by its name (plain and gzip'd), several
// files, and standard input by its first byte; rows out too.
func TestNDJSONAgrees(t *testing.T) {
	dir, jdir := t.TempDir(), t.TempDir()
	o := data.Options{Rows: 3000, Files: 2, Seed: 3}
	if err := data.Generate(dir, o, false, nil); err != nil {
		t.Fatal(err)
	}
	o.NDJSON = true
	if err := data.Generate(jdir, o, false, nil); err != nil {
		t.Fatal(err)
	}
	csvs, _ := input.ExpandPaths([]string{dir})
	jsons, _ := input.ExpandPaths([]string{jdir})
	if len(jsons) != 2 || !strings.HasSuffix(jsons[0], ".ndjson") {
		t.Fatalf("a directory's JSON lines: %q", jsons)
	}
	raw, _ := os.ReadFile(jsons[0])
	gzp := writeFile(t, filepath.Join(t.TempDir(), "a.jsonl.gz"), gzipOf(raw))
	for _, q := range []scan.Query{
		{Filters: []scan.Cond{scan.Eq("Region", "Europe")}, By: []string{"Item Type"}, Sum: []string{"Total Profit"}, Max: []string{"Order Date"}},
		{Filters: []scan.Cond{{Col: "Units Sold", Op: scan.OpGt, Value: "9000"}}, Select: []string{"Country", "Unit Price"}},
		{Holistic: []scan.Holistic{{Func: "median", Col: "unit price"}}},
	} {
		d := stage.Dialect{Columns: q.Names()}
		want, err := runDialect(t, csvs, d, nil, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []struct {
			paths []string
			stdin []byte
			same  bool // the CSV's rows
		}{{jsons, nil, true}, {[]string{"-", jsons[1]}, raw, true}, {[]string{jsons[0], gzp}, nil, false}} {
			got, err := runDialect(t, in.paths, d, in.stdin, q)
			if err != nil {
				t.Fatalf("%q: %v", in.paths, err)
			}
			if in.same && !got.Equal(&want) || got.Matched == 0 {
				t.Fatalf("%+v over JSON lines %q: %+v, the CSV's %+v", q, in.paths, got, want)
			}
		}
	}
}

// A JSON lines input's value error, and its rejected row, name the
// input's own line (its CSV's header is parlab's: HeadAdded), blank
// lines before and among the objects counted, in every staged and
// streamed way, from a file and from standard input.
func TestNDJSONErrorLines(t *testing.T) {
	dir := t.TempDir()
	if err := data.Generate(dir, data.Options{Rows: 40, Files: 1, Seed: 5, NDJSON: true}, false, nil); err != nil {
		t.Fatal(err)
	}
	gen, _ := input.ExpandPaths([]string{dir})
	raw, _ := os.ReadFile(gen[0])
	objs := bytes.SplitAfter(raw, []byte("\n"))
	var b []byte
	b = append(b, "\n  \n"...) // two blank lines first
	want := 0                  // the bad object's line
	for i, o := range objs[:40] {
		if i == 20 {
			b = append(b, "\n"...)
		}
		if i == 30 {
			o = regexp.MustCompile(`"Units Sold":[0-9]+`).ReplaceAll(o, []byte(`"Units Sold":"1x"`))
			want = bytes.Count(b, []byte("\n")) + 1
		}
		b = append(b, o...)
	}
	p := writeFile(t, filepath.Join(dir, "e.ndjson"), string(b))
	q := scan.Query{Sum: []string{"Units Sold"}, Types: []scan.ColumnKind{{Col: "Units Sold", Kind: scan.KindNumber, Why: "given"}}}
	d := stage.Dialect{Columns: q.Names()}
	for _, in := range []struct {
		paths []string
		stdin []byte
		name  string
	}{{[]string{p}, nil, p}, {[]string{"-"}, b, "standard input"}} {
		_, err := runDialect(t, in.paths, d, in.stdin, q)
		var pe *scan.ParseError
		if !errors.As(err, &pe) || pe.Line != want || pe.File != in.name {
			t.Errorf("%q: error %v, want one at %s line %d", in.paths, err, in.name, want)
		}
		sq := q
		sq.SkipBad = true
		r, err := runDialect(t, in.paths, d, in.stdin, sq)
		if err != nil || r.Bad != 1 || len(r.Rejects) != 1 || r.Rejects[0].Line != int64(want) {
			t.Errorf("%q, skipping bad rows: %v, %d bad, rejects %+v, want line %d", in.paths, err, r.Bad, r.Rejects, want)
		}
	}
}
