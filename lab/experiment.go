package lab

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"text/tabwriter"

	"golang.org/x/sys/unix"

	"parlab/bench"
)

// Reference2004 is the 2004 LKML thread "Linux 2.4 VS 2.6 fork VS thread
// creation time test": 256 forks against 256 threads on a Pentium III 1 GHz.
var Reference2004 = []RefPoint{
	{"2.6.6-mm5", 40.795, 17.615, 2.316},
	{"2.6.6-mm5, child-runs-last patch", 16.080, 8.600, 1.870},
	{"2.4.23", 48.224, 30.180, 1.598},
}

// RefPoint is one kernel of the 2004 test: ms for 256 of each.
type RefPoint struct {
	Kernel string  `json:"kernel"`
	Fork   float64 `json:"fork_ms"`
	Thread float64 `json:"thread_ms"`
	Ratio  float64 `json:"ratio"`
}

// Config is one run of the lab.
type Config struct {
	N, Rounds int      // creations a round; rounds a method and mode (after one warmup round)
	Methods   []Method // in this order
	Modes     []Mode
	TouchMB   int // the parent touches this much memory first (fork copies page tables)
}

// ParseMethod and ParseMode take the names Methods and Modes list.
func ParseMethod(s string) (Method, error) {
	i, err := methodTable.Parse("method", s)
	if err != nil {
		return "", err
	}
	return Methods[i], nil
}

func ParseMode(s string) (Mode, error) {
	i, err := modeTable.Parse("timing mode", s)
	if err != nil {
		return "", err
	}
	return Modes[i], nil
}

// Stat is one method and mode over the rounds.
type Stat struct {
	Method Method
	Mode   Mode
	Per    bench.Summary // µs a creation, over rounds
	Total  bench.Summary // ms a round
	Ran    int           // units that ran in the last round
	// Distinct is the distinct OS threads of the last round (thread only).
	Distinct int
	rounds   []float64 // ms of each round, in order: Ratio pairs them
}

// Ratio is a named quotient of two stats: of their median round times
// (Value), and the median of their quotients round by round (Paired, each
// round's A over the same round's B, which a drift of the machine's speed
// between rounds leaves alone), with its 95% confidence interval (NaN under
// 6 rounds). All are 0 when a side was not measured.
type Ratio struct {
	Name, What                 string
	Value                      float64
	Paired, PairedLo, PairedHi float64
}

// Report is the lab's result: what ran, where, and the 2004 figures.
type Report struct {
	Config
	Kernel, Go string
	Cores      int
	// ChildRunsFirst is /proc/sys/kernel/sched_child_runs_first, "" when the
	// kernel has none (Linux 6.7 removed it).
	ChildRunsFirst string
	Stats          []Stat
	Ratios         []Ratio
	// Skipped: methods that could not run here, and why (forkexec-go
	// without parlab-nop beside parlab).
	Skipped []string
}

// Run runs every method in every mode: a warmup round of each, then
// c.Rounds rounds in which each runs once, in turn; each round must see all
// c.N units run. It fails on the first error.
func Run(c Config) (*Report, error) {
	if c.N < 1 || c.Rounds < 1 || c.TouchMB < 0 {
		return nil, fmt.Errorf("the lab needs N and rounds of at least 1 and a touch of 0 MiB or more")
	}
	mem := Touch(c.TouchMB)
	defer runtime.KeepAlive(mem)
	rep := &Report{Config: c, Go: runtime.Version(), Cores: runtime.NumCPU()}
	var u unix.Utsname
	unix.Uname(&u)
	rep.Kernel = unix.ByteSliceToString(u.Release[:])
	rep.ChildRunsFirst, _ = ChildRunsFirst()
	// The cells (a method in a mode) run round by round, each once a round
	// in the order given (A B C, A B C, ...), so that a drift of the
	// machine's speed falls on all alike and each ratio can be taken
	// round by round as well as of the medians.
	type cell struct {
		m        Method
		mode     Mode
		per, tot []float64
		last     LabRound
	}
	var cells []*cell
	for _, m := range c.Methods {
		if m == MethodForkExecGo {
			if _, err := nopPath(); err != nil {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %v", m, err))
				continue
			}
		}
		if m == MethodMPIRun {
			if _, _, err := mpiPaths(); err != nil {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %v", m, err))
				continue
			}
		}
		for _, mode := range c.Modes {
			if m == MethodMPIRun && mode != ModeBatch {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s %s: mpirun starts its ranks together, so it is timed in batch mode only", m, mode))
				continue
			}
			if _, err := Lab(m, mode, c.N, ""); err != nil { // warmup
				return nil, err
			}
			cells = append(cells, &cell{m: m, mode: mode})
		}
	}
	for range c.Rounds {
		for _, x := range cells {
			r, err := Lab(x.m, x.mode, c.N, "")
			if err != nil {
				return nil, err
			}
			if r.Ran != c.N {
				return nil, fmt.Errorf("%s %s: only %d of %d units ran", x.m, x.mode, r.Ran, c.N)
			}
			x.per = append(x.per, float64(r.Total.Nanoseconds())/1e3/float64(c.N))
			x.tot = append(x.tot, float64(r.Total.Nanoseconds())/1e6)
			x.last = r
		}
	}
	for _, x := range cells {
		rep.Stats = append(rep.Stats, Stat{Method: x.m, Mode: x.mode, Per: bench.Summarize(x.per), Total: bench.Summarize(x.tot),
			Ran: x.last.Ran, Distinct: x.last.Distinct, rounds: x.tot})
	}
	ratio := func(a, b Method, mode Mode) Ratio {
		x, y := rep.stat(a, mode), rep.stat(b, mode)
		if x == nil || y == nil || x.Total.Median == 0 || y.Total.Median == 0 {
			return Ratio{}
		}
		q := make([]float64, len(x.rounds))
		for i := range q {
			q[i] = x.rounds[i] / y.rounds[i]
		}
		med, lo, hi := bench.MedianCI(q)
		return Ratio{Value: x.Total.Median / y.Total.Median, Paired: med, PairedLo: lo, PairedHi: hi}
	}
	named := func(name, what string, r Ratio) Ratio {
		r.Name, r.What = name, what
		return r
	}
	rep.Ratios = []Ratio{
		named("fork_thread_create", "fork / thread, creating calls only (the 2004 test's way)", ratio(MethodFork, MethodThread, ModeCreate)),
		named("fork_thread_batch", "fork / thread, create all then reap all", ratio(MethodFork, MethodThread, ModeBatch)),
		named("forkexec_self_goroutine_batch", "forkexec-self / goroutine, batch (a worker process against a worker goroutine)", ratio(MethodForkExecSelf, MethodGoroutine, ModeBatch)),
		named("forkexec_self_fork_batch", "forkexec-self / fork, batch (what exec of a Go binary adds)", ratio(MethodForkExecSelf, MethodFork, ModeBatch)),
		named("forkexec_worker_self_batch", "forkexec-worker / forkexec-self, batch (the lean worker binary against parlab)", ratio(MethodForkExecWorker, MethodForkExecSelf, ModeBatch)),
		named("forkexec_worker_go_serial", "forkexec-worker / forkexec-go, serial (a worker against the smallest Go program: issue 44's target, at most 1.5)", ratio(MethodForkExecWorker, MethodForkExecGo, ModeSerial)),
		named("forkexec_session_go_serial", "forkexec-session / forkexec-go, serial (an FTP session process of a server with TLS, or a load client, against the smallest Go program: issue 44's target, at most 1.5)", ratio(MethodForkExecSession, MethodForkExecGo, ModeSerial)),
		named("forkexec_session_plain_go_serial", "forkexec-session-plain / forkexec-go, serial (an FTP session process of a server without TLS against the smallest Go program: issue 44's target, at most 1.5)", ratio(MethodForkExecPlain, MethodForkExecGo, ModeSerial)),
		named("forkexec_self_go_serial", "forkexec-self / forkexec-go, serial (parlab against the smallest Go program)", ratio(MethodForkExecSelf, MethodForkExecGo, ModeSerial)),
		named("mpirun_forkexec_self_batch", "mpirun / forkexec-self, batch (an MPI job of N ranks, MPI_Init and MPI_Finalize in each, against N worker processes)", ratio(MethodMPIRun, MethodForkExecSelf, ModeBatch)),
	}
	return rep, nil
}

// stat is a method's stat in a mode, nil if it was not measured.
func (r *Report) stat(m Method, mode Mode) *Stat {
	for i := range r.Stats {
		if s := &r.Stats[i]; s.Method == m && s.Mode == mode {
			return s
		}
	}
	return nil
}

// median is a stat's median round time in ms, 0 if it was not measured.
func (r *Report) median(m Method, mode Mode) float64 {
	if s := r.stat(m, mode); s != nil {
		return s.Total.Median
	}
	return 0
}

// MarshalJSON is the report as the CLI's --json prints it: times in the
// units their names say (per_creation_us, total_ms), NaN never.
func (r *Report) MarshalJSON() ([]byte, error) {
	type summary struct {
		Median float64  `json:"median"`
		Min    *float64 `json:"min,omitempty"`
		Max    *float64 `json:"max,omitempty"`
	}
	type paired struct {
		Median float64  `json:"median"`
		Lo     *float64 `json:"ci95_lo,omitempty"`
		Hi     *float64 `json:"ci95_hi,omitempty"`
	}
	type method struct {
		Method   Method  `json:"method"`
		Mode     Mode    `json:"mode"`
		Per      summary `json:"per_creation_us"`
		Total    summary `json:"total_ms"`
		Ran      int     `json:"ran"`
		Distinct *int    `json:"distinct_threads,omitempty"`
	}
	doc := struct {
		N              int                `json:"n"`
		Rounds         int                `json:"rounds"`
		Kernel         string             `json:"kernel"`
		Go             string             `json:"go"`
		Cores          int                `json:"cores"`
		TouchMB        int                `json:"touch_mb"`
		ChildRunsFirst *string            `json:"sched_child_runs_first"`
		Methods        []method           `json:"methods"`
		Ratios         map[string]float64 `json:"ratios"`
		Paired         map[string]paired  `json:"ratios_paired"`
		Skipped        []string           `json:"skipped,omitempty"`
		Reference      []RefPoint         `json:"reference_2004"`
	}{Skipped: r.Skipped, N: r.N, Rounds: r.Rounds, Kernel: r.Kernel, Go: r.Go, Cores: r.Cores, TouchMB: r.TouchMB,
		Methods: []method{}, Ratios: map[string]float64{}, Paired: map[string]paired{}, Reference: Reference2004}
	if r.ChildRunsFirst != "" {
		doc.ChildRunsFirst = &r.ChildRunsFirst
	}
	for _, s := range r.Stats {
		m := method{Method: s.Method, Mode: s.Mode, Ran: s.Ran,
			Per: summary{s.Per.Median, &s.Per.Min, &s.Per.Max}, Total: summary{Median: s.Total.Median}}
		if s.Method == MethodThread {
			m.Distinct = &s.Distinct
		}
		doc.Methods = append(doc.Methods, m)
	}
	for _, x := range r.Ratios {
		if x.Value > 0 {
			doc.Ratios[x.Name] = x.Value
			p := paired{Median: x.Paired}
			if !math.IsNaN(x.PairedLo) {
				p.Lo, p.Hi = &x.PairedLo, &x.PairedHi
			}
			doc.Paired[x.Name] = p
		}
	}
	return json.Marshal(doc)
}

// WriteText writes the report as tables.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "parlab spawn: %d creations a round, %d rounds (after one warmup round); Linux %s, %s, %d cores",
		r.N, r.Rounds, r.Kernel, r.Go, r.Cores)
	if r.TouchMB > 0 {
		fmt.Fprintf(w, "; parent touched %d MiB first", r.TouchMB)
	}
	fmt.Fprintln(w)
	if r.ChildRunsFirst != "" {
		fmt.Fprintf(w, "sched_child_runs_first = %s\n", r.ChildRunsFirst)
	} else {
		fmt.Fprintf(w, "sched_child_runs_first: not present (Linux 6.7 removed it with the move to the EEVDF scheduler, which has no child-runs-first policy)\n")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "method\tmode\tµs per creation: median\tmin\tmax\tms for %d: median\t\n", r.N)
	for _, s := range r.Stats {
		extra := ""
		if s.Method == MethodThread {
			extra = fmt.Sprintf("  (%d distinct OS threads)", s.Distinct)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%.2f\t%.3f\t%s\n", s.Method, s.Mode, s.Per.Median, s.Per.Min, s.Per.Max, s.Total.Median, extra)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, x := range r.Ratios {
		if x.Value > 0 {
			ci := ""
			if !math.IsNaN(x.PairedLo) {
				ci = fmt.Sprintf(", 95%% CI %.2f–%.2f", x.PairedLo, x.PairedHi)
			}
			fmt.Fprintf(w, "%-90s %.2f  (round by round %.2f%s)\n", x.What+":", x.Value, x.Paired, ci)
		}
	}
	for _, why := range r.Skipped {
		fmt.Fprintf(w, "skipped: %s\n", why)
	}
	fmt.Fprintf(w, "\nThe 2004 test (256 of each, Pentium III 1 GHz):\n")
	for _, p := range Reference2004 {
		fmt.Fprintf(w, "  %-34s fork %7.3f ms, thread %7.3f ms, ratio %.3f\n", p.Kernel, p.Fork, p.Thread, p.Ratio)
	}
	if f, t := r.median(MethodFork, ModeCreate), r.median(MethodThread, ModeCreate); f > 0 && t > 0 {
		fmt.Fprintf(w, "  %-34s fork %7.3f ms, thread %7.3f ms, ratio %.3f  (creating calls, scaled to 256)\n",
			"here, "+r.Kernel, f*256/float64(r.N), t*256/float64(r.N), f/t)
	}
}
