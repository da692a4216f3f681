package ftp

import (
	"encoding/gob"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"parlab/spawn/child"
)

// SessionArg is argv[1] of a session process (the processes model): a
// hidden mode registered with package child.
const SessionArg = "__parlab_ftp_session"

func init() { child.Register(SessionArg, sessionMain) }

// The session child's descriptors: the connection, its configuration (gob),
// and the log (if any).
const (
	childConnFd   = 3
	childConfigFd = 4
	childLogFd    = 5
)

// childConfig is what a session process needs of the server's Config.
type childConfig struct {
	Root              string
	Users             map[string][]byte
	Anonymous         bool
	PasvMin, PasvMax  int
	Idle, DataTimeout time.Duration
	LoginDelay        time.Duration
	MaxLine           int
	CertFile, KeyFile string
	Log               bool
	Active, Served    int64 // the parent's figures at the fork, for STAT
}

// serveProcesses is vsftpd's model: the parent accepts and checks the
// limits; each session is a child process, parlab itself started with
// syscall.ForkExec in SessionArg's mode, the connection its fd 3. Children
// get SIGKILL if the parent dies (PR_SET_PDEATHSIG); each is reaped.
func (s *Server) serveProcesses(ln net.Listener) error {
	exe := s.cfg.Exe
	if exe == "" {
		exe = "/proc/self/exe"
	}
	// PR_SET_PDEATHSIG fires when the forking thread ends: keep this one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		release, ok := s.admit(c)
		if !ok {
			continue
		}
		if err := s.forkSession(exe, c, release); err != nil {
			refuse(c, "421 Cannot start a session process; try again later.")
			release()
		}
	}
}

// forkSession starts one session process for c. The parent's copy of the
// connection is closed once the child has it.
func (s *Server) forkSession(exe string, c net.Conn, release func()) error {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return fmt.Errorf("not a TCP connection")
	}
	cf, err := tc.File() // a dup, blocking mode
	c.Close()
	if err != nil {
		return err
	}
	defer cf.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	logFd := uintptr(^uint(0))
	if f, ok := s.cfg.Log.(*os.File); ok {
		logFd = f.Fd()
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		pw.Close()
		return err
	}
	defer devnull.Close()
	files := []uintptr{devnull.Fd(), devnull.Fd(), os.Stderr.Fd(), cf.Fd(), pr.Fd()}
	if logFd != uintptr(^uint(0)) {
		files = append(files, logFd)
	}
	pidfd := -1
	pid, err := syscall.ForkExec(exe, []string{exe, SessionArg}, &syscall.ProcAttr{
		Env: os.Environ(), Files: files,
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, PidFD: &pidfd},
	})
	if err != nil {
		pw.Close()
		return err
	}
	cc := childConfig{Root: s.cfg.Root, Users: s.cfg.Users, Anonymous: s.cfg.Anonymous, PasvMin: s.cfg.PasvMin,
		PasvMax: s.cfg.PasvMax, Idle: s.cfg.Idle, DataTimeout: s.cfg.DataTimeout, LoginDelay: s.cfg.LoginDelay,
		MaxLine: s.cfg.MaxLine, CertFile: s.cfg.CertFile, KeyFile: s.cfg.KeyFile, Log: len(files) > 5,
		Active: s.active.Load(), Served: s.served.Load()}
	err = gob.NewEncoder(pw).Encode(&cc)
	pw.Close()
	if err != nil {
		unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0)
	}
	s.active.Add(1)
	s.kids.Add(1)
	s.mu.Lock()
	s.pidfds[pidfd] = struct{}{}
	s.mu.Unlock()
	go func() {
		defer s.kids.Done()
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				break
			}
		}
		s.mu.Lock()
		delete(s.pidfds, pidfd)
		s.mu.Unlock()
		unix.Close(pidfd)
		s.active.Add(-1)
		s.served.Add(1)
		release()
	}()
	return nil
}

// signalChildren sends sig to every live session process (through its
// pidfd: never a reused pid).
func (s *Server) signalChildren(sig unix.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for fd := range s.pidfds {
		unix.PidfdSendSignal(fd, sig, nil, 0)
	}
}

// sessionMain is a session process's whole life: read the configuration,
// serve the one connection, exit. SIGTERM (the parent's shutdown) closes
// the session with 421.
func sessionMain([]string) int {
	cfgFile := os.NewFile(childConfigFd, "config")
	var cc childConfig
	if err := gob.NewDecoder(cfgFile).Decode(&cc); err != nil {
		fmt.Fprintf(os.Stderr, "parlab ftp session: config: %v\n", err)
		return 2
	}
	cfgFile.Close()
	cfg := Config{Root: cc.Root, Model: Processes, Users: cc.Users, Anonymous: cc.Anonymous, PasvMin: cc.PasvMin,
		PasvMax: cc.PasvMax, Idle: cc.Idle, DataTimeout: cc.DataTimeout, LoginDelay: cc.LoginDelay, MaxLine: cc.MaxLine,
		CertFile: cc.CertFile, KeyFile: cc.KeyFile, MaxConns: 1, MaxPerIP: 1}
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
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	var once sync.Once
	go func() {
		<-sigs
		once.Do(func() {
			srv.mu.Lock()
			for ss := range srv.sessions {
				ss.kill("421 Server shutting down.")
			}
			srv.mu.Unlock()
		})
	}()
	srv.run(c)
	srv.root.Close()
	return 0
}
