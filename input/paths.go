package input

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ExpandPaths turns the command line's PATHs into a list of files. A PATH
// is a path, never a pattern (glob characters in it are plain bytes):
//   - a file is taken as it is, and must be a regular file (a symlink to one
//     is fine) or a pipe, which Stage reads as it reads standard input
//     (bash's process substitution, <(zcat x.gz), names one: /dev/fd/63);
//   - "-" is standard input (Stage reads it);
//   - a directory gives the entries whose names end in ".csv", ".tsv" or
//     ".tab", each perhaps followed by ".gz" or ".zst", in any case
//     (".csv", ".CSV") and do not start with "." (hidden files, and the
//     ".tmp" leftovers of an interrupted gen, end otherwise), in byte order
//     of their names, not recursing. Such an entry that is not a regular
//     file (a FIFO, a directory, a broken symlink) is an error naming it;
//     a directory that gives no file is one too, and so is one that holds
//     a "*.csv.tmp" file (ErrUnfinished).
//
// Nothing is opened here, so nothing can block: Open checks each file
// again when it opens it.
func ExpandPaths(paths []string) ([]string, error) { return expand(paths, false) }

// ExpandPathsElsewhere is ExpandPaths where a file may be on another host:
// a PATH that does not exist here is kept as it is, for the process that
// has it to open (the mpi strategy's file splits: a rank opens only its own
// files, and fails loudly on one it lacks).
func ExpandPathsElsewhere(paths []string) ([]string, error) { return expand(paths, true) }

func expand(paths []string, elsewhere bool) ([]string, error) {
	var out []string
	stdin := false
	for _, p := range paths {
		if p == Stdin {
			if stdin {
				return nil, errors.New("standard input (-) is named twice")
			}
			stdin = true
			out = append(out, p)
			continue
		}
		st, err := os.Stat(p)
		if elsewhere && errors.Is(err, fs.ErrNotExist) {
			out = append(out, p)
			continue
		}
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			if !st.Mode().IsRegular() && !IsPipe(st) {
				return nil, fmt.Errorf("%s: %w", p, ErrNotRegular)
			}
			out = append(out, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, err // permission denied says so
		}
		n := 0
		for _, e := range ents { // ReadDir sorts by name
			name := e.Name()
			if hasSuffixFold(name, ".csv.tmp") {
				return nil, fmt.Errorf("%s: %w", filepath.Join(p, name), ErrUnfinished)
			}
			if strings.HasPrefix(name, ".") || !dataName(name) {
				continue
			}
			fp := filepath.Join(p, name)
			fst, err := os.Stat(fp)
			if err != nil {
				return nil, err
			}
			if !fst.Mode().IsRegular() {
				return nil, fmt.Errorf("%s: %w", fp, ErrNotRegular)
			}
			out = append(out, fp)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no .csv (.tsv, .tab, .gz, .zst) files in this directory", p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no input files")
	}
	return out, nil
}

// IsPipe reports whether st is a pipe's: a FIFO, or the pipe that bash's
// <(…) hands over as /dev/fd/N.
func IsPipe(st os.FileInfo) bool { return st.Mode()&os.ModeNamedPipe != 0 }

// ErrUnfinished: a directory holds the temporary file of a parlab gen that
// did not finish, so its data set is not complete.
var ErrUnfinished = errors.New("left by a parlab gen that did not finish: the data set is not complete (run parlab gen again)")

// dataName reports whether a directory entry's name is a data file's:
// .csv, .tsv or .tab, perhaps compressed (.gz, .zst).
func dataName(name string) bool {
	for _, z := range []string{"", ".gz", ".zst"} {
		for _, ext := range []string{".csv", ".tsv", ".tab", ".ndjson", ".jsonl"} {
			if hasSuffixFold(name, ext+z) {
				return true
			}
		}
	}
	return false
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// Stdin is the PATH that names standard input.
const Stdin = "-"
