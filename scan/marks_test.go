package scan

import (
	"math/rand/v2"
	"testing"
)

// FuzzClassify checks every classifier this CPU runs (the portable one,
// AVX2 and AVX-512 on amd64) against refClassify, at every length up to a
// window, for each delimiter.
func FuzzClassify(f *testing.F) {
	f.Add([]byte("a,b\n\"c\"\n"), byte('a'))
	f.Add([]byte("a\tb\n\"c\"\n|;"), byte('a'))
	f.Add(make([]byte, winBytes), byte(0))
	f.Fuzz(func(t *testing.T, src []byte, v0 byte) {
		if len(src) > winBytes {
			src = src[:winBytes]
		}
		for _, sep := range []byte(",\t;|") {
			checkClassifiers(t, src, int(v0), sep)
			checkClassifiers(t, src, everyRow, sep)
			checkClassifiers(t, src, firstBytes([]byte{v0, v0 + 1}), sep)
			checkClassifiers(t, src, firstBytes([]byte{'a', v0, ',', v0 ^ 0x20}), sep)
		}
	})
}

func TestClassifyLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("\n,\"a\r0\x00\t;|")
	for n := 0; n <= winBytes; n += 1 + n/7 {
		src := make([]byte, n)
		for i := range src {
			src[i] = alphabet[r.IntN(len(alphabet))]
		}
		for _, sep := range []byte(",\t;|") {
			checkClassifiers(t, src, 'a', sep)
			checkClassifiers(t, src, 0, sep) // the zero padding of a last block must not count
			checkClassifiers(t, src, everyRow, sep)
			checkClassifiers(t, src, firstBytes([]byte{'a', '0'}), sep)
			checkClassifiers(t, src, firstBytes([]byte{0, ';', '"', 'a'}), sep)
		}
	}
}

func checkClassifiers(t *testing.T, src []byte, v0 int, sep byte) {
	t.Helper()
	var want marks
	wantN := refClassify(src, &want, v0, sep)
	for name, f := range allClassifiers() {
		var got marks
		// stale bits from an earlier window must not survive
		for i := range got.nl {
			got.nl[i], got.cm[i], got.qt[i], got.sp[i] = ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)
		}
		gotN := f(src, &got, v0, sep)
		for i := range (len(src) + 63) / 64 {
			if got.nl[i] != want.nl[i] || got.cm[i] != want.cm[i] || got.sp[i] != want.sp[i] ||
				(wantN.qt > 0 && got.qt[i] != want.qt[i]) { // qt is filled only for a window with a quote
				t.Fatalf("%s: sep %q len %d v0 %d word %d: got %x %x %x %x, want %x %x %x %x", name, sep, len(src), v0, i,
					got.nl[i], got.cm[i], got.qt[i], got.sp[i], want.nl[i], want.cm[i], want.qt[i], want.sp[i])
			}
		}
		if gotN != wantN {
			t.Fatalf("%s: len %d v0 %d: counts %+v, want %+v", name, len(src), v0, gotN, wantN)
		}
	}
}

// refClassify is the classifiers' reference: each byte looked at on its
// own. len(src) <= winBytes; src[0] starts a row.
func refClassify(src []byte, m *marks, v0 int, sep byte) tally {
	var n tally
	for i, c := range src {
		switch c {
		case '\n':
			m.nl[i>>6] |= 1 << (i & 63)
			n.nl++
		case sep:
			m.cm[i>>6] |= 1 << (i & 63)
		case '"':
			m.qt[i>>6] |= 1 << (i & 63)
			n.qt = 1
		}
		if (i == 0 || src[i-1] == '\n') && marksRow(v0, c) {
			m.sp[i>>6] |= 1 << (i & 63)
			n.sp++
			n.nz |= 1 << (i >> 6)
		}
	}
	return n
}

func TestBitHelpers(t *testing.T) {
	var ws [winBytes / 64]uint64
	set := []int{0, 5, 63, 64, 200, 4095}
	for _, b := range set {
		ws[b>>6] |= 1 << (b & 63)
	}
	for _, c := range []struct{ off, want int }{{0, 0}, {1, 5}, {6, 63}, {64, 64}, {65, 200}, {201, 4095}} {
		if got := nextBit(&ws, c.off, 64); got != c.want {
			t.Errorf("nextBit(%d) = %d, want %d", c.off, got, c.want)
		}
	}
	if got := nextBit(&ws, 201, 63); got != -1 {
		t.Errorf("nextBit past n = %d", got)
	}
	for _, c := range []struct{ a, b, want int }{{0, 1, 1}, {0, 64, 3}, {1, 65, 3}, {0, 4096, 6}, {64, 64, 0}, {6, 63, 0}, {63, 201, 3}} {
		if got := countBits(&ws, c.a, c.b); got != c.want {
			t.Errorf("countBits(%d,%d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
