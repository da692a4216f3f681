package bench

import (
	"fmt"
	"strings"
)

// Param is one named parameter of a configuration; Params are a
// configuration's parameters in order: hyperfine's "parameters" map, a JSON
// object whose keys keep that order. A value is a string or a number (read
// back from JSON, a number is a float64).
type Param struct {
	Name  string
	Value any
}

type Params []Param

// Get returns the value of the parameter named name, nil if there is none.
func (p Params) Get(name string) any {
	for _, x := range p {
		if x.Name == name {
			return x.Value
		}
	}
	return nil
}

// String is the values joined by "/", empty ones left out: "goroutines/rows/2".
func (p Params) String() string {
	var v []string
	for _, x := range p {
		if s := fmt.Sprint(x.Value); x.Value != nil && s != "" {
			v = append(v, s)
		}
	}
	return strings.Join(v, "/")
}

// MarshalJSON writes the parameters as one object, in order.
func (p Params) MarshalJSON() ([]byte, error) {
	var o Ordered[any]
	for _, x := range p {
		o.Add(x.Name, x.Value)
	}
	return o.MarshalJSON()
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (p *Params) UnmarshalJSON(b []byte) error {
	var o Ordered[any]
	if err := o.UnmarshalJSON(b); err != nil {
		return err
	}
	*p = (*p)[:0]
	for _, kv := range o {
		*p = append(*p, Param{kv.Key, kv.Value})
	}
	return nil
}

// Options steer Run. S is the study's sample type: one trial's measurements.
type Options[S any] struct {
	Trials, Warmup int
	// Before runs before every trial, warmups included (a cold-cache study
	// evicts there).
	Before func() error
	// OnTrial sees every recorded trial of configuration i (trial counts
	// from 1), in the order they ran.
	OnTrial func(i, trial int, s S) error
	// OnRound runs after each recorded round, when every configuration has
	// one more trial (a study rewrites its JSON there, so a crash leaves the
	// results so far).
	OnRound func(round int) error
	// Progress is told how many of total trials (warmups included) are done.
	Progress func(done, total int)
}

// Run runs n configurations, each Trials times after Warmup unrecorded
// rounds, interleaved: round r runs configurations 0 … n-1 once each, in
// order, so that a noisy machine's drift falls on all of them alike. trial(i)
// runs configuration i once; an error from it (a wrong answer, a failed run)
// stops Run, wrapped with the configuration's number and the trial's.
func Run[S any](n int, trial func(i int) (S, error), opt Options[S]) error {
	if opt.Trials < 1 || opt.Warmup < 0 {
		return fmt.Errorf("a run needs at least 1 trial and no negative warmup, got %d and %d", opt.Trials, opt.Warmup)
	}
	total, done := (opt.Trials+opt.Warmup)*n, 0
	for round := 0; round < opt.Warmup+opt.Trials; round++ {
		for i := range n {
			if opt.Before != nil {
				if err := opt.Before(); err != nil {
					return err
				}
			}
			s, err := trial(i)
			if err != nil {
				return fmt.Errorf("configuration %d, trial %d: %w", i+1, round+1, err)
			}
			done++
			if opt.Progress != nil {
				opt.Progress(done, total)
			}
			if round >= opt.Warmup && opt.OnTrial != nil {
				if err := opt.OnTrial(i, round-opt.Warmup+1, s); err != nil {
					return err
				}
			}
		}
		if round >= opt.Warmup && opt.OnRound != nil {
			if err := opt.OnRound(round - opt.Warmup + 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// Imbalance is the busiest worker's busy time over the mean (1 is perfect
// balance; N means one of N workers did everything, 1 when none was busy).
func Imbalance(busy []float64) float64 {
	var sum, most float64
	for _, b := range busy {
		sum += b
		most = max(most, b)
	}
	if sum == 0 {
		return 1
	}
	return most * float64(len(busy)) / sum
}
