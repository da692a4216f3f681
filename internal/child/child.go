// Package child is the ground floor of parlab's child processes: the
// registry of hidden child modes (a package that starts its own binary as
// a child, the processes strategy's workers, the spawn lab's no-op, the FTP
// server's per-session processes, registers the mode's argv[1] and entry
// point here, in an init function, and main and every TestMain call Run
// first thing), which binary a child starts from (Exe: a lean one beside
// parlab, built from the same sources, or parlab itself), how every child
// starts (Start) and gets its job (WriteJob, ReadJob), and the tests'
// check that no child is left (Reaped).
// So no package needs to know the others' modes, the dispatcher is one
// function, and the FTP server does not stand on the query engine: this
// package imports nothing of parlab.
package child

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

var (
	mu    sync.Mutex
	modes = map[string]func(args []string) int{}
)

// Register adds a hidden mode: a process whose argv[1] is arg runs main(args)
// (args is the whole os.Args) and exits with its result. arg should start
// with "__parlab_" so no user's command line looks like it. Registering an
// arg twice is a programming error: it panics.
func Register(arg string, main func(args []string) int) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := modes[arg]; dup {
		panic(fmt.Sprintf("child: mode %q registered twice", arg))
	}
	modes[arg] = main
}

// Run runs this process as a child if args (os.Args) name a registered mode,
// and returns the mode's exit status and true; otherwise 0 and false. Call
// it before flags or anything else run:
//
//	if code, ok := child.Run(os.Args); ok {
//		os.Exit(code)
//	}
func Run(args []string) (int, bool) {
	if len(args) < 2 {
		return 0, false
	}
	mu.Lock()
	main, ok := modes[args[1]]
	mu.Unlock()
	if !ok {
		return 0, false
	}
	return main(args), true
}

// Modes lists the registered modes' args, sorted.
func Modes() []string {
	mu.Lock()
	defer mu.Unlock()
	var out []string
	for a := range modes {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// Unreaped returns an error naming every child this process has, running
// or exited and not yet waited for: the tests' check that nothing was left
// behind. It only looks (/proc/self/task/*/children), and never reaps: a
// wait4(-1) would take another goroutine's child and its status from under
// it. Every child of the process counts, so it is a check for a test that
// is not parallel (Go runs a package's parallel tests only after its
// sequential ones, so a sequential test sees its own children alone).
func Unreaped() error {
	kids := Children()
	if len(kids) == 0 {
		return nil
	}
	var b strings.Builder
	for i, pid := range kids {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "pid %d", pid)
		if comm, state, ok := Stat(pid); ok {
			fmt.Fprintf(&b, " (%s, state %c)", comm, state)
		}
	}
	return fmt.Errorf("%d children left: %s", len(kids), b.String())
}

// Stat is process pid's command name and state (R, S, D, Z, …) from
// /proc/PID/stat; ok is false if there is no such process.
func Stat(pid int) (comm string, state byte, ok bool) {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i, j := bytes.IndexByte(st, '('), bytes.LastIndexByte(st, ')')
	if err != nil || i < 0 || j < i || j+2 >= len(st) {
		return "", 0, false
	}
	return string(st[i+1 : j]), st[j+2], true
}

// Children lists this process's child processes (every thread's), running
// or exited and not yet waited for, without waiting for any.
func Children() []int {
	var out []int
	files, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		for _, w := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(w); err == nil {
				out = append(out, pid)
			}
		}
	}
	sort.Ints(out)
	return out
}

// Reaped fails t (a *testing.T) if this process has a child left, as
// Unreaped tells: the check every test of child processes ends with.
func Reaped(t interface {
	Helper()
	Error(args ...any)
}) {
	t.Helper()
	if err := Unreaped(); err != nil {
		t.Error(err)
	}
}
