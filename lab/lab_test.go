package lab

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"parlab/internal/child"
)

// forkexec-self starts this test binary in the lab's no-op mode.
func TestMain(m *testing.M) {
	if code, ok := child.Run(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func threadsNow(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			var n int
			for _, c := range strings.TrimSpace(v) {
				n = n*10 + int(c-'0')
			}
			return n
		}
	}
	t.Fatal("no Threads: line")
	return 0
}

// lean is the binary each method of a lean child starts.
var lean = map[Method]string{MethodForkExecWorker: child.WorkerName, MethodForkExecSession: child.SessionName, MethodForkExecPlain: child.PlainSessionName}

// Every method, every mode, a small N: N units really ran and were reaped,
// each thread was a new one, and nothing is left behind.
func TestLabCounts(t *testing.T) {
	n := 8
	if testing.Short() {
		n = 2 // the race run: a race-built child takes a second to start
	}
	before := threadsNow(t)
	for _, m := range Methods {
		if _, err := nopPath(); m == MethodForkExecGo && err != nil {
			continue // no parlab-nop beside the test binary (cmd/parlab's TestWorkerBinary runs it)
		}
		if m == MethodMPIRun {
			continue // TestMPIRunSkipped; cmd/parlab's TestMPIJob runs it
		}
		if lean[m] != "" && child.Exe(lean[m]) == child.Self {
			continue // forkexec-self again (no lean binary beside a test binary): cmd/parlab's TestWorkerBinary runs the real ones
		}
		for _, mode := range Modes {
			r, err := Lab(m, mode, n, "")
			if err != nil {
				t.Fatalf("%s %s: %v", m, mode, err)
			}
			if r.Ran != n || r.Total <= 0 {
				t.Errorf("%s %s: %d of %d ran, %v", m, mode, r.Ran, n, r.Total)
			}
			if m == MethodThread && r.Distinct != n {
				t.Errorf("thread %s: %d distinct OS threads for %d units: threads were reused", mode, r.Distinct, n)
			}
			child.Reaped(t)
		}
	}
	// the locked threads ended: the thread count is back (give or take the
	// runtime's own)
	if after := threadsNow(t); after > before+4 {
		t.Errorf("%d threads after the lab, %d before", after, before)
	}
}

func TestTouchAndKnob(t *testing.T) {
	if b := Touch(3); len(b) != 3<<20 || b[0] != 1 {
		t.Error("Touch")
	}
	v, ok := ChildRunsFirst()
	if ok && v != "0" && v != "1" {
		t.Errorf("sched_child_runs_first = %q", v)
	}
}

// The experiment: every stat ran N units each round, the ratios are there,
// and the report renders as text and as JSON.
func TestRun(t *testing.T) {
	rep, err := Run(Config{N: 4, Rounds: 2, Methods: []Method{MethodGoroutine, MethodFork, MethodThread}, Modes: []Mode{ModeBatch, ModeCreate}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Stats) != 6 || rep.Kernel == "" {
		t.Fatalf("%+v", rep)
	}
	for _, s := range rep.Stats {
		if s.Ran != 4 || s.Per.Median <= 0 {
			t.Errorf("%+v", s)
		}
	}
	var b strings.Builder
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "2004") || !strings.Contains(b.String(), "fork / thread, creating calls only") {
		t.Errorf("text:\n%s", b.String())
	}
	if _, err := ParseMethod("vfork"); err == nil {
		t.Error("ParseMethod(vfork)")
	}
	if _, err := ParseMode("batch"); err != nil {
		t.Error(err)
	}
	if _, err := Run(Config{N: 0, Rounds: 1}); err == nil {
		t.Error("N = 0 ran")
	}
}

// The methods run round by round, and each ratio is also taken round by
// round: its Paired is the median of the rounds' own quotients, with a 95%
// interval from 6 rounds on, and the JSON carries both.
func TestRunPaired(t *testing.T) {
	rep, err := Run(Config{N: 8, Rounds: 7, Methods: []Method{MethodGoroutine, MethodThread, MethodFork}, Modes: []Mode{ModeBatch}})
	if err != nil {
		t.Fatal(err)
	}
	f, th := rep.stat(MethodFork, ModeBatch), rep.stat(MethodThread, ModeBatch)
	if f == nil || th == nil || len(f.rounds) != 7 || len(th.rounds) != 7 {
		t.Fatalf("%+v", rep.Stats)
	}
	q := make([]float64, 7)
	for i := range q {
		q[i] = f.rounds[i] / th.rounds[i]
	}
	slices.Sort(q)
	var r Ratio
	for _, x := range rep.Ratios {
		if x.Name == "fork_thread_batch" {
			r = x
		}
	}
	if r.Paired != q[3] || r.Value != f.Total.Median/th.Total.Median || !(r.PairedLo <= r.Paired && r.Paired <= r.PairedHi) {
		t.Errorf("fork_thread_batch %+v, rounds' quotients %v", r, q)
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paired map[string]struct {
			Median float64
			Lo     *float64 `json:"ci95_lo"`
		} `json:"ratios_paired"`
	}
	if json.Unmarshal(js, &doc) != nil || doc.Paired["fork_thread_batch"].Median != q[3] || doc.Paired["fork_thread_batch"].Lo == nil {
		t.Errorf("JSON: %s", js)
	}
	var b strings.Builder
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "round by round") || !strings.Contains(b.String(), "95% CI") {
		t.Errorf("text:\n%s", b.String())
	}
}

// Without parlab-mpi beside it (as beside this test binary) the lab skips
// the mpirun method and says why; it times mpirun in batch mode only.
func TestMPIRunSkipped(t *testing.T) {
	rep, err := Run(Config{N: 2, Rounds: 1, Methods: []Method{MethodMPIRun}, Modes: []Mode{ModeBatch}})
	if err != nil || len(rep.Stats) != 0 || len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0], "mpirun: no ") {
		t.Fatalf("%+v, %v", rep, err)
	}
	if _, err := Lab(MethodMPIRun, ModeSerial, 2, ""); err == nil || !strings.Contains(err.Error(), "batch mode only") {
		t.Errorf("mpirun in serial mode: %v", err)
	}
}
