package load

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jlaffaye/ftp"
)

// IdleConfig is a capacity run: N sessions logged in and held idle, the
// server measured while they are, and fresh sessions timed meanwhile.
type IdleConfig struct {
	Addr       string
	Sessions   int           // N, held idle after login
	Dialers    int           // goroutines that connect and log in (a few: the held sessions need none)
	Hold       time.Duration // how long the N are held once all are in (or have failed)
	Fresh      int           // sessions (login, RETR FreshFile if set, QUIT) timed one after another while the N are held
	FreshFile  string
	User, Pass string
	Timeout    time.Duration // each phase of a session
	// ServerPid is the server's process (0: the one listening on Addr's
	// port, found through /proc/net/tcp and /proc/*/fd). Its tree (it and
	// its descendants) is what is measured.
	ServerPid int
}

// IdleResult is what a capacity run saw.
type IdleResult struct {
	Config   IdleConfig
	LoggedIn int            // of the N
	Failed   map[string]int // why the others did not log in
	Connect  time.Duration  // from the first dial until every one of the N was in or had failed
	// The server's tree while the N were held: the sum of its processes'
	// proportional set sizes (PSS, /proc/PID/smaps_rollup), its processes
	// and their threads, and the same before the run (Base*).
	PSS, BasePSS          int64
	Procs, BaseProcs      int
	Threads, BaseThreads  int
	FreshTimes            []time.Duration // each fresh session's whole time, sorted
	FreshFailed           int
	FreshP50, FreshP99    time.Duration
	GeneratorGoroutinesAt int // the generator's goroutines while holding (a check of "a few")
}

// PerSession is the server's PSS and tasks (threads, processes counted as
// their threads) per held session, above its baseline.
func (r *IdleResult) PerSession() (pss float64, tasks float64) {
	if r.LoggedIn == 0 {
		return 0, 0
	}
	n := float64(r.LoggedIn)
	return float64(r.PSS-r.BasePSS) / n, float64(r.Threads-r.BaseThreads) / n
}

// Idle runs a capacity measurement against a server on this machine.
// Sessions are opened by cfg.Dialers goroutines and then held by nothing
// but their sockets, so N costs the generator N descriptors, not N
// goroutines. Every phase is bounded by cfg.Timeout; the run ends by
// itself after cfg.Hold.
func Idle(cfg IdleConfig) (*IdleResult, error) {
	if err := CheckAddr(cfg.Addr, false); err != nil {
		return nil, err
	}
	if cfg.Dialers <= 0 {
		cfg.Dialers = 16
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	pid := cfg.ServerPid
	if pid == 0 {
		var err error
		if pid, err = ListeningPid(cfg.Addr); err != nil {
			return nil, err
		}
		cfg.ServerPid = pid
	}
	res := &IdleResult{Config: cfg, Failed: map[string]int{}}
	var err error
	if res.BasePSS, res.BaseProcs, res.BaseThreads, err = TreeUsage(pid); err != nil {
		return nil, err
	}
	held := make([]net.Conn, cfg.Sessions)
	var mu sync.Mutex
	var next atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for range cfg.Dialers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= cfg.Sessions {
					return
				}
				c, why := idleLogin(cfg)
				mu.Lock()
				if c != nil {
					held[i] = c
					res.LoggedIn++
				} else {
					res.Failed[why]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.Connect = time.Since(t0)
	defer func() {
		for _, c := range held {
			if c != nil {
				c.Close()
			}
		}
	}()
	if res.PSS, res.Procs, res.Threads, err = TreeUsage(pid); err != nil {
		return nil, err
	}
	res.GeneratorGoroutinesAt = runtime.NumGoroutine()
	holdUntil := time.Now().Add(cfg.Hold)
	for range cfg.Fresh {
		t := time.Now()
		if err := freshSession(cfg); err != nil {
			res.FreshFailed++
			continue
		}
		res.FreshTimes = append(res.FreshTimes, time.Since(t))
	}
	slices.Sort(res.FreshTimes)
	if n := len(res.FreshTimes); n > 0 {
		res.FreshP50, res.FreshP99 = res.FreshTimes[(n-1)/2], res.FreshTimes[min(n-1, n*99/100)]
	}
	// measured again after the fresh ones: the larger tree counts
	if pss, procs, threads, err := TreeUsage(pid); err == nil && pss > res.PSS {
		res.PSS, res.Procs, res.Threads = pss, procs, threads
	}
	time.Sleep(time.Until(holdUntil))
	return res, nil
}

// idleLogin connects, reads the greeting (through a 120 if queued), logs
// in, and returns the connection; or nil and why not.
func idleLogin(cfg IdleConfig) (net.Conn, string) {
	c, err := net.DialTimeout("tcp", cfg.Addr, cfg.Timeout)
	if err != nil {
		return nil, classifyDial(err)
	}
	c.SetDeadline(time.Now().Add(cfg.Timeout))
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	for err == nil && strings.HasPrefix(line, "120") {
		line, err = r.ReadString('\n')
	}
	if err != nil || !strings.HasPrefix(line, "220") {
		c.Close()
		if err != nil {
			return nil, classifyRead(err, GreetingTimeout)
		}
		return nil, classifyReply(line)
	}
	for _, cmd := range []string{"USER " + cfg.User, "PASS " + cfg.Pass} {
		fmt.Fprintf(c, "%s\r\n", cmd)
		if line, err = r.ReadString('\n'); err != nil {
			c.Close()
			return nil, classifyRead(err, LoginFailed)
		}
	}
	if !strings.HasPrefix(line, "230") {
		c.Close()
		return nil, LoginFailed
	}
	c.SetDeadline(time.Time{}) // held: the server's idle timeout is the limit
	return c, ""
}

// freshSession is one whole short session: login, RETR FreshFile (if
// set), QUIT.
func freshSession(cfg IdleConfig) error {
	sc, err := ftp.Dial(cfg.Addr, ftp.DialWithTimeout(cfg.Timeout))
	if err != nil {
		return err
	}
	defer sc.Quit()
	if err := sc.Login(cfg.User, cfg.Pass); err != nil {
		return err
	}
	if cfg.FreshFile != "" {
		r, err := sc.Retr(cfg.FreshFile)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, r)
		if cerr := r.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return nil
}

// TreeUsage is process pid's tree (it and its descendants): the sum of
// their PSS in bytes, their count, and their threads.
func TreeUsage(pid int) (pss int64, procs, threads int, err error) {
	children := map[int][]int{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0, 0, err
	}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := ppid(p); ok {
			children[pp] = append(children[pp], p)
		}
	}
	stack := []int{pid}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		stack = append(stack, children[p]...)
		kb, ok := statusField(p, "/smaps_rollup", "Pss:")
		t, ok2 := statusField(p, "/status", "Threads:")
		if !ok || !ok2 {
			if p == pid {
				return 0, 0, 0, fmt.Errorf("process %d: cannot read its memory (gone, or not ours)", pid)
			}
			continue // exited meanwhile
		}
		pss += kb << 10
		procs++
		threads += int(t)
	}
	return pss, procs, threads, nil
}

// ppid is process p's parent, from /proc/p/stat (after the command's
// closing parenthesis: state, then ppid).
func ppid(p int) (int, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "stat"))
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, false
	}
	pp, err := strconv.Atoi(f[1])
	return pp, err == nil
}

// statusField is the number after key in /proc/p/file (kB for sizes).
func statusField(p int, file, key string) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + file)
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				return 0, false
			}
			n, err := strconv.ParseInt(f[0], 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// ListeningPid is the process that listens on addr's TCP port: the socket
// in /proc/net/tcp (tcp6) in state LISTEN, then the process that holds
// its inode among its descriptors.
func ListeningPid(addr string) (int, error) {
	_, portS, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, err
	}
	port, _ := strconv.Atoi(portS)
	var inode string
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n")[1:] {
			x := strings.Fields(l)
			if len(x) < 10 || x[3] != "0A" {
				continue
			}
			_, hexPort, _ := strings.Cut(x[1], ":")
			if p, err := strconv.ParseInt(hexPort, 16, 32); err == nil && int(p) == port {
				inode = x[9]
			}
		}
	}
	if inode == "" {
		return 0, fmt.Errorf("nothing listens on %s", addr)
	}
	want := "socket:[" + inode + "]"
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join("/proc", e.Name(), "fd"))
		for _, fd := range fds {
			if l, _ := os.Readlink(filepath.Join("/proc", e.Name(), "fd", fd.Name())); l == want {
				return p, nil
			}
		}
	}
	return 0, errors.New("the process listening on " + addr + " is not visible here")
}

// WriteText writes the run's report.
func (r *IdleResult) WriteText(w io.Writer) {
	pss, tasks := r.PerSession()
	fmt.Fprintf(w, "parlab ftp load --idle: %d sessions against %s (server pid %d)\n", r.Config.Sessions, r.Config.Addr, r.Config.ServerPid)
	fmt.Fprintf(w, "  logged in        %d of %d in %.2f s", r.LoggedIn, r.Config.Sessions, r.Connect.Seconds())
	for why, n := range r.Failed {
		fmt.Fprintf(w, "; %d %s", n, why)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  server (its tree) %.1f MB PSS in %d processes, %d threads (before: %.1f MB, %d, %d)\n",
		float64(r.PSS)/1e6, r.Procs, r.Threads, float64(r.BasePSS)/1e6, r.BaseProcs, r.BaseThreads)
	fmt.Fprintf(w, "  per session      %.1f KB PSS, %.2f tasks\n", pss/1e3, tasks)
	fmt.Fprintf(w, "  fresh sessions   %d ok, %d failed; p50 %.2f ms, p99 %.2f ms\n", len(r.FreshTimes), r.FreshFailed,
		float64(r.FreshP50.Microseconds())/1e3, float64(r.FreshP99.Microseconds())/1e3)
}
