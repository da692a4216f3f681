package data

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"parlab/internal/civil"
)

func TestSchema(t *testing.T) {
	if len(Regions) != 7 {
		t.Errorf("%d regions, want 7", len(Regions))
	}
	seen, n := map[string]bool{}, 0
	for _, r := range Regions {
		for _, c := range r.Countries {
			if seen[c] {
				t.Errorf("country %q twice", c)
			}
			seen[c] = true
			n++
		}
		if r.Name == "Europe" && len(r.Countries) != 48 {
			t.Errorf("Europe has %d countries, want 48", len(r.Countries))
		}
	}
	if n != 185 {
		t.Errorf("%d countries, want 185", n)
	}
	if len(Items) != 12 || len(Header) != 14 {
		t.Errorf("%d items, %d columns; want 12, 14", len(Items), len(Header))
	}
}

func TestFileName(t *testing.T) {
	for i, want := range map[int]string{0: "xaa.csv", 1: "xab.csv", 19: "xat.csv", 26: "xba.csv", 675: "xzz.csv"} {
		if got := FileName(i); got != want {
			t.Errorf("FileName(%d) = %q, want %q", i, got, want)
		}
	}
}

func TestDates(t *testing.T) {
	for d := civil.Days(1999, 12, 25); d < civil.Days(2031, 3, 1); d++ {
		y, m, dd := civil.Date(d)
		want := time.Unix(int64(d)*86400, 0).UTC()
		if y != want.Year() || m != int(want.Month()) || dd != want.Day() {
			t.Fatalf("day %d: %d-%d-%d, want %s", d, y, m, dd, want.Format(time.DateOnly))
		}
		if civil.Days(y, m, dd) != d {
			t.Fatalf("civil.Days(%d,%d,%d) != %d", y, m, dd, d)
		}
	}
}

func gen(t *testing.T, o Options) string {
	t.Helper()
	dir := t.TempDir()
	if err := Generate(dir, o, false, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readAll(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = b
	}
	return m
}

// The same options give byte-identical files whatever the number of cores.
func TestDeterministic(t *testing.T) {
	o := Options{Rows: 20011, Files: 7, Seed: 42}
	a := readAll(t, gen(t, o))
	old := runtime.GOMAXPROCS(1)
	b := readAll(t, gen(t, o))
	runtime.GOMAXPROCS(old)
	if len(a) != 7 || len(b) != 7 {
		t.Fatalf("%d and %d files, want 7", len(a), len(b))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs between runs", name)
		}
	}
	c := readAll(t, gen(t, Options{Rows: 20011, Files: 7, Seed: 43}))
	if bytes.Equal(a["xaa.csv"], c["xaa.csv"]) {
		t.Error("seed 42 and 43 gave the same xaa.csv")
	}
}

// Every row obeys the schema's arithmetic, and the shares look like the
// public data set's.
func TestContent(t *testing.T) {
	o := Options{Rows: 100003, Files: 3, Seed: 1}
	dir := gen(t, o)
	price := map[string][2]int64{}
	for _, it := range Items {
		price[it.Name] = [2]int64{it.Price, it.Cost}
	}
	cents := func(s string) int64 {
		i, f, ok := strings.Cut(s, ".")
		if !ok || len(f) != 2 {
			t.Fatalf("money %q has no two decimals", s)
		}
		v, err := strconv.ParseInt(i+f, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	rows, europe := 0, 0
	for i := range o.Files {
		f, err := os.Open(filepath.Join(dir, FileName(i)))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(recs[0], ",") != strings.Join(Header, ",") {
			t.Fatalf("header %v", recs[0])
		}
		if len(recs)-1 != o.RowsIn(i) {
			t.Errorf("%s: %d rows, want %d", FileName(i), len(recs)-1, o.RowsIn(i))
		}
		for _, r := range recs[1:] {
			rows++
			if r[0] == "Europe" {
				europe++
			}
			units, _ := strconv.ParseInt(r[8], 10, 64)
			pc, ok := price[r[2]]
			if !ok || units < 1 || units > 10000 {
				t.Fatalf("bad row %v", r)
			}
			rev, cost, profit := cents(r[11]), cents(r[12]), cents(r[13])
			if cents(r[9]) != pc[0] || cents(r[10]) != pc[1] || rev != units*pc[0] ||
				cost != units*pc[1] || profit != rev-cost {
				t.Fatalf("row arithmetic wrong: %v", r)
			}
			od, err1 := time.Parse("1/2/2006", r[5])
			sd, err2 := time.Parse("1/2/2006", r[7])
			if err1 != nil || err2 != nil || sd.Before(od) || sd.Sub(od) > 50*24*time.Hour ||
				od.Year() < 2010 || od.After(time.Date(2017, 7, 28, 0, 0, 0, 0, time.UTC)) {
				t.Fatalf("bad dates in %v", r)
			}
		}
	}
	if rows != o.Rows {
		t.Fatalf("%d rows, want %d", rows, o.Rows)
	}
	// 48/185 = 25.95%; the reference had 25.94%. 4 standard deviations of a
	// binomial at n=100003 is 0.55 points.
	if share := float64(europe) / float64(rows); share < 0.254 || share > 0.265 {
		t.Errorf("Europe share %.4f, want about 0.2595", share)
	}
}

func TestRefuseNonEmpty(t *testing.T) {
	dir := t.TempDir()
	o := Options{Rows: 10, Files: 2, Seed: 1}
	if err := Generate(dir, o, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := Generate(dir, o, false, nil); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("second run: %v, want ErrNotEmpty", err)
	}
	// --force replaces the .csv files: a smaller set leaves no stale file.
	if err := Generate(dir, Options{Rows: 10, Files: 1, Seed: 1}, true, nil); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, dir); len(got) != 1 || got["xaa.csv"] == nil {
		t.Fatalf("after --force: files %v", got)
	}
	// Leftovers of an interrupted run do not count as content.
	dir2 := t.TempDir()
	os.WriteFile(filepath.Join(dir2, "xaa.csv.tmp"), []byte("partial"), 0o644)
	if err := Generate(dir2, o, false, nil); err != nil {
		t.Fatalf("with a leftover .tmp: %v", err)
	}
	// --force never removes a file gen did not write, .csv or not.
	for _, name := range []string{"mine.csv", "notes.txt", "xa.csv", "xaaa.csv", "yaa.csv"} {
		dir3 := t.TempDir()
		Generate(dir3, o, false, nil)
		os.WriteFile(filepath.Join(dir3, name), []byte("keep me"), 0o644)
		if err := Generate(dir3, o, true, nil); !errors.Is(err, ErrNotOurs) {
			t.Errorf("%s: %v, want %v", name, err, ErrNotOurs)
		}
		if b, err := os.ReadFile(filepath.Join(dir3, name)); err != nil || string(b) != "keep me" {
			t.Errorf("%s was touched: %q, %v", name, b, err)
		}
	}
}

// A run stopped part way (SIGINT in the CLI) leaves no temporary file and no
// partial set behind.
func TestGenerateStopped(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	err := GenerateContext(ctx, dir, Options{Rows: 400000, Files: 4, Seed: 1}, false, func(int64) { once.Do(cancel) })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %d files behind, the first %s", len(ents), ents[0].Name())
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{{Rows: -1, Files: 1}, {Rows: 1, Files: 0}, {Rows: 1, Files: 677}} {
		if err := Generate(t.TempDir(), o, false, nil); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestProgress(t *testing.T) {
	var mu sync.Mutex
	var last int64
	o := Options{Rows: 50000, Files: 4, Seed: 1}
	err := Generate(t.TempDir(), o, false, func(n int64) {
		mu.Lock()
		last = max(last, n) // calls interleave; keep the highest
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if last != int64(o.Rows) {
		t.Fatalf("progress ended at %d, want %d", last, o.Rows)
	}
}

func TestAppendCents(t *testing.T) {
	for c, want := range map[int64]string{0: "0.00", 5: "0.05", 12345: "123.45", -7: "-0.07", -100: "-1.00"} {
		if got := string(AppendCents(nil, c)); got != want {
			t.Errorf("AppendCents(%d) = %q, want %q", c, got, want)
		}
	}
}

// Every write but a file's last is one chunk, so each starts at a multiple
// of 2 MiB (see chunk); together they are the file, and progress hears of
// every row.
func TestWriteRowsInChunks(t *testing.T) {
	o := Options{Rows: 50000, Files: 1, Seed: 1}
	var w chunkRecorder
	rows := 0
	if err := writeRows(&w, o, 0, func(n int) { rows += n }); err != nil {
		t.Fatal(err)
	}
	if len(w.sizes) < 3 {
		t.Fatalf("%d writes: too few rows to test", len(w.sizes))
	}
	for i, n := range w.sizes {
		if last := i == len(w.sizes)-1; (!last && n != chunk) || (last && (n == 0 || n > chunk)) {
			t.Errorf("write %d of %d: %d bytes", i+1, len(w.sizes), n)
		}
	}
	if got := bytes.Count(w.all, []byte{'\n'}); got != o.Rows+1 || rows != o.Rows {
		t.Errorf("%d lines, %d rows reported, want %d rows and the header", got, rows, o.Rows)
	}
	dir := gen(t, o)
	if file := readAll(t, dir)["xaa.csv"]; !bytes.Equal(file, w.all) {
		t.Error("the writes are not the file Generate writes")
	}
}

type chunkRecorder struct {
	sizes []int
	all   []byte
}

func (c *chunkRecorder) Write(b []byte) (int, error) {
	c.sizes = append(c.sizes, len(b))
	c.all = append(c.all, b...)
	return len(b), nil
}
