package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"parlab/internal/testrun"
)

// parlab starts its query workers from parlab-worker, beside it, when make
// build stamped both with the same sources (internal/child.WorkerExe), and
// the answer is the goroutines' one; a worker of other sources is not
// started: parlab starts itself. Built here as make build builds them.
func TestWorkerBinary(t *testing.T) {
	testrun.FullRunOnly(t, "builds two binaries")
	dir := t.TempDir()
	build := func(stamp, out, pkg string) {
		t.Helper()
		cmd := exec.Command("go", "build", "-ldflags", "-X parlab/internal/child.stamp="+stamp, "-o", out, pkg)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	parlab, worker := filepath.Join(dir, "parlab"), filepath.Join(dir, "parlab-worker")
	build("s1", parlab, "parlab/cmd/parlab")
	build("s1", worker, "parlab/cmd/parlab-worker")
	query := func(strategy string) (child string, answer any) {
		t.Helper()
		out, err := exec.Command(parlab, "query", "--strategy", strategy, "--workers", "2", "--where", "Region=Europe",
			"--by", "Item Type", "--max", "Order Date", "--json", "testdata/sales").Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strategy, err, out)
		}
		var doc struct {
			Child  string `json:"child"`
			Groups any    `json:"groups"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Child, doc.Groups
	}
	want, _ := json.Marshal(func() any { _, a := query("goroutines"); return a }())
	child, got := query("processes")
	if gotJSON, _ := json.Marshal(got); child != worker || string(gotJSON) != string(want) {
		t.Errorf("processes: started from %q (want %q); %s, want %s", child, worker, gotJSON, want)
	}
	build("s2", worker, "parlab/cmd/parlab-worker") // a worker of other sources
	if child, _ := query("processes"); child != "/proc/self/exe" {
		t.Errorf("a stale worker was started: %q", child)
	}
	if out, err := exec.Command(worker).CombinedOutput(); err == nil || !strings.Contains(string(out), "not by hand") {
		t.Errorf("parlab-worker run by hand: %v, %s", err, out)
	}
}
