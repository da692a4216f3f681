package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"parlab/data"
	"parlab/input"
	"parlab/internal/testrun"
)

// mpiEnv is the environment of the tests' MPI jobs: root may run them (CI
// runs as root), ranks may outnumber cores, and every byte stays on this
// machine (shared memory between ranks, the loopback for mpirun's own).
var mpiEnv = []string{
	"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
	"OMPI_MCA_rmaps_base_oversubscribe=1",
	"OMPI_MCA_btl=self,vader", "OMPI_MCA_btl_vader_single_copy_mechanism=none",
	"OMPI_MCA_oob_tcp_if_include=lo",
	"OMPI_MCA_hwloc_base_binding_policy=none", // a rank's threads may use every core
	// when a rank fails, its peers get SIGKILL at once, not a second
	// after SIGTERM: each failing job here ends 2 s sooner
	"OMPI_MCA_odls_base_sigkill_timeout=0",
}

// buildMPI builds parlab with the mpi build tag, as make build builds
// bin/parlab-mpi, or skips t where OpenMPI is not installed (CI installs
// it: .ci/run).
func buildMPI(t *testing.T) string {
	t.Helper()
	testrun.FullRunOnly(t, "builds parlab with MPI and runs MPI jobs")
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Skip("OpenMPI is not installed (apt install libopenmpi-dev openmpi-bin): the mpi strategy's real jobs are not run")
	}
	if err := exec.Command("pkg-config", "--exists", "ompi").Run(); err != nil {
		t.Skip("OpenMPI's headers are not installed (apt install libopenmpi-dev): the mpi strategy's real jobs are not run")
	}
	probe := exec.Command("mpirun", "-np", "1", "true")
	probe.Env = append(os.Environ(), mpiEnv...)
	if b, err := probe.CombinedOutput(); err != nil {
		t.Skipf("mpirun cannot start a job on this machine (mpirun -np 1 true: %v): the mpi strategy's real jobs are not run\n%s", err, b)
	}
	exe := filepath.Join(t.TempDir(), "parlab-mpi")
	cmd := exec.Command("go", "build", "-tags", "mpi", "-o", exe, "parlab/cmd/parlab")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags mpi: %v\n%s", err, b)
	}
	return exe
}

// mpirun runs args under mpirun (each an argument of mpirun's), bounded in
// time, and returns stdout, stderr and the error.
func mpirun(t *testing.T, env []string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "mpirun", args...)
	cmd.Env = append(append(os.Environ(), mpiEnv...), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("mpirun %q did not end in a minute", args)
	}
	return out.String(), errb.String(), err
}

// answerOf is a query's JSON answer without what differs between runs and
// strategies (times, workers, the strategy's name).
func answerOf(t *testing.T, out string) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"strategy", "split", "workers", "ranks", "io", "time", "imbalance", "per_worker", "rescanned", "child"} {
		delete(doc, k)
	}
	b, _ := json.Marshal(doc)
	// a kind's why names a file as the run was given it: by its base name
	return regexp.MustCompile(` at [^ "]*/`).ReplaceAllString(string(b), " at ")
}

// Real MPI jobs: mpirun -np 1..4 of parlab-mpi gives seq's answer for each
// shape at ranks x threads and every kind of split; with the file split a
// rank opens only its own files (each rank here runs in a directory that
// holds only its files, as hosts would); a rank that dies mid-scan, or
// hangs past --timeout, fails the whole job loudly with no answer; and the
// mpi strategy outside mpirun, or in a parlab built without MPI, says how
// to run it.
func TestMPIJob(t *testing.T) {
	exe := buildMPI(t)
	dir := t.TempDir()
	if err := data.Generate(dir, data.Options{Rows: 6000, Files: 4, Seed: 3}, false, nil); err != nil {
		t.Fatal(err)
	}
	seq := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(exe, append(append([]string{"query", "--strategy", "seq", "--json"}, args...), dir)...).Output()
		if err != nil {
			t.Fatalf("seq %q: %v", args, err)
		}
		return answerOf(t, string(out))
	}
	for _, c := range []struct {
		np, threads int
		split       string
		query       []string
	}{
		{1, 2, "auto", []string{"--where", "Region=Europe"}},
		{2, 1, "rows", []string{"--by", "Item Type", "--max", "Order Date", "--avg", "Unit Price"}},
		{3, 2, "file", []string{"--by", "Order ID", "--sum", "Units Sold"}},
		{4, 1, "dynamic", []string{"--where", "Sales Channel=Online", "--min", "Ship Date"}},
		{2, 2, "auto", []string{"--by", "Order ID", "--where", "Region!=Asia"}}, // the keys split
	} {
		args := append([]string{"-np", strconv.Itoa(c.np), exe, "query", "--strategy", "mpi", "--workers", strconv.Itoa(c.threads), "--split", c.split, "--json"}, c.query...)
		out, errOut, err := mpirun(t, nil, append(args, dir)...)
		if err != nil {
			t.Fatalf("%d ranks x %d, %s, %q: %v\n%s", c.np, c.threads, c.split, c.query, err, errOut)
		}
		if got, want := answerOf(t, out), seq(c.query...); got != want {
			t.Errorf("%d ranks x %d, %s, %q:\n%s\nwant (seq)\n%s", c.np, c.threads, c.split, c.query, got, want)
		}
		if !strings.Contains(out, `"ranks":`+strconv.Itoa(c.np)) {
			t.Errorf("%d ranks: the JSON does not say so:\n%.300s", c.np, out)
		}
	}

	// Inputs each rank stages itself (a gzip file, a TSV file): each rank's
	// copy is somewhere else, and the ranks agree by the names given.
	paths0, _ := input.ExpandPaths([]string{dir})
	raw, _ := os.ReadFile(paths0[0])
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	gzPath := filepath.Join(t.TempDir(), "part.csv.gz")
	tsvPath := filepath.Join(filepath.Dir(gzPath), "part.tsv")
	os.WriteFile(gzPath, gz.Bytes(), 0o644)
	os.WriteFile(tsvPath, bytes.ReplaceAll(raw, []byte(","), []byte("\t")), 0o644)
	for _, in := range []string{gzPath, tsvPath} {
		q := []string{"--by", "Region", "--max", "Order Date"}
		out, errOut, err := mpirun(t, nil, append(append([]string{"-np", "2", exe, "query", "--strategy", "mpi", "--json"}, q...), in)...)
		if err != nil {
			t.Fatalf("%s over 2 ranks: %v\n%s", in, err, errOut)
		}
		want, err := exec.Command(exe, append(append([]string{"query", "--strategy", "seq", "--json"}, q...), in)...).Output()
		if err != nil {
			t.Fatalf("seq %s: %v", in, err)
		}
		if got, want := answerOf(t, out), answerOf(t, string(want)); got != want {
			t.Errorf("%s over 2 ranks:\n%s\nwant (seq)\n%s", in, got, want)
		}
	}

	// Files spread across "hosts": two ranks, each in a directory with only
	// its own two files, named by relative paths (MPMD: one app context a
	// rank, each with its working directory).
	paths, _ := input.ExpandPaths([]string{dir})
	var rel []string
	for k := range 2 {
		hd := filepath.Join(t.TempDir(), "host")
		os.MkdirAll(hd, 0o755)
		for _, p := range paths[2*k : 2*k+2] {
			os.Link(p, filepath.Join(hd, filepath.Base(p)))
		}
		rel = append(rel, hd)
	}
	q := []string{"query", "--strategy", "mpi", "--split", "file", "--json", "--by", "Region"}
	names := []string{filepath.Base(paths[0]), filepath.Base(paths[1]), filepath.Base(paths[2]), filepath.Base(paths[3])}
	args := append(append([]string{"-np", "1", "-wdir", rel[0], exe}, q...), names...)
	args = append(append(append(args, ":", "-np", "1", "-wdir", rel[1], exe), q...), names...)
	out, errOut, err := mpirun(t, nil, args...)
	if err != nil {
		t.Fatalf("files spread over two ranks: %v\n%s", err, errOut)
	}
	if got, want := answerOf(t, out), seq("--by", "Region"); got != want {
		t.Errorf("files spread over two ranks:\n%s\nwant\n%s", got, want)
	}
	// the same with the rows split, which needs every file at every rank
	q[4] = "rows"
	args = append(append([]string{"-np", "1", "-wdir", rel[0], exe}, q...), names...)
	args = append(append(append(args, ":", "-np", "1", "-wdir", rel[1], exe), q...), names...)
	if out, errOut, err := mpirun(t, nil, args...); err == nil || out != "" {
		t.Errorf("the rows split over files spread across ranks: %v, %q", err, out)
	} else if !strings.Contains(errOut, "no such file") {
		t.Errorf("the rows split over files spread across ranks: the error does not name the missing file:\n%s", errOut)
	}

	// A rank that dies or hangs fails the job: no answer, a non-zero exit.
	base := []string{"-np", "2", exe, "query", "--strategy", "mpi", "--split", "dynamic", "--json", "--where", "Region=Europe", dir}
	out, errOut, err = mpirun(t, []string{"PARLAB_FAILPOINT=rank-kill:1"}, base...)
	if err == nil || out != "" || !strings.Contains(errOut, "signal 9") {
		t.Errorf("rank 1 killed mid-scan: %v, stdout %q, stderr:\n%s", err, out, errOut)
	}
	t0 := time.Now()
	out, errOut, err = mpirun(t, []string{"PARLAB_FAILPOINT=rank-hang:1"}, append(base[:len(base)-1], "--timeout", "1s", dir)...)
	if err == nil || out != "" || !strings.Contains(errOut, "did not finish within the timeout") || time.Since(t0) > 20*time.Second {
		t.Errorf("rank 1 hung, --timeout 1s: %v after %v, stdout %q, stderr:\n%s", err, time.Since(t0), out, errOut)
	}

	// parlab bench in an MPI job: rank 0 runs the study, the other rank
	// takes part in each mpi trial; mpi runs at the worker counts that are
	// ranks x threads, and its answers are checked as every trial's are.
	out, errOut, err = mpirun(t, nil, "-np", "2", exe, "bench", "--strategies", "goroutines,mpi", "--workers", "1,2", "--splits", "rows,file",
		"--trials", "2", "--warmup", "0", "--no-floor", "--json", "-", "--by", "Country", dir)
	var doc struct {
		Env struct {
			MPIRanks int `json:"mpi_ranks"`
		}
		Results []struct {
			Parameters struct {
				Strategy string
				Workers  int
			}
			Times []float64
		}
	}
	if err != nil {
		t.Fatalf("bench in an MPI job: %v\n%s", err, errOut)
	}
	if i := strings.Index(out, "{"); i < 0 || json.Unmarshal([]byte(out[i:]), &doc) != nil {
		t.Fatalf("bench in an MPI job: no JSON document:\n%s", out)
	}
	var mpiRuns []int
	for _, r := range doc.Results {
		if r.Parameters.Strategy == "mpi" && len(r.Times) == 2 {
			mpiRuns = append(mpiRuns, r.Parameters.Workers)
		}
	}
	if doc.Env.MPIRanks != 2 || len(mpiRuns) != 2 || mpiRuns[0] != 2 || mpiRuns[1] != 2 {
		t.Errorf("bench in an MPI job: %d ranks, mpi trials at workers %v (want 2 ranks; rows and file at 2)\n%s", doc.Env.MPIRanks, mpiRuns, out)
	}

	// outside mpirun, and parlab without MPI under mpirun
	if out, err := exec.Command(exe, "query", "--strategy", "mpi", dir).CombinedOutput(); err == nil || !strings.Contains(string(out), "mpirun -np R") {
		t.Errorf("the mpi strategy outside mpirun: %v, %s", err, out)
	}
	// a parlab without MPI: this test binary as parlab (TestMain), linked
	// beside parlab-mpi, as make build leaves them
	plain := filepath.Join(filepath.Dir(exe), "parlab")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(self, plain); err != nil {
		b, err := os.ReadFile(self)
		if err != nil || os.WriteFile(plain, b, 0o755) != nil {
			t.Fatalf("a copy of the test binary: %v", err)
		}
	}
	asParlab := []string{"PARLAB_TEST_MAIN=1"}
	if _, errOut, err := mpirun(t, asParlab, "-np", "1", plain, "query", "--strategy", "mpi", dir); err == nil || !strings.Contains(errOut, "built without MPI") {
		t.Errorf("parlab without MPI under mpirun: %v\n%s", err, errOut)
	}

	// the spawn lab times mpirun of N ranks of parlab-mpi, beside parlab
	lab := exec.Command(plain, "spawn", "--methods", "forkexec-self,mpirun", "--modes", "batch", "--n", "2", "--rounds", "1", "--json")
	lab.Env = append(append(os.Environ(), mpiEnv...), asParlab...)
	out8, err := lab.Output()
	var labDoc struct {
		Ratios  map[string]float64
		Skipped []string
	}
	// (the ratio's size is the lab's finding, not the test's: under the race
	// detector a race-built parlab starts slower than mpirun's ranks)
	if err != nil || json.Unmarshal(out8, &labDoc) != nil || labDoc.Ratios["mpirun_forkexec_self_batch"] <= 0 || len(labDoc.Skipped) != 0 {
		t.Errorf("spawn --methods mpirun: %v, %s", err, out8)
	}
}

// The mpi strategy across hosts: two hosts made of network, UTS and mount
// namespaces on this machine (scripts/mpi-hosts.sh), OpenMPI's TCP
// transport between them, each host holding only its own two of the four
// files at /srv/parlab: the file split gives seq's answer over all four,
// with one rank a host and with two; the same four files held by both
// hosts (shared/) give it under the rows split too; a rank killed on the
// second host fails the job, naming the rank and the host, with no answer. It skips, saying why, where namespaces cannot be
// made (not root, or a container that forbids them).
func TestMPIAcrossHosts(t *testing.T) {
	exe := buildMPI(t)
	script, _ := filepath.Abs("../../scripts/mpi-hosts.sh")
	if os.Geteuid() != 0 {
		t.Skip("not root: network and mount namespaces cannot be made (scripts/mpi-hosts.sh)")
	}
	if b, err := exec.Command("ip", "netns", "add", "parlab-probe").CombinedOutput(); err != nil {
		t.Skipf("ip netns add: %v: network namespaces cannot be made here\n%s", err, b)
	}
	exec.Command("ip", "netns", "del", "parlab-probe").Run()
	dir := t.TempDir()
	all := filepath.Join(dir, "all")
	if err := data.Generate(all, data.Options{Rows: 8000, Files: 4, Seed: 5}, false, nil); err != nil {
		t.Fatal(err)
	}
	for h, files := range map[string][]string{"h1": {"xaa.csv", "xab.csv"}, "h2": {"xac.csv", "xad.csv"}} {
		os.MkdirAll(filepath.Join(dir, h, "shared"), 0o755)
		for _, f := range files {
			if err := os.Link(filepath.Join(all, f), filepath.Join(dir, h, f)); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range []string{"xaa.csv", "xab.csv", "xac.csv", "xad.csv"} { // what both hold
			if err := os.Link(filepath.Join(all, f), filepath.Join(dir, h, "shared", f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if b, err := exec.Command(script, "up", dir).CombinedOutput(); err != nil {
		exec.Command(script, "down").Run()
		t.Skipf("scripts/mpi-hosts.sh up: %v: the hosts cannot be made here\n%s", err, b)
	}
	defer exec.Command(script, "down").Run()
	hostfile := filepath.Join(dir, "hostfile")
	if err := os.WriteFile(hostfile, []byte("parlab-h1 slots=2\nparlab-h2 slots=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	job := func(env string, np int, args ...string) (string, string, error) {
		mapBy := "node" // one rank a host
		if np > 2 {
			mapBy = "slot" // a host's slots filled first: its ranks take its files
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		line := "cd /srv/parlab && " + env + " OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --hostfile " + hostfile +
			" -np " + fmt.Sprint(np) + " --map-by " + mapBy + " -wdir /srv/parlab -mca plm_rsh_agent " + script +
			" -mca btl tcp,self -mca oob_tcp_if_include 10.77.0.0/24 -mca btl_tcp_if_include 10.77.0.0/24 -mca hwloc_base_binding_policy none -x PARLAB_FAILPOINT " +
			exe + " " + strings.Join(args, " ")
		cmd := exec.CommandContext(ctx, script, "run", "parlab-h1", line)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if ctx.Err() != nil {
			t.Fatalf("the two-host job did not end in a minute: %s", line)
		}
		return out.String(), errb.String(), err
	}
	q := []string{"query", "--strategy", "mpi", "--split", "file", "--json", "--by", "Region", "xaa.csv", "xab.csv", "xac.csv", "xad.csv"}
	want, err := exec.Command(exe, "query", "--strategy", "seq", "--json", "--by", "Region", all).Output()
	if err != nil {
		t.Fatal(err)
	}
	shared := append(append([]string{}, q[:len(q)-4]...), "shared/xaa.csv", "shared/xab.csv", "shared/xac.csv", "shared/xad.csv")
	shared[4] = "rows" // (--split rows: both hosts hold every file)
	for _, c := range []struct {
		what string
		np   int
		args []string
	}{{"each host its own files, a rank each", 2, q}, {"each host its own files, two ranks each", 4, q}, {"the files shared, the rows split", 2, shared}} {
		out, errOut, err := job("PARLAB_FAILPOINT=", c.np, c.args...)
		if err != nil {
			t.Fatalf("two hosts, %s: %v\n%s", c.what, err, errOut)
		}
		if got, want := answerOf(t, out), answerOf(t, string(want)); got != want {
			t.Errorf("two hosts, %s:\n%s\nwant (seq over all)\n%s", c.what, got, want)
		}
		var doc struct{ Ranks int }
		if json.Unmarshal([]byte(out), &doc); doc.Ranks != c.np {
			t.Errorf("two hosts, %s: %d ranks, want %d", c.what, doc.Ranks, c.np)
		}
	}
	// a file no host holds: the rank whose share it is names it and its host
	missing := append(append([]string{}, q[:len(q)-4]...), "xaa.csv", "xab.csv", "xac.csv", "xae.csv")
	out, errOut, err := job("PARLAB_FAILPOINT=", 2, missing...)
	if err == nil || out != "" || !strings.Contains(errOut, "rank 1 on parlab-h2: open xae.csv: no such file") || !strings.Contains(errOut, "no rank opened this one") {
		t.Errorf("a file no host holds: %v, stdout %q, stderr:\n%s", err, out, errOut)
	}
	out, errOut, err = job("PARLAB_FAILPOINT=rank-kill:1", 2, q...)
	if err == nil || out != "" || !strings.Contains(errOut, "rank 1") || !strings.Contains(errOut, "parlab-h2") || !strings.Contains(errOut, "signal 9") {
		t.Errorf("rank 1 killed on the second host: %v, stdout %q, stderr:\n%s", err, out, errOut)
	}
}
