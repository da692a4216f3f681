package study

import (
	"encoding/json"
	"fmt"
	"math"

	"parlab/bench"
)

// The JSON document, in seconds throughout, with hyperfine's names where
// hyperfine has one (mean, stddev, median, min, max, times, parameters):
//
//	{"env": {cpu, cores, gomaxprocs, go, kernel, data, files, rows, bytes,
//	         query, io, populate, started, forkexec_self?},
//	 "expected": {"matched": N, "sums": {column: "exact decimal", …}},
//	 "trials": K, "warmup": W, "cold": bool, "include_oversubscribed": bool,
//	 "page_cache"?: {start?, end?, huge_start?, huge_end?},
//	 "results": [{"parameters": {strategy, split, workers}, mean, stddev?,
//	              median, min, max, times, speedup?, efficiency?, karp_flatt?,
//	              imbalance, row_cost?, floor_multiple?, floor_paired?: {median, low?,
//	              high?}, phases: {name: s}, busy, units, outliers,
//	              disk_trials, disk_read}],
//	 "floor":   [{workers, median, mean, min, max}],
//	 "amdahl":  [{strategy, split, serial_fraction?, r2?, ceiling?, t1?,
//	              points, excluded, one_point: {workers, serial_fraction?},
//	              predicted: [{workers, measured, predicted?}]}]}
//
// A value marked ? is left out where it is undefined (a standard deviation of
// one run, the speedup of the floor, a ceiling of 1/0): never NaN or Inf,
// which are not JSON. Strings are written by encoding/json, so a data path
// or a query that is not UTF-8 still makes valid JSON (each invalid byte as
// U+FFFD).

type docJSON struct {
	Env                   envJSON        `json:"env"`
	Expected              expectedJSON   `json:"expected"`
	Trials                int            `json:"trials"`
	Warmup                int            `json:"warmup"`
	Cold                  bool           `json:"cold"`
	IncludeOversubscribed bool           `json:"include_oversubscribed"`
	PageCache             *pageCacheJSON `json:"page_cache,omitempty"`
	Results               []resultJSON   `json:"results"`
	Floor                 []floorJSON    `json:"floor"`
	Amdahl                []amdahlJSON   `json:"amdahl"`
}

type envJSON struct {
	CPU          string       `json:"cpu"`
	Cores        int          `json:"cores"`
	GOMAXPROCS   int          `json:"gomaxprocs"`
	Go           string       `json:"go"`
	Kernel       string       `json:"kernel"`
	Data         string       `json:"data"`
	Files        int          `json:"files"`
	Rows         int64        `json:"rows"`
	Bytes        int64        `json:"bytes"`
	Query        string       `json:"query"`
	IO           string       `json:"io"`
	Populate     bool         `json:"populate"`
	Started      string       `json:"started"`
	ForkExecSelf *bench.Float `json:"forkexec_self,omitempty"`
	MPIRanks     int          `json:"mpi_ranks,omitempty"`
}

type expectedJSON struct {
	Matched int64                 `json:"matched"`
	Sums    bench.Ordered[string] `json:"sums"`
}

type pageCacheJSON struct {
	Start     *bench.Float `json:"start,omitempty"`
	End       *bench.Float `json:"end,omitempty"`
	HugeStart *bench.Float `json:"huge_start,omitempty"`
	HugeEnd   *bench.Float `json:"huge_end,omitempty"`
}

type resultJSON struct {
	Parameters    bench.Params           `json:"parameters"`
	Mean          *bench.Float           `json:"mean,omitempty"`
	Stddev        *bench.Float           `json:"stddev,omitempty"`
	Median        *bench.Float           `json:"median,omitempty"`
	Min           *bench.Float           `json:"min,omitempty"`
	Max           *bench.Float           `json:"max,omitempty"`
	Times         []float64              `json:"times"`
	Speedup       *bench.Float           `json:"speedup,omitempty"`
	Efficiency    *bench.Float           `json:"efficiency,omitempty"`
	KarpFlatt     *bench.Float           `json:"karp_flatt,omitempty"`
	Imbalance     *bench.Float           `json:"imbalance,omitempty"`
	RowCost       *bench.Float           `json:"row_cost,omitempty"`
	FloorMultiple *bench.Float           `json:"floor_multiple,omitempty"`
	FloorPaired   *floorPairedJSON       `json:"floor_paired,omitempty"`
	Phases        bench.Ordered[float64] `json:"phases"`
	Busy          []float64              `json:"busy"`
	Units         []int                  `json:"units"`
	Outliers      []int                  `json:"outliers"`
	DiskTrials    []int                  `json:"disk_trials"`
	DiskRead      int64                  `json:"disk_read"`
}

type floorPairedJSON struct {
	Median *bench.Float `json:"median,omitempty"`
	Low    *bench.Float `json:"low,omitempty"`
	High   *bench.Float `json:"high,omitempty"`
}

type floorJSON struct {
	Workers int          `json:"workers"`
	Median  *bench.Float `json:"median,omitempty"`
	Mean    *bench.Float `json:"mean,omitempty"`
	Min     *bench.Float `json:"min,omitempty"`
	Max     *bench.Float `json:"max,omitempty"`
}

type amdahlJSON struct {
	Strategy       string       `json:"strategy"`
	Split          string       `json:"split"`
	SerialFraction *bench.Float `json:"serial_fraction,omitempty"`
	R2             *bench.Float `json:"r2,omitempty"`
	Ceiling        *bench.Float `json:"ceiling,omitempty"`
	T1             *bench.Float `json:"t1,omitempty"`
	Points         int          `json:"points"`
	Excluded       []int        `json:"excluded"`
	OnePoint       struct {
		Workers        int          `json:"workers"`
		SerialFraction *bench.Float `json:"serial_fraction,omitempty"`
	} `json:"one_point"`
	Predicted []predictedJSON `json:"predicted"`
}

type predictedJSON struct {
	Workers   int          `json:"workers"`
	Measured  *bench.Float `json:"measured,omitempty"`
	Predicted *bench.Float `json:"predicted,omitempty"`
}

// nonNil keeps an empty list a list ([]) in JSON, not null.
func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

// MarshalJSON renders the document.
func (d *Doc) MarshalJSON() ([]byte, error) {
	f := bench.OptFloat
	j := docJSON{
		Env: envJSON{CPU: d.Env.CPU, Cores: d.Env.Cores, GOMAXPROCS: d.Env.GOMAXPROCS, Go: d.Env.Go,
			Kernel: d.Env.Kernel, Data: d.Env.Data, Files: d.Env.Files, Rows: d.Env.Rows, Bytes: d.Env.Bytes,
			Query: d.Env.Query, IO: d.Env.IO, Populate: d.Env.Populate, Started: d.Env.Started, MPIRanks: d.Env.MPIRanks},
		Expected: expectedJSON{Matched: d.Expected.Matched, Sums: bench.Ordered[string]{}},
		Trials:   d.Trials, Warmup: d.Warmup, Cold: d.Cold, IncludeOversubscribed: d.IncludeOversubscribed,
		Results: []resultJSON{}, Floor: []floorJSON{}, Amdahl: []amdahlJSON{},
	}
	if d.Env.ForkExecSelf > 0 {
		j.Env.ForkExecSelf = f(d.Env.ForkExecSelf)
	}
	for _, s := range d.Expected.Sums {
		j.Expected.Sums.Add(s.Name, s.Value)
	}
	if c := d.Cache; c != nil {
		j.PageCache = &pageCacheJSON{f(c.Start), f(c.End), f(c.HugeStart), f(c.HugeEnd)}
	}
	for _, r := range d.Results {
		if len(r.Times) == 0 {
			continue
		}
		o := resultJSON{Parameters: r.Config.Params(), Mean: f(r.Mean), Median: f(r.Median), Min: f(r.Min), Max: f(r.Max),
			Times: r.Times, Speedup: f(r.Speedup), Efficiency: f(r.Efficiency), KarpFlatt: f(r.KarpFlatt),
			Imbalance: f(r.Imbalance), RowCost: f(r.RowCost(d.Env.Rows)), FloorMultiple: f(r.FloorMultiple),
			Phases: bench.Ordered[float64]{}, Busy: nonNil(r.Busy), Units: nonNil(r.Units), Outliers: nonNil(r.Outliers),
			DiskTrials: nonNil(r.DiskTrials), DiskRead: r.DiskRead}
		if r.HasStddev {
			o.Stddev = f(r.Stddev)
		}
		if !math.IsNaN(r.FloorPaired) {
			o.FloorPaired = &floorPairedJSON{f(r.FloorPaired), f(r.FloorLo), f(r.FloorHi)}
		}
		for _, p := range r.Phases {
			o.Phases.Add(p.Name, p.Seconds)
		}
		j.Results = append(j.Results, o)
	}
	for _, r := range d.Floor {
		j.Floor = append(j.Floor, floorJSON{r.Workers, f(r.Median), f(r.Mean), f(r.Min), f(r.Max)})
	}
	for _, a := range d.Amdahl {
		o := amdahlJSON{Strategy: a.Strategy.Name(), Split: a.Split.String(), SerialFraction: f(a.F), R2: f(a.R2), Ceiling: f(a.Ceiling),
			T1: f(a.T1), Points: a.Points, Excluded: nonNil(a.Excluded), Predicted: []predictedJSON{}}
		o.OnePoint.Workers, o.OnePoint.SerialFraction = a.OnePointN, f(a.OnePointF)
		for _, p := range a.Predicted {
			o.Predicted = append(o.Predicted, predictedJSON{p.Workers, f(p.Measured), f(p.Predicted)})
		}
		j.Amdahl = append(j.Amdahl, o)
	}
	return json.Marshal(&j)
}

// ParseDoc reads a document written by MarshalJSON and derives everything
// again (Analyze), so a report of a saved file prints what the run printed.
// Times must be finite and not negative.
func ParseDoc(b []byte) (*Doc, error) {
	var j struct {
		docJSON
		Env     *envJSON     `json:"env"`
		Results []resultJSON `json:"results"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("not a parlab bench file: %w", err)
	}
	if j.Env == nil || j.Results == nil {
		return nil, fmt.Errorf("not a parlab bench file: no env or results")
	}
	e := j.Env
	d := &Doc{Env: Env{CPU: e.CPU, Cores: e.Cores, GOMAXPROCS: e.GOMAXPROCS, Go: e.Go, Kernel: e.Kernel, Data: e.Data,
		Files: e.Files, Rows: e.Rows, Bytes: e.Bytes, Query: e.Query, IO: e.IO, Populate: e.Populate, Started: e.Started, MPIRanks: e.MPIRanks}}
	if e.ForkExecSelf != nil {
		d.Env.ForkExecSelf = e.ForkExecSelf.Value()
	}
	d.Expected.Matched = j.Expected.Matched
	for _, kv := range j.Expected.Sums {
		d.Expected.Sums = append(d.Expected.Sums, NamedValue{kv.Key, kv.Value})
	}
	d.Trials, d.Warmup, d.Cold, d.IncludeOversubscribed = j.Trials, j.Warmup, j.Cold, j.IncludeOversubscribed
	if pc := j.PageCache; pc != nil {
		d.Cache = &PageCache{Start: pc.Start.Value(), End: pc.End.Value(), HugeStart: pc.HugeStart.Value(), HugeEnd: pc.HugeEnd.Value()}
	}
	for _, r := range j.Results {
		c, err := configOf(r.Parameters)
		if err != nil {
			return nil, err
		}
		res := Result{Config: c, Times: r.Times, Imbalance: r.Imbalance.Value(), Busy: r.Busy, Units: r.Units,
			DiskTrials: r.DiskTrials, DiskRead: r.DiskRead}
		if len(res.Times) == 0 {
			return nil, fmt.Errorf("result %v has no times", res.Config)
		}
		for _, t := range res.Times {
			if !(t >= 0) || math.IsInf(t, 0) {
				return nil, fmt.Errorf("result %v: a time of %v s (times are durations: finite, not negative)", res.Config, t)
			}
		}
		for _, x := range res.Busy {
			if !(x >= 0) {
				return nil, fmt.Errorf("result %v: a busy time of %v s", res.Config, x)
			}
		}
		for _, kv := range r.Phases {
			if !(kv.Value >= 0) {
				return nil, fmt.Errorf("result %v: phase %s lasted %v s", res.Config, kv.Key, kv.Value)
			}
			res.Phases = append(res.Phases, Phase{kv.Key, kv.Value})
		}
		d.Results = append(d.Results, res)
	}
	d.Analyze()
	return d, nil
}
