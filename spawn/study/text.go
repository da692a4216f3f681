package study

import (
	"parlab/bench"

	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
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

// WriteText writes the report: the main table, processes against
// goroutines, the Amdahl fits, the work a row, the load imbalance of file
// splits, the floor, and warnings.
func (d *Doc) WriteText(w io.Writer) {
	e := d.Env
	pages := ""
	if e.IO == "mmap" {
		pages = ", pages faulted in during the scan"
		if e.Populate {
			pages = ", pages populated before the scan (--populate)"
		}
	}
	fmt.Fprintf(w, "parlab bench: %s over %s (%d files, %d rows, %.1f MB), --io %s%s\n", e.Query, e.Data, e.Files, e.Rows, float64(e.Bytes)/1e6, e.IO, pages)
	fmt.Fprintf(w, "machine: %s, %d cores, GOMAXPROCS %d, %s, Linux %s\n", e.CPU, e.Cores, e.GOMAXPROCS, e.Go, e.Kernel)
	cache := "warm page cache"
	if d.Cold {
		cache = "cold: the data set's pages evicted before every trial (posix_fadvise DONTNEED)"
	}
	fmt.Fprintf(w, "%d trials after %d warmup round(s), configurations interleaved round by round; %s.\n", d.Trials, d.Warmup, cache)
	if c := d.Cache; c != nil && !d.Cold {
		fmt.Fprintf(w, "Page cache (mincore): %s of the data set's pages resident before the first round, %s after the last.\n", cachePct(c.Start), cachePct(c.End))
		if !math.IsNaN(c.HugeStart) && !math.IsNaN(c.HugeEnd) {
			fmt.Fprintf(w, "Of those, in 2 MiB folios (one page-table entry each; smaps FilePmdMapped): %s before, %s after.\n", cachePct(c.HugeStart), cachePct(c.HugeEnd))
		}
	}
	fmt.Fprintf(w, "Times are one query in this process, open+map to merge (medians). The processes strategy\nstarts fresh child processes in every trial, so its times include starting them.\n")
	maxW := 0
	for _, r := range d.Results {
		maxW = max(maxW, r.Workers)
	}
	if e.Cores > 0 && maxW > e.Cores {
		fmt.Fprintf(w, "Note: this machine has %d cores and the sweep goes to %d workers: past %d, workers share\ncores (oversubscription). Those points are shown but left out of the Amdahl fits", e.Cores, maxW, e.Cores)
		if d.IncludeOversubscribed {
			fmt.Fprint(w, " (here: included, --fit-all)")
		}
		fmt.Fprintln(w, ".")
	}

	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tsplit\tworkers\tmedian\tmin … max\tspeedup\tefficiency\tKarp-Flatt\tbusiest/mean\t× floor\t")
	for _, r := range d.Results {
		if r.Strategy == Floor || len(r.Times) == 0 {
			continue
		}
		split := r.Split
		if r.Strategy == Baseline {
			split = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s … %s\t%s\t%s\t%s\t%s\t%s\t\n", r.Strategy, split, r.Workers,
			dur(r.Median), dur(r.Min), dur(r.Max), num(r.Speedup, 2), num(r.Efficiency, 2),
			num(r.KarpFlatt, 3), num(r.Imbalance, 2), num(floorTimes(r), 1))
	}
	tw.Flush()

	d.writeHeadToHead(w)
	d.writeAmdahl(w)
	d.writeRowCost(w)
	d.writeImbalance(w)
	d.writeFloor(w)
	d.writeWarnings(w)
}

func (d *Doc) writeHeadToHead(w io.Writer) {
	var lines []string
	for _, r := range d.Results {
		if r.Strategy != "processes" {
			continue
		}
		g := d.Find(Config{"goroutines", r.Split, r.Workers})
		if g == nil || len(g.Times) == 0 {
			continue
		}
		ratio, pm := bench.Ratio(r.Summary, g.Summary)
		verdict := "slower"
		if ratio < 1 {
			verdict = "faster"
		}
		sig := ""
		if bench.MannWhitney(r.Times, g.Times) >= 0.05 {
			sig, verdict = "", "~ no significant difference"
			if min(len(r.Times), len(g.Times)) < 4 {
				sig = " (too few trials for the test to show one)"
			}
		}
		fork := ""
		for _, p := range r.Phases {
			if p.Name == "spawn" {
				fork = fmt.Sprintf("; spawn phase %s", dur(p.Seconds))
			}
		}
		paired := ""
		if len(r.Times) == len(g.Times) { // one time a round each
			ratios := make([]float64, len(r.Times))
			for k, t := range r.Times {
				ratios[k] = t / g.Times[k]
			}
			if med, lo, hi := bench.MedianCI(ratios); !math.IsNaN(lo) {
				paired = fmt.Sprintf("; round by round %.2f × (95%% CI %.2f … %.2f)", med, lo, hi)
			}
		}
		lines = append(lines, fmt.Sprintf("  %-10s %3d workers: processes take %s ± %s × the goroutines' time (%s)%s%s%s",
			r.Split, r.Workers, num(ratio, 2), num(pm, 2), verdict, sig, paired, fork))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\nProcesses against goroutines (ratio of means, ± from both spreads):\n%s\n", strings.Join(lines, "\n"))
	if d.Env.ForkExecSelf > 0 {
		fmt.Fprintf(w, "  Starting and ending one worker process costs %s here (the spawn lab's forkexec-self,\n"+
			"  measured before the sweep): the spawn phase of N workers is N of those at least, on top\n"+
			"  of each child mapping the files itself. Goroutines start in about a microsecond.\n", dur(d.Env.ForkExecSelf))
	}
}

func (d *Doc) writeAmdahl(w io.Writer) {
	if len(d.Amdahl) == 0 {
		return
	}
	fmt.Fprintf(w, "\nAmdahl's law, T(n) = T1·(f + (1−f)/n), fitted by least squares over the worker counts:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tsplit\tserial f\tR²\tceiling 1/f\tpoints\tleft out\tone-point f (reference's way)\t")
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t\n", a.Strategy, a.Split, pct(a.F), num(a.R2, 3), ceil,
			a.Points, strings.Join(ex, ","), one)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nPredicted against measured (median) time:\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, a := range d.Amdahl {
		row1, row2 := a.Strategy+"/"+a.Split+" measured\t", "predicted\t"
		for _, p := range a.Predicted {
			row1 += fmt.Sprintf("%d: %s\t", p.Workers, dur(p.Measured))
			row2 += fmt.Sprintf("%s\t", dur(p.Predicted))
		}
		fmt.Fprintln(tw, row1)
		fmt.Fprintln(tw, row2)
	}
	tw.Flush()
}

func pct(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*f)
}

// writeRowCost shows the work a row took (Result.RowCost) at each worker
// count, for each strategy and split: flat means the workers did not slow
// each other.
func (d *Doc) writeRowCost(w io.Writer) {
	var names []string
	cost := map[string]map[int]float64{}
	var counts []int
	for i := range d.Results {
		r := &d.Results[i]
		c := r.RowCost(d.Env.Rows)
		if math.IsNaN(c) || len(r.Times) == 0 {
			continue
		}
		name := r.Strategy
		if r.Strategy != Baseline && r.Strategy != Floor {
			name += "/" + r.Split
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
		return
	}
	slices.Sort(counts)
	fmt.Fprintf(w, "\nWork a row: every worker's busy time added up, over the %d rows (median trial). Workers that\n"+
		"do not slow each other keep one worker's figure. A rise (most/1: the largest over 1 worker's) is\n"+
		"contention, for the memory bus or, past the core count, for the cores (busy time is wall time),\n"+
		"which Amdahl's fit counts as serial:\n", d.Env.Rows)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "workers\t")
	for _, n := range counts {
		fmt.Fprintf(tw, "%d\t", n)
	}
	fmt.Fprintln(tw, "most/1\t")
	for _, name := range names {
		fmt.Fprintf(tw, "%s\t", name)
		one, hasOne := cost[name][1]
		rise := 0.0
		for _, n := range counts {
			c, ok := cost[name][n]
			if !ok {
				fmt.Fprint(tw, "\t")
				continue
			}
			fmt.Fprintf(tw, "%s\t", perRow(c))
			if hasOne && n > 1 {
				rise = max(rise, c/one)
			}
		}
		if rise == 0 {
			fmt.Fprintln(tw, "-\t")
		} else {
			fmt.Fprintf(tw, "%.2f ×\t\n", rise)
		}
	}
	tw.Flush()
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

// writeImbalance explains the file splits: how many files each worker got,
// and how much of the work fell to the busiest one.
func (d *Doc) writeImbalance(w io.Writer) {
	var rows []*Result
	for i := range d.Results {
		r := &d.Results[i]
		if (r.Split == "file-naive" || r.Split == "file") && r.Strategy != Floor && r.Workers > 1 && len(r.Units) > 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Split > rows[j].Split })
	fmt.Fprintf(w, "\nLoad imbalance of the file splits (a run lasts as long as its busiest worker):\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "strategy\tsplit\tworkers\tfiles per worker\tbusiest's share\tbusiest/mean\tmedian")
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
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.Strategy, r.Split, r.Workers, strings.Join(us, " "),
			pct(share), num(r.Imbalance, 2), dur(r.Median))
	}
	tw.Flush()
}

// floorTimes is r's time in floors: the round-by-round ratio's median
// where there is one, else the ratio of the medians.
func floorTimes(r Result) float64 {
	if !math.IsNaN(r.FloorPaired) {
		return r.FloorPaired
	}
	return r.FloorMultiple
}

func (d *Doc) writeFloor(w io.Writer) {
	if len(d.Floor) == 0 {
		return
	}
	fmt.Fprintf(w, "\nFloor: the same workers only counting newlines in the same mapped files (memory bandwidth):\n")
	moved := false
	for _, f := range d.Floor {
		gbs := float64(d.Env.Bytes) / f.Median / 1e9
		fmt.Fprintf(w, "  %3d workers  %s  (%.1f GB/s; %s … %s)\n", f.Workers, dur(f.Median), gbs, dur(f.Min), dur(f.Max))
		moved = moved || f.Max > 1.3*f.Min
	}
	if moved {
		// Seen on a shared VM: the scan, bound by the cores, held still
		// while the floor, bound by the memory bus, moved by 70%.
		fmt.Fprintf(w, "The floor moved by over 30%% from round to round: it is bound by the memory bus, which\nother programs (or, on a VM, other tenants) share. The ratios below follow it round by round.\n")
	}
	// The ratios taken round by round: the floor and the configuration ran
	// seconds apart, so drift in the machine's speed cancels out.
	var lines []string
	for _, r := range d.Results {
		if r.Strategy == Floor || r.Workers < 2 || math.IsNaN(r.FloorPaired) {
			continue
		}
		ci := "(too few trials for an interval)"
		if !math.IsNaN(r.FloorLo) {
			ci = fmt.Sprintf("(95%% CI %.2f … %.2f)", r.FloorLo, r.FloorHi)
		}
		lines = append(lines, fmt.Sprintf("  %s/%s/%d\t%.2f ×\t%s", r.Strategy, r.Split, r.Workers, r.FloorPaired, ci))
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "Against the floor at the same worker count, round by round (median of the per-round ratios):\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, l := range lines {
			fmt.Fprintln(tw, l)
		}
		tw.Flush()
	}
}

func (d *Doc) writeWarnings(w io.Writer) {
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
	if c := d.Cache; c != nil && !d.Cold && min(c.HugeStart, c.HugeEnd) < 0.9 {
		warns = append(warns, fmt.Sprintf("only %s of the data set's cached pages were in 2 MiB folios (%s at the end); the rest map 4 KiB at a time, a page fault per 16 pages and a TLB entry per page. That made a 10M-row query 1.3-1.4x slower here. A set fresh from `parlab gen`, or one evicted and read back through parlab's mappings (a --cold run does that), is in 2 MiB folios where the filesystem keeps them (ext4 from Linux 6.16, xfs; not tmpfs).", cachePct(c.HugeStart), cachePct(c.HugeEnd)))
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
	if len(warns) > 0 {
		fmt.Fprintf(w, "\nWarnings:\n")
		for _, s := range warns {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
}

// Compare writes, for each configuration in both, new/old (median ratio, ±
// from the spreads), marking with ~ the ones whose difference is within
// noise (Mann–Whitney p ≥ 0.05, as benchstat), and the geometric mean.
func Compare(w io.Writer, newDoc, oldDoc *Doc) {
	fmt.Fprintf(w, "new: %s (%s)\nold: %s (%s)\n\n", newDoc.Env.Started, newDoc.Env.Data, oldDoc.Env.Started, oldDoc.Env.Data)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "configuration\told median\tnew median\tnew/old\t\t")
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
		fmt.Fprintf(tw, "%v\t%s\t%s\t%s ± %s\t%s\t\n", r.Config, dur(o.Median), dur(r.Median), num(ratio, 2), num(pm, 2), mark)
	}
	tw.Flush()
	if len(ratios) == 0 {
		fmt.Fprintln(w, "no configuration in common")
		return
	}
	fmt.Fprintf(w, "geometric mean of new/old: %.3f over %d configurations (~: within noise, Mann–Whitney p ≥ 0.05)\n", bench.GeoMean(ratios), len(ratios))
}
