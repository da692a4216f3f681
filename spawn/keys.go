package spawn

import (
	"bytes"
	"context"
	"fmt"

	"parlab/scan"
)

// The auto split's sample (see manyKeys): sampleSpots pieces of sampleBytes,
// spread evenly over the data set's bytes; a group-by is one of many keys
// if at least sampleRows of the sampled rows match and nine in ten of them
// have a key no other sampled row has. 16 × 64 KiB is about 9,000 Sales
// Records rows: most are distinct only if there are some hundred thousand
// keys or more (for K keys, n rows hold about n²/2K repeats). The sample
// stops early once sampleRows rows show few keys.
const (
	sampleSpots = 16
	sampleBytes = 64 << 10
	sampleRows  = 2048
)

// manyKeys reports whether the Set's query is a group-by whose keys are
// mostly distinct in a sample of its rows: the query the keys split is for.
// The sample is advice, and changes no answer: a piece it cannot read or
// scan to its end (a quote, a fault, a bad value) counts the rows before
// the fault, and the scan proper reports what is wrong.
func (s *Set) manyKeys() bool {
	if len(s.Query.By) == 0 {
		return false
	}
	var r scan.Result
	many := func() bool { return r.Groups != nil && int64(r.Groups.Len())*10 >= r.Matched*9 }
	buf := make([]byte, sampleBytes)
	lastF, lastEnd := -1, 0 // where the last piece ended: pieces do not overlap
	var sampled int64       // the bytes of the pieces scanned whole
	for k := range sampleSpots {
		if r.Matched >= sampleRows && !many() {
			return false // enough rows that say few keys: no need to read on
		}
		f, off := s.spot(s.Bytes * int64(k) / sampleSpots)
		a, b := s.body(f)
		if off = max(off, a); f == lastF {
			off = max(off, lastEnd)
		}
		n := min(sampleBytes, b-off)
		lastF, lastEnd = f, off+max(n, 0)
		if n <= 0 {
			continue
		}
		u := Unit{File: f, Start: off, End: off + n}
		s.guard(u, func() error {
			if err := s.Files[f].ReadAt(buf[:n], off); err != nil {
				return err
			}
			piece := buf[:n]
			if off > a { // the first row may have begun before off
				i := bytes.IndexByte(piece, '\n')
				if i < 0 {
					return nil
				}
				piece, off = piece[i+1:], off+i+1
			}
			if off+len(piece) < b { // the last row may go on after the piece
				piece = piece[:bytes.LastIndexByte(piece, '\n')+1]
			}
			v := s.Tables[f].View(piece, off)
			err := v.Scan(0, len(piece), &r) // (into r: a Result a piece cost more than the scan)
			if err == nil {
				sampled += int64(len(piece))
			}
			return err
		})
	}
	if r.Matched < sampleRows || !many() {
		return false
	}
	// As many groups a byte as the sample has: an overestimate where
	// keys repeat beyond it, at most one group a row. What is reserved is
	// address space, faulted in as groups come; it is kept to a group per
	// groupRoom bytes of --max-memory (4 GiB without one), so that an
	// inflated estimate cannot ask for more than the machine has.
	if sampled > 0 {
		room := s.Query.MaxHeld
		if room <= 0 {
			room = 4 << 30
		}
		s.expect = min(int64(r.Groups.Len())*s.Bytes/sampled, room/groupRoom)
	}
	return true
}

// groupRoom bounds the bytes a reserved group may take (its key, count,
// sums and index entry: about 150 for a key of 9 bytes and one sum).
const groupRoom = 256

// spot is the file and offset in it of byte at of the Set's files taken
// end to end.
func (s *Set) spot(at int64) (file, off int) {
	for i, f := range s.Files {
		if at < int64(f.Size()) || i == len(s.Files)-1 {
			return i, int(min(at, int64(f.Size())))
		}
		at -= int64(f.Size())
	}
	return 0, 0
}

// mergeKeys is merge for the keys split: every unit must be done, the first
// error in file order fails the run (each part met it: they read the same
// rows), and the parts' results, the units' that are not folded into their
// worker's and owned, are put together by scan.MergeParts.
func (s *Set) mergeKeys(ctx context.Context, p *Plan, out []unitOutcome, owned []*scan.Result, workers int) (scan.Result, error) {
	first := -1
	for i, u := range p.Units {
		if !out[i].done {
			return scan.Result{}, fmt.Errorf("unit %d (%s, key part %d of %d) was never scanned", i, s.Names[u.File], u.Part.K, u.Part.N)
		}
		if out[i].err != nil && (first < 0 || u.File < p.Units[first].File ||
			u.File == p.Units[first].File && scan.ErrorBefore(out[i].err, out[first].err)) {
			first = i
		}
	}
	if first >= 0 {
		// A part passes over a row whose key another part owns (it need
		// not read the key), so two parts may fail in one file at
		// different rows, and a child's error is only its message: the
		// file is read again whole, once, for its first error, as a
		// sequential scan meets it. (One part failing there has it.)
		f, failed := p.Units[first].File, 0
		for i, u := range p.Units {
			if u.File == f && out[i].err != nil {
				failed++
			}
		}
		if failed > 1 {
			a, b := s.body(f)
			var r scan.Result
			if err := s.guard(s.WholeFile(f), func() error {
				_, err := s.scanRows(ctx, f, a, b, &r, true)
				return err
			}); err != nil {
				return scan.Result{}, err
			}
		}
		return scan.Result{}, out[first].err
	}
	var parts []*scan.Result
	for i := range out {
		if !out[i].folded {
			parts = append(parts, &out[i].res)
		}
	}
	for _, r := range owned {
		if r.Part.N > 0 { // a worker that scanned nothing owns nothing
			parts = append(parts, r)
		}
	}
	return scan.MergeParts(parts, p.Workers, workers)
}
