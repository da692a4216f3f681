package ftp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"parlab/internal/child"
)

// Nothing leaves the jail: "..", absolute paths, symlinks pointing out
// (relative or absolute), and replies never show real paths.
func TestJail(t *testing.T) {
	_, addr, root := testServer(t, Goroutines)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644)
	rel, _ := filepath.Rel(root, outside)
	os.Symlink(filepath.Join(rel, "secret.txt"), filepath.Join(root, "rel-out"))
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "abs-out"))
	os.Symlink(outside, filepath.Join(root, "dir-out"))
	os.Symlink("hello.txt", filepath.Join(root, "inside"))
	r := rawDial(t, addr)
	r.login()
	for _, line := range []string{"SIZE rel-out", "SIZE abs-out", "SIZE /../../" + rel + "/secret.txt", "CWD dir-out",
		"MLST dir-out", "SIZE " + outside + "/secret.txt", "DELE dir-out/secret.txt", "RETR abs-out"} {
		code, text := r.cmd(line)
		// a reply may echo what the client typed, never the root's place
		if code < 500 || strings.Contains(text, root) {
			t.Errorf("%s: %d %q", line, code, text)
		}
	}
	if code, text := r.cmd("SIZE inside"); code != 213 || text != "213 12" {
		t.Errorf("a symlink inside the jail: %d %q", code, text)
	}
	// LIST shows no way out
	if code, _ := r.cmd("PASV"); code != 227 {
		t.Fatal("PASV")
	}
	if code, text := r.cmd("STAT /"); code != 213 || strings.Contains(text, "out") || !strings.Contains(text, "inside") {
		t.Errorf("STAT /: %d %q", code, text)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "secret" {
		t.Error("the file outside was touched")
	}
}

// A failed login is answered after the delay; the third closes the session
// with 421. Anonymous logins read but never write.
func TestLogin(t *testing.T) {
	_, addr, root := testServer(t, Goroutines, func(c *Config) { c.LoginDelay = 150 * time.Millisecond })
	r := rawDial(t, addr)
	for i := 1; i <= 3; i++ {
		r.cmd("USER alice")
		t0 := time.Now()
		code, _ := r.cmd("PASS wrong")
		if d := time.Since(t0); d < 150*time.Millisecond {
			t.Errorf("failure %d answered after %v, before the delay", i, d)
		}
		if want := map[bool]int{true: 421, false: 530}[i == 3]; code != want {
			t.Errorf("failure %d: %d, want %d", i, code, want)
		}
	}
	if code, text := r.read(); code != 0 || !strings.Contains(text, "EOF") {
		t.Errorf("after 421 the session is closed: %d %q", code, text)
	}
	a := rawDial(t, addr)
	a.cmd("USER anonymous")
	if code, _ := a.cmd("PASS guest@"); code != 230 {
		t.Fatal("anonymous login")
	}
	for _, line := range []string{"STOR x", "APPE hello.txt", "DELE hello.txt", "MKD d", "RMD sub", "RNFR hello.txt"} {
		if code, _ := a.cmd(line); code != 550 {
			t.Errorf("anonymous %s: %d, want 550", line, code)
		}
	}
	if code, _ := a.cmd("SIZE hello.txt"); code != 213 {
		t.Errorf("anonymous SIZE: %d", code)
	}
	if _, err := os.Stat(filepath.Join(root, "hello.txt")); err != nil {
		t.Error(err)
	}
	// unknown users fail like wrong passwords
	u := rawDial(t, addr)
	u.cmd("USER mallory")
	if code, _ := u.cmd("PASS x"); code != 530 {
		t.Errorf("unknown user: %d", code)
	}
}

// Every limit answers, and never hangs.
func TestLimits(t *testing.T) {
	t.Run("max-conns", func(t *testing.T) {
		_, addr, _ := testServer(t, Goroutines, func(c *Config) { c.MaxConns = 2 })
		rawDial(t, addr)
		rawDial(t, addr)
		refused(t, addr, "third connection")
	})
	t.Run("max-per-ip", func(t *testing.T) {
		_, addr, _ := testServer(t, Goroutines, func(c *Config) { c.MaxPerIP = 1 })
		rawDial(t, addr)
		refused(t, addr, "second connection from one IP")
	})
	t.Run("line-length", func(t *testing.T) {
		_, addr, _ := testServer(t, Goroutines)
		r := rawDial(t, addr)
		code, _ := r.cmd("USER " + strings.Repeat("a", 5000))
		if code != 500 {
			t.Errorf("a 5 kB line: %d", code)
		}
		if _, text := r.read(); !strings.Contains(text, "EOF") {
			t.Errorf("not closed after it: %q", text)
		}
	})
	t.Run("idle", func(t *testing.T) {
		_, addr, _ := testServer(t, Goroutines, func(c *Config) { c.Idle = 200 * time.Millisecond })
		r := rawDial(t, addr)
		t0 := time.Now()
		code, _ := r.read()
		if code != 421 || time.Since(t0) > 5*time.Second {
			t.Errorf("idle: %d after %v", code, time.Since(t0))
		}
	})
	t.Run("idle-not-during-transfer", func(t *testing.T) {
		_, addr, root := testServer(t, Goroutines, func(c *Config) { c.Idle = 300 * time.Millisecond })
		os.WriteFile(filepath.Join(root, "big.bin"), make([]byte, 64<<20), 0o644)
		r := rawDial(t, addr)
		r.login()
		data, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.epsv()))
		if err != nil {
			t.Fatal(err)
		}
		r.cmd("TYPE I")
		fmt.Fprintf(r.c, "RETR big.bin\r\n")
		if code, _ := r.read(); code != 150 {
			t.Fatalf("RETR: %d", code)
		}
		// read slowly: the transfer lasts well past the idle limit
		buf := make([]byte, 1<<20)
		var n int64
		for t0 := time.Now(); ; {
			k, err := data.Read(buf)
			n += int64(k)
			if err != nil {
				break
			}
			if time.Since(t0) < time.Second {
				time.Sleep(20 * time.Millisecond)
			}
		}
		data.Close()
		if code, text := r.read(); code != 226 || n != 64<<20 {
			t.Errorf("after a transfer longer than the idle limit: %d %q, %d bytes", code, text, n)
		}
	})
}

// ABOR during a transfer: 426, then 226; an aborted upload leaves nothing.
func TestAbort(t *testing.T) {
	_, addr, root := testServer(t, Goroutines)
	r := rawDial(t, addr)
	r.login()
	data, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.epsv()))
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	fmt.Fprintf(r.c, "STOR partial.bin\r\n")
	if code, _ := r.read(); code != 150 {
		t.Fatal("STOR")
	}
	data.Write(make([]byte, 1<<20)) // part of an upload, then ABOR
	time.Sleep(100 * time.Millisecond)
	fmt.Fprintf(r.c, "ABOR\r\n")
	c1, _ := r.read()
	c2, _ := r.read()
	if c1 != 426 || c2 != 226 {
		t.Errorf("ABOR: %d then %d, want 426 then 226", c1, c2)
	}
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if strings.Contains(e.Name(), "partial") {
			t.Errorf("an aborted upload left %s", e.Name())
		}
	}
}

// The listener's backlog is exact: while nothing is accepted, Linux
// queues backlog+1 completed connections and drops the SYNs after them.
// The dials are made one after another, so that no handshake is half done
// when the queue fills. (In a burst, a few more dials than that completed
// while the server dropped their last ACK, and under load the server's
// SYN-ACK, sent again a second later, could land one of them in the queue
// while the test accepted: 7 for a backlog of 5, 2026-12-03 and 12-06.)
// The first backlog+1 are queued whatever the time the client takes to see
// it; the 3 after them must time out; every one queued is accepted. With
// the default backlog (4096), all would be.
func TestBacklog(t *testing.T) {
	const n = 5
	ln, err := Listen("127.0.0.1:0", n)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range n + 1 + 3 {
		timeout := 5 * time.Second // queued: the handshake is the kernel's, at once
		if i > n {
			timeout = 150 * time.Millisecond // dropped: the SYN's retry comes a second later
		}
		c, err := net.DialTimeout("tcp", ln.Addr().String(), timeout)
		if err == nil {
			conns = append(conns, c)
		} else if i <= n {
			t.Fatalf("dial %d of a backlog of %d: %v", i+1, n, err)
		}
	}
	ln.(interface{ SetDeadline(time.Time) error }).SetDeadline(time.Now().Add(200 * time.Millisecond))
	accepted := 0
	for {
		c, err := ln.Accept()
		if err != nil {
			break
		}
		accepted++
		c.Close()
	}
	if accepted != n+1 || len(conns) != n+1 {
		t.Errorf("backlog %d: %d connections queued (%d dials completed), want %d", n, accepted, len(conns), n+1)
	}
	if Backlog(n) != n || Backlog(1<<30) > 1<<20 {
		t.Errorf("Backlog: %d, %d", Backlog(n), Backlog(1<<30))
	}
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// Nothing leaks: many sessions dropped mid-login, after PASV, and
// mid-transfer, in every model; goroutines, descriptors and passive ports
// come back to their baseline.
func TestNoLeaks(t *testing.T) {
	for _, m := range modelsFor(t) {
		t.Run(m.String(), func(t *testing.T) {
			// ×4 kinds: 400 a model (a leak of one fd or goroutine a
			// session would show 400 times); a process a session costs a
			// process start each (a second race-built), so fewer there,
			// and fewer again under -short (the race run)
			sessions := 100
			if m == Processes {
				sessions = 25
			}
			if testing.Short() {
				sessions /= 4
			}
			// All may be open at once (race-built session processes are
			// slow to end): the limits are not what is tested here.
			srv, addr, root := testServer(t, m, func(c *Config) {
				c.PasvMin, c.PasvMax = 41000, 41999
				c.MaxConns, c.MaxPerIP = 4*sessions+10, 4*sessions+10
			})
			os.WriteFile(filepath.Join(root, "big.bin"), make([]byte, 8<<20), 0o644)
			time.Sleep(50 * time.Millisecond)
			g0, fd0 := runtime.NumGoroutine(), openFDs(t)
			var wg sync.WaitGroup
			sem := make(chan struct{}, 16)
			for i := range sessions * 4 {
				sem <- struct{}{}
				wg.Go(func() {
					defer func() { <-sem }()
					c, err := net.DialTimeout("tcp", addr, 5*time.Second)
					if err != nil {
						return
					}
					defer c.Close()
					c.SetDeadline(time.Now().Add(10 * time.Second))
					buf := make([]byte, 512)
					c.Read(buf) // the greeting
					say := func(s string) string {
						fmt.Fprintf(c, "%s\r\n", s)
						n, _ := c.Read(buf)
						return string(buf[:n])
					}
					switch i % 4 {
					case 0: // mid-login
						say("USER alice")
					case 1: // after PASV
						say("USER alice")
						say("PASS secret")
						say("PASV")
					case 2: // mid-transfer
						say("USER alice")
						say("PASS secret")
						d, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", epsvPort(say("EPSV"))))
						if err != nil {
							return
						}
						fmt.Fprintf(c, "RETR big.bin\r\n")
						d.Read(buf)
						d.Close()
					default: // at once
					}
				})
			}
			wg.Wait()
			deadline := time.Now().Add(15 * time.Second)
			for time.Now().Before(deadline) {
				if srv.Stats().Active == 0 && srv.PassivePortsInUse() == 0 && runtime.NumGoroutine() <= g0+2 && openFDs(t) <= fd0 {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if a, p, g, fd := srv.Stats().Active, srv.PassivePortsInUse(), runtime.NumGoroutine(), openFDs(t); a != 0 || p != 0 || g > g0+2 || fd > fd0 {
				t.Errorf("after %d dropped sessions: %d active, %d passive ports, %d goroutines (%d before), %d fds (%d before)", sessions*4, a, p, g, g0, fd, fd0)
			}
			if s := srv.Stats().Served; s < int64(sessions*4) {
				t.Errorf("served %d sessions of %d", s, sessions*4)
			}
			child.Reaped(t) // the processes model: every session process waited for
		})
	}
}

// A full pool answers 421 at once.
func TestPoolFull(t *testing.T) {
	_, addr, _ := testServer(t, Pool, func(c *Config) { c.Workers, c.Queue = 1, 1 })
	rawDial(t, addr) // the worker
	time.Sleep(50 * time.Millisecond)
	q, _ := net.Dial("tcp", addr) // the queue's one place
	defer q.Close()
	time.Sleep(50 * time.Millisecond)
	refused(t, addr, "a connection past a full pool")
}

// A pool of the default size holds far more sessions at once than a core
// count: FTP sessions keep their worker while idle between commands, and a
// pool of 8 failed the load lab's think-time loads (Little's law). With the
// queue at one place, every one of these 40 sessions must be greeted, so
// each has a worker.
func TestPoolDefaultSize(t *testing.T) {
	_, addr, _ := testServer(t, Pool, func(c *Config) { c.Workers, c.Queue = 0, 1 })
	for range 40 {
		rawDial(t, addr) // fails the test unless greeted with 220
	}
}

// refused connects to addr and requires a 421 and the connection closed.
func refused(t *testing.T, addr, what string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	b, _ := io.ReadAll(c)
	if !strings.HasPrefix(string(b), "421 ") {
		t.Errorf("%s: %q", what, b)
	}
}

// The batch model, as the reference's OpenMP server: a connection that comes
// while a batch is being served waits, without its 220 (it hears 120 if it
// waits long: TestQueuedConnectionsHear), until the whole batch has ended;
// then the ones waiting are served together.
func TestBatchWaitsForTheBatch(t *testing.T) {
	_, addr, _ := testServer(t, Batch, func(c *Config) { c.Workers = 4 })
	a := rawDial(t, addr) // batch 1, still in session
	greeted := make(chan time.Time, 2)
	for range 2 {
		go func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			r := bufio.NewReader(c)
			for { // a 120 may come first (QueuedNotice), then the 220
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if strings.HasPrefix(line, "220 ") {
					greeted <- time.Now()
					break
				}
			}
			fmt.Fprintf(c, "QUIT\r\n")
			r.ReadString('\n')
		}()
	}
	select {
	case <-greeted:
		t.Fatal("a connection was greeted while the first batch was still in session")
	case <-time.After(300 * time.Millisecond):
	}
	quit := time.Now()
	a.cmd("QUIT")
	for range 2 {
		select {
		case at := <-greeted:
			if at.Before(quit) {
				t.Error("greeted before the first batch ended")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the waiting connections were never served")
		}
	}
}

// A passive data connection from another address than the control
// connection's is closed and counted (127.0.0.2 is loopback too); the
// passive port is inside the range; a data connection that never comes is
// answered 425 after the data timeout.
func TestDataConnections(t *testing.T) {
	srv, addr, _ := testServer(t, Goroutines, func(c *Config) {
		c.PasvMin, c.PasvMax, c.DataTimeout = 42000, 42009, 300*time.Millisecond
	})
	r := rawDial(t, addr)
	r.login()
	port := r.epsv()
	if port < 42000 || port > 42009 {
		t.Errorf("passive port %d outside 42000-42009", port)
	}
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 2 * time.Second}
	foreign, err := d.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Skipf("cannot connect from 127.0.0.2 here: %v", err)
	}
	defer foreign.Close()
	t0 := time.Now()
	code, _ := r.cmd("LIST")
	if code != 150 {
		t.Fatalf("LIST: %d", code)
	}
	if code, text := r.read(); code != 425 || time.Since(t0) > 5*time.Second {
		t.Errorf("with only a foreign data connection: %d %q after %v, want 425 at the data timeout", code, text, time.Since(t0))
	}
	if srv.ForeignData.Load() != 1 {
		t.Errorf("%d foreign data connections counted, want 1", srv.ForeignData.Load())
	}
	foreign.SetDeadline(time.Now().Add(2 * time.Second))
	if n, err := foreign.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Errorf("the foreign connection got data: %d, %v", n, err)
	}
}

// One JSON line a session, with what it did: each command's verb (no
// argument), the reply that ended it (a transfer's 226, not its 150) and
// its time.
func TestSessionLog(t *testing.T) {
	var mu sync.Mutex
	var b strings.Builder
	_, addr, _ := testServer(t, Goroutines, func(c *Config) { c.Log = lockedWriter{&mu, &b} })
	r := rawDial(t, addr)
	r.login()
	r.cmd("SIZE hello.txt")
	data, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.epsv()))
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := r.cmd("RETR hello.txt"); code != 150 {
		t.Fatalf("RETR: %d", code)
	}
	io.Copy(io.Discard, data)
	data.Close()
	if code, _ := r.read(); code != 226 {
		t.Fatalf("RETR's end: %d", code)
	}
	r.cmd("NOSUCH")
	r.cmd("QUIT")
	var line string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		line = b.String()
		mu.Unlock()
		if line != "" {
			break
		}
	}
	for _, want := range []string{`"user":"alice"`, `"commands":7`, `"model":"goroutines"`, `"result":"ok"`, `"peer":"127.0.0.1:`} {
		if !strings.Contains(line, want) {
			t.Errorf("log line %q lacks %s", line, want)
		}
	}
	var got struct{ Steps []logStep }
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatal(err)
	}
	want := []logStep{{Verb: "USER", Code: 331}, {Verb: "PASS", Code: 230}, {Verb: "SIZE", Code: 213}, {Verb: "EPSV", Code: 229},
		{Verb: "RETR", Code: 226}, {Verb: "NOSUCH", Code: 500}, {Verb: "QUIT", Code: 221}}
	if len(got.Steps) != len(want) {
		t.Fatalf("steps %+v", got.Steps)
	}
	for i, st := range got.Steps {
		if st.Verb != want[i].Verb || st.Code != want[i].Code || st.Seconds <= 0 || st.Seconds > 5 {
			t.Errorf("step %d: %+v, want %s %d", i, st, want[i].Verb, want[i].Code)
		}
	}
	if strings.Contains(line, "secret") || strings.Contains(line, "hello.txt") {
		t.Errorf("log line %q holds an argument", line)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// Shutdown lets sessions run for the grace period, then closes them with 421.
func TestShutdown(t *testing.T) {
	for _, m := range []Model{Goroutines, Processes} {
		srv, addr, _ := testServer(t, m)
		r := rawDial(t, addr)
		r.login()
		t0 := time.Now()
		go srv.Shutdown(300 * time.Millisecond)
		code, _ := r.read()
		if code != 421 || time.Since(t0) < 250*time.Millisecond {
			t.Errorf("%s: %d after %v, want 421 after the grace", m, code, time.Since(t0))
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%s: still accepting after Shutdown", m)
		}
	}
}

// Shutdown at once after Serve starts, in every model, many times: the
// model's goroutines never race Shutdown's wait for them (the race run saw
// the batch model's join the wait group as Shutdown waited on it).
func TestShutdownAtStart(t *testing.T) {
	for _, m := range models {
		for i := range 20 {
			srv, err := New(Config{Root: t.TempDir(), Model: m, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			ln, err := Listen("127.0.0.1:0", 8)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			time.Sleep(time.Duration(i) * 20 * time.Microsecond) // before, in, after Serve's start
			srv.Shutdown(time.Second)
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%s: Serve: %v", m, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: Serve did not return after Shutdown", m)
			}
		}
	}
	child.Reaped(t)
}
