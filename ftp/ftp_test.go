package ftp

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jlaffaye/ftp"
	"golang.org/x/crypto/bcrypt"

	"parlab/internal/child"
	"parlab/internal/testrun"
)

var models = []Model{Single, Goroutines, Batch, Pool, Processes}

// modelsFor lists the models a test runs: all of them, or under -short
// (make test's race run) all but processes, whose sessions there are
// race-built child processes, a second each to start, and out of the
// detector's sight. TestClientEveryModel runs processes in both runs, for
// the parent's own goroutines.
func modelsFor(t *testing.T) []Model {
	if testing.Short() {
		t.Log("-short (the race run): the processes model in TestClientEveryModel only")
		return slices.DeleteFunc(slices.Clone(models), func(m Model) bool { return m == Processes })
	}
	return models
}

// The processes model starts this test binary as its session processes.
func TestMain(m *testing.M) {
	if code, ok := child.Run(os.Args); ok {
		os.Exit(code)
	}
	testrun.LessGC()
	os.Exit(m.Run())
}

// testServer serves a fresh root on 127.0.0.1:0 with a user "alice"
// (password "secret") and anonymous logins, and stops when the test ends.
func testServer(t *testing.T, m Model, tweak ...func(*Config)) (*Server, string, string) {
	return benchServer(t, m, tweak...)
}

// benchServer is testServer for tests and benchmarks alike.
func benchServer(t testing.TB, m Model, tweak ...func(*Config)) (*Server, string, string) {
	t.Helper()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello\nworld\n"), 0o644)
	os.Mkdir(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "sub", "deep.bin"), bytes.Repeat([]byte{0, 1, 2, 255}, 300000), 0o644)
	// bcrypt's least cost: a login checks in well under a millisecond, not
	// the 75 ms of PasswdLine's default cost (TestPasswd covers that)
	hash, err := bcrypt.GenerateFromPassword([]byte("secret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Root: root, Model: m, Workers: 4, Users: map[string][]byte{"alice": hash}, Anonymous: true,
		LoginDelay: 10 * time.Millisecond, DataTimeout: 10 * time.Second}
	for _, f := range tweak {
		f(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0", 64)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Shutdown(2 * time.Second)
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return srv, ln.Addr().String(), root
}

func dial(t *testing.T, addr string) *ftp.ServerConn {
	t.Helper()
	c, err := ftp.Dial(addr, ftp.DialWithTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func sum(b []byte) string { h := sha256.Sum256(b); return fmt.Sprintf("%x", h) }

// A real client (github.com/jlaffaye/ftp) through every command it has, in
// every model.
func TestClientEveryModel(t *testing.T) {
	for _, m := range models {
		t.Run(m.String(), func(t *testing.T) {
			_, addr, root := testServer(t, m)
			c := dial(t, addr)
			defer c.Quit()
			if err := c.Login("alice", "secret"); err != nil {
				t.Fatal(err)
			}
			ents, err := c.List("/")
			if err != nil || len(ents) != 2 || ents[0].Name != "hello.txt" || ents[0].Size != 12 || ents[1].Type != ftp.EntryTypeFolder {
				t.Fatalf("LIST: %+v, %v", ents, err)
			}
			names, err := c.NameList("/")
			if err != nil || strings.Join(names, ",") != "hello.txt,sub" {
				t.Errorf("NLST: %v, %v", names, err)
			}
			// RETR whole and from an offset, binary
			r, err := c.Retr("sub/deep.bin")
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(r)
			r.Close()
			want, _ := os.ReadFile(filepath.Join(root, "sub", "deep.bin"))
			if sum(got) != sum(want) {
				t.Errorf("RETR: %d bytes, want %d", len(got), len(want))
			}
			r, err = c.RetrFrom("hello.txt", 6)
			if err != nil {
				t.Fatal(err)
			}
			got, _ = io.ReadAll(r)
			r.Close()
			if string(got) != "world\n" {
				t.Errorf("REST+RETR: %q", got)
			}
			// STOR, APPE, SIZE, MDTM
			if err := c.Stor("up.txt", strings.NewReader("one\n")); err != nil {
				t.Fatal(err)
			}
			if err := c.Append("up.txt", strings.NewReader("two\n")); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(root, "up.txt")); string(b) != "one\ntwo\n" {
				t.Errorf("STOR+APPE: %q", b)
			}
			if n, err := c.FileSize("up.txt"); err != nil || n != 8 {
				t.Errorf("SIZE: %d, %v", n, err)
			}
			if mt, err := c.GetTime("up.txt"); err != nil || time.Since(mt) > time.Minute {
				t.Errorf("MDTM: %v, %v", mt, err)
			}
			// MKD, CWD, PWD, RNFR/RNTO, DELE, RMD
			if err := c.MakeDir("new"); err != nil {
				t.Fatal(err)
			}
			if err := c.ChangeDir("new"); err != nil {
				t.Fatal(err)
			}
			if d, err := c.CurrentDir(); err != nil || d != "/new" {
				t.Errorf("PWD %q, %v", d, err)
			}
			if err := c.Rename("/up.txt", "moved.txt"); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(root, "new", "moved.txt")); err != nil {
				t.Errorf("RNTO: %v", err)
			}
			if err := c.Delete("moved.txt"); err != nil {
				t.Fatal(err)
			}
			if err := c.ChangeDirToParent(); err != nil {
				t.Fatal(err)
			}
			if err := c.RemoveDir("new"); err != nil {
				t.Fatal(err)
			}
			// MLSD through the library's own listing of a directory, then
			// what is left: nothing of the session's temporary files
			ents, err = c.List("/")
			if err != nil || len(ents) != 2 {
				t.Errorf("after: %+v, %v", ents, err)
			}
			left, _ := os.ReadDir(root)
			for _, e := range left {
				if strings.HasPrefix(e.Name(), ".parlab-upload-") {
					t.Errorf("a temporary upload file is left: %s", e.Name())
				}
			}
		})
	}
}

// raw is a bare control connection, for what a library hides.
type raw struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func rawDial(t *testing.T, addr string) *raw {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	r := &raw{t, c, bufio.NewReader(c)}
	if code, _ := r.read(); code != 220 {
		t.Fatalf("greeting %d", code)
	}
	return r
}

// read reads one reply, multi-line or not, and returns its code and text.
func (r *raw) read() (int, string) {
	r.t.Helper()
	var text []string
	for {
		line, err := r.r.ReadString('\n')
		if err != nil {
			return 0, strings.Join(append(text, "EOF: "+err.Error()), "\n")
		}
		line = strings.TrimRight(line, "\r\n")
		text = append(text, line)
		var code int
		if len(line) >= 4 && line[3] == ' ' {
			if _, err := fmt.Sscanf(line[:3], "%d", &code); err == nil {
				return code, strings.Join(text, "\n")
			}
		}
		if len(text) == 1 && (len(line) < 4 || line[3] != '-') {
			return 0, line
		}
	}
}

func (r *raw) cmd(line string) (int, string) {
	r.t.Helper()
	fmt.Fprintf(r.c, "%s\r\n", line)
	return r.read()
}

// epsv sends EPSV and returns the passive port.
func (r *raw) epsv() int {
	r.t.Helper()
	_, text := r.cmd("EPSV")
	return epsvPort(text)
}

// epsvPort is the port of a 229 reply, 0 if it has none.
func epsvPort(reply string) int {
	var port int
	if k := strings.Index(reply, "|||"); k >= 0 {
		fmt.Sscanf(reply[k+3:], "%d", &port)
	}
	return port
}

func (r *raw) login() {
	r.t.Helper()
	r.cmd("USER alice")
	if code, text := r.cmd("PASS secret"); code != 230 {
		r.t.Fatalf("login: %d %s", code, text)
	}
}

// The protocol's answers, one by one, where clients do not look.
func TestReplies(t *testing.T) {
	_, addr, _ := testServer(t, Goroutines)
	r := rawDial(t, addr)
	for _, c := range []struct {
		line string
		code int
	}{
		{"LIST", 530}, {"PWD", 530}, {"FEAT", 211}, {"HELP", 214}, {"AUTH TLS", 502}, {"FROB", 500}, {"SITE CHMOD 777 x", 502},
	} {
		if code, text := r.cmd(c.line); code != c.code {
			t.Errorf("%s before login: %d %s, want %d", c.line, code, text, c.code)
		}
	}
	r.login()
	for _, c := range []struct {
		line string
		code int
		has  string
	}{
		{"PWD", 257, `"/"`}, {"SYST", 215, "UNIX"}, {"TYPE A", 200, ""}, {"TYPE I", 200, ""}, {"TYPE E", 504, ""},
		{"MODE S", 200, ""}, {"MODE B", 504, ""}, {"STRU F", 200, ""}, {"STRU R", 504, ""}, {"OPTS UTF8 ON", 200, ""},
		{"NOOP", 200, ""}, {"CWD /sub", 250, ""}, {"CWD ../../../..", 250, ""}, {"PWD", 257, `"/"`},
		{"CWD /nope", 550, ""}, {"SIZE hello.txt", 213, "12"}, {"SIZE sub", 550, ""}, {"MDTM hello.txt", 213, ""},
		{"MLST hello.txt", 250, "type=file;size=12;"}, {"REST 5", 350, ""}, {"REST x", 501, ""}, {"ABOR", 225, ""},
		{"RNTO x", 503, ""}, {"STAT", 211, "model goroutines"}, {"STAT /", 213, "hello.txt"},
		{"PORT 10,0,0,1,200,1", 504, ""}, {"PORT 127,0,0,1,0,21", 504, ""}, {"EPRT |1|192.0.2.1|5000|", 504, ""},
		{"EPRT |1|127.0.0.1|5000|", 200, ""}, {"EPSV", 229, "|||"}, {"PASV", 227, "127,0,0,1"},
		{"RETR /../../etc/passwd", 550, "/etc/passwd"}, {"EPSV ALL", 200, ""}, {"PASV", 501, ""},
	} {
		code, text := r.cmd(c.line)
		if code != c.code || !strings.Contains(text, c.has) {
			t.Errorf("%s: %d %q, want %d with %q", c.line, code, text, c.code, c.has)
		}
	}
	if code, _ := r.cmd("QUIT"); code != 221 {
		t.Errorf("QUIT: %d", code)
	}
}

// A users file: PasswdLine's lines read back and check with bcrypt; bad
// lines are errors naming the line.
func TestPasswd(t *testing.T) {
	testrun.FullRunOnly(t, "bcrypt at its default cost, in one goroutine")
	line, err := PasswdLine("bob", "pw")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "users")
	os.WriteFile(p, []byte("# users\n\n"+line+"\n"), 0o600)
	users, err := ReadUsers(p)
	if err != nil || bcrypt.CompareHashAndPassword(users["bob"], []byte("pw")) != nil {
		t.Fatalf("%v %v", users, err)
	}
	os.WriteFile(p, []byte("bob:plaintext\n"), 0o600)
	if _, err := ReadUsers(p); err == nil || !strings.Contains(err.Error(), ":1:") {
		t.Errorf("a plain-text password: %v", err)
	}
	if _, err := PasswdLine("a:b", "x"); err == nil {
		t.Error("a name with ':'")
	}
}

// TYPE A converts line ends: a file's LF goes out as CR LF, and an upload's
// CR LF is stored as LF; TYPE I leaves bytes alone.
func TestTypeA(t *testing.T) {
	_, addr, root := testServer(t, Goroutines)
	c := dial(t, addr)
	defer c.Quit()
	if err := c.Login("alice", "secret"); err != nil {
		t.Fatal(err)
	}
	if err := c.Type(ftp.TransferTypeASCII); err != nil {
		t.Fatal(err)
	}
	r, err := c.Retr("hello.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	r.Close()
	if string(got) != "hello\r\nworld\r\n" {
		t.Errorf("RETR in TYPE A: %q", got)
	}
	if err := c.Stor("a.txt", strings.NewReader("one\r\ntwo\r\nlone\rcr\r")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "one\ntwo\nlone\rcr\r" {
		t.Errorf("STOR in TYPE A: %q", b)
	}
	if err := c.Type(ftp.TransferTypeBinary); err != nil {
		t.Fatal(err)
	}
	r, err = c.Retr("hello.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(r)
	r.Close()
	if string(got) != "hello\nworld\n" {
		t.Errorf("RETR in TYPE I: %q", got)
	}
}
