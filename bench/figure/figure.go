// Package figure is the data of a picture every study draws: series,
// lines, marks, boxes or bars, and labels. Render and Save turn it into PNG
// or SVG through Draw: in parlab, by the parlab-figure binary beside it
// (cmd/parlab-figure, which links package draw, gonum/plot and its fonts,
// so that parlab itself does not pay for them at every start); tests set
// Draw to draw.Render.
package figure

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// XY is a point.
type XY struct{ X, Y float64 }

// Series is one line of a Figure. A Fit or Projected series with a label
// and no points is a key: its style and label in the legend, for lines
// that carry none each (say, every series' fit).
type Series struct {
	Label  string
	Points []XY
	Color  int  // index into the palette, the same colour for the same thing in every figure
	Family int  // 0: solid with circles; 1: dotted with triangles (a second family of the same colours)
	Fit    bool // a model fitted to the measurements: thin, no markers
	// Projected: a model's prediction past what was measured (say, past the
	// core count): drawn dashed and lighter, labelled as such by the caller.
	Projected bool
}

// Line is a labelled horizontal reference line (the core count, a baseline).
type Line struct {
	Y     float64
	Label string
	Dash  bool
}

// Mark is an annotated point (the best configuration).
type Mark struct {
	X, Y float64
	Text string
}

// Box is one distribution of a box plot (a configuration's trials).
type Box struct {
	Label  string
	Values []float64
	Color  int
}

// Figure is one picture.
type Figure struct {
	Title, Subtitle string // the subtitle names the data and the machine
	XLabel, YLabel  string
	LogX            bool
	XTicks          []float64 // the X values to tick (the measured worker counts)
	XMin, XMax      float64   // 0, 0: from the data
	YMin, YMax      float64   // 0, 0: from the data (YMin 0 if YMax is set)
	Series          []Series
	Lines           []Line
	Marks           []Mark
	Boxes           []Box     // a horizontal box plot, one row a box; excludes Series
	Bars            []float64 // a bar chart; excludes Series and Boxes
	BarLabels       []string  // one a bar
	Width, Height   float64   // inches; 0: 10 × 6
}

// Gray is the palette's reference colour (an ideal line, a floor); the
// others are 0, 1, …
const Gray = -1

// Draw, if not nil, draws f as format ("png" or "svg") in this process:
// tests set it to draw.Render. Else Render asks DrawerName.
var Draw func(f *Figure, format string) ([]byte, error)

// DrawerName is the binary that draws where Draw is nil: parlab-figure,
// beside this executable (make build builds it), or else on PATH.
const DrawerName = "parlab-figure"

// ErrNoDrawer: neither Draw nor DrawerName is there to draw with.
var ErrNoDrawer = errors.New("no " + DrawerName + " beside this binary or on PATH to draw the figures with (make build builds it; go install parlab/cmd/" + DrawerName + ")")

// Request is what the drawer reads on its standard input, as JSON; it
// writes the picture's bytes on its standard output.
type Request struct {
	Format string  `json:"format"`
	Figure *Figure `json:"figure"`
}

// Render draws the figure as "png" or "svg".
func (f *Figure) Render(format string) ([]byte, error) {
	if Draw != nil {
		return Draw(f, format)
	}
	exe, err := drawer()
	if err != nil {
		return nil, err
	}
	in, err := json.Marshal(Request{Format: format, Figure: f})
	if err != nil {
		return nil, err
	}
	var out, stderr bytes.Buffer
	cmd := exec.Command(exe)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s (drawing %q): %w: %s", exe, f.Title, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out.Bytes(), nil
}

// drawer is the path of DrawerName: beside this executable, else on PATH.
func drawer() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), DrawerName)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(DrawerName); err == nil {
		return p, nil
	}
	return "", ErrNoDrawer
}

// Save writes the figure as dir/name.png and dir/name.svg and returns the
// paths.
func (f *Figure) Save(dir, name string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, ext := range []string{"png", "svg"} {
		b, err := f.Render(ext)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, name+"."+ext)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}
