package ftp

import (
	"fmt"
	"io/fs"
	"testing"
	"testing/fstest"
	"time"
)

// refLine is a LIST line as ls -l prints it, the slow way.
func refLine(name string, st fs.FileInfo, now time.Time) string {
	mode := "-rw-r--r--"
	if st.IsDir() {
		mode = "drwxr-xr-x"
	}
	t := st.ModTime()
	stamp := t.Format("Jan _2 15:04")
	if now.Sub(t) > 180*24*time.Hour || t.After(now.Add(time.Hour)) {
		stamp = t.Format("Jan _2  2006")
	}
	return fmt.Sprintf("%s 1 ftp ftp %12d %s %s", mode, st.Size(), stamp, name)
}

// LIST's lines are ls -l's: sizes right-aligned in 12 columns (wider when
// they must be), the time of day for a recent file, the year for one over
// six months old or an hour or more in the future.
func TestListLine(t *testing.T) {
	now := time.Date(2026, 12, 2, 3, 4, 5, 0, time.UTC)
	files := fstest.MapFS{
		"a":        {Data: []byte("x"), ModTime: now.Add(-time.Minute)},
		"b c":      {Data: make([]byte, 123456), ModTime: now.Add(-200 * 24 * time.Hour)},
		"future":   {ModTime: now.Add(2 * time.Hour)},
		"dir":      {Mode: fs.ModeDir, ModTime: now.Add(-179 * 24 * time.Hour)},
		"huge":     {ModTime: now},
		"day 1..9": {ModTime: time.Date(2026, 11, 5, 9, 0, 0, 0, time.UTC)},
	}
	ss := &session{}
	for name := range files {
		st, err := fs.Stat(files, name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "huge" {
			st = bigInfo{st}
		}
		if got, want := ss.entryAt(listLong, name, st, now), refLine(name, st, now); got != want {
			t.Errorf("%s:\n got %q\nwant %q", name, got, want)
		}
	}
}

// bigInfo is a file of 10^13 bytes, wider than LIST's 12 columns.
type bigInfo struct{ fs.FileInfo }

func (bigInfo) Size() int64 { return 1e13 }

// MLSD's facts (RFC 3659 7.5), against the slow way.
func TestFacts(t *testing.T) {
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	files := fstest.MapFS{"f": {Data: []byte("hello"), ModTime: mod}, "d": {Mode: fs.ModeDir, ModTime: mod},
		"old": {ModTime: time.Date(987, 12, 31, 23, 59, 58, 0, time.UTC)}, "far": {ModTime: time.Date(12345, 6, 7, 8, 9, 10, 0, time.UTC)}}
	for _, c := range []struct {
		name     string
		readOnly bool
		typ      string
		perm     string
	}{{"f", true, "file", "r"}, {"f", false, "file", "radfw"}, {"d", true, "dir", "el"}, {"d", false, "dir", "elcmpdf"},
		{"old", true, "file", "r"}, {"far", true, "file", "r"}} {
		st, _ := fs.Stat(files, c.name)
		want := fmt.Sprintf("type=%s;size=%d;modify=%s;perm=%s;", c.typ, st.Size(), st.ModTime().UTC().Format("20060102150405"), c.perm)
		if got := facts(st, c.readOnly); got != want {
			t.Errorf("%s, read-only %v: %q, want %q", c.name, c.readOnly, got, want)
		}
	}
}
