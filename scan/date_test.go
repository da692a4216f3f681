package scan

import (
	"strconv"
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
