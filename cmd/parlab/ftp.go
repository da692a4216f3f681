package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"parlab/ftp"
	"parlab/ftp/experiment"
	"parlab/ftp/load"
)

func (a *app) ftp(args []string) error {
	if len(args) == 0 {
		return usagef("ftp wants a subcommand: serve, passwd, load or experiment")
	}
	switch args[0] {
	case "help", "-h", "--help", "-help":
		c := commands["ftp"]
		fmt.Fprintf(a.stdout, "%s\n\nEach subcommand's flags: parlab ftp SUB --help\n\nExamples:\n  %s\n", c.synopsis,
			strings.ReplaceAll(c.examples, "\n", "\n  "))
		return errHelp
	case "serve":
		return a.ftpServe(args[1:])
	case "passwd":
		return a.ftpPasswd(args[1:])
	case "load":
		return a.ftpLoad(args[1:])
	case "experiment":
		return a.ftpExperiment(args[1:])
	}
	return usagef("unknown ftp subcommand %q (want serve, passwd, load or experiment)", args[0])
}

func (a *app) ftpServe(args []string) error {
	fs := flag.NewFlagSet("ftp serve", flag.ContinueOnError)
	root := fs.String("root", "", "the directory to serve (required); nothing outside it is reachable")
	listen := fs.String("listen", "127.0.0.1:2121", "address to listen on (port 0: any)")
	model := ftp.Goroutines
	fs.TextVar(&model, "model", ftp.Goroutines, "the concurrency model: "+ftp.ModelHelp())
	workers := fs.Int("workers", 0, fmt.Sprintf("batch: workers a batch (default %d); pool: workers, each holding a session for its life (default %d)", ftp.Defaults.Workers, ftp.PoolWorkers))
	queue := fs.Int("queue", ftp.Defaults.Queue, "pool: connections waiting for a worker (more get 421)")
	backlog := fs.Int("backlog", 32, "the listen(2) backlog, exactly")
	users := fs.String("users", "", "users file (name:bcrypt-hash lines; parlab ftp passwd makes one)")
	anon := fs.Bool("anonymous", false, "allow read-only anonymous logins (anonymous, ftp)")
	pasv := fs.String("pasv-ports", "", "passive port range, e.g. 50000-50999 (default: any)")
	cert := fs.String("tls-cert", "", "certificate (PEM) for AUTH TLS")
	key := fs.String("tls-key", "", "its key (PEM)")
	maxConns := fs.Int("max-conns", ftp.Defaults.MaxConns, "sessions at once (more get 421)")
	maxPerIP := fs.Int("max-per-ip", ftp.Defaults.MaxPerIP, "sessions at once from one address (more get 421)")
	idle := fs.Duration("idle", ftp.Defaults.Idle, "close an idle control connection (421) after this long; never during a transfer")
	dataTimeout := fs.Duration("data-timeout", ftp.Defaults.DataTimeout, "drop a data connection that does not come or stalls this long")
	loginDelay := fs.Duration("login-delay", ftp.Defaults.LoginDelay, "answer a failed login after this long")
	grace := fs.Duration("grace", 10*time.Second, "on SIGINT or SIGTERM, let sessions finish this long, then 421 the rest")
	logTo := fs.String("log", "", "one JSON line a session to FILE, or - for stdout")
	allowPlain := fs.Bool("allow-plain", false, "with --tls-cert: let users log in and move data without TLS (by default only anonymous logins may: vsftpd's force_local_logins_ssl and force_local_data_ssl)")
	noReuse := fs.Bool("no-tls-reuse", false, "with --tls-cert: let a PROT P data connection start a TLS session of its own (by default it must resume its control connection's, vsftpd's require_ssl_reuse; Python's ftplib does not)")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("ftp serve takes no arguments")
	}
	if *root == "" {
		return usagef("ftp serve: --root DIR is required")
	}
	cfg := ftp.Config{Root: *root, Workers: *workers, Queue: *queue, Anonymous: *anon, MaxConns: *maxConns,
		MaxPerIP: *maxPerIP, Idle: *idle, DataTimeout: *dataTimeout, LoginDelay: *loginDelay}
	if *loginDelay == 0 {
		cfg.LoginDelay = -1 // none (ftp.Config's zero is the default)
	}
	cfg.Model = model
	if *pasv != "" {
		lo, hi, ok := strings.Cut(*pasv, "-")
		l, e1 := strconv.Atoi(lo)
		h, e2 := strconv.Atoi(hi)
		if !ok || e1 != nil || e2 != nil || l < 1024 || h < l || h > 65535 {
			return usagef("--pasv-ports wants LOW-HIGH within 1024-65535, got %q", *pasv)
		}
		cfg.PasvMin, cfg.PasvMax = l, h
	}
	if *users != "" {
		if cfg.Users, err = ftp.ReadUsers(*users); err != nil {
			return err
		}
	}
	if len(cfg.Users) == 0 && !*anon {
		return usagef("ftp serve: nobody could log in: give --users FILE or --anonymous")
	}
	if (*cert == "") != (*key == "") {
		return usagef("--tls-cert and --tls-key go together")
	}
	cfg.CertFile, cfg.KeyFile = *cert, *key // ftp.New loads them, for every model
	cfg.AllowPlain, cfg.AllowNoReuse = *allowPlain, *noReuse
	cfg.Errors = a.stderr
	logw, closeLog, err := a.logTo(*logTo)
	if err != nil {
		return err
	}
	defer closeLog()
	cfg.Log = logw
	srv, err := ftp.New(cfg)
	if err != nil {
		return err
	}
	ln, err := ftp.Listen(*listen, *backlog)
	if err != nil {
		return err
	}
	// A reader of the log or of stdout that goes away (--log - | head)
	// must not kill the server: writes to it fail instead (EPIPE). The
	// signals are caught before the line that says the server is ready.
	signal.Ignore(syscall.SIGPIPE)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	fmt.Fprintf(a.stdout, "parlab ftp: serving %s on %s (model %s, backlog %d)\n", *root, ln.Addr(), cfg.Model, ftp.Backlog(*backlog))
	if f, ok := a.stdout.(interface{ Sync() error }); ok {
		f.Sync()
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	for {
		select {
		case err := <-done:
			return err
		case s := <-sigs:
			if s == syscall.SIGHUP { // keep serving; reread the users file
				a.reloadUsers(srv, *users)
				continue
			}
			fmt.Fprintf(a.stderr, "parlab ftp: %v: stopping (sessions get %v to finish)\n", s, *grace)
			srv.Shutdown(*grace)
			return <-done
		}
	}
}

// reloadUsers is ftp serve's SIGHUP: the --users file read again, its
// logins the server's from the next PASS on; on an error the old ones
// stay. Either way it says so on stderr.
func (a *app) reloadUsers(srv *ftp.Server, path string) {
	if path == "" {
		fmt.Fprintf(a.stderr, "parlab ftp: hangup: still serving (no --users file to reread)\n")
		return
	}
	users, err := ftp.ReadUsers(path)
	if err == nil {
		err = srv.SetUsers(users)
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "parlab ftp: hangup: %v: still serving with the users before\n", err)
		return
	}
	fmt.Fprintf(a.stderr, "parlab ftp: hangup: %d users read again from %s\n", len(users), path)
}

// ftpPasswd prints a users-file line; the password is read from stdin (one
// line), so it is not in the shell's history or the process list.
func (a *app) ftpPasswd(args []string) error {
	fs := flag.NewFlagSet("ftp passwd", flag.ContinueOnError)
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("ftp passwd NAME (the password is read from standard input)")
	}
	pw, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && err != io.EOF {
		return err
	}
	pw = strings.TrimRight(pw, "\r\n")
	if pw == "" {
		return usagef("ftp passwd: an empty password")
	}
	line, err := ftp.PasswdLine(pos[0], pw)
	if err != nil {
		return usagef("ftp passwd: %v", err)
	}
	fmt.Fprintln(a.stdout, line)
	return nil
}

// logTo opens a --log: nothing for "", stdout for "-", else FILE, appended
// to. The caller defers done.
func (a *app) logTo(name string) (w io.Writer, done func(), err error) {
	switch name {
	case "":
		return nil, func() {}, nil
	case "-":
		return a.stdout, func() {}, nil
	}
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// ftpLoad runs the load generator and prints its report (or JSON).
func (a *app) ftpLoad(args []string) error {
	fs := flag.NewFlagSet("ftp load", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:2121", "the server (loopback unless --allow-remote)")
	users := fs.Int("users", 10, "clients, arriving one after another")
	delay := fs.Duration("delay", 50*time.Millisecond, "between arrivals (the mean, with --arrivals poisson)")
	var arrivals load.Arrivals
	fs.TextVar(&arrivals, "arrivals", load.Fixed, "how arrivals are spaced: "+load.ArrivalsHelp())
	script := fs.String("script", "LIST*2", "each client's commands: LIST, NOOP, PWD or RETR FILE, each with an optional *N")
	think := fs.Duration("think", 0, "pause before each command (a client far away)")
	user := fs.String("user", "anonymous", "login name")
	pass := fs.String("pass", "load@parlab", "password")
	timeouts := fs.String("timeout", "connect=5s,greeting=10s,transfer=30s", "each phase's bound")
	capF := fs.Duration("cap", 5*time.Minute, "the whole run's bound")
	seed := fs.Uint64("seed", 1, "seed of the Poisson arrivals")
	jsonOut := fs.String("json", "", "write the run as JSON to FILE, or - for stdout")
	remote := fs.Bool("allow-remote", false, "allow a server off this machine")
	var clients load.Clients
	fs.TextVar(&clients, "clients", load.ClientGoroutines, "what runs each client: "+load.ClientsHelp())
	logTo := fs.String("log", "", "each client as it ends, a JSON line, appended to FILE, or - for stdout")
	idle := fs.Int("idle", 0, "a capacity run instead: hold N idle logged-in sessions, measure the server's memory (PSS of its process tree) and tasks, and time --fresh sessions meanwhile")
	hold := fs.Duration("hold", 10*time.Second, "--idle: how long the N are held")
	fresh := fs.Int("fresh", 50, "--idle: fresh sessions (login, RETR --fresh-file, QUIT) timed while the N are held")
	freshFile := fs.String("fresh-file", "", "--idle: the file each fresh session downloads (none: login and QUIT)")
	serverPid := fs.Int("server-pid", 0, "--idle: the server's pid (default: the process listening on --addr)")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("ftp load takes no arguments")
	}
	if *idle > 0 {
		if err := load.CheckAddr(*addr, false); err != nil {
			return usagef("--addr: %v", err)
		}
		if *hold < 0 || *fresh < 0 {
			return usagef("--hold and --fresh must not be negative")
		}
		res, err := load.Idle(load.IdleConfig{Addr: *addr, Sessions: *idle, Hold: *hold, Fresh: *fresh, FreshFile: *freshFile,
			User: *user, Pass: *pass, ServerPid: *serverPid})
		if err != nil {
			return err
		}
		res.WriteText(a.stdout)
		return nil
	}
	cfg := load.Config{Addr: *addr, Users: *users, Delay: *delay, Arrivals: arrivals, Clients: clients, Think: *think,
		User: *user, Pass: *pass, Cap: *capF, Seed: *seed, AllowRemote: *remote,
		Connect: 5 * time.Second, Greeting: 10 * time.Second, Transfer: 30 * time.Second}
	if *users < 1 || *delay < 0 || *think < 0 || *capF <= 0 {
		return usagef("ftp load: --users at least 1, --delay and --think not negative, --cap positive")
	}
	for _, kv := range splitList(*timeouts) {
		k, v, ok := strings.Cut(kv, "=")
		d, err := time.ParseDuration(v)
		if !ok || err != nil || d <= 0 {
			return usagef("--timeout %q: want connect=5s,greeting=10s,transfer=30s", kv)
		}
		switch k {
		case "connect":
			cfg.Connect = d
		case "greeting":
			cfg.Greeting = d
		case "transfer":
			cfg.Transfer = d
		default:
			return usagef("--timeout: unknown phase %q (connect, greeting, transfer)", k)
		}
	}
	if cfg.Script, err = load.ParseScript(*script); err != nil {
		return usagef("--script: %v", err)
	}
	if err := load.CheckAddr(*addr, *remote); err != nil {
		return usagef("--addr: %v", err)
	}
	logw, closeLog, err := a.logTo(*logTo)
	if err != nil {
		return err
	}
	defer closeLog()
	cfg.Log = logw
	if a.tty(a.stderr) {
		cfg.Progress = a.progressBar("load", int64(*users)).withTotal()
	}
	res, err := load.Run(cfg)
	if err != nil {
		return err
	}
	if cfg.Progress != nil {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	out := io.Writer(a.stdout)
	if *jsonOut != "" {
		if out, err = a.jsonTo(*jsonOut, res); err != nil {
			return err
		}
	}
	res.WriteText(out)
	return nil
}

// ftpExperiment runs the load lab's sweeps against every model (and
// vsftpd) and writes the report into --out.
func (a *app) ftpExperiment(args []string) error {
	fs := flag.NewFlagSet("ftp experiment", flag.ContinueOnError)
	models := fs.String("models", "single,goroutines,batch,pool,processes", "parlab's models to run, of "+ftp.ModelHelp()+"; pool:N or batch:N sets its workers")
	peers := fs.String("peers", "vsftpd", "outside servers to run on the same points (vsftpd; none: \"\")")
	sweeps := fs.String("sweeps", "backlog,users,delay,idle", "the sweeps to run: the reference's backlog, users and delay, and idle (C10K: N = 100, 1,000, 3,000, 10,000 idle sessions held; 20 and 200 with --quick)")
	trials := fs.Int("trials", 1, "runs of every point and server")
	quick := fs.Bool("quick", false, "small points, a couple of minutes in all")
	think := fs.Duration("think", 50*time.Millisecond, "every point runs again with this pause between commands (a client a continent away); 0: not")
	thinkOnly := fs.Bool("think-only", false, "run only the points with --think, not those without")
	out := fs.String("out", "out/ftp", "directory for experiment.json, experiment.txt and plots/")
	maxUsers := fs.Int("max-users", 0, "the users sweep goes on past 450, 50 at a time with the servers that have not failed, up to this many (0: 1000; none in a quick run)")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("ftp experiment takes no arguments")
	}
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	cfg := experiment.Config{Bin: bin, Models: splitList(*models), Peers: splitList(*peers), Sweeps: splitList(*sweeps),
		Trials: *trials, Quick: *quick, Think: *think, ThinkOnly: *thinkOnly, Out: *out, MaxUsers: *maxUsers}
	for _, m := range cfg.Models {
		if _, _, err := experiment.ParseModel(m); err != nil {
			return usagef("--models: %v", err)
		}
	}
	for _, sw := range cfg.Sweeps {
		if _, err := experiment.Points(sw, false, 0); err != nil {
			return usagef("--sweeps: %v", err)
		}
	}
	if *trials < 1 || *think < 0 {
		return usagef("--trials must be at least 1 and --think not negative")
	}
	if *thinkOnly && *think == 0 {
		return usagef("--think-only needs --think above 0")
	}
	if a.tty(a.stderr) {
		bar := a.progressBar("ftp experiment", 1).withTotal()
		cfg.Progress = func(done, total int, what string) { bar(done, total) }
	} else { // a line a tenth of the way, with the time left at the pace so far
		t0, shown := time.Now(), -1
		cfg.Progress = func(done, total int, what string) {
			if tenth := 10 * done / max(total, 1); tenth != shown {
				shown = tenth
				left := "?"
				if done > 0 {
					left = (time.Since(t0) * time.Duration(total-done) / time.Duration(done)).Round(time.Second).String()
				}
				fmt.Fprintf(a.stderr, "ftp experiment: run %d of %d (%s), %s left\n", done+1, total, what, left)
			}
		}
	}
	// what the servers say goes to a log beside the results, not here
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	slog, err := os.Create(filepath.Join(*out, "servers.log"))
	if err != nil {
		return err
	}
	defer slog.Close()
	cfg.ServerLog = slog
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	doc, err := experiment.Run(ctx, cfg)
	if err != nil && doc == nil {
		return err
	}
	files, werr := doc.Write(*out)
	if werr != nil {
		return werr
	}
	doc.WriteText(a.stdout)
	fmt.Fprintf(a.stdout, "wrote %s and %d plot files\n", strings.Join(files[:2], ", "), len(files)-2)
	return err
}
