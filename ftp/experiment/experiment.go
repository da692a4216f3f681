// Package experiment is the FTP load lab's experiment: the reference
// project's three sweeps (the listen backlog, the number of users, the delay
// between arrivals), each point run against every server model and against
// vsftpd, each server started fresh for each point in its own process and
// stopped after, with ftp/load measuring every client. It owns the points,
// the servers' lives and the results; the report (tables, plots, JSON) is
// in report.go.
package experiment

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"parlab/ftp"
	"parlab/ftp/load"
	"parlab/internal/child"
)

// Config is one experiment.
type Config struct {
	Bin    string   // the parlab binary that serves (os.Executable for the CLI)
	Models []string // parlab's models, each optionally sized: "pool:8" (see ParseModel)
	Peers  []string // outside servers: "vsftpd"
	Sweeps []string // backlog, users, delay, idle
	Trials int
	Quick  bool          // the small points (see Points): minutes, not hours
	Think  time.Duration // the second run of every point: this pause between commands
	// ThinkOnly runs only that second run of every point (Think > 0).
	ThinkOnly bool
	Out       string // where the JSON, tables and plots go
	// MaxUsers is where the users sweep stops going on (0: MaxUsers, or
	// no going on in a quick run).
	MaxUsers int
	// Vsftpd is vsftpd's binary ("" for /usr/sbin/vsftpd).
	Vsftpd string
	// Idle overrides the idle sweep's N values, and IdleHold how long the
	// N are held (0: 2 s): for tests, which need seconds, not minutes.
	Idle     []int
	IdleHold time.Duration
	// Progress, if set, is told each run as it starts.
	Progress func(done, total int, what string)
	// ServerLog, if set, gets what the servers say on their stdout and
	// stderr (each "stopping" line, say), from several goroutines at once
	// (an *os.File is safe for that); nil: nothing is kept.
	ServerLog io.Writer
}

// Point is one load: a sweep's parameter value and everything the load
// and the server need.
type Point struct {
	Sweep   string        `json:"sweep"`
	Value   float64       `json:"value"` // the swept parameter: backlog, users or delay in ms
	Users   int           `json:"users"`
	Delay   time.Duration `json:"-"`
	Backlog int           `json:"backlog"`
	Script  string        `json:"script"`
	Think   time.Duration `json:"-"`
}

// MaxUsers is where the users sweep stops going on by default (see Run).
const MaxUsers = 1000

// BigFile is the name of the file the scripts RETR; its size is the
// point's (8 MB, 1 MB in quick points).
const BigFile = "img.bin"

// Points are a sweep's loads, as the reference ran them (quick: a few
// small ones that keep the shape), each once with no think time and once
// with think.
func Points(sweep string, quick bool, think time.Duration) ([]Point, error) {
	heavy, light := "LIST*60,RETR "+BigFile, "LIST*2"
	var ps []Point
	switch sweep {
	case "backlog":
		vals := []int{30, 40, 50, 60, 70, 80, 90, 100}
		users, delay := 150, 350*time.Millisecond
		if quick {
			vals, users, delay, heavy = []int{5, 100}, 16, 10*time.Millisecond, "LIST*4,RETR "+BigFile
		}
		for _, v := range vals {
			ps = append(ps, Point{Sweep: sweep, Value: float64(v), Users: users, Delay: delay, Backlog: v, Script: heavy})
		}
	case "users":
		vals := []int{50, 100, 150, 200, 250, 300, 350, 400, 450}
		if quick {
			vals = []int{10, 30}
		}
		for _, v := range vals {
			ps = append(ps, Point{Sweep: sweep, Value: float64(v), Users: v, Delay: 50 * time.Millisecond, Backlog: 100, Script: light})
		}
		if quick {
			for i := range ps {
				ps[i].Delay = 10 * time.Millisecond
			}
		}
	case "delay":
		vals := []int{350, 300, 250, 200, 150, 100, 50}
		users := 150
		if quick {
			vals, users, heavy = []int{40, 5}, 12, "LIST*4,RETR "+BigFile
		}
		for _, v := range vals {
			ps = append(ps, Point{Sweep: sweep, Value: float64(v), Users: users, Delay: time.Duration(v) * time.Millisecond, Backlog: 100, Script: heavy})
		}
	case "idle":
		// C10K: N idle logged-in sessions held, the server measured, fresh
		// sessions timed meanwhile (load.Idle); no think time
		vals := []int{100, 1000, 3000, 10000}
		if quick {
			vals = []int{20, 200}
		}
		for _, v := range vals {
			ps = append(ps, Point{Sweep: sweep, Value: float64(v), Users: v, Backlog: 4096})
		}
		return ps, nil
	default:
		return nil, fmt.Errorf("unknown sweep %q (want backlog, users, delay or idle)", sweep)
	}
	if think > 0 {
		n := len(ps)
		for _, p := range ps[:n] {
			p.Think = think
			ps = append(ps, p)
		}
	}
	return ps, nil
}

// points is every sweep's points, the think half alone if ThinkOnly.
func (cfg *Config) points() ([]Point, error) {
	if cfg.ThinkOnly && cfg.Think <= 0 {
		return nil, fmt.Errorf("only the points with think time, but no think time given")
	}
	var points []Point
	for _, sw := range cfg.Sweeps {
		ps, err := Points(sw, cfg.Quick, cfg.Think)
		if err != nil {
			return nil, err
		}
		if sw == "idle" && cfg.Idle != nil {
			ps = ps[:0]
			for _, n := range cfg.Idle {
				ps = append(ps, Point{Sweep: sw, Value: float64(n), Users: n, Backlog: 4096})
			}
		}
		if cfg.ThinkOnly {
			ps = slices.DeleteFunc(ps, func(p Point) bool { return p.Think == 0 })
		}
		points = append(points, ps...)
	}
	return points, nil
}

// Sample is one point against one server, one trial.
type Sample struct {
	Server  string           `json:"server"`
	Point   Point            `json:"point"`
	Trial   int              `json:"trial"`
	Summary load.Summary     `json:"-"`
	Result  *load.Result     `json:"-"`
	Idle    *load.IdleResult `json:"-"`               // the idle sweep's run (Result is nil)
	Err     string           `json:"error,omitempty"` // the run could not be made (the server did not start)
	Note    string           `json:"note,omitempty"`
}

// Doc is the experiment's result.
type Doc struct {
	Config  Config
	Started time.Time
	Runs    []Sample
	Notes   []string // peers skipped and why, and the like
}

// Run runs every sweep's points against every server, in order: for each
// point and trial, each server in turn (so a drift of the machine hits all
// alike), in an order that turns by one server a trial (trialOrder), so that
// no server always runs first, or always right after another one.
func Run(ctx context.Context, cfg Config) (*Doc, error) {
	if cfg.Trials < 1 {
		cfg.Trials = 1
	}
	doc := &Doc{Config: cfg, Started: time.Now()}
	// Orphans (a processes-model session outliving its server) come back
	// to this process, so each stop can check that nothing was left.
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	servers := append([]string{}, cfg.Models...)
	for _, p := range cfg.Peers {
		if p != "vsftpd" {
			return nil, fmt.Errorf("unknown peer %q (want vsftpd)", p)
		}
		bin := cfg.Vsftpd
		if bin == "" {
			bin = "/usr/sbin/vsftpd"
		}
		if _, err := os.Stat(bin); err != nil {
			doc.Notes = append(doc.Notes, fmt.Sprintf("vsftpd skipped: %v (apt-get install vsftpd)", err))
			continue
		}
		if os.Geteuid() != 0 {
			doc.Notes = append(doc.Notes, "vsftpd skipped: it must start as root (it drops to the ftp user itself)")
			continue
		}
		cfg.Vsftpd = bin
		servers = append(servers, "vsftpd")
	}
	points, err := cfg.points()
	if err != nil {
		return nil, err
	}
	roots := map[int64]string{}
	defer func() {
		for _, r := range roots {
			os.RemoveAll(r)
		}
	}()
	total, done := len(points)*len(servers)*cfg.Trials, 0
	type job struct {
		p    Point
		only []string // the servers to run (nil: all)
	}
	idleStop := map[string]string{} // a server's idle sweep stopped, and why
	var jobs []job
	for _, p := range points {
		jobs = append(jobs, job{p: p})
	}
	for i := 0; i < len(jobs); i++ {
		p, run := jobs[i].p, servers
		if jobs[i].only != nil {
			run = jobs[i].only
		}
		size := int64(8 << 20)
		if cfg.Quick {
			size = 1 << 20
		}
		root, ok := roots[size]
		if !ok {
			var err error
			if root, err = makeRoot(size); err != nil {
				return nil, err
			}
			roots[size] = root
		}
		if p.Sweep == "idle" { // as far as each server goes: not past an N it failed
			n := len(run)
			run = slices.DeleteFunc(slices.Clone(run), func(srv string) bool { return idleStop[srv] != "" })
			if cfg.Quick { // (they fail at the first N, each after its timeouts: minutes of a quick run)
				for _, srv := range run {
					if m, _, _ := ParseModel(srv); (m == "single" || m == "batch") && idleStop[srv] == "" {
						idleStop[srv] = "left out of a quick run: it serves one session (single) or one batch (batch) at a time, so idle sessions hold it"
						doc.Notes = append(doc.Notes, "idle sweep: "+srv+" "+idleStop[srv])
					}
				}
				run = slices.DeleteFunc(run, func(srv string) bool { return idleStop[srv] != "" })
			}
			total -= (n - len(run)) * cfg.Trials // (runs not made)
		}
		var clean []string // the servers with no failure at this point
		for trial := range cfg.Trials {
			for _, srv := range trialOrder(run, trial) {
				if err := ctx.Err(); err != nil {
					return doc, err
				}
				if cfg.Progress != nil {
					cfg.Progress(done, total, fmt.Sprintf("%s %s=%g think=%v", srv, p.Sweep, p.Value, p.Think))
				}
				r := runPoint(cfg, srv, p, trial, root, size)
				doc.Runs = append(doc.Runs, r)
				done++
				if p.Sweep == "idle" && idleStop[srv] == "" {
					if why := idleFailed(r); why != "" {
						idleStop[srv] = why
						doc.Notes = append(doc.Notes, fmt.Sprintf("idle sweep: %s stopped at %g sessions: %s", srv, p.Value, why))
					}
				}
				if n, _ := failures(r.Summary); trial == 0 && r.Err == "" && n == 0 && r.Summary.Processed <= 30*time.Second {
					clean = append(clean, srv)
				}
			}
		}
		// The users sweep goes on past its last point, 50 users at a time,
		// with the servers that have not failed yet, until each fails (or
		// MaxUsers): a server's upper bound is then measured, not assumed.
		last := i+1 == len(jobs) || jobs[i+1].p.Sweep != p.Sweep || jobs[i+1].p.Think != p.Think
		limit := cfg.MaxUsers
		if limit == 0 && !cfg.Quick {
			limit = MaxUsers
		}
		if p.Sweep == "users" && last && len(clean) > 0 && p.Users+50 <= limit {
			next := p
			next.Users += 50
			next.Value = float64(next.Users)
			jobs = slices.Insert(jobs, i+1, job{p: next, only: clean})
			total += len(clean) * cfg.Trials
		}
	}
	return doc, nil
}

// serverLog is ServerLog, or a sink.
func (cfg *Config) serverLog() io.Writer {
	if cfg.ServerLog == nil {
		return io.Discard
	}
	return cfg.ServerLog
}

// IdleFile is what the idle sweep's fresh sessions download: one of the
// small files makeRoot writes (c10k's 1 KB RETR, not the big file).
const IdleFile = "file00.txt"

// maxConns is the servers' connection limits at p: 5,000, or the idle
// sweep's sessions and its fresh ones if more.
func maxConns(p Point) int { return max(5000, p.Users+100) }

// idleFailed says why an idle run ends a server's idle sweep ("" if it
// does not): the run could not be made, or not every session logged in.
func idleFailed(r Sample) string {
	switch {
	case r.Err != "":
		return r.Err
	case r.Idle == nil:
		return "no result"
	case r.Idle.LoggedIn < r.Idle.Config.Sessions:
		return fmt.Sprintf("%d of %d logged in (%s)", r.Idle.LoggedIn, r.Idle.Config.Sessions, idleCauses(r.Idle.Failed))
	}
	return ""
}

// idleCauses is an idle run's sessions that did not log in, by cause, in
// the causes' order ("" for none): "421 busy 3532, other error 54".
func idleCauses(failed map[string]int) string {
	var causes []string
	for _, k := range slices.Sorted(maps.Keys(failed)) {
		causes = append(causes, fmt.Sprintf("%s %d", k, failed[k]))
	}
	return strings.Join(causes, ", ")
}

// makeRoot writes the served tree: BigFile of size bytes (random, so no
// layer compresses it) and 20 small files for LIST to list, readable by
// everyone (vsftpd serves it as its ftp user).
func makeRoot(size int64) (string, error) {
	root, err := os.MkdirTemp("", "parlab-ftplab-")
	if err != nil {
		return "", err
	}
	os.Chmod(root, 0o755)
	f, err := os.OpenFile(filepath.Join(root, BigFile), os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	if _, err := io.CopyN(f, rand.Reader, size); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("file%02d.txt", i)), []byte("parlab\n"), 0o644); err != nil {
			return "", err
		}
	}
	return root, nil
}

// trialOrder is the order of servers in trial t: servers turned left by t,
// so over len(servers) trials each server runs once in each position. A
// server's run can leave the machine changed for the next one (sockets in
// TIME_WAIT, the page cache, a core still busy), and with a fixed order
// that would fall on the same server every trial.
func trialOrder(servers []string, t int) []string {
	if len(servers) == 0 {
		return nil
	}
	k := t % len(servers)
	return append(slices.Clip(servers[k:]), servers[:k]...)
}

// runPoint starts the server, runs the load, stops the server and checks
// that nothing of it is left running.
func runPoint(cfg Config, srv string, p Point, trial int, root string, size int64) Sample {
	run := Sample{Server: srv, Point: p, Trial: trial}
	var s *server
	var err error
	if srv == "vsftpd" {
		s, err = startVsftpd(cfg.Vsftpd, root, p, cfg.serverLog())
	} else {
		s, err = startParlab(cfg.Bin, srv, root, p, cfg.serverLog())
	}
	if err != nil {
		run.Err = err.Error()
		return run
	}
	if p.Sweep == "idle" {
		fresh, hold := 50, 2*time.Second
		if cfg.Quick {
			fresh, hold = 5, 500*time.Millisecond
		}
		if cfg.IdleHold > 0 {
			hold = cfg.IdleHold
		}
		res, ierr := load.Idle(load.IdleConfig{Addr: s.addr, Sessions: p.Users, Dialers: 16, Hold: hold,
			Fresh: fresh, FreshFile: IdleFile, User: "anonymous", Pass: "lab@parlab", Timeout: 10 * time.Second,
			ServerPid: s.cmd.Process.Pid})
		if serr := s.stop(); serr != nil {
			run.Note = serr.Error()
		}
		if ierr != nil {
			run.Err = ierr.Error()
			return run
		}
		run.Idle = res
		return run
	}
	script, _ := load.ParseScript(p.Script)
	lc := load.Config{Addr: s.addr, Users: p.Users, Delay: p.Delay, Script: script, Think: p.Think,
		User: "anonymous", Pass: "lab@parlab", Connect: 5 * time.Second, Greeting: 10 * time.Second,
		Transfer: 30 * time.Second, Cap: 5 * time.Minute, Seed: uint64(trial + 1)}
	res, lerr := load.Run(lc)
	if serr := s.stop(); serr != nil {
		run.Note = serr.Error()
	}
	if lerr != nil {
		run.Err = lerr.Error()
		return run
	}
	run.Result, run.Summary = res, res.Summarize()
	return run
}

// server is a started server process.
type server struct {
	cmd  *exec.Cmd
	addr string
	dir  string // vsftpd's config directory, removed at stop
}

// ParseModel splits an experiment's model name: a model of parlab ftp
// serve, optionally with ":N", its --workers ("pool:8", "batch:16"), so one
// experiment can set a pool of the default size beside a small one.
func ParseModel(name string) (model string, workers int, err error) {
	model, size, sized := strings.Cut(name, ":")
	m, err := ftp.ParseModel(model)
	if err != nil {
		return "", 0, err
	}
	if sized {
		if workers, err = strconv.Atoi(size); err != nil || workers < 1 || (m != ftp.Batch && m != ftp.Pool) {
			return "", 0, fmt.Errorf("%q: only batch and pool take a size, a positive count (pool:8)", name)
		}
	}
	return model, workers, nil
}

// startParlab starts `parlab ftp serve` with the point's backlog on a free
// loopback port and waits for the line that says where it listens.
//
// Its passive ports come from a range below the kernel's ephemeral ports,
// as vsftpd's do: left to the kernel, they came from the range the clients'
// own ports come from, and at 150 clients 50–100 ms apart with LIST × 60
// the ports in TIME_WAIT ran it out (connect: cannot assign requested
// address).
func startParlab(bin, name, root string, p Point, log io.Writer) (*server, error) {
	model, workers, err := ParseModel(name)
	if err != nil {
		return nil, err
	}
	pasv, err := freePortRange(pasvPorts)
	if err != nil {
		return nil, err
	}
	args := []string{"ftp", "serve", "--root", root, "--listen", "127.0.0.1:0", "--model", model,
		"--backlog", strconv.Itoa(p.Backlog), "--anonymous", "--max-conns", strconv.Itoa(maxConns(p)), "--max-per-ip", strconv.Itoa(maxConns(p)),
		"--grace", "2s", "--login-delay", "0s", "--pasv-ports", fmt.Sprintf("%d-%d", pasv, pasv+pasvPorts-1)}
	if workers > 0 {
		args = append(args, "--workers", strconv.Itoa(workers))
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = log
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		io.Copy(log, out)
	}()
	select {
	case l, ok := <-line:
		// "parlab ftp: serving ROOT on ADDR (model M, backlog B)"
		if i := strings.LastIndex(l, " on "); ok && i >= 0 {
			if f := strings.Fields(l[i+4:]); len(f) > 0 {
				s.addr = f[0]
				return s, nil
			}
		}
		s.stop()
		return nil, fmt.Errorf("parlab ftp serve --model %s said %q, not where it listens", model, l)
	case <-time.After(10 * time.Second):
		s.stop()
		return nil, fmt.Errorf("parlab ftp serve --model %s did not start within 10 s", model)
	}
}

// startVsftpd writes a config for the point into a temporary directory
// and starts vsftpd on a free loopback port. Its listen backlog is fixed
// at 32 (vsftpd has no setting): the tables say so.
func startVsftpd(bin, root string, p Point, log io.Writer) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	// a passive port for every session that may be open at once: with 50,
	// 150 clients thinking 50 ms a command took them all, and vsftpd
	// refused PASV ("other reply")
	pasv, err := freePortRange(pasvPorts)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "parlab-vsftpd-")
	if err != nil {
		return nil, err
	}
	conf := fmt.Sprintf(`listen=YES
listen_ipv6=NO
listen_address=127.0.0.1
listen_port=%d
background=NO
anonymous_enable=YES
no_anon_password=YES
anon_root=%s
local_enable=NO
write_enable=NO
pasv_enable=YES
pasv_address=127.0.0.1
pasv_min_port=%d
pasv_max_port=%d
secure_chroot_dir=/var/run/vsftpd/empty
max_clients=%d
max_per_ip=%d
xferlog_enable=NO
`, port, root, pasv, pasv+pasvPorts-1, maxConns(p), maxConns(p))
	path := filepath.Join(dir, "vsftpd.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	os.MkdirAll("/var/run/vsftpd/empty", 0o755)
	cmd := exec.Command(bin, path)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &server{cmd: cmd, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", s.addr, time.Second); err == nil {
			// read its 220, so this probe is a whole session, then go
			c.SetDeadline(time.Now().Add(2 * time.Second))
			bufio.NewReader(c).ReadString('\n')
			c.Close()
			return s, nil
		}
	}
	s.stop()
	return nil, errors.New("vsftpd did not listen within 10 s")
}

// stop ends the server (SIGTERM, then SIGKILL after 10 s), reaps it, and
// checks that no process of it is left: a session child orphaned by it
// comes back to this process (a child subreaper) and is killed and
// reported.
func (s *server) stop() error {
	defer func() {
		if s.dir != "" {
			os.RemoveAll(s.dir)
		}
	}()
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	// vsftpd's session processes end with their connections; give the
	// last ones a moment before calling them left over.
	var left []int
	for range 50 {
		if left = orphans(); len(left) == 0 {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range left {
		syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
	}
	return fmt.Errorf("%d processes of the server were left running after it stopped (killed)", len(left))
}

// orphans are this process's children that are a server's sessions,
// reparented here (this process is their subreaper) when the server ended;
// it reaps those that have exited. It waits for no other child, so no
// other waiter loses a status: a child of child.Start (a load client
// process) is its starter's, and a live command of this program's
// (ourCommand) is left alone. An exited child that is neither is a
// session: stop runs after the server's own Wait, and the experiment runs
// one server at a time.
func orphans() []int {
	var out []int
	for _, pid := range child.Children() {
		if child.Started(pid) {
			continue
		}
		if _, state, _ := child.Stat(pid); state == 'Z' {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			continue
		}
		if !ourCommand(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// ourCommand reports whether pid is a process this program started on
// purpose and still runs (a test's helper, say): anything but a server's
// session. A session is recognised by its parent having been a server:
// its command line is parlab's session mode, or vsftpd.
func ourCommand(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return true // gone already
	}
	cmd := string(b)
	return !strings.Contains(cmd, "__parlab_ftp_session") && !strings.Contains(cmd, "vsftpd")
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// pasvPorts is the size of every server's passive port range, vsftpd's and
// parlab's: one port for each session that may be open at once, with room.
const pasvPorts = 1000

// freePortRange finds n consecutive ports that are free now (for a
// server's passive range), at random in 20000–31999: below Linux's
// ephemeral range (32768–60999), so the load's own client ports never take
// one.
func freePortRange(n int) (int, error) {
	var b [2]byte
	for range 50 {
		rand.Read(b[:])
		lo := 20000 + (int(b[0])<<8|int(b[1]))%(12000-n)
		ok := true
		for p := lo; p < lo+n && ok; p++ {
			ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
			if err != nil {
				ok = false
				continue
			}
			ln.Close()
		}
		if ok {
			return lo, nil
		}
	}
	return 0, errors.New("no free range of passive ports for vsftpd")
}
