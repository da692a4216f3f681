package input

import (
	"bytes"
	"fmt"
	"parlab/scan"
	"strings"
)

// Delimiters are the field delimiters parlab reads, by their flag names.
var Delimiters = map[string]byte{",": ',', "comma": ',', ";": ';', "semicolon": ';', "|": '|', "pipe": '|', "tab": '\t', "\t": '\t'}

// ParseDelimiter reads a --delimiter value (0 for "", which means: by
// each file's name, else by its first line).
func ParseDelimiter(s string) (byte, error) {
	if s == "" {
		return 0, nil
	}
	if d, ok := Delimiters[strings.ToLower(s)]; ok {
		return d, nil
	}
	return 0, fmt.Errorf("unknown delimiter %q (want , ; | or tab)", s)
}

// NameDelimiter is PATH p's delimiter: sep if not 0, else the one its name
// says: tab for a .tsv or .tab file (compressed or not), else 0: its
// first line's (scan.SniffDelimiter; SniffFile, readable).
func NameDelimiter(p string, sep byte) byte {
	if sep != 0 {
		return sep
	}
	base := Stem(p)
	if strings.HasSuffix(base, ".tsv") || strings.HasSuffix(base, ".tab") {
		return '\t'
	}
	return 0
}

// SniffBytes bounds what is read of an input's start to find its
// delimiter: a first line longer is judged by its first SniffBytes.
const SniffBytes = 64 << 10

// PlainDelimiter is the delimiter of PATH p, a file that is not
// compressed, to scan it in place with: NameDelimiter's, or its first line's;
// 0 where it must be read as a stream to be scanned (SniffFile: UTF-16, or
// lines that end in a CR alone), whatever the user or its name said, so
// that its bytes give the same answer as they would through a pipe.
func PlainDelimiter(p string, sep byte) byte {
	found := SniffFile(p)
	if d := NameDelimiter(p, sep); d != 0 && found != 0 {
		return d
	}
	return found
}

// SniffFile is the delimiter the first line of the file at path says (4
// KiB of it, or SniffBytes where the line is longer), read as Head
// reads it, which leaves the page cache as the scan wants it; 0 for a
// UTF-16 file or one whose lines end in a CR alone, which must be read as a
// stream (readable) to be scanned. A file that cannot be read is given ','
// (the error comes when the scan opens it).
func SniffFile(path string) byte {
	var sep byte = ','
	for _, n := range []int{4 << 10, SniffBytes} { // (a header longer than 4 KiB is rare)
		head, err := Head(path, n)
		if err != nil {
			return ','
		}
		if IsUTF16(head) {
			return 0
		}
		var whole, crOnly bool
		if sep, whole, crOnly = scan.SniffDelimiter(head); crOnly {
			return 0
		}
		if whole || len(head) < n {
			break
		}
	}
	return sep
}

// IsUTF16 reports whether head starts with UTF-16's byte order mark
// (little- or big-endian): Excel's "Unicode Text", for one.
func IsUTF16(head []byte) bool {
	return bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF})
}

// Compressed reports whether a stream's first bytes are gzip's or zstd's
// magic.
func Compressed(magic []byte) bool { return StreamZip(magic) != "" }

// StreamZip is the compression a stream's first bytes say (".gz", ".zst",
// or "").
func StreamZip(magic []byte) string {
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		return ".gz"
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return ".zst"
	case len(magic) >= 4 && magic[0]&0xf0 == 0x50 && bytes.Equal(magic[1:4], []byte{0x2a, 0x4d, 0x18}):
		return ".zst" // a skippable frame first, as pzstd writes
	}
	return ""
}

// Stem is PATH p in lower case without the compression its name says
// (x.TSV.gz: x.tsv), whose ending says what the file holds.
func Stem(p string) string { return strings.ToLower(p[:len(p)-len(Compression(p))]) }

// Compression is the compression a file's name says (".gz", ".zst", or "").
func Compression(p string) string {
	switch l := strings.ToLower(p); {
	case strings.HasSuffix(l, ".gz"):
		return ".gz"
	case strings.HasSuffix(l, ".zst"):
		return ".zst"
	}
	return ""
}
