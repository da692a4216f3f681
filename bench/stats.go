// Package bench is the measuring kit any study here uses: it runs trials of
// configurations interleaved (Run, over the study's own sample type), names
// configurations by their parameters (Params, hyperfine's map), summarises
// trial times (median, mean ± σ, min … max, outliers, a median's
// distribution-free confidence interval, the Mann–Whitney U test, ratios),
// fits Amdahl's law, and formats seconds for tables. It knows no study: no
// strategy, no CSV, no FTP. The query study (package spawn/study) is its
// first user.
package bench

import (
	"math"
	"slices"
)

// Summary describes one configuration's trial times, in seconds.
type Summary struct {
	Mean, Stddev, Median, Min, Max float64
	// HasStddev is false for one run: a standard deviation needs two.
	HasStddev bool
}

// Summarize describes times (at least one).
func Summarize(times []float64) Summary {
	s := slices.Clone(times)
	slices.Sort(s)
	var sum float64
	for _, t := range s {
		sum += t
	}
	n := float64(len(s))
	out := Summary{Mean: sum / n, Median: median(s), Min: s[0], Max: s[len(s)-1]}
	if len(s) > 1 {
		var ss float64
		for _, t := range s {
			ss += (t - out.Mean) * (t - out.Mean)
		}
		out.Stddev, out.HasStddev = math.Sqrt(ss/(n-1)), true
	}
	return out
}

// median of sorted values.
func median(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Outliers returns the indexes of times more than 3 scaled median absolute
// deviations from the median (the MAD is scaled by 1.4826 to estimate σ of
// normal data), as hyperfine flags them. Below 5 times a MAD says too little
// to call anything an outlier.
func Outliers(times []float64) []int {
	if len(times) < 5 {
		return nil
	}
	s := slices.Clone(times)
	slices.Sort(s)
	med := median(s)
	dev := make([]float64, len(s))
	for i, t := range s {
		dev[i] = math.Abs(t - med)
	}
	slices.Sort(dev)
	mad := 1.4826 * median(dev)
	if mad == 0 {
		return nil
	}
	var out []int
	for i, t := range times {
		if math.Abs(t-med)/mad > 3 {
			out = append(out, i)
		}
	}
	return out
}

// MedianCI returns the median of v and a distribution-free confidence
// interval for it of at least 95%: the order statistics s[j-1] and s[n-j]
// (sorted, 0-based) for the largest j with 2·P(B < j) ≤ 0.05, B being
// Binomial(n, ½), the count of values below the true median. Below 6
// values no such j exists, and lo and hi are NaN.
func MedianCI(v []float64) (med, lo, hi float64) {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	med, lo, hi = median(s), math.NaN(), math.NaN()
	j, tail := 0, 0.0 // tail: P(B < j+1) = P(B ≤ j)
	for ; j < n/2; j++ {
		lg, _ := math.Lgamma(float64(n + 1))
		a, _ := math.Lgamma(float64(j + 1))
		b, _ := math.Lgamma(float64(n - j + 1))
		tail += math.Exp(lg - a - b - float64(n)*math.Ln2)
		if 2*tail > 0.05 {
			break
		}
	}
	if j >= 1 {
		lo, hi = s[j-1], s[n-j]
	}
	return med, lo, hi
}

// Ratio is a/b with an uncertainty from both spreads (relative errors added
// in quadrature, as hyperfine's "N.NN ± s times faster").
func Ratio(a, b Summary) (r, pm float64) {
	r = a.Mean / b.Mean
	if !a.HasStddev || !b.HasStddev {
		return r, 0
	}
	return r, r * math.Hypot(a.Stddev/a.Mean, b.Stddev/b.Mean)
}

// MannWhitney is the two-sided p-value of the Mann–Whitney U test that a and
// b come from the same distribution (normal approximation, ties corrected),
// as benchstat uses to say "~": no significant difference.
func MannWhitney(a, b []float64) float64 {
	n1, n2 := float64(len(a)), float64(len(b))
	if n1 == 0 || n2 == 0 {
		return 1
	}
	type obs struct {
		v float64
		a bool
	}
	all := make([]obs, 0, len(a)+len(b))
	for _, v := range a {
		all = append(all, obs{v, true})
	}
	for _, v := range b {
		all = append(all, obs{v, false})
	}
	slices.SortFunc(all, func(x, y obs) int { return cmpFloat(x.v, y.v) })
	var ra, tie float64 // rank sum of a; tie correction
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // average of ranks i+1 … j
		for k := i; k < j; k++ {
			if all[k].a {
				ra += rank
			}
		}
		t := float64(j - i)
		tie += t*t*t - t
		i = j
	}
	u := ra - n1*(n1+1)/2
	mu := n1 * n2 / 2
	n := n1 + n2
	sigma := math.Sqrt(n1 * n2 / 12 * ((n + 1) - tie/(n*(n-1))))
	if sigma == 0 {
		return 1
	}
	z := (math.Abs(u-mu) - 0.5) / sigma // continuity correction
	if z < 0 {
		z = 0
	}
	return math.Erfc(z / math.Sqrt2)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// GeoMean is the geometric mean of positive values.
func GeoMean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}
