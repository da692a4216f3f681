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

	"golang.org/x/perf/benchmath"
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
// interval for it of at least 95% (order statistics of a binomial, benchstat's
// golang.org/x/perf/benchmath AssumeNothing). With too few values for one
// (under 6), lo and hi are NaN.
func MedianCI(v []float64) (med, lo, hi float64) {
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(v, &benchmath.DefaultThresholds), 0.95)
	med, lo, hi = s.Center, s.Lo, s.Hi
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		lo, hi = math.NaN(), math.NaN()
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
// b come from the same distribution, as benchstat computes it to say "~" (no
// significant difference): golang.org/x/perf/benchmath's AssumeNothing
// comparison, exact for small samples. Empty samples give 1.
func MannWhitney(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 1
	}
	th := &benchmath.DefaultThresholds
	return benchmath.AssumeNothing.Compare(benchmath.NewSample(a, th), benchmath.NewSample(b, th)).P
}

// GeoMean is the geometric mean of positive values.
func GeoMean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}
