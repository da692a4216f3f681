// Command parlab answers one filter-and-sum query over CSV files as fast as
// the machine allows, with several ways of running it in parallel, and
// measures why one beats another. Run "parlab help" for the commands.
package main

import (
	"os"

	"parlab/internal/child"
	"parlab/spawn"
	_ "parlab/spawn/lab" // registers its mode; the CLI imports it anyway
)

func main() {
	// A child of the processes strategy (or of the spawn lab) is this binary
	// in a hidden mode: it must be caught before anything else runs.
	if code, ok := child.Run(os.Args); ok {
		os.Exit(code)
	}
	code := Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	spawn.EndMPI(code) // an MPI rank: finalise, or abort the job if this rank failed
	os.Exit(code)
}
