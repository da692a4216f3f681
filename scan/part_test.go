package scan

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// A key split's parts hold every key once between them, about evenly; a
// Part the query cannot use and parts that disagree are errors.
func TestKeyParts(t *testing.T) {
	oneGoroutine(t)
	// Order IDs (9 digits), and keys past 16 bytes
	for _, key := range []func(i int) string{
		func(i int) string { return fmt.Sprint(100000000 + 7919*i) },
		func(i int) string { return fmt.Sprintf("a long key of many words, number %d", i) },
	} {
		for _, n := range []int32{2, 3, 7} {
			counts := make([]int, n)
			for i := range 70000 {
				k := []byte(key(i))
				in := 0
				for p := range n {
					if (KeyPart{p, n}).has(k) {
						counts[p]++
						in++
					}
				}
				if in != 1 {
					t.Fatalf("%q is in %d of %d parts", k, in, n)
				}
			}
			for p, c := range counts {
				if want := 70000 / int(n); c < want*97/100 || c > want*103/100 {
					t.Errorf("%q…: part %d of %d holds %d keys of 70000", key(0), p, n, c)
				}
			}
		}
	}

	data := []byte("Region,Units Sold\nEurope,5\nAsia,7\nEurope,1\n")
	for _, c := range []struct {
		q    Query
		part KeyPart
		want string
	}{
		{Query{Sum: []string{"Units Sold"}}, KeyPart{0, 2}, "needs a group-by"},
		{Query{Filters: []Cond{Eq("Region", "Asia")}, Sum: []string{"Units Sold"}}, KeyPart{1, 2}, "needs a group-by"},
		{Query{By: []string{"Region"}, Sum: []string{"Units Sold"}}, KeyPart{2, 2}, "no such part"},
		{Query{By: []string{"Region"}, Sum: []string{"Units Sold"}}, KeyPart{-1, 2}, "no such part"},
	} {
		tb, err := NewTable("p.csv", data, &c.q)
		if err != nil {
			t.Fatal(err)
		}
		r := Result{Part: c.part}
		if err := tb.Scan(0, len(data), &r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v in %+v: %v, want %q", c.q, c.part, err, c.want)
		}
	}

	q := Query{By: []string{"Region"}, Sum: []string{"Units Sold"}}
	tb, err := NewTable("p.csv", data, &q)
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]*Result, 2)
	for k := range parts {
		parts[k] = &Result{Part: KeyPart{int32(k), 2}}
		if err := tb.Scan(0, len(data), parts[k]); err != nil {
			t.Fatal(err)
		}
	}
	var whole Result
	if err := tb.Scan(0, len(data), &whole); err != nil {
		t.Fatal(err)
	}
	got, err := MergeParts(parts, 2, 2)
	if err != nil || !got.Equal(&whole) || parts[0].Matched+parts[1].Matched != 3 || parts[0].Rows != 3 {
		t.Fatalf("merged parts %+v (%v), want %+v", got, err, whole)
	}
	short := *parts[1]
	short.Rows--
	for _, c := range []struct {
		rs   []*Result
		n    int
		want string
	}{
		{[]*Result{parts[0], &short}, 2, "scanned 2 rows"},
		{[]*Result{parts[0]}, 2, "part 1 of 2: no result"},
		{parts, 3, "not one of 3"},
		{[]*Result{parts[0], &whole}, 2, "not one of 2"},
	} {
		if _, err := MergeParts(c.rs, c.n, 2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("MergeParts of %d results in %d parts: %v, want %q", len(c.rs), c.n, err, c.want)
		}
	}
}

// partHashRef is partHash in its plain form: the key copied into zeroed
// 16-byte blocks (one at least), each mixed in, then the end's mix. Every
// process of a run must agree on a key's part, so the fast form must give
// the same hash, not merely a good one.
func partHashRef(key []byte) uint64 {
	const k1, k2, k3 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
	b := make([]byte, max(16, (len(key)+15)/16*16))
	copy(b, key)
	h := uint64(len(key)) * k3
	for ; len(b) > 0; b = b[16:] {
		h = mix(binary.LittleEndian.Uint64(b)^h^k1, binary.LittleEndian.Uint64(b[8:])^k2)
	}
	return mix(h, k3)
}

func TestPartHashRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	buf := make([]byte, 96)
	for range 20000 {
		for i := range buf {
			buf[i] = byte(rng.IntN(4)) * byte(rng.IntN(256))
		}
		n, at := rng.IntN(48), rng.IntN(48)
		key := buf[at : at+n : at+n]
		if h, w := partHash(key), partHashRef(key); h != w {
			t.Fatalf("%x: %x, want %x", key, h, w)
		}
	}
}

// A key split's parts made with room for their groups (Result.Expect) are
// put end to end in part 0's arrays, its own groups left in place: the
// answer is the whole scan's, with every aggregate's array, and each part
// still holds its own groups as they were. An Expect too small for the
// others (here, 1) copies them all, as without one.
func TestMergePartsInPlace(t *testing.T) {
	var b strings.Builder
	b.WriteString("Order ID,Units Sold,Unit Price\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "%d,%d,%d.%02d\n", 100000000+7919*(i%3700), i%97, i%50, i%100)
	}
	data := []byte(b.String())
	q := Query{By: []string{"Order ID"}, Sum: []string{"Units Sold"}, Min: []string{"Unit Price"}, Max: []string{"Unit Price"}}
	tb, whole := scanWhole(t, "o.csv", data, q)
	for _, expect := range []int{2000, 1} {
		parts := make([]*Result, 3)
		var keys [][]string
		for k := range parts {
			parts[k] = &Result{Part: KeyPart{int32(k), 3}, Expect: expect}
			if err := tb.Scan(0, len(data), parts[k]); err != nil {
				t.Fatal(err)
			}
			var ks []string
			for i := range parts[k].Groups.Len() {
				ks = append(ks, parts[k].Groups.Key(i))
			}
			keys = append(keys, ks)
		}
		got, err := MergeParts(parts, 3, 2)
		if err != nil || !got.Equal(&whole) {
			t.Fatalf("Expect %d: merged parts differ from the whole scan (%v)", expect, err)
		}
		shared := &got.Groups.arena[0] == &parts[0].Groups.arena[0] && &got.Groups.Sums[0] == &parts[0].Groups.Sums[0] && &got.Groups.Maxs[0] == &parts[0].Groups.Maxs[0]
		if shared != (expect > 1) {
			t.Errorf("Expect %d: answer shares part 0's arrays: %v", expect, shared)
		}
		for k, p := range parts {
			for i, key := range keys[k] {
				if p.Groups.Key(i) != key || p.Groups.Len() != len(keys[k]) {
					t.Fatalf("Expect %d: part %d changed: group %d is %q, was %q", expect, k, i, p.Groups.Key(i), key)
				}
			}
		}
	}
}

// scanWhole binds q to data's header and scans all of it: the table, and
// the answer a test's pieces or parts must give.
func scanWhole(t *testing.T, name string, data []byte, q Query) (*Table, Result) {
	t.Helper()
	tb, err := NewTable(name, data, &q)
	if err != nil {
		t.Fatal(err)
	}
	var whole Result
	if err := tb.Scan(0, len(data), &whole); err != nil {
		t.Fatal(err)
	}
	return tb, whole
}
