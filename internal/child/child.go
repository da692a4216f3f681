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
	"errors"
	"fmt"
	"sort"
	"sync"
	"syscall"
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

// Unreaped returns an error if this process has a child that is running or
// not yet waited for (wait4 with WNOHANG finds one): the tests' check that
// nothing was left behind. A child that has exited is reaped by asking.
func Unreaped() error {
	var ws syscall.WaitStatus
	pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
	if errors.Is(err, syscall.ECHILD) {
		return nil
	}
	return fmt.Errorf("a child is left: wait4 gave pid %d, %v", pid, err)
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
