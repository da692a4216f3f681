package ftp

// Regression tests for the defects an outside probe found (2026-12-04),
// each failing on the code before its fix.

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jlaffaye/ftp"
	"golang.org/x/crypto/bcrypt"

	"parlab/internal/testrun"
)

// failingListener fails its first Accept as a process out of descriptors
// does (accept4: too many open files), then accepts for real.
type failingListener struct {
	net.Listener
	mu    sync.Mutex
	fails int
}

func (l *failingListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	fail := l.fails > 0
	l.fails--
	l.mu.Unlock()
	if fail {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// Defect 1: an accept that fails for want of descriptors ended the server
// (goroutines) and dropped every session. Now every model keeps serving,
// answers the connection it could not take 421 (with the descriptor it
// holds in reserve), and reports the cause on Errors.
func TestAcceptFailureKeepsServing(t *testing.T) {
	for _, m := range modelsFor(t) {
		t.Run(m.String(), func(t *testing.T) {
			var errs testrun.SyncBuffer
			srv, err := New(Config{Root: t.TempDir(), Model: m, Anonymous: true, Errors: &errs, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			inner, err := Listen("127.0.0.1:0", 16)
			if err != nil {
				t.Fatal(err)
			}
			ln := &failingListener{Listener: inner, fails: 1}
			// the first client is waiting when the accept fails
			first, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer first.Close()
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			first.SetDeadline(time.Now().Add(5 * time.Second))
			if b, _ := io.ReadAll(first); !strings.HasPrefix(string(b), "421 ") {
				t.Errorf("the connection met by the failed accept: %q, want 421", b)
			}
			r := rawDial(t, ln.Addr().String()) // greeted: the server still serves
			if code, _ := r.cmd("USER anonymous"); code != 331 {
				t.Errorf("USER after a failed accept: %d", code)
			}
			r.cmd("QUIT")
			srv.Shutdown(2 * time.Second)
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
			if !strings.Contains(errs.String(), "too many open files (still serving)") {
				t.Errorf("Errors: %q", errs.String())
			}
		})
	}
}

// Defect 2: the processes model ignored a TLS configuration given as
// Config.TLS (as the CLI gave it): no AUTH TLS in FEAT, and logins in the
// clear. Now every model negotiates FTPS from the one configuration:
// FEAT, AUTH TLS, PBSZ and PROT P, and transfers over TLS.
func TestTLSEveryModel(t *testing.T) {
	tc := testCert(t)
	for _, m := range modelsFor(t) {
		t.Run(m.String(), func(t *testing.T) {
			_, addr, root := testServer(t, m, func(c *Config) { c.TLS = tc.cfg })
			r := rawDial(t, addr)
			if code, text := r.cmd("FEAT"); code != 211 || !strings.Contains(text, "AUTH TLS") || !strings.Contains(text, "PROT") {
				t.Errorf("FEAT: %d %q", code, text)
			}
			r.cmd("QUIT")
			c, err := ftp.Dial(addr, ftp.DialWithTimeout(10*time.Second), ftp.DialWithExplicitTLS(clientTLS()))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Quit()
			if err := c.Login("alice", "secret"); err != nil { // then PBSZ 0, PROT P
				t.Fatal(err)
			}
			rd, err := c.Retr("hello.txt")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rd)
			rd.Close()
			if string(b) != "hello\nworld\n" {
				t.Errorf("RETR over TLS: %q", b)
			}
			if err := c.Stor("tls.txt", strings.NewReader("over TLS")); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(filepath.Join(root, "tls.txt")); string(got) != "over TLS" {
				t.Errorf("STOR over TLS: %q", got)
			}
		})
	}
}

// A session process parses the key it is handed at its first handshake,
// not at its start (most sessions never ask for TLS), once; a key that
// does not parse fails that handshake, not the session's start.
func TestChildTLSParsesAtHandshake(t *testing.T) {
	tc := testCert(t)
	chain, key, err := childCert(tc.cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := childTLS(chain, key)
	if err != nil || len(cfg.Certificates) != 0 || cfg.GetCertificate == nil || cfg.MinVersion != tls.VersionTLS12 {
		t.Fatalf("childTLS: %v %+v", err, cfg)
	}
	c1, err1 := cfg.GetCertificate(nil)
	c2, err2 := cfg.GetCertificate(nil)
	if err1 != nil || err2 != nil || c1 != c2 || c1.PrivateKey == nil || len(c1.Certificate) != 1 {
		t.Errorf("GetCertificate: %v %v %p %p", err1, err2, c1, c2)
	}
	bad, err := childTLS(chain, []byte("not a key"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.GetCertificate(nil); err == nil || !strings.Contains(err.Error(), "TLS key") {
		t.Errorf("a bad key: %v", err)
	}
}

// Defect 3: a wrong password took longer for an unknown user than for a
// known one (the processes model's children each made a dummy hash; every
// model's dummy had bcrypt's default cost whatever the users' cost), so
// user names could be told by timing. Now the dummy is made once, at the
// users' cost: the two failures take alike, in every model.
func TestLoginTimingUnknownUser(t *testing.T) {
	// Under -short (the race run, where bcrypt is many times slower and
	// times tell little) the dummy's cost is checked, not the times.
	cost := 8
	if testing.Short() {
		cost = bcrypt.MinCost
	}
	hash, err := bcrypt.GenerateFromPassword([]byte("secret"), cost)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range modelsFor(t) {
		t.Run(m.String(), func(t *testing.T) {
			srv, addr, _ := testServer(t, m, func(c *Config) {
				c.Users = map[string][]byte{"alice": hash}
				c.LoginDelay = -1 // none: the reply comes when the check ends
			})
			// the dummy at the users' cost (what a session process is given)
			if c, err := bcrypt.Cost(srv.users.dummy); err != nil || c != cost {
				t.Fatalf("the dummy hash's cost: %d, %v; want the users' %d", c, err, cost)
			}
			if testing.Short() {
				return
			}
			fail := func(r *raw, user string) time.Duration {
				r.cmd("USER " + user)
				t0 := time.Now()
				if code, text := r.cmd("PASS wrong"); code != 530 {
					t.Fatalf("PASS for %s: %d %q", user, code, text)
				}
				return time.Since(t0)
			}
			var known, unknown []time.Duration
			for range 7 {
				r := rawDial(t, addr)
				known = append(known, fail(r, "alice"))
				unknown = append(unknown, fail(r, "mallory"))
				r.cmd("QUIT")
			}
			slices.Sort(known)
			slices.Sort(unknown)
			// Wide bounds, as the machine may be busy (make test runs two
			// test runs at once): a dummy at another cost than the users'
			// is 4x or more per step of cost, and the cost is checked above.
			k, u := known[3], unknown[3]
			if ratio := float64(u) / float64(k); ratio > 2.5 || ratio < 0.4 {
				t.Errorf("a wrong password: unknown user %v, known user %v (medians of 7; ratio %.2f)", u, k, ratio)
			}
		})
	}
}

// Without users there is no dummy hash (every name is unknown, so no time
// can tell one from another), and a login of any name but the anonymous
// ones still fails, in every model.
func TestNoUsersNoDummy(t *testing.T) {
	for _, m := range modelsFor(t) {
		t.Run(m.String(), func(t *testing.T) {
			srv, addr, _ := testServer(t, m, func(c *Config) { c.Users, c.LoginDelay = nil, -1 })
			if srv.users.dummy != nil {
				t.Errorf("a dummy hash without users: %q", srv.users.dummy)
			}
			r := rawDial(t, addr)
			r.cmd("USER alice")
			if code, text := r.cmd("PASS secret"); code != 530 {
				t.Errorf("PASS for a user of no users file: %d %q", code, text)
			}
			r.cmd("QUIT")
		})
	}
}

// Defect 4: two sessions appending to one file at once lost one append
// (APPE copied the file and renamed the copy over it). Now both land,
// each whole, in the threads models and across session processes.
func TestConcurrentAppend(t *testing.T) {
	for _, m := range []Model{Goroutines, Processes} {
		t.Run(m.String(), func(t *testing.T) {
			_, addr, root := testServer(t, m)
			const rounds, size = 4, 200_000
			blocks := [2][]byte{bytes.Repeat([]byte("a"), size), bytes.Repeat([]byte("b"), size)}
			conns := [2]*ftp.ServerConn{dial(t, addr), dial(t, addr)}
			for _, c := range conns {
				defer c.Quit()
				if err := c.Login("alice", "secret"); err != nil {
					t.Fatal(err)
				}
			}
			for round := range rounds {
				name := fmt.Sprintf("log%d.txt", round)
				var wg sync.WaitGroup
				for i, c := range conns {
					wg.Go(func() {
						if err := c.Append(name, bytes.NewReader(blocks[i])); err != nil {
							t.Errorf("APPE %d: %v", i, err)
						}
					})
				}
				wg.Wait()
				got, _ := os.ReadFile(filepath.Join(root, name))
				ab := append(append([]byte{}, blocks[0]...), blocks[1]...)
				ba := append(append([]byte{}, blocks[1]...), blocks[0]...)
				if !bytes.Equal(got, ab) && !bytes.Equal(got, ba) {
					t.Errorf("round %d: %d bytes (%d a, %d b), want both appends whole", round, len(got),
						bytes.Count(got, []byte("a")), bytes.Count(got, []byte("b")))
				}
			}
		})
	}
}

// dataLines runs a listing command over a passive data connection and
// returns what came on it.
func (r *raw) dataLines(cmd string) string {
	r.t.Helper()
	d, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.epsv()))
	if err != nil {
		r.t.Fatal(err)
	}
	defer d.Close()
	if code, text := r.cmd(cmd); code != 150 {
		r.t.Fatalf("%s: %d %q", cmd, code, text)
	}
	b, _ := io.ReadAll(d)
	if code, text := r.read(); code != 226 {
		r.t.Fatalf("%s: %d %q", cmd, code, text)
	}
	return string(b)
}

// bareControl reports a control byte in s other than the line ends (CR
// LF on the wire, LF between the lines raw.read joins).
func bareControl(s string) bool {
	return hasControl(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", ""), "\n", ""))
}

// Defect 5: a name holding CR LF was printed raw in listings (a listing
// could carry a forged 226), 257 echoed a raw CR and 550 raw NULs. Now a
// name a client gives with a control byte is refused 553, listings leave
// out such names found on disk, and no reply carries a raw control byte.
func TestControlBytesInNames(t *testing.T) {
	_, addr, root := testServer(t, Goroutines)
	for _, name := range []string{"evil\r\n226 forged", "tab\there", "bell\x07"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := rawDial(t, addr)
	r.login()
	for _, cmd := range []string{"LIST", "NLST", "MLSD"} {
		out := r.dataLines(cmd)
		if bareControl(out) || strings.Contains(out, "forged") || !strings.Contains(out, "hello.txt") {
			t.Errorf("%s: %q", cmd, out)
		}
	}
	if code, text := r.cmd("STAT /"); code != 213 || bareControl(text) || strings.Contains(text, "forged") {
		t.Errorf("STAT /: %d %q", code, text)
	}
	for _, line := range []string{"MKD a\rb", "RETR a\x00b", "CWD x\x1b[2J", "STOR x\x00", "RNFR hello.txt\x00", "LIST \x00", "DELE a\rb"} {
		if code, text := r.cmd(line); code != 553 || bareControl(text) {
			t.Errorf("%q: %d %q, want 553", line, code, text)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "a\rb")); err == nil {
		t.Error("MKD made a name with a CR")
	}
	// a reply that echoes what the client typed escapes it
	r2 := rawDial(t, addr)
	if code, text := r2.cmd("USER bob\rx\x00"); code != 331 || bareControl(text) || !strings.Contains(text, `bob\x0dx\x00`) {
		t.Errorf("USER with control bytes: %d %q", code, text)
	}
}

// The Telnet commands parlab takes out of a control line.
func TestTelnet(t *testing.T) {
	for in, want := range map[string]string{
		"ABOR\r\n":                     "ABOR\r\n",
		"\xff\xf4\xff\xf2ABOR\r\n":     "ABOR\r\n", // IP, Synch (IAC DM), as BSD ftp sends them with SO_OOBINLINE
		"\xff\xf4\xf2ABOR\r\n":         "ABOR\r\n", // the Synch's IAC taken out of band
		"\xff\xfb\x01NOOP\r\n":         "NOOP\r\n", // WILL ECHO
		"STOR a\xff\xffb\r\n":          "STOR a\xffb\r\n",
		"\xf2":                         "",
		"\xff":                         "",
		"RETR caf\xc3\xa9\xf2\r\n":     "RETR caf\xc3\xa9\xf2\r\n", // a DM byte past the start is data
		"\xff\xf1\xff\xfe\x03LIST\r\n": "LIST\r\n",                 // NOP, DONT SGA
	} {
		if got := string(telnet([]byte(in))); got != want {
			t.Errorf("telnet(%q) = %q, want %q", in, got, want)
		}
	}
}

// sendUrgent sends b on c as TCP urgent data (MSG_OOB).
func sendUrgent(t *testing.T, c net.Conn, b []byte) {
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var serr error
	rc.Write(func(fd uintptr) bool {
		serr = syscall.Sendto(int(fd), b, syscall.MSG_OOB, nil)
		return true
	})
	if serr != nil {
		t.Fatal(serr)
	}
}

// Defect 6: ABOR sent as RFC 959 asks (Telnet IP, then the Synch, urgent,
// then ABOR) was "500 Unknown command", and the session out of step. Now
// it aborts: 426 for the transfer, then 226.
func TestAbortWithSynch(t *testing.T) {
	_, addr, root := testServer(t, Goroutines)
	os.WriteFile(filepath.Join(root, "big.bin"), make([]byte, 64<<20), 0o644)
	for _, urgent := range []string{"\xff\xf4\xff", "ABOR\r\n"} { // BSD ftp; Python's ftplib.abort()
		r := rawDial(t, addr)
		r.login()
		d, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.epsv()))
		if err != nil {
			t.Fatal(err)
		}
		if code, _ := r.cmd("RETR big.bin"); code != 150 {
			t.Fatal("RETR")
		}
		d.Read(make([]byte, 4096))
		if urgent == "ABOR\r\n" {
			sendUrgent(t, r.c, []byte(urgent))
		} else {
			sendUrgent(t, r.c, []byte(urgent))
			fmt.Fprintf(r.c, "\xf2ABOR\r\n")
		}
		c1, t1 := r.read()
		c2, t2 := r.read()
		if c1 != 426 || c2 != 226 {
			t.Errorf("ABOR after %q urgent: %d %q then %d %q, want 426 then 226", urgent, c1, t1, c2, t2)
		}
		if code, _ := r.cmd("PWD"); code != 257 {
			t.Errorf("after ABOR the session is out of step: PWD %d", code)
		}
		d.Close()
		r.cmd("QUIT")
	}
}

// Defect 7: connections queued behind busy workers heard nothing. Now one
// that waits hears 120 within a second (RFC 959), and 220 when its session
// starts; a connection past a full queue hears 421 at once.
func TestQueuedConnectionsHear(t *testing.T) {
	for _, m := range []Model{Pool, Batch} {
		t.Run(m.String(), func(t *testing.T) {
			_, addr, _ := testServer(t, m, func(c *Config) { c.Workers, c.Queue = 1, 2 })
			first := rawDial(t, addr) // holds the one worker (batch: the batch)
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			t0 := time.Now()
			c.SetDeadline(t0.Add(5 * time.Second))
			q := &raw{t, c, bufio.NewReader(c)}
			code, text := q.read()
			if code != 120 || time.Since(t0) > time.Second {
				t.Fatalf("a queued connection: %d %q after %v, want 120 within 1 s", code, text, time.Since(t0))
			}
			first.cmd("QUIT")
			if code, text := q.read(); code != 220 {
				t.Errorf("once a worker is free: %d %q, want 220", code, text)
			}
			if m == Pool {
				// hold the worker again, fill the queue's 2 places; the next hears 421
				q.cmd("USER anonymous")
				for range 2 {
					w, err := net.Dial("tcp", addr)
					if err != nil {
						t.Fatal(err)
					}
					defer w.Close()
				}
				time.Sleep(100 * time.Millisecond)
				refused(t, addr, "a connection past a full queue")
			}
		})
	}
}

// threads is this process's count of OS threads.
func threads(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	t.Fatal("no Threads: line")
	return 0
}

// Defect 8: the processes model's parent kept an OS thread for every live
// session (a blocking wait4 each). Now its threads stay flat: 40 sessions
// held open add a handful at most.
func TestProcessesParentThreadsFlat(t *testing.T) {
	testrun.FullRunOnly(t, "the processes model's threads, with sessions in child processes")
	_, addr, _ := testServer(t, Processes)
	r := rawDial(t, addr) // the spawner's thread and the poller are up
	r.login()
	before := threads(t)
	var held []*raw
	for range 40 {
		r := rawDial(t, addr)
		r.login()
		held = append(held, r)
	}
	if after := threads(t); after-before > 8 {
		t.Errorf("40 live sessions took the parent from %d to %d threads", before, after)
	}
	for _, r := range held {
		r.cmd("QUIT")
	}
}

// A session process runs with GOMAXPROCS=1 whatever the server's
// environment says: one client needs one thread, and the runtime would
// otherwise start one per core (issue 43's tasks per session).
func TestSessionEnvOneProc(t *testing.T) {
	t.Setenv("GOMAXPROCS", "8")
	n := 0
	for _, e := range sessionEnv() {
		if strings.HasPrefix(e, "GOMAXPROCS=") {
			n++
			if e != "GOMAXPROCS=1" {
				t.Errorf("session env has %s", e)
			}
		}
	}
	if n != 1 {
		t.Errorf("GOMAXPROCS given %d times", n)
	}
}

// clientTLS is a client's TLS for the test server: its session cache, keyed
// by a server name, lets each data connection resume the control
// connection's session, as the server requires.
func clientTLS() *tls.Config {
	return &tls.Config{InsecureSkipVerify: true, ServerName: "127.0.0.1", ClientSessionCache: tls.NewLRUClientSessionCache(8)}
}
