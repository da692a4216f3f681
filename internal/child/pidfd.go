package child

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Pidfd is a started child's pid and its pidfd (from
// syscall.SysProcAttr.PidFD), wrapped for the runtime's poller: waiting for
// the child parks a goroutine, not an OS thread, so a parent of thousands
// of children keeps a handful of threads (a blocking wait4 holds one
// thread a child). A Pidfd names its child even after the pid is reused,
// so Signal never hits another process.
//
// Wait and Signal may be called from different goroutines; Wait once.
// Close after Wait.
type Pidfd struct {
	pid int
	f   *os.File
}

// NewPidfd takes ownership of fd, the pidfd of child pid.
func NewPidfd(pid, fd int) (*Pidfd, error) {
	// Non-blocking, so that os.NewFile registers it with the poller.
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return &Pidfd{pid: pid, f: os.NewFile(uintptr(fd), "pidfd")}, nil
}

// Pid is the child's process id.
func (p *Pidfd) Pid() int { return p.pid }

// Wait waits for the child to exit and reaps it: its status and resource
// use. A pidfd becomes readable when its process exits; until then the
// goroutine sleeps in the poller.
func (p *Pidfd) Wait() (syscall.WaitStatus, syscall.Rusage, error) {
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	rc, err := p.f.SyscallConn()
	if err != nil {
		return ws, ru, err
	}
	var werr error
	err = rc.Read(func(uintptr) bool {
		for {
			pid, err := syscall.Wait4(p.pid, &ws, syscall.WNOHANG, &ru)
			switch {
			case errors.Is(err, syscall.EINTR):
				continue
			case err != nil:
				werr = err
				return true
			}
			if pid == p.pid {
				setStarted(pid, false)
				return true
			}
			return false // 0: still running, wait for the pidfd
		}
	})
	if err == nil {
		err = werr
	}
	return ws, ru, err
}

// Signal sends sig to the child; one that has exited is not there to hit
// (an error, which callers that only clean up may ignore).
func (p *Pidfd) Signal(sig syscall.Signal) error {
	rc, err := p.f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.PidfdSendSignal(int(fd), sig, nil, 0)
	}); err != nil {
		return err
	}
	return serr
}

// ExitText says how a child ended, for a message that names it: "was
// killed by signal 9 (killed)" or "exited with status 3".
func ExitText(ws syscall.WaitStatus) string {
	if ws.Signaled() {
		return fmt.Sprintf("was killed by signal %d (%v)", ws.Signal(), ws.Signal())
	}
	return fmt.Sprintf("exited with status %d", ws.ExitStatus())
}

// Close releases the pidfd.
func (p *Pidfd) Close() error { return p.f.Close() }
