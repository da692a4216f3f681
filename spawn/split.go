package spawn

import "parlab/internal/names"

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

	// The splits a Report names that no one asks for (ParseSplit refuses
	// them; Splits leaves them out):

	// SplitNone: one worker took every file whole (seq).
	SplitNone
	// SplitStream: a stream's blocks of Config.Chunk bytes, cut at row
	// ends, handed out in the order they were read.
	SplitStream
)

// splits is the registry of splits, in Split order: each one's name and
// what it does, for parsing and for help text.
var splits = names.Table{
	{Name: "file-naive", Help: "F/N files a worker, the last taking the rest (the reference's)"},
	{Name: "file", Help: "files [j·F/N, (j+1)·F/N) to worker j"},
	{Name: "rows", Help: "N equal byte ranges cut at row starts"},
	{Name: "dynamic", Help: "2 MiB chunks from a shared cursor"},
	{Name: "keys", Help: "a group-by: every worker reads every row and keeps its part of the keys"},
	{Name: "auto", Help: "keys for a group-by whose sampled rows are mostly distinct keys, else rows"},
}

func (s Split) String() string {
	switch s {
	case SplitNone:
		return ""
	case SplitStream:
		return "stream"
	}
	return splits.Name(int(s))
}

// Streamable are the splits under which a strategy that can scan a stream
// while it reads it does so (Caps.Streams).
type Streamable int

const (
	StreamNever     Streamable = iota
	StreamAlways               // any split: one worker reads the stream (seq)
	StreamRowSplits            // the rows, dynamic and auto splits (goroutines)
)

// streams reports whether a strategy whose streams are st scans a stream
// under split s.
func (s Split) streams(st Streamable) bool {
	switch st {
	case StreamAlways:
		return true
	case StreamRowSplits:
		return s == SplitRows || s == SplitDynamic || s == SplitAuto
	}
	return false
}

// ParseReportedSplit parses a split as a Report names it: a split's
// name, or SplitNone's ("") or SplitStream's ("stream"), which a saved
// report holds and no one asks for.
func ParseReportedSplit(name string) (Split, error) {
	switch name {
	case "":
		return SplitNone, nil
	case "stream":
		return SplitStream, nil
	}
	return ParseSplit(name)
}

// ParseSplit parses a split's name.
func ParseSplit(name string) (Split, error) {
	i, err := splits.Parse("split", name)
	return Split(i), err
}

// MarshalText and UnmarshalText name a Split in flags (flag.TextVar) and
// JSON.
func (s Split) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Split) UnmarshalText(b []byte) error { return names.Unmarshal(splits, "split", b, s) }

// Splits lists every split, in order: the menu's choices.
func Splits() []Split {
	out := make([]Split, len(splits))
	for i := range out {
		out[i] = Split(i)
	}
	return out
}

// SplitHelp lists the splits and what each does, for help text.
func SplitHelp() string { return splits.Help() }
