package bench

import "math"

// Amdahl's law: with a serial fraction f, n workers take
//
//	T(n) = T1 · (f + (1 − f)/n)
//
// which is linear in 1/n: T = a + b/n with a = T1·f and b = T1·(1 − f).

// Fit is Amdahl's law fitted to measured times.
type Fit struct {
	F       float64 // serial fraction
	T1      float64 // the fitted one-worker time, seconds
	R2      float64 // of the regression of T on 1/n
	Ceiling float64 // 1/f: the most any number of workers can speed it up (+Inf for f = 0)
	Points  int
}

// Predict is the fitted time for n workers.
func (f Fit) Predict(n int) float64 { return f.T1 * (f.F + (1-f.F)/float64(n)) }

// FitAmdahl fits Amdahl's law to times measured at worker counts ns by least
// squares over all the points (a linear regression of T on 1/n). It needs two
// distinct worker counts. f is clamped to [0, 1]: noise can push the line's
// intercept a little below zero.
func FitAmdahl(ns []int, times []float64) (Fit, bool) {
	if len(ns) != len(times) || len(ns) < 2 {
		return Fit{}, false
	}
	var sx, sy, sxx, sxy float64
	n := float64(len(ns))
	for i, w := range ns {
		x := 1 / float64(w)
		sx += x
		sy += times[i]
		sxx += x * x
		sxy += x * times[i]
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return Fit{}, false
	}
	b := (n*sxy - sx*sy) / den
	a := (sy - b*sx) / n
	var ssRes, ssTot float64
	mean := sy / n
	for i, w := range ns {
		pred := a + b/float64(w)
		ssRes += (times[i] - pred) * (times[i] - pred)
		ssTot += (times[i] - mean) * (times[i] - mean)
	}
	fit := Fit{T1: a + b, Points: len(ns), R2: 1}
	if ssTot > 0 {
		fit.R2 = 1 - ssRes/ssTot
	}
	if fit.T1 <= 0 {
		return Fit{}, false
	}
	fit.F = math.Min(math.Max(a/fit.T1, 0), 1)
	fit.Ceiling = math.Inf(1)
	if fit.F > 0 {
		fit.Ceiling = 1 / fit.F
	}
	return fit, true
}

// OnePointF is the reference project's fit: the serial fraction that makes
// Amdahl's law give speedup s at n workers, f = (n/s − 1)/(n − 1). It is
// also the Karp–Flatt metric e(n) = (1/s − 1/n)/(1 − 1/n): the same algebra,
// read per point, where its growth with n shows overhead growing.
func OnePointF(s float64, n int) float64 {
	if n <= 1 || s <= 0 {
		return math.NaN()
	}
	return (1/s - 1/float64(n)) / (1 - 1/float64(n))
}
