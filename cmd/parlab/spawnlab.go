package main

import (
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"text/tabwriter"

	"github.com/valyala/fastjson"
	"golang.org/x/sys/unix"

	"parlab/bench"
	"parlab/spawn"
)

// The 2004 LKML thread "Linux 2.4 VS 2.6 fork VS thread creation time test":
// 256 forks against 256 threads on a Pentium III 1 GHz.
var ref2004 = []struct {
	kernel       string
	fork, thread float64 // ms for 256
	ratio        float64
}{
	{"2.6.6-mm5", 40.795, 17.615, 2.316},
	{"2.6.6-mm5, child-runs-last patch", 16.080, 8.600, 1.870},
	{"2.4.23", 48.224, 30.180, 1.598},
}

type labStat struct {
	method    spawn.Method
	mode      spawn.Mode
	per       bench.Summary // µs per creation, over rounds
	total     bench.Summary // ms per round
	ran, dist int
}

func (a *app) spawnLab(args []string) error {
	fs := flag.NewFlagSet("spawn", flag.ContinueOnError)
	n := fs.Int("n", 256, "creations per round (the 2004 test made 256)")
	rounds := fs.Int("rounds", 10, "rounds per method and mode")
	methodsF := fs.String("methods", "goroutine,thread,fork,forkexec-self,forkexec-true", "methods to time")
	modesF := fs.String("modes", "batch,serial,create", "timing modes: batch (create all, then reap all), serial (create and reap, one by one), create (the creating calls only, as in 2004)")
	touch := fs.Int("touch", 0, "touch this many MiB in the parent first: fork copies page tables, so its cost grows with memory")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("spawn takes no arguments")
	}
	if *n < 1 || *rounds < 1 || *touch < 0 {
		return usagef("spawn: --n and --rounds must be at least 1, --touch not negative")
	}
	var methods []spawn.Method
	for _, m := range splitList(*methodsF) {
		ok := false
		for _, k := range spawn.Methods {
			ok = ok || string(k) == m
		}
		if !ok {
			return usagef("spawn: unknown method %q (want %v)", m, spawn.Methods)
		}
		methods = append(methods, spawn.Method(m))
	}
	var modes []spawn.Mode
	for _, m := range splitList(*modesF) {
		switch spawn.Mode(m) {
		case spawn.ModeBatch, spawn.ModeSerial, spawn.ModeCreate:
			modes = append(modes, spawn.Mode(m))
		default:
			return usagef("spawn: unknown mode %q (want batch, serial, create)", m)
		}
	}
	mem := spawn.Touch(*touch)
	defer runtime.KeepAlive(mem)

	var stats []labStat
	for _, m := range methods {
		for _, mode := range modes {
			if _, err := spawn.Lab(m, mode, *n, ""); err != nil { // warmup
				return err
			}
			st := labStat{method: m, mode: mode}
			var per, tot []float64
			for range *rounds {
				r, err := spawn.Lab(m, mode, *n, "")
				if err != nil {
					return err
				}
				if r.Ran != *n {
					return fmt.Errorf("spawn %s %s: only %d of %d units ran", m, mode, r.Ran, *n)
				}
				per = append(per, float64(r.Total.Nanoseconds())/1e3/float64(*n))
				tot = append(tot, float64(r.Total.Nanoseconds())/1e6)
				st.ran, st.dist = r.Ran, r.Distinct
			}
			st.per, st.total = bench.Summarize(per), bench.Summarize(tot)
			stats = append(stats, st)
		}
	}
	find := func(m spawn.Method, mode spawn.Mode) float64 {
		for _, s := range stats {
			if s.method == m && s.mode == mode {
				return s.total.Median
			}
		}
		return 0
	}
	ratios := []struct {
		name, what string
		v          float64
	}{
		{"fork_thread_create", "fork / thread, creating calls only (the 2004 test's way)", safeDiv(find(spawn.MethodFork, spawn.ModeCreate), find(spawn.MethodThread, spawn.ModeCreate))},
		{"fork_thread_batch", "fork / thread, create all then reap all", safeDiv(find(spawn.MethodFork, spawn.ModeBatch), find(spawn.MethodThread, spawn.ModeBatch))},
		{"forkexec_self_goroutine_batch", "forkexec-self / goroutine, batch (a worker process against a worker goroutine)", safeDiv(find(spawn.MethodForkExecSelf, spawn.ModeBatch), find(spawn.MethodGoroutine, spawn.ModeBatch))},
		{"forkexec_self_fork_batch", "forkexec-self / fork, batch (what exec of a Go binary adds)", safeDiv(find(spawn.MethodForkExecSelf, spawn.ModeBatch), find(spawn.MethodFork, spawn.ModeBatch))},
	}
	var u unix.Utsname
	unix.Uname(&u)
	kernel := unix.ByteSliceToString(u.Release[:])
	crf, crfOK := spawn.ChildRunsFirst()

	if *asJSON {
		var ar fastjson.Arena
		o := ar.NewObject()
		o.Set("n", ar.NewNumberInt(*n))
		o.Set("rounds", ar.NewNumberInt(*rounds))
		o.Set("kernel", ar.NewString(kernel))
		o.Set("go", ar.NewString(runtime.Version()))
		o.Set("cores", ar.NewNumberInt(runtime.NumCPU()))
		o.Set("touch_mb", ar.NewNumberInt(*touch))
		if crfOK {
			o.Set("sched_child_runs_first", ar.NewString(crf))
		} else {
			o.Set("sched_child_runs_first", ar.NewNull())
		}
		ms := ar.NewArray()
		for i, s := range stats {
			mo := ar.NewObject()
			mo.Set("method", ar.NewString(string(s.method)))
			mo.Set("mode", ar.NewString(string(s.mode)))
			pc := ar.NewObject()
			pc.Set("median", jnum(&ar, s.per.Median))
			pc.Set("min", jnum(&ar, s.per.Min))
			pc.Set("max", jnum(&ar, s.per.Max))
			mo.Set("per_creation_us", pc)
			tm := ar.NewObject()
			tm.Set("median", jnum(&ar, s.total.Median))
			mo.Set("total_ms", tm)
			mo.Set("ran", ar.NewNumberInt(s.ran))
			if s.method == spawn.MethodThread {
				mo.Set("distinct_threads", ar.NewNumberInt(s.dist))
			}
			ms.SetArrayItem(i, mo)
		}
		o.Set("methods", ms)
		ro := ar.NewObject()
		for _, r := range ratios {
			if r.v > 0 {
				ro.Set(r.name, jnum(&ar, r.v))
			}
		}
		o.Set("ratios", ro)
		rf := ar.NewArray()
		for i, r := range ref2004 {
			x := ar.NewObject()
			x.Set("kernel", ar.NewString(r.kernel))
			x.Set("fork_ms", jnum(&ar, r.fork))
			x.Set("thread_ms", jnum(&ar, r.thread))
			x.Set("ratio", jnum(&ar, r.ratio))
			rf.SetArrayItem(i, x)
		}
		o.Set("reference_2004", rf)
		a.stdout.Write(append(o.MarshalTo(nil), '\n'))
		return nil
	}

	w := a.stdout
	fmt.Fprintf(w, "parlab spawn: %d creations a round, %d rounds (after one warmup round); Linux %s, %s, %d cores", *n, *rounds, kernel, runtime.Version(), runtime.NumCPU())
	if *touch > 0 {
		fmt.Fprintf(w, "; parent touched %d MiB first", *touch)
	}
	fmt.Fprintln(w)
	if crfOK {
		fmt.Fprintf(w, "sched_child_runs_first = %s\n", crf)
	} else {
		fmt.Fprintf(w, "sched_child_runs_first: not present (Linux 6.7 removed it with the move to the EEVDF scheduler, which has no child-runs-first policy)\n")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "method\tmode\tµs per creation: median\tmin\tmax\tms for %d: median\t\n", *n)
	for _, s := range stats {
		extra := ""
		if s.method == spawn.MethodThread {
			extra = fmt.Sprintf("  (%d distinct OS threads)", s.dist)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%.2f\t%.3f\t%s\n", s.method, s.mode, s.per.Median, s.per.Min, s.per.Max, s.total.Median, extra)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, r := range ratios {
		if r.v > 0 {
			fmt.Fprintf(w, "%-90s %.2f\n", r.what+":", r.v)
		}
	}
	fmt.Fprintf(w, "\nThe 2004 test (256 of each, Pentium III 1 GHz):\n")
	for _, r := range ref2004 {
		fmt.Fprintf(w, "  %-34s fork %7.3f ms, thread %7.3f ms, ratio %.3f\n", r.kernel, r.fork, r.thread, r.ratio)
	}
	if f, t := find(spawn.MethodFork, spawn.ModeCreate), find(spawn.MethodThread, spawn.ModeCreate); f > 0 && t > 0 {
		fmt.Fprintf(w, "  %-34s fork %7.3f ms, thread %7.3f ms, ratio %.3f  (creating calls, scaled to 256)\n",
			"here, "+kernel, f*256/float64(*n), t*256/float64(*n), f/t)
	}
	return nil
}

func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func jnum(ar *fastjson.Arena, v float64) *fastjson.Value {
	return ar.NewNumberString(strconv.FormatFloat(v, 'g', 6, 64))
}
