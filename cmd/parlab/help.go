package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
)

// commands are parlab's subcommands, each with its synopsis and two
// examples, which `parlab help CMD` and `CMD --help` print above its flags.
var commands = map[string]struct{ synopsis, examples string }{
	"gen": {"parlab gen [flags]: write the Sales Records data set",
		"parlab gen --rows 1000000 --files 20 --out data/sales-1M\nparlab gen --rows 10000000 --seed 7 --out /tmp/s10m --force"},
	"query": {"parlab query [flags] PATH...: one query over CSV files (- for standard input)",
		"parlab query --where 'date>=Feb 1 2024' --by city --sum km testdata/trips.csv\ngzip -dc big.csv.gz | parlab query --where Region=Europe --json -"},
	"menu": {"parlab menu [flags] [PATH...]: the reference's menu, at prompts",
		"parlab menu data/sales-1M\nprintf '3\\n1\\nEurope\\n2\\n3\\n-\\nn\\n' | parlab menu"},
	"bench": {"parlab bench [flags] [PATH...]: the study, every strategy, split and worker count",
		"parlab bench --workers 1,2,4 --trials 10 data/sales-1M\nparlab bench --by Country --json out/bench.json data/sales-1M"},
	"report": {"parlab report [flags] FILE.json: re-render a saved study",
		"parlab report out/bench.json --html out/report.html\nparlab report new.json --compare old.json"},
	"spawn": {"parlab spawn [flags]: the spawn-cost lab (processes, threads, goroutines)",
		"parlab spawn --n 256 --rounds 10\nparlab spawn --methods fork,forkexec-self --modes serial --json"},
	"ftp": {"parlab ftp serve|passwd|load|experiment [flags]: the FTP server and its load lab",
		"parlab ftp serve --root data/sales-1M --anonymous --listen 127.0.0.1:2121\nparlab ftp experiment --quick --out out/ftp"},
	"cache": {"parlab cache [flags] [PATH...]: how the page cache holds the files",
		"parlab cache data/sales-1M\nparlab cache --warm data/sales-1M"},
	"help": {"parlab help [CMD]: this help, or a command's", "parlab help\nparlab help query"},
}

// errHelp: a command's help was asked for and printed; parlab exits 0.
var errHelp = errors.New("help shown")

// printHelp prints fs's command's synopsis, a line per flag (with its --
// name, its default and its usage) and the command's examples.
func printHelp(w io.Writer, fs *flag.FlagSet) {
	name := fs.Name()
	c, ok := commands[strings.Fields(name)[0]]
	if ok {
		fmt.Fprintf(w, "%s\n\nFlags:\n", c.synopsis)
	} else {
		fmt.Fprintf(w, "parlab %s\n\nFlags:\n", name)
	}
	fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if kind != "" {
			line += " " + kind
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			line += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, usage)
	})
	if ok {
		fmt.Fprintf(w, "\nExamples:\n")
		for _, e := range strings.Split(c.examples, "\n") {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}

// nearest is the candidate closest to s by edit distance, if it is close
// enough to be a typo (at most 2 edits, and fewer than s's length), else "".
func nearest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD && d < len(s) {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is Levenshtein's distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// commandNames lists the subcommands, sorted.
func commandNames() []string {
	var out []string
	for c := range commands {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// unknownCommand is the usage error for an unknown subcommand, with the
// nearest one suggested.
func unknownCommand(cmd string) error {
	if s := nearest(cmd, commandNames()); s != "" {
		return usagef("unknown command %q: did you mean %q?", cmd, s)
	}
	return usagef("unknown command %q (want %s)", cmd, strings.Join(commandNames(), ", "))
}

// flagError is the usage error for a flag fs did not parse, with the
// nearest flag suggested for an unknown one.
func flagError(fs *flag.FlagSet, err error) error {
	const undefined = "flag provided but not defined: -"
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, undefined); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if s := nearest(strings.TrimLeft(name, "-"), names); s != "" {
			return usagef("%s: unknown flag --%s: did you mean --%s?", fs.Name(), strings.TrimLeft(name, "-"), s)
		}
		return usagef("%s: unknown flag --%s", fs.Name(), strings.TrimLeft(name, "-"))
	}
	// a value a flag refused (flag.TextVar's types parse themselves):
	// the flag named as it is typed, then the parser's own words
	if m := badValue().FindStringSubmatch(msg); m != nil {
		return usagef("--%s: %s", m[1], m[2])
	}
	return usagef("%s: %v", fs.Name(), err)
}

// badValue is the flag package's message for a value a flag refused.
var badValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^invalid value ".*" for flag -([\w-]+): (.*)$`)
})

// version is parlab's version and the commit it was built from, as the Go
// toolchain recorded them in the binary.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "parlab (no build information)"
	}
	v := bi.Main.Version
	commit, modified := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	out := "parlab " + v
	if commit != "" {
		out += ", commit " + commit
		if modified {
			out += " (with uncommitted changes)"
		}
	}
	return out + ", " + bi.GoVersion
}
