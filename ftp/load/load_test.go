package load

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parlab/ftp"
	"parlab/internal/child"
	"parlab/internal/testrun"
)

func TestMain(m *testing.M) {
	if code, ok := child.Run(os.Args); ok {
		os.Exit(code)
	}
	testrun.LessGC()
	os.Exit(m.Run())
}

// server serves a root with a file on loopback for the test's life.
func server(t *testing.T, m ftp.Model, backlog int, tweak func(*ftp.Config)) (string, []byte) {
	t.Helper()
	root := t.TempDir()
	body := []byte(strings.Repeat("0123456789abcdef", 1<<14)) // 256 KiB
	os.WriteFile(filepath.Join(root, "img.bin"), body, 0o644)
	cfg := ftp.Config{Root: root, Model: m, Anonymous: true, Workers: 4, DataTimeout: 5 * time.Second}
	if tweak != nil {
		tweak(&cfg)
	}
	srv, err := ftp.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := ftp.Listen("127.0.0.1:0", backlog)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() { srv.Shutdown(time.Second); <-done })
	return ln.Addr().String(), body
}

func config(addr string, users int) Config {
	script, _ := ParseScript("LIST*2,RETR img.bin")
	return Config{Addr: addr, Users: users, Delay: time.Millisecond, Script: script, User: "anonymous", Pass: "load@",
		Connect: 2 * time.Second, Greeting: 10 * time.Second, Transfer: 5 * time.Second, Cap: 30 * time.Second, Seed: 1}
}

// expect is Config.Expect for the test server's file.
func expect(body []byte) map[string]string {
	sum := sha256.Sum256(body)
	return map[string]string{"img.bin": hex.EncodeToString(sum[:])}
}

// Every client ends ok in every model, the file checked by size and sha256,
// and the report and JSON say so.
func TestLoadOK(t *testing.T) {
	models := []ftp.Model{ftp.Single, ftp.Goroutines, ftp.Batch, ftp.Pool, ftp.Processes}
	if testing.Short() {
		models = models[:4] // the race run: a race-built session process takes a second to start
	}
	for _, m := range models {
		t.Run(m.String(), func(t *testing.T) {
			addr, body := server(t, m, 64, nil)
			cfg := config(addr, 30)
			cfg.Expect = expect(body)
			var log bytes.Buffer
			cfg.Log = &log
			res, err := Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			// the log: every client once, as in the JSON
			seen := map[int]bool{}
			for line := range strings.Lines(log.String()) {
				var c clientJSON
				if err := json.Unmarshal([]byte(line), &c); err != nil || c.Outcome != OK || len(c.Commands) != 3 || c.Session <= 0 || seen[c.ID] {
					t.Fatalf("log line %q: %v", line, err)
				}
				seen[c.ID] = true
			}
			if len(seen) != 30 {
				t.Errorf("%d clients logged of 30", len(seen))
			}
			s := res.Summarize()
			if s.ByOutcome[OK] != 30 {
				for _, c := range res.Clients {
					if c.Outcome != OK {
						t.Errorf("client %d: %s (%s)", c.ID, c.Outcome, c.Detail)
						break
					}
				}
				t.Fatalf("outcomes %v", s.ByOutcome)
			}
			if s.Processed <= 0 || s.Session.P50 <= 0 || s.Session.Max < s.Session.P99 || s.Connect.P50 <= 0 || s.MBPerSecond <= 0 {
				t.Errorf("summary %+v", s)
			}
			// every command timed, by step
			if len(s.Commands) != 2 || s.Commands[0].Step != "LIST" || s.Commands[0].N != 60 || s.Commands[1].Step != "RETR img.bin" ||
				s.Commands[1].N != 30 || s.Commands[0].P50 <= 0 || s.Commands[1].Max < s.Commands[1].P99 || s.Login.P50 <= 0 || s.FirstByte.P50 < s.Login.P50 {
				t.Errorf("commands %+v, login %+v, first byte %+v", s.Commands, s.Login, s.FirstByte)
			}
			for _, c := range res.Clients {
				if len(c.Commands) != 3 || c.Commands[2] <= 0 {
					t.Fatalf("client %d: commands %v", c.ID, c.Commands)
				}
			}
			var b strings.Builder
			res.WriteText(&b)
			if !strings.Contains(b.String(), "processed time") || !strings.Contains(b.String(), "ListenOverflows") || !strings.Contains(b.String(), "each RETR img.bin (30)") {
				t.Errorf("report:\n%s", b.String())
			}
			js, err := json.Marshal(res)
			if err != nil || !json.Valid(js) || !strings.Contains(string(js), `"users":30`) || !strings.Contains(string(js), `"commands":[{"step":"LIST","n":60,"p50":`) {
				t.Errorf("JSON %v: %.300s", err, js)
			}
		})
	}
}

// A log that cannot be written fails the run.
func TestLoadLogFails(t *testing.T) {
	addr, _ := server(t, ftp.Goroutines, 64, nil)
	cfg := config(addr, 2)
	cfg.Log = failWriter{}
	if _, err := Run(cfg); err == nil || !strings.Contains(err.Error(), "writing the log") {
		t.Errorf("err %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A wrong file is a short transfer, not ok.
func TestLoadChecksTheFile(t *testing.T) {
	addr, _ := server(t, ftp.Goroutines, 64, nil)
	cfg := config(addr, 2)
	cfg.Expect = map[string]string{"img.bin": strings.Repeat("0", 64)}
	res, _ := Run(cfg)
	if s := res.Summarize(); s.ByOutcome[TransferBroken] != 2 {
		t.Errorf("outcomes %v", s.ByOutcome)
	}
}

// Failures sort into their causes: nothing listening is "refused"; a server
// full of users answers "421 busy"; a wrong password is "login failed"; a
// listener that accepts nothing lets backlog+1 clients connect, who then
// wait in vain for a greeting ("greeting timeout"), while the rest never
// connect ("connect timeout").
func TestLoadOutcomes(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := ln.Addr().String()
		ln.Close()
		res, _ := Run(config(addr, 3))
		if s := res.Summarize(); s.ByOutcome[Refused] != 3 {
			t.Errorf("outcomes %v", s.ByOutcome)
		}
	})
	t.Run("busy", func(t *testing.T) {
		addr, _ := server(t, ftp.Goroutines, 64, func(c *ftp.Config) { c.MaxConns = 1 })
		cfg := config(addr, 6)
		cfg.Think, cfg.Delay = 100*time.Millisecond, 0
		res, _ := Run(cfg)
		if s := res.Summarize(); s.ByOutcome[Busy] == 0 || s.ByOutcome[OK] == 0 {
			t.Errorf("outcomes %v", s.ByOutcome)
		}
	})
	t.Run("login", func(t *testing.T) {
		addr, _ := server(t, ftp.Goroutines, 64, func(c *ftp.Config) { c.Anonymous, c.LoginDelay = false, time.Millisecond })
		res, _ := Run(config(addr, 2))
		if s := res.Summarize(); s.ByOutcome[LoginFailed] != 2 {
			t.Errorf("outcomes %v", s.ByOutcome)
		}
	})
	t.Run("full-queue", func(t *testing.T) {
		const backlog = 2
		ln, err := ftp.Listen("127.0.0.1:0", backlog) // nothing accepts
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		cfg := config(ln.Addr().String(), 8)
		cfg.Delay, cfg.Connect, cfg.Greeting = 0, 500*time.Millisecond, 700*time.Millisecond
		res, _ := Run(cfg)
		s := res.Summarize()
		// backlog+1 handshakes complete into the full queue; a few more
		// can, when their SYNs all reach the SYN queue before any of them
		// completes (the kernel checks the accept queue at SYN time), which
		// a busy machine makes likely. The rest time out connecting.
		g, c := s.ByOutcome[GreetingTimeout], s.ByOutcome[ConnectTimeout]
		if g < backlog+1 || c < 1 || g+c != 8 {
			t.Errorf("outcomes %v, want at least %d greeting timeouts, the rest of 8 connect timeouts", s.ByOutcome, backlog+1)
		}
		if res.Kernel["ListenOverflows"] <= 0 {
			t.Logf("kernel counters %v (another namespace's, or none moved)", res.Kernel)
		}
	})
}

func TestScriptAndAddr(t *testing.T) {
	st, err := ParseScript("LIST*60, RETR img.bin ,NOOP")
	if err != nil || len(st) != 3 || st[0].Times != 60 || st[1].Arg != "img.bin" || st[2].Verb != "NOOP" {
		t.Errorf("%+v %v", st, err)
	}
	for _, bad := range []string{"DELE x", "RETR", "LIST*0", "LIST*x"} {
		if _, err := ParseScript(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if err := CheckAddr("192.0.2.1:21", false); err == nil {
		t.Error("a remote address was allowed")
	}
	if err := CheckAddr("[::1]:21", false); err != nil {
		t.Error(err)
	}
	if _, err := Run(Config{Addr: "10.0.0.1:21", Users: 1}); err == nil {
		t.Error("Run took a remote address")
	}
}

// Clients as processes (this test binary in client mode) give the same
// outcomes as goroutines, file checks included, and the generator's CPU,
// children's included, is reported.
func TestProcessClients(t *testing.T) {
	testrun.FullRunOnly(t, "clients in processes, which the race detector cannot see into")
	addr, body := server(t, ftp.Goroutines, 64, nil)
	cfg := config(addr, 8)
	cfg.Clients = ClientProcesses
	cfg.Expect = expect(body)
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summarize()
	if s.ByOutcome[OK] != 8 {
		for _, c := range res.Clients {
			t.Logf("client %d: %s %s", c.ID, c.Outcome, c.Detail)
		}
		t.Fatalf("outcomes %v", s.ByOutcome)
	}
	for _, c := range res.Clients {
		if c.Arrive < 0 || c.End < c.Arrive || c.Connect <= 0 || c.Bytes < int64(len(body)) || len(c.Commands) != 3 || c.Commands[2] <= 0 {
			t.Errorf("client %+v", c)
		}
	}
	if res.CPU <= 0 || s.GeneratorCPU <= 0 || s.GeneratorShare > 1.5 {
		t.Errorf("generator CPU %v over %v: %+v", res.CPU, res.Wall, s)
	}
	js, _ := json.Marshal(res)
	if !strings.Contains(string(js), `"clients":"processes"`) || !strings.Contains(string(js), `"generator_cpu"`) {
		t.Errorf("JSON: %.400s", js)
	}
	// a wrong file is caught in the child too
	cfg.Users, cfg.Expect = 2, map[string]string{"img.bin": strings.Repeat("0", 64)}
	res, _ = Run(cfg)
	if s := res.Summarize(); s.ByOutcome[TransferBroken] != 2 {
		t.Errorf("outcomes %v", s.ByOutcome)
	}
}

// A client the server queues hears 120 first (ftp.QueuedNotice), then its
// 220: it ends ok, and the report counts it as queued.
func TestLoadQueued(t *testing.T) {
	addr, body := server(t, ftp.Pool, 64, func(c *ftp.Config) { c.Workers = 1 })
	cfg := config(addr, 3)
	cfg.Delay, cfg.Think = 0, 300*time.Millisecond // each session holds the one worker past the notice
	cfg.Greeting = 10 * time.Second
	cfg.Expect = expect(body)
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summarize()
	if s.ByOutcome[OK] != 3 || s.Queued < 1 {
		t.Errorf("outcomes %v, %d queued; want 3 ok, some queued", s.ByOutcome, s.Queued)
	}
	var out bytes.Buffer
	res.WriteText(&out)
	if !strings.Contains(out.String(), "heard 120") {
		t.Errorf("the report does not say who was queued:\n%s", out.String())
	}
}

// A capacity run holds N logged-in sessions with a few goroutines, finds
// the server by its port, and measures its tree: in the processes model a
// process a session; fresh sessions are timed meanwhile.
func TestIdle(t *testing.T) {
	models := []ftp.Model{ftp.Goroutines, ftp.Processes}
	if testing.Short() {
		models = models[:1] // the race run: 40 race-built session processes take seconds
	}
	for _, m := range models {
		t.Run(m.String(), func(t *testing.T) {
			addr, _ := server(t, m, 64, nil)
			if pid, err := ListeningPid(addr); err != nil || pid != os.Getpid() {
				t.Fatalf("ListeningPid: %d, %v; want %d", pid, err, os.Getpid())
			}
			res, err := Idle(IdleConfig{Addr: addr, Sessions: 40, Dialers: 4, Fresh: 5, FreshFile: "img.bin",
				User: "anonymous", Pass: "x@y", Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if res.LoggedIn != 40 || len(res.FreshTimes) != 5 || res.FreshP99 <= 0 || res.PSS <= 0 {
				t.Errorf("%+v", res)
			}
			if m == ftp.Processes && res.Procs-res.BaseProcs < 40 {
				t.Errorf("processes: %d processes with 40 sessions held, %d before", res.Procs, res.BaseProcs)
			}
			var out bytes.Buffer
			res.WriteText(&out)
			if !strings.Contains(out.String(), "logged in        40 of 40") {
				t.Errorf("report:\n%s", out.String())
			}
		})
	}
}
