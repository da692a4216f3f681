package spawn

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"parlab/input"
	"parlab/internal/child"
	"parlab/scan"
	"parlab/shm"
)

// WorkerArg is argv[1] of a child process started by the processes
// strategy: a hidden mode registered with package child, so any program that
// links spawn and calls child.Run first thing (parlab's main, the TestMain of
// a package whose tests start workers) can be that child.
const WorkerArg = "__parlab_worker"

func init() { child.Register(WorkerArg, workerMain) }

// regionFd is where a child finds the shared region: the fourth entry of
// ProcAttr.Files, after stdin, stdout and stderr.
const regionFd = 3

// Failpoints, for tests, come from the environment variable
// PARLAB_FAILPOINT: a comma-separated list of
//
//	child-exit:K   worker K exits with status 3 before writing anything
//	child-kill:K   worker K sends itself SIGKILL
//	child-hang:K   worker K sleeps forever (the parent's --timeout must end it)
//	rank-exit:K, rank-kill:K, rank-hang:K
//	               the same for rank K of the mpi strategy, once it has
//	               scanned its first unit (mid-scan)
const FailpointEnv = "PARLAB_FAILPOINT"

// failpointOf is what the failpoints say to do to process n of its kind
// (who: "child", a worker process, or "rank", an MPI rank), or nil for
// nothing: the environment is read once, here.
func failpointOf(who string, n int) func() {
	for _, fp := range strings.Split(os.Getenv(FailpointEnv), ",") {
		kind, k, ok := strings.Cut(strings.TrimSpace(fp), ":")
		if m, err := strconv.Atoi(k); !ok || err != nil || m != n {
			continue
		}
		switch strings.TrimPrefix(kind, who) {
		case "-exit":
			return func() { os.Exit(3) }
		case "-kill":
			return func() {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				time.Sleep(time.Hour) // the signal is on its way
			}
		case "-hang":
			return func() {
				for {
					time.Sleep(time.Hour)
				}
			}
		}
	}
	return nil
}

// workerMain is a child's whole life: map the region it was handed, map the
// input files itself (the page cache is shared, so this copies nothing), scan
// its units, write each unit's result into the unit's slot, its own figures
// into its worker slot, and the completion marker last. It returns the exit
// status. A unit that fails is a result too (the parent decides what it
// means, see Set.merge); only failing to run at all is a non-zero exit.
func workerMain(args []string) int {
	entered := monotonic()
	if len(args) != 3 {
		fmt.Fprintf(os.Stderr, "parlab worker: want one worker number, got %q\n", args[2:])
		return 2
	}
	w, err := strconv.Atoi(args[2])
	if err != nil {
		fmt.Fprintf(os.Stderr, "parlab worker: bad worker number %q\n", args[2])
		return 2
	}
	region, err := shm.OpenRegion(regionFd)
	if err != nil {
		fmt.Fprintf(os.Stderr, "parlab worker %d: %v\n", w, err)
		return 2
	}
	defer region.Close()
	if fail := failpointOf("child", w); fail != nil {
		fail()
	}
	return runWorker(region, w, entered)
}

// runWorker is worker w's work on a mapped region, after the child's
// arguments and fd are checked: what workerMain runs in a child and the
// in-process harness (Processes.inProcess) on a goroutine. entered is when
// the worker's own code began (CLOCK_MONOTONIC, ns). It returns the exit
// status; its messages go to the region, or to stderr where the region
// cannot carry them.
func runWorker(region *shm.Region, w int, entered int64) int {
	j, l, t0, err := readRegion(region)
	if err != nil {
		fmt.Fprintf(os.Stderr, "parlab worker %d: %v\n", w, err)
		return 2
	}
	if w < 0 || w >= l.workers {
		fmt.Fprintf(os.Stderr, "parlab worker %d: the region has %d workers\n", w, l.workers)
		return 2
	}
	b := region.Bytes()
	ws := b[l.worker(w) : l.worker(w)+workerSlot]
	le.PutUint64(ws[wMain:], uint64(entered-t0))
	// Only the files of its own units: each costs a child six system calls
	// and a fault (docs/experiments.md, 2026-12-06).
	set, err := openLazy(j.Paths, j.Query, input.Mode(j.Mode), input.Options{Populate: j.Populate, Buffer: j.Buffer}, j.Names, j.Seps, j.Added, j.Plan.files(w, len(j.Paths)))
	if err != nil {
		putMsg(ws, wMsgLen, wMsg, workerSlot, err.Error())
		return 1
	}
	defer set.Close()
	set.expect = j.Expect
	if len(set.Files) != len(j.Paths) {
		putMsg(ws, wMsgLen, wMsg, workerSlot, fmt.Sprintf("a file became empty since the run was planned (%d files, then %d)", len(set.Files), len(j.Paths)))
		return 1
	}
	for i, f := range set.Files {
		if f == nil {
			continue
		}
		if n := f.Size(); i < len(j.Sizes) && n != j.Sizes[i] {
			putMsg(ws, wMsgLen, wMsg, workerSlot, fmt.Sprintf("%s changed size since the run was planned (%d bytes, then %d)", set.Names[i], n, j.Sizes[i]))
			return 1
		}
	}
	le.PutUint64(ws[wStart:], uint64(monotonic()-t0))
	var units, bytes, rows uint64
	take := func() int64 { return int64(region.Add(hdrCursor, 1) - 1) }
	// As in the goroutines strategy, whole files add to one result of the
	// worker's own (see runGoroutines), written at the end into the slot
	// of the last of them; the others are marked folded.
	var own scan.Result
	last := -1
	for i := j.Plan.next(w, 0, take); i >= 0; i = j.Plan.next(w, int(units), take) {
		u := j.Plan.Units[i]
		us := b[l.unit(i) : l.unit(i)+unitSlot]
		le.PutUint64(us[uWorker:], uint64(w))
		res := new(scan.Result)
		if set.fold(u) {
			res = &own
		}
		before := res.Rows
		err := set.scanUnit(context.Background(), u, res)
		switch {
		case err != nil:
			putFailed(region, l, us, err.Error())
		case res == &own:
			le.PutUint64(us[uStatus:], unitFolded)
			last = i
		default:
			putUnit(region, l, us, res)
		}
		units++
		bytes += uint64(u.End - u.Start)
		rows += uint64(res.Rows - before)
	}
	if last >= 0 {
		putUnit(region, l, b[l.unit(last):l.unit(last)+unitSlot], &own)
	}
	le.PutUint64(ws[wEnd:], uint64(monotonic()-t0))
	le.PutUint64(ws[wUnits:], units)
	le.PutUint64(ws[wBytes:], bytes)
	le.PutUint64(ws[wRows:], rows)
	le.PutUint64(ws[wHWM:], uint64(peakMemory()))
	region.Store(l.worker(w)+wMarker, markerDone)
	return 0
}

// putUnit writes res, the result of the unit slot us, and marks it done;
// a failure to write its groups marks it failed, with the cause (a result
// for the parent to judge, as a failed scan is).
func putUnit(region *shm.Region, l layout, us []byte, res *scan.Result) {
	putResult(us, res)
	if err := putVar(region, l, us, res); err != nil {
		putFailed(region, l, us, err.Error())
		return
	}
	le.PutUint64(us[uStatus:], unitDone)
}

// peakMemory is this process's peak resident memory in bytes (VmHWM in
// /proc/self/status; 0 if it cannot be read). Unlike wait4's ru_maxrss, which
// keeps the parent's size at fork across the exec, it counts only what this
// program touched: its heap, stacks, and the pages of any mapping it read.
func peakMemory() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
