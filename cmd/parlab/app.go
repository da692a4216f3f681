package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/term"

	"parlab/scan"
	"parlab/spawn"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // bad data, or a run that failed
	exitUsage = 2
	exitBug   = 3 // a panic: a bug in parlab, never the input's fault
)

// app is one invocation: its streams, and hooks that tests replace.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// fixTimes, if set, overwrites a report's measured times, so golden
	// tests can compare whole outputs.
	fixTimes func(*spawn.Report)
	// tty reports whether w is a terminal (progress bars go only there).
	tty func(w any) bool
	// ncpu, if set, is the core count in place of runtime.NumCPU (golden
	// tests fix it).
	ncpu int
}

// cores is the machine's core count: a query's default worker count.
func (a *app) cores() int {
	if a.ncpu > 0 {
		return a.ncpu
	}
	return runtime.NumCPU()
}

// usageError is a mistake on the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// helpText is parlab's overview: helpTemplate with the strategies and
// splits filled in from spawn's registries (TestHelpFromRegistries checks
// that every query flag, strategy and split is in it).
// It is made when first printed, not as every start's initialiser.
var helpText = sync.OnceValue(func() string {
	return strings.NewReplacer(
		"{strategies}", strings.Join(registryNames(spawn.Strategies(), spawn.Strategy.Name), "|"),
		"{splits}", strings.Join(registryNames(spawn.Splits(), spawn.Split.String), "|"),
		"{aggregates}", aggUsage(),
	).Replace(helpTemplate)
})

// aggUsage is the usage of scan.AggFuncs' flags, four a line.
func aggUsage() string {
	var b strings.Builder
	for i, f := range scan.AggFuncs {
		if i > 0 && i%4 == 0 {
			b.WriteString("\n               ")
		} else if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString("[--" + f.Flag + " " + f.Arg + "]")
	}
	return b.String()
}

// registryNames is each entry's name.
func registryNames[T any](entries []T, name func(T) string) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = name(e)
	}
	return out
}

const helpTemplate = `parlab: one analytic query over CSV files, run every way the machine allows,
and an FTP server whose concurrency model is a flag.

Usage:
  parlab gen   [--rows 1000000] [--files 20] [--seed 1] [--out data/sales-1M] [--force]
  parlab query [--where 'COLUMN OP VALUE']... [--any 'COL OP VAL' --any …] [--by COL,COL]
               {aggregates}
               [--sort 'COL[:desc]'] [--limit N] [--select 'COL,COL|*']
               [--io mmap|readat|read] [--populate] [--strategy {strategies}]
               [--workers N] [--split {splits}] [--timeout 3s] [--max-memory 8GiB]
               [--delimiter ,|;|'|'|tab] [--no-header] [--comment '#'] [--skip N] [--null NA,NULL] [--ragged]
               [--types COL=KIND,…] [--date-format '%d/%m/%Y'] [--decimal-comma] [--max-ratio 1000]
               [--skip-bad-rows] [--rejects FILE] [--format text|csv|tsv|json | --json | --csv] [--verbose] PATH...
  parlab bench [--strategies seq,goroutines,processes] [--splits file-naive,file,rows,dynamic,keys]
               [--workers 1,2,4,8,16,20] [--trials 5] [--warmup 1] [query's --where, --by, --sum …]
               [--json FILE|-] [--log FILE] [--plot DIR] [--cold] [--fit-all] [PATH...]
  parlab report FILE.json [--compare OLD.json] [--plot DIR] [--html OUT.html] [--markdown | --csv]
  parlab spawn [--n 256] [--rounds 10] [--methods goroutine,thread,fork,forkexec-self,forkexec-worker,forkexec-session,forkexec-session-plain,forkexec-go,forkexec-true]
               [--modes batch,serial,create] [--touch MB] [--json]
  parlab menu  [PATH...]   (prompts for approach, column, value, workers; default data/sales-1M)
  parlab cache [--warm] [PATH...]   (how the page cache holds the files; --warm reads them in 2 MiB folios)
  parlab ftp serve --root DIR [--listen 127.0.0.1:2121] [--model single|goroutines|batch|pool]
               [--workers N] [--backlog N] [--users FILE] [--anonymous] [--pasv-ports 50000-50999]
               [--tls-cert F --tls-key F [--allow-plain] [--no-tls-reuse]] [--max-conns N] [--max-per-ip N] [--idle 5m] [--log FILE|-]
  parlab ftp passwd NAME   (reads the password from stdin; prints a --users line)
  parlab ftp load  [--addr 127.0.0.1:2121] [--users N] [--delay 50ms] [--arrivals fixed|poisson]
               [--script 'LIST*60,RETR img.bin'] [--think 0ms] [--user U --pass P]
               [--timeout connect=5s,greeting=10s,transfer=30s] [--cap 5m] [--seed 1]
               [--clients goroutines|processes] [--json FILE|-] [--log FILE|-]
  parlab ftp experiment [--models single,goroutines,batch,pool,processes] [--peers vsftpd]
               [--sweeps backlog,users,delay,idle] [--trials 1] [--think 50ms] [--think-only] [--quick] [--out out/ftp]
  parlab help [CMD]     (a command's flags and examples; CMD --help too)
  parlab --version

A PATH is a CSV file or a directory (all its *.csv files, in name order),
or - for standard input; .tsv/.tab files are tab-separated, another's
delimiter is what its first line has (, else a tab, ; or |), .gz and .zst
files are decompressed (--delimiter and --no-header to say otherwise). With
no aggregate named, a query counts rows (and sums Total Revenue and Total
Profit where the files have both); --select prints the matching rows instead.
COLUMN is any header name, case-insensitive; region, country, item and channel
are short for the Sales Records columns. OP is = != < <= > >=: = and != compare
bytes, and the same number or day written another way when the value is one
(437.2 = 437.20); the others compare numbers, dates (M/D/YYYY [H:MM AM], D.M.YYYY, YYYY-MM-DD, Jan 2 2006 …) or
bytes, by the value; every --where must hold. Spaces around OP are not part of
the value. With no --strategy it runs goroutines, one per core.

Exit status: 0 success, 1 bad data or a failed run, 2 bad usage, 3 a bug in parlab.
`

// Main runs parlab with args (without the program name) and returns the exit
// status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, tty: isTerminal}
	return a.main(args)
}

func (a *app) main(args []string) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(a.stderr, "parlab: internal error (a bug in parlab; please report it with the command line): %v\n%s", p, debug.Stack())
			code = exitBug
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(a.stderr, helpText())
		return exitUsage
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "gen":
		err = a.gen(rest)
	case "query":
		err = a.query(rest)
	case "menu":
		err = a.menu(rest)
	case "bench":
		err = a.bench(rest)
	case "report":
		err = a.report(rest)
	case "spawn":
		err = a.spawnLab(rest)
	case "ftp":
		err = a.ftp(rest)
	case "cache":
		err = a.cache(rest)
	case "help", "-h", "--help", "-help":
		if len(rest) == 0 {
			fmt.Fprint(a.stdout, helpText())
			return exitOK
		}
		if _, ok := commands[rest[0]]; !ok || rest[0] == "help" {
			err = unknownCommand(rest[0])
			break
		}
		return a.main([]string{rest[0], "--help"})
	case "version", "--version", "-version":
		fmt.Fprintln(a.stdout, version())
		return exitOK
	default:
		err = unknownCommand(cmd)
	}
	if err == nil || errors.Is(err, errHelp) || errors.Is(err, syscall.EPIPE) {
		return exitOK // (EPIPE: a reader closed standard output, as head does once it has its lines)
	}
	fmt.Fprintf(a.stderr, "parlab: %v\n", err)
	if errors.Is(err, spawn.ErrBug) {
		return exitBug
	}
	if pe := new(scan.ParseError); errors.As(err, &pe) && errors.Is(err, scan.ErrSyntax) {
		if scan.IsDecimalComma(pe.Value) {
			fmt.Fprintf(a.stderr, "parlab: %q has a decimal comma: --decimal-comma reads it as a number\n", pe.Value)
		}
		fmt.Fprint(a.stderr, nullHint(pe))
	}
	if errors.Is(err, scan.ErrShortRow) {
		fmt.Fprintf(a.stderr, "parlab: --ragged reads the fields a short row lacks as missing values\n")
	}
	if errors.As(err, new(usageError)) {
		fmt.Fprintf(a.stderr, "Run 'parlab help' for usage.\n")
		return exitUsage
	}
	return exitFail
}

// parseFlags parses flags that may come before, between or after the
// positional arguments ("parlab query data/ --where region=Europe" works),
// and returns the positional ones.
func (a *app) parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printHelp(a.stdout, fs)
				return nil, errHelp
			}
			return nil, flagError(fs, err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// isTerminal reports whether w is a terminal (golang.org/x/term).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// splitList splits a comma-separated flag value, trimming spaces.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
