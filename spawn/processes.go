package spawn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"parlab/internal/child"
	"parlab/shm"
)

// Processes runs N child processes: our own binary, started with
// syscall.ForkExec in worker mode (see WorkerMain). Each child maps the input
// files itself and writes its results into one shared memfd region; the
// parent waits for every child, checks every exit status and completion
// marker, and only then merges. Children get SIGKILL if the parent dies
// (PR_SET_PDEATHSIG, set between fork and exec).
type Processes struct {
	// inProcess, for this package's tests only, runs each worker's body
	// (runWorker) on a goroutine of this process, on its own mapping of
	// the region, in place of a child: the job, the region's protocol and
	// the merge are a child's, only the exec is left out, so the full
	// matrices cost no process starts. The real children are tested at
	// fewer points, and in every way a process can fail.
	inProcess bool
}

func (Processes) Name() string { return NameProcesses }

func (Processes) Caps() Caps { return Caps{Children: true} }

func (Processes) Help() string {
	return "a child process a worker: fork+exec, results in shared memory"
}

func (p Processes) Run(ctx context.Context, c Config) (rep *Report, err error) {
	if c.streamed() {
		return nil, errNoStream
	}
	ctx, cancel := WithTimeout(ctx, c.Timeout)
	defer cancel()
	defer func() { rep, err = stopped(ctx, rep, err) }()
	// The parent maps lazily too: it only reads headers and the bytes
	// around cuts, and rescans if a row split cut a quoted field.
	r, err := start(c, Processes{})
	if err != nil {
		return nil, err
	}
	defer r.set.Close()
	t0, set, plan := r.t0, r.set, r.plan
	rep = r.rep
	// the children's clock base: the run's start on CLOCK_MONOTONIC
	t0mono := monotonic() - int64(time.Since(t0))
	q := set.Query
	if q.MaxHeld > 0 { // (each child holds its own rows out and values: a share of the bound each)
		q.MaxHeld = max(q.MaxHeld/int64(max(c.Workers, 1)), 1)
	}
	j := &job{Paths: set.Paths, Names: set.Names, Seps: set.Seps, Added: set.HeadAdded, Query: q, Mode: int(c.Mode), Populate: c.Opt.Populate, Buffer: c.Opt.Buffer, Plan: *plan, Expect: set.expect}
	for _, f := range set.Files {
		j.Sizes = append(j.Sizes, f.Size())
	}
	region, l, err := writeRegion(j, c.Workers, t0mono)
	if err != nil {
		return nil, err
	}
	defer region.Close()
	rep.Setup = time.Since(t0)

	var kids []kid
	var statuses []exitStatus
	var timedOut bool
	if p.inProcess {
		kids, statuses, err = runInProcess(region, rep, c.Workers, t0)
		if err != nil {
			return nil, err
		}
	} else {
		kids, statuses, timedOut, err = startAndWait(ctx, c, region, rep, t0)
		if err != nil {
			return nil, err
		}
	}
	joined := time.Since(t0)

	b := region.Bytes()
	var failures []error
	for w, k := range kids {
		pid := k.pid()
		ws := b[l.worker(w) : l.worker(w)+workerSlot]
		st := statuses[w]
		why := ""
		switch {
		case st.err != nil:
			why = "could not be waited for: " + st.err.Error()
		case timedOut && !st.beforeDeadline:
			failures = append(failures, fmt.Errorf("worker %d (pid %d) was killed: %w", w, pid, context.Cause(ctx)))
			continue
		case st.ws.Signaled():
			why = child.ExitText(st.ws)
		case st.ws.ExitStatus() != 0:
			why = child.ExitText(st.ws)
			if msg := getMsg(ws, wMsgLen, wMsg, workerSlot); msg != "" {
				why += ": " + msg
			}
		case region.Load(l.worker(w)+wMarker) != markerDone:
			why = "exited 0 but never wrote its completion marker"
		}
		if why != "" {
			failures = append(failures, fmt.Errorf("worker %d (pid %d) %s", w, pid, why))
			continue
		}
		rep.PerWorker[w].Start = time.Duration(le.Uint64(ws[wStart:]))
		rep.PerWorker[w].End = time.Duration(le.Uint64(ws[wEnd:]))
		rep.PerWorker[w].Units = int(le.Uint64(ws[wUnits:]))
		rep.PerWorker[w].Bytes = int64(le.Uint64(ws[wBytes:]))
		rep.PerWorker[w].Rows = int64(le.Uint64(ws[wRows:]))
		rep.PerWorker[w].MaxRSS = int64(le.Uint64(ws[wHWM:]))
		rep.PerWorker[w].Main = time.Duration(le.Uint64(ws[wMain:]))
	}
	if len(failures) > 0 {
		err := failures[0]
		if len(failures) > 1 {
			err = fmt.Errorf("%w (and %d more workers failed)", err, len(failures)-1)
		}
		return nil, err
	}
	// The units' results are decoded a core each at a time (a group-by's
	// groups can be millions a unit); a bad one fails the run, the first
	// in unit order named.
	outcomes := make([]unitOutcome, len(plan.Units))
	errs := make([]error, len(plan.Units))
	cores := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range outcomes {
		us := b[l.unit(i) : l.unit(i)+unitSlot]
		status := le.Uint64(us[uStatus:])
		if status == unitFolded {
			outcomes[i] = unitOutcome{done: true, folded: true}
			continue
		}
		if status != unitDone && status != unitFailed {
			continue
		}
		cores <- struct{}{}
		wg.Go(func() {
			defer func() { <-cores }()
			res, err := getResult(us)
			if err == nil && status == unitDone {
				err = getVar(region, l, us, &res)
			}
			if err != nil {
				errs[i] = fmt.Errorf("unit %d: %w", i, err)
				return
			}
			res.Part = plan.Units[i].Part // (not in the binary form)
			outcomes[i] = unitOutcome{res: res, done: true}
			if status == unitFailed {
				outcomes[i].err = errors.New(getFailed(region, l, us))
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return r.finish(ctx, joined, outcomes)
}

// runInProcess runs every worker's body on a goroutine, each on its own
// mapping of a duplicate of the region's fd, as a child maps fd 3, and
// returns their "exit statuses" (see Processes.inProcess). No pid: 0.
func runInProcess(region *shm.Region, rep *Report, workers int, t0 time.Time) ([]kid, []exitStatus, error) {
	kids := make([]kid, workers)
	statuses := make([]exitStatus, workers)
	var wg sync.WaitGroup
	for w := range workers {
		ts := time.Now()
		fd, err := unix.Dup(region.Fd())
		if err != nil {
			wg.Wait()
			return nil, nil, fmt.Errorf("starting worker %d in process: %w", w, err)
		}
		own, err := shm.OpenRegion(fd)
		if err != nil {
			wg.Wait()
			return nil, nil, fmt.Errorf("starting worker %d in process: %w", w, err)
		}
		rep.PerWorker[w].Fork = time.Since(ts)
		rep.PerWorker[w].Launched = ts.Sub(t0)
		wg.Go(func() {
			defer own.Close()
			code := runWorker(own, w, monotonic())
			statuses[w] = exitStatus{ws: syscall.WaitStatus(code&0xff) << 8, beforeDeadline: true}
		})
	}
	wg.Wait()
	return kids, statuses, nil
}

// startAndWait starts c.Workers children with the region as fd 3 and
// reaps them all (see waitAll): the statuses, in worker order, and
// whether the run's deadline killed some.
func startAndWait(ctx context.Context, c Config, region *shm.Region, rep *Report, t0 time.Time) ([]kid, []exitStatus, bool, error) {
	exe := c.Exe
	if exe == "" {
		exe = child.WorkerExe()
	}
	rep.Child = exe
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, nil, false, err
	}
	defer devnull.Close()
	var kids []kid
	defer func() {
		for _, k := range kids {
			k.p.Close()
		}
	}()
	// The workers start side by side (child.Start forks on up to
	// GOMAXPROCS threads at once): one after another, N workers waited N
	// execs. stdin and stdout are /dev/null (a worker prints nothing);
	// stderr is ours, so a crashing worker's last words are seen; fd 3 is
	// the region. (child.Start: Pdeathsig, and a pidfd that names this
	// child even after its pid is reused, so a kill on timeout can never
	// hit another process.)
	ps := make([]*child.Pidfd, c.Workers)
	errs := make([]error, c.Workers)
	var wg sync.WaitGroup
	for w := range c.Workers {
		wg.Go(func() {
			ts := time.Now()
			ps[w], errs[w] = child.Start(child.Attr{Exe: exe, Args: []string{exe, WorkerArg, strconv.Itoa(w)},
				Files: []uintptr{devnull.Fd(), devnull.Fd(), os.Stderr.Fd(), uintptr(region.Fd())}})
			rep.PerWorker[w].Fork = time.Since(ts)
			rep.PerWorker[w].Launched = ts.Sub(t0)
		})
	}
	wg.Wait()
	for _, p := range ps {
		if p != nil {
			kids = append(kids, kid{p})
		}
	}
	for w, err := range errs {
		if err != nil {
			killAll(kids)
			reapAll(kids)
			return nil, nil, false, fmt.Errorf("starting worker %d (%s): %w", w, exe, err)
		}
	}
	statuses, timedOut := waitAll(ctx, kids)
	return kids, statuses, timedOut, nil
}

// kid is a started worker process (p nil for the in-process harness's
// workers, which have no pid: 0).
type kid struct{ p *child.Pidfd }

func (k kid) pid() int {
	if k.p == nil {
		return 0
	}
	return k.p.Pid()
}

type exitStatus struct {
	ws             syscall.WaitStatus
	err            error
	beforeDeadline bool
}

// waitAll reaps every child. If ctx ends first (its deadline is the run's
// timeout), it kills the ones still running and reaps them too: no child
// outlives a run.
func waitAll(ctx context.Context, kids []kid) ([]exitStatus, bool) {
	type done struct {
		i   int
		ws  syscall.WaitStatus
		err error
	}
	ch := make(chan done, len(kids))
	for i, k := range kids {
		go func() {
			ws, _, err := k.p.Wait() // in the poller: no thread a child
			ch <- done{i, ws, err}
		}()
	}
	stop := ctx.Done()
	out := make([]exitStatus, len(kids))
	timedOut := false
	for received := 0; received < len(kids); {
		select {
		case d := <-ch:
			out[d.i] = exitStatus{ws: d.ws, err: d.err, beforeDeadline: !timedOut}
			received++
		case <-stop:
			timedOut, stop = true, nil
			killAll(kids)
		}
	}
	return out, timedOut
}

// killAll sends SIGKILL through each child's pidfd; one that has exited
// already is not there to hit (ESRCH, ignored).
func killAll(kids []kid) {
	for _, k := range kids {
		k.p.Signal(syscall.SIGKILL)
	}
}

func reapAll(kids []kid) {
	for _, k := range kids {
		k.p.Wait()
	}
}
