package spawn

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parlab/input"
	"parlab/input/stage"
	"parlab/scan"
)

// fileAnswer is the answer (or error) of seq over data written to a file
// named name: what a stream of the same bytes must give.
func fileAnswer(t testing.TB, name string, data []byte, q scan.Query) (scan.Result, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Sequential{}.Run(context.Background(), Config{Paths: []string{p}, Names: []string{"standard input"}, Query: q, Timeout: time.Minute})
	if err != nil {
		return scan.Result{}, err
	}
	return rep.Result, nil
}

// streamAnswer is the answer of q over data read as a stream r in blocks
// of block bytes, by st with workers.
func streamAnswer(st Strategy, r io.Reader, q scan.Query, workers, block int) (*Report, error) {
	return st.Run(context.Background(), Config{Stream: r, Names: []string{"standard input"}, Query: q,
		Workers: workers, Split: SplitDynamic, Chunk: block, Timeout: time.Minute})
}

// awkward is CSV that a stream's cuts must respect: quoted fields that hold
// newlines, doubled quotes and commas, CR LF line ends, blank lines, empty
// cells, a BOM and a header with a quoted name.
func awkward(rows int, seed uint64) []byte {
	rnd := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	b.WriteString("\xEF\xBB\xBFkey,\"note, long\",n\n")
	for i := range rows {
		note := []string{"plain", `"two` + "\n" + `lines"`, `"say ""hi"", then
""bye"""`, `"a,b"`, "", `""`, `"` + strings.Repeat("x\n", rnd.IntN(40)) + `"`}[rnd.IntN(7)]
		n := fmt.Sprint(rnd.IntN(1000) - 300)
		if rnd.IntN(9) == 0 {
			n = ""
		}
		end := "\n"
		if rnd.IntN(5) == 0 {
			end = "\r\n"
		}
		fmt.Fprintf(&b, "%s,%s,%s%s", []string{"k1", "k2", `"k,3"`, ""}[rnd.IntN(4)], note, n, end)
		if i%50 == 0 {
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

// A stream cut into blocks of any size, however its quoted fields fall
// across them, gives the file's answer: every block size from 1 byte to
// more than the input, seq and goroutines.
func TestStreamCutsAnywhere(t *testing.T) {
	data := awkward(400, 1)
	queries := []scan.Query{
		{By: []string{"key"}, Sum: []string{"n"}, Max: []string{"note, long"}, Min: []string{"n"}},
		{Filters: []scan.Cond{{Col: "note, long", Op: scan.OpEq, Value: "plain"}}, Sum: []string{"n"}},
		{Filters: []scan.Cond{{Col: "n", Op: scan.OpGe, Value: "100"}}, By: []string{"note, long"}, Avg: []string{"n"}},
	}
	sizes := []int{1, 2, 3, 7, 16, 33, 64, 100, 255, 1000, 4096, len(data) - 1, len(data), len(data) + 1, 1 << 20}
	for _, q := range queries {
		want, err := fileAnswer(t, "a.csv", data, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		if want.Quoted == 0 || want.Rows < 400 {
			t.Fatalf("the data has %d rows, %d quoted", want.Rows, want.Quoted)
		}
		for _, size := range sizes {
			for _, w := range []struct {
				st      Strategy
				workers int
			}{{Sequential{}, 1}, {Goroutines{}, 1}, {Goroutines{}, 3}} {
				rep, err := streamAnswer(w.st, bytes.NewReader(data), q, w.workers, size)
				if err != nil {
					t.Fatalf("%s, blocks of %d: %v", w.st.Name(), size, err)
				}
				if !rep.Result.Equal(&want) || rep.Bytes != int64(len(data)) || !rep.Streamed {
					t.Fatalf("%s, %d workers, blocks of %d: %+v (%d bytes), want %+v (%d)", w.st.Name(), w.workers, size, rep.Result, rep.Bytes, want, len(data))
				}
			}
		}
	}
}

// An error in any block is the file's error, its line counted from the
// start of the stream; the earliest wins; a read error comes after every
// row before it, and no later block is read.
func TestStreamErrors(t *testing.T) {
	q := scan.Query{Sum: []string{"n"}, By: []string{"key"}}
	good := awkward(300, 2)
	for _, bad := range []struct{ name, at, row string }{
		{"a bad number", "late", "k1,plain,12x\n"},
		{"a bare quote", "middle", "k1,pl\"ain,1\n"},
		{"a short row", "late", "k1\n"},
		{"an open quote at the end", "end", "k1,\"open,1\n"},
		{"two bad rows", "middle", "k1,plain,1y\nk2,plain,2z\n"},
	} {
		var data []byte
		switch bad.at {
		case "middle":
			data = append(append([]byte{}, good...), []byte(bad.row)...)
			data = append(data, good[bytes.IndexByte(good, '\n')+1:]...)
		case "late":
			data = append(append(append([]byte{}, good...), []byte(bad.row)...), "k2,plain,1\n"...)
		case "end":
			data = append(append([]byte{}, good...), bad.row...)
		}
		_, want := fileAnswer(t, "a.csv", data, q)
		var pe *scan.ParseError
		if !errors.As(want, &pe) || pe.Line < 300 {
			t.Fatalf("%s: the file's error %v", bad.name, want)
		}
		for _, size := range []int{5, 64, 1000, 1 << 20} {
			for _, workers := range []int{1, 2, 4} {
				_, err := streamAnswer(Goroutines{}, bytes.NewReader(data), q, workers, size)
				if err == nil || err.Error() != want.Error() {
					t.Fatalf("%s, blocks of %d, %d workers: %v, want the file's %v", bad.name, size, workers, err, want)
				}
			}
		}
	}

	// A read error comes after every block read before it (a bad row in
	// one wins); the bytes of a block it cut short are not scanned.
	boom := errors.New("boom")
	for _, c := range []struct {
		data, want string
	}{
		{"key,n\nk1,1\nk2,2\n", "standard input: boom"},
		{"key,n\nk1,x\n" + strings.Repeat("k2,2\n", 10), "standard input:2:4: column \"n\""},
		{"key,n\n" + strings.Repeat("k2,2\n", 10) + "k1,x\n", "standard input: boom"},
	} {
		r := io.MultiReader(strings.NewReader(c.data), &failing{boom})
		_, err := streamAnswer(Goroutines{}, r, scan.Query{Sum: []string{"n"}}, 2, 16)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q then a read error: %v, want %s…", c.data, err, c.want)
		}
	}

	// After a failure the stream is read no further.
	src := &counting{r: bytes.NewReader(append([]byte("key,n\nk1,x\n"), bytes.Repeat([]byte("k1,1\n"), 1<<20)...))}
	if _, err := streamAnswer(Goroutines{}, src, scan.Query{Sum: []string{"n"}}, 2, 4096); err == nil {
		t.Error("a bad row: no error")
	}
	if src.n > 1<<20 {
		t.Errorf("%d bytes read after the first block failed", src.n)
	}
}

type failing struct{ err error }

func (f *failing) Read([]byte) (int, error) { return 0, f.err }

type counting struct {
	r io.Reader
	n int
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// The ends of a stream: nothing (no data), blank lines only and a header
// only (the file's answers), a header longer than a block, no header.
func TestStreamEdges(t *testing.T) {
	long := strings.Repeat("c", 5000)
	for _, c := range []struct {
		name, data string
		q          scan.Query
	}{
		{"empty", "", scan.Query{}},
		{"blank lines", "\n\r\n\n", scan.Query{}},
		{"a header only", "a,b\n", scan.Query{Sum: []string{"b"}}},
		{"a header without a newline", "a,b", scan.Query{Sum: []string{"b"}}},
		{"a last row without a newline", "a,b\n1,2\n3,4", scan.Query{Sum: []string{"b"}}},
		{"a long header", "a," + long + "\n1,2\n3,4\n", scan.Query{Sum: []string{long}}},
		{"blank lines then a header", strings.Repeat("\n", 300) + "a,b\n1,2\n", scan.Query{Sum: []string{"b"}}},
		{"an unknown column", "a,b\n1,2\n", scan.Query{Sum: []string{"c"}}},
		{"no header", "1,2\n3,4\n", scan.Query{Sum: []string{"2"}, NoHeader: true}},
	} {
		want, werr := fileAnswer(t, "a.csv", []byte(c.data), c.q)
		for _, size := range []int{1, 8, 4096} {
			rep, err := streamAnswer(Goroutines{}, strings.NewReader(c.data), c.q, 2, size)
			switch {
			case (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error():
				t.Errorf("%s, blocks of %d: %v, want the file's %v", c.name, size, err, werr)
			case err == nil && !rep.Result.Equal(&want):
				t.Errorf("%s, blocks of %d: %+v, want %+v", c.name, size, rep.Result, want)
			}
		}
	}
}

// A row longer than streamMaxRow is an error, not a buffer without end;
// a bad row before it in the same bytes wins.
func TestStreamLongRow(t *testing.T) {
	defer func(n int) { streamMaxRow = n }(streamMaxRow)
	streamMaxRow = 1 << 12
	long := "a,b\n1,2\n3,\"" + strings.Repeat("x\n", 4<<10) + "\"\n"
	_, err := streamAnswer(Goroutines{}, strings.NewReader(long), scan.Query{Sum: []string{"a"}}, 2, 64)
	if err == nil || !strings.HasPrefix(err.Error(), "standard input: a row longer than 4096 bytes starts at byte 8") {
		t.Errorf("a row of 8 KiB, the bound 4 KiB: %v", err)
	}
	// a bare quote makes every newline after it look quoted: its own error
	bare := "a,b\n1,2\n3,x\"y\n" + strings.Repeat("4,5\n", 4<<10)
	_, want := fileAnswer(t, "a.csv", []byte(bare), scan.Query{Sum: []string{"a"}})
	_, err = streamAnswer(Goroutines{}, strings.NewReader(bare), scan.Query{Sum: []string{"a"}}, 2, 64)
	if want == nil || err == nil || err.Error() != want.Error() {
		t.Errorf("a bare quote, then more than the bound: %v, want the file's %v", err, want)
	}
}

// A stream may start with more blank lines than a row may hold bytes,
// as a file may (it was "the header is longer than 268435456 bytes"): they
// are dropped and counted, so its errors name the file's lines.
func TestStreamBlankPrefix(t *testing.T) {
	defer func(n int) { streamMaxRow = n }(streamMaxRow)
	streamMaxRow = 1 << 12
	blank := strings.Repeat("\n", 3<<12) + strings.Repeat("\r\n", 1<<12)
	for _, c := range []struct{ name, body string }{
		{"good", "a,b\n1,2\n3,4\n"},
		{"a bad value", "a,b\n1,2\n3x,4\n"},
		{"a bad header", "a,a\n1,2\n"},
	} {
		in := blank + c.body
		fans, ferr := fileAnswer(t, "a.csv", []byte(in), scan.Query{Sum: []string{"a"}})
		for _, size := range []int{64, 1 << 12} {
			got, err := streamAnswer(Goroutines{}, strings.NewReader(in), scan.Query{Sum: []string{"a"}}, 2, size)
			switch {
			case (err == nil) != (ferr == nil) || err != nil && err.Error() != strings.Replace(ferr.Error(), "a.csv", "standard input", 1):
				t.Errorf("%s, blocks of %d: %v, the file's %v", c.name, size, err, ferr)
			case err == nil && !got.Result.Equal(&fans):
				t.Errorf("%s, blocks of %d: %+v, the file's %+v", c.name, size, got.Result, fans)
			}
		}
	}
}

// A stream that stops sending (a silent pipe) is stopped by the run's
// timeout, with a *TimeoutError.
func TestStreamTimeout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	w.Write([]byte("a,b\n1,2\n"))
	for _, head := range []bool{false, true} {
		if head {
			w.Write([]byte("3,4\n"))
		}
		_, err := Goroutines{}.Run(context.Background(), Config{Stream: r, Query: scan.Query{Sum: []string{"a"}}, Workers: 2,
			Split: SplitRows, Timeout: 50 * time.Millisecond})
		var te *TimeoutError
		if !errors.As(err, &te) {
			t.Errorf("a silent stream: %v, want a timeout", err)
		}
	}
}

// Only seq and goroutines with a row or dynamic split scan a stream; any
// other way says so.
func TestStreamWays(t *testing.T) {
	for _, w := range []way{
		{Processes{}, SplitRows, 2, input.Mmap},
		{Goroutines{}, SplitFile, 2, input.Mmap},
		{Goroutines{}, SplitKeys, 2, input.Mmap},
		{Floor{}, SplitRows, 2, input.Mmap},
		{MPI{}, SplitRows, 1, input.Mmap},
	} {
		if Streams(w.st, w.split) {
			t.Errorf("%s: Streams says it streams", w)
		}
		_, err := w.st.Run(context.Background(), Config{Stream: strings.NewReader("a\n1\n"), Query: scan.Query{Sum: []string{"a"}},
			Workers: w.workers, Split: w.split})
		if !errors.Is(err, errNoStream) {
			t.Errorf("%s: %v, want errNoStream", w, err)
		}
	}
	for _, w := range streamedWays {
		if !Streams(w.st, w.split) {
			t.Errorf("%s: Streams says it does not stream", w.way)
		}
	}
}

// FuzzStream: any bytes, cut into blocks of any size, give what the file
// gives (the answer, or the same error).
func FuzzStream(f *testing.F) {
	f.Add(awkward(20, 3), uint16(7), uint8(0))
	f.Add([]byte("a,b\n1,\"x\n\"\"y\"\n2,3"), uint16(1), uint8(1))
	f.Add([]byte("a,b\r\n\r\n1,2\r\n\"3\",4\r\n"), uint16(3), uint8(2))
	f.Add([]byte("a,b\n1,x\"y\n2,3\n"), uint16(2), uint8(1))
	queries := []scan.Query{
		{Sum: []string{"2"}, Max: []string{"1"}, NoHeader: true},
		{By: []string{"1"}, Min: []string{"2"}, NoHeader: true},
		{Filters: []scan.Cond{{Col: "1", Op: scan.OpNe, Value: ""}}, Avg: []string{"2"}, NoHeader: true},
	}
	f.Fuzz(func(t *testing.T, data []byte, block uint16, which uint8) {
		q := queries[int(which)%len(queries)]
		want, werr := fileAnswer(t, "f.csv", data, q)
		if werr == nil {
			// the same bytes as two streams of Config.Opens (each a file
			// of its own, so each with its own first row): the two files'
			// answer
			half := bytes.IndexByte(data[len(data)/2:], '\n')
			if half >= 0 && bytes.IndexByte(data, '"') < 0 {
				a, b := data[:len(data)/2+half+1], data[len(data)/2+half+1:]
				two := []string{filepath.Join(t.TempDir(), "a.csv"), filepath.Join(t.TempDir(), "b.csv")}
				os.WriteFile(two[0], a, 0o644)
				os.WriteFile(two[1], b, 0o644)
				rep2, err2 := Sequential{}.Run(context.Background(), Config{Paths: two, Names: []string{"a", "b"}, Query: q, Timeout: time.Minute})
				opens := []func() (io.Reader, func(), error){
					func() (io.Reader, func(), error) { return bytes.NewReader(a), func() {}, nil },
					func() (io.Reader, func(), error) { return bytes.NewReader(b), func() {}, nil },
				}
				rep, err := Goroutines{}.Run(context.Background(), Config{Opens: opens, Names: []string{"a", "b"}, Query: q,
					Workers: 2, Split: SplitRows, Chunk: int(block)%300 + 1, Timeout: time.Minute})
				switch {
				case (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error():
					t.Fatalf("two streams: %v, the two files' %v", err, err2)
				case err == nil && !rep.Result.Equal(&rep2.Result):
					t.Fatalf("two streams: %+v, the two files' %+v", rep.Result, rep2.Result)
				}
			}
		}
		for _, workers := range []int{1, 3} {
			rep, err := streamAnswer(Goroutines{}, bytes.NewReader(data), q, workers, int(block)%300+1)
			switch {
			case (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error():
				t.Fatalf("blocks of %d, %d workers: %v, want the file's %v", int(block)%300+1, workers, err, werr)
			case err == nil && !rep.Result.Equal(&want):
				t.Fatalf("blocks of %d, %d workers: %+v, want %+v", int(block)%300+1, workers, rep.Result, want)
			}
		}
	})
}

// Several compressed files are streamed side by side, a worker a file
// (Config.Opens): the staged answer, an error that names its file and
// line (the first file's in PATH order, whichever worker found it first),
// empty files left out.
func TestStreamsOfManyFiles(t *testing.T) {
	dir := t.TempDir()
	gz := func(name, content string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(content))
		w.Close()
		return writeFile(t, filepath.Join(dir, name), b.String())
	}
	var big strings.Builder
	big.WriteString("key,n\n")
	for i := range 3000 {
		fmt.Fprintf(&big, "k%d,%d\n", i%7, i)
	}
	a, b, empty := gz("a.csv.gz", big.String()), gz("b.csv.gz", "n,key\n1,k1\n2,k2\n"), gz("e.csv.gz", "")
	badRow := gz("bad.csv.gz", "key,n\nk1,1\nk2,2\nk3,x\n")
	badCol := gz("nocol.csv.gz", "key,m\nk1,1\n")
	q := scan.Query{By: []string{"key"}, Sum: []string{"n"}}
	for _, c := range []struct {
		name  string
		paths []string
		want  string // an error's start; "" for the staged answer
	}{
		{"two files and an empty one", []string{a, empty, b}, ""},
		{"a bad row in the last", []string{a, b, badRow}, badRow + ":4:4: column \"n\""},
		{"a bad row before a file without the column", []string{badRow, a, badCol}, badRow + ":4:4: column \"n\""},
		{"no column, then a bad row", []string{a, badCol, badRow}, badCol + ":1:1: "},
		{"not gzip", []string{a, writeFile(t, filepath.Join(dir, "x.csv.gz"), "plain")}, filepath.Join(dir, "x.csv.gz") + ": not gzip data"},
		{"all empty", []string{empty, empty}, ErrNoData.Error()},
	} {
		in, err := stage.Stream(context.Background(), c.paths, stage.Dialect{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(in.Opens) != len(c.paths) {
			t.Fatalf("%s: %d streams for %d files", c.name, len(in.Opens), len(c.paths))
		}
		var want scan.Result
		if c.want == "" {
			if want, err = runStaged(t, c.paths, 0, nil, q); err != nil {
				t.Fatalf("%s, staged: %v", c.name, err)
			}
		}
		for _, w := range []struct {
			st      Strategy
			workers int
		}{{Sequential{}, 1}, {Goroutines{}, 2}, {Goroutines{}, 5}} {
			rep, err := w.st.Run(context.Background(), Config{Opens: in.Opens, Names: in.Names, Query: q, Workers: w.workers,
				Split: SplitRows, Chunk: 1000, Timeout: time.Minute})
			switch {
			case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
				t.Errorf("%s, %s x %d: %v, want %s…", c.name, w.st.Name(), w.workers, err, c.want)
			case c.want == "" && err != nil:
				t.Errorf("%s, %s x %d: %v", c.name, w.st.Name(), w.workers, err)
			case c.want == "" && (!rep.Result.Equal(&want) || rep.Files != 2 || !rep.Streamed):
				t.Errorf("%s, %s x %d: %+v (%d files), want %+v", c.name, w.st.Name(), w.workers, rep.Result, rep.Files, want)
			}
		}
		in.Close()
	}
	// A plain CSV file among them: staged as before. (All TSV: streams,
	// in TestStagedInputsAgree.)
	paths := []string{a, writeFile(t, filepath.Join(dir, "p.csv"), "key,n\nk1,1\n")}
	in, err := stage.Stream(context.Background(), paths, stage.Dialect{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Opens != nil || len(in.Paths) != 2 {
		t.Errorf("%q: streams %d, paths %d; want them staged", paths, len(in.Opens), len(in.Paths))
	}
	in.Close()
	// Another delimiter in one of them: read in it, and a
	// bad quote there named at its line (and, in runStaged, the staged
	// answer)
	tsv := gz("t.tsv.gz", "key\tn\nk1\t1\n\"k\t2\"\t5\n")
	if _, err := runStaged(t, []string{a, tsv}, 0, nil, q); err != nil {
		t.Errorf("a CSV and a TSV file: %v", err)
	}
	// (semicolons, found from the first line: a TSV knows no bad quote)
	badSemi := gz("bad.csv.gz", "key;n\nk1;1\n\"k\"2;5\n") // (a byte after a closing quote)
	in, err = stage.Stream(context.Background(), []string{a, badSemi}, stage.Dialect{}, nil)
	if err != nil || len(in.Opens) != 2 {
		t.Fatalf("a CSV and a semicolon file: %d streams, %v", len(in.Opens), err)
	}
	_, err = Goroutines{}.Run(context.Background(), Config{Opens: in.Opens, Names: in.Names, Query: q, Workers: 2, Split: SplitRows})
	if want := badSemi + ":3:4: quoted field"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a bad quote in a semicolon stream: %v, want %s…", err, want)
	}
}
