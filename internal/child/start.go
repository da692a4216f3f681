package child

import (
	"os"
	"runtime"
	"sync"
	"syscall"
)

// Attr is how a child starts: the binary (Exe or Self), its argv (argv[0]
// first), its environment (nil: this process's), and its open files, fd 0,
// 1, 2 and on, in order.
type Attr struct {
	Exe   string
	Args  []string
	Env   []string
	Files []uintptr
}

// Start starts a child of this process: syscall.ForkExec with
// PR_SET_PDEATHSIG (SIGKILL: a child never outlives its parent) and a
// pidfd, returned as a Pidfd for waiting in the poller and signalling
// without a pid race. Every child of the process is forked by a spawner,
// a goroutine locked to its OS thread for the process's life, because
// Pdeathsig fires when the thread that forked the child ends, not the
// process, and Go ends a thread whose goroutine exits locked to it (the
// spawn lab does so on purpose): so the rule lives here, once, and a child
// dies with the process, never earlier. Start is safe for concurrent use.
// Concurrent Starts fork side by side, on up to GOMAXPROCS spawners made
// as they are needed: on Linux syscall.ForkExec lets forks overlap, and
// each parent thread waits (vfork) only for its own child's exec, which
// one spawner made N children wait for in turn (docs/experiments.md,
// 2026-12-06, late night). Starts one at a time use one spawner.
func Start(a Attr) (*Pidfd, error) {
	r := startReq{a: a, done: make(chan startRes, 1)}
	select {
	case spawners.req <- r: // an idle spawner took it
	default:
		spawners.mu.Lock()
		if spawners.n < max(1, runtime.GOMAXPROCS(0)) {
			spawners.n++
			go spawn(spawners.req)
		}
		spawners.mu.Unlock()
		spawners.req <- r
	}
	res := <-r.done
	return res.p, res.err
}

// spawners are Start's: req is unbuffered, so a send that does not block
// found a spawner idle; n is how many there are (under mu).
var spawners = struct {
	req chan startReq
	mu  sync.Mutex
	n   int
}{req: make(chan startReq)}

type startReq struct {
	a    Attr
	done chan startRes
}

type startRes struct {
	p   *Pidfd
	err error
}

// spawn is a spawner: it forks what it is asked to, for ever, on the
// thread it locks and never gives back.
func spawn(req chan startReq) {
	runtime.LockOSThread()
	for r := range req {
		env := r.a.Env
		if env == nil {
			env = os.Environ()
		}
		pidfd := -1
		pid, err := syscall.ForkExec(r.a.Exe, r.a.Args, &syscall.ProcAttr{Env: env, Files: r.a.Files,
			Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, PidFD: &pidfd}})
		if err != nil {
			r.done <- startRes{err: err}
			continue
		}
		p, err := NewPidfd(pid, pidfd)
		if err != nil { // cannot happen with a valid pidfd: reap it the slow way
			syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		} else {
			setStarted(pid, true)
		}
		r.done <- startRes{p, err}
	}
}

// started holds the children Start made that their Pidfd has not yet
// reaped: whose they are, for code that must tell them from other
// children of the process (Started).
var started = struct {
	sync.Mutex
	m map[int]struct{}
}{m: map[int]struct{}{}}

// Started reports whether pid is a child that Start made and its Pidfd's
// Wait has not yet reaped: a child whose status belongs to its starter.
func Started(pid int) bool {
	started.Lock()
	defer started.Unlock()
	_, ok := started.m[pid]
	return ok
}

// setStarted records (or, with false, forgets) pid as Start's.
func setStarted(pid int, on bool) {
	started.Lock()
	defer started.Unlock()
	if on {
		started.m[pid] = struct{}{}
	} else {
		delete(started.m, pid)
	}
}
