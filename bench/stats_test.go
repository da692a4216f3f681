package bench

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{3, 1, 2, 10})
	if s.Median != 2.5 || s.Min != 1 || s.Max != 10 || s.Mean != 4 || !s.HasStddev ||
		!near(s.Stddev, math.Sqrt((1+9+4+36)/3.0), 1e-12) {
		t.Errorf("%+v", s)
	}
	if one := Summarize([]float64{7}); one.HasStddev || one.Median != 7 {
		t.Errorf("one run: %+v", one)
	}
}

func TestOutliers(t *testing.T) {
	if got := Outliers([]float64{1, 1.01, 0.99, 1.02, 0.98, 5}); len(got) != 1 || got[0] != 5 {
		t.Errorf("outliers %v, want [5]", got)
	}
	if got := Outliers([]float64{1, 1.01, 0.99, 1.02, 0.98}); got != nil {
		t.Errorf("outliers %v, want none", got)
	}
	if got := Outliers([]float64{1, 1.01, 9}); got != nil {
		t.Errorf("3 times: outliers %v, want none (too few to tell)", got)
	}
}

func TestRatio(t *testing.T) {
	a := Summary{Mean: 2, Stddev: 0.2, HasStddev: true}
	b := Summary{Mean: 1, Stddev: 0.1, HasStddev: true}
	r, pm := Ratio(a, b)
	if r != 2 || !near(pm, 2*math.Hypot(0.1, 0.1), 1e-12) {
		t.Errorf("ratio %v ± %v", r, pm)
	}
}

func TestMannWhitney(t *testing.T) {
	same := MannWhitney([]float64{1, 2, 3, 4, 5}, []float64{1.5, 2.5, 3.5, 4.5, 5.5})
	apart := MannWhitney([]float64{1, 1.1, 1.2, 1.3, 1.4, 1.5}, []float64{2, 2.1, 2.2, 2.3, 2.4, 2.5})
	if same < 0.5 || apart > 0.01 {
		t.Errorf("p(same) = %v, p(apart) = %v", same, apart)
	}
	// all equal: no evidence of a difference
	if p := MannWhitney([]float64{1, 1, 1}, []float64{1, 1, 1}); p != 1 {
		t.Errorf("ties only: %v", p)
	}
	// exact for small samples: 5 against 5, wholly apart, is 2/C(10,5)
	if p := MannWhitney([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}); !near(p, 2.0/252, 1e-12) {
		t.Errorf("5 apart from 5: p = %v, want %v", p, 2.0/252)
	}
	if p := MannWhitney(nil, []float64{1}); p != 1 {
		t.Errorf("empty: %v", p)
	}
}

// The fit recovers a known serial fraction from synthetic timings, with and
// without noise.
func TestFitAmdahl(t *testing.T) {
	ns := []int{1, 2, 4, 8, 16}
	for _, f := range []float64{0, 0.05, 0.224, 0.5, 1} {
		var ts []float64
		for _, n := range ns {
			ts = append(ts, 0.79*(f+(1-f)/float64(n)))
		}
		fit, ok := FitAmdahl(ns, ts)
		if !ok || !near(fit.F, f, 1e-9) || !near(fit.T1, 0.79, 1e-9) || !near(fit.R2, 1, 1e-9) && f != 1 {
			t.Errorf("f=%v: %+v", f, fit)
		}
		if f > 0 && !near(fit.Ceiling, 1/f, 1e-6) {
			t.Errorf("f=%v: ceiling %v", f, fit.Ceiling)
		}
		if !near(fit.Predict(4), ts[2], 1e-9) {
			t.Errorf("f=%v: predict(4) %v, want %v", f, fit.Predict(4), ts[2])
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	var ts []float64
	for _, n := range ns {
		ts = append(ts, 1.0*(0.2+0.8/float64(n))*(1+0.01*r.NormFloat64()))
	}
	fit, _ := FitAmdahl(ns, ts)
	if !near(fit.F, 0.2, 0.02) || fit.R2 < 0.99 {
		t.Errorf("noisy: %+v", fit)
	}
	if _, ok := FitAmdahl([]int{4, 4}, []float64{1, 1}); ok {
		t.Error("one worker count: fitted anyway")
	}
}

// The reference project: 0.790 s sequential, 2.81x at 4 threads, which its
// one-point fit turned into a serial fraction of 22.4%.
func TestOnePointF(t *testing.T) {
	if f := OnePointF(2.81, 4); !near(f, 0.1412, 0.0005) {
		t.Errorf("f(2.81 at 4) = %v", f)
	}
	// S = 1/(f + (1-f)/n) inverts exactly
	for _, f := range []float64{0.1, 0.224, 0.6} {
		s := 1 / (f + (1-f)/4)
		if got := OnePointF(s, 4); !near(got, f, 1e-12) {
			t.Errorf("OnePointF(%v, 4) = %v, want %v", s, got, f)
		}
	}
	if !math.IsNaN(OnePointF(1, 1)) {
		t.Error("n=1 has no Karp-Flatt value")
	}
	// Karp–Flatt by hand: S=3 at n=4: (1/3 - 1/4)/(1 - 1/4) = 1/9
	if got := OnePointF(3, 4); !near(got, 1.0/9, 1e-12) {
		t.Errorf("e(4) for S=3: %v", got)
	}
}

// The interval is a distribution-free one of at least 95%: for values 1 … n
// its ends are order statistics l and h, and the true median lies between
// them with probability P(l ≤ B < h), B ~ Binomial(n, ½). It is no wider than
// the textbook symmetric interval (11 values: the 2nd and 10th; 20: the 6th
// and 15th). 5 values give none.
func TestMedianCI(t *testing.T) {
	seq := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(n - i) // reversed: MedianCI sorts
		}
		return v
	}
	coverage := func(n, l, h int) float64 {
		var p float64
		for k := l; k < h; k++ {
			lg, _ := math.Lgamma(float64(n + 1))
			a, _ := math.Lgamma(float64(k + 1))
			b, _ := math.Lgamma(float64(n - k + 1))
			p += math.Exp(lg - a - b - float64(n)*math.Ln2)
		}
		return p
	}
	for _, c := range []struct {
		n          int
		med        float64
		textbookLo int
		textbookHi int
	}{{11, 6, 2, 10}, {20, 10.5, 6, 15}, {6, 3.5, 1, 6}} {
		med, lo, hi := MedianCI(seq(c.n))
		if med != c.med || lo != math.Trunc(lo) || hi != math.Trunc(hi) || hi-lo > float64(c.textbookHi-c.textbookLo) {
			t.Errorf("n=%d: %v [%v, %v], want the median %v and at most the textbook [%d, %d]", c.n, med, lo, hi, c.med, c.textbookLo, c.textbookHi)
		}
		if cov := coverage(c.n, int(lo), int(hi)); cov < 0.95 {
			t.Errorf("n=%d: [%v, %v] covers the median with probability %.4f", c.n, lo, hi, cov)
		}
	}
	if _, lo, hi := MedianCI(seq(5)); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("n=5: an interval [%v, %v]", lo, hi)
	}
}
