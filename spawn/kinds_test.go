package spawn

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"parlab/data"
	"parlab/input"
	"parlab/scan"
)

// Column kinds are decided once and alike in every strategy, split and
// mode, for files, standard input and archives, staged or streamed: the
// issue's hex codes are text (code=0000E0 matches one row), and an error
// that a kind makes is the same message every way.
func TestKindsEveryWay(t *testing.T) {
	dir := t.TempDir()
	codes := "code,n\n00E009,1\n0000E0,2\n000E40,3\n00C1,4\n0041,5\n"
	q := scan.Query{Filters: []scan.Cond{{Col: "code", Op: scan.OpEq, Value: "0000E0"}}, Sum: []string{"n"}, Min: []string{"code"}}
	for _, p := range []string{writeFile(t, filepath.Join(dir, "codes.csv"), codes), writeFile(t, filepath.Join(dir, "codes.csv.gz"), gzipOf([]byte(codes))), "-"} {
		got, err := runStaged(t, []string{p}, 0, []byte(codes), q)
		if err != nil || got.Matched != 1 || got.Sums[0].String() != "2" || got.Words[1].MinText.Text != "0000E0" {
			t.Errorf("%s: %+v, %v; want one row, n 2, min(code) 0000E0", p, got, err)
		}
	}
	if got, err := agree(t, "codes", []string{filepath.Join(dir, "codes.csv")}, q, nil); err != nil || got.Matched != 1 {
		t.Errorf("codes every way: %+v, %v", got, err)
	}

	// A column of numbers with a stretch of NA in the middle of a file:
	// a plain file's windows find it (text: min by bytes); a compressed
	// one is judged by its head (numbers), so the NA is an error that
	// names the flags, the same staged or streamed.
	var b strings.Builder
	b.WriteString("id,v\n")
	for i := range 30000 {
		v := fmt.Sprint(i % 997)
		if i > 10000 && i < 20000 {
			v = "NA"
		}
		fmt.Fprintf(&b, "%d,%s\n", i, v)
	}
	mid := writeFile(t, filepath.Join(dir, "mid.csv"), b.String())
	qm := scan.Query{Min: []string{"v"}, Max: []string{"v"}}
	got, err := agree(t, "mid", []string{mid}, qm, nil)
	if err != nil || got.Words[0].MinText.Text != "0" || got.Words[0].MaxText.Text != "NA" {
		t.Errorf("NA in the middle of a file: %+v, %v; want text (min 0, max NA)", got.Words[0], err)
	}
	_, err = runStaged(t, []string{writeFile(t, filepath.Join(dir, "mid.csv.gz"), gzipOf([]byte(b.String())))}, 0, nil, qm)
	if !errors.Is(err, scan.ErrKind) || !strings.Contains(err.Error(), "mid.csv.gz:10003:") || !strings.Contains(err.Error(), "--types 'v=text'") {
		t.Errorf("NA past a compressed file's head: %v, want ErrKind at line 10003 naming --types", err)
	}
	// an order comparison with a number on a text column: refused
	qw := scan.Query{Filters: []scan.Cond{{Col: "v", Op: scan.OpGt, Value: "5"}}}
	if _, err := agree(t, "mid >", []string{mid}, qw, nil); !errors.Is(err, scan.ErrFilter) || !strings.Contains(err.Error(), `quote the value to compare bytes ('v>"5"')`) {
		t.Errorf("v>5 on a text column: %v", err)
	}
	qw.Types = []scan.ColumnKind{{Col: "v", Kind: scan.KindNumber, Why: "--types"}}
	if _, err := agree(t, "mid > number", []string{mid}, qw, nil); !errors.Is(err, scan.ErrKind) || !strings.Contains(err.Error(), "mid.csv:10003:") {
		t.Errorf("v>5 with --types v=number: %v, want ErrKind at the first NA", err)
	}

	// Ten archives: the sampled heads are those of files 0-3, 5-7 and 9
	// (sampled), staged or streamed, so text in file 8 alone is an error
	// there, and in file 9 makes the column text.
	for bad, want := range map[int]string{8: "f8.csv.gz:3:3", 9: ""} {
		var paths []string
		for i := range 10 {
			body := "k,v\na,1\nb,2\n"
			if i == bad {
				body = "k,v\na,1\nb,x\n"
			}
			paths = append(paths, writeFile(t, filepath.Join(t.TempDir(), fmt.Sprintf("f%d.csv.gz", i)), gzipOf([]byte(body))))
		}
		got, err := runStaged(t, paths, 0, nil, scan.Query{Max: []string{"v"}})
		switch {
		case want != "" && (!errors.Is(err, scan.ErrKind) || !strings.Contains(err.Error(), want)):
			t.Errorf("x in file %d: %v, want ErrKind at %s", bad, err, want)
		case want == "" && (err != nil || got.Words[0].MaxText.Text != "x"):
			t.Errorf("x in file %d: %+v, %v, want text, max x", bad, got.Words, err)
		}
	}
}

// BenchmarkDecide is what deciding kinds costs a run: 8 Sales files
// (every one sampled), a text column (settled by its first value) and a
// number column (the whole sample judged). docs/query.md quotes it.
func BenchmarkDecide(b *testing.B) {
	dir := b.TempDir()
	if err := data.Generate(dir, data.Options{Rows: 400000, Files: 8, Seed: 1}, false, nil); err != nil {
		b.Fatal(err)
	}
	paths, _ := input.ExpandPaths([]string{dir})
	for _, col := range []string{"Region", "Units Sold"} {
		b.Run(col, func(b *testing.B) {
			q := scan.Query{Min: []string{col}, Kinds: []scan.ColumnKind{}}
			s, err := Open(paths, q, input.Mmap, input.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for b.Loop() {
				s.Query.Kinds = nil
				if err := s.decide(len(paths)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// MPI's rank 0 decides the kinds for every rank from every input it holds
// (the first inputs; the rest may be other hosts' files), or, holding
// none, leaves every rank reading values as they look; any other error
// is every rank's.
func TestDecideAll(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, filepath.Join(dir, "a.csv"), "code,n\n00C1,1\n")
	q := scan.Query{Min: []string{"code"}}
	kinds, why := decideAll(Config{Paths: []string{a, filepath.Join(dir, "elsewhere.csv")}, Query: q})
	if why != "" || len(kinds) != 1 || kinds[0].Kind != scan.KindText {
		t.Errorf("the first file here: %+v %q", kinds, why)
	}
	if kinds, why = decideAll(Config{Paths: []string{filepath.Join(dir, "elsewhere.csv")}, Query: q}); why != "" || kinds == nil || len(kinds) != 0 {
		t.Errorf("no file here: %+v %q", kinds, why)
	}
	q.Types = []scan.ColumnKind{{Col: "nope", Kind: scan.KindText}}
	if _, why = decideAll(Config{Paths: []string{a}, Query: q}); !strings.Contains(why, "--types") {
		t.Errorf("a --types error: %q", why)
	}
}
