package child

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

func TestRegistry(t *testing.T) {
	var got []string
	Register("__parlab_test_a", func(args []string) int { got = args; return 7 })
	if code, ok := Run([]string{"prog", "__parlab_test_a", "x"}); !ok || code != 7 || !slices.Equal(got, []string{"prog", "__parlab_test_a", "x"}) {
		t.Errorf("Run: %d %v, args %q", code, ok, got)
	}
	for _, args := range [][]string{nil, {"prog"}, {"prog", "query"}, {"prog", "__parlab_test_b"}} {
		if _, ok := Run(args); ok {
			t.Errorf("Run(%q) ran a mode", args)
		}
	}
	if !slices.Contains(Modes(), "__parlab_test_a") {
		t.Errorf("Modes() = %q", Modes())
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a mode twice did not panic")
		}
	}()
	Register("__parlab_test_a", func([]string) int { return 0 })
}

func TestUnreaped(t *testing.T) {
	if err := Unreaped(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // exited, not reaped
	if err := Unreaped(); err == nil {
		t.Error("an unreaped child was not seen")
	}
	cmd.Wait()
}

// A binary without a stamp, or that is not a Go program, has none, so Exe
// never takes it: children are this program itself (the end to end case,
// with stamped binaries, is cmd/parlab's TestWorkerBinary).
func TestStampOf(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{exe, "/bin/sh", "/nonexistent"} {
		if s := stampOf(p); s != "" {
			t.Errorf("%s: stamp %q", p, s)
		}
	}
	if Stamp() != "" || Exe(WorkerName) != Self || Exe(SessionName) != Self {
		t.Errorf("a test binary: stamp %q, worker %s, session %s", Stamp(), Exe(WorkerName), Exe(SessionName))
	}
}
