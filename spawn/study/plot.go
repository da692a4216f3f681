package study

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"parlab/bench/figure"
	"parlab/spawn"
)

// Figures are the report's pictures, by file name:
//
//	speedup  speedup against workers per strategy and split; each Amdahl fit
//	         solid up to the core count and dashed, lighter, "projected",
//	         beyond; the ideal line; the core count; the best configuration
//	         marked with its speedup and × floor
//	time     median time against workers, with the floor and seq
//	trials   every configuration's trial times as a box plot, so the noise
//	         shows
//	busy     each worker's busy time in one configuration (busy; nil picks
//	         the most imbalanced file-naive run), if there is one
func (d *Doc) Figures(busy *Result) (names []string, figs []*figure.Figure) {
	add := func(name string, f *figure.Figure) {
		if f != nil {
			names, figs = append(names, name), append(figs, f)
		}
	}
	add("speedup", d.speedupFigure())
	add("time", d.timeFigure())
	add("trials", d.trialsFigure())
	if busy == nil {
		busy = d.Worst(spawn.SplitFileNaive)
	}
	if busy != nil && len(busy.Busy) > 0 {
		add("busy", busyFigure(busy, d.subtitle()))
	}
	return names, figs
}

// Plot writes the figures into dir as PNG and SVG and returns the files.
func (d *Doc) Plot(dir string, busy *Result) ([]string, error) {
	var files []string
	names, figs := d.Figures(busy)
	for i, f := range figs {
		fs, err := f.Save(dir, names[i])
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", names[i], err)
		}
		files = append(files, fs...)
	}
	return files, nil
}

// series groups results by strategy and split, in first-seen order.
func (d *Doc) series() ([]string, map[string][]*Result) {
	var names []string
	m := map[string][]*Result{}
	for i := range d.Results {
		r := &d.Results[i]
		if r.Strategy == Baseline || len(r.Times) == 0 {
			continue
		}
		k := r.kind()
		if r.Strategy == Floor {
			k = "floor (newline count)"
		}
		if m[k] == nil {
			names = append(names, k)
		}
		m[k] = append(m[k], r)
	}
	for _, k := range names {
		sort.Slice(m[k], func(i, j int) bool { return m[k][i].Workers < m[k][j].Workers })
	}
	return names, m
}

// workerAxis sets a figure's X axis: log2, ticked at the measured counts.
func (d *Doc) workerAxis(f *figure.Figure) (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, r := range d.Results {
		if r.Strategy == Baseline || len(r.Times) == 0 {
			continue
		}
		x := float64(r.Workers)
		if !slices.Contains(f.XTicks, x) {
			f.XTicks = append(f.XTicks, x)
		}
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	slices.Sort(f.XTicks)
	f.LogX, f.XLabel = true, "workers (log scale)"
	f.XMin, f.XMax = lo*0.9, hi*1.1
	return lo, hi
}

// subtitle names the query, the data set and the machine.
func (d *Doc) subtitle() string {
	return fmt.Sprintf("%s over %s (%d rows) · %d cores, %s", d.Env.Query, d.Env.Data, d.Env.Rows, d.Env.Cores, d.Env.CPU)
}

// styleIndex gives each split its colour, the same in every figure.
func (d *Doc) styleIndex(p Config) int {
	var splits []spawn.Split
	for _, r := range d.Results {
		if r.Strategy != Baseline && r.Strategy != Floor && !slices.Contains(splits, r.Split) {
			splits = append(splits, r.Split)
		}
	}
	return max(slices.Index(splits, p.Split), 0)
}

// family draws processes apart from goroutines (dotted, triangles).
func family(p Config) int {
	if p.Strategy.Caps().Children {
		return 1
	}
	return 0
}

// Best is the fastest parallel configuration by median, nil if none ran.
func (d *Doc) Best() *Result {
	var best *Result
	for i := range d.Results {
		r := &d.Results[i]
		if r.Strategy == Baseline || r.Strategy == Floor || len(r.Times) == 0 || math.IsNaN(r.Speedup) {
			continue
		}
		if best == nil || r.Median < best.Median {
			best = r
		}
	}
	return best
}

func (d *Doc) speedupFigure() *figure.Figure {
	f := &figure.Figure{Title: "Speedup against seq", Subtitle: d.subtitle(), YLabel: "speedup (seq median / median)"}
	lo, hi := d.workerAxis(f)
	if math.IsInf(lo, 0) {
		return nil
	}
	cores := float64(d.Env.Cores)
	if cores <= 0 {
		cores = hi
	}
	reach := math.Min(cores, hi) // measured curves are facts up to here; fits are projections past it
	f.Series = append(f.Series, figure.Series{Label: "ideal (speedup = workers)", Color: figure.Gray, Fit: true,
		Points: []figure.XY{{X: lo, Y: lo}, {X: reach, Y: reach}}})
	base := math.NaN()
	for _, r := range d.Results {
		if r.Strategy == Baseline && len(r.Times) > 0 {
			base = r.Median
		}
	}
	names, m := d.series()
	top := 1.0
	fits, projected := 0, false
	for _, k := range names {
		rs := m[k]
		if rs[0].Strategy == Floor {
			continue
		}
		s := figure.Series{Label: k, Color: d.styleIndex(rs[0].Config), Family: family(rs[0].Config)}
		for _, r := range rs {
			if !math.IsNaN(r.Speedup) {
				s.Points = append(s.Points, figure.XY{X: float64(r.Workers), Y: r.Speedup})
				top = math.Max(top, r.Speedup)
			}
		}
		f.Series = append(f.Series, s)
		for _, a := range d.Amdahl {
			if (Config{Strategy: a.Strategy, Split: a.Split}).kind() != k || math.IsNaN(a.F) || math.IsNaN(base) {
				continue
			}
			curve := func(from, to float64) []figure.XY {
				var pts []figure.XY
				for i := 0; i <= 30; i++ {
					n := from * math.Pow(to/from, float64(i)/30)
					pts = append(pts, figure.XY{X: n, Y: base / (a.T1 * (a.F + (1-a.F)/n))})
				}
				return pts
			}
			fits++
			f.Series = append(f.Series, figure.Series{Color: s.Color, Fit: true, Points: curve(lo, reach)})
			if hi > reach {
				projected = true
				f.Series = append(f.Series, figure.Series{Color: s.Color, Projected: true, Points: curve(reach, hi)})
			}
		}
	}
	// One key for every fit, not a legend line each (their f are in the
	// report's Amdahl table): with eight series the legend was seventeen
	// lines.
	if fits > 0 {
		f.Series = append(f.Series, figure.Series{Label: "thin, in a series' colour: its Amdahl fit (f in the report)", Color: figure.Gray, Fit: true})
	}
	if projected {
		f.Series = append(f.Series, figure.Series{Label: "dashed: the fit projected past the cores", Color: figure.Gray, Projected: true})
	}
	if d.Env.Cores > 0 {
		f.Lines = append(f.Lines, figure.Line{Y: cores, Label: fmt.Sprintf("%d cores: the most this machine can give", d.Env.Cores)})
	}
	if b := d.Best(); b != nil {
		f.Marks = append(f.Marks, figure.Mark{X: float64(b.Workers), Y: b.Speedup,
			Text: fmt.Sprintf("best: %v, %.2f×, %s× floor", b.Config, b.Speedup, num(floorTimes(*b), 1))})
	}
	f.YMin, f.YMax = 0, math.Max(top, cores)*1.3
	return f
}

func (d *Doc) timeFigure() *figure.Figure {
	f := &figure.Figure{Title: "Median time", Subtitle: d.subtitle(), YLabel: "seconds (median)"}
	if lo, _ := d.workerAxis(f); math.IsInf(lo, 0) {
		return nil
	}
	names, m := d.series()
	for _, k := range names {
		rs := m[k]
		s := figure.Series{Label: k, Color: d.styleIndex(rs[0].Config), Family: family(rs[0].Config)}
		if rs[0].Strategy == Floor {
			s.Color, s.Family = figure.Gray, 0
		}
		for _, r := range rs {
			s.Points = append(s.Points, figure.XY{X: float64(r.Workers), Y: r.Median})
		}
		f.Series = append(f.Series, s)
	}
	for _, r := range d.Results {
		if r.Strategy == Baseline && len(r.Times) > 0 {
			f.Lines = append(f.Lines, figure.Line{Y: r.Median, Label: "seq", Dash: true})
		}
	}
	return f
}

// trialsFigure shows every configuration's trials, so noise is seen.
func (d *Doc) trialsFigure() *figure.Figure {
	f := &figure.Figure{Title: "Every trial's time, by configuration (box: quartiles; whiskers: 1.5 IQR)",
		Subtitle: d.subtitle(), XLabel: "seconds"}
	for _, r := range d.Results {
		if len(r.Times) == 0 {
			continue
		}
		c := d.styleIndex(r.Config)
		if r.Strategy == Baseline || r.Strategy == Floor {
			c = figure.Gray
		}
		f.Boxes = append(f.Boxes, figure.Box{Label: r.Config.String(), Values: r.Times, Color: c})
	}
	if len(f.Boxes) == 0 {
		return nil
	}
	f.Width, f.Height = 10, max(4, 0.22*float64(len(f.Boxes))+1.5)
	return f
}

func busyFigure(r *Result, subtitle string) *figure.Figure {
	f := &figure.Figure{Title: fmt.Sprintf("Busy time per worker: %v (busiest/mean %.2f)", r.Config, r.Imbalance),
		Subtitle: subtitle, YLabel: "seconds busy (median trial)", XLabel: "worker (units of work it had)",
		Bars: r.Busy, Width: 9, Height: 5}
	for i := range r.Busy {
		u := "?"
		if i < len(r.Units) {
			u = fmt.Sprint(r.Units[i])
		}
		f.BarLabels = append(f.BarLabels, fmt.Sprintf("%d (%s)", i, u))
	}
	var mean float64
	for _, b := range r.Busy {
		mean += b / float64(len(r.Busy))
	}
	f.Lines = append(f.Lines, figure.Line{Y: mean, Label: "mean busy time", Dash: true})
	return f
}
