package input

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The delimiter a flag, a name and a first line say, and which inputs must
// be read as a stream (UTF-16, lone CR line ends: PlainDelimiter 0).
func TestDialect(t *testing.T) {
	for _, c := range []struct {
		flag string
		want byte
	}{{"", 0}, {",", ','}, {"comma", ','}, {"TAB", '\t'}, {"\t", '\t'}, {";", ';'}, {"semicolon", ';'}, {"|", '|'}, {"pipe", '|'}} {
		if got, err := ParseDelimiter(c.flag); err != nil || got != c.want {
			t.Errorf("ParseDelimiter(%q) = %q, %v", c.flag, got, err)
		}
	}
	if _, err := ParseDelimiter(":"); err == nil {
		t.Error("ParseDelimiter(:) took it")
	}

	for _, c := range []struct {
		path string
		sep  byte
		want byte
	}{{"a.csv", 0, 0}, {"a.tsv", 0, '\t'}, {"a.TAB.gz", 0, '\t'}, {"a.tsv.zst", 0, '\t'}, {"a.tsv", ';', ';'}, {"tsv.csv", 0, 0}} {
		if got := NameDelimiter(c.path, c.sep); got != c.want {
			t.Errorf("NameDelimiter(%q, %q) = %q, want %q", c.path, c.sep, got, c.want)
		}
	}

	dir := t.TempDir()
	file := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	long := append(bytes.Repeat([]byte("h,"), 3000), "z;y\n1\n"...) // a header past 4 KiB
	for _, c := range []struct {
		name string
		body []byte
		sep  byte // --delimiter
		want byte
	}{
		{"semi.csv", []byte("a;b;c\n1;2;3\n"), 0, ';'},
		{"pipe.csv", []byte("a|b\n1|2\n"), 0, '|'},
		{"named.tsv", []byte("a\tb\n1\t2\n"), 0, '\t'},
		{"flag.csv", []byte("a;b\n1;2\n"), '|', '|'}, // the user's word over the line's
		{"long.csv", long, 0, ','},
		{"utf16.csv", []byte{0xFF, 0xFE, 'a', 0, ',', 0, 'b', 0, '\n', 0}, ',', 0},
		{"mac.csv", []byte("a,b\r1,2\r"), 0, 0},
		{"missing.csv", nil, 0, ','},
	} {
		p := filepath.Join(dir, c.name)
		if c.body != nil {
			p = file(c.name, c.body)
		}
		if got := PlainDelimiter(p, c.sep); got != c.want {
			t.Errorf("PlainDelimiter(%s, %q) = %q, want %q", c.name, c.sep, got, c.want)
		}
	}

	for _, c := range []struct {
		magic []byte
		want  string
	}{
		{[]byte{0x1f, 0x8b, 8, 0}, ".gz"},
		{[]byte{0x28, 0xb5, 0x2f, 0xfd}, ".zst"},
		{[]byte{0x5a, 0x2a, 0x4d, 0x18}, ".zst"}, // a skippable frame first (pzstd)
		{[]byte("a,b\n"), ""},
		{[]byte{0x1f}, ""},
	} {
		if got := StreamZip(c.magic); got != c.want || Compressed(c.magic) != (c.want != "") {
			t.Errorf("StreamZip(% x) = %q, want %q", c.magic, got, c.want)
		}
	}
	for p, want := range map[string]string{"a.csv": "", "a.csv.GZ": ".gz", "a.zst": ".zst", "gz.csv": ""} {
		if got := Compression(p); got != want {
			t.Errorf("Compression(%q) = %q, want %q", p, got, want)
		}
	}
	for p, want := range map[string]string{"a.csv": "a.csv", "X.TSV.gz": "x.tsv", "b.ndjson.zst": "b.ndjson", "gz.csv": "gz.csv"} {
		if got := Stem(p); got != want {
			t.Errorf("Stem(%q) = %q, want %q", p, got, want)
		}
	}
}
