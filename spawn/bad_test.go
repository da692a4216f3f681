package spawn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"parlab/input"
	"parlab/scan"
)

// Bad rows skipped (--skip-bad-rows) every way: the answer is the one
// over the file without them, the count the same, and the rejects the
// same rows at the same lines, in file order, whichever strategy, split,
// I/O mode or worker count found them, a file cut anywhere (a tiny chunk,
// a tiny read buffer), with quoted fields across lines among them; and
// staged or streamed from standard input or gzip.
func TestSkipBadRowsEveryWay(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var all, good strings.Builder
	header := "k,n,d\n"
	all.WriteString(header)
	good.WriteString(header)
	line := 2
	var wantLines []int
	for i := range 3000 {
		row := fmt.Sprintf("k%d,%d,2015-01-%02d\n", i%7, r.IntN(1000), 1+i%28)
		if i%5 == 0 {
			row = fmt.Sprintf("\"k\n%d\",%d,2015-02-01\n", i%3, i) // a quoted newline: good
		}
		bad := ""
		switch r.IntN(40) {
		case 0:
			bad = fmt.Sprintf("k%d,NA,2015-01-01\n", i%7)
		case 1:
			bad = "short\n"
		case 2:
			bad = fmt.Sprintf("k%d,\"1\"x,2015-01-01\n", i%7)
		case 3:
			bad = fmt.Sprintf("k%d,5,2015-02-30\n", i%7)
		case 4:
			bad = fmt.Sprintf("\"k\n%d\",oops,2015-01-01\n", i%7) // bad, across two lines
		}
		if bad != "" {
			all.WriteString(bad)
			wantLines = append(wantLines, line+strings.Count(bad, "\n")-1) // (the fault's line: the row's last)
			line += strings.Count(bad, "\n")
		}
		all.WriteString(row)
		good.WriteString(row)
		line += strings.Count(row, "\n")
	}
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "bad.csv"), all.String())
	g := writeFile(t, filepath.Join(dir, "good.csv"), good.String())
	q := scan.Query{By: []string{"k"}, Sum: []string{"n"}, Max: []string{"d"}, Kinds: []scan.ColumnKind{{Col: "d", Kind: scan.KindDate, Why: "test"}}, SkipBad: true}
	qg := q
	qg.SkipBad = false
	want, err := Sequential{}.Run(context.Background(), Config{Paths: []string{g}, Query: qg, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var first []scan.Reject
	for i, w := range everyWay(true) {
		c := Config{Paths: []string{p}, Query: q, Mode: w.mode, Opt: input.Options{Buffer: 300},
			Workers: w.workers, Split: w.split, Chunk: 1 << 10, Timeout: time.Minute}
		rep, err := w.st.Run(context.Background(), c)
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		got := rep.Result
		if got.Bad != int64(len(wantLines)) || got.Rows != want.Result.Rows+got.Bad || !sameAnswer(&got, &want.Result) {
			t.Fatalf("%s: %d bad of %d rows, %+v; want %d bad, the answer without them %+v", w, got.Bad, got.Rows, got.Groups, len(wantLines), want.Result.Groups)
		}
		var lines []int
		for _, x := range got.Rejects {
			lines = append(lines, int(x.Line))
		}
		if !slices.Equal(lines, wantLines) {
			t.Fatalf("%s: rejects at lines %v…, want %v…", w, lines[:min(8, len(lines))], wantLines[:min(8, len(wantLines))])
		}
		if i == 0 {
			first = got.Rejects
		} else if !slices.EqualFunc(got.Rejects, first, func(a, b scan.Reject) bool {
			return a.Line == b.Line && a.Column == b.Column && a.Reason == b.Reason && string(a.Row) == string(b.Row)
		}) {
			t.Fatalf("%s: rejects differ from %s's", w, everyWay(true)[0])
		}
	}
	if x := first[0]; x.File != p || x.Field == "" && !strings.Contains(x.Reason, "quote") {
		t.Errorf("first reject %+v", x)
	}
	// staged and streamed, from standard input and gzip: the same
	for _, in := range [][]string{{"-"}, {writeFile(t, filepath.Join(dir, "bad.csv.gz"), gzipOf([]byte(all.String())))}} {
		got, err := runStaged(t, in, 0, []byte(all.String()), q)
		if err != nil || got.Bad != int64(len(wantLines)) || !sameAnswer(&got, &want.Result) {
			t.Errorf("%s: %v, %d bad", in, err, got.Bad)
		}
	}
}

// sameAnswer: a's answer is b's, its bad rows aside (a counts them in
// Rows and Bad).
func sameAnswer(a, b *scan.Result) bool {
	x := *a
	x.Rows, x.Bad, x.Rejects, x.Quoted, x.QuotedLines = b.Rows, 0, nil, b.Quoted, b.QuotedLines
	return x.Equal(b)
}
