package render

import (
	"strconv"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// The text table shows a cell as it is if every rune in it is printable
// (unicode.IsPrint) and it does not start with '"'; any other cell is
// shown Go-quoted (strconv.AppendQuote: "a\tb", "Cura\xe7ao"). So a
// control byte from a file (a newline, ESC and the terminal sequence after
// it) never reaches the terminal as itself, a shown cell names its bytes
// exactly, and a quoted cell cannot be mistaken for a raw one. --csv and
// --json carry the bytes themselves.

// DisplayCell appends v as the text table shows it to dst, and returns the
// result and the columns it takes on a terminal (see displayWidth).
func DisplayCell(dst, v []byte) ([]byte, int) {
	if plainASCII(v) {
		return append(dst, v...), len(v)
	}
	n := len(dst)
	if needsQuote(v) {
		dst = strconv.AppendQuote(dst, string(v))
	} else {
		dst = append(dst, v...)
	}
	return dst, displayWidth(dst[n:])
}

// plainASCII says whether v is all printable ASCII and does not start
// with '"': shown as it is, a column a byte (the common case, checked
// first).
func plainASCII(v []byte) bool {
	if len(v) > 0 && v[0] == '"' {
		return false
	}
	for _, c := range v {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// needsQuote says whether v is shown quoted: it starts with '"', or holds
// a byte that is not UTF-8 or a rune that is not printable.
func needsQuote(v []byte) bool {
	if len(v) > 0 && v[0] == '"' {
		return true
	}
	for len(v) > 0 {
		r, n := utf8.DecodeRune(v)
		if r == utf8.RuneError && n == 1 || !unicode.IsPrint(r) {
			return true
		}
		v = v[n:]
	}
	return false
}

// displayWidth is the columns the printable UTF-8 text s takes: two for
// an East Asian wide or fullwidth rune, none for a combining mark, one for
// any other.
func displayWidth(s []byte) int {
	w := 0
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		s = s[n:]
		switch {
		case r < 0x300:
			w++ // (no mark or wide rune below U+0300)
		case unicode.In(r, unicode.Mn, unicode.Me):
		default:
			switch width.LookupRune(r).Kind() {
			case width.EastAsianWide, width.EastAsianFullwidth:
				w += 2
			default:
				w++
			}
		}
	}
	return w
}

// DisplayString is DisplayCell for a string, alone.
func DisplayString(s string) (string, int) {
	b, w := DisplayCell(nil, []byte(s))
	return string(b), w
}

// ShownWidth is the columns v takes as DisplayCell shows it.
func ShownWidth(v []byte) int {
	if plainASCII(v) {
		return len(v)
	}
	_, w := DisplayCell(nil, v)
	return w
}
