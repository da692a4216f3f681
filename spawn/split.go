package spawn

import (
	"fmt"
	"strings"
)

// Split is how a Plan cuts the work among workers.
type Split int

const (
	// SplitFileNaive is the reference project's split: F/N files per worker
	// (integer division), the last worker taking the remainder.
	SplitFileNaive Split = iota
	// SplitFile gives worker j files [j·F/N, (j+1)·F/N).
	SplitFile
	// SplitRows cuts all files together into N equal byte ranges, each
	// boundary moved to the next row start.
	SplitRows
	// SplitDynamic hands out small row-aligned chunks from a shared cursor.
	SplitDynamic
	// SplitKeys is a group-by's key split: every worker scans every file
	// whole and keeps only the groups of its part of the keys (see
	// scan.KeyPart), so the workers' groups are put end to end, not
	// merged. It costs each worker the whole scan, and saves the merge and
	// the cache misses of one worker's share of a group-by of millions of
	// keys, where a row split's workers each build tables of nearly every
	// key.
	SplitKeys
	// SplitAuto is SplitKeys for a group-by whose sampled rows show many
	// keys (see Set.manyKeys), SplitRows for any other query: the default.
	SplitAuto
)

var splitNames = []string{"file-naive", "file", "rows", "dynamic", "keys", "auto"}

func (s Split) String() string { return splitNames[s] }

// ParseSplit parses a split's name.
func ParseSplit(name string) (Split, error) {
	for i, n := range splitNames {
		if n == name {
			return Split(i), nil
		}
	}
	return 0, fmt.Errorf("unknown split %q (want %s)", name, strings.Join(splitNames, ", "))
}
