package scan

import (
	"strconv"
	"strings"
	"testing"
)

// TestYear4 checks the SWAR read of four digits against strconv: every
// four-digit string, and every byte in every place of one.
func TestYear4(t *testing.T) {
	for n := range 10000 {
		s := []byte(strconv.Itoa(10000 + n)[1:])
		if got, ok := year4(s); !ok || got != n {
			t.Fatalf("year4(%q) = %d %v", s, got, ok)
		}
	}
	for i := range 4 {
		for c := range 256 {
			s := []byte("2015")
			s[i] = byte(c)
			want, err := strconv.Atoi(string(s))
			wantOK := err == nil && c >= '0' && c <= '9'
			if got, ok := year4(s); ok != wantOK || ok && got != want {
				t.Fatalf("year4(%q) = %d %v, want %d %v", s, got, ok, want, wantOK)
			}
		}
	}
}

// month reads exactly the names a plain comparison with every month's
// name, its first three letters and "sept" reads, in any case, whatever
// letter a word starts with.
func TestMonth(t *testing.T) {
	ref := func(b []byte) int {
		n := 0
		for n < len(b) && isLetter(b[n]) {
			n++
		}
		w := strings.ToLower(string(b[:n]))
		for i, name := range monthNames {
			if n >= 3 && (w == name || w == name[:3] || i == 8 && w == "sept") {
				return i + 1
			}
		}
		return 0
	}
	words := []string{"", "ja", "Jan", "JANUARY", "janu", "sept", "Sep", "september", "Septembe", "may", "MAY ", "mays",
		"Europe", "Asia", "Janxary", "Augusx", "Febuary", "aug.", "oct-1", "Nov 5", "dec,", "x", "zebra", "@pr", "[jan", "`jan", "{feb"}
	for c := byte('A'); c <= 'z'; c++ {
		words = append(words, string(c)+"an", string(c)+"ar", string(c)+"ug", string(c)+"ecember")
	}
	for _, w := range words {
		m, rest := month([]byte(w))
		if want := ref([]byte(w)); m != want {
			t.Errorf("month(%q) = %d, want %d", w, m, want)
		}
		if m == 0 && string(rest) != w {
			t.Errorf("month(%q) left %q, want all of it", w, rest)
		}
	}
}
