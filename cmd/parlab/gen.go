package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"parlab/data"
)

func (a *app) gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	rows := fs.Int("rows", 1000000, "data rows in all files together")
	files := fs.Int("files", 20, "number of files (named xaa.csv, xab.csv, …)")
	seed := fs.Uint64("seed", 1, "random seed: the same flags give byte-identical files")
	out := fs.String("out", "data/sales-1M", "output directory")
	force := fs.Bool("force", false, "replace a data set that parlab gen wrote there before (never other files)")
	format := fs.String("format", "csv", "csv, or ndjson: the same rows as JSON lines (xaa.ndjson …), numbers as JSON numbers")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("gen takes no arguments (got %q); use --out DIR", pos[0])
	}
	o := data.Options{Rows: *rows, Files: *files, Seed: *seed, NDJSON: *format == "ndjson"}
	if *format != "csv" && *format != "ndjson" {
		return usagef("--format %q: want csv or ndjson", *format)
	}
	if *rows < 0 || *files < 1 || *files > data.MaxFiles {
		return usagef("gen: --rows must be 0 or more and --files 1 to %d", data.MaxFiles)
	}
	t0 := time.Now()
	var progress func(int64)
	if *rows >= 1000000 && a.tty(a.stderr) {
		progress = a.progressBar("generating", int64(*rows)).draw
	}
	// SIGINT or SIGTERM stops it, and it removes its unfinished files.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := data.GenerateContext(ctx, *out, o, *force, progress); err != nil {
		if progress != nil {
			fmt.Fprint(a.stderr, "\r\033[K")
		}
		switch {
		case errors.Is(err, data.ErrNotEmpty):
			return fmt.Errorf("%w (--force replaces a data set that parlab gen wrote there)", err)
		case errors.Is(err, data.ErrNotOurs):
			return fmt.Errorf("%w (choose another --out)", err)
		}
		return err
	}
	if progress != nil {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	fmt.Fprintf(a.stdout, "wrote %d rows in %d files to %s in %.3f s\n", *rows, *files, *out, time.Since(t0).Seconds())
	return nil
}

// progress draws a bar on stderr at most every 50 ms. It is safe for
// concurrent calls.
type progress struct {
	a     *app
	label string
	total int64
	mu    sync.Mutex
	last  time.Time
}

func (a *app) progressBar(label string, total int64) *progress {
	return &progress{a: a, label: label, total: total}
}

func (p *progress) draw(done int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drawLocked(done)
}

func (p *progress) drawLocked(done int64) {
	if time.Since(p.last) < 50*time.Millisecond && done < p.total {
		return
	}
	p.last = time.Now()
	const width = 30
	total := max(p.total, 1)
	n := int(min(done, total) * width / total)
	fmt.Fprintf(p.a.stderr, "\r%s [%s%s] %3d%%", p.label, strings.Repeat("#", n), strings.Repeat(" ", width-n), min(done, total)*100/total)
}

// withTotal adapts the bar to callers that report (done, total).
func (p *progress) withTotal() func(done, total int) {
	return func(done, total int) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.total = int64(total)
		p.drawLocked(int64(done))
	}
}
