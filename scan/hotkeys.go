package scan

import (
	"encoding/binary"
	"math"
	"math/bits"
	"sync"
)

// hotKeys is hotWalk's key table for the fast group-by (slot mode): up to
// maxKeyCap keys of at most 64 bytes, each the index of an entry of
// accumulators (a row count, and each value's sum, maximum and minimum, at
// hotState.scale) that hotWalk adds a row to when it finds the row's key,
// so that a row of a known key never leaves the assembly. A key it does
// not find comes back to Go with its row, and learn puts it in the table.
// fold moves the accumulators into the Groups.
//
// A hotKeys belongs to one Groups, and so to one scan at a time, and its
// entries name that Groups' groups. Its keys stay from scan to scan; its
// accumulators hold nothing between scans (ScanPart folds before it
// returns). It takes 279 kB (9 kB for a small scan), made once a Groups
// by the first scan in slot mode, and doubles (learn) up to 3.1 MB for
// maxKeyCap keys. hotWalk reads
// slots and acc by their first elements' addresses, which learn changes
// when it grows them: they are handed to it anew for each call.
type hotKeys struct {
	slots []keySlot // 1<<bits of them
	acc   []keyAcc  // keyCapOf(bits) entries
	grp   []int32   // entry j's group
	bits  uint
	n     int // entries in use
	// misses counts the rows of keys learn could not take (too long, or
	// the table full), taken the rows hotWalk took; when misses pass
	// maxMisses and an eighth of taken, slot mode is given up (off): each
	// such row comes back from hotWalk to Go, dearer than emit mode.
	misses, taken int64
	off           bool
	rows          int64 // rows in acc since the last fold (see foldRows)
}

// keyAcc is an entry's accumulators (hot_amd64.s: ACCSIZE, ACCEVEN,
// ACCODD, ACCCENT, ACCSUM, ACCMAX, ACCMIN): the rows' count, then per
// value (in the plan's order) its sum, its maximum and its minimum, the
// last as MaxInt64 minus it, so that all three start at zero: every value
// hotWalk parses is at least 0 (and below 10^10), and a maximum or minimum
// means nothing while the count is 0. hotWalk adds to the maxima and
// minima only in extremes mode (hotState.ext). Otherwise it adds a row's
// values as their digits to byte lanes, as for the sums of a query without
// groups: per value, its digit word's even and odd bytes in 16-bit lanes
// (lanes reads them), and its cents; every laneRows rows of the key (its
// count a multiple), and in fold, they go to the sum.
//
// A row touches few cache lines of its entry: the count and the first two
// values' lanes share the first line, and each value's sum, maximum and
// minimum are side by side. An entry is whole 64-byte lines, and the
// table's acc starts on one.
type keyAcc [accWords]int64

// keyAcc's words: the count at 0; value k's even lanes, odd lanes and
// cents at accLane+3k, +1 and +2; its sum, maximum and minimum at
// accExt+3k, +1 and +2; the date value's (groupHot.dslot) maximum key and
// MaxInt64 minus its minimum one (see dateOfKey) at accDate and +1.
const (
	accLane  = 1
	accExt   = accLane + 3*MaxSums
	accDate  = accExt + 3*MaxSums
	accLow   = accDate + 2 // value k's 32-bit count of smaller scales at byte 4k (hot_amd64.s: ACCLOW)
	accWords = (accLow + MaxSums/2 + 7) &^ 7
)

// laneRows is how many rows a key's lanes hold between flushes: a lane
// takes at most 9 a row, and 4096·9 < 2^16 (hot_amd64.s: LANEROWS; a
// power of 2, tested against the count by a mask).
const laneRows = 4096

// lanes is the value of a field's digit lanes (see flush in hot_amd64.s:
// lane j of even and odd holds the digits worth 10^(7-2j) and 10^(6-2j)),
// in units of its integer part.
func lanes(even, odd int64) int64 {
	var v int64
	for j := range 4 {
		v = v*100 + (even>>(16*j)&0xFFFF)*10 + odd>>(16*j)&0xFFFF
	}
	return v
}

// keySlot is one slot of the open-addressed table (hot_amd64.s: SLOTSIZE,
// SLOTN, SLOTJ): the key's bytes, zero past it, its length plus one (0: an
// empty slot) and its entry.
type keySlot struct {
	key [64]byte
	n   int64
	j   int64
}

const (
	// The table starts at 2^firstKeyBits slots, or 2^smallKeyBits for the
	// first scan of fewer than smallSpan bytes (a tiny dynamic chunk: a
	// 279 kB table for each made a test's small units cost more than
	// their scans), and doubles as keys come (learn). Up to
	// 2^sparseKeyBits slots at most an eighth of them are in use, so
	// that few rows probe a second slot (a mispredicted branch: with 512
	// slots, 21% of the rows of a group-by on Country did); past that at
	// most a quarter, up to 2^maxKeyBits (keyCapOf); a probe always ends.
	// Past maxKeyCap keys slot mode gives up: the table would outgrow the
	// caches, and emit mode's Go code takes any number of keys. (A big scan
	// whose table starts small and grows pays a few per cent for it:
	// docs/experiments.md, 2026-12-05.)
	firstKeyBits  = 11
	smallKeyBits  = 6
	smallSpan     = 256 << 10
	sparseKeyBits = 11
	maxKeyBits    = 14
	maxKeyCap     = 1 << maxKeyBits / 4
	maxMisses     = 64
	// foldRows bounds the rows between folds: a value hotWalk takes is
	// below 10^10 (8 digits and 2 decimals), so 9·10^8 of them fit an
	// int64 sum.
	foldRows = 900_000_000
)

// keyHash is the key's slot in a table of 2^bits (hotWalk's slot mode
// computes the same): its first 8 bytes (zero past its end), its length
// and, from 8 bytes on, its last 8 bytes turned by half a word, mixed by
// a multiply. (The last bytes tell apart keys that share their first 8:
// dates of one day in several years, a country with each item type.)
func keyHash(key []byte, nbits uint) uint64 {
	var b [8]byte
	copy(b[:], key)
	w := binary.LittleEndian.Uint64(b[:]) ^ uint64(len(key))
	if n := len(key); n >= 8 {
		w ^= bits.RotateLeft64(binary.LittleEndian.Uint64(key[n-8:]), 32)
	}
	return (w * 0x9E3779B97F4A7C15) >> (64 - nbits)
}

// keyCapOf is how many keys a table of 2^nbits slots holds.
func keyCapOf(nbits uint) int {
	if nbits <= sparseKeyBits {
		return 1 << nbits / 8
	}
	return 1 << nbits / 4
}

// resize makes the table 2^nbits slots (more than now), each key in
// its new slot, its entry and accumulators kept.
func (k *hotKeys) resize(nbits uint) {
	old := k.slots
	k.bits, k.slots = nbits, make([]keySlot, 1<<nbits)
	for i := range old {
		if o := &old[i]; o.n != 0 {
			h := keyHash(o.key[:o.n-1], nbits)
			for k.slots[h].n != 0 {
				h = (h + 1) & (1<<nbits - 1)
			}
			k.slots[h] = *o
		}
	}
	acc := make([]keyAcc, keyCapOf(nbits))
	copy(acc, k.acc)
	grp := make([]int32, len(acc))
	copy(grp, k.grp)
	k.acc, k.grp = acc, grp
}

// hotKeys returns g's key table, made on first use, for a scan of span
// bytes. (When it is off, its accumulators may still hold rows until the
// scan's fold.)
func (g *Groups) hotKeys(span int) *hotKeys {
	if g.keys == nil {
		if k, ok := spareKeys.Get().(*hotKeys); ok {
			g.keys = k
			return k
		}
		g.keys = new(hotKeys)
		bits := uint(firstKeyBits)
		if span < smallSpan {
			bits = smallKeyBits
		}
		g.keys.resize(bits)
	}
	return g.keys
}

// spareKeys holds key tables that Results no scan takes again gave back
// (Result.ReleaseKeys), emptied: a Groups' first scan in slot mode takes one
// before it makes one. A new table is fresh memory, each page's first write
// a fault (and, read first, a copy-on-write of the zero page with a TLB
// shootdown): a dynamic split's 2 MiB units of a group-by paid more for
// their tables than for their scans (docs/experiments.md, 2026-12-07).
var spareKeys sync.Pool

// ReleaseKeys gives r's key table, if it has one, to the next Groups that
// needs one: for a Result no scan will take again (its groups stay as they
// are; a later scan into it would make a new table).
func (r *Result) ReleaseKeys() {
	if r.Groups == nil || r.Groups.keys == nil {
		return
	}
	k := r.Groups.keys
	r.Groups.keys = nil
	clear(k.slots)
	clear(k.acc[:k.n]) // (folded, so zero already, unless the scan failed)
	k.n, k.misses, k.taken, k.off, k.rows = 0, 0, 0, false, 0
	spareKeys.Put(k)
}

// learn puts key, whose group is i, in the table, if it is not there and
// fits.
func (k *hotKeys) learn(key []byte, i int) {
	h := keyHash(key, k.bits)
	for ; k.slots[h].n != 0; h = (h + 1) & uint64(len(k.slots)-1) {
		s := &k.slots[h]
		if int(s.n-1) == len(key) && string(s.key[:len(key)]) == string(key) {
			return // known: the row came back for another reason
		}
	}
	if len(key) > len(keySlot{}.key) || k.n == maxKeyCap {
		k.miss()
		return
	}
	if k.n == len(k.acc) {
		k.resize(k.bits + 1)
		k.learn(key, i)
		return
	}
	s := &k.slots[h]
	copy(s.key[:], key)
	s.n, s.j = int64(len(key))+1, int64(k.n)
	k.grp[k.n] = int32(i)
	k.n++
}

// miss counts a row whose key the table cannot take, and gives slot mode
// up (off) past maxMisses of them and an eighth of the rows taken.
func (k *hotKeys) miss() {
	if k.misses++; k.misses >= maxMisses && k.misses*8 > k.taken {
		k.off = true
	}
}

// twoKey appends to dst the table's key for a group-by of two columns
// whose fields are a and b, as slot mode makes it (hot_amd64.s, key2): a,
// the delimiter sep and b. It reports false if that is longer than a
// slot's key. (A field of a quote-free row holds no delimiter, so no two
// pairs make one key; the Groups' own key is groupKey's.)
func twoKey(dst, a, b []byte, sep byte) ([]byte, bool) {
	if len(a)+1+len(b) > len(keySlot{}.key) {
		return dst, false
	}
	dst = append(dst, a...)
	dst = append(dst, sep)
	return append(dst, b...), true
}

// fold adds the accumulators into g, whose slots h.tp names, each value
// at its scale in scales, to the accumulators each slot needs (h.need), and
// empties them.
func (k *hotKeys) fold(g *Groups, h *groupHot, scales *[MaxSums]uint8) {
	tp := &h.tp
	for j := range k.n {
		a := &k.acc[j]
		if a[0] == 0 {
			continue
		}
		i := int(k.grp[j])
		g.Count[i] += a[0]
		for kk := range tp.nsum {
			slot, s := i*g.Slots+tp.byCol[kk].slot, int(scales[kk])
			l, x := accLane+3*kk, accExt+3*kk
			v := lanes(a[l], a[l+1])
			if s != 0 {
				v *= 100 // (scales are 0 or 2)
			}
			a[x] += v + a[l+2]
			// Every row of the entry with this value written at a smaller
			// scale (9.3, 10: read as cents, see hot_amd64.s's ROWSCL): the
			// sum's scale is theirs, as a sum keeps its values' largest,
			// and the cents are a whole number of its units. (The count has
			// 31 bits: past 2^31 rows of one key in one scan, the sum stays
			// at scale 2, the same number written with trailing zeros.)
			if low := uint32(a[accLow+kk/2] >> (32 * (kk % 2))); s == 2 && int64(low&(1<<31-1)) == a[0] {
				if low>>31 != 0 {
					a[x], s = a[x]/10, 1
				} else {
					a[x], s = a[x]/100, 0
				}
			}
			if h.need[kk]&NeedSum != 0 {
				g.Sums[slot].Add(a[x], s)
			}
			if h.need[kk]&NeedMax != 0 {
				g.Maxs[slot].takeMax(a[x+1], s)
			}
			if h.need[kk]&NeedMin != 0 {
				g.Mins[slot].takeMin(math.MaxInt64-a[x+2], s)
			}
		}
		if h.dslot >= 0 { // every row of the entry had its date (see dateOfKey)
			w := slotWords(&g.Words, i*g.Slots+h.dslot)
			for _, key := range [2]int64{a[accDate], math.MaxInt64 - a[accDate+1]} {
				text, day := dateOfKey(key)
				w.take([]byte(text), day, true)
			}
		}
		*a = keyAcc{}
	}
	k.rows = 0
}

// foldKeys empties the key table's accumulators into r's groups at the end
// of a scan (ScanPart), so that r is whole when the scan returns.
func (t *Table) foldKeys(r *Result, sc *rowScratch) {
	if g := t.b.gen; g != nil && g.hot != nil && g.hot.slot && r.Groups != nil && r.Groups.keys != nil {
		r.Groups.keys.fold(r.Groups, t.b.gen.hot, &sc.scale)
	}
}
