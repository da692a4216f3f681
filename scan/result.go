package scan

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// MaxSums is how many columns one query can sum.
const MaxSums = 8

// Result is what a scan of some rows found. Its fixed part (everything but
// Groups) has no pointers, so workers can each own one and the parent merges
// them; a group-by keeps its groups in Groups, which grows with the number
// of distinct keys. It owns its merge (Merge), its equality (Equal) and its
// encoding for the child protocol (AppendBinary, DecodeResult for the fixed
// part; Groups.AppendBinary and DecodeGroups for the variable one).
//
// Sums, Mins and Maxs are indexed by aggregate slot (see Spec.Aggs); a query
// without group-by keeps its figures here, a group-by in Groups. hotWalk
// (hot_amd64.s) writes Rows, Matched and Sums by their offsets: new fields go
// after them.
type Result struct {
	Rows    int64 // data rows scanned (blank lines and headers are not rows)
	Matched int64 // rows that passed the filter
	// Quoted counts the rows whose quotes are not all simple fields'
	// (rowSimple: a quoted delimiter or line end, a doubled quote, a quote
	// inside a bare field; see quoteBatch): rows that only the full parser
	// reads. It is the data's, the same whichever path took a row.
	Quoted int64
	Sums   [MaxSums]Fixed
	Mins   [MaxSums]Extreme
	Maxs   [MaxSums]Extreme
	// Skipped counts, per aggregate slot, the matching rows whose value
	// was missing (an empty field): the slot's sum, minimum, maximum and
	// average are over the others (Present). Only the general paths see a
	// missing value (the fast ones hand such a row over), so a file with
	// none pays nothing for it.
	Skipped [MaxSums]int64
	// Words holds, per slot, the minimum and maximum among its values
	// that are dates or text (see Word); nil until a slot sees one. A
	// group-by keeps its words in Groups.
	Words  map[int]*Words
	Groups *Groups
	// QuotedLines counts the rows whose quoted fields hold a line end
	// (of Quoted): a row split's cut, moved to a line start, can fall
	// inside only such a row, which the unit before it scans whole (and
	// says so in Over).
	QuotedLines int64
	// Bad counts the rows left out as bad (Query.SkipBad), Rejects keeps
	// them (the first maxRejects), each with its place and reason.
	Bad     int64
	Rejects []Reject
	// Over, for a unit of a row split (spawn sets it): how far the unit's
	// last row ran past the rows it was given, 0 where they ended at a row's
	// end. Past 0 the next unit's first line is inside that row (a quoted
	// field holding a line end), and its answer is not the file's. Merge
	// and Equal ignore it.
	Over int64
	// Part, for a key split: a group-by's scan into this Result keeps only
	// the groups of the keys in Part (see KeyPart); every row still counts
	// in Rows. Merge and Equal ignore it, and it is not in the binary
	// form: the parent of a key split knows each unit's part.
	Part KeyPart
	// Out, for a query that selects rows: the matching rows, written in
	// its format (see OutFormat), in the order scanned; a scan that stops
	// at Query.Limit writes that many and counts the rest in Matched.
	// Merge appends o's after r's, so results merged in file order hold
	// the file's order.
	Out []byte
	// Held estimates the bytes the holistic aggregates' state holds (see
	// distinctCost): what a run bounds by Query.MaxHeld. Merge adds it;
	// Equal and the binary form leave it out.
	Held int64
	// Expect, if above 0, is how many groups a scan into this Result may
	// make: the first group made reserves room for that many (arrays and
	// index), so that millions of groups are not grown by copies into
	// fresh memory, each doubling. A hint: it changes no answer, Merge and
	// Equal ignore it, and it is not in the binary form.
	Expect int
	// hol caches Words's entries for the holistic aggregates of a query
	// without group-by (holWords), as Groups.hol does. A copy of a Result
	// is only merged from, never scanned into, so no copy writes through
	// another's cache.
	hol [MaxSums]*Words
}

// holWords is slot k's Words, made if new, through hol.
func (r *Result) holWords(k int) *Words {
	if w := r.hol[k]; w != nil {
		return w
	}
	w := slotWords(&r.Words, k)
	r.hol[k] = w
	return w
}

// Merge adds o into r. Sums are exact and cannot overflow (see Fixed), so
// the merged answer is the same digits whatever the order.
func (r *Result) Merge(o *Result) {
	for i := range r.Sums {
		r.Sums[i].AddFixed(o.Sums[i])
		r.Mins[i].mergeMin(o.Mins[i])
		r.Maxs[i].mergeMax(o.Maxs[i])
		r.Skipped[i] += o.Skipped[i]
	}
	mergeWords(&r.Words, o.Words, 0)
	if o.Groups != nil {
		if r.Groups == nil {
			r.Groups = newGroups(o.Groups.Slots, o.Groups.Need)
		}
		r.Groups.Merge(o.Groups)
	}
	r.Rows += o.Rows
	r.Matched += o.Matched
	r.Quoted += o.Quoted
	r.QuotedLines += o.QuotedLines
	r.Bad += o.Bad
	r.Out = append(r.Out, o.Out...)
	r.Held += o.Held
	r.Rejects = append(r.Rejects, o.Rejects[:min(len(o.Rejects), maxRejects-min(len(r.Rejects), maxRejects))]...)
}

// Equal reports whether r and o are the same answer: the same counts and
// Equal sums (however each sum is split between its parts).
func (r *Result) Equal(o *Result) bool {
	if r.Rows != o.Rows || r.Matched != o.Matched || r.Quoted != o.Quoted || r.QuotedLines != o.QuotedLines || r.Skipped != o.Skipped || r.Bad != o.Bad ||
		!equalWords(r.Words, o.Words) || !bytes.Equal(r.Out, o.Out) {
		return false
	}
	for i := range r.Sums {
		if !r.Sums[i].Equal(o.Sums[i]) || r.Mins[i] != o.Mins[i] || r.Maxs[i] != o.Maxs[i] {
			return false
		}
	}
	return r.Groups.Equal(o.Groups)
}

// ResultSize is the length of the binary form of a Result's fixed part.
const ResultSize = 8 * (3 + sumWords*MaxSums + 4*MaxSums + MaxSums + 3)

// sumWords is a sum's length in ResultSize's words: V, Scale and C.
const sumWords = 2 + wideWords

// AppendBinary appends the binary form of r's fixed part: ResultSize bytes,
// every field a little-endian 64-bit word in declaration order (Rows,
// Matched, Quoted, then per sum V, Scale, C[0] to C[4], then per minimum
// and then per maximum M and S, S being -1 for no value, then per slot
// Skipped, then Bad, QuotedLines and Over). Words and Groups are not in it:
// see AppendVar.
func (r *Result) AppendBinary(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(b, uint64(r.Rows))
	b = le.AppendUint64(b, uint64(r.Matched))
	b = le.AppendUint64(b, uint64(r.Quoted))
	for _, s := range r.Sums {
		b = le.AppendUint64(b, uint64(s.V))
		b = le.AppendUint64(b, uint64(s.Scale))
		for _, w := range s.C {
			b = le.AppendUint64(b, w)
		}
	}
	for _, xs := range [2]*[MaxSums]Extreme{&r.Mins, &r.Maxs} {
		for _, x := range xs {
			s := int64(-1)
			if x.Set {
				s = int64(x.S)
			}
			b = le.AppendUint64(b, uint64(x.M))
			b = le.AppendUint64(b, uint64(s))
		}
	}
	for _, n := range r.Skipped {
		b = le.AppendUint64(b, uint64(n))
	}
	b = le.AppendUint64(b, uint64(r.Bad))
	b = le.AppendUint64(b, uint64(r.QuotedLines))
	return le.AppendUint64(b, uint64(r.Over))
}

// Present is how many matching rows had slot k's value.
func (r *Result) Present(k int) int64 { return r.Matched - r.Skipped[k] }

// DecodeResult reads what AppendBinary wrote.
func DecodeResult(b []byte) (Result, error) {
	var r Result
	if len(b) < ResultSize {
		return r, fmt.Errorf("result: %d bytes, want %d", len(b), ResultSize)
	}
	le := binary.LittleEndian
	word := func(i int) uint64 { return le.Uint64(b[8*i:]) }
	r.Rows, r.Matched, r.Quoted = int64(word(0)), int64(word(1)), int64(word(2))
	for i := range r.Sums {
		k := 3 + sumWords*i
		s := &r.Sums[i]
		s.V, s.Scale = int64(word(k)), int64(word(k+1))
		for w := range s.C {
			s.C[w] = word(k + 2 + w)
		}
		if s.Scale < 0 || s.Scale > MaxScale {
			return r, fmt.Errorf("result: sum %d has scale %d", i, s.Scale)
		}
	}
	k := 3 + sumWords*MaxSums
	for _, xs := range [2]*[MaxSums]Extreme{&r.Mins, &r.Maxs} {
		for i := range xs {
			m, s := int64(word(k)), int64(word(k+1))
			k += 2
			if s < -1 || s > MaxScale {
				return r, fmt.Errorf("result: extreme %d has scale %d", i, s)
			}
			if s >= 0 {
				xs[i] = Extreme{m, int8(s), true}
			}
		}
	}
	for i := range r.Skipped {
		if r.Skipped[i] = int64(word(k)); r.Skipped[i] < 0 {
			return r, fmt.Errorf("result: slot %d skipped %d values", i, r.Skipped[i])
		}
		k++
	}
	if r.Bad, r.QuotedLines, r.Over = int64(word(k)), int64(word(k+1)), int64(word(k+2)); r.Bad < 0 || r.QuotedLines < 0 || r.QuotedLines > r.Quoted || r.Over < 0 {
		return r, fmt.Errorf("result: %d bad rows, %d quoted rows over lines of %d, %d bytes past the unit", r.Bad, r.QuotedLines, r.Quoted, r.Over)
	}
	return r, nil
}

// AppendVar appends the binary form of r's variable part, its Words and
// Groups, its Rejects and Out, to b; it appends nothing if r has none. The
// form is a byte of flags (1 words, 2 groups, 4 rejects, 8 rows out), then
// the words (appendWords), the rejects (appendRejects), the rows out (a
// uvarint length and the bytes), then the groups (Groups.AppendBinary) to
// the end.
func (r *Result) AppendVar(b []byte) []byte {
	var flags byte
	if len(r.Words) > 0 {
		flags |= 1
	}
	if r.Groups != nil {
		flags |= 2
	}
	if len(r.Rejects) > 0 {
		flags |= 4
	}
	if len(r.Out) > 0 {
		flags |= 8
	}
	if flags == 0 {
		return b
	}
	b = append(b, flags)
	if flags&1 != 0 {
		b = appendWords(b, r.Words)
	}
	if flags&4 != 0 {
		b = appendRejects(b, r.Rejects)
	}
	if flags&8 != 0 {
		b = binary.AppendUvarint(b, uint64(len(r.Out)))
		b = append(b, r.Out...)
	}
	if flags&2 != 0 {
		b = r.Groups.AppendBinary(b)
	}
	return b
}

// DecodeVar reads into r what AppendVar wrote (b not empty); the bytes are
// copied out of b.
func (r *Result) DecodeVar(b []byte) error {
	if len(b) == 0 || b[0] == 0 || b[0] > 15 {
		return fmt.Errorf("result: malformed variable part")
	}
	flags := b[0]
	b = b[1:]
	if flags&1 != 0 {
		w, rest, err := decodeWords(b, MaxSums)
		if err != nil {
			return err
		}
		r.Words, b = w, rest
	}
	if flags&4 != 0 {
		rs, rest, err := decodeRejects(b)
		if err != nil {
			return err
		}
		r.Rejects, b = rs, rest
	}
	if flags&8 != 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || n == 0 || n > uint64(len(b)-k) {
			return fmt.Errorf("result: malformed rows out")
		}
		r.Out, b = bytes.Clone(b[k:k+int(n)]), b[k+int(n):]
	}
	if flags&2 == 0 {
		if len(b) != 0 {
			return fmt.Errorf("result: %d bytes after the variable part", len(b))
		}
		return nil
	}
	g, err := DecodeGroups(b)
	if err != nil {
		return err
	}
	r.Groups = g
	return nil
}

// makeGroups gives r its Groups, for a query of slots aggregate slots and
// need, with room for r.Expect groups; a key split's part 0 has array room
// for every part's (the index for its own), as MergeParts puts the other
// parts' groups after its own, in place (concatGroups).
func (r *Result) makeGroups(slots int, need Need) *Groups {
	r.Groups = newGroups(slots, need)
	if r.Expect > 0 {
		r.Groups.reserve(r.Expect)
		if r.Part.N > 1 && r.Part.K == 0 {
			r.Groups.reserveArrays(r.Expect * int(r.Part.N))
		}
	}
	return r.Groups
}
