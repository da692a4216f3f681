package ftp

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// acceptor is every model's accept loop: it keeps serving through the
// failures a busy server meets (net/http's rule: back off from 5 ms,
// doubling to 1 s, and try again), and never ends the server for them.
// Only a closed listener, or an error no retry can mend, ends it.
//
// When the process is out of descriptors (EMFILE, ENFILE), the connection
// that could not be accepted still waits in the kernel's queue. The
// acceptor holds one descriptor in reserve (/dev/null) for that moment: it
// closes it, accepts the waiting connection, answers it 421 and closes it,
// and takes its reserve back, so a client hears why instead of nothing.
//
// An acceptor belongs to one goroutine, the one calling next.
type acceptor struct {
	s     *Server
	ln    net.Listener
	spare *os.File
	delay time.Duration
}

func (s *Server) newAcceptor(ln net.Listener) *acceptor {
	spare, _ := os.Open(os.DevNull) // without it, a client out of descriptors hears nothing
	return &acceptor{s: s, ln: ln, spare: spare}
}

// close gives back the reserve descriptor.
func (a *acceptor) close() {
	if a.spare != nil {
		a.spare.Close()
		a.spare = nil
	}
}

// next is the next accepted connection, or the error that ends the loop.
func (a *acceptor) next() (net.Conn, error) {
	for {
		if a.spare == nil { // lost to a descriptor shortage: take it back as soon as one is free
			a.spare, _ = os.Open(os.DevNull)
		}
		c, err := a.ln.Accept()
		if err == nil {
			a.delay = 0
			return c, nil
		}
		if errors.Is(err, net.ErrClosed) || a.s.closing.Load() || !retryable(err) {
			return nil, err
		}
		a.s.fault("accept: %v (still serving)", err)
		if (errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)) && a.spare != nil {
			a.spare.Close()
			if c, err := a.ln.Accept(); err == nil {
				refuse(c, "421 The server is out of resources (open files); try again later.")
			}
			a.spare, _ = os.Open(os.DevNull)
		}
		if a.delay == 0 {
			a.delay = 5 * time.Millisecond
		} else {
			a.delay = min(2*a.delay, time.Second)
		}
		time.Sleep(a.delay)
	}
}

// retryable reports whether an accept error is one a later accept may not
// meet: out of descriptors or memory, a connection gone before it was
// accepted, an interrupted call.
func retryable(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EINTR, syscall.EAGAIN, syscall.EPROTO, syscall.EPERM,
		// accept(2): "Linux accept() passes already-pending network errors
		// on the new socket as an error code from accept()... the
		// application should treat [these] like EAGAIN by retrying"
		syscall.ENETDOWN, syscall.ENETUNREACH, syscall.EHOSTUNREACH, syscall.EHOSTDOWN, syscall.ENONET,
		syscall.ENOPROTOOPT, syscall.EOPNOTSUPP} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// faults rate-limits fault: one line a second at most, with the count of
// the ones it held back.
type faults struct {
	mu      sync.Mutex
	last    time.Time
	dropped int
}

// fault reports a fault the server survives to Config.Errors, at most one
// line a second; the next line says how many were held back.
func (s *Server) fault(format string, args ...any) {
	w := s.cfg.Errors
	if w == nil {
		return
	}
	f := &s.faults
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	if now.Sub(f.last) < time.Second {
		f.dropped++
		return
	}
	msg := fmt.Sprintf(format, args...)
	if f.dropped > 0 {
		msg += fmt.Sprintf(" (and %d more since the last line)", f.dropped)
	}
	f.last, f.dropped = now, 0
	fmt.Fprintf(w, "parlab ftp: %s\n", msg)
}
