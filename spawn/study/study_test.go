package study

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"parlab/bench"
	"parlab/internal/testrun"
	"parlab/scan"
	"parlab/spawn"
)

// fakeTrial times follow Amdahl's law with f = 0.25 exactly, so the fit must
// find it; each worker's busy time is its share.
func fakeTrial(calls *[]Config) Trial {
	return func(p Config) (Sample, error) {
		*calls = append(*calls, p)
		t := 1.0
		switch p.Strategy {
		case Floor:
			t = 0.1 / float64(p.Workers)
		case Baseline:
		default:
			t = 0.25 + 0.75/float64(p.Workers)
		}
		busy := make([]float64, p.Workers)
		for i := range busy {
			busy[i] = t * float64(i+1) / float64(p.Workers) // the last is busiest
		}
		return Sample{Seconds: t, Phases: []Phase{{"setup", 0.01}, {"scan", t - 0.01}},
			Busy: busy, Units: make([]int, p.Workers), Answer: answer(42)}, nil
	}
}

// answer is an answer with n matches.
func answer(n int64) *scan.Answer { return &scan.Answer{Result: scan.Result{Matched: n}} }

func configs() []Config {
	c := []Config{{Strategy: Baseline, Split: spawn.SplitNone, Workers: 1}}
	for _, n := range []int{1, 2, 4, 8} {
		c = append(c, Config{spawn.Goroutines{}, spawn.SplitRows, n}, Config{Floor, spawn.SplitRows, n})
	}
	return c
}

func TestRunInterleavesAndAnalyzes(t *testing.T) {
	var calls []Config
	d := &Doc{Env: Env{Cores: 4}}
	rounds := 0
	err := Run(d, configs(), fakeTrial(&calls), answer(42), Options{Trials: 3, Warmup: 1,
		OnRound: func(*Doc) error { rounds++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	cs := configs()
	if len(calls) != 4*len(cs) || calls[0] != cs[0] || calls[1] != cs[1] || calls[len(cs)] != cs[0] {
		t.Errorf("not round-robin: %v", calls[:len(cs)+1])
	}
	if rounds != 3 {
		t.Errorf("%d rounds reported, want 3 (warmup not recorded)", rounds)
	}
	g4 := d.Find(Config{spawn.Goroutines{}, spawn.SplitRows, 4})
	if len(g4.Times) != 3 || !near(g4.Speedup, 1/(0.25+0.75/4), 1e-12) ||
		!near(g4.Efficiency, g4.Speedup/4, 1e-12) || !near(g4.KarpFlatt, 0.25, 1e-12) ||
		!near(g4.FloorMultiple, (0.25+0.75/4)/(0.1/4), 1e-12) || !near(g4.Imbalance, 4/2.5, 1e-12) ||
		!near(g4.FloorPaired, g4.FloorMultiple, 1e-12) || !math.IsNaN(g4.FloorLo) {
		t.Errorf("goroutines/rows/4: %+v", g4)
	}
	if len(d.Floor) != 4 || len(d.Amdahl) != 1 {
		t.Fatalf("floor %d, amdahl %d", len(d.Floor), len(d.Amdahl))
	}
	a := d.Amdahl[0]
	if !near(a.F, 0.25, 1e-9) || !near(a.Ceiling, 4, 1e-6) || a.OnePointN != 4 || !near(a.OnePointF, 0.25, 1e-9) {
		t.Errorf("amdahl %+v", a)
	}
	// 8 workers on 4 cores: oversubscribed, left out of the fit by default
	if len(a.Excluded) != 1 || a.Excluded[0] != 8 || a.Predicted[3].Workers != 8 {
		t.Errorf("excluded %v", a.Excluded)
	}
}

func TestRunChecksEveryAnswer(t *testing.T) {
	n := 0
	trial := func(p Config) (Sample, error) {
		n++
		ans := answer(42)
		if n == 5 {
			ans = answer(41)
		}
		return Sample{Seconds: 1, Answer: ans}, nil
	}
	err := Run(&Doc{}, []Config{{Strategy: Baseline, Split: spawn.SplitNone, Workers: 1}}, trial, answer(42), Options{Trials: 10})
	if err == nil || !strings.Contains(err.Error(), "wrong answer matched=41") {
		t.Errorf("err %v", err)
	}
	boom := errors.New("boom")
	err = Run(&Doc{}, []Config{{Strategy: Baseline, Split: spawn.SplitNone, Workers: 1}}, func(Config) (Sample, error) { return Sample{}, boom }, answer(0), Options{Trials: 1})
	if !errors.Is(err, boom) {
		t.Errorf("err %v", err)
	}
}

// The document is valid JSON with the promised fields, has no NaN or Inf,
// and reads back to the same analysis.
func TestJSONRoundTrip(t *testing.T) {
	var calls []Config
	d := &Doc{Env: Env{Cores: 4, CPU: "test cpu", Files: 20, Rows: 1000, Bytes: 123, Populate: true},
		Expected: Expected{Matched: 42, Sums: []NamedValue{{"Total Revenue", "1.50"}, {"Total Profit", "-0.25"}}}}
	if err := Run(d, configs(), fakeTrial(&calls), answer(42), Options{Trials: 1}); err != nil {
		t.Fatal(err)
	}
	b, _ := d.MarshalJSON()
	var doc struct {
		Env struct {
			Cores    int
			Populate bool
		}
		Expected struct {
			Matched int64
			Sums    map[string]string
		}
		Results []struct {
			Parameters struct {
				Strategy, Split string
				Workers         int
			}
			Mean, Median, Min, Max float64
			Stddev                 *float64
			Times                  []float64
			Speedup                *float64
			RowCost                *float64 `json:"row_cost"`
		}
		Floor  []struct{ Workers int }
		Amdahl []struct {
			Strategy, Split string
			SerialFraction  float64 `json:"serial_fraction"`
			R2, Ceiling     float64
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, b)
	}
	if doc.Env.Cores != 4 || !doc.Env.Populate || doc.Expected.Matched != 42 || doc.Expected.Sums["Total Profit"] != "-0.25" ||
		len(doc.Results) != 9 || len(doc.Floor) != 4 || len(doc.Amdahl) != 1 ||
		!near(doc.Amdahl[0].SerialFraction, 0.25, 1e-9) || doc.Amdahl[0].Strategy != "goroutines" {
		t.Errorf("fields: %+v", doc)
	}
	for _, r := range doc.Results {
		if r.Stddev != nil {
			t.Error("stddev of one run written")
		}
		if (r.Parameters.Strategy == Floor.Name()) != (r.Speedup == nil) {
			t.Errorf("%+v: speedup presence", r.Parameters)
		}
		// goroutines/rows/2: 0.625 s, busy 0.3125 and 0.625 s, 1000 rows
		if p := r.Parameters; p.Strategy == "goroutines" && p.Workers == 2 && (r.RowCost == nil || !near(*r.RowCost, 0.9375e-3, 1e-12)) {
			t.Errorf("%+v: row_cost %v, want 0.0009375", p, r.RowCost)
		}
	}
	s := string(b)
	if strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
		t.Error("NaN or Inf in JSON")
	}
	back, err := ParseDoc(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := back.MarshalJSON()
	if string(b2) != string(b) {
		t.Errorf("round trip differs:\n%s\n%s", b, b2)
	}
	if _, err := ParseDoc([]byte(`{"x":1}`)); err == nil {
		t.Error("a non-bench file parsed")
	}
	// a negative time, busy time or phase is refused, naming what
	for _, bad := range []struct{ from, to string }{
		{`"times":[`, `"times":[-1,`}, {`"busy":[`, `"busy":[-0.5,`}, {`"phases":{"`, `"phases":{"neg":-2,"`},
	} {
		if !strings.Contains(s, bad.from) {
			t.Fatalf("no %s in the document", bad.from)
		}
		broken := strings.Replace(s, bad.from, bad.to, 1)
		if _, err := ParseDoc([]byte(broken)); err == nil || !strings.Contains(err.Error(), "-") {
			t.Errorf("%s: %v", bad.to, err)
		}
	}
	_ = math.Pi
}

func TestTextReport(t *testing.T) {
	var calls []Config
	d := &Doc{Env: Env{Cores: 4, CPU: "test cpu", Data: "data/x", Files: 20, Rows: 1000, Bytes: 1e9, Query: "Region=Europe", IO: "mmap"}}
	cs := append(configs(), Config{spawn.Goroutines{}, spawn.SplitFileNaive, 8}, Config{spawn.Processes{}, spawn.SplitRows, 4}, Config{spawn.Goroutines{}, spawn.SplitRows, 16})
	if err := Run(d, cs, fakeTrial(&calls), answer(42), Options{Trials: 2}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	d.WriteText(&b)
	out := b.String()
	for _, want := range []string{"only 2 trial(s)", "oversubscription", "Amdahl", "25.0%", "ceiling",
		"file-naive", "1.00 ×  0.00  ~ no significant difference", "Floor", "× floor"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	var c strings.Builder
	Compare(&c, d, d)
	if !strings.Contains(c.String(), "geometric mean of new/old: 1.000") || !strings.Contains(c.String(), "~") {
		t.Errorf("compare:\n%s", c.String())
	}
}

func TestPlots(t *testing.T) {
	testrun.FullRunOnly(t, "drawing in one goroutine")
	var calls []Config
	d := &Doc{Env: Env{Cores: 4, Query: "Region=Europe", Rows: 1000, Bytes: 1e6}}
	cs := append(configs(), Config{spawn.Goroutines{}, spawn.SplitFileNaive, 2}, Config{spawn.Goroutines{}, spawn.SplitFileNaive, 8})
	if err := Run(d, cs, fakeTrial(&calls), answer(42), Options{Trials: 2}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := d.Plot(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 8 { // speedup, time, trials, busy: PNG and SVG each
		t.Fatalf("files %v", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || len(b) < 1000 {
			t.Errorf("%s: %d bytes, %v", f, len(b), err)
		}
		if strings.HasSuffix(f, ".png") && string(b[1:4]) != "PNG" {
			t.Errorf("%s is not a PNG", f)
		}
	}
	// what a reader needs is in the speedup figure: the projection past the
	// cores, the best configuration marked, the machine named
	svg, _ := os.ReadFile(filepath.Join(dir, "speedup.svg"))
	for _, want := range []string{"dashed: the fit projected past the cores", "its Amdahl fit", "best: goroutines/rows/8", "4 cores", "Region=Europe"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("speedup.svg lacks %q", want)
		}
	}
	// the projection starts at the core count: fitted solid to 4, dashed past
	names, figs := d.Figures(nil)
	if names[0] != "speedup" {
		t.Fatalf("figures %v", names)
	}
	keys := 0
	for _, s := range figs[0].Series {
		if len(s.Points) == 0 { // a key: the fits' legend line, once
			keys++
			continue
		}
		if s.Projected && s.Points[0].X != 4 {
			t.Errorf("a projection starts at %v workers, not at the 4 cores", s.Points[0].X)
		}
		if s.Fit && !s.Projected && s.Points[len(s.Points)-1].X > 4 {
			t.Errorf("%q drawn solid to %v workers, past the 4 cores", s.Label, s.Points[len(s.Points)-1].X)
		}
		if s.Fit && s.Label != "" && s.Label != "ideal (speedup = workers)" {
			t.Errorf("a fit has a legend line of its own: %q", s.Label)
		}
	}
	if keys != 2 {
		t.Errorf("%d legend keys, want the fits' and the projections'", keys)
	}
}

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenDoc is a known run, its figures fixed by the fake trial.
func goldenDoc(t *testing.T) *Doc {
	t.Helper()
	var calls []Config
	d := &Doc{Env: Env{Cores: 4, CPU: "test cpu", GOMAXPROCS: 4, Go: "go1.26", Kernel: "6.18", Data: "data/sales-1M",
		Files: 20, Rows: 1000000, Bytes: 123600000, Query: "Region=Europe", IO: "mmap", ForkExecSelf: 0.0012}}
	cs := []Config{{Strategy: Baseline, Split: spawn.SplitNone, Workers: 1}}
	for _, sp := range []spawn.Split{spawn.SplitFileNaive, spawn.SplitRows} {
		for _, n := range []int{1, 2, 4, 8} {
			cs = append(cs, Config{spawn.Goroutines{}, sp, n}, Config{spawn.Processes{}, sp, n})
		}
	}
	for _, n := range []int{1, 2, 4, 8} {
		cs = append(cs, Config{Floor, spawn.SplitRows, n})
	}
	if err := Run(d, cs, fakeTrial(&calls), answer(42), Options{Trials: 5, Warmup: 1}); err != nil {
		t.Fatal(err)
	}
	return d
}

// golden compares got with testdata/name (go test -update rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(p, []byte(got), 0o644)
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n%s", name, p, got)
	}
}

// The text report of a known run, word for word.
func TestTextGolden(t *testing.T) {
	var b strings.Builder
	goldenDoc(t).WriteText(&b)
	golden(t, "report.golden", b.String())
}

// The Markdown report and the CSV table of the same run.
func TestMarkdownAndCSVGolden(t *testing.T) {
	d := goldenDoc(t)
	var md, c strings.Builder
	d.WriteMarkdown(&md)
	golden(t, "report.md.golden", md.String())
	if err := d.WriteCSV(&c); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.csv.golden", c.String())
	recs, err := csv.NewReader(strings.NewReader(c.String())).ReadAll()
	if err != nil || len(recs) != 18 || recs[0][0] != "strategy" {
		t.Errorf("CSV: %d records, %v", len(recs), err)
	}
}

var svgElement = regexp.MustCompile(`(?s)<svg.*?</svg>`)

// The HTML page of the same run: golden with each figure's SVG body cut
// out (gonum's drawing is checked apart below), self-contained, and every
// figure there with what a reader needs in it.
func TestHTMLGolden(t *testing.T) {
	d := goldenDoc(t)
	var b strings.Builder
	if err := d.WriteHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	svgs := svgElement.FindAllString(page, -1)
	golden(t, "report.html.golden", svgElement.ReplaceAllString(page, "<svg>…</svg>"))
	if len(svgs) != 4 { // speedup, time, trials, busy
		t.Errorf("%d figures in the page", len(svgs))
	}
	for _, want := range []string{"dashed: the fit projected past the cores", "best: goroutines/file-naive/8"} {
		if !strings.Contains(svgs[0], want) {
			t.Errorf("the speedup figure lacks %q", want)
		}
	}
	for _, banned := range []string{"<script", "<link", "src=\"http", "href=\"http", "@import"} {
		if strings.Contains(page, banned) {
			t.Errorf("the page is not self-contained: %s", banned)
		}
	}
}

func TestRowCost(t *testing.T) {
	r := Result{Busy: []float64{0.3, 0.5}}
	if got := r.RowCost(100e6); !near(got, 8e-9, 1e-18) {
		t.Errorf("row cost %v, want 8 ns", got)
	}
	if got := r.RowCost(0); !math.IsNaN(got) {
		t.Errorf("no rows: %v, want NaN", got)
	}
	if got := (&Result{}).RowCost(100); !math.IsNaN(got) {
		t.Errorf("no busy times: %v, want NaN", got)
	}
}

func TestImbalance(t *testing.T) {
	// busy 4, 2, 0: mean 2, busiest 4
	if got := bench.Imbalance([]float64{4, 2, 0}); got != 2 {
		t.Errorf("imbalance %v, want 2", got)
	}
	if got := bench.Imbalance([]float64{0, 0}); got != 1 {
		t.Errorf("no work at all: %v, want 1", got)
	}
}

// Ratios are taken round by round: a configuration 1.20, 1.21, … 1.26
// times the floor in rounds 1 to 7 has the median 1.23 and, with 7 rounds,
// the interval from the least to the greatest; processes against
// goroutines likewise.
func TestPairedRatios(t *testing.T) {
	seen := map[Config]int{}
	trial := func(p Config) (Sample, error) {
		k := float64(seen[p])
		seen[p]++
		s := 0.1 * (1 + k) // the machine drifts: every round is slower
		switch p.Strategy {
		case spawn.Goroutines{}:
			s *= 1.20 + 0.01*k
		case spawn.Processes{}:
			s *= (1.20 + 0.01*k) * (1.10 - 0.01*k)
		}
		return Sample{Seconds: s, Busy: make([]float64, p.Workers), Units: make([]int, p.Workers), Answer: answer(42)}, nil
	}
	cs := []Config{{Strategy: Baseline, Split: spawn.SplitNone, Workers: 1}, {spawn.Goroutines{}, spawn.SplitRows, 2}, {spawn.Processes{}, spawn.SplitRows, 2}, {Floor, spawn.SplitRows, 2}}
	d := &Doc{Env: Env{Cores: 2}}
	if err := Run(d, cs, trial, answer(42), Options{Trials: 7}); err != nil {
		t.Fatal(err)
	}
	g := d.Find(Config{spawn.Goroutines{}, spawn.SplitRows, 2})
	if !near(g.FloorPaired, 1.23, 1e-9) || !near(g.FloorLo, 1.20, 1e-9) || !near(g.FloorHi, 1.26, 1e-9) {
		t.Errorf("paired %v (%v … %v), want 1.23 (1.20 … 1.26)", g.FloorPaired, g.FloorLo, g.FloorHi)
	}
	var b strings.Builder
	d.WriteText(&b)
	for _, want := range []string{`\n +goroutines/rows/2 +1\.23 × +1\.20 … 1\.26\n`, `1\.07 × \(1\.04 … 1\.10\)`} {
		if !regexp.MustCompile(want).MatchString(b.String()) {
			t.Errorf("report lacks %s:\n%s", want, b.String())
		}
	}
}

// Trials that read from disk are counted and named, the page cache's share
// is asked before the first round and after the last, and both survive the
// JSON; with --cold, reading from disk is the point and draws no warning.
func TestDiskReads(t *testing.T) {
	cs := []Config{{Strategy: Baseline, Split: spawn.SplitNone, Workers: 1}, {spawn.Goroutines{}, spawn.SplitRows, 2}}
	n := 0
	trial := func(p Config) (Sample, error) {
		n++
		s := Sample{Seconds: 1, Answer: answer(42)}
		if n == 1 || (p.Strategy == spawn.Goroutines{} && n >= 5) {
			s.DiskRead = 4096 * 1000 // the warmup's first trial, and goroutines in rounds 2 and 3
		}
		return s, nil
	}
	asked := [][2]float64{{0.25, 0.95}, {0.5, 0.8}} // resident, and of that in 2 MiB folios
	resident := func() (float64, float64, error) {
		f := asked[0]
		asked = asked[1:]
		return f[0], f[1], nil
	}
	d := &Doc{}
	if err := Run(d, cs, trial, answer(42), Options{Trials: 3, Warmup: 1, Resident: resident}); err != nil {
		t.Fatal(err)
	}
	if d.Cache == nil || *d.Cache != (PageCache{0.25, 0.5, 0.95, 0.8}) || len(asked) != 0 {
		t.Fatalf("cache %+v, %d answers unused", d.Cache, len(asked))
	}
	seq, g := d.Find(cs[0]), d.Find(cs[1])
	if len(seq.DiskTrials) != 0 || len(g.DiskTrials) != 2 || g.DiskTrials[0] != 2 || g.DiskTrials[1] != 3 || g.DiskRead != 2*4096000 {
		t.Errorf("seq %v, goroutines %v %d", seq.DiskTrials, g.DiskTrials, g.DiskRead)
	}
	var b strings.Builder
	d.WriteText(&b)
	for _, want := range []string{"Page cache (mincore): 25.0% of the data set's pages resident before the first round, 50.0% after the last.",
		"trials that read from disk (8.2 MB in all): goroutines/rows/2 (2 of 3)",
		"Of those, in 2 MiB folios (one page-table entry each; smaps FilePmdMapped): 95.0% before, 80.0% after.",
		"only 95.0% of the data set's cached pages were in 2 MiB folios (80.0% at the end)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "no warmup round") {
		t.Errorf("a warmup round was run:\n%s", b.String())
	}
	js, _ := d.MarshalJSON()
	back, err := ParseDoc(js)
	if err != nil {
		t.Fatal(err)
	}
	if back.Cache == nil || *back.Cache != *d.Cache || back.Find(cs[1]).DiskRead != g.DiskRead || len(back.Find(cs[1]).DiskTrials) != 2 {
		t.Errorf("JSON lost them: %s", js)
	}

	if sizeText(4096) != "4.1 kB" || sizeText(8192000) != "8.2 MB" {
		t.Errorf("sizes: %s, %s", sizeText(4096), sizeText(8192000))
	}

	// No warmup and a part-empty cache: the first round read from disk.
	asked = [][2]float64{{0.9, math.NaN()}, {1, math.NaN()}} // folios unknown: not mentioned
	d = &Doc{}
	if err := Run(d, cs, trial, answer(42), Options{Trials: 1, Resident: resident}); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	d.WriteText(&b)
	if !strings.Contains(b.String(), "only 90.0% of the data set was in the page cache at the start, and there was no warmup round") || strings.Contains(b.String(), "folios") {
		t.Errorf("no warning of a cold first round:\n%s", b.String())
	}
	d.Cold = true
	d.Cache.HugeStart, d.Cache.HugeEnd = 0.5, 0.5
	b.Reset()
	d.WriteText(&b)
	if strings.Contains(b.String(), "read from disk") || strings.Contains(b.String(), "Page cache (mincore)") || strings.Contains(b.String(), "folios") {
		t.Errorf("--cold warned of what it asked for:\n%s", b.String())
	}
}

// A floor that moves by over 30% between rounds is pointed out.
func TestFloorMoved(t *testing.T) {
	n := 0
	trial := func(p Config) (Sample, error) {
		s := Sample{Seconds: 0.05, Answer: answer(42)}
		if p.Strategy == Floor {
			n++
			s.Seconds = 0.02 + 0.01*float64(n%3) // 20 to 40 ms
		}
		return s, nil
	}
	d := &Doc{}
	cs := []Config{{Strategy: Baseline, Split: spawn.SplitNone, Workers: 1}, {spawn.Goroutines{}, spawn.SplitRows, 2}, {Floor, spawn.SplitRows, 2}}
	if err := Run(d, cs, trial, answer(42), Options{Trials: 6}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	d.WriteText(&b)
	if !regexp.MustCompile(`\n +2 +30\.0 ms +0\.0 +20\.0 ms … 40\.0 ms\n`).MatchString(b.String()) || !strings.Contains(b.String(), "The floor moved by over 30%") {
		t.Errorf("report:\n%s", b.String())
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
