package lab

import (
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// rawFork is a real fork() with no exec, for the spawn lab's "fork" method.
//
// Why this is safe in a Go program: after clone the child holds a copy of the
// parent's memory but only the one calling thread, and the Go runtime cannot
// run there (its other threads, sysmon and GC workers are gone, locks may be
// held). So the child runs no Go code that could touch the runtime: this
// function is nosplit (no stack check, so no call into morestack), norace (no
// race-detector calls), and on the child's side of the clone it only makes a
// raw exit_group system call. Signals could still run Go signal handlers in
// the child, so the caller blocks every signal on this thread first
// (withSignalsBlocked); the child inherits that mask and dies before it could
// take one. This is the discipline syscall.forkAndExecInChild follows.
//
//go:nosplit
//go:norace
func rawFork() (pid int, errno syscall.Errno) {
	r1, _, e := syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	if r1 == 0 { // the child
		for {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
		}
	}
	return int(r1), 0
}

// withSignalsBlocked runs f on one locked OS thread with every signal
// blocked, then restores the thread's mask.
func withSignalsBlocked(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var all, old unix.Sigset_t
	for i := range all.Val {
		all.Val[i] = ^uint64(0)
	}
	unix.PthreadSigmask(unix.SIG_BLOCK, &all, &old)
	defer unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
	f()
}
