package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"parlab/internal/testrun"
)

// parlab starts its query workers from parlab-worker, beside it, when make
// build stamped both with the same sources (internal/child.Exe), and the
// answer is the goroutines' one; a worker of other sources is not started:
// parlab starts itself. The FTP processes model's sessions run
// parlab-session the same way. Built here as make build builds them.
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
	// the spawn lab times the worker against the smallest Go program
	build("", filepath.Join(dir, "parlab-nop"), "parlab/cmd/parlab-nop")
	out, err := exec.Command(parlab, "spawn", "--methods", "forkexec-worker,forkexec-go", "--modes", "serial", "--n", "3", "--rounds", "1", "--json").Output()
	var lab struct {
		Ratios  map[string]float64
		Skipped []string
	}
	if err != nil || json.Unmarshal(out, &lab) != nil || lab.Ratios["forkexec_worker_go_serial"] <= 0 || len(lab.Skipped) != 0 {
		t.Errorf("spawn, forkexec-worker against forkexec-go: %v, %s", err, out)
	}
	build("s2", worker, "parlab/cmd/parlab-worker") // a worker of other sources
	if child, _ := query("processes"); child != "/proc/self/exe" {
		t.Errorf("a stale worker was started: %q", child)
	}
	if out, err := exec.Command(worker).CombinedOutput(); err == nil || !strings.Contains(string(out), "not by hand") {
		t.Errorf("parlab-worker run by hand: %v, %s", err, out)
	}

	// The FTP processes model's sessions run parlab-session: a session
	// greets, logs in and lists, and its process is that binary.
	session := filepath.Join(dir, "parlab-session")
	build("s1", session, "parlab/cmd/parlab-session")
	root := t.TempDir()
	srv := exec.Command(parlab, "ftp", "serve", "--model", "processes", "--anonymous", "--root", root, "--listen", "127.0.0.1:0")
	sout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() }()
	line, err := bufio.NewReader(sout).ReadString('\n')
	m := regexp.MustCompile(`on (127\.0\.0\.1:\d+)`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("ftp serve: %q, %v", line, err)
	}
	c, err := net.DialTimeout("tcp", m[1], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	if greet, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(greet, "220") {
		t.Fatalf("greeting %q, %v", greet, err)
	}
	// (a child is listed under the thread that forked it: the spawner's)
	var exes []string
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", srv.Process.Pid))
	for _, tf := range tasks {
		b, _ := os.ReadFile(tf)
		for _, f := range strings.Fields(string(b)) {
			if p, err := os.Readlink("/proc/" + f + "/exe"); err == nil {
				exes = append(exes, p)
			}
		}
	}
	if len(exes) != 1 || exes[0] != session {
		t.Errorf("the session's process runs %q, want %q", exes, session)
	}
	fmt.Fprintf(c, "USER anonymous\r\nPASS x\r\nQUIT\r\n")
	for _, want := range []string{"331", "230", "221"} {
		if l, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(l, want) {
			t.Errorf("reply %q, %v; want %s", l, err, want)
		}
	}
	// the load generator's client processes run parlab-session too: they
	// work only if it has their mode
	b, err := exec.Command(parlab, "ftp", "load", "--addr", m[1], "--users", "3", "--delay", "1ms", "--script", "PWD",
		"--clients", "processes", "--json", "-").Output()
	var lr struct{ Outcomes map[string]int }
	if err != nil || json.Unmarshal(b, &lr) != nil || lr.Outcomes["ok"] != 3 {
		t.Errorf("ftp load --clients processes: %v, %s", err, b)
	}
}
