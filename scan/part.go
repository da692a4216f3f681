package scan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// KeyPart names one of N parts of a group-by's keys, for a key split: N
// workers each scan every row, and each keeps only the groups whose key
// falls in its part, so that no two of them hold the same key and their
// groups are put end to end (MergeParts), not merged key by key. A key's
// part is a fixed hash of its bytes (partHash), the same in every process.
// The zero KeyPart (and any with N ≤ 1) keeps every key.
type KeyPart struct {
	K, N int32
}

// has reports whether key (a group key, see groupKey) falls in part p.
func (p KeyPart) has(key []byte) bool {
	if p.N <= 1 {
		return true
	}
	hi, _ := bits.Mul64(partHash(key), uint64(p.N))
	return int32(hi) == p.K
}

// checkPart is the error of a scan into a Result whose Part cannot be
// used with the table's query (nil if it can).
func (t *Table) checkPart(p KeyPart) error {
	if p.N <= 1 && p.K == 0 {
		return nil
	}
	if p.K < 0 || p.K >= p.N {
		return fmt.Errorf("key part %d of %d: no such part", p.K, p.N)
	}
	if g := t.b.gen; g == nil || g.keys == nil {
		return errors.New("a key split needs a group-by: without one every row has the same (empty) key")
	}
	return nil
}

// partHash is a key's hash for KeyPart: fixed constants, so every process
// of a run computes the same, and a multiply-mix per 16 bytes (the hash of
// a ≤ 15-byte key, an Order ID's, is two multiplications).
func partHash(key []byte) uint64 {
	const k1, k2, k3 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
	h := uint64(len(key)) * k3
	for len(key) > 16 {
		h = mix(binary.LittleEndian.Uint64(key)^h^k1, binary.LittleEndian.Uint64(key[8:])^k2)
		key = key[16:]
	}
	lo, hi := padWords(key)
	return mix(mix(lo^h^k1, hi^k2), k3)
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// MergeParts merges the results of a key split's workers, rs[i] holding
// part rs[i].Part of n (several results may hold one part: their groups
// are merged first, as MergeAll would, with up to workers goroutines). Each
// part scanned every row, so Rows and Quoted are one part's, and every
// part must report the same: a part that differs is an error. Matched and
// the groups are the parts' together; the groups are put end to end, in
// part order. rs are not changed, but the answer's groups may share the
// arrays of a part's (concatGroups): no Result of rs may be scanned or
// merged into after.
func MergeParts(rs []*Result, n, workers int) (Result, error) {
	if n < 1 {
		return Result{}, fmt.Errorf("a key split of %d parts", n)
	}
	byPart := make([][]*Result, n)
	for i, r := range rs {
		if r.Part.N != int32(n) || r.Part.K < 0 || r.Part.K >= int32(n) {
			return Result{}, fmt.Errorf("result %d holds key part %d of %d, not one of %d", i, r.Part.K, r.Part.N, n)
		}
		byPart[r.Part.K] = append(byPart[r.Part.K], r)
	}
	var total Result
	var groups []*Groups
	for k, part := range byPart {
		var m Result
		switch len(part) {
		case 0:
			return Result{}, fmt.Errorf("key part %d of %d: no result", k, n)
		case 1:
			m = *part[0] // its groups are copied by concatGroups below
		default:
			m = MergeAll(part, workers)
		}
		if k == 0 {
			total.Rows, total.Quoted, total.QuotedLines, total.Bad, total.Rejects = m.Rows, m.Quoted, m.QuotedLines, m.Bad, m.Rejects
		} else if m.Rows != total.Rows || m.Quoted != total.Quoted || m.Bad != total.Bad {
			return Result{}, fmt.Errorf("key part %d of %d scanned %d rows (%d quoted), part 0 %d (%d)", k, n, m.Rows, m.Quoted, total.Rows, total.Quoted)
		}
		if m.Groups != nil {
			groups = append(groups, m.Groups)
		}
		o := m
		o.Groups, o.Rows, o.Quoted, o.QuotedLines, o.Bad, o.Rejects = nil, 0, 0, 0, 0, nil // (every part finds every bad row)
		total.Merge(&o)
	}
	if len(groups) > 0 {
		total.Groups = concatGroups(groups)
	}
	return total, nil
}
