package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"parlab/internal/testrun"
)

// parlab starts its query workers from parlab-worker, beside it, when make
// build stamped both with the same sources (internal/child.Exe), and the
// answer is the goroutines' one; a worker of other sources is not started:
// parlab starts itself. The FTP processes model's sessions run
// parlab-session-plain (built without TLS) the same way, or parlab-session
// where the server has TLS. Built here as make build builds them.
func TestWorkerBinary(t *testing.T) {
	testrun.FullRunOnly(t, "builds two binaries")
	dir := t.TempDir()
	// stamps as make build gives them: 8 bytes, the GNU build ID
	build := func(stamp, out, pkg string, env ...string) {
		t.Helper()
		args := []string{"build", "-o", out, pkg}
		if stamp != "" {
			args = []string{"build", "-ldflags", "-B 0x" + stamp, "-o", out, pkg}
		}
		cmd := exec.Command("go", args...)
		cmd.Env = append(os.Environ(), env...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	const s1, s2 = "5151515151515151", "5252525252525252"
	parlab, worker := filepath.Join(dir, "parlab"), filepath.Join(dir, "parlab-worker")
	build(s1, parlab, "parlab/cmd/parlab")
	build(s1, worker, "parlab/cmd/parlab-worker")
	query := func(strategy string) (child string, answer any) {
		t.Helper()
		out, err := exec.Command(parlab, "query", "--strategy", strategy, "--workers", "2", "--where", "Region=Europe",
			"--by", "Item Type", "--max", "Order Date", "--json", "testdata/sales").Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strategy, err, out)
		}
		var doc struct {
			Child  string `json:"child"`
			Groups any    `json:"groups"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Child, doc.Groups
	}
	want, _ := json.Marshal(func() any { _, a := query("goroutines"); return a }())
	child, got := query("processes")
	if gotJSON, _ := json.Marshal(got); child != worker || string(gotJSON) != string(want) {
		t.Errorf("processes: started from %q (want %q); %s, want %s", child, worker, gotJSON, want)
	}
	// the spawn lab times the worker against the smallest Go program
	build("", filepath.Join(dir, "parlab-nop"), "parlab/cmd/parlab-nop")
	out, err := exec.Command(parlab, "spawn", "--methods", "forkexec-worker,forkexec-go", "--modes", "serial", "--n", "3", "--rounds", "1", "--json").Output()
	var lab struct {
		Ratios  map[string]float64
		Skipped []string
	}
	if err != nil || json.Unmarshal(out, &lab) != nil || lab.Ratios["forkexec_worker_go_serial"] <= 0 || len(lab.Skipped) != 0 {
		t.Errorf("spawn, forkexec-worker against forkexec-go: %v, %s", err, out)
	}
	build(s2, worker, "parlab/cmd/parlab-worker") // a worker of other sources
	if child, _ := query("processes"); child != "/proc/self/exe" {
		t.Errorf("a stale worker was started: %q", child)
	}
	if out, err := exec.Command(worker).CombinedOutput(); err == nil || !strings.Contains(string(out), "parlab-worker: started by parlab query") {
		t.Errorf("parlab-worker run by hand: %v, %s", err, out)
	}

	// The FTP processes model's sessions run parlab-session-plain, built
	// without crypto/tls, where the server has no TLS: a session greets,
	// logs in and lists, and its process is that binary. A server with TLS
	// runs parlab-session, whose sessions can take AUTH TLS.
	session, plain := filepath.Join(dir, "parlab-session"), filepath.Join(dir, "parlab-session-plain")
	build(s1, session, "parlab/cmd/parlab-session", "CGO_ENABLED=0") // static, as make build's: see below
	build(s1, plain, "parlab/cmd/parlab-session-plain", "CGO_ENABLED=0", "GOFLAGS=-tags=notls")
	// the spawn lab times both against the smallest Go program
	out, err = exec.Command(parlab, "spawn", "--methods", "forkexec-session,forkexec-session-plain,forkexec-go", "--modes", "serial", "--n", "3", "--rounds", "1", "--json").Output()
	lab.Ratios, lab.Skipped = nil, nil
	if err != nil || json.Unmarshal(out, &lab) != nil || lab.Ratios["forkexec_session_go_serial"] <= 0 || lab.Ratios["forkexec_session_plain_go_serial"] <= 0 || len(lab.Skipped) != 0 {
		t.Errorf("spawn, forkexec-session and -plain against forkexec-go: %v, %s", err, out)
	}
	root := t.TempDir()
	file := strings.Repeat("parlab\n", 300000)
	if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	tlsServer(t, parlab, root, session)
	c, r, srvPid := serveOne(t, parlab, "--model", "processes", "--anonymous", "--root", root, "--listen", "127.0.0.1:0")
	addr := c.RemoteAddr().String()
	exes, pids := sessionProcs(srvPid)
	if len(exes) != 1 || exes[0] != plain {
		t.Fatalf("the session's process runs %q, want %q", exes, plain)
	}
	reply := func(cmd, want string) string {
		t.Helper()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if cmd != "" {
			fmt.Fprintf(c, "%s\r\n", cmd)
		}
		l, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(l, want) {
			t.Fatalf("%s: reply %q, %v; want %s", cmd, l, err, want)
		}
		return l
	}
	reply("USER anonymous", "331")
	reply("PASS x", "230")
	reply("TYPE I", "200")
	// Issue 43: a session process holds at most four threads (tasks), after
	// a transfer too; five when its shutdown came as a signal (os/signal
	// keeps a thread). A cgo build would add the runtime's template thread:
	// make build's binaries are static, as this session's.
	for range 2 {
		var port int
		if _, err := fmt.Sscanf(reply("EPSV", "229")[4:], "Entering Extended Passive Mode (|||%d|)", &port); err != nil {
			t.Fatal(err)
		}
		d, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		reply("RETR f.txt", "150")
		got, _ := io.ReadAll(d)
		d.Close()
		reply("", "226")
		if string(got) != file {
			t.Fatalf("RETR: %d bytes, want %d", len(got), len(file))
		}
	}
	if b, err := os.ReadFile("/proc/" + pids[0] + "/status"); err != nil {
		t.Error(err)
	} else if m := regexp.MustCompile(`Threads:\s+(\d+)`).FindSubmatch(b); m == nil || len(m[1]) != 1 || m[1][0] > '4' {
		t.Errorf("a session process holds more than 4 threads: %q", b)
	} else {
		t.Logf("a session process holds %s threads", m[1])
	}
	reply("QUIT", "221")
	// the load generator's client processes run parlab-session too: they
	// work only if it has their mode
	b, err := exec.Command(parlab, "ftp", "load", "--addr", addr, "--users", "3", "--delay", "1ms", "--script", "PWD",
		"--clients", "processes", "--json", "-").Output()
	var lr struct{ Outcomes map[string]int }
	if err != nil || json.Unmarshal(b, &lr) != nil || lr.Outcomes["ok"] != 3 {
		t.Errorf("ftp load --clients processes: %v, %s", err, b)
	}
}

// serveOne starts parlab ftp serve with args (ending in --listen
// 127.0.0.1:0), stopped when t ends, and opens a session to it: the
// connection, its reader past the greeting, and the server's pid.
func serveOne(t *testing.T, parlab string, args ...string) (net.Conn, *bufio.Reader, int) {
	t.Helper()
	srv := exec.Command(parlab, append([]string{"ftp", "serve"}, args...)...)
	sout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() })
	line, err := bufio.NewReader(sout).ReadString('\n')
	m := regexp.MustCompile(`on (127\.0\.0\.1:\d+)`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("ftp serve: %q, %v", line, err)
	}
	c, err := net.DialTimeout("tcp", m[1], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	if greet, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(greet, "220") {
		t.Fatalf("greeting %q, %v", greet, err)
	}
	return c, r, srv.Process.Pid
}

// sessionProcs lists the binaries and pids of server pid's children (a
// child is listed under the thread that forked it: a spawner's).
func sessionProcs(pid int) (exes, pids []string) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, tf := range tasks {
		b, _ := os.ReadFile(tf)
		for _, f := range strings.Fields(string(b)) {
			if p, err := os.Readlink("/proc/" + f + "/exe"); err == nil {
				exes, pids = append(exes, p), append(pids, f)
			}
		}
	}
	return exes, pids
}

// tlsServer runs a processes-model server with TLS (a self-signed
// certificate) over root, checks that its session process is session (not
// the plain one, which has no TLS) and that AUTH TLS's handshake
// succeeds.
func tlsServer(t *testing.T, parlab, root, session string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600)
	c, r, pid := serveOne(t, parlab, "--model", "processes", "--anonymous", "--root", root, "--tls-cert", cert, "--tls-key", keyFile, "--listen", "127.0.0.1:0")
	if exes, _ := sessionProcs(pid); len(exes) != 1 || exes[0] != session {
		t.Fatalf("a TLS server's session process runs %q, want %q", exes, session)
	}
	fmt.Fprintf(c, "AUTH TLS\r\n")
	if l, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(l, "234") {
		t.Fatalf("AUTH TLS: %q, %v", l, err)
	}
	tc := tls.Client(c, &tls.Config{InsecureSkipVerify: true})
	if err := tc.Handshake(); err != nil {
		t.Fatalf("AUTH TLS's handshake: %v", err)
	}
}
