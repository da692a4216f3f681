package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"parlab/bench"
)

// classifyDial sorts a failed connect.
func classifyDial(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return Refused
	case errors.As(err, &ne) && ne.Timeout():
		return ConnectTimeout
	}
	return OtherError
}

// classifyRead sorts a failed read: a timeout is the phase's own; a
// connection closed or reset without a reply is another error.
func classifyRead(err error, timeout string) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return timeout
	}
	return OtherError
}

// classifyReply sorts a reply that was not the one wanted.
func classifyReply(line string) string {
	switch {
	case strings.HasPrefix(line, "421"):
		return Busy
	case strings.HasPrefix(line, "530"):
		return LoginFailed
	case strings.HasPrefix(line, "425"):
		return DataFailed
	case strings.HasPrefix(line, "426"), strings.HasPrefix(line, "451"):
		return TransferBroken
	}
	return OtherReply
}

// classifyErr sorts a library error; inPhase is what a failure of the phase
// is when nothing says more.
func classifyErr(err error, inPhase string) string {
	var pe *textproto.Error
	if errors.As(err, &pe) {
		if o := classifyReply(fmt.Sprint(pe.Code)); o != OtherReply {
			return o
		}
		if inPhase == LoginFailed {
			return LoginFailed
		}
		return OtherReply
	}
	if errors.Is(err, errShort) {
		return TransferBroken
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return inPhase
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return DataFailed // the data connection did not open
	}
	return inPhase
}

// Counters are the listen-queue counters of /proc/net/netstat (TcpExt) that
// explain a full accept queue.
var Counters = []string{"ListenOverflows", "ListenDrops", "SyncookiesSent", "SyncookiesRecv", "TCPReqQFullDoCookies", "TCPReqQFullDrop"}

// netstat reads the TcpExt counters.
func netstat() (map[string]int64, error) {
	b, err := os.ReadFile("/proc/net/netstat")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(b), "\n")
	out := map[string]int64{}
	for i := 0; i+1 < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "TcpExt:") || !strings.HasPrefix(lines[i+1], "TcpExt:") {
			continue
		}
		names, vals := strings.Fields(lines[i])[1:], strings.Fields(lines[i+1])[1:]
		for k := range min(len(names), len(vals)) {
			var v int64
			fmt.Sscan(vals[k], &v)
			out[names[k]] = v
		}
	}
	return out, nil
}

// sysctls are the settings that decide how a full queue behaves.
func sysctls() map[string]string {
	out := map[string]string{}
	for _, k := range []string{"net/core/somaxconn", "net/ipv4/tcp_syncookies", "net/ipv4/tcp_abort_on_overflow", "net/ipv4/tcp_max_syn_backlog"} {
		if b, err := os.ReadFile("/proc/sys/" + k); err == nil {
			out[strings.ReplaceAll(k, "/", ".")] = strings.TrimSpace(string(b))
		}
	}
	return out
}

// Summary is what the report says of a run.
type Summary struct {
	Processed         time.Duration // the reference's metric: first connect to last end
	ByOutcome         map[string]int
	Queued            int         // clients that heard 120 (queued) before their 220
	Connect, Greeting Percentiles // of the clients that got that far
	Login, FirstByte  Percentiles // of the clients that got that far
	Session           Percentiles // of the clients that ended ok
	// Commands are each script step's command times, over every time
	// any client ran it (a failed command included), in the script's order.
	Commands          []StepTimes
	SessionsPerSecond float64 // ok sessions over the processed time
	MBPerSecond       float64
	// GeneratorCPU is the generator's CPU time over the run's wall time, in
	// cores (0.5: half of one core), and GeneratorShare that over the
	// machine's cores: near 1, the generator itself limited the load.
	GeneratorCPU, GeneratorShare float64
}

// StepTimes are one script step's command times.
type StepTimes struct {
	Step string `json:"step"` // as the script names it: "LIST", "RETR img.bin"
	N    int    `json:"n"`    // commands timed
	Percentiles
}

// Percentiles are a phase's p50, p90, p99 and max, in seconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

func percentiles(v []float64) Percentiles {
	if len(v) == 0 {
		return Percentiles{}
	}
	slices.Sort(v)
	at := func(q float64) float64 { return v[min(len(v)-1, int(q*float64(len(v))))] }
	return Percentiles{at(0.5), at(0.9), at(0.99), v[len(v)-1]}
}

// Summarize derives the report's figures from the clients.
func (r *Result) Summarize() Summary {
	s := Summary{ByOutcome: map[string]int{}}
	var first, last time.Duration = -1, 0
	var conn, greet, login, first1, sess []float64
	var bytes int64
	steps := make([][]float64, len(r.Config.Script))
	var stepOf []int // the script's step of each command, in order
	for k, st := range r.Config.Script {
		for range st.Times {
			stepOf = append(stepOf, k)
		}
	}
	for _, c := range r.Clients {
		for i, d := range c.Commands[:min(len(c.Commands), len(stepOf))] {
			steps[stepOf[i]] = append(steps[stepOf[i]], d.Seconds())
		}
		if c.Login > 0 {
			login = append(login, c.Login.Seconds())
		}
		if c.FirstByte > 0 {
			first1 = append(first1, c.FirstByte.Seconds())
		}
		s.ByOutcome[c.Outcome]++
		if first < 0 || c.Arrive < first {
			first = c.Arrive
		}
		last = max(last, c.End)
		if c.Connect > 0 {
			conn = append(conn, c.Connect.Seconds())
		}
		if c.Greeting > 0 {
			greet = append(greet, c.Greeting.Seconds())
		}
		if c.Queued > 0 {
			s.Queued++
		}
		if c.Outcome == OK {
			sess = append(sess, c.Session.Seconds())
			bytes += c.Bytes
		}
	}
	s.Processed = last - max(first, 0)
	s.Connect, s.Greeting, s.Session = percentiles(conn), percentiles(greet), percentiles(sess)
	s.Login, s.FirstByte = percentiles(login), percentiles(first1)
	for k, st := range r.Config.Script {
		s.Commands = append(s.Commands, StepTimes{Step: strings.TrimSpace(st.Verb + " " + st.Arg), N: len(steps[k]), Percentiles: percentiles(steps[k])})
	}
	if sec := s.Processed.Seconds(); sec > 0 {
		s.SessionsPerSecond = float64(s.ByOutcome[OK]) / sec
		s.MBPerSecond = float64(bytes) / 1e6 / sec
	}
	if r.Wall > 0 {
		s.GeneratorCPU = r.CPU.Seconds() / r.Wall.Seconds()
		s.GeneratorShare = s.GeneratorCPU / float64(runtime.NumCPU())
	}
	return s
}

// WriteText writes the report.
func (r *Result) WriteText(w io.Writer) {
	s := r.Summarize()
	cfg := r.Config
	fmt.Fprintf(w, "parlab ftp load: %d users against %s, %v apart (%s), script %v, think %v\n",
		cfg.Users, cfg.Addr, cfg.Delay, cfg.Arrivals, cfg.Script, cfg.Think)
	fmt.Fprintf(w, "processed time (first connect to last end, the reference's metric): %.3f s; ok sessions/s %.1f; %.1f MB/s\n",
		s.Processed.Seconds(), s.SessionsPerSecond, s.MBPerSecond)
	how := cfg.Clients.String()
	if cfg.Clients == ClientProcesses {
		how = "a process each"
	}
	fmt.Fprintf(w, "the generator (clients: %s) used %.2f s of CPU in %.2f s: %.2f cores, %.0f%% of this machine's %d\n",
		how, r.CPU.Seconds(), r.Wall.Seconds(), s.GeneratorCPU, 100*s.GeneratorShare, runtime.NumCPU())
	t := bench.Table{Title: "Sessions by outcome:", Header: []string{"outcome", "sessions"}}
	for _, o := range Outcomes {
		if n := s.ByOutcome[o]; n > 0 {
			t.Rows = append(t.Rows, []string{o, fmt.Sprint(n)})
		}
	}
	t.WriteText(w)
	if s.Queued > 0 {
		fmt.Fprintf(w, "%d sessions heard 120 (queued by the server) before their 220\n", s.Queued)
	}
	p := bench.Table{Title: "Phases (seconds):", Header: []string{"phase", "p50", "p90", "p99", "max"}}
	for _, x := range []struct {
		name string
		p    Percentiles
	}{{"connect", s.Connect}, {"greeting wait", s.Greeting}, {"login", s.Login}, {"first byte (from connect)", s.FirstByte}, {"session (ok)", s.Session}} {
		p.Rows = append(p.Rows, []string{x.name, fmt.Sprintf("%.4f", x.p.P50), fmt.Sprintf("%.4f", x.p.P90), fmt.Sprintf("%.4f", x.p.P99), fmt.Sprintf("%.4f", x.p.Max)})
	}
	for _, c := range s.Commands {
		p.Rows = append(p.Rows, []string{fmt.Sprintf("each %s (%d)", c.Step, c.N), fmt.Sprintf("%.4f", c.P50), fmt.Sprintf("%.4f", c.P90), fmt.Sprintf("%.4f", c.P99), fmt.Sprintf("%.4f", c.Max)})
	}
	p.WriteText(w)
	if r.Kernel != nil {
		fmt.Fprintf(w, "\nKernel counters over the run (/proc/net/netstat, TcpExt):\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, k := range Counters {
			fmt.Fprintf(tw, "  %s\t%+d\n", k, r.Kernel[k])
		}
		tw.Flush()
	}
	var keys []string
	for k := range r.Sysctls {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var kv []string
	for _, k := range keys {
		kv = append(kv, k+"="+r.Sysctls[k])
	}
	fmt.Fprintf(w, "sysctls: %s\n", strings.Join(kv, " "))
}

// clientJSON is a client in seconds: in the run's JSON and, a line each,
// in the log (Config.Log).
type clientJSON struct {
	ID        int       `json:"id"`
	Arrive    float64   `json:"arrive"`
	End       float64   `json:"end"`
	Connect   float64   `json:"connect"`
	Greeting  float64   `json:"greeting"`
	Queued    float64   `json:"queued,omitempty"` // to the 120, if one came
	Login     float64   `json:"login"`
	FirstByte float64   `json:"first_byte"`
	Session   float64   `json:"session"`
	Bytes     int64     `json:"bytes"`
	Outcome   string    `json:"outcome"`
	Detail    string    `json:"detail,omitempty"`
	Commands  []float64 `json:"commands"` // each command's time, in the script's order
}

func jsonClient(c *Client) clientJSON {
	cmds := make([]float64, len(c.Commands))
	for i, d := range c.Commands {
		cmds[i] = d.Seconds()
	}
	return clientJSON{c.ID, c.Arrive.Seconds(), c.End.Seconds(), c.Connect.Seconds(), c.Greeting.Seconds(),
		c.Queued.Seconds(), c.Login.Seconds(), c.FirstByte.Seconds(), c.Session.Seconds(), c.Bytes, c.Outcome, c.Detail, cmds}
}

// MarshalJSON is the run in seconds, in the bench's vocabulary: the
// parameters as a map, the summary, and every client.
func (r *Result) MarshalJSON() ([]byte, error) {
	s := r.Summarize()
	cfg := r.Config
	var script []string
	for _, st := range cfg.Script {
		script = append(script, fmt.Sprintf("%s %s*%d", st.Verb, st.Arg, st.Times))
	}
	cs := make([]clientJSON, len(r.Clients))
	for i := range r.Clients {
		cs[i] = jsonClient(&r.Clients[i])
	}
	return json.Marshal(struct {
		Parameters bench.Params      `json:"parameters"`
		Started    string            `json:"started"`
		Processed  float64           `json:"processed"`
		ByOutcome  map[string]int    `json:"outcomes"`
		Queued     int               `json:"queued"`
		Connect    Percentiles       `json:"connect"`
		Greeting   Percentiles       `json:"greeting"`
		Login      Percentiles       `json:"login"`
		FirstByte  Percentiles       `json:"first_byte"`
		Session    Percentiles       `json:"session"`
		Commands   []StepTimes       `json:"commands"`
		Rate       float64           `json:"sessions_per_second"`
		MBs        float64           `json:"mb_per_second"`
		Wall       float64           `json:"wall"`
		CPU        float64           `json:"generator_cpu"`
		Share      float64           `json:"generator_share"`
		Kernel     map[string]int64  `json:"kernel,omitempty"`
		Sysctls    map[string]string `json:"sysctls"`
		Clients    []clientJSON      `json:"clients"`
	}{bench.Params{{Name: "addr", Value: cfg.Addr}, {Name: "users", Value: cfg.Users}, {Name: "delay", Value: cfg.Delay.Seconds()},
		{Name: "arrivals", Value: cfg.Arrivals.String()},
		{Name: "script", Value: strings.Join(script, ",")}, {Name: "think", Value: cfg.Think.Seconds()}, {Name: "seed", Value: cfg.Seed},
		{Name: "clients", Value: cfg.Clients.String()}},
		r.Start.UTC().Format(time.RFC3339), s.Processed.Seconds(), s.ByOutcome, s.Queued, s.Connect, s.Greeting, s.Login, s.FirstByte, s.Session, s.Commands,
		s.SessionsPerSecond, s.MBPerSecond, r.Wall.Seconds(), r.CPU.Seconds(), s.GeneratorShare, r.Kernel, r.Sysctls, cs})
}
