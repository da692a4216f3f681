// Command parlab-worker is the processes strategy's lean child: the query
// engine's worker mode (package spawn) and the no-op the spawn lab times,
// and nothing else linked, so that a worker starts in about the time of a
// minimal Go program (internal/child's WorkerExe says when it is used).
// It is not run by hand: with no child mode in its arguments it says so
// and exits 2.
package main

import (
	"os"

	"parlab/internal/child"
	_ "parlab/spawn" // registers the worker mode
)

func main() {
	if code, ok := child.Run(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(child.NotByHand(os.Stderr, "parlab-worker", "parlab query --strategy processes"))
}
