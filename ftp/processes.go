package ftp

import (
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"parlab/internal/child"
)

// SessionArg is argv[1] of a session process (the processes model): a
// hidden mode registered with package child.
const SessionArg = "__parlab_ftp_session"

func init() { child.Register(SessionArg, sessionMain) }

// The session child's descriptors: the connection, its configuration
// (child.WriteJob), the stop pipe's read end (stopPipe), the users
// (usersTable) and the log (if any: a socket to the parent, logSocket).
const (
	childConnFd   = 3
	childConfigFd = 4
	childStopFd   = 5
	childUsersFd  = 6
	childLogFd    = 7
)

// stopPipe tells every session process at once that the server is
// shutting down: the parent holds the write end, each session the read
// end (non-blocking, so it waits in its poller); closing the write end
// (Shutdown, or the parent's death) is end-of-file in every one. A signal
// would do the same at the price of a thread in every session: Go's
// os/signal keeps one blocked for the process's life, and a session
// process must stay within four (issue 43; docs/ftp.md). One pipe serves
// every session: one descriptor in the parent, not one a session.
type stopPipe struct {
	mu sync.Mutex
	r  int      // the read end, O_NONBLOCK, passed to each child; -1 once closed
	w  *os.File // nil once closed (the stop)
}

func newStopPipe() (*stopPipe, error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		return nil, err
	}
	return &stopPipe{r: p[0], w: os.NewFile(uintptr(p[1]), "stop")}, nil
}

// stop closes the write end (idempotent, nil-safe).
func (p *stopPipe) stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil {
		p.w.Close()
		p.w = nil
	}
}

// close closes both ends, once no child is being started with them.
func (p *stopPipe) close() {
	p.stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.r >= 0 {
		syscall.Close(p.r)
		p.r = -1
	}
}

// childConfig is what a session process needs of the server's Config.
type childConfig struct {
	Root              string
	Dummy             []byte // the parent's dummy hash: a child makes none (its time would tell)
	Anonymous         bool
	PasvMin, PasvMax  int
	Idle, DataTimeout time.Duration
	LoginDelay        time.Duration
	MaxLine           int
	// TLS: the parent's certificate chain (DER) and its key (PKCS #8), the
	// one TLS configuration every model serves.
	TLSChain                 [][]byte
	TLSKey                   []byte
	AllowPlain, AllowNoReuse bool
	Log                      bool
	Active                   int64 // the parent's figures at the fork, for STAT
	Served                   int64
}

// serveProcesses is vsftpd's model: the parent accepts and checks the
// limits; each session is a child process, parlab-session (or parlab
// itself: child.Exe) started with syscall.ForkExec in SessionArg's mode, the connection its fd 3. The
// accept loop only accepts and queues (so the kernel's queue drains at
// once); one goroutine takes the queue and starts a session at a time
// (child.Start, whose spawner threads keep Pdeathsig tied to the
// process). Each child is waited for through its pidfd, in the poller: the
// parent's threads stay flat however many sessions run.
func (s *Server) serveProcesses(ln net.Listener) error {
	exe := s.cfg.Exe
	switch {
	case exe != "":
	case s.cfg.TLS == nil:
		exe = child.Exe(child.PlainSessionName) // crypto/tls not linked: a faster start
	default:
		exe = child.Exe(child.SessionName)
	}
	// The binary is held open and started through its descriptor: a
	// rebuild that replaces it under a running server (a new file renamed
	// over the path) changes nothing for the sessions to come, which all
	// closed at once, unanswered, before.
	bin, err := os.Open(exe)
	if err != nil {
		return fmt.Errorf("the session binary: %w", err)
	}
	defer func() {
		if bin != nil {
			bin.Close()
		}
	}()
	devnull, err := os.Open(os.DevNull) // the children's stdin and stdout
	if err != nil {
		return err
	}
	stop, err := newStopPipe()
	if err != nil {
		devnull.Close()
		return err
	}
	var logs *os.File
	closeLogs := func() {}
	if s.cfg.Log != nil {
		if logs, closeLogs, err = s.logSocket(); err != nil {
			devnull.Close()
			stop.close()
			return err
		}
	}
	s.mu.Lock()
	s.stop = stop
	if s.ended { // closeSessions ran before there was a pipe to close
		stop.stop()
	}
	s.mu.Unlock()
	q := newConnQueue(0)
	s.kids.Add(1)
	held := bin
	bin = nil // (the spawner closes it)
	go func() {
		defer s.kids.Done()
		defer held.Close()
		defer devnull.Close()
		defer stop.close()
		defer closeLogs()
		for {
			ws := q.pop(1)
			if ws == nil {
				break
			}
			w := ws[0]
			s.queued.Add(-1)
			if err := s.forkSession(exe, fmt.Sprintf("/proc/self/fd/%d", held.Fd()), devnull, logs, stop, w.take(), w.release); err != nil {
				s.fault("cannot start a session process: %v", err)
				refuse(w.c, "421 Cannot start a session process; try again later.")
				w.release()
			}
		}
		s.kidsDone.Wait()
	}()
	return s.acceptInto(ln, q)
}

// sessionEnv is a session process's environment: the server's, with
// GOMAXPROCS=1. A session is one client's control and data connections,
// which one thread serves (as vsftpd's one process does); the Go runtime
// otherwise starts a thread per core it may use, several for each idle
// session (measured in docs/ftp.md).
func sessionEnv() []string {
	env := []string{"GOMAXPROCS=1"}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GOMAXPROCS=") {
			env = append(env, e)
		}
	}
	return env
}

// forkSession starts one session process for c. The parent's copy of the
// connection is closed once the child has it; on an error c is left open,
// for the caller's 421.
//
// The binary exe is started through path, a descriptor's (see
// serveProcesses); logs, if not nil, is the log socket's end for children.
func (s *Server) forkSession(exe, path string, devnull, logs *os.File, stop *stopPipe, c net.Conn, release func()) error {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return fmt.Errorf("not a TCP connection")
	}
	cf, err := tc.File() // a dup, blocking mode
	if err != nil {
		return err
	}
	defer cf.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	defer pw.Close()
	var kid *child.Pidfd
	var dummy []byte
	err = s.users.withFile(func(users *os.File) error {
		files := []uintptr{devnull.Fd(), devnull.Fd(), os.Stderr.Fd(), cf.Fd(), pr.Fd(), uintptr(stop.r), users.Fd()}
		if logs != nil {
			files = append(files, logs.Fd())
		}
		dummy = s.users.dummy
		var err error
		kid, err = child.Start(child.Attr{Exe: path, Args: []string{exe, SessionArg}, Env: sessionEnv(), Files: files})
		return err
	})
	if err != nil {
		return err
	}
	c.Close()
	cc := childConfig{Root: s.cfg.Root, Dummy: dummy, Anonymous: s.cfg.Anonymous,
		PasvMin: s.cfg.PasvMin, PasvMax: s.cfg.PasvMax, Idle: s.cfg.Idle, DataTimeout: s.cfg.DataTimeout,
		LoginDelay: s.cfg.LoginDelay, MaxLine: s.cfg.MaxLine, TLSChain: s.tlsChain, TLSKey: s.tlsKey,
		AllowPlain: s.cfg.AllowPlain, AllowNoReuse: s.cfg.AllowNoReuse,
		Log: logs != nil, Active: s.active.Load(), Served: s.served.Load()}
	if err := child.WriteJob(pw, &cc); err != nil {
		kid.Signal(syscall.SIGKILL)
	}
	s.active.Add(1)
	s.kidsDone.Add(1)
	s.mu.Lock()
	s.pidfds[kid] = struct{}{}
	s.mu.Unlock()
	go func() {
		defer s.kidsDone.Done()
		kid.Wait()
		s.mu.Lock()
		delete(s.pidfds, kid)
		s.mu.Unlock()
		kid.Close()
		s.active.Add(-1)
		s.served.Add(1)
		release()
	}()
	return nil
}

// logSocket carries the session processes' log lines to this process, a
// message a line (SOCK_SEQPACKET keeps each whole), which writes each to
// Config.Log as the other models' sessions do, one at a time: lines the
// children wrote to a pipe themselves interleaved past PIPE_BUF (24 of 41
// corrupt). It returns the children's end, and the function that closes
// it and waits for the last line, once no child is left.
func (s *Server) logSocket() (*os.File, func(), error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	mine := os.NewFile(uintptr(fds[0]), "log")
	theirs := os.NewFile(uintptr(fds[1]), "log")
	c, err := net.FileConn(mine) // (in the poller: no thread held)
	mine.Close()
	if err != nil {
		theirs.Close()
		return nil, nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 1<<20)
		for {
			n, err := c.Read(buf)
			if n > 0 {
				s.logMu.Lock()
				s.cfg.Log.Write(buf[:n])
				s.logMu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	return theirs, func() {
		theirs.Close() // the last writer was the children's: end of file
		<-done
		c.Close()
	}, nil
}

// signalChildren sends sig to every live session process (through its
// pidfd: never a reused pid).
func (s *Server) signalChildren(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.pidfds {
		k.Signal(sig)
	}
}

// sessionMain is a session process's whole life: read the configuration,
// serve the one connection, exit. The stop pipe's end (the parent's
// shutdown, or its death) closes the session with 421.
func sessionMain([]string) int {
	// The configuration pipe is this session's own: made non-blocking, it
	// is read in the poller, not in a blocking read that would cost the
	// process a thread (the parent may write after the child has started).
	syscall.SetNonblock(childConfigFd, true)
	cfgFile := os.NewFile(childConfigFd, "config")
	var cc childConfig
	if err := child.ReadJob(cfgFile, &cc); err != nil {
		fmt.Fprintf(os.Stderr, "parlab ftp session: config: %v\n", err)
		return 2
	}
	cfgFile.Close()
	cfg := Config{Root: cc.Root, Model: Processes, usersFile: os.NewFile(childUsersFd, "users"), Anonymous: cc.Anonymous, PasvMin: cc.PasvMin,
		PasvMax: cc.PasvMax, Idle: cc.Idle, DataTimeout: cc.DataTimeout, LoginDelay: cc.LoginDelay, MaxLine: cc.MaxLine,
		MaxConns: 1, MaxPerIP: 1, dummy: cc.Dummy, inSession: true, AllowPlain: cc.AllowPlain, AllowNoReuse: cc.AllowNoReuse}
	if cc.TLSChain != nil {
		var err error
		if cfg.TLS, err = childTLS(cc.TLSChain, cc.TLSKey); err != nil {
			fmt.Fprintf(os.Stderr, "parlab ftp session: %v\n", err)
			return 2
		}
	}
	if cc.Log {
		cfg.Log = os.NewFile(childLogFd, "log")
	}
	srv, err := New(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "parlab ftp session: %v\n", err)
		return 2
	}
	srv.active.Store(cc.Active)
	srv.served.Store(cc.Served)
	f := os.NewFile(childConnFd, "conn")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "parlab ftp session: %v\n", err)
		return 2
	}
	stopped := os.NewFile(childStopFd, "stop") // non-blocking: read in the poller
	go func() {
		var b [1]byte
		stopped.Read(b[:]) // end of file: the server is stopping
		srv.closeSessions()
	}()
	srv.run(c)
	srv.root.Close()
	return 0
}
