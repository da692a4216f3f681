// Package load is the FTP load generator: open-loop arrivals of clients,
// each running a whole session (connect, 220, login, a script, QUIT) with
// github.com/jlaffaye/ftp, every phase timed and bounded, every outcome
// sorted into a cause, and the kernel's listen-queue counters read around
// the run. It is the measuring half of the load lab; the experiment (sweeps
// of backlog, users and arrival delay) is its user.
package load

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jlaffaye/ftp"
)

// Step is one command of a client's script, done Times times.
type Step struct {
	Verb  string // LIST or RETR
	Arg   string // RETR's file
	Times int
}

// ParseScript reads "LIST*60,RETR img.bin": steps separated by commas,
// each a verb, an optional argument, and an optional *N.
func ParseScript(s string) ([]Step, error) {
	var out []Step
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		st := Step{Times: 1}
		if body, n, ok := strings.Cut(part, "*"); ok {
			k, err := strconv.Atoi(strings.TrimSpace(n))
			if err != nil || k < 1 || k > 100000 {
				return nil, fmt.Errorf("script step %q: a count after * is 1 to 100000", part)
			}
			part, st.Times = strings.TrimSpace(body), k
		}
		st.Verb, st.Arg, _ = strings.Cut(part, " ")
		st.Verb = strings.ToUpper(st.Verb)
		switch {
		case st.Verb == "LIST" || st.Verb == "NOOP" || st.Verb == "PWD":
		case st.Verb == "RETR" && st.Arg != "":
		default:
			return nil, fmt.Errorf("script step %q: want LIST, NOOP, PWD or RETR FILE", part)
		}
		out = append(out, st)
	}
	return out, nil
}

// Config is one load run.
type Config struct {
	Addr     string
	Users    int
	Delay    time.Duration // between arrivals (the mean, for Poisson)
	Arrivals Arrivals
	Script   []Step
	Think    time.Duration // pause between commands, standing in for a distant client
	User     string
	Pass     string
	Connect  time.Duration // timeouts of each phase
	Greeting time.Duration
	Transfer time.Duration // each command, data included
	Cap      time.Duration // the whole run's bound
	Seed     uint64
	// Expect maps a RETR's file to its sha256 (hex), checked when given;
	// the size is always checked against SIZE.
	Expect map[string]string
	// AllowRemote permits an address off this machine's loopback.
	AllowRemote bool
	// Clients is what runs each user: a goroutine, or a process of its
	// own (ClientProcesses).
	Clients Clients
	// Progress, if set, is told how many clients have ended.
	Progress func(done, total int)
	// Log, if set, gets each client as it ends, a JSON line each (the
	// fields of the run's JSON "clients"), so a long run shows and keeps
	// what it has seen so far. Run returns the first error writing it.
	Log io.Writer
}

// Outcomes, in the order reports list them.
const (
	OK              = "ok"
	Refused         = "refused"
	ConnectTimeout  = "connect timeout"
	GreetingTimeout = "greeting timeout" // connected, no 220 ever: a full accept queue with SYN cookies
	Busy            = "421 busy"
	LoginFailed     = "login failed"
	DataFailed      = "data connection failed"
	TransferBroken  = "transfer aborted or short"
	OtherReply      = "other reply"
	OtherError      = "other error"
)

// Outcomes lists every outcome a client can have.
var Outcomes = []string{OK, Refused, ConnectTimeout, GreetingTimeout, Busy, LoginFailed, DataFailed, TransferBroken, OtherReply, OtherError}

// Client is what one client saw. Times are from the run's start (Arrive,
// End) or lengths of phases; a phase not reached is 0.
type Client struct {
	ID                int
	Arrive, End       time.Duration
	Connect, Greeting time.Duration // Greeting: to the 220, through any 120
	Queued            time.Duration // to a "120 Service ready in N minutes" first (the server queued it), or 0
	Login, FirstByte  time.Duration
	Session           time.Duration // connect to the end
	Bytes             int64
	Outcome           string
	Detail            string // the error or reply behind a failure
	// Commands is each script command's time (think time not counted),
	// in the script's order, each step Times times, up to the first that
	// failed, that one included.
	Commands []time.Duration
}

// Result is a run: every client, and the kernel's counters around it.
type Result struct {
	Config  Config
	Start   time.Time
	Clients []Client
	// Kernel is the change in /proc/net/netstat's listen-queue counters
	// over the run, and Sysctls the settings that decide them.
	Kernel  map[string]int64
	Sysctls map[string]string
	// Wall is the run's length; CPU the generator's own CPU time over it
	// (user and system, its client processes included), so a report can
	// say whether the generator, not the server, was the bottleneck.
	Wall, CPU time.Duration
}

// CheckAddr refuses an address off loopback unless allowed: load runs talk
// only to this machine.
func CheckAddr(addr string, allowRemote bool) error {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: want IP:port (%v)", addr, err)
	}
	if !ap.Addr().IsLoopback() && !allowRemote {
		return fmt.Errorf("address %s is not loopback: a load run talks only to this machine unless allowed", addr)
	}
	return nil
}

// Run runs the load: client i arrives at i·Delay (or after exponential gaps
// of mean Delay, seeded), whether or not earlier clients are done, and runs
// its whole session. It returns when every client has ended, within Cap.
func Run(cfg Config) (*Result, error) {
	if err := CheckAddr(cfg.Addr, cfg.AllowRemote); err != nil {
		return nil, err
	}
	if cfg.Users < 1 {
		return nil, fmt.Errorf("a load needs at least 1 user")
	}
	res := &Result{Config: cfg, Clients: make([]Client, cfg.Users), Sysctls: sysctls()}
	before, _ := netstat()
	self0, kids0 := cpuTime()
	res.Start = time.Now()
	deadline := res.Start.Add(cfg.Cap)
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	var logErr error
	at := time.Duration(0)
	for i := range cfg.Users {
		if i > 0 {
			gap := cfg.Delay
			if cfg.Arrivals == Poisson {
				gap = time.Duration(rng.ExpFloat64() * float64(cfg.Delay))
			}
			at += gap
		}
		if wait := time.Until(res.Start.Add(at)); wait > 0 {
			time.Sleep(wait)
		}
		if time.Now().After(deadline) {
			for j := i; j < cfg.Users; j++ {
				res.Clients[j] = Client{ID: j, Outcome: OtherError, Detail: "not started: the run's cap was reached"}
			}
			break
		}
		wg.Go(func() {
			var c Client
			if cfg.Clients == ClientProcesses {
				c = runProcess(&cfg, i, res.Start, deadline)
			} else {
				c = runClient(&cfg, i, res.Start, deadline)
			}
			mu.Lock()
			res.Clients[i] = c
			done++
			if cfg.Log != nil && logErr == nil {
				line, err := json.Marshal(jsonClient(&c))
				if err == nil {
					_, err = cfg.Log.Write(append(line, '\n'))
				}
				logErr = err
			}
			if cfg.Progress != nil {
				cfg.Progress(done, cfg.Users)
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	res.Wall = time.Since(res.Start)
	if logErr != nil {
		return nil, fmt.Errorf("writing the log: %w", logErr)
	}
	self1, kids1 := cpuTime()
	res.CPU = self1 - self0 + kids1 - kids0
	if after, err := netstat(); err == nil {
		res.Kernel = map[string]int64{}
		for _, k := range Counters {
			res.Kernel[k] = after[k] - before[k]
		}
	}
	return res, nil
}

// runClient is one client's session.
func runClient(cfg *Config, id int, start, deadline time.Time) (c Client) {
	c = Client{ID: id, Arrive: time.Since(start)}
	t0 := time.Now()
	defer func() {
		c.End = time.Since(start)
		c.Session = time.Since(t0)
	}()
	connTimeout := min(cfg.Connect, time.Until(deadline))
	conn, err := net.DialTimeout("tcp", cfg.Addr, connTimeout)
	if err != nil {
		c.Outcome, c.Detail = classifyDial(err), err.Error()
		return c
	}
	c.Connect = time.Since(t0)
	conn.SetDeadline(time.Now().Add(min(cfg.Greeting, time.Until(deadline))))
	tg := time.Now()
	// The greeting is read here, not by the library, so that "connected,
	// never greeted" and "421 at once" are told apart.
	greeting, err := readReply(conn)
	for err == nil && strings.HasPrefix(greeting, "120") && c.Queued == 0 {
		c.Queued = time.Since(tg) // RFC 959: queued; the 220 follows
		greeting, err = readReply(conn)
	}
	if err != nil {
		conn.Close()
		c.Outcome, c.Detail = classifyRead(err, GreetingTimeout), err.Error()
		return c
	}
	c.Greeting = time.Since(tg)
	if !strings.HasPrefix(greeting, "220") {
		conn.Close()
		c.Outcome, c.Detail = classifyReply(greeting), strings.TrimSpace(greeting)
		return c
	}
	conn.SetDeadline(time.Time{})
	// The library's first dial is the control connection, already made and
	// greeted here; every later one is a data connection, dialled afresh.
	// (Its DialWithNetConn would hand the control connection out for data
	// connections too.)
	control := &greeted{Conn: conn}
	var dialed bool
	dial := func(network, address string) (net.Conn, error) {
		if !dialed {
			dialed = true
			return control, nil
		}
		return net.DialTimeout(network, address, cfg.Transfer)
	}
	sc, err := ftp.Dial(cfg.Addr, ftp.DialWithDialFunc(dial), ftp.DialWithTimeout(cfg.Transfer))
	if err != nil {
		conn.Close()
		c.Outcome, c.Detail = OtherError, err.Error()
		return c
	}
	defer sc.Quit()
	tl := time.Now()
	if err := sc.Login(cfg.User, cfg.Pass); err != nil {
		c.Outcome, c.Detail = classifyErr(err, LoginFailed), err.Error()
		return c
	}
	c.Login = time.Since(tl)
	n := 0
	for _, st := range cfg.Script {
		n += st.Times
	}
	c.Commands = make([]time.Duration, 0, n)
	first := true
	for _, st := range cfg.Script {
		for range st.Times {
			if time.Now().After(deadline) {
				c.Outcome, c.Detail = OtherError, "the run's cap was reached"
				return c
			}
			if cfg.Think > 0 {
				time.Sleep(cfg.Think)
			}
			ts := time.Now()
			n, err := step(cfg, sc, st)
			c.Commands = append(c.Commands, time.Since(ts))
			c.Bytes += n
			if first && err == nil {
				c.FirstByte, first = time.Since(t0), false
			}
			if err != nil {
				c.Outcome, c.Detail = classifyErr(err, TransferBroken), err.Error()
				return c
			}
		}
	}
	c.Outcome = OK
	return c
}

// greeted is a connection whose 220 was already read: the library reads a
// greeting first, so it is handed one again.
type greeted struct {
	net.Conn
	replayed bool
}

func (g *greeted) Read(b []byte) (int, error) {
	if !g.replayed {
		g.replayed = true
		return copy(b, "220 greeting read by the load generator\r\n"), nil
	}
	return g.Conn.Read(b)
}

// readReply reads one reply's first line.
func readReply(c net.Conn) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for len(b) < 4096 {
		n, err := c.Read(one)
		if n == 1 {
			b = append(b, one[0])
			if one[0] == '\n' {
				return string(b), nil
			}
		}
		if err != nil {
			return string(b), err
		}
	}
	return string(b), errors.New("a greeting line over 4 KiB")
}

// step runs one script command and returns the bytes it moved.
func step(cfg *Config, sc *ftp.ServerConn, st Step) (int64, error) {
	switch st.Verb {
	case "LIST":
		ents, err := sc.List("/")
		return int64(len(ents)), err
	case "NOOP":
		return 0, sc.NoOp()
	case "PWD":
		_, err := sc.CurrentDir()
		return 0, err
	}
	size, err := sc.FileSize(st.Arg)
	if err != nil {
		return 0, err
	}
	r, err := sc.Retr(st.Arg)
	if err != nil {
		return 0, err
	}
	h := sha256.New()
	n, err := io.Copy(h, r)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, err
	}
	if n != size {
		return n, fmt.Errorf("%w: %d bytes of %d", errShort, n, size)
	}
	if want, ok := cfg.Expect[st.Arg]; ok && hex.EncodeToString(h.Sum(nil)) != want {
		return n, fmt.Errorf("%w: sha256 differs", errShort)
	}
	return n, nil
}

var errShort = errors.New("transfer short or wrong")
