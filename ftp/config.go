package ftp

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"parlab/internal/names"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Model is how the server runs its sessions.
type Model int

const (
	Single     Model = iota // one session at a time
	Goroutines              // a goroutine a connection
	Batch                   // every waiting connection, served by N workers, the whole batch waited for
	Pool                    // N workers fed by a bounded queue; full: 421
	Processes               // a process a connection (vsftpd's model)
)

// modelTable is the registry of models, in Model order: each one's name and
// what it does, for parsing and for help text.
var modelTable = names.Table{
	{Name: "single", Help: "one session at a time"},
	{Name: "goroutines", Help: "a goroutine a connection"},
	{Name: "batch", Help: "every waiting connection served by N workers, the batch waited for"},
	{Name: "pool", Help: "N workers fed by a bounded queue"},
	{Name: "processes", Help: "a child process a connection, vsftpd's model"},
}

func (m Model) String() string { return modelTable.Name(int(m)) }

// ParseModel takes a model's name.
func ParseModel(s string) (Model, error) {
	i, err := modelTable.Parse("model", s)
	return Model(i), err
}

// MarshalText and UnmarshalText name a Model in flags (flag.TextVar) and
// JSON.
func (m Model) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

func (m *Model) UnmarshalText(b []byte) error { return names.Unmarshal(modelTable, "model", b, m) }

// ModelHelp lists the models and what each does, for help text.
func ModelHelp() string { return modelTable.Help() }

// Config is a server's whole setting. Zero values of the limits take the
// defaults in Defaults.
type Config struct {
	Root  string // the directory served; nothing outside it is reachable
	Model Model
	// Workers: batch, the workers serving a batch (Defaults.Workers, the
	// reference's OpenMP team); pool, its long-lived workers (PoolWorkers).
	Workers   int
	Queue     int // pool: connections waiting for a worker
	Users     map[string][]byte
	Anonymous bool // "anonymous" and "ftp" may log in, read-only
	// PasvMin, PasvMax: the passive ports (0, 0: any the kernel gives).
	PasvMin, PasvMax   int
	MaxConns, MaxPerIP int
	Idle, DataTimeout  time.Duration
	LoginDelay         time.Duration // before a failed login's reply; negative: none
	MaxLine            int
	// TLS, if set, offers AUTH TLS (explicit FTPS); else CertFile and
	// KeyFile (PEM), if set, make it. Every model serves it: the processes
	// model hands the certificate and key to its session processes.
	TLS               *TLSConfig
	CertFile, KeyFile string
	// AllowPlain: with TLS configured, let users log in and move data in
	// the clear. By default such a server refuses a login other than
	// anonymous before AUTH TLS (530), and that login's data connections
	// before PROT P (521), as vsftpd's force_local_logins_ssl and
	// force_local_data_ssl do.
	AllowPlain bool
	// AllowNoReuse: let a PROT P data connection start a TLS session of
	// its own. By default it must resume its control connection's (522
	// otherwise), as vsftpd's require_ssl_reuse has it: else whoever
	// reaches the passive port first and handshakes gets the data.
	// Python's ftplib does not resume (a subclass can: docs/ftp.md).
	AllowNoReuse bool
	// Exe is the binary the processes model starts ("": where make build
	// made them, parlab-session-plain for a server without TLS and
	// parlab-session for one with it, else this program; child.Exe).
	Exe string
	// Log, if set, gets one JSON line a session.
	Log io.Writer
	// Errors, if set, gets a line for each fault the server survives (a
	// failed accept, a session process that could not start), at most one
	// a second.
	Errors io.Writer

	dummy     []byte   // a session process's: its parent's dummy hash
	usersFile *os.File // a session process's: its parent's users (usersTable)
	// inSession is set in a session process, which serves its one
	// connection and starts no other process (so it keeps no copy of the
	// certificate to hand on).
	inSession bool
}

// Defaults are the limits a zero Config gets: vsftpd's and RFC 1123's
// choices where they have one.
var Defaults = Config{Workers: 8, Queue: 64, MaxConns: 2000, MaxPerIP: 50, Idle: 5 * time.Minute,
	DataTimeout: time.Minute, LoginDelay: time.Second, MaxLine: 4096}

// PoolWorkers is the pool's size when Workers is not set. A pool serves at
// most Workers sessions at once, and an FTP session holds its worker for
// its whole life, idle between commands, not only while it computes: a
// pool must hold λ·W sessions (arrivals a second times a session's length,
// Little's law), not one a core. 256 is Apache prefork's MaxRequestWorkers,
// and holds the load lab's heaviest load (68 sessions open at once) with
// room; 8 workers failed it (docs/ftp.md).
const PoolWorkers = 256

func (c *Config) fill() {
	d := Defaults
	if c.Model == Pool {
		orDefault(&c.Workers, PoolWorkers)
	}
	orDefault(&c.Workers, d.Workers)
	orDefault(&c.Queue, d.Queue)
	orDefault(&c.MaxConns, d.MaxConns)
	orDefault(&c.MaxPerIP, d.MaxPerIP)
	orDefault(&c.Idle, d.Idle)
	orDefault(&c.DataTimeout, d.DataTimeout)
	orDefault(&c.MaxLine, d.MaxLine)
	if c.LoginDelay == 0 { // negative: none, and stays so, so that fill can run twice (a session process's does)
		c.LoginDelay = d.LoginDelay
	}
}

// orDefault sets *v to d unless it is positive.
func orDefault[T int | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// ReadUsers reads a users file: one "name:bcrypt-hash" a line; blank lines
// and lines starting with # are skipped.
func ReadUsers(path string) (map[string][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	users := map[string][]byte{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, hash, ok := strings.Cut(line, ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("%s:%d: want name:bcrypt-hash", path, n)
		}
		if _, err := bcrypt.Cost([]byte(hash)); err != nil {
			return nil, fmt.Errorf("%s:%d: user %q: not a bcrypt hash (%v)", path, n, name, err)
		}
		users[name] = []byte(hash)
	}
	return users, sc.Err()
}

// PasswdLine is a users-file line for name and password.
func PasswdLine(name, password string) (string, error) {
	if name == "" || strings.ContainsAny(name, ":\r\n") {
		return "", fmt.Errorf("a user name must be non-empty, without ':' or line breaks")
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return "", err
	}
	return name + ":" + string(h), nil
}
