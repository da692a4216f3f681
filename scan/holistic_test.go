package scan

import (
	"encoding/binary"
	"errors"
	"math/big"
	"slices"
	"testing"
)

// selectInt64 gives the k-th least and leaves the greater ones after it,
// as a sort would, whatever the input (duplicates, sorted, reversed).
func FuzzSelectInt64(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, uint16(1))
	f.Add(make([]byte, 64), uint16(3))
	f.Fuzz(func(t *testing.T, b []byte, k uint16) {
		var ms []int64
		for len(b) >= 2 {
			ms = append(ms, int64(int16(binary.LittleEndian.Uint16(b)))) // (small values: many equal)
			b = b[2:]
		}
		if len(ms) == 0 {
			return
		}
		i := int(k) % len(ms)
		want := slices.Sorted(slices.Values(ms))
		got := selectInt64(ms, i)
		if got != want[i] {
			t.Fatalf("selectInt64(_, %d) = %d, want %d", i, got, want[i])
		}
		for j, m := range ms {
			if j < i && m > got || j > i && m < got {
				t.Fatalf("after selectInt64(_, %d): %d at %d", i, m, j)
			}
		}
	})
}

// A median or quantile is exact and has the digits Holistic says; values
// too long for one scale take the sorted way to the same answer.
func TestHolisticValue(t *testing.T) {
	num := func(s string) Extreme {
		m, sc, err := ParseFixed([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return Extreme{m, int8(sc), true}
	}
	for _, c := range []struct {
		vals []string
		p    string
		want string
	}{
		{[]string{"1.50", "2.50"}, "0.5", "2.00"},
		{[]string{"1.50", "2.25"}, "0.5", "1.875"},
		{[]string{"3", "1", "2"}, "0.5", "2"},
		{[]string{"10", "20", "30", "40"}, "0.9", "37"},
		{[]string{"10", "20", "30", "40"}, "0.25", "17.5"},
		{[]string{"-1", "7.1", "7.10"}, "1", "7.10"},
		{[]string{"5"}, "0.999", "5"},
		{[]string{"922337203685477580.7", "1", "2"}, "0.5", "2.0"},  // at scale 1, every value an int64
		{[]string{"9223372036854775807", "0.5", "1"}, "0.5", "1.0"}, // the first past an int64 at scale 1: sorted
	} {
		var xs []Extreme
		for _, v := range c.vals {
			xs = append(xs, num(v))
		}
		before := slices.Clone(xs)
		p, err := quantileP(c.p)
		if err != nil {
			t.Fatal(err)
		}
		v, sc, ok := holisticValue([][]Extreme{xs[:1], xs[1:]}, p)
		if !ok || v.FloatString(sc) != c.want {
			t.Errorf("quantile %s of %v: %v at %d, want %s", c.p, c.vals, v, sc, c.want)
		}
		if !slices.Equal(xs, before) {
			t.Errorf("holisticValue changed its values")
		}
	}
	if _, _, ok := holisticValue(nil, big.NewRat(1, 2)); ok {
		t.Error("a median of no values")
	}
}

// A median's or quantile's value has at most 18 digits, after the point
// too: 1e-20 (m = 1 at scale 20) is an error naming it, as the reference
// says, in every way bulk takes rows (it crashed the median, beside
// integers, as an index past the powers of ten); 18 digits after the point
// answer exactly.
func TestHolisticDigits(t *testing.T) {
	for _, c := range []struct {
		body string
		bad  bool
	}{
		{"x\n1e-20\n5\n7\n", true},
		{"x\n5\n0.00000000000000000001\n", true},
		{"x\n0.000000000000000001\n5\n9\n", false},
		{"x\n1e-18\n5\n", false},
	} {
		for _, h := range []Holistic{{"median", "x", ""}, {"quantile", "x", "0.25"}} {
			q := Query{Holistic: []Holistic{h}}
			_, err := checkGen(t, c.body, []refFile{{"d.csv", []byte(c.body)}}, q)
			if (err != nil) != c.bad || c.bad && !errors.Is(err, ErrOverflow) {
				t.Errorf("%q, %v: error %v", c.body, h, err)
			}
		}
	}
}
