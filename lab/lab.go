// Package lab is the spawn-cost lab: how much does creating a unit of
// execution cost? It reproduces the 2004 LKML test "Linux 2.4 VS 2.6 fork VS
// thread creation time test" (256 forks against 256 threads) in today's
// kernel and Go's terms: goroutines, OS threads, a raw fork, and ForkExec of
// parlab itself (what the processes strategy pays a worker) and of /bin/true.
package lab

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"parlab/internal/child"
	"parlab/internal/mpi"
	"parlab/internal/names"
)

// NoopArg is argv[1] of a child that exits at once: the lab's forkexec
// methods, what the processes strategy pays per worker minus the work.
const NoopArg = child.NoopArg

// Method is a way to create a unit that does nothing and ends.
type Method string

const (
	MethodGoroutine      Method = "goroutine"       // go f(); WaitGroup
	MethodThread         Method = "thread"          // a goroutine that locks its OS thread and exits locked: the runtime ends the thread, so the next one needs a new thread
	MethodFork           Method = "fork"            // clone(SIGCHLD), no exec; the child exits at once
	MethodForkExecSelf   Method = "forkexec-self"   // syscall.ForkExec of parlab in a mode that exits at once
	MethodForkExecWorker Method = "forkexec-worker" // the same of the binary a query worker starts from (child.WorkerExe: parlab-worker where make build made it)
	MethodForkExecGo     Method = "forkexec-go"     // the same of the smallest Go program (parlab-nop beside parlab): the yardstick of the forkexec methods
	// MethodForkExecSession and MethodForkExecPlain are the same of the
	// binaries an FTP session process starts from (child.Exe): a server
	// with TLS, and the load generator's clients, start parlab-session; a
	// server without TLS parlab-session-plain, built without crypto/tls.
	MethodForkExecSession Method = "forkexec-session"
	MethodForkExecPlain   Method = "forkexec-session-plain"
	MethodForkExecTrue    Method = "forkexec-true" // syscall.ForkExec of /bin/true
	// MethodMPIRun is one mpirun job of N ranks of parlab-mpi (beside
	// parlab) in a mode that initialises MPI and finalises: the mpi
	// strategy's launch. Batch mode only (mpirun starts its ranks
	// together), and only where asked for (--methods mpirun): a round is
	// one job, half a second here.
	MethodMPIRun Method = "mpirun"
)

// methodTable is the registry of methods, in the order the lab runs them:
// each one's name (its Method) and what it times, for parsing and help.
var methodTable = names.Table{
	{Name: string(MethodGoroutine), Help: "go f()"},
	{Name: string(MethodThread), Help: "a goroutine on a new OS thread"},
	{Name: string(MethodFork), Help: "clone, no exec"},
	{Name: string(MethodForkExecSelf), Help: "ForkExec of parlab"},
	{Name: string(MethodForkExecWorker), Help: "ForkExec of the query worker's binary"},
	{Name: string(MethodForkExecSession), Help: "ForkExec of the FTP session's binary"},
	{Name: string(MethodForkExecPlain), Help: "the same without TLS linked"},
	{Name: string(MethodForkExecGo), Help: "ForkExec of the smallest Go program, parlab-nop"},
	{Name: string(MethodForkExecTrue), Help: "ForkExec of /bin/true"},
	{Name: string(MethodMPIRun), Help: "one mpirun job of N ranks of parlab-mpi, batch mode only, where asked for"},
}

// Methods lists them all, in the order the lab runs them.
var Methods = registry[Method](methodTable)

// MethodHelp lists the methods and what each times, for help text.
func MethodHelp() string { return methodTable.Help() }

// registry is a table's names as values of a vocabulary.
func registry[T ~string](t names.Table) []T {
	out := make([]T, len(t))
	for i, e := range t {
		out[i] = T(e.Name)
	}
	return out
}

// MPIName is the MPI build of parlab (make build, where OpenMPI is
// installed), which the mpirun method starts.
const MPIName = "parlab-mpi"

// MPINopArg is argv[1] of an MPI rank that initialises MPI, finalises and
// exits: the mpirun method's unit.
const MPINopArg = "__parlab_mpi_nop"

func init() {
	child.Register(MPINopArg, func([]string) int {
		if _, err := mpi.World(); err != nil {
			fmt.Fprintln(os.Stderr, "parlab:", err)
			return 1
		}
		mpi.Finalize()
		return 0
	})
}

// mpiPaths are mpirun's path and parlab-mpi's beside this executable, or
// why there are none.
func mpiPaths() (mpirun, exe string, err error) {
	if mpirun, err = exec.LookPath("mpirun"); err != nil {
		return "", "", fmt.Errorf("no mpirun (OpenMPI: apt install openmpi-bin libopenmpi-dev)")
	}
	if exe, err = child.Beside(MPIName); err == nil {
		_, err = os.Stat(exe)
	}
	if err != nil {
		return "", "", fmt.Errorf("no %s beside %s (make build puts it there where OpenMPI is installed)", MPIName, filepath.Base(os.Args[0]))
	}
	return mpirun, exe, nil
}

// NopName is the smallest Go program's binary (cmd/parlab-nop), beside
// parlab, that forkexec-go starts.
const NopName = "parlab-nop"

// nopPath is parlab-nop's path beside this executable, or why there is
// none.
func nopPath() (string, error) {
	p, err := child.Beside(NopName)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no %s beside %s (make build puts it there)", NopName, filepath.Base(os.Args[0]))
	}
	return p, nil
}

// Mode is how a round is timed.
type Mode string

const (
	ModeBatch  Mode = "batch"  // create all N, then wait for all N
	ModeSerial Mode = "serial" // create one and wait for it, N times
	// ModeCreate times only the creating call, as the 2004 test did: the sum
	// of N calls (fork, ForkExec, the go statement; for a thread, until the
	// new thread runs, since the runtime creates it out of sight).
	ModeCreate Mode = "create"
)

// modeTable is the registry of timing modes: each one's name (its Mode)
// and what it times.
var modeTable = names.Table{
	{Name: string(ModeBatch), Help: "create all, then reap all"},
	{Name: string(ModeSerial), Help: "create and reap, one by one"},
	{Name: string(ModeCreate), Help: "the creating calls only, as in 2004"},
}

// Modes lists the timing modes.
var Modes = registry[Mode](modeTable)

// ModeHelp lists the timing modes and what each times, for help text.
func ModeHelp() string { return modeTable.Help() }

// LabRound is one round: N creations.
type LabRound struct {
	Total time.Duration // the round's time (in create mode: the creating calls only)
	Ran   int           // units that ran (or, for processes, were reaped exiting 0)
	// Distinct is the number of distinct OS threads the units ran on
	// (thread method only): each used once means each was new.
	Distinct int
}

// Lab runs one round of n creations with a method in a mode. exe is
// parlab's binary (for forkexec-self; "" means /proc/self/exe).
func Lab(m Method, mode Mode, n int, exe string) (LabRound, error) {
	switch m {
	case MethodGoroutine:
		return labGoroutines(mode, n), nil
	case MethodThread:
		return labThreads(mode, n), nil
	case MethodFork:
		return labProcesses(mode, n, func() (int, error) {
			var pid int
			var e syscall.Errno
			withSignalsBlocked(func() { pid, e = rawFork() })
			if e != 0 {
				return 0, e
			}
			return pid, nil
		})
	case MethodForkExecSelf, MethodForkExecWorker, MethodForkExecSession, MethodForkExecPlain, MethodForkExecGo, MethodForkExecTrue:
		path, argv := exe, []string{exe, NoopArg}
		if path == "" {
			path, argv[0] = child.Self, child.Self
		}
		switch m {
		case MethodForkExecWorker:
			path, argv[0] = child.WorkerExe(), child.WorkerExe()
		case MethodForkExecSession:
			path = child.Exe(child.SessionName)
			argv[0] = path
		case MethodForkExecPlain:
			path = child.Exe(child.PlainSessionName)
			argv[0] = path
		}
		if m == MethodForkExecGo {
			p, err := nopPath()
			if err != nil {
				return LabRound{}, fmt.Errorf("forkexec-go: %w", err)
			}
			path, argv = p, []string{p}
		}
		if m == MethodForkExecTrue {
			p, err := exec.LookPath("true")
			if err != nil {
				return LabRound{}, fmt.Errorf("forkexec-true: %w", err)
			}
			path, argv = p, []string{p}
		}
		attr := &syscall.ProcAttr{Files: []uintptr{0, 1, 2}}
		return labProcesses(mode, n, func() (int, error) { return syscall.ForkExec(path, argv, attr) })
	case MethodMPIRun:
		if mode != ModeBatch {
			return LabRound{}, fmt.Errorf("mpirun starts its ranks together: it is timed in batch mode only")
		}
		mpirun, exe, err := mpiPaths()
		if err != nil {
			return LabRound{}, fmt.Errorf("mpirun: %w", err)
		}
		// --oversubscribe: more ranks than cores is the lab's to ask;
		// root (a container, CI) must say it may run MPI.
		args := []string{"-np", strconv.Itoa(n), "--oversubscribe"}
		if os.Geteuid() == 0 {
			args = append(args, "--allow-run-as-root")
		}
		cmd := exec.Command(mpirun, append(args, exe, MPINopArg)...)
		cmd.Stderr = os.Stderr
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			return LabRound{}, fmt.Errorf("mpirun -np %d %s: %w", n, MPIName, err)
		}
		return LabRound{Total: time.Since(t0), Ran: n}, nil
	}
	return LabRound{}, fmt.Errorf("unknown method %q", m)
}

// timeRound times n creations in mode: create(i) makes unit i (the part
// timed in create mode), await(i) waits for it to be done. Serial waits for
// each unit before creating the next; batch and create create all first.
func timeRound(mode Mode, n int, create, await func(i int) error) (time.Duration, error) {
	t0 := time.Now()
	var calls time.Duration
	for i := range n {
		c := time.Now()
		if err := create(i); err != nil {
			for k := range i { // do not leave the ones made so far behind
				await(k)
			}
			return 0, err
		}
		calls += time.Since(c)
		if mode == ModeSerial {
			if err := await(i); err != nil {
				return 0, err
			}
		}
	}
	if mode != ModeSerial {
		for i := range n {
			if err := await(i); err != nil {
				return 0, err
			}
		}
	}
	if mode == ModeCreate {
		return calls, nil
	}
	return time.Since(t0), nil
}

func labGoroutines(mode Mode, n int) LabRound {
	var ran atomic.Int64
	done := make([]chan struct{}, n)
	total, _ := timeRound(mode, n, func(i int) error {
		done[i] = make(chan struct{})
		go func() { ran.Add(1); close(done[i]) }()
		return nil
	}, func(i int) error { <-done[i]; return nil })
	return LabRound{Total: total, Ran: int(ran.Load())}
}

func labThreads(mode Mode, n int) LabRound {
	tids := make([]int, n)
	started := make([]chan struct{}, n)
	done := make([]chan struct{}, n)
	total, _ := timeRound(mode, n, func(i int) error {
		started[i], done[i] = make(chan struct{}), make(chan struct{})
		go func() {
			// Locked, and never unlocked: when this goroutine returns, the
			// runtime ends its OS thread instead of reusing it.
			runtime.LockOSThread()
			tids[i] = unix.Gettid()
			close(started[i])
			close(done[i])
		}()
		if mode == ModeCreate {
			<-started[i] // the runtime makes the thread out of sight: time until it runs
		}
		return nil
	}, func(i int) error { <-done[i]; return nil })
	ran := 0
	for _, t := range tids {
		if t != 0 {
			ran++
		}
	}
	slices.Sort(tids)
	return LabRound{Total: total, Ran: ran, Distinct: len(slices.Compact(tids))}
}

func labProcesses(mode Mode, n int, start func() (int, error)) (LabRound, error) {
	pids := make([]int, n)
	ok := 0
	total, err := timeRound(mode, n, func(i int) error {
		var err error
		pids[i], err = start()
		return err
	}, func(i int) error {
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(pids[i], &ws, 0, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				return err
			}
			if ws.Exited() && ws.ExitStatus() == 0 {
				ok++
			}
			return nil
		}
	})
	if err != nil {
		return LabRound{}, err
	}
	return LabRound{Total: total, Ran: ok}, nil
}

// Touch allocates and writes mb MiB, so that fork has that much more memory
// to copy page tables for. Keep the result alive while measuring.
func Touch(mb int) []byte {
	b := make([]byte, mb<<20)
	for i := 0; i < len(b); i += os.Getpagesize() {
		b[i] = 1
	}
	return b
}

// ChildRunsFirst reads /proc/sys/kernel/sched_child_runs_first: the knob the
// 2004 discussion turned on. Linux 6.7 removed it (the EEVDF scheduler has no
// such policy); then it returns ok == false.
func ChildRunsFirst() (string, bool) {
	b, err := os.ReadFile("/proc/sys/kernel/sched_child_runs_first")
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}
