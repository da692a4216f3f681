package ftp

// Regression tests for the defects of the second outside probe
// (2026-12-07, issue "FTP 2"), each failing on the code before its fix:
// D1, D3, D9, D14 and D15 (uploads), D4, D5 and D17 (TLS), D7 (shutdown).

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jlaffaye/ftp"
	"golang.org/x/crypto/bcrypt"

	"parlab/internal/testrun"
)

// hidden lists the names under root that start with tempPrefix: none may
// be left, whatever happened to an upload.
func hidden(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tempPrefix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// closedPort is a loopback port that nothing listens on.
func closedPort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// D1: STOR or APPE after a PORT to a closed port made the temporary file
// before the data connection, answered 425, and never removed it (500
// tries, 500 hidden files; after REST 99999999999, each a copy of the
// target). Now nothing is made until the data connection is open.
func TestUploadWithoutDataLeavesNothing(t *testing.T) {
	for _, m := range modelsFor(t) {
		t.Run(m.String(), func(t *testing.T) {
			_, addr, root := testServer(t, m)
			r := rawDial(t, addr)
			r.login()
			port := closedPort(t)
			for i := range 20 {
				r.cmd(fmt.Sprintf("PORT 127,0,0,1,%d,%d", port>>8, port&255))
				verb := []string{"STOR", "APPE"}[i%2]
				if code, _ := r.cmd(verb + " hello.txt"); code != 150 {
					t.Fatalf("%s: %d, want 150", verb, code)
				}
				if code, text := r.read(); code != 425 {
					t.Fatalf("%s to a closed port: %d %s", verb, code, text)
				}
			}
			if code, _ := r.cmd("REST 99999999999"); code != 350 {
				t.Fatal("REST")
			}
			if code, _ := r.cmd("STOR hello.txt"); code != 554 { // past the file's end: refused before 150
				t.Errorf("STOR after REST past the end: %d, want 554", code)
			}
			if h := hidden(t, root); len(h) > 0 {
				t.Errorf("left behind: %q", h)
			}
			if b, _ := os.ReadFile(filepath.Join(root, "hello.txt")); string(b) != "hello\nworld\n" {
				t.Errorf("the target changed: %q", b)
			}
		})
	}
}

// store sends an upload of body on a passive data connection and returns
// the replies (150's and the transfer's, or the one refusal).
func (r *raw) store(cmd string, body []byte) (codes []int, last string) {
	r.t.Helper()
	port := r.epsv()
	data, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		r.t.Fatal(err)
	}
	defer data.Close()
	code, text := r.cmd(cmd)
	codes = append(codes, code)
	if code != 150 {
		return codes, text
	}
	data.Write(body)
	data.Close()
	code, text = r.read()
	return append(codes, code), text
}

// D14, D15 and the reserved names: STOR onto a directory is refused
// before 150 (it took the whole upload first); a name of 230 bytes is
// stored (its temporary name, which held it, passed NAME_MAX); REST n then
// STOR writes at n (it wrote at the old end, or at 0, and said 226) or,
// past the end, is refused; a temporary upload's name is no user's.
func TestStoreRefusalsAndRest(t *testing.T) {
	_, addr, root := testServer(t, Goroutines)
	r := rawDial(t, addr)
	r.login()
	if codes, _ := r.store("STOR sub", []byte("x")); codes[0] != 550 {
		t.Errorf("STOR onto a directory: %v, want 550 first", codes)
	}
	long := strings.Repeat("n", 230)
	if codes, text := r.store("STOR "+long, []byte("long name")); len(codes) != 2 || codes[1] != 226 {
		t.Errorf("STOR of a 230-byte name: %v %s", codes, text)
	} else if b, _ := os.ReadFile(filepath.Join(root, long)); string(b) != "long name" {
		t.Errorf("the 230-byte name holds %q", b)
	}
	r.cmd("REST 6")
	if codes, text := r.store("STOR hello.txt", []byte("there\n")); len(codes) != 2 || codes[1] != 226 {
		t.Errorf("REST 6, STOR: %v %s", codes, text)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "hello.txt")); string(b) != "hello\nthere\n" {
		t.Errorf("REST 6, STOR: the file holds %q", b)
	}
	r.cmd("REST 3")
	if codes, _ := r.store("STOR missing.txt", []byte("x")); codes[0] != 554 {
		t.Errorf("REST, STOR of a missing file: %v, want 554", codes)
	}
	for _, cmd := range []string{"STOR " + tempPrefix + "x", "RETR sub/" + tempPrefix + "y", "MKD " + tempPrefix + "d", "DELE " + tempPrefix + "z"} {
		if code, _ := r.cmd(cmd); code != 553 {
			t.Errorf("%s: %d, want 553", cmd, code)
		}
	}
	if h := hidden(t, root); len(h) > 0 {
		t.Errorf("left behind: %q", h)
	}
}

// tmpfsRoot is a file system of size bytes, for a full disk (root only,
// where mounts are allowed: else the test is skipped).
func tmpfsRoot(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("no tmpfs for a full disk here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// D3 and D14: a full disk answers 552 (it said "the data connection
// broke"), STOR leaves nothing, and APPE appends all or nothing (it
// appended part, so a retry duplicated).
func TestFullDisk(t *testing.T) {
	disk := tmpfsRoot(t, "1m")
	os.WriteFile(filepath.Join(disk, "log.txt"), []byte("0123456789"), 0o644)
	for _, m := range modelsFor(t) {
		t.Run(m.String(), func(t *testing.T) {
			_, addr, _ := testServer(t, m, func(c *Config) { c.Root = disk })
			r := rawDial(t, addr)
			r.login()
			r.cmd("TYPE I")
			big := make([]byte, 2<<20)
			for _, c := range []string{"STOR big.bin", "APPE log.txt", "APPE new.txt"} {
				if codes, text := r.store(c, big); len(codes) != 2 || codes[1] != 552 {
					t.Errorf("%s on a full disk: %v %s, want 150, 552", c, codes, text)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(disk, "log.txt")); string(b) != "0123456789" {
				t.Errorf("APPE on a full disk left %d bytes, want the 10 before", len(b))
			}
			for _, name := range []string{"big.bin", "new.txt"} {
				if _, err := os.Stat(filepath.Join(disk, name)); err == nil {
					t.Errorf("%s stored on a full disk", name)
				}
			}
			if h := hidden(t, disk); len(h) > 0 {
				t.Errorf("left behind: %q", h)
			}
		})
	}
}

// D9: the directory of a STOR renamed during the upload: the upload lands
// in it (its descriptor was held), and nothing hidden is left (the
// temporary file stayed in the moved directory for ever).
func TestStoreIntoRenamedDir(t *testing.T) {
	_, addr, root := testServer(t, Goroutines)
	os.Mkdir(filepath.Join(root, "in"), 0o755)
	r := rawDial(t, addr)
	r.login()
	data, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.epsv()))
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := r.cmd("STOR in/up.txt"); code != 150 {
		t.Fatal("STOR")
	}
	data.Write([]byte("first half, "))
	time.Sleep(50 * time.Millisecond)
	if err := os.Rename(filepath.Join(root, "in"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	data.Write([]byte("second half"))
	data.Close()
	if code, text := r.read(); code != 226 {
		t.Errorf("STOR into a renamed directory: %d %s", code, text)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "moved", "up.txt")); string(b) != "first half, second half" {
		t.Errorf("the upload: %q", b)
	}
	if h := hidden(t, root); len(h) > 0 {
		t.Errorf("left behind: %q", h)
	}
}

// D4 and D17: with TLS configured, a login other than anonymous in the
// clear is refused (530), and its data in the clear (521), as vsftpd's
// defaults do; AUTH TLS after USER is refused (it kept the login made in
// the clear). Anonymous logins may stay clear.
func TestTLSRequired(t *testing.T) {
	tc := testCert(t)
	for _, m := range modelsFor(t) {
		t.Run(m.String(), func(t *testing.T) {
			_, addr, _ := testServer(t, m, withTLS(tc))
			r := rawDial(t, addr)
			if code, _ := r.cmd("USER alice"); code != 530 {
				t.Errorf("USER alice in the clear: %d, want 530", code)
			}
			if code, _ := r.cmd("USER anonymous"); code != 331 {
				t.Errorf("USER anonymous in the clear: %d, want 331", code)
			}
			if code, _ := r.cmd("AUTH TLS"); code != 503 {
				t.Errorf("AUTH TLS after USER: %d, want 503", code)
			}
			r.cmd("QUIT") // (batch: the next batch waits for this one)
			c, err := ftp.Dial(addr, ftp.DialWithTimeout(10*time.Second), ftp.DialWithExplicitTLS(clientTLS()))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Quit()
			if err := c.Login("alice", "secret"); err != nil {
				t.Fatal(err)
			}
			if rd, err := c.Retr("hello.txt"); err != nil {
				t.Errorf("RETR with PROT P: %v", err)
			} else {
				io.ReadAll(rd)
				rd.Close()
			}
		})
	}
	// the data in the clear after a TLS login: 521
	_, addr, _ := testServer(t, Goroutines, withTLS(tc))
	r := tlsLogin(t, addr, "C")
	r.epsv()
	if code, _ := r.cmd("LIST"); code != 521 {
		t.Errorf("LIST with PROT C after a TLS login: %d, want 521", code)
	}
	r.cmd("QUIT")
}

// D5: a PROT P data connection that does not resume its control
// connection's TLS session is refused (522): else another process that
// reaches the passive port first and handshakes gets the file. With
// AllowNoReuse it is taken.
func TestTLSReuseRequired(t *testing.T) {
	tc := testCert(t)
	for _, allow := range []bool{false, true} {
		_, addr, _ := testServer(t, Goroutines, withTLS(tc), func(c *Config) { c.AllowNoReuse = allow })
		r := tlsLogin(t, addr, "P")
		r.cmd("TYPE I")
		port := r.epsv()
		stranger := make(chan []byte, 1)
		go func() { // a stranger's handshake: no session to resume
			d, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				stranger <- nil
				return
			}
			td := tls.Client(d, &tls.Config{InsecureSkipVerify: true})
			td.SetDeadline(time.Now().Add(5 * time.Second))
			b, _ := io.ReadAll(td)
			stranger <- b
		}()
		code, _ := r.cmd("RETR hello.txt")
		if code == 150 {
			code, _ = r.read()
		}
		got := <-stranger
		switch {
		case !allow && (code != 522 || len(got) > 0):
			t.Errorf("a data connection without reuse: %d, the stranger got %q; want 522 and nothing", code, got)
		case allow && (code != 226 || string(got) != "hello\nworld\n"):
			t.Errorf("AllowNoReuse: %d, %q", code, got)
		}
		r.c.Close()
	}
}

// D7: a shutdown ends within its grace and a second, in every model,
// while a session waits for its passive data connection (it took 29.5 s
// with a grace of 1 s: the accept waited for DataTimeout).
func TestShutdownWhileWaitingForData(t *testing.T) {
	for _, m := range modelsFor(t) {
		t.Run(m.String(), func(t *testing.T) {
			srv, addr, _ := testServer(t, m, func(c *Config) { c.DataTimeout = 30 * time.Second })
			r := rawDial(t, addr)
			r.login()
			r.epsv()
			if code, _ := r.cmd("RETR hello.txt"); code != 150 { // and no data connection comes
				t.Fatal("RETR")
			}
			t0 := time.Now()
			srv.Shutdown(200 * time.Millisecond)
			if d := time.Since(t0); d > 1500*time.Millisecond {
				t.Errorf("Shutdown took %v with a grace of 200ms", d)
			}
		})
	}
}

// D2: a binary RETR's deadline moves with the data: a client that reads
// steadily, slower than one sendfile piece a DataTimeout took before (8
// MiB), gets the whole file (it got 426 "stalled" at 9.68 MB).
func TestSlowDownloadNotStalled(t *testing.T) {
	_, addr, root := testServer(t, Goroutines, func(c *Config) { c.DataTimeout = 400 * time.Millisecond })
	body := make([]byte, 3<<20)
	for i := range body {
		body[i] = byte(i * 7)
	}
	os.WriteFile(filepath.Join(root, "big.bin"), body, 0o644)
	r := rawDial(t, addr)
	r.login()
	r.cmd("TYPE I")
	port := r.epsv()
	d := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error { // a small window: the server waits on us
		c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 32<<10) })
		return nil
	}}
	data, err := d.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	if code, _ := r.cmd("RETR big.bin"); code != 150 {
		t.Fatal("RETR")
	}
	var got []byte
	buf := make([]byte, 64<<10)
	start := time.Now()
	for {
		n, err := data.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
		time.Sleep(10 * time.Millisecond) // a few MB/s: the file takes several DataTimeouts
	}
	if code, text := r.read(); code != 226 || len(got) != len(body) {
		t.Errorf("a steady slow download: %d %s, %d of %d bytes in %v", code, text, len(got), len(body), time.Since(start))
	}
}

// D10 and D12: the descriptor an acceptor keeps for answering 421 when
// out of descriptors is taken back once one is free (lost, clients at the
// limit heard nothing), and the accept errors accept(2) says to retry do
// not end the server.
func TestAcceptorSpareAndRetries(t *testing.T) {
	srv, err := New(Config{Root: t.TempDir(), Anonymous: true})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a := srv.newAcceptor(ln)
	defer a.close()
	a.spare.Close()
	a.spare = nil // as a failed reopen left it
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if s, err := a.next(); err != nil || a.spare == nil {
		t.Errorf("next: %v, spare %v", err, a.spare)
	} else {
		s.Close()
	}
	for _, e := range []syscall.Errno{syscall.ENETDOWN, syscall.ENETUNREACH, syscall.EHOSTUNREACH, syscall.EHOSTDOWN,
		syscall.ENONET, syscall.ENOPROTOOPT, syscall.EOPNOTSUPP} {
		if !retryable(&net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", e)}) {
			t.Errorf("%v ends the server", e)
		}
	}
}

// D16 and D13: a session process reads the one login it needs from its
// parent's users, written out once (it got the whole table in its
// configuration: 20,001 users, 44 ms a greeting); SetUsers replaces the
// logins for the next PASS, in every model.
func TestUsersTable(t *testing.T) {
	hash := func(pw string) []byte {
		h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	many := map[string][]byte{}
	filler := hash("filler")
	for i := range 20000 {
		many[fmt.Sprintf("user%05d", i)] = filler
	}
	many["last"] = hash("secret")
	for _, m := range modelsFor(t) {
		t.Run(m.String(), func(t *testing.T) {
			srv, addr, _ := testServer(t, m, func(c *Config) { c.Users = many })
			login := func(user, pw string) int {
				r := rawDial(t, addr)
				defer r.cmd("QUIT")
				r.cmd("USER " + user)
				code, _ := r.cmd("PASS " + pw)
				return code
			}
			if code := login("last", "secret"); code != 230 {
				t.Errorf("a login of 20,001 users: %d", code)
			}
			if code := login("user00007", "secret"); code != 530 {
				t.Errorf("a wrong password: %d", code)
			}
			if err := srv.SetUsers(map[string][]byte{"bob": hash("new")}); err != nil {
				t.Fatal(err)
			}
			if login("bob", "new") != 230 || login("last", "secret") != 530 {
				t.Errorf("after SetUsers: the new login refused or the old one taken")
			}
			if err := srv.SetUsers(map[string][]byte{"a:b": filler}); err == nil {
				t.Errorf("a name with ':' taken")
			}
		})
	}
}

// D11: session processes' log lines, long ones (many commands) written at
// once by many sessions, reach a log that is a pipe whole, one JSON object
// a line (24 of 41 were corrupt: each child wrote past PIPE_BUF).
func TestProcessesLogLinesWhole(t *testing.T) {
	testrun.FullRunOnly(t, "session processes")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	lines := make(chan []string, 1)
	go func() {
		var got []string
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		lines <- got
	}()
	srv, addr, _ := testServer(t, Processes, func(c *Config) { c.Log = pw })
	const sessions = 30
	var wg sync.WaitGroup
	for range sessions {
		wg.Go(func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			defer c.Close()
			var b strings.Builder
			for range 400 {
				b.WriteString("NOOP\r\n")
			}
			b.WriteString("QUIT\r\n")
			c.Write([]byte(b.String()))
			io.Copy(io.Discard, c)
		})
	}
	wg.Wait()
	srv.Shutdown(2 * time.Second)
	pw.Close()
	got := <-lines
	if len(got) != sessions {
		t.Errorf("%d log lines for %d sessions", len(got), sessions)
	}
	for _, l := range got {
		var v struct{ Commands int }
		if err := json.Unmarshal([]byte(l), &v); err != nil || v.Commands != 401 {
			t.Errorf("a log line: %v, %.80q", err, l)
		}
	}
}

// D6: the session binary replaced under a running processes server (a
// rebuild: a new file renamed over it) changes nothing: new sessions are
// greeted (every one closed unanswered: each child was the new binary,
// or half of it).
func TestSessionBinaryReplaced(t *testing.T) {
	testrun.FullRunOnly(t, "session processes")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "session")
	copyFile := func(dst string) {
		b, err := os.ReadFile(self)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(exe)
	_, addr, _ := testServer(t, Processes, func(c *Config) { c.Exe = exe })
	rawDial(t, addr).cmd("QUIT")
	os.WriteFile(exe+".new", []byte("#!/bin/sh\nexit 3\n"), 0o755) // what a half-done build might leave
	os.Rename(exe+".new", exe)
	for range 3 {
		r := rawDial(t, addr) // greeted, or Fatal
		if code, _ := r.cmd("USER anonymous"); code != 331 {
			t.Errorf("USER after the binary was replaced: %d", code)
		}
		r.cmd("QUIT")
	}
}

// D9: a server killed between an upload's link and its rename (or on a
// file system without O_TMPFILE, mid-upload) leaves a temporary file: the
// next server removes every one under its root at its start, and nothing
// else.
func TestReapAtStart(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	for _, p := range []string{tempPrefix + "1", "a/" + tempPrefix + "2", "a/b/" + tempPrefix + "3", "a/keep.txt"} {
		os.WriteFile(filepath.Join(root, p), []byte("x"), 0o644)
	}
	if _, err := New(Config{Root: root, Anonymous: true}); err != nil {
		t.Fatal(err)
	}
	if h := hidden(t, root); len(h) > 0 {
		t.Errorf("left after a start: %q", h)
	}
	if _, err := os.Stat(filepath.Join(root, "a", "keep.txt")); err != nil {
		t.Errorf("another file went: %v", err)
	}
}

// tlsLogin is a raw session over TLS (AUTH TLS, the handshake, alice's
// login, PBSZ 0 and PROT prot).
func tlsLogin(t *testing.T, addr, prot string) *raw {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	r := &raw{t, conn, bufio.NewReader(conn)}
	r.read()
	r.cmd("AUTH TLS")
	tconn := tls.Client(conn, clientTLS())
	r.c, r.r = tconn, bufio.NewReader(tconn)
	r.login()
	r.cmd("PBSZ 0")
	r.cmd("PROT " + prot)
	return r
}
