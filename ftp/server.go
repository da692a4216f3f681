package ftp

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"parlab/internal/child"
)

// Server is one FTP server. Its methods are safe for concurrent use.
type Server struct {
	cfg  Config
	root *os.Root

	mu       sync.Mutex
	conns    int
	perIP    map[string]int
	sessions map[*session]struct{}
	pasv     *portPool

	active, queued, served atomic.Int64
	// ForeignData counts passive data connections refused because they came
	// from another IP than their session's control connection.
	ForeignData atomic.Int64

	closing  atomic.Bool
	kids     sync.WaitGroup            // the processes model's spawner, which outlives its children
	kidsDone sync.WaitGroup            // the processes model's session processes
	pidfds   map[*child.Pidfd]struct{} // theirs, for signals
	stop     *stopPipe                 // theirs, for the shutdown: under mu
	ended    bool                      // closeSessions has run: under mu
	users    usersTable                // the logins (users.go)
	tlsChain [][]byte                  // cfg.TLS's certificate, for the session processes
	tlsKey   []byte                    // and its key (PKCS #8)
	wg       sync.WaitGroup            // every session
	logMu    sync.Mutex                // one log line at a time
	faults   faults                    // Errors' rate limit
	ln       net.Listener              // set by Serve, closed by Shutdown: under mu
}

// New opens cfg.Root as the jail and makes the server. TLS comes from
// cfg.TLS, or else from CertFile and KeyFile: one configuration, which the
// processes model hands to its session processes too.
func New(cfg Config) (*Server, error) {
	cfg.fill()
	if err := loadTLS(&cfg); err != nil {
		return nil, err
	}
	if cfg.PasvMin > cfg.PasvMax || cfg.PasvMin < 0 || cfg.PasvMax > 65535 {
		return nil, fmt.Errorf("passive ports %d-%d: not a range", cfg.PasvMin, cfg.PasvMax)
	}
	s := &Server{cfg: cfg, perIP: map[string]int{}, sessions: map[*session]struct{}{},
		pasv: newPortPool(cfg.PasvMin, cfg.PasvMax), pidfds: map[*child.Pidfd]struct{}{}}
	if cfg.Model == Processes && cfg.TLS != nil && !cfg.inSession {
		var err error
		if s.tlsChain, s.tlsKey, err = childCert(cfg.TLS); err != nil {
			return nil, err
		}
	}
	if err := s.users.set(cfg.Users, cfg.dummy, cfg.Model == Processes && !cfg.inSession); err != nil {
		return nil, err
	}
	s.users.child = cfg.usersFile
	root, err := os.OpenRoot(cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("ftp root: %w", err)
	}
	s.root = root
	if !cfg.inSession {
		if n := reap(root); n > 0 {
			s.fault("removed %d temporary uploads a server killed mid-upload left", n)
		}
	}
	return s, nil
}

// Serve accepts connections on ln and runs them in the configured model
// until ln is closed (Shutdown does that); it then returns nil.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	s.ln = ln
	closing := s.closing.Load()
	if !closing {
		// Serve holds s.wg and s.kids while it runs, taken before
		// Shutdown can look: a model's goroutines join them while their
		// counts are above zero, never racing Shutdown's Waits (a
		// Shutdown just after Serve started was such a race:
		// TestShutdownAtStart).
		s.wg.Add(1)
		s.kids.Add(1)
	}
	s.mu.Unlock()
	if closing { // Shutdown came first
		ln.Close()
		return nil
	}
	defer s.wg.Done()
	defer s.kids.Done()
	var err error
	switch s.cfg.Model {
	case Single:
		err = s.serveSingle(ln)
	case Goroutines:
		err = s.serveGoroutines(ln)
	case Batch:
		err = s.serveBatch(ln)
	case Pool:
		err = s.servePool(ln)
	case Processes:
		err = s.serveProcesses(ln)
	default:
		err = fmt.Errorf("model %d has no server", s.cfg.Model)
	}
	if s.closing.Load() && (errors.Is(err, net.ErrClosed)) {
		return nil
	}
	return err
}

func (s *Server) serveSingle(ln net.Listener) error {
	a := s.newAcceptor(ln)
	defer a.close()
	for {
		c, err := a.next()
		if err != nil {
			return err
		}
		s.run(c)
	}
}

func (s *Server) serveGoroutines(ln net.Listener) error {
	a := s.newAcceptor(ln)
	defer a.close()
	for {
		c, err := a.next()
		if err != nil {
			return err
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.run(c)
		}()
	}
}

// acceptInto is the queued models' accept loop: each connection is
// admitted under the limits (or answered 421) and queued, where it hears
// 120 if its session has not started within QueuedNotice (or 421 when the
// queue is full). When the listener closes, what still waits gets 421.
func (s *Server) acceptInto(ln net.Listener, q *connQueue) error {
	a := s.newAcceptor(ln)
	defer a.close()
	defer q.close("421 Server shutting down.")
	for {
		c, err := a.next()
		if err != nil {
			return err
		}
		release, ok := s.admit(c)
		if !ok {
			continue
		}
		w := hold(c, release)
		if !q.push(w) {
			w.refuse("421 Too many connections waiting; try again later.")
			continue
		}
		s.queued.Add(1)
	}
}

// start takes a queued connection and runs its session here.
func (s *Server) start(w *waiting) {
	s.queued.Add(-1)
	s.session(w.take(), w.release)
}

// serveBatch is the reference's OpenMP model: wait for one connection,
// take every other one waiting, serve the batch with Workers workers, and
// take the next batch only when the whole batch is done. Connections keep
// being accepted meanwhile (and hear 120), so the kernel's queue never
// fills and no client waits in silence.
func (s *Server) serveBatch(ln net.Listener) error {
	q := newConnQueue(0)
	s.wg.Go(func() {
		for {
			batch := q.pop(0)
			if batch == nil {
				return
			}
			work := make(chan *waiting, len(batch))
			for _, w := range batch {
				work <- w
			}
			close(work)
			var wg sync.WaitGroup
			for range min(s.cfg.Workers, len(batch)) {
				wg.Go(func() {
					for w := range work {
						s.start(w)
					}
				})
			}
			wg.Wait()
		}
	})
	return s.acceptInto(ln, q)
}

// servePool feeds Workers long-lived workers from a queue of Queue
// connections; a connection that finds it full gets 421 at once.
func (s *Server) servePool(ln net.Listener) error {
	q := newConnQueue(s.cfg.Queue)
	for range s.cfg.Workers {
		s.wg.Go(func() {
			for {
				w := q.pop(1)
				if w == nil {
					return
				}
				s.start(w[0])
			}
		})
	}
	return s.acceptInto(ln, q)
}

// refuse answers a connection it will not serve, and closes it.
func refuse(c net.Conn, reply string) {
	c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	c.Write([]byte(reply + "\r\n"))
	c.Close()
}

// admit counts c against the connection limits, or answers it 421 and
// closes it; release gives its place back.
func (s *Server) admit(c net.Conn) (release func(), ok bool) {
	ip := hostOf(c.RemoteAddr())
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing.Load():
		refuse(c, "421 Server shutting down.")
		return nil, false
	case s.conns >= s.cfg.MaxConns:
		refuse(c, fmt.Sprintf("421 Too many users (the most is %d); try again later.", s.cfg.MaxConns))
		return nil, false
	case s.perIP[ip] >= s.cfg.MaxPerIP:
		refuse(c, fmt.Sprintf("421 Too many connections from your address (the most is %d).", s.cfg.MaxPerIP))
		return nil, false
	}
	s.conns++
	s.perIP[ip]++
	return func() {
		s.mu.Lock()
		s.conns--
		if s.perIP[ip]--; s.perIP[ip] == 0 {
			delete(s.perIP, ip)
		}
		s.mu.Unlock()
	}, true
}

// run serves one connection as a session, within the connection limits.
func (s *Server) run(c net.Conn) {
	if release, ok := s.admit(c); ok {
		s.session(c, release)
	}
}

// session serves an admitted connection; release gives its place back.
func (s *Server) session(c net.Conn, release func()) {
	ss := newSession(s, c)
	s.mu.Lock()
	s.sessions[ss] = struct{}{}
	if s.ended {
		ss.kill("421 Server shutting down.") // admitted just before closeSessions
	}
	s.mu.Unlock()
	s.active.Add(1)
	defer func() {
		s.active.Add(-1)
		s.served.Add(1)
		s.mu.Lock()
		delete(s.sessions, ss)
		s.mu.Unlock()
		release()
	}()
	ss.serve()
}

// Shutdown stops accepting, lets sessions finish for up to grace, then
// closes the rest with 421: whatever they wait for (a data connection, a
// handshake, a transfer, a lock) stops with them. It returns when every
// session has ended, or at most a second after grace: a session process
// still alive then is killed, and a session goroutine that has not ended
// is left to the process's exit.
func (s *Server) Shutdown(grace time.Duration) {
	s.mu.Lock()
	s.closing.Store(true)
	if s.ln != nil {
		s.ln.Close()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		for {
			s.mu.Lock()
			n := len(s.sessions) + len(s.pidfds)
			s.mu.Unlock()
			if n == 0 {
				close(done)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	select {
	case <-done:
	case <-time.After(grace):
		stop := s.closeSessions()
		stop.stop() // a session process says 421 and exits
		select {
		case <-done:
		case <-time.After(time.Second):
			s.signalChildren(syscall.SIGKILL)
			select {
			case <-done:
			case <-time.After(100 * time.Millisecond):
				return // (a session stuck past its kill: the process's exit ends it)
			}
		}
	}
	s.kids.Wait()
	s.wg.Wait()
	s.root.Close()
	s.users.close()
}

// closeSessions answers every session 421 and closes it, and every one
// admitted later as soon as it starts; it returns the stop pipe (the
// processes model's), for the caller to close outside the lock.
func (s *Server) closeSessions() *stopPipe {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing.Store(true)
	s.ended = true
	for ss := range s.sessions {
		ss.kill("421 Server shutting down.")
	}
	return s.stop
}

// Stats is what STAT without an argument reports of the server.
type Stats struct {
	Model                  Model
	Active, Queued, Served int64
}

// Stats says how the server is doing.
func (s *Server) Stats() Stats {
	return Stats{s.cfg.Model, s.active.Load(), s.queued.Load(), s.served.Load()}
}

func hostOf(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	h, _, _ := net.SplitHostPort(a.String())
	return h
}
