package load

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"parlab/internal/child"
)

// ClientArg is argv[1] of a client process (Config.Processes): a hidden
// mode registered with package child, so parlab's main (and the TestMain
// of a package that runs such loads) can be that client.
const ClientArg = "__parlab_ftp_client"

func init() { child.Register(ClientArg, clientMain) }

// clientJob is what a client process is told, as JSON in argv[2]: the
// session's settings, its number, and the run's start and deadline as wall
// clock nanoseconds (the one clock two processes read alike).
type clientJob struct {
	Addr, User, Pass            string
	Script                      []Step
	Think                       time.Duration
	Connect, Greeting, Transfer time.Duration
	Expect                      map[string]string
	ID                          int
	StartUnixNano, DeadlineNano int64
}

// runProcess runs client id as its own process (in client mode: the lean
// parlab-session where make build made it, else this program:
// child.Exe; as the reference forked its clients), and returns what it saw: the
// child prints its Client as one JSON line. A child that fails to start,
// dies or prints nothing is a client with outcome "other error" saying so.
func runProcess(cfg *Config, id int, start, deadline time.Time) Client {
	job := clientJob{Addr: cfg.Addr, User: cfg.User, Pass: cfg.Pass, Script: cfg.Script, Think: cfg.Think,
		Connect: cfg.Connect, Greeting: cfg.Greeting, Transfer: cfg.Transfer, Expect: cfg.Expect, ID: id,
		StartUnixNano: start.UnixNano(), DeadlineNano: deadline.UnixNano()}
	b, _ := json.Marshal(job)
	c := Client{ID: id, Arrive: time.Since(start), Outcome: OtherError}
	cmd := exec.Command(child.Exe(child.SessionName), ClientArg, string(b))
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		c.Detail = "client process: " + err.Error()
		return c
	}
	if err := cmd.Start(); err != nil {
		c.Detail = "client process did not start: " + err.Error()
		return c
	}
	var got Client
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	ok := sc.Scan() && json.Unmarshal(sc.Bytes(), &got) == nil
	werr := cmd.Wait()
	switch {
	case !ok:
		c.End, c.Detail = time.Since(start), fmt.Sprintf("client process said nothing (%v)", werr)
		return c
	case werr != nil:
		c.End, c.Detail = time.Since(start), fmt.Sprintf("client process: %v", werr)
		return c
	}
	return got
}

// clientMain is a client process's whole life: one session, its Client
// printed as one JSON line on stdout.
func clientMain(args []string) int {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "parlab ftp client: want one job")
		return 2
	}
	var job clientJob
	if err := json.Unmarshal([]byte(args[2]), &job); err != nil {
		fmt.Fprintf(os.Stderr, "parlab ftp client: %v\n", err)
		return 2
	}
	cfg := Config{Addr: job.Addr, User: job.User, Pass: job.Pass, Script: job.Script, Think: job.Think,
		Connect: job.Connect, Greeting: job.Greeting, Transfer: job.Transfer, Expect: job.Expect}
	c := runClient(&cfg, job.ID, time.Unix(0, job.StartUnixNano), time.Unix(0, job.DeadlineNano))
	b, _ := json.Marshal(c)
	os.Stdout.Write(append(b, '\n'))
	return 0
}

// cpuTime is the user and system time of this process (RUSAGE_SELF) and of
// its reaped children (RUSAGE_CHILDREN).
func cpuTime() (self, children time.Duration) {
	var ru syscall.Rusage
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = tv(ru.Utime) + tv(ru.Stime)
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		children = tv(ru.Utime) + tv(ru.Stime)
	}
	return self, children
}
