package scan

import (
	"math/rand/v2"
	"testing"
)

// FuzzClassify checks the classifier this machine uses (AVX2 on amd64)
// against the portable one, at every length up to a window.
func FuzzClassify(f *testing.F) {
	f.Add([]byte("a,b\n\"c\"\n"))
	f.Add(make([]byte, winBytes))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > winBytes {
			src = src[:winBytes]
		}
		var got, want marks
		// stale bits from an earlier window must not survive
		for i := range got.nl {
			got.nl[i], got.cm[i], got.qt[i] = ^uint64(0), ^uint64(0), ^uint64(0)
		}
		classify(src, &got)
		classifyGeneric(src, &want)
		n := (len(src) + 63) / 64
		for i := range n {
			if got.nl[i] != want.nl[i] || got.cm[i] != want.cm[i] || got.qt[i] != want.qt[i] {
				t.Fatalf("len %d word %d: got %x %x %x, want %x %x %x", len(src), i,
					got.nl[i], got.cm[i], got.qt[i], want.nl[i], want.cm[i], want.qt[i])
			}
		}
	})
}

func TestClassifyLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("\n,\"a\r0")
	for n := 0; n <= winBytes; n += 1 + n/7 {
		src := make([]byte, n)
		for i := range src {
			src[i] = alphabet[r.IntN(len(alphabet))]
		}
		var got, want marks
		classify(src, &got)
		classifyGeneric(src, &want)
		for i := range (n + 63) / 64 {
			if got.nl[i] != want.nl[i] || got.cm[i] != want.cm[i] || got.qt[i] != want.qt[i] {
				t.Fatalf("len %d word %d differs", n, i)
			}
		}
	}
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
