// Command parlab answers one filter-and-sum query over CSV files as fast as
// the machine allows, with several ways of running it in parallel, and
// measures why one beats another. Run "parlab help" for the commands.
package main

import (
	"os"
	"os/signal"
	"syscall"

	"parlab/internal/child"
	_ "parlab/lab" // registers its mode; the CLI imports it anyway
	"parlab/spawn"
)

func main() {
	// A child of the processes strategy (or of the spawn lab) is this binary
	// in a hidden mode: it must be caught before anything else runs.
	if code, ok := child.Run(os.Args); ok {
		os.Exit(code)
	}
	pipeAsError()
	code := Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	spawn.EndMPI(code) // an MPI rank: finalise, or abort the job if this rank failed
	os.Exit(code)
}

// pipeAsError makes standard output closed early (| head) an error that a
// write returns, EPIPE, which a command ends on quietly (app.main), not a
// signal that kills the process: Go's runtime raises SIGPIPE for fd 1 and
// 2 only while no channel is notified of it.
func pipeAsError() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) }
