package scan

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// allClassifiers lists every classifier this CPU runs, by name.
func allClassifiers() map[string]func([]byte, *marks, int, byte) tally {
	all := map[string]func([]byte, *marks, int, byte) tally{}
	for _, c := range classifiers() {
		name := [...]string{useGeneric: "generic", useAVX2: "avx2", useAVX512: "avx512"}[c]
		all[name] = func(src []byte, m *marks, v0 int, sep byte) tally { return classifyWith(c, src, m, v0, sep, 0) }
		if c != useGeneric { // (with the prefetch past the window, as classifyAhead runs it)
			all[name+" ahead"] = func(src []byte, m *marks, v0 int, sep byte) tally { return classifyWith(c, src, m, v0, sep, winBytes) }
		}
	}
	return all
}

// hotModes lists the ways bulk can take its rows on this CPU, each as a
// func that switches to it and names it: the portable loop (with quoted
// rows copied by the portable compress), and hotWalk if the CPU runs it,
// first in compress mode wherever a plan allows it (see hotPlan.compress)
// with every quoted row read by the full parser (no quotedBatch), then as
// it runs (last, so that it stays on). Under -short (the race run: these
// paths run on one goroutine, and the full run checks them all) only the
// last, the one that runs.
func hotModes() []func() string {
	vector := dequoter
	modes := []func() string{func() string {
		hotAsm, quotedBatches, dequoter = false, true, dequotePortable
		return "portable"
	}}
	run := func() string {
		hotAsm, compressRows, quotedBatches, dequoter = true, minCompressRows, true, vector
		return "hotWalk"
	}
	if testing.Short() && cpu.X86.HasBMI1 && cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT {
		return []func() string{run}
	}
	if cpu.X86.HasBMI1 && cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT {
		modes = append(modes,
			func() string {
				hotAsm, compressRows, quotedBatches = true, 0, false
				return "hotWalk, compress mode from the start, full parser for quotes"
			},
			run)
	}
	return modes
}
