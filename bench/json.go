package bench

import (
	"fmt"
	"math"
	"strconv"

	"github.com/valyala/fastjson"
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
// which are not JSON.

// MarshalJSON renders the document.
func (d *Doc) MarshalJSON() ([]byte, error) {
	var a fastjson.Arena
	num := func(v float64) *fastjson.Value { return a.NewNumberString(strconv.FormatFloat(v, 'g', -1, 64)) }
	setNum := func(o *fastjson.Value, k string, v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			o.Set(k, num(v))
		}
	}
	floats := func(v []float64) *fastjson.Value {
		arr := a.NewArray()
		for i, x := range v {
			arr.SetArrayItem(i, num(x))
		}
		return arr
	}
	ints := func(v []int) *fastjson.Value {
		arr := a.NewArray()
		for i, x := range v {
			arr.SetArrayItem(i, a.NewNumberInt(x))
		}
		return arr
	}
	root := a.NewObject()
	e := a.NewObject()
	e.Set("cpu", a.NewString(d.Env.CPU))
	e.Set("cores", a.NewNumberInt(d.Env.Cores))
	e.Set("gomaxprocs", a.NewNumberInt(d.Env.GOMAXPROCS))
	e.Set("go", a.NewString(d.Env.Go))
	e.Set("kernel", a.NewString(d.Env.Kernel))
	e.Set("data", a.NewString(d.Env.Data))
	e.Set("files", a.NewNumberInt(d.Env.Files))
	e.Set("rows", a.NewNumberString(strconv.FormatInt(d.Env.Rows, 10)))
	e.Set("bytes", a.NewNumberString(strconv.FormatInt(d.Env.Bytes, 10)))
	e.Set("query", a.NewString(d.Env.Query))
	e.Set("io", a.NewString(d.Env.IO))
	if d.Env.Populate {
		e.Set("populate", a.NewTrue())
	} else {
		e.Set("populate", a.NewFalse())
	}
	e.Set("started", a.NewString(d.Env.Started))
	if d.Env.ForkExecSelf > 0 {
		setNum(e, "forkexec_self", d.Env.ForkExecSelf)
	}
	root.Set("env", e)
	ex := a.NewObject()
	ex.Set("matched", a.NewNumberString(strconv.FormatInt(d.Expected.Matched, 10)))
	sums := a.NewObject()
	for _, s := range d.Expected.Sums {
		sums.Set(s.Name, a.NewString(s.Value))
	}
	ex.Set("sums", sums)
	root.Set("expected", ex)
	root.Set("trials", a.NewNumberInt(d.Trials))
	root.Set("warmup", a.NewNumberInt(d.Warmup))
	root.Set("cold", boolValue(&a, d.Cold))
	root.Set("include_oversubscribed", boolValue(&a, d.IncludeOversubscribed))
	if d.Cache != nil {
		pc := a.NewObject()
		setNum(pc, "start", d.Cache.Start)
		setNum(pc, "end", d.Cache.End)
		setNum(pc, "huge_start", d.Cache.HugeStart)
		setNum(pc, "huge_end", d.Cache.HugeEnd)
		root.Set("page_cache", pc)
	}
	params := func(p Params) *fastjson.Value {
		o := a.NewObject()
		o.Set("strategy", a.NewString(p.Strategy))
		o.Set("split", a.NewString(p.Split))
		o.Set("workers", a.NewNumberInt(p.Workers))
		return o
	}
	rs := a.NewArray()
	n := 0
	for _, r := range d.Results {
		if len(r.Times) == 0 {
			continue
		}
		o := a.NewObject()
		o.Set("parameters", params(r.Params))
		setNum(o, "mean", r.Mean)
		if r.HasStddev {
			setNum(o, "stddev", r.Stddev)
		}
		setNum(o, "median", r.Median)
		setNum(o, "min", r.Min)
		setNum(o, "max", r.Max)
		o.Set("times", floats(r.Times))
		setNum(o, "speedup", r.Speedup)
		setNum(o, "efficiency", r.Efficiency)
		setNum(o, "karp_flatt", r.KarpFlatt)
		setNum(o, "imbalance", r.Imbalance)
		setNum(o, "row_cost", r.RowCost(d.Env.Rows))
		setNum(o, "floor_multiple", r.FloorMultiple)
		if !math.IsNaN(r.FloorPaired) {
			fp := a.NewObject()
			setNum(fp, "median", r.FloorPaired)
			setNum(fp, "low", r.FloorLo)
			setNum(fp, "high", r.FloorHi)
			o.Set("floor_paired", fp)
		}
		ph := a.NewObject()
		for _, p := range r.Phases {
			ph.Set(p.Name, num(p.Seconds))
		}
		o.Set("phases", ph)
		o.Set("busy", floats(r.Busy))
		o.Set("units", ints(r.Units))
		o.Set("outliers", ints(r.Outliers))
		o.Set("disk_trials", ints(r.DiskTrials))
		o.Set("disk_read", a.NewNumberString(strconv.FormatInt(r.DiskRead, 10)))
		rs.SetArrayItem(n, o)
		n++
	}
	root.Set("results", rs)
	fl := a.NewArray()
	for i, r := range d.Floor {
		o := a.NewObject()
		o.Set("workers", a.NewNumberInt(r.Workers))
		setNum(o, "median", r.Median)
		setNum(o, "mean", r.Mean)
		setNum(o, "min", r.Min)
		setNum(o, "max", r.Max)
		fl.SetArrayItem(i, o)
	}
	root.Set("floor", fl)
	am := a.NewArray()
	for i, f := range d.Amdahl {
		o := a.NewObject()
		o.Set("strategy", a.NewString(f.Strategy))
		o.Set("split", a.NewString(f.Split))
		setNum(o, "serial_fraction", f.F)
		setNum(o, "r2", f.R2)
		setNum(o, "ceiling", f.Ceiling)
		setNum(o, "t1", f.T1)
		o.Set("points", a.NewNumberInt(f.Points))
		o.Set("excluded", ints(f.Excluded))
		op := a.NewObject()
		op.Set("workers", a.NewNumberInt(f.OnePointN))
		setNum(op, "serial_fraction", f.OnePointF)
		o.Set("one_point", op)
		pr := a.NewArray()
		for j, p := range f.Predicted {
			po := a.NewObject()
			po.Set("workers", a.NewNumberInt(p.Workers))
			setNum(po, "measured", p.Measured)
			setNum(po, "predicted", p.Predicted)
			pr.SetArrayItem(j, po)
		}
		o.Set("predicted", pr)
		am.SetArrayItem(i, o)
	}
	root.Set("amdahl", am)
	return root.MarshalTo(nil), nil
}

func boolValue(a *fastjson.Arena, b bool) *fastjson.Value {
	if b {
		return a.NewTrue()
	}
	return a.NewFalse()
}

// ParseDoc reads a document written by MarshalJSON (fastjson's parser) and
// derives everything again (Analyze), so a report of a saved file prints
// what the run printed.
func ParseDoc(b []byte) (*Doc, error) {
	var p fastjson.Parser
	v, err := p.ParseBytes(b)
	if err != nil {
		return nil, fmt.Errorf("not a parlab bench file: %w", err)
	}
	if v.Get("results") == nil || v.Get("env") == nil {
		return nil, fmt.Errorf("not a parlab bench file: no env or results")
	}
	d := &Doc{}
	e := v.Get("env")
	d.Env = Env{
		CPU: str(e, "cpu"), Cores: e.GetInt("cores"), GOMAXPROCS: e.GetInt("gomaxprocs"),
		Go: str(e, "go"), Kernel: str(e, "kernel"), Data: str(e, "data"), Files: e.GetInt("files"),
		Rows: e.GetInt64("rows"), Bytes: e.GetInt64("bytes"), Query: str(e, "query"), IO: str(e, "io"),
		Populate: e.GetBool("populate"), Started: str(e, "started"), ForkExecSelf: e.GetFloat64("forkexec_self"),
	}
	d.Expected.Matched = v.GetInt64("expected", "matched")
	if o := v.GetObject("expected", "sums"); o != nil {
		o.Visit(func(k []byte, x *fastjson.Value) {
			d.Expected.Sums = append(d.Expected.Sums, NamedValue{string(k), string(x.GetStringBytes())})
		})
	}
	d.Trials, d.Warmup = v.GetInt("trials"), v.GetInt("warmup")
	d.Cold, d.IncludeOversubscribed = v.GetBool("cold"), v.GetBool("include_oversubscribed")
	if pc := v.Get("page_cache"); pc != nil {
		d.Cache = &PageCache{Start: math.NaN(), End: math.NaN(), HugeStart: math.NaN(), HugeEnd: math.NaN()}
		for k, f := range map[string]*float64{"start": &d.Cache.Start, "end": &d.Cache.End, "huge_start": &d.Cache.HugeStart, "huge_end": &d.Cache.HugeEnd} {
			if x := pc.Get(k); x != nil {
				*f = x.GetFloat64()
			}
		}
	}
	for _, r := range v.GetArray("results") {
		res := Result{Params: Params{
			Strategy: str(r, "parameters", "strategy"), Split: str(r, "parameters", "split"),
			Workers: r.GetInt("parameters", "workers"),
		}}
		for _, t := range r.GetArray("times") {
			res.Times = append(res.Times, t.GetFloat64())
		}
		if len(res.Times) == 0 {
			return nil, fmt.Errorf("result %v has no times", res.Params)
		}
		for _, t := range res.Times {
			if !(t >= 0) || math.IsInf(t, 0) {
				return nil, fmt.Errorf("result %v: a time of %v s (times are durations: finite, not negative)", res.Params, t)
			}
		}
		res.Imbalance = r.GetFloat64("imbalance")
		if o := r.GetObject("phases"); o != nil {
			o.Visit(func(k []byte, x *fastjson.Value) {
				res.Phases = append(res.Phases, Phase{string(k), x.GetFloat64()})
			})
			for _, ph := range res.Phases {
				if ph.Seconds < 0 {
					return nil, fmt.Errorf("result %v: phase %s lasted %v s", res.Params, ph.Name, ph.Seconds)
				}
			}
		}
		for _, b := range r.GetArray("busy") {
			if x := b.GetFloat64(); x < 0 {
				return nil, fmt.Errorf("result %v: a busy time of %v s", res.Params, x)
			}
			res.Busy = append(res.Busy, b.GetFloat64())
		}
		for _, u := range r.GetArray("units") {
			res.Units = append(res.Units, u.GetInt())
		}
		for _, t := range r.GetArray("disk_trials") {
			res.DiskTrials = append(res.DiskTrials, t.GetInt())
		}
		res.DiskRead = r.GetInt64("disk_read")
		d.Results = append(d.Results, res)
	}
	d.Analyze()
	return d, nil
}

func str(v *fastjson.Value, keys ...string) string { return string(v.GetStringBytes(keys...)) }
