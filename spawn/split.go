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
)

var splitNames = []string{"file-naive", "file", "rows", "dynamic"}

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
