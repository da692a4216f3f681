package scan

import (
	"bytes"
	"errors"
	"fmt"
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
	err := Transcode(&out, bytes.NewReader(in), Transcoding{Sep: sep}, "in.tsv")
	if werr != nil || err != nil {
		var pe *ParseError
		if werr == nil || err == nil || !sameKind(err, werr) || !errors.As(err, &pe) || pe.File != "in.tsv" || pe.Line < 1 {
			t.Fatalf("Transcode(%q, %q): error %v, reference %v", in, sep, err, werr)
		}
		transcodeFast = false
		serr := Transcode(io.Discard, bytes.NewReader(in), Transcoding{Sep: sep}, "in.tsv")
		transcodeFast = true
		if serr == nil || serr.Error() != err.Error() {
			t.Fatalf("Transcode(%q, %q): error %v, without its fast path %v", in, sep, err, serr)
		}
		return
	}
	// the fast path (plainLines) writes what the field loop alone writes
	transcodeFast = false
	var slow bytes.Buffer
	serr := Transcode(&slow, bytes.NewReader(in), Transcoding{Sep: sep}, "in.tsv")
	transcodeFast = true
	if serr != nil || !bytes.Equal(slow.Bytes(), out.Bytes()) {
		t.Fatalf("Transcode(%q, %q) = %q, without its fast path %q (%v)", in, sep, out.Bytes(), slow.Bytes(), serr)
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
		{"item\tn\n27\" monitor\t1\nsay \"hi\"\t\"a\tb\"\n", '\t', "item,n\n\"27\"\" monitor\",1\n\"say \"\"hi\"\"\",a\tb\n"}, // a TSV's bare quote: a byte
		{"s\tn\n\"AGENT\" K\t1\n\"open\t2\n", '\t', "s,n\n\"\"\"AGENT\"\" K\",1\n\"\"\"open\",2\n"},                           // a TSV field that starts with a quote but is not a quoted one: bare
	} {
		var out bytes.Buffer
		if err := Transcode(&out, strings.NewReader(c.in), Transcoding{Sep: c.sep}, "x"); err != nil || out.String() != strings.TrimSuffix(c.want, "\n")+map[bool]string{true: "\n"}[strings.HasSuffix(c.in, "\n")] {
			t.Errorf("Transcode(%q) = %q, %v; want %q", c.in, out.String(), err, c.want)
		}
		checkTranscode(t, []byte(c.in), c.sep)
	}
	for _, bad := range []struct {
		in  string
		sep byte
	}{{"a;b\"c\n", ';'}, {"a|b\"c\n", '|'}, {"\"a\"b;c\n", ';'}, {"a;\"open\n", ';'}} {
		err := Transcode(io.Discard, strings.NewReader(bad.in), Transcoding{Sep: bad.sep}, "bad.tsv")
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != "bad.tsv" || pe.Line != 1 {
			t.Errorf("Transcode(%q): %v, want a ParseError at line 1", bad.in, err)
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

// Past the reader's 1 MiB buffer: plain lines cut by its end, quoted ones
// among them, a line longer than the buffer; the fast path's output is the
// field loop's, byte for byte, and a bad quote late in it is named at its
// line.
func TestTranscodeLarge(t *testing.T) {
	var b bytes.Buffer
	for i := range 60000 {
		switch i % 7 {
		case 3:
			fmt.Fprintf(&b, "\"q\t%d\"\tx,y\t\r\n", i)
		case 5:
			fmt.Fprintf(&b, "%d\t\t%s\r\n", i, strings.Repeat("v", i%50))
		default:
			fmt.Fprintf(&b, "%d\tplain\t%d\n", i, i*3)
		}
		if i == 30000 {
			b.WriteString(strings.Repeat("w\t", 700000) + "end\n")
		}
	}
	in := b.Bytes()
	checkTranscode(t, in, '\t')
	// (the same lines with ';': a TSV knows no bad quote)
	bad := append(bytes.ReplaceAll(in, []byte{'\t'}, []byte{';'}), "1;\"x\"y\n"...) // (a byte after the closing quote)
	err := Transcode(io.Discard, bytes.NewReader(bad), Transcoding{Sep: ';'}, "big.csv")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != bytes.Count(in, []byte{'\n'})+1 || pe.Column != 6 { // (the y)
		t.Errorf("a bad quote on the last line: %v, want line %d, column 6", err, bytes.Count(in, []byte{'\n'})+1)
	}
}

// BenchmarkTranscode: a TSV of plain lines (the fast path's), and a
// ';'-separated file with a quoted field on every line (the field loop's,
// after a look by the fast path at each line's start).
func BenchmarkTranscode(b *testing.B) {
	for _, c := range []struct {
		name, line string
		sep        byte
	}{
		{"plain", "Europe\tFrance\tFruits\tOnline\tC\t2/20/2017\t326285970\t3/31/2017\t122\t9.33\t6.92\t1138.26\t844.24\t294.02\n", '\t'},
		{"quoted", "Europe;\"France\";Fruits;Online;C;2/20/2017;326285970;3/31/2017;122;9.33;6.92;1138.26;844.24;294.02\n", ';'},
	} {
		in := bytes.Repeat([]byte(c.line), 40000)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if err := Transcode(io.Discard, bytes.NewReader(in), Transcoding{Sep: c.sep}, "b"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestSniffDelimiter(t *testing.T) {
	for _, c := range []struct {
		head          string
		sep           byte
		whole, crOnly bool
	}{
		{"a,b,c\n1;2;3\n", ',', true, false},
		{"a;b;c\r\n1;2;3\r\n", ';', true, false},
		{"\xef\xbb\xbfname\tamount\twhen\n", '\t', true, false},
		{"a|b\n", '|', true, false},
		{`"x,y";b;c` + "\n", ';', true, false},           // the comma is quoted
		{`"x"",y";b` + "\n", ';', true, false},           // a doubled quote inside quotes
		{"\"two\nlines\"\tb\n1\t2\n", '\t', true, false}, // a quoted LF does not end the line
		{"a;b|c|d\n", '|', true, false},                  // the most frequent
		{"a;b\tc\n", '\t', true, false},                  // a tie: the tab
		{"amount\n1\n", ',', true, false},                // one column
		{"a\tb;c,d\n", ',', true, false},                 // a comma wins
		{"a;b;c", ';', false, false},                     // no line end in head
		{"a\tb\n1,2,3\n", '\t', true, false},             // only the first line counts
		{"", ',', false, false},
		{"a;b\r1;2\r", ';', true, true},                 // lines that end in a CR alone
		{"\"a\rb\";c\r\n", ';', true, false},            // a quoted CR
		{"a;b\r", ';', false, false},                    // a CR at head's end: its next byte unseen
		{"\n\r\na;b\n", ';', true, false},               // blank lines before the header
		{"\n\n", ',', false, false},                     // nothing but blank lines
		{"\r\ra;b\r1;2\r", ';', true, true},             // blank lines in a CR-only file
		{"size (\")\tprice\n", '\t', true, false},       // a bare quote (TSV's: a byte)
		{"\xef\xbb\xbf\"a,b\"\tc\n", '\t', true, false}, // a quote after a BOM opens a field
		{"\"a\"\",b\";c\n", ';', true, false},           // a doubled quote: the comma after it is the quoted field's
	} {
		sep, whole, crOnly := SniffDelimiter([]byte(c.head))
		if sep != c.sep || whole != c.whole || crOnly != c.crOnly {
			t.Errorf("SniffDelimiter(%q) = %q, %v, %v; want %q, %v, %v", c.head, sep, whole, crOnly, c.sep, c.whole, c.crOnly)
		}
	}
}

// With DecimalComma, a field that is a number with a decimal comma is
// written with a point; any other field as it is.
func TestTranscodeDecimalComma(t *testing.T) {
	for _, c := range []struct {
		in   string
		sep  byte
		want string
	}{
		{"k;v\na;1,5\nb;-0,25\nc;\"+12,0\"\n", ';', "k,v\na,1.5\nb,-0.25\nc,+12.0\n"},
		{"k;v\na;1.234,5\nb;1,\nc;,5\nd;1,2,3\ne;x,5\nf;5\n", ';', "k,v\na,\"1.234,5\"\nb,\"1,\"\nc,\",5\"\nd,\"1,2,3\"\ne,\"x,5\"\nf,5\n"},
		{"k,v\r\na,\"1,5\"\r\nb,2\r\n", ',', "k,v\r\na,1.5\r\nb,2\r\n"},
		{"k\tv\na b\t3,75", '\t', "k,v\na b,3.75"},
	} {
		var out bytes.Buffer
		if err := Transcode(&out, strings.NewReader(c.in), Transcoding{Sep: c.sep, DecimalComma: true}, "x"); err != nil || out.String() != c.want {
			t.Errorf("Transcode(%q, decimal comma) = %q, %v; want %q", c.in, out.String(), err, c.want)
		}
	}
	// without it, a decimal comma stays (quoted: it holds a comma)
	var out bytes.Buffer
	if err := Transcode(&out, strings.NewReader("k;v\na;1,5\n"), Transcoding{Sep: ';'}, "x"); err != nil || out.String() != "k,v\na,\"1,5\"\n" {
		t.Errorf("Transcode of 1,5: %q, %v", out.String(), err)
	}
}

// A TSV field that starts with a quote and runs past the reader's buffer
// is quoted only if it closes as one, as a short one is: a bare one was
// taken as quoted, and never closed (a valid file refused).
func TestTranscodeLongTSVQuote(t *testing.T) {
	long := strings.Repeat("k", 5<<19)
	for _, c := range []string{
		"a\tb\n\"" + long + "\t5\nx\t6\n",                // never a quote again: bare
		"a\tb\n\"" + long + "\"x\t5\nx\t6\n",             // a quote far on, not closing: bare
		"a\tb\n\"" + long + "\t\n" + long + "\"\t5\n",    // quoted, a tab and a line end in it
		"a\tb\n\"" + long + "\"\"" + long + "\"\t5\n",    // quoted, a doubled quote in it
		"a\tb\n\"" + long + "\"",                         // closes at the end
		"a\tb\n\"" + long + "\r\n" + long + "\"\r\n1\t2", // CR LF around
	} {
		checkTranscode(t, []byte(c), '\t')
	}
}

// The line and record options: comment and skipped lines become blank
// lines (so every later line keeps its number), null tokens empty fields
// (unquoted only), and short records padded to the header's fields.
func TestTranscodeOptions(t *testing.T) {
	for _, c := range []struct {
		in   string
		o    Transcoding
		want string
	}{
		{"# c\na,b\n#x,\"y\n1,2\n", Transcoding{Sep: ',', Comment: '#'}, "\na,b\n\n1,2\n"},
		{"title\r\nmore \"q\r\na;b\r\n1;2\r\n", Transcoding{Sep: ';', Skip: 2}, "\r\n\r\na,b\r\n1,2\r\n"},
		{"a\tb\nNA\t\"NA\"\nNULL\tx\n", Transcoding{Sep: '\t', Null: []string{"NA", "NULL"}}, "a,b\n,NA\n,x\n"}, // (a quoted NA is text: written bare)
		{"a,b,c\n1\n\n2,3\n4,5,6,7\n\"q\"\n8,", Transcoding{Sep: ',', Ragged: true}, "a,b,c\n1,,\n\n2,3,\n4,5,6,7\nq,,\n8,,"},
		{"a,b\r\n1\r\n\"x\"\r\n", Transcoding{Sep: ',', Ragged: true}, "a,b\r\n1,\r\nx,\r\n"},
		{"# only comments\n#\n", Transcoding{Sep: ',', Comment: '#'}, "\n\n"},
		{"skip\nno end", Transcoding{Sep: ',', Skip: 5}, "\n"},
	} {
		var out bytes.Buffer
		if err := Transcode(&out, strings.NewReader(c.in), c.o, "f"); err != nil || out.String() != c.want {
			t.Errorf("%q %+v: %q, %v; want %q", c.in, c.o, out.String(), err, c.want)
		}
		if bytes.Count(out.Bytes(), []byte{'\n'}) != strings.Count(c.in, "\n") {
			t.Errorf("%q: the lines moved", c.in)
		}
	}
	if (Transcoding{Sep: ','}).Plain() != true || (Transcoding{Sep: ',', Ragged: true}).Plain() {
		t.Error("Plain")
	}
}

// FuzzTranscodeOptions: any bytes under any of the line and record
// options: no panic, every line kept (a comment or skipped line is left
// blank, never removed), and an option with nothing to act on (no line
// that starts with the comment byte, no field equal to a null token)
// changes nothing.
func FuzzTranscodeOptions(f *testing.F) {
	for _, s := range []string{"# c\na\tb\n1\t2", "t\r\nx;y\r\nNA;\"NA\"\r\n", "a|b|c\n1\n\n2|3|4|5", "\"#q\n#\"\t1\n#x"} {
		f.Add([]byte(s), uint8(0), uint8(31))
	}
	f.Fuzz(func(t *testing.T, in []byte, which, opts uint8) {
		o := Transcoding{Sep: "\t;|"[which%3], Skip: int(opts>>1) & 3, Ragged: opts&16 != 0}
		if opts&1 != 0 {
			o.Comment = '#'
		}
		if opts&8 != 0 {
			o.Null = []string{"NA"}
		}
		var out bytes.Buffer
		err := Transcode(&out, bytes.NewReader(in), o, "in")
		if err == nil && bytes.Count(out.Bytes(), []byte{'\n'}) != bytes.Count(in, []byte{'\n'}) {
			t.Fatalf("Transcode(%q, %+v) = %q: the lines moved", in, o, out.Bytes())
		}
		if o.Skip > 0 || o.Ragged || o.Comment != 0 && (bytes.HasPrefix(in, []byte{'#'}) || bytes.Contains(in, []byte("\n#"))) ||
			len(o.Null) > 0 && bytes.Contains(in, []byte("NA")) {
			return
		}
		var plain bytes.Buffer
		perr := Transcode(&plain, bytes.NewReader(in), Transcoding{Sep: o.Sep}, "in")
		if (err == nil) != (perr == nil) || err == nil && !bytes.Equal(out.Bytes(), plain.Bytes()) {
			t.Fatalf("Transcode(%q, %+v) = %q, %v; with nothing to act on, plainly %q, %v", in, o, out.Bytes(), err, plain.Bytes(), perr)
		}
	})
}
