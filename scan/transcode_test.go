package scan

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// refRecords is every record of data in the dialect with delimiter sep,
// by the reference reader, or its error.
func refRecords(data []byte, sep byte) ([][]string, error) {
	r := &refReader{data: bytes.TrimPrefix(data, bom), comma: sep}
	var out [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

// checkTranscode transcodes in (delimiter sep) and checks the output
// against the reference: the same records read back with ',', the same
// lines, or the same kind of error.
func checkTranscode(t *testing.T, in []byte, sep byte) {
	t.Helper()
	want, werr := refRecords(in, sep)
	var out bytes.Buffer
	err := Transcode(&out, bytes.NewReader(in), sep, "in.tsv")
	if werr != nil || err != nil {
		var pe *ParseError
		if werr == nil || err == nil || !sameKind(err, werr) || !errors.As(err, &pe) || pe.File != "in.tsv" || pe.Line < 1 {
			t.Fatalf("Transcode(%q, %q): error %v, reference %v", in, sep, err, werr)
		}
		return
	}
	got, gerr := refRecords(out.Bytes(), ',')
	if gerr != nil || !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("Transcode(%q, %q) = %q: records %q (%v), want %q", in, sep, out.Bytes(), got, gerr, want)
	}
	if bytes.Count(out.Bytes(), []byte{'\n'}) != bytes.Count(in, []byte{'\n'}) {
		t.Fatalf("Transcode(%q, %q) = %q: the lines moved", in, sep, out.Bytes())
	}
}

func TestTranscode(t *testing.T) {
	for _, c := range []struct {
		in   string
		sep  byte
		want string
	}{
		{"a\tb\n1\t2\n", '\t', "a,b\n1,2\n"},
		{"a;b\r\n1,5;\"x;y\"\r\n", ';', "a,b\r\n\"1,5\",x;y\r\n"},
		{"a|b\n\n\"say \"\"hi\"\"\"|\"two\nlines\"", '|', "a,b\n\n\"say \"\"hi\"\"\",\"two\nlines\"\n"},
		{"\xef\xbb\xbfa\tb\n\t\n", '\t', "\xef\xbb\xbfa,b\n,\n"},
	} {
		var out bytes.Buffer
		if err := Transcode(&out, strings.NewReader(c.in), c.sep, "x"); err != nil || out.String() != strings.TrimSuffix(c.want, "\n")+map[bool]string{true: "\n"}[strings.HasSuffix(c.in, "\n")] {
			t.Errorf("Transcode(%q) = %q, %v; want %q", c.in, out.String(), err, c.want)
		}
		checkTranscode(t, []byte(c.in), c.sep)
	}
	for _, bad := range []string{"a\tb\"c\n", "\"a\"b\tc\n", "a\t\"open\n"} {
		err := Transcode(io.Discard, strings.NewReader(bad), '\t', "bad.tsv")
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != "bad.tsv" || pe.Line != 1 {
			t.Errorf("Transcode(%q): %v, want a ParseError at line 1", bad, err)
		}
	}
}

// FuzzTranscode: any bytes, with a tab, ';' or '|', read back as the
// reference reads the input, on the same lines, or fail as it does.
func FuzzTranscode(f *testing.F) {
	for _, s := range []string{"a\tb\n1\t2", "\"x\ty\"\t\"\"\"\"\r\n", "a,b\tc\r", "\"a\"\"", "x\"y", "\n\r\n\t\t\n"} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, which uint8) {
		checkTranscode(t, in, "\t;|"[which%3])
	})
}
