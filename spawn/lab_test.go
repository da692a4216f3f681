package spawn

import (
	"os"
	"strings"
	"testing"
)

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

// Every method, every mode, a small N: N units really ran and were reaped,
// each thread was a new one, and nothing is left behind.
func TestLabCounts(t *testing.T) {
	const n = 8
	before := threadsNow(t)
	for _, m := range Methods {
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
			noChildren(t)
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
