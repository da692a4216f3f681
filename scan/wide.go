package scan

import (
	"math/big"
	"math/bits"
)

// wide is a signed 320-bit integer in two's complement, least significant
// word first. It is the carried part of a sum (see Fixed), a mantissa of
// more than 18 digits (parseWide), and two such brought to one scale to be
// compared (cmpWide). It cannot overflow: a value's mantissa is below
// 10^38 < 2^127 and its scale at most MaxScale (38), so a term brought to a
// sum's scale is below 2^127·10^38 < 2^254; an input of 2^47 bytes (more
// than a process can map) holds fewer than 2^47 values, so every partial
// sum, in any order, stays below 2^301 (the sign is bit 319).
type wide [wideWords]uint64

// wideWords is a wide's length in 64-bit words.
const wideWords = 5

func wideOf(v int64) wide {
	s := uint64(v >> 63) // all ones if negative
	w := wide{uint64(v)}
	for i := 1; i < wideWords; i++ {
		w[i] = s
	}
	return w
}

func (w *wide) add(o wide) {
	var c uint64
	for i := range w {
		w[i], c = bits.Add64(w[i], o[i], c)
	}
}

func (w wide) neg() wide {
	var b uint64
	var r wide
	for i := range w {
		r[i], b = bits.Sub64(0, w[i], b)
	}
	return r
}

func (w wide) negative() bool { return int64(w[wideWords-1]) < 0 }

func (w wide) isZero() bool { return w == wide{} }

// int64 returns w and true if w fits an int64.
func (w wide) int64() (int64, bool) { return int64(w[0]), w == wideOf(int64(w[0])) }

// cmp compares w and o as signed integers.
func (w wide) cmp(o wide) int {
	if w.negative() != o.negative() {
		if w.negative() {
			return -1
		}
		return 1
	}
	for i := wideWords - 1; i >= 0; i-- { // same sign: two's complement orders as unsigned
		if w[i] != o[i] {
			if w[i] < o[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// mulPow10 multiplies w by 10^k (0 ≤ k ≤ MaxScale), 10^18 at a time.
func (w *wide) mulPow10(k int) {
	for ; k > maxPow; k -= maxPow {
		w.mul(uint64(pow10[maxPow]))
	}
	if k > 0 {
		w.mul(uint64(pow10[k]))
	}
}

// mul multiplies w by p (a power of ten up to 10^18); see wide for why the
// product fits.
func (w *wide) mul(p uint64) {
	neg := w.negative()
	a := *w
	if neg {
		a = a.neg()
	}
	var r wide
	var carry uint64
	for i := range a {
		h, l := bits.Mul64(a[i], p)
		var c uint64
		r[i], c = bits.Add64(l, carry, 0)
		carry = h + c
	}
	if neg {
		r = r.neg()
	}
	*w = r
}

// big returns w as a big.Int (for printing and tests, never per row).
func (w wide) big() *big.Int {
	neg := w.negative()
	a := w
	if neg {
		a = a.neg()
	}
	b := new(big.Int)
	for i := wideWords - 1; i >= 0; i-- {
		b.Lsh(b, 64).Or(b, new(big.Int).SetUint64(a[i]))
	}
	if neg {
		b.Neg(b)
	}
	return b
}
