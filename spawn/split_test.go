package spawn

import (
	"slices"
	"sync"
	"testing"
)

// A split a command line names is one of Splits; the two a Report names
// besides (SplitNone, SplitStream) are read back only from a report.
func TestSplitNames(t *testing.T) {
	for _, sp := range Splits() {
		if got, err := ParseSplit(sp.String()); err != nil || got != sp {
			t.Errorf("ParseSplit(%q) = %v, %v", sp, got, err)
		}
		var u Split
		if err := u.UnmarshalText([]byte(sp.String())); err != nil || u != sp {
			t.Errorf("UnmarshalText(%q) = %v, %v", sp, u, err)
		}
	}
	for _, sp := range []Split{SplitNone, SplitStream} {
		if slices.Contains(Splits(), sp) {
			t.Errorf("Splits offers %q", sp)
		}
		if _, err := ParseSplit(sp.String()); err == nil {
			t.Errorf("ParseSplit takes %q, which no one asks for", sp)
		}
		var u Split
		if err := u.UnmarshalText([]byte(sp.String())); err == nil {
			t.Errorf("a flag takes %q", sp)
		}
		if got, err := ParseReportedSplit(sp.String()); err != nil || got != sp {
			t.Errorf("ParseReportedSplit(%q) = %v, %v", sp, got, err)
		}
	}
	if _, err := ParseReportedSplit("sideways"); err == nil {
		t.Error("ParseReportedSplit takes an unknown split")
	}
	// every strategy's Caps say which splits stream, as Streams asks them
	for _, c := range []struct {
		st    Strategy
		split Split
		want  bool
	}{{Sequential{}, SplitFile, true}, {Goroutines{}, SplitRows, true}, {Goroutines{}, SplitAuto, true},
		{Goroutines{}, SplitKeys, false}, {Goroutines{}, SplitFile, false}, {Processes{}, SplitRows, false}, {MPI{}, SplitRows, false}, {Floor{}, SplitRows, false}} {
		if got := Streams(c.st, c.split); got != c.want {
			t.Errorf("Streams(%s, %s) = %v", c.st.Name(), c.split, got)
		}
	}
}

// The auto split's workers take their own units in order, then the last
// ones not yet taken of the worker with the most left, if of minSteal
// bytes or more; every unit goes to one worker once, however they race. A
// rows split named, the keys split and one worker steal nothing.
func TestSteals(t *testing.T) {
	units := func(sizes ...int) []Unit {
		var us []Unit
		for _, n := range sizes {
			us = append(us, Unit{End: n})
		}
		return us
	}
	const m = minSteal
	p := &Plan{Split: SplitRows, Steal: true, Units: units(m, m, m, m, m, m, m, m),
		Assign: [][]int{{0, 1, 2, 3}, {4, 5, 6}, {7}}}
	s := newSteals(p, []int{0, 1, 2})
	var got []int
	for i := s.next(1); i >= 0; i = s.next(1) {
		got = append(got, i)
	}
	if want := []int{4, 5, 6, 3, 2, 1, 0, 7}; !slices.Equal(got, want) {
		t.Errorf("worker 1 alone took %v, want %v", got, want)
	}
	// units left of fewer bytes in all are left to their worker
	p.Units = units(m/4, m/4, m/4, m/4, m, m, m, m/2)
	s = newSteals(p, []int{0, 1, 2})
	got = nil
	for i := s.next(1); i >= 0; i = s.next(1) {
		got = append(got, i)
	}
	if want := []int{4, 5, 6, 3}; !slices.Equal(got, want) {
		t.Errorf("worker 1 alone, small units: took %v, want %v", got, want)
	}
	for _, q := range []*Plan{
		{Split: SplitRows, Assign: p.Assign},
		{Split: SplitKeys, Steal: true, Assign: p.Assign},
		{Split: SplitRows, Steal: true, Assign: p.Assign[:1]},
	} {
		if newSteals(q, []int{0, 1, 2}[:len(q.Assign)]) != nil {
			t.Errorf("%v split, Steal %v, %d workers: steals", q.Split, q.Steal, len(q.Assign))
		}
	}

	const n = 3000
	big := &Plan{Split: SplitRows, Steal: true, Assign: make([][]int, 4)}
	for i := range n {
		big.Assign[i*4/n] = append(big.Assign[i*4/n], i)
		big.Units = append(big.Units, Unit{End: minSteal})
	}
	s = newSteals(big, []int{0, 1, 2, 3})
	taken := make([][]int, 4)
	var wg sync.WaitGroup
	for k := range taken {
		wg.Go(func() {
			for i := s.next(k); i >= 0; i = s.next(k) {
				taken[k] = append(taken[k], i)
			}
		})
	}
	wg.Wait()
	seen := make([]int, n)
	for _, ks := range taken {
		for _, i := range ks {
			seen[i]++
		}
	}
	for i, c := range seen {
		if c != 1 {
			t.Fatalf("unit %d taken %d times", i, c)
		}
	}
}
