package scan

import "testing"

func TestGrowHuge(t *testing.T) {
	var s []int64
	for i := range int64(100_000) {
		s = appendHuge(s, i)
	}
	for i, v := range s {
		if v != int64(i) {
			t.Fatalf("s[%d] = %d after growing", i, v)
		}
	}
	if g := growHuge(s, 0); &g[0] != &s[0] {
		t.Fatalf("growHuge(s, 0) copied s")
	}
	if g := growHuge(s[:10], 5); &g[0] != &s[0] || cap(g) != cap(s) {
		t.Fatalf("growHuge with room to spare copied s")
	}
	if g := growHuge(s, cap(s)); cap(g) < len(s)+cap(s) || len(g) != len(s) {
		t.Fatalf("growHuge(s, %d): len %d cap %d", cap(s), len(g), cap(g))
	}
}
