package study

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"parlab/bench"
	"parlab/input"
	"parlab/spawn"
)

// dur formats seconds as hyperfine does: ms below a second.
func dur(s float64) string {
	switch {
	case math.IsNaN(s):
		return "-"
	case s < 1:
		return fmt.Sprintf("%.1f ms", s*1e3)
	}
	return fmt.Sprintf("%.3f s", s)
}

// sizeText renders a byte count in kB or MB.
func sizeText(n int64) string {
	if n < 1e6 {
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// cachePct renders a page-cache fraction: 100% only when it is all.
func cachePct(f float64) string {
	switch {
	case math.IsNaN(f):
		return "-"
	case f >= 1:
		return "100%"
	}
	return fmt.Sprintf("%.1f%%", math.Min(100*f, 99.9))
}

func num(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// Sections is the report as tables, in order: the setting, the main table,
// processes against goroutines, the Amdahl fits and their predictions, the
// work a row, the file splits' load imbalance, the floor, and warnings. Each
// renderer (WriteText, WriteMarkdown, the CSV and HTML of package report
// users) takes these, so every figure is computed once.
func (d *Doc) Sections() []bench.Table {
	var out []bench.Table
	add := func(t *bench.Table) {
		if t != nil {
			out = append(out, *t)
		}
	}
	add(d.setting())
	add(d.mainTable())
	add(d.headToHead())
	for _, t := range d.amdahlTables() {
		add(t)
	}
	add(d.rowCostTable())
	add(d.imbalanceTable())
	for _, t := range d.floorTables() {
		add(t)
	}
	add(d.warnings())
	return out
}

// WriteText writes the report's sections as text.
func (d *Doc) WriteText(w io.Writer) {
	for i, t := range d.Sections() {
		if i == 1 && t.Title == "" {
			fmt.Fprintln(w)
		}
		t.WriteText(w)
	}
}

// WriteMarkdown writes the report's sections as Markdown.
func (d *Doc) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "## parlab bench: %s\n", d.Env.Query)
	for _, t := range d.Sections() {
		t.WriteMarkdown(w)
	}
}

// WriteCSV writes the main table as CSV: one row a configuration.
func (d *Doc) WriteCSV(w io.Writer) error { return d.mainTable().WriteCSV(w) }

// setting is the report's head: what ran where, and how to read it.
func (d *Doc) setting() *bench.Table {
	e := d.Env
	t := &bench.Table{ID: "setting"}
	line := func(format string, args ...any) { t.Intro = append(t.Intro, fmt.Sprintf(format, args...)) }
	pages := ""
	if e.IO == "mmap" {
		pages = ", pages faulted in during the scan"
		if e.Populate {
			pages = ", pages populated before the scan (--populate)"
		}
	}
	line("parlab bench: %s over %s (%d files, %d rows, %.1f MB), --io %s%s", e.Query, e.Data, e.Files, e.Rows, float64(e.Bytes)/1e6, e.IO, pages)
	line("machine: %s, %d cores, GOMAXPROCS %d, %s, Linux %s", e.CPU, e.Cores, e.GOMAXPROCS, e.Go, e.Kernel)
	cache := "warm page cache"
	if d.Cold {
		cache = "cold: the data set's pages evicted before every trial (posix_fadvise DONTNEED)"
	}
	line("%d trials after %d warmup round(s), configurations interleaved round by round; %s.", d.Trials, d.Warmup, cache)
	if c := d.Cache; c != nil && !d.Cold {
		line("Page cache (mincore): %s of the data set's pages resident before the first round, %s after the last.", cachePct(c.Start), cachePct(c.End))
		if !math.IsNaN(c.HugeStart) && !math.IsNaN(c.HugeEnd) {
			line("Of those, in 2 MiB folios (one page-table entry each; smaps FilePmdMapped): %s before, %s after.", cachePct(c.HugeStart), cachePct(c.HugeEnd))
		}
	}
	line("Times are one query in this process, open+map to merge (medians). The processes strategy")
	line("starts fresh child processes in every trial, so its times include starting them.")
	maxW := 0
	for _, r := range d.Results {
		maxW = max(maxW, r.Workers)
	}
	if e.Cores > 0 && maxW > e.Cores {
		s := fmt.Sprintf("Note: this machine has %d cores and the sweep goes to %d workers: past %d, workers share\ncores (oversubscription). Those points are shown but left out of the Amdahl fits", e.Cores, maxW, e.Cores)
		if d.IncludeOversubscribed {
			s += " (here: included, --fit-all)"
		}
		s += ",\nand have no Karp-Flatt or one-point f: a serial fraction means nothing where workers wait for cores"
		t.Intro = append(t.Intro, strings.Split(s+".", "\n")...)
	}
	return t
}

// mainTable is one row a configuration (the floor's apart).
func (d *Doc) mainTable() *bench.Table {
	t := &bench.Table{ID: "results", Left: []int{1},
		Header: []string{"strategy", "split", "workers", "median", "min … max", "speedup", "efficiency", "Karp-Flatt", "busiest/mean", "× floor"}}
	for _, r := range d.Results {
		if r.Strategy == Floor || len(r.Times) == 0 {
			continue
		}
		split := r.Split.String()
		if r.Strategy == Baseline {
			split = "-"
		}
		t.Rows = append(t.Rows, []string{r.Strategy.Name(), split, fmt.Sprint(r.Workers), dur(r.Median),
			dur(r.Min) + " … " + dur(r.Max), num(r.Speedup, 2), num(r.Efficiency, 2),
			num(r.KarpFlatt, 3), num(r.Imbalance, 2), num(floorTimes(r), 1)})
	}
	return t
}

// headToHead is processes against goroutines at each split and worker count.
func (d *Doc) headToHead() *bench.Table {
	t := &bench.Table{ID: "processes-vs-goroutines", Title: "Processes against goroutines (ratio of means, ± from both spreads):",
		Left:   []int{4},
		Header: []string{"split", "workers", "processes / goroutines", "±", "verdict", "round by round (95% CI)", "spawn phase"}}
	for _, r := range d.Results {
		if !r.Strategy.Caps().Children {
			continue
		}
		g := d.Find(Config{spawn.Goroutines{}, r.Split, r.Workers})
		if g == nil || len(g.Times) == 0 {
			continue
		}
		ratio, pm := bench.Ratio(r.Summary, g.Summary)
		verdict := "slower"
		if ratio < 1 {
			verdict = "faster"
		}
		if bench.MannWhitney(r.Times, g.Times) >= 0.05 {
			verdict = "~ no significant difference"
			if min(len(r.Times), len(g.Times)) < 4 {
				verdict += " (too few trials for the test to show one)"
			}
		}
		spawnPhase := "-"
		for _, p := range r.Phases {
			if p.Name == "spawn" {
				spawnPhase = dur(p.Seconds)
			}
		}
		paired := "-"
		if len(r.Times) == len(g.Times) { // one time a round each
			ratios := make([]float64, len(r.Times))
			for k, tm := range r.Times {
				ratios[k] = tm / g.Times[k]
			}
			if med, lo, hi := bench.MedianCI(ratios); !math.IsNaN(lo) {
				paired = fmt.Sprintf("%.2f × (%.2f … %.2f)", med, lo, hi)
			}
		}
		t.Rows = append(t.Rows, []string{r.Split.String(), fmt.Sprint(r.Workers), num(ratio, 2) + " ×", num(pm, 2), verdict, paired, spawnPhase})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	if d.Env.ForkExecSelf > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("Starting and ending one worker process costs %s here (the spawn lab's forkexec-self,", dur(d.Env.ForkExecSelf)),
			"measured before the sweep): the spawn phase of N workers is N of those at least, on top",
			"of each child mapping the files itself. Goroutines start in about a microsecond.")
	}
	return t
}

// amdahlTables are the fits, and their predictions against the medians.
func (d *Doc) amdahlTables() []*bench.Table {
	if len(d.Amdahl) == 0 {
		return nil
	}
	fits := &bench.Table{ID: "amdahl", Title: "Amdahl's law, T(n) = T1·(f + (1−f)/n), fitted by least squares over the worker counts:",
		Left:   []int{1},
		Header: []string{"strategy", "split", "serial f", "R²", "ceiling 1/f", "points", "left out", "one-point f (reference's way)"}}
	pred := &bench.Table{ID: "predicted", Title: "Predicted against measured (median) time:",
		Left: []int{1}, Header: []string{"strategy", "split", "workers", "measured", "predicted"}}
	for _, a := range d.Amdahl {
		var ex []string
		for _, n := range a.Excluded {
			ex = append(ex, fmt.Sprint(n))
		}
		one := "-"
		if a.OnePointN > 0 {
			one = fmt.Sprintf("%s at %d", pct(a.OnePointF), a.OnePointN)
		}
		ceil := num(a.Ceiling, 1) + "×"
		if math.IsInf(a.Ceiling, 1) {
			ceil = "∞"
		}
		fits.Rows = append(fits.Rows, []string{a.Strategy.Name(), a.Split.String(), pct(a.F), num(a.R2, 3), ceil,
			fmt.Sprint(a.Points), strings.Join(ex, ","), one})
		for _, p := range a.Predicted {
			pred.Rows = append(pred.Rows, []string{a.Strategy.Name(), a.Split.String(), fmt.Sprint(p.Workers), dur(p.Measured), dur(p.Predicted)})
		}
	}
	return []*bench.Table{fits, pred}
}

func pct(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*f)
}

// rowCostTable is the work a row took (Result.RowCost) at each worker
// count, for each strategy and split: flat means the workers did not slow
// each other.
func (d *Doc) rowCostTable() *bench.Table {
	var names []string
	cost := map[string]map[int]float64{}
	var counts []int
	for i := range d.Results {
		r := &d.Results[i]
		c := r.RowCost(d.Env.Rows)
		if math.IsNaN(c) || len(r.Times) == 0 {
			continue
		}
		name := r.Strategy.Name()
		if r.Strategy != Baseline && r.Strategy != Floor {
			name += "/" + r.Split.String()
		}
		if cost[name] == nil {
			cost[name] = map[int]float64{}
			names = append(names, name)
		}
		cost[name][r.Workers] = c
		if !slices.Contains(counts, r.Workers) {
			counts = append(counts, r.Workers)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(counts)
	t := &bench.Table{ID: "row-cost", Title: "Work a row:",
		Intro: []string{fmt.Sprintf("Every worker's busy time added up, over the %d rows (median trial). Workers that", d.Env.Rows),
			"do not slow each other keep one worker's figure. A rise (most/1: the largest over 1 worker's) is",
			"contention, for the memory bus or, past the core count, for the cores (busy time is wall time),",
			"which Amdahl's fit counts as serial:"},
		Header: []string{"workers"}}
	for _, n := range counts {
		t.Header = append(t.Header, fmt.Sprint(n))
	}
	t.Header = append(t.Header, "most/1")
	for _, name := range names {
		row := []string{name}
		one, hasOne := cost[name][1]
		rise := 0.0
		for _, n := range counts {
			c, ok := cost[name][n]
			if !ok {
				row = append(row, "")
				continue
			}
			row = append(row, perRow(c))
			if hasOne && n > 1 {
				rise = max(rise, c/one)
			}
		}
		if rise == 0 {
			row = append(row, "-")
		} else {
			row = append(row, fmt.Sprintf("%.2f ×", rise))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// perRow renders a time a row: in ns below a microsecond.
func perRow(s float64) string {
	switch {
	case s < 1e-6:
		return fmt.Sprintf("%.1f ns", s*1e9)
	case s < 1e-3:
		return fmt.Sprintf("%.2f µs", s*1e6)
	}
	return dur(s)
}

// imbalanceTable explains the file splits: how many files each worker got,
// and how much of the work fell to the busiest one.
func (d *Doc) imbalanceTable() *bench.Table {
	var rows []*Result
	for i := range d.Results {
		r := &d.Results[i]
		if (r.Split == spawn.SplitFileNaive || r.Split == spawn.SplitFile) && r.Strategy != Floor && r.Workers > 1 && len(r.Units) > 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Split.String() > rows[j].Split.String() })
	t := &bench.Table{ID: "imbalance", Title: "Load imbalance of the file splits (a run lasts as long as its busiest worker):",
		Left:   []int{1, 3},
		Header: []string{"strategy", "split", "workers", "files per worker", "busiest's share", "busiest/mean", "median"}}
	for _, r := range rows {
		var us []string
		for _, u := range r.Units {
			us = append(us, fmt.Sprint(u))
		}
		var sum, most float64
		for _, b := range r.Busy {
			sum += b
			most = math.Max(most, b)
		}
		share := math.NaN()
		if sum > 0 {
			share = most / sum
		}
		t.Rows = append(t.Rows, []string{r.Strategy.Name(), r.Split.String(), fmt.Sprint(r.Workers), strings.Join(us, " "),
			pct(share), num(r.Imbalance, 2), dur(r.Median)})
	}
	return t
}

// floorTimes is r's time in floors: the round-by-round ratio's median
// where there is one, else the ratio of the medians.
func floorTimes(r Result) float64 {
	if !math.IsNaN(r.FloorPaired) {
		return r.FloorPaired
	}
	return r.FloorMultiple
}

// floorTables are the floor at each worker count, and each configuration
// against it round by round.
func (d *Doc) floorTables() []*bench.Table {
	if len(d.Floor) == 0 {
		return nil
	}
	fl := &bench.Table{ID: "floor", Title: "Floor: the same workers only counting newlines in the same mapped files (memory bandwidth):",
		Header: []string{"workers", "median", "GB/s", "min … max"}}
	moved := false
	for _, f := range d.Floor {
		gbs := float64(d.Env.Bytes) / f.Median / 1e9
		fl.Rows = append(fl.Rows, []string{fmt.Sprint(f.Workers), dur(f.Median), fmt.Sprintf("%.1f", gbs), dur(f.Min) + " … " + dur(f.Max)})
		moved = moved || f.Max > 1.3*f.Min
	}
	if moved {
		// Seen on a shared VM: the scan, bound by the cores, held still
		// while the floor, bound by the memory bus, moved.
		fl.Notes = append(fl.Notes, "The floor moved by over 30% from round to round: it is bound by the memory bus, which",
			"other programs (or, on a VM, other tenants) share. The ratios below follow it round by round.")
	}
	// The ratios taken round by round: the floor and the configuration ran
	// seconds apart, so drift in the machine's speed cancels out.
	vs := &bench.Table{ID: "floor-paired", Title: "Against the floor at the same worker count, round by round (median of the per-round ratios):",
		Header: []string{"configuration", "× floor", "95% CI"}}
	for _, r := range d.Results {
		if r.Strategy == Floor || r.Workers < 2 || math.IsNaN(r.FloorPaired) {
			continue
		}
		ci := "too few trials for an interval"
		if !math.IsNaN(r.FloorLo) {
			ci = fmt.Sprintf("%.2f … %.2f", r.FloorLo, r.FloorHi)
		}
		vs.Rows = append(vs.Rows, []string{r.Config.String(), fmt.Sprintf("%.2f ×", r.FloorPaired), ci})
	}
	if len(vs.Rows) == 0 {
		return []*bench.Table{fl}
	}
	return []*bench.Table{fl, vs}
}

// warnings is what a reader should know before trusting the figures.
func (d *Doc) warnings() *bench.Table {
	var warns, outl, slow, disk []string
	var diskRead int64
	if d.Trials < 3 {
		warns = append(warns, fmt.Sprintf("only %d trial(s) per configuration: medians have no confidence to speak of; use --trials 5 or more.", d.Trials))
	}
	for _, r := range d.Results {
		if len(r.Outliers) > 0 {
			outl = append(outl, r.Config.String())
		}
		if len(r.DiskTrials) > 0 {
			disk = append(disk, fmt.Sprintf("%v (%d of %d)", r.Config, len(r.DiskTrials), len(r.Times)))
			diskRead += r.DiskRead
		}
		if len(r.Times) >= 3 {
			rest := bench.Summarize(r.Times[1:]).Median
			if r.Times[0] > 2*rest {
				slow = append(slow, fmt.Sprintf("%v (%s, others %s)", r.Config, dur(r.Times[0]), dur(rest)))
			}
		}
	}
	if len(outl) > 0 {
		warns = append(warns, fmt.Sprintf("statistical outliers (more than 3 MADs from the median) in %d configuration(s): %s. The machine may be busy; more --trials help.", len(outl), strings.Join(outl, ", ")))
	}
	if len(disk) > 0 && !d.Cold {
		warns = append(warns, fmt.Sprintf("trials that read from disk (%s in all): %s. The page cache had lost pages they needed, of the data set or of parlab itself (evicted by memory pressure or by proactive reclaim, such as DAMON's): those times are partly the disk's. Rerun, or read them as such.", sizeText(diskRead), strings.Join(disk, ", ")))
	}
	if c := d.Cache; c != nil && !d.Cold && c.Start < 1 && d.Warmup == 0 {
		warns = append(warns, fmt.Sprintf("only %s of the data set was in the page cache at the start, and there was no warmup round: the first round read the rest from disk (use --warmup 1).", cachePct(c.Start)))
	}
	if c := d.Cache; c != nil && !d.Cold && min(c.HugeStart, c.HugeEnd) < input.HugeEnough {
		warns = append(warns, fmt.Sprintf("only %s of the data set's cached pages were in 2 MiB folios (%s at the end); the rest map 4 KiB at a time, a page fault per 16 pages and a TLB entry per page. A 10M-row query takes 1.3-2.7x as long that way (docs/pagecache.md). `parlab cache --warm PATH` puts a set in 2 MiB folios where the filesystem keeps them (ext4 from Linux 6.16, xfs; not tmpfs), as `parlab gen` writes it and a --cold run reads it back.", cachePct(c.HugeStart), cachePct(c.HugeEnd)))
	}
	if len(slow) > 0 {
		warns = append(warns, fmt.Sprintf("a first trial over twice as slow as the rest in %s: caches were cold; use --warmup.", strings.Join(slow, ", ")))
	}
	for _, a := range d.Amdahl {
		if a.Points == 2 {
			warns = append(warns, "Amdahl fits over 2 worker counts pass through both points: R² = 1 says nothing there. More cores (or --fit-all) give the fit something to test.")
			break
		}
	}
	if len(warns) == 0 {
		return nil
	}
	t := &bench.Table{ID: "warnings", Title: "Warnings:"}
	for _, s := range warns {
		t.Notes = append(t.Notes, "  "+s)
	}
	return t
}

// Compare writes, for each configuration in both, new/old (median ratio, ±
// from the spreads), marking with ~ the ones whose difference is within
// noise (Mann–Whitney p ≥ 0.05, as benchstat), and the geometric mean.
func Compare(w io.Writer, newDoc, oldDoc *Doc) {
	CompareTable(newDoc, oldDoc).WriteText(w)
}

// CompareTable is Compare's table: new/old per configuration in both.
func CompareTable(newDoc, oldDoc *Doc) *bench.Table {
	t := &bench.Table{ID: "compare", Intro: []string{fmt.Sprintf("new: %s (%s)", newDoc.Env.Started, newDoc.Env.Data),
		fmt.Sprintf("old: %s (%s)", oldDoc.Env.Started, oldDoc.Env.Data), ""},
		Header: []string{"configuration", "old median", "new median", "new/old", ""}}
	var ratios []float64
	for _, r := range newDoc.Results {
		o := oldDoc.Find(r.Config)
		if o == nil || len(o.Times) == 0 || len(r.Times) == 0 {
			continue
		}
		// the medians' ratio, with the relative spread of the means' ratio
		rm, pm := bench.Ratio(r.Summary, o.Summary)
		ratio := r.Median / o.Median
		pm *= ratio / rm
		mark := ""
		if bench.MannWhitney(r.Times, o.Times) >= 0.05 {
			mark = "~"
		}
		ratios = append(ratios, ratio)
		t.Rows = append(t.Rows, []string{r.Config.String(), dur(o.Median), dur(r.Median), num(ratio, 2) + " ± " + num(pm, 2), mark})
	}
	if len(ratios) == 0 {
		t.Header, t.Rows = nil, nil
		t.Notes = []string{"no configuration in common"}
		return t
	}
	t.Notes = []string{fmt.Sprintf("geometric mean of new/old: %.3f over %d configurations (~: within noise, Mann–Whitney p ≥ 0.05)", bench.GeoMean(ratios), len(ratios))}
	return t
}
