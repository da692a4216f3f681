package study

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parlab/internal/testrun"
)

// The HTML report as a reader sees it: headless Chromium (Debian's package;
// .ci/run installs it) loads the page from a file, with the network off,
// and the DOM it renders holds every table and figure, and the console says
// nothing (no error, no blocked fetch). It takes a screenshot too, which
// must be a PNG.
func TestHTMLInBrowser(t *testing.T) {
	testrun.FullRunOnly(t, "a browser draws the page")
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI has no chromium: .ci/run must install it")
		}
		t.Skip("no chromium here")
	}
	d := goldenDoc(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteHTML(f, nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	run := func(args ...string) (string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--proxy-server=127.0.0.1:9", "--user-data-dir=" + filepath.Join(dir, "profile"),
			"--enable-logging=stderr", "--v=0"}, args...)
		cmd := exec.CommandContext(ctx, browser, args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
		}
		return out.String(), errb.String()
	}
	dom, logs := run("--dump-dom", "file://"+page)
	for _, want := range []string{`<table>`, `id="results"`, `id="figure-speedup"`, `id="figure-trials"`, `id="best"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %s", want)
		}
	}
	if n := strings.Count(dom, "<svg"); n != 4 {
		t.Errorf("%d figures rendered, want 4", n)
	}
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "CONSOLE") || strings.Contains(l, "Uncaught") || strings.Contains(l, "net::ERR") {
			t.Errorf("browser console: %s", l)
		}
	}
	shot := filepath.Join(dir, "page.png")
	run("--hide-scrollbars", "--window-size=1280,1600", "--screenshot="+shot, "file://"+page)
	b, err := os.ReadFile(shot)
	if err != nil || len(b) < 10000 || string(b[1:4]) != "PNG" {
		t.Errorf("screenshot: %d bytes, %v", len(b), err)
	}
}
