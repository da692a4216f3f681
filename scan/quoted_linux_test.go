package scan

import (
	"strings"
	"syscall"
	"testing"
)

// atGuard copies b to the end of a page followed by one that cannot be
// read, as a file whose size is a multiple of the page size is mapped:
// a read past b's end faults.
func atGuard(t *testing.T, b []byte) []byte {
	ps := syscall.Getpagesize()
	n := (len(b) + ps - 1) / ps * ps
	m, err := syscall.Mmap(-1, 0, n+ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	if err := syscall.Mprotect(m[n:], syscall.PROT_NONE); err != nil {
		t.Skip(err)
	}
	out := m[n-len(b) : n : n] // (cap: a mapping's end, as a file's)
	copy(out, b)
	return out
}

// A quoted window walked in place (quotedLeadOK) whose last row matches
// and ends at the data's end, right before a page that cannot be read:
// hotWalk's compare of a value longer than 7 bytes (the quoted value's
// second word) must not read past the end.
func TestQuotedLeadAtGuard(t *testing.T) {
	for _, tail := range []string{`"Europe",1,2` + "\n", `"Europe",1,23` + "\n", `"Europe",12,3` + "\n", `"Europe",1,2`} {
		var sb strings.Builder
		sb.WriteString(fuzzHeader)
		for range 200 {
			sb.WriteString(`"Asia",1,2` + "\n" + `"Europe",3,4` + "\n")
		}
		sb.WriteString(tail)
		data := atGuard(t, []byte(sb.String()))
		q := Query{Filters: []Cond{Eq("f", "Europe")}, Sum: []string{"x", "y"}}
		for _, mode := range hotModes() {
			m := mode()
			var want refAnswer
			if err := refQuery([]refFile{{"guard.csv", data}}, q, &want); err != nil {
				t.Fatal(err)
			}
			got, err := scanAll([]refFile{{"guard.csv", data}}, q)
			if err != nil || got.Matched != want.matched || got.Sums[0].String() != want.sums[0].String() {
				t.Fatalf("%s, tail %q: %+v (%v), reference %d %s", m, tail, got, err, want.matched, want.sums[0])
			}
		}
	}
}

// The same for the general path's first-column filter on a value of 8 to
// 15 bytes (hotWalk's second word), in a quote-free file: its last row
// matches and ends right before a page that cannot be read.
func TestLongLeadAtGuard(t *testing.T) {
	for _, tail := range []string{"Europeans,1,2\n", "Europeans,1,23\n", "Europeans,1,2"} {
		var sb strings.Builder
		sb.WriteString(fuzzHeader)
		for range 200 {
			sb.WriteString("Asia,1,2\nEuropeans,3,4\n")
		}
		sb.WriteString(tail)
		data := atGuard(t, []byte(sb.String()))
		for _, q := range []Query{
			{Filters: []Cond{Eq("f", "Europeans"), {Col: "x", Op: OpGt, Value: "0"}}, Sum: []string{"y"}},
			{Filters: []Cond{Eq("f", "Europeans")}, By: []string{"x"}, Sum: []string{"y"}},
		} {
			var first *Result
			for _, mode := range hotModes() {
				m := mode()
				got, err := scanAll([]refFile{{"guard.csv", data}}, q)
				if err != nil || got.Matched != 201 {
					t.Fatalf("%s, %+v, tail %q: %+v (%v), want 201 matched", m, q, tail, got, err)
				}
				if first == nil {
					first = &got
				} else if !got.Equal(first) {
					t.Fatalf("%s, %+v, tail %q: %+v, the first way's %+v", m, q, tail, got, *first)
				}
			}
		}
	}
}
