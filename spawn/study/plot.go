package study

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot writes the report's pictures into dir, each as PNG and SVG:
//
//	speedup   speedup against workers per strategy and split, with the
//	          ideal line and each fitted Amdahl curve (dashed)
//	time      median time against workers, with the floor
//	busy      each worker's busy time in one configuration (busy is that
//	          configuration; nil picks the most imbalanced file-naive run)
//
// It returns the files written.
func (d *Doc) Plot(dir string, busy *Result) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	save := func(p *plot.Plot, name string, w, h vg.Length) error {
		for _, ext := range []string{".png", ".svg"} {
			f := filepath.Join(dir, name+ext)
			if err := p.Save(w, h, f); err != nil {
				return fmt.Errorf("plot %s: %w", f, err)
			}
			files = append(files, f)
		}
		return nil
	}
	sp, err := d.speedupPlot()
	if err != nil {
		return nil, err
	}
	if err := save(sp, "speedup", 9*vg.Inch, 6*vg.Inch); err != nil {
		return nil, err
	}
	tp, err := d.timePlot()
	if err != nil {
		return nil, err
	}
	if err := save(tp, "time", 9*vg.Inch, 6*vg.Inch); err != nil {
		return nil, err
	}
	if busy == nil {
		busy = d.Worst("file-naive")
	}
	if busy != nil && len(busy.Busy) > 0 {
		bp, err := busyPlot(busy)
		if err != nil {
			return nil, err
		}
		if err := save(bp, "busy", 8*vg.Inch, 5*vg.Inch); err != nil {
			return nil, err
		}
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
		k := r.Strategy + "/" + r.Split
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

// workerAxis makes the X axis log2, ticked at the measured worker counts.
func (d *Doc) workerAxis(p *plot.Plot) (lo, hi float64) {
	seen := map[int]bool{}
	var ticks []plot.Tick
	lo, hi = math.Inf(1), 0
	for _, r := range d.Results {
		if !seen[r.Workers] && r.Strategy != Baseline {
			seen[r.Workers] = true
			ticks = append(ticks, plot.Tick{Value: float64(r.Workers), Label: fmt.Sprint(r.Workers)})
			lo, hi = math.Min(lo, float64(r.Workers)), math.Max(hi, float64(r.Workers))
		}
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Label.Text = "workers (log scale)"
	p.X.Min, p.X.Max = lo*0.9, hi*1.1
	return lo, hi
}

func (d *Doc) title(what string) string {
	return fmt.Sprintf("%s: %s over %d rows, %d cores", what, d.Env.Query, d.Env.Rows, d.Env.Cores)
}

func (d *Doc) speedupPlot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = d.title("Speedup against seq")
	p.Y.Label.Text = "speedup (seq median / median)"
	lo, hi := d.workerAxis(p)
	ideal := plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}}
	il, err := plotter.NewLine(ideal)
	if err != nil {
		return nil, err
	}
	il.Color = color.Gray{Y: 60}
	il.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(il)
	p.Legend.Add("ideal (speedup = workers)", il)
	names, m := d.series()
	base := math.NaN()
	for _, r := range d.Results {
		if r.Strategy == Baseline && len(r.Times) > 0 {
			base = r.Median
		}
	}
	best := 1.0
	for _, k := range names {
		rs := m[k]
		if rs[0].Strategy == Floor {
			continue
		}
		ci := d.styleIndex(rs[0].Config)
		var xy plotter.XYs
		for _, r := range rs {
			if !math.IsNaN(r.Speedup) {
				xy = append(xy, plotter.XY{X: float64(r.Workers), Y: r.Speedup})
				best = math.Max(best, r.Speedup)
			}
		}
		if len(xy) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		d.style(l, pts, rs[0].Config)
		p.Add(l, pts)
		label := k
		for _, a := range d.Amdahl {
			if a.Strategy+"/"+a.Split != k || math.IsNaN(a.F) || math.IsNaN(base) {
				continue
			}
			// the fitted curve, thin and dashed in the series' colour
			var curve plotter.XYs
			for i := 0; i <= 40; i++ {
				n := lo * math.Pow(hi/lo, float64(i)/40)
				curve = append(curve, plotter.XY{X: n, Y: base / (a.T1 * (a.F + (1-a.F)/n))})
			}
			cl, err := plotter.NewLine(curve)
			if err != nil {
				return nil, err
			}
			cl.Color = plotutil.Color(ci)
			cl.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
			cl.Width = vg.Points(0.7)
			p.Add(cl)
			label = fmt.Sprintf("%s (Amdahl f = %.1f%%, dashed)", k, 100*a.F)
		}
		p.Legend.Add(label, l, pts)
	}
	// Keep the measured curves readable: the ideal line and the fitted
	// curves are clipped where they leave the interesting range.
	cores := float64(d.Env.Cores)
	if cores > 0 && cores < hi {
		cl, err := plotter.NewLine(plotter.XYs{{X: lo, Y: cores}, {X: hi, Y: cores}})
		if err != nil {
			return nil, err
		}
		cl.Color = color.Gray{Y: 120}
		cl.Width = vg.Points(1.5)
		p.Add(cl)
		p.Legend.Add(fmt.Sprintf("%d cores: the most this machine can give", d.Env.Cores), cl)
	}
	p.Y.Min, p.Y.Max = 0, 2*math.Max(best, cores)+0.5
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	return p, nil
}

func (d *Doc) timePlot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = d.title("Median time")
	p.Y.Label.Text = "seconds (median)"
	d.workerAxis(p)
	names, m := d.series()
	for _, k := range names {
		var xy plotter.XYs
		for _, r := range m[k] {
			xy = append(xy, plotter.XY{X: float64(r.Workers), Y: r.Median})
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		d.style(l, pts, m[k][0].Config)
		if m[k][0].Strategy == Floor {
			l.Color, pts.Color = color.Gray{Y: 60}, color.Gray{Y: 60}
			l.Width = vg.Points(2.5)
		}
		p.Add(l, pts)
		p.Legend.Add(k, l, pts)
	}
	for _, r := range d.Results {
		if r.Strategy == Baseline && len(r.Times) > 0 {
			hl, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: r.Median}, {X: p.X.Max, Y: r.Median}})
			if err != nil {
				return nil, err
			}
			hl.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
			p.Add(hl)
			p.Legend.Add("seq", hl)
		}
	}
	p.Y.Min = 0
	p.Y.Max *= 1.5 // room for the legend above the lines
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p, nil
}

func busyPlot(r *Result) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Busy time per worker: %v (busiest/mean %.2f)", r.Config, r.Imbalance)
	p.Y.Label.Text = "seconds busy (median trial)"
	p.X.Label.Text = "worker (units of work it had)"
	bars, err := plotter.NewBarChart(plotter.Values(r.Busy), vg.Points(math.Max(4, 300/float64(len(r.Busy)))))
	if err != nil {
		return nil, err
	}
	bars.Color = plotutil.Color(0)
	p.Add(bars)
	var names []string
	for i := range r.Busy {
		u := "?"
		if i < len(r.Units) {
			u = fmt.Sprint(r.Units[i])
		}
		names = append(names, fmt.Sprintf("%d (%s)", i, u))
	}
	p.NominalX(names...)
	var mean float64
	for _, b := range r.Busy {
		mean += b / float64(len(r.Busy))
	}
	ml, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: mean}, {X: float64(len(r.Busy)) - 0.5, Y: mean}})
	if err != nil {
		return nil, err
	}
	ml.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	p.Add(ml)
	p.Legend.Add("mean busy time", ml)
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

// styleIndex gives each split its colour, the same in every plot.
func (d *Doc) styleIndex(p Config) int {
	var splits []string
	for _, r := range d.Results {
		if r.Strategy != Baseline && r.Strategy != Floor && !slices.Contains(splits, r.Split) {
			splits = append(splits, r.Split)
		}
	}
	return max(slices.Index(splits, p.Split), 0)
}

// style: colour by split, line and marker by strategy (goroutines solid with
// circles, processes dotted with triangles), so 8 series stay apart.
func (d *Doc) style(l *plotter.Line, pts *plotter.Scatter, p Config) {
	c := plotutil.Color(d.styleIndex(p))
	l.Color, pts.Color = c, c
	pts.Shape = plotutil.Shape(0)
	if p.Strategy == "processes" {
		l.Dashes = []vg.Length{vg.Points(1), vg.Points(2.5)}
		l.Width = vg.Points(1.5)
		pts.Shape = plotutil.Shape(2)
	}
}
