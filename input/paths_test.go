package input

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// A directory gives its data files (by their names' endings, in any case,
// compressed or not), sorted, and leaves out hidden files and others; a
// gen that did not finish, a FIFO among them, a directory without data
// files, and "-" named twice are errors naming the path.
func TestExpandPaths(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.csv", "a.TSV", "c.tab.gz", "d.csv.zst", "e.ndjson", "f.jsonl", ".hidden.csv", "notes.txt", "g.CSV"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ExpandPaths([]string{dir, Stdin})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, n := range []string{"a.TSV", "b.csv", "c.tab.gz", "d.csv.zst", "e.ndjson", "f.jsonl", "g.CSV"} {
		want = append(want, filepath.Join(dir, n))
	}
	want = append(want, Stdin)
	if !slices.Equal(got, want) {
		t.Errorf("ExpandPaths:\n got %q\nwant %q", got, want)
	}

	empty := t.TempDir()
	if _, err := ExpandPaths([]string{empty}); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("a directory without data files: %v", err)
	}
	if _, err := ExpandPaths([]string{Stdin, Stdin}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("- twice: %v", err)
	}
	if _, err := ExpandPaths([]string{filepath.Join(dir, "missing.csv")}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if got, err := ExpandPathsElsewhere([]string{filepath.Join(dir, "missing.csv")}); err != nil || len(got) != 1 {
		t.Errorf("a file on another host: %q, %v", got, err)
	}

	unfinished := t.TempDir()
	if err := os.WriteFile(filepath.Join(unfinished, "part-0.csv.tmp"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ExpandPaths([]string{unfinished}); !errors.Is(err, ErrUnfinished) {
		t.Errorf("an unfinished gen: %v", err)
	}

	fifos := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(fifos, "p.csv"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	if _, err := ExpandPaths([]string{fifos}); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a FIFO in a directory: %v", err)
	}
	if got, err := ExpandPaths([]string{filepath.Join(fifos, "p.csv")}); err != nil || len(got) != 1 {
		t.Errorf("a FIFO named: %q, %v (Stage reads it as a pipe)", got, err)
	}
}
