package scan

import (
	"math/big"
	"math/bits"
)

// wide is a signed 192-bit integer in two's complement, least significant
// word first. It is the carried part of a sum (see Fixed), and it cannot
// overflow: every value added is an int64 mantissa rescaled by at most 10^18
// (|term| < 2^63·10^18 < 2^123), and no input holds 2^63 rows, so every
// partial sum, in any order, stays below 2^186 in magnitude.
type wide [3]uint64

func wideOf(v int64) wide {
	s := uint64(v >> 63) // all ones if negative
	return wide{uint64(v), s, s}
}

func (w *wide) add(o wide) {
	var c uint64
	w[0], c = bits.Add64(w[0], o[0], 0)
	w[1], c = bits.Add64(w[1], o[1], c)
	w[2], _ = bits.Add64(w[2], o[2], c)
}

func (w wide) neg() wide {
	var b uint64
	var r wide
	r[0], b = bits.Sub64(0, w[0], 0)
	r[1], b = bits.Sub64(0, w[1], b)
	r[2], _ = bits.Sub64(0, w[2], b)
	return r
}

func (w wide) negative() bool { return int64(w[2]) < 0 }

func (w wide) isZero() bool { return w[0]|w[1]|w[2] == 0 }

// mul multiplies w by p (a power of ten up to 10^18); see wide for why the
// product fits.
func (w *wide) mul(p uint64) {
	neg := w.negative()
	a := *w
	if neg {
		a = a.neg()
	}
	h0, l0 := bits.Mul64(a[0], p)
	h1, l1 := bits.Mul64(a[1], p)
	_, l2 := bits.Mul64(a[2], p)
	var c uint64
	r := wide{l0}
	r[1], c = bits.Add64(l1, h0, 0)
	r[2], _ = bits.Add64(l2, h1, c)
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
	b := new(big.Int).SetUint64(a[2])
	b.Lsh(b, 64).Or(b, new(big.Int).SetUint64(a[1]))
	b.Lsh(b, 64).Or(b, new(big.Int).SetUint64(a[0]))
	if neg {
		b.Neg(b)
	}
	return b
}
