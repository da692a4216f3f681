package experiment

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"parlab/bench"
	"parlab/ftp/load"
	"parlab/internal/testrun"
)

// binDir holds the parlab binary the tests build once (parlabBin).
var (
	binDir  string
	binOnce sync.Once
	bin     string
	binErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "parlab-experiment-test-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// parlabBin builds the parlab binary the experiment starts its servers
// with, once for all the tests.
func parlabBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		bin = filepath.Join(binDir, "parlab")
		out, err := exec.Command("go", "build", "-o", bin, "parlab/cmd/parlab").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return bin
}

func TestPoints(t *testing.T) {
	for sweep, n := range map[string]int{"backlog": 8, "users": 9, "delay": 7} {
		ps, err := Points(sweep, false, 50*time.Millisecond)
		if err != nil || len(ps) != 2*n {
			t.Fatalf("%s: %d points, %v", sweep, len(ps), err)
		}
		if ps[0].Think != 0 || ps[n].Think != 50*time.Millisecond || ps[n].Value != ps[0].Value {
			t.Errorf("%s: the think half is not the same points: %+v %+v", sweep, ps[0], ps[n])
		}
	}
	ps, _ := Points("backlog", false, 0)
	if p := ps[0]; p.Backlog != 30 || p.Users != 150 || p.Delay != 350*time.Millisecond || p.Script != "LIST*60,RETR img.bin" {
		t.Errorf("the reference's first backlog point: %+v", p)
	}
	if _, err := Points("latency", false, 0); err == nil {
		t.Error("an unknown sweep")
	}
	// the think half alone
	cfg := Config{Sweeps: []string{"backlog", "delay"}, Think: 50 * time.Millisecond, ThinkOnly: true}
	ps, err := cfg.points()
	if err != nil || len(ps) != 8+7 || ps[0].Think == 0 || ps[14].Think == 0 || ps[8].Sweep != "delay" {
		t.Errorf("think only: %d points, %v", len(ps), err)
	}
	cfg.Think = 0
	if _, err := cfg.points(); err == nil {
		t.Error("think only without think time")
	}
}

// A small experiment end to end: two models and vsftpd (when this machine
// has it) on the users sweep, with and without think time; every server
// starts, serves every client and stops leaving nothing behind, and the
// report, JSON and plots are written. single serializes sessions, so with
// think time it takes longer than goroutines: the experiment must show it.
func TestExperiment(t *testing.T) {
	testrun.FullRunOnly(t, "its servers are parlab and vsftpd processes")
	bin := parlabBin(t)
	// (vsftpd, a peer, runs in TestIdleSweep: here it cost half the test's
	// CPU, a process pair forked for each of its 840 sessions)
	cfg := Config{Bin: bin, Models: []string{"single", "goroutines"}, Sweeps: []string{"users"},
		Quick: true, Think: 10 * time.Millisecond, MaxUsers: 80}
	doc, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	servers := 2
	// 10 and 30 users, then on to 80 for the servers with no failure yet:
	// all of them, with and without think time
	if len(doc.Runs) != 6*servers {
		t.Fatalf("%d runs, want %d: %+v", len(doc.Runs), 6*servers, doc.Notes)
	}
	if r := doc.Runs[len(doc.Runs)-1]; r.Point.Users != 80 || r.Point.Think == 0 {
		t.Errorf("the last run is %+v, want the think half's 80 users", r.Point)
	}
	slow := map[string]time.Duration{}
	for _, r := range doc.Runs {
		if r.Err != "" || r.Note != "" {
			t.Fatalf("%s %+v: %s %s", r.Server, r.Point, r.Err, r.Note)
		}
		if ok := r.Summary.ByOutcome[load.OK]; ok != r.Point.Users {
			t.Errorf("%s %+v: %d ok of %d: %v", r.Server, r.Point, ok, r.Point.Users, r.Summary.ByOutcome)
		}
		if r.Point.Think > 0 && r.Point.Value == 90 {
			slow[r.Server] = r.Summary.Processed
		}
	}
	if slow["single"] < 2*slow["goroutines"] {
		t.Errorf("with think time single took %v, goroutines %v: single should serialize", slow["single"], slow["goroutines"])
	}
	out := t.TempDir()
	files, err := doc.Write(out)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(filepath.Join(out, "experiment.txt"))
	for _, want := range []string{"Sweep 2, the number of users", "Upper bound", "fixed at 32", "ListenOverflows"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	var j struct {
		Parameters map[string]any `json:"parameters"`
		Runs       []struct {
			Server    string         `json:"server"`
			Processed float64        `json:"processed"`
			Outcomes  map[string]int `json:"outcomes"`
		} `json:"runs"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "experiment.json"))
	if err := json.Unmarshal(b, &j); err != nil || len(j.Runs) != len(doc.Runs) || j.Parameters["quick"] != true {
		t.Fatalf("JSON: %v %+v", err, j)
	}
	for _, f := range []string{"processed-users.png", "failures-users-think.svg", "p99-users.png", "timeline-goroutines-users-think.png"} {
		if !strings.Contains(strings.Join(files, " "), f) {
			t.Errorf("no %s in %v", f, files)
		}
	}
}

// The idle sweep (C10K) end to end, quick: N sessions held against
// goroutines and processes, every one logged in, the server's memory and
// tasks per session measured (a process per session costs far more than a
// goroutine), fresh sessions timed; a table, JSON and the two plots. A
// server that fails at some N is not run at a larger one.
func TestIdleSweep(t *testing.T) {
	testrun.FullRunOnly(t, "its servers are parlab processes")
	ps, err := Points("idle", false, 50*time.Millisecond)
	if err != nil || len(ps) != 4 || ps[3].Value != 10000 || ps[0].Think != 0 {
		t.Fatalf("the idle points: %+v, %v", ps, err)
	}
	cfg := Config{Bin: parlabBin(t), Models: []string{"goroutines", "processes"}, Peers: []string{"vsftpd"}, Sweeps: []string{"idle"},
		Quick: true, Idle: []int{10, 30}, IdleHold: 200 * time.Millisecond}
	doc, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	servers := 2
	if len(doc.Notes) == 0 {
		servers = 3 // vsftpd ran (where it is installed and may run: a note says why not)
	} else {
		t.Logf("notes: %q", doc.Notes)
	}
	if len(doc.Runs) != 2*servers {
		t.Fatalf("%d runs, want %d servers x 2 points: %v", len(doc.Runs), servers, doc.Notes)
	}
	per := map[string]float64{}
	for _, r := range doc.Runs {
		if r.Idle == nil || r.Idle.LoggedIn != r.Point.Users || r.Idle.FreshFailed != 0 || r.Idle.FreshP99 <= 0 {
			t.Fatalf("%s at %g: %+v (%s %s)", r.Server, r.Point.Value, r.Idle, r.Err, r.Note)
		}
		per[r.Server], _ = r.Idle.PerSession()
	}
	if per["processes"] < 20*per["goroutines"] {
		t.Errorf("PSS per session: processes %.0f B, goroutines %.0f B: a process should cost far more", per["processes"], per["goroutines"])
	}
	out := t.TempDir()
	files, err := doc.Write(out)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(filepath.Join(out, "experiment.txt"))
	if !strings.Contains(string(text), "C10K: idle sessions held") || !strings.Contains(string(text), "PSS per session, KB") {
		t.Errorf("the report lacks the idle table:\n%s", text)
	}
	var j struct {
		Runs []struct {
			Idle *struct {
				LoggedIn int     `json:"logged_in"`
				PSS      float64 `json:"pss_per_session"`
			} `json:"idle"`
		} `json:"runs"`
	}
	b, _ := os.ReadFile(filepath.Join(out, "experiment.json"))
	if err := json.Unmarshal(b, &j); err != nil || len(j.Runs) != 2*servers || j.Runs[0].Idle == nil || j.Runs[0].Idle.LoggedIn != 10 {
		t.Fatalf("JSON: %v %s", err, b)
	}
	for _, f := range []string{"memory-idle.png", "p99-idle.svg"} {
		if !strings.Contains(strings.Join(files, " "), f) {
			t.Errorf("no %s in %v", f, files)
		}
	}
	// a server that cannot log every session in stops there
	r := Sample{Server: "x", Point: Point{Sweep: "idle", Value: 5, Users: 5}, Idle: &load.IdleResult{Config: load.IdleConfig{Sessions: 5}, LoggedIn: 3, Failed: map[string]int{"refused": 2}}}
	if why := idleFailed(r); !strings.Contains(why, "3 of 5") || !strings.Contains(why, "refused 2") {
		t.Errorf("idleFailed: %q", why)
	}
}

// A session classified other is named in the report by the server's words:
// the JSON counts them by detail and the text has a table of them.
func TestOthersNamed(t *testing.T) {
	res := &load.Result{Clients: []load.Client{
		{Outcome: load.OK},
		{Outcome: load.OtherReply, Detail: `500 "OOPS: priv_sock_get_int"`},
		{Outcome: load.OtherReply, Detail: `500 "OOPS: priv_sock_get_int"`},
		{Outcome: load.GreetingTimeout, Detail: "i/o timeout"},
	}}
	want := map[string]int{`other reply: 500 "OOPS: priv_sock_get_int"`: 2}
	if got := others(res); !maps.Equal(got, want) {
		t.Fatalf("others = %v, want %v", got, want)
	}
	d := &Doc{Runs: []Sample{{Server: "vsftpd", Point: Point{Sweep: "delay", Value: 50}, Result: res, Summary: res.Summarize()}}}
	var found bool
	for _, tb := range d.Tables() {
		if tb.ID == "others" {
			found = len(tb.Rows) == 1 && tb.Rows[0][4] == "2" && strings.Contains(tb.Rows[0][5], "priv_sock_get_int")
		}
	}
	if !found {
		t.Error("no table of the other sessions")
	}
	b, err := json.Marshal(d)
	if err != nil || !strings.Contains(string(b), `"others":{"other reply: 500 \"OOPS: priv_sock_get_int\"":2}`) {
		t.Errorf("JSON %s (%v) lacks the others", b, err)
	}
}

// A sized model reaches the server: "pool:1" serves one session at a
// time, so a second client waits ungreeted while the first is open, where
// the default pool greets it at once.
func TestSizedModel(t *testing.T) {
	testrun.FullRunOnly(t, "its servers are parlab processes")
	for name, want := range map[string]string{"pool": "pool", "pool:8": "pool", "batch:16": "batch", "processes": "processes"} {
		if m, _, err := ParseModel(name); err != nil || m != want {
			t.Errorf("ParseModel(%q) = %q, %v", name, m, err)
		}
	}
	for _, bad := range []string{"pool:0", "pool:x", "goroutines:4", "swarm"} {
		if _, _, err := ParseModel(bad); err == nil {
			t.Errorf("ParseModel(%q) took it", bad)
		}
	}
	bin := parlabBin(t)
	root, err := makeRoot(1 << 10)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	for name, greeted := range map[string]bool{"pool:1": false, "pool": true} {
		s, err := startParlab(bin, name, root, Point{Backlog: 10}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		first, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		bufio.NewReader(first).ReadString('\n') // its 220: it holds a worker
		second, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		second.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		line, _ := bufio.NewReader(second).ReadString('\n')
		if got := strings.HasPrefix(line, "220"); got != greeted {
			t.Errorf("%s: the second client read %q while the first was open", name, line)
		}
		first.Close()
		second.Close()
		if err := s.stop(); err != nil {
			t.Error(err)
		}
	}
}

// The target table judges each point by the medians over the trials:
// a p99 above the peer's median fails it even if one trial was below, a
// failed session fails it, and a point where the peer failed is not
// counted.
func TestAgainstPeer(t *testing.T) {
	run := func(srv string, v float64, trial int, p99 float64, failed int) Sample {
		s := load.Summary{ByOutcome: map[string]int{load.OK: 10 - failed}, Session: load.Percentiles{P99: p99}}
		if failed > 0 {
			s.ByOutcome[load.Refused] = failed
		}
		return Sample{Server: srv, Point: Point{Sweep: "delay", Value: v}, Trial: trial, Summary: s}
	}
	d := &Doc{Config: Config{Peers: []string{"vsftpd"}}}
	for trial, p := range [][4]float64{{1.0, 2.0, 0.5, 3.0}, {3.0, 2.1, 0.4, 3.1}, {1.1, 2.2, 0.6, 2.9}} {
		d.Runs = append(d.Runs,
			run("goroutines", 50, trial, p[0], 0), run("vsftpd", 50, trial, p[1], 0), // 1.1 ≤ 2.1: yes
			run("goroutines", 100, trial, p[3], 0), run("vsftpd", 100, trial, p[1], 0), // 3.0 > 2.1: above
			run("goroutines", 150, trial, p[2], trial%2), run("vsftpd", 150, trial, p[1], 0), // failures
			run("goroutines", 200, trial, p[2], 0), run("vsftpd", 200, trial, p[1], 1-trial%2)) // vsftpd failed
	}
	var tb *bench.Table
	for _, x := range d.Tables() {
		if x.ID == "target-delay" {
			tb = &x
		}
	}
	if tb == nil {
		t.Fatal("no target table")
	}
	want := []string{"yes", "no: p99 above", "no: failures", "- (vsftpd failed)"}
	if len(tb.Rows) != len(want) {
		t.Fatalf("rows %v", tb.Rows)
	}
	for i, w := range want {
		if got := tb.Rows[i][8]; got != w {
			t.Errorf("%s ms: %q, want %q (row %v)", tb.Rows[i][1], got, w, tb.Rows[i])
		}
	}
	if tb.Rows[0][5] != "1.100" || tb.Rows[0][6] != "2.100" || tb.Rows[2][3] != "1" {
		t.Errorf("medians or failures wrong: %v", tb.Rows)
	}
	if len(tb.Notes) != 1 || !strings.Contains(tb.Notes[0], "goroutines meets vsftpd at 1 of the 3 points") {
		t.Errorf("notes %q", tb.Notes)
	}
}

// Each server runs once in each position over as many trials as there are
// servers, and a trial's order leaves the servers' list unchanged.
func TestTrialOrder(t *testing.T) {
	servers := []string{"goroutines", "pool", "vsftpd"}
	pos := map[string]map[int]bool{}
	for trial := range 2 * len(servers) {
		got := trialOrder(servers, trial)
		if len(got) != len(servers) {
			t.Fatalf("trial %d: %v", trial, got)
		}
		for i, s := range got {
			if pos[s] == nil {
				pos[s] = map[int]bool{}
			}
			pos[s][i] = true
		}
		if want := servers[trial%len(servers)]; got[0] != want {
			t.Errorf("trial %d starts with %s, want %s", trial, got[0], want)
		}
	}
	for _, s := range servers {
		if len(pos[s]) != len(servers) {
			t.Errorf("%s ran only in positions %v", s, pos[s])
		}
	}
	if strings.Join(servers, ",") != "goroutines,pool,vsftpd" {
		t.Errorf("the list changed: %v", servers)
	}
	if trialOrder(nil, 3) != nil {
		t.Error("no servers, yet an order")
	}
}

// A quick run leaves single and batch out of the idle sweep (they fail at
// its first N, after their timeouts: five of a quick run's six and a half
// minutes), saying so, and the servers' own lines go to ServerLog, not
// above the tables.
func TestQuickIdleAndServerLog(t *testing.T) {
	testrun.FullRunOnly(t, "its servers are parlab processes")
	log := &testrun.SyncBuffer{}
	cfg := Config{Bin: parlabBin(t), Models: []string{"single", "batch", "goroutines"}, Sweeps: []string{"idle"},
		Quick: true, Idle: []int{3}, ServerLog: log}
	doc, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 1 || doc.Runs[0].Server != "goroutines" {
		t.Errorf("%d runs (want goroutines' alone): %+v", len(doc.Runs), doc.Runs)
	}
	if notes := strings.Join(doc.Notes, "\n"); !strings.Contains(notes, "single left out of a quick run") || !strings.Contains(notes, "batch left out of a quick run") {
		t.Errorf("notes: %q", notes)
	}
	if !strings.Contains(log.String(), "stopping") {
		t.Errorf("the servers' log: %q", log.String())
	}
}
