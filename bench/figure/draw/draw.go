// Package draw draws a figure.Figure with gonum/plot, the one way every
// study's pictures look: fonts that read when the picture is pasted into a
// document, the legend outside the data (to the right, never over a line),
// measured series solid with markers, projections dashed and lighter, and
// PNG or SVG. Only cmd/parlab-figure and tests link it: the initialisers
// of gonum/plot's fonts, go-latex and fpdf cost every process that links
// them at start, which a query need not pay (docs/experiments.md,
// 2026-12-07).
package draw

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"parlab/bench/figure"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// palette is the colours Series.Color and Box.Color index; Gray (-1) is for
// references (an ideal line, a floor).
func palette(i int) color.Color {
	if i < 0 {
		return color.Gray{Y: 90}
	}
	return plotutil.Color(i)
}

const (
	titleSize  = 15
	labelSize  = 13
	tickSize   = 11
	legendSize = 11
)

// Render draws the figure as "png" or "svg".
func Render(f *figure.Figure, format string) ([]byte, error) {
	w, h := vg.Length(f.Width)*vg.Inch, vg.Length(f.Height)*vg.Inch
	if w == 0 {
		w, h = 10*vg.Inch, 6*vg.Inch
	}
	p, legend, err := build(f)
	if err != nil {
		return nil, err
	}
	var canvas vg.CanvasWriterTo
	switch format {
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))}
	case "svg":
		canvas = vgsvg.NewWith(vgsvg.UseWH(w, h))
	default:
		return nil, fmt.Errorf("unknown picture format %q", format)
	}
	dc := draw.New(canvas)
	// The title and subtitle span the whole picture, left-aligned; below
	// them, the legend gets a column of its own at the right, as wide as its
	// longest entry, so it never covers the data.
	top := vg.Length(8)
	for i, line := range []string{f.Title, f.Subtitle} {
		if line == "" {
			continue
		}
		sty := p.Title.TextStyle
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
		if i == 1 {
			sty.Font.Size = labelSize
		}
		dc.FillText(sty, vg.Point{X: 10, Y: h - top}, line)
		top += sty.Rectangle(line).Size().Y + 4
	}
	body := draw.Crop(dc, 8, 0, 0, -top-6)
	lw := vg.Length(0)
	if legend != nil {
		lw = legend.Rectangle(body).Size().X + 16
		lw = min(lw, w/2)
	}
	p.Draw(draw.Crop(body, 0, -lw, 0, 0))
	if legend != nil {
		legend.Draw(draw.Crop(body, w-lw+8, 0, 0, -8))
	}
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// build makes the gonum plot and the legend drawn beside it (nil if none).
func build(f *figure.Figure) (*plot.Plot, *plot.Legend, error) {
	p := plot.New()
	p.Title.TextStyle.Font.Size = titleSize // drawn by Render, across the picture
	p.X.Label.Text, p.Y.Label.Text = f.XLabel, f.YLabel
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size = labelSize
		ax.Tick.Label.Font.Size = tickSize
	}
	legend := plot.NewLegend()
	legend.TextStyle.Font.Size = legendSize
	legend.Top, legend.Left = true, true
	entries := 0
	addLegend := func(label string, t ...plot.Thumbnailer) {
		if label != "" {
			legend.Add(label, t...)
			entries++
		}
	}
	switch {
	case len(f.Bars) > 0:
		if err := bars(f, p); err != nil {
			return nil, nil, err
		}
	case len(f.Boxes) > 0:
		if err := boxes(f, p); err != nil {
			return nil, nil, err
		}
	default:
		if f.LogX {
			p.X.Scale = plot.LogScale{}
		}
		if len(f.XTicks) > 0 {
			var ticks []plot.Tick
			for _, x := range f.XTicks {
				ticks = append(ticks, plot.Tick{Value: x, Label: fmt.Sprint(x)})
			}
			p.X.Tick.Marker = plot.ConstantTicks(ticks)
		}
		for _, s := range f.Series {
			if len(s.Points) == 0 { // a key: its style in the legend, no data
				if s.Label != "" && (s.Fit || s.Projected) {
					l := &plotter.Line{LineStyle: draw.LineStyle{Color: palette(s.Color), Width: vg.Points(1)}}
					if s.Projected {
						l.Color, l.Dashes = lighter(palette(s.Color)), []vg.Length{vg.Points(5), vg.Points(4)}
					}
					addLegend(s.Label, l)
				}
				continue
			}
			xy := make(plotter.XYs, len(s.Points))
			for i, pt := range s.Points {
				xy[i] = plotter.XY{X: pt.X, Y: pt.Y}
			}
			c := palette(s.Color)
			if s.Fit || s.Projected {
				l, err := plotter.NewLine(xy)
				if err != nil {
					return nil, nil, err
				}
				l.Color, l.Width = c, vg.Points(1)
				if s.Projected {
					l.Color = lighter(c)
					l.Dashes = []vg.Length{vg.Points(5), vg.Points(4)}
				}
				p.Add(l)
				addLegend(s.Label, l)
				continue
			}
			l, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, nil, err
			}
			l.Color, pts.Color, l.Width = c, c, vg.Points(1.8)
			pts.Shape, pts.Radius = plotutil.Shape(0), vg.Points(3.5)
			if s.Family == 1 {
				l.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
				pts.Shape = plotutil.Shape(2)
			}
			p.Add(l, pts)
			addLegend(s.Label, l, pts)
		}
		if len(f.Marks) > 0 {
			// A label is drawn on the side of its point that faces the
			// middle: gonum keeps labels inside the data area, so one that
			// ran past the right edge would squeeze the whole plot.
			var xy plotter.XYs
			var texts []string
			var right []bool
			mid := (f.XMin + f.XMax) / 2
			if f.LogX && f.XMin > 0 {
				mid = math.Sqrt(f.XMin * f.XMax)
			}
			for _, m := range f.Marks {
				xy = append(xy, plotter.XY{X: m.X, Y: m.Y})
				r := f.XMax > f.XMin && m.X > mid
				right = append(right, r)
				if r {
					texts = append(texts, m.Text+"   ")
				} else {
					texts = append(texts, "   "+m.Text)
				}
			}
			ring, err := plotter.NewScatter(xy)
			if err != nil {
				return nil, nil, err
			}
			ring.Shape, ring.Radius, ring.Color = ringGlyph{}, vg.Points(7), color.Gray{Y: 30}
			p.Add(ring)
			labels, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: texts})
			if err != nil {
				return nil, nil, err
			}
			for i := range labels.TextStyle {
				labels.TextStyle[i].Font.Size = legendSize
				labels.TextStyle[i].YAlign = draw.YBottom
				if right[i] {
					labels.TextStyle[i].XAlign = draw.XRight
				}
			}
			p.Add(labels)
		}
		p.Add(plotter.NewGrid())
	}
	if f.XMin != 0 || f.XMax != 0 {
		p.X.Min, p.X.Max = f.XMin, f.XMax
	}
	if f.YMax != 0 {
		p.Y.Min, p.Y.Max = f.YMin, f.YMax
	}
	if len(f.Boxes) == 0 {
		p.Y.Tick.Marker = niceTicks{}
	}
	// Reference lines span the axis as set.
	for _, ln := range f.Lines {
		l, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: ln.Y}, {X: p.X.Max, Y: ln.Y}})
		if err != nil {
			return nil, nil, err
		}
		l.Color, l.Width = color.Gray{Y: 90}, vg.Points(1.5)
		if ln.Dash {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
		}
		p.Add(l)
		addLegend(ln.Label, l)
	}
	if entries == 0 {
		return p, nil, nil
	}
	return p, &legend, nil
}

func boxes(f *figure.Figure, p *plot.Plot) error {
	var names []string
	for i, b := range f.Boxes {
		bp, err := plotter.NewBoxPlot(vg.Points(9), float64(len(f.Boxes)-1-i), plotter.Values(b.Values))
		if err != nil {
			return err
		}
		bp.Horizontal = true
		bp.FillColor = lighter(palette(b.Color))
		p.Add(bp)
		names = append(names, b.Label)
	}
	// NominalY labels bottom to top
	rev := make([]string, len(names))
	for i, n := range names {
		rev[len(names)-1-i] = n
	}
	p.NominalY(rev...)
	p.Add(plotter.NewGrid())
	return nil
}

func bars(f *figure.Figure, p *plot.Plot) error {
	bars, err := plotter.NewBarChart(plotter.Values(f.Bars), vg.Points(math.Max(4, 300/float64(len(f.Bars)))))
	if err != nil {
		return err
	}
	bars.Color = palette(0)
	p.Add(bars)
	p.NominalX(f.BarLabels...)
	return nil
}

// lighter mixes c halfway to white.
func lighter(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((v>>8 + 255) / 2) }
	return color.RGBA{mix(r), mix(g), mix(b), 255}
}

// ringGlyph is an open circle, a ring around a marked point.
type ringGlyph struct{}

func (ringGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.5)})
	var path vg.Path
	path.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	path.Arc(pt, sty.Radius, 0, 2*math.Pi)
	path.Close()
	c.Stroke(path)
}

// niceTicks puts 5 to 10 labelled ticks at round values (1, 2 or 5 times a
// power of ten), where gonum's default may label only two.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	prec := max(0, -int(math.Floor(math.Log10(step))))
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)})
	}
	return ticks
}
