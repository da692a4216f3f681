package draw_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"parlab/bench/figure"
	"parlab/bench/figure/draw"
)

func sample() *figure.Figure {
	return &figure.Figure{Title: "Speedup", Subtitle: "a test", XLabel: "workers", YLabel: "speedup",
		Series: []figure.Series{{Label: "goroutines", Points: []figure.XY{{X: 1, Y: 1}, {X: 2, Y: 1.9}}},
			{Label: "ideal", Color: figure.Gray, Fit: true, Points: []figure.XY{{X: 1, Y: 1}, {X: 2, Y: 2}}}},
		Lines: []figure.Line{{Y: 2, Label: "2 cores"}}, Width: 6, Height: 4}
}

// The figure drawn here and the figure drawn by parlab-figure (built for
// the test and found on PATH, as parlab finds it beside itself) are the
// same bytes; without a drawer, Render says what is missing.
func TestRenderByDrawer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/parlab-figure")
	}
	f := sample()
	want := map[string][]byte{}
	for _, format := range []string{"png", "svg"} {
		b, err := draw.Render(f, format)
		if err != nil {
			t.Fatal(err)
		}
		want[format] = b
	}
	if !bytes.HasPrefix(want["png"], []byte("\x89PNG")) || !bytes.Contains(want["svg"], []byte("<svg")) {
		t.Fatalf("not a PNG and an SVG: %q, %q", want["png"][:8], want["svg"][:min(80, len(want["svg"]))])
	}
	if _, err := draw.Render(f, "gif"); err == nil {
		t.Error("a gif was drawn")
	}

	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build parlab-figure with")
	}
	path := os.Getenv("PATH")
	figure.Draw = nil
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	if _, err := f.Render("svg"); !errors.Is(err, figure.ErrNoDrawer) {
		t.Fatalf("no drawer: %v, want ErrNoDrawer", err)
	}
	build := exec.Command(gobin, "build", "-o", filepath.Join(dir, figure.DrawerName), "parlab/cmd/parlab-figure")
	build.Env = append(os.Environ(), "PATH="+path, "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir2 := t.TempDir()
	files, err := f.Save(dir2, "speedup")
	if err != nil {
		t.Fatal(err)
	}
	for i, format := range []string{"png", "svg"} {
		b, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, want[format]) {
			t.Errorf("%s: parlab-figure drew %d bytes, draw.Render %d", format, len(b), len(want[format]))
		}
	}
	if _, err := f.Render("gif"); err == nil {
		t.Error("parlab-figure drew a gif")
	}
}
