package render

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestDisplayWidth(t *testing.T) {
	for _, c := range []struct {
		in, shown string
		width     int
	}{
		{"", "", 0}, {"Chad", "Chad", 4}, {"Côte d’Ivoire", "Côte d’Ivoire", 13}, {"日本", "日本", 4},
		{"ｆｕｌｌ", "ｆｕｌｌ", 8}, {"e\u0301", "e\u0301", 1}, {"a\tb", `"a\tb"`, 6},
		{"\x7f", `"\x7f"`, 6}, {"\u0085", `"\u0085"`, 8}, {"\xff", `"\xff"`, 6}, {`"`, `"\""`, 4}, {`a"`, `a"`, 2},
	} {
		if s, w := DisplayString(c.in); s != c.shown || w != c.width {
			t.Errorf("DisplayString(%q) = %q, %d; want %q, %d", c.in, s, w, c.shown, c.width)
		}
		if w := ShownWidth([]byte(c.in)); w != c.width {
			t.Errorf("ShownWidth(%q) = %d, want %d", c.in, w, c.width)
		}
	}
}

// Any bytes shown in the text table: no control character and valid
// UTF-8 on the terminal, the bytes given back exactly (as they are, or by
// strconv.Unquote of a quoted cell, which alone starts with '"'), and
// ShownWidth agrees with DisplayCell.
func FuzzDisplayCell(f *testing.F) {
	for _, s := range []string{"Chad", "a\tb", "\x1b[31m", "\"q\"", "Cura\xe7ao", "日本", "e\u0301", "\u200b", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		out, w := DisplayCell([]byte("x"), v)
		shown := string(out[1:])
		if !utf8.ValidString(shown) || w != ShownWidth(v) || w > len(shown) {
			t.Fatalf("%q shown as %q, width %d (ShownWidth %d)", v, shown, w, ShownWidth(v))
		}
		for _, r := range shown {
			if !unicode.IsPrint(r) {
				t.Fatalf("%q shown as %q: %U is not printable", v, shown, r)
			}
		}
		back := shown
		if strings.HasPrefix(shown, `"`) {
			var err error
			if back, err = strconv.Unquote(shown); err != nil {
				t.Fatalf("%q shown as %q: %v", v, shown, err)
			}
		}
		if back != string(v) {
			t.Fatalf("%q shown as %q, read back as %q", v, shown, back)
		}
	})
}
