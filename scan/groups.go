package scan

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Extreme is an exact minimum or maximum: the value M·10^-S, kept as it was
// parsed (so 7.10 stays 7.10). The zero value is "no value yet".
type Extreme struct {
	M   int64
	S   int8
	Set bool
}

// String is the exact decimal, "" if no value was seen.
func (x Extreme) String() string {
	if !x.Set {
		return ""
	}
	return Fixed{V: x.M, Scale: int64(x.S)}.String()
}

// cmp compares two set extremes exactly.
func (x Extreme) cmp(o Extreme) int { return cmpDec(x.M, int(x.S), o.M, int(o.S)) }

// takeMin and takeMax fold a value in. Of two equal values at different
// scales (7.1 and 7.10) the first one seen stays, but which rows a merge
// sees first depends on the split: so an equal value at the larger scale
// wins, and every order gives the same digits.
func (x *Extreme) takeMin(m int64, s int) {
	if !x.Set {
		*x = Extreme{m, int8(s), true}
		return
	}
	if c := cmpDec(m, s, x.M, int(x.S)); c < 0 || (c == 0 && s > int(x.S)) {
		*x = Extreme{m, int8(s), true}
	}
}

func (x *Extreme) takeMax(m int64, s int) {
	if !x.Set {
		*x = Extreme{m, int8(s), true}
		return
	}
	if c := cmpDec(m, s, x.M, int(x.S)); c > 0 || (c == 0 && s > int(x.S)) {
		*x = Extreme{m, int8(s), true}
	}
}

func (x *Extreme) mergeMin(o Extreme) {
	if o.Set {
		x.takeMin(o.M, int(o.S))
	}
}

func (x *Extreme) mergeMax(o Extreme) {
	if o.Set {
		x.takeMax(o.M, int(o.S))
	}
}

// Groups is a group-by's accumulators: per distinct key, the count of
// matching rows and, per aggregate slot, the exact sum, the minimum and the
// maximum (each kept only if some aggregate needs it: Need). Group i's key
// is Key(i) (see groupKey for how several columns make one key); its slot k
// is at i·Slots+k of Sums, Mins and Maxs.
//
// The keys' bytes live in one arena, and keys of up to 15 bytes are found
// through an index of their words (shortIndex) that holds no pointer, so
// ten million groups are a few large objects for the garbage collector, not
// ten million strings.
//
// A Groups belongs to one scan at a time; Merge and Equal leave their
// argument unchanged. It grows without bound: one entry per distinct key
// (docs/performance.md states what a group costs).
type Groups struct {
	Slots int
	Need  Need
	// The index (nil after a parallel merge, until a key is looked up:
	// see index): a key of ≤ 15 bytes by its bytes, then its length in
	// byte 15 (shortWords); a longer one by its string.
	short *shortIndex
	long  map[string]int32
	// recent caches long's answers: a key of 16 bytes or more at its
	// longHash's entry, as group index + 1 (0: none). An entry is taken
	// only if its group's key is the key looked up, so a stale one is a
	// miss, never a wrong group (keys are distinct in an indexed Groups).
	// Region names ("Sub-Saharan Africa") take it, where the general path
	// looked up each row's key in the map (docs/experiments.md, 2026-12-07).
	recent [64]int32
	arena  []byte // every key's bytes, in group order
	ends   []int  // group i's key is arena[ends[i-1]:ends[i]] (0 for i = 0)
	Count  []int64
	Sums   []Fixed
	Mins   []Extreme
	Maxs   []Extreme
	// Skipped: at i·Slots+k, the rows of group i whose slot k value was
	// missing (see Result.Skipped); nil until one is.
	Skipped map[int]int64
	// Words: at i·Slots+k, group i's slot k minimum and maximum among
	// dates and text (see Word); nil until a value is one.
	Words map[int]*Words
	// hol caches Words's entries by key (i·Slots+k) for the holistic
	// aggregates, which reach their group's entry every row (holWords):
	// a slice index, not a map lookup. Entries are never replaced in a
	// Groups that is scanned into, so a cached one stays its entry.
	hol  []*Words
	keys *hotKeys // hotWalk's key table (amd64), made by the first scan that uses it
}

// skip counts n missing values of slot k of group i.
func (g *Groups) skip(i, k int, n int64) {
	if g.Skipped == nil {
		g.Skipped = map[int]int64{}
	}
	g.Skipped[i*g.Slots+k] += n
}

// Present is how many of group i's rows had slot k's value.
func (g *Groups) Present(i, k int) int64 {
	if g.Skipped == nil { // (no map lookup a cell when nothing was missing)
		return g.Count[i]
	}
	return g.Count[i] - g.Skipped[i*g.Slots+k]
}

// Need says which accumulators a query's aggregates use.
type Need uint8

// The accumulators a slot can need.
const (
	NeedSum Need = 1 << iota
	NeedMin
	NeedMax
)

// holWords is the Words of key at (i·Slots+k), made if new, through hol.
func (g *Groups) holWords(at int) *Words {
	if at < len(g.hol) {
		if w := g.hol[at]; w != nil {
			return w
		}
	} else {
		g.hol = append(g.hol, make([]*Words, at+1-len(g.hol))...)
	}
	w := slotWords(&g.Words, at)
	g.hol[at] = w
	return w
}

func newGroups(slots int, need Need) *Groups {
	return &Groups{Slots: slots, Need: need, short: newShortIndex(0), long: make(map[string]int32)}
}

// Len is the number of groups; a nil Groups (a group-by that saw no row)
// has none.
func (g *Groups) Len() int {
	if g == nil {
		return 0
	}
	return len(g.ends)
}

// keyBytes is group i's key; it stays valid until the next group is added.
func (g *Groups) keyBytes(i int) []byte {
	return g.arena[g.keyStart(i):g.ends[i]:g.ends[i]]
}

// keyStart is where group i's key starts in the arena.
func (g *Groups) keyStart(i int) int {
	if i > 0 {
		return g.ends[i-1]
	}
	return 0
}

// Key is group i's key.
func (g *Groups) Key(i int) string { return string(g.keyBytes(i)) }

// shortWords is a key of at most 15 bytes as shortIndex holds it: its
// bytes little-endian in two words (padWords), then its length in the top
// byte of the second (shortKeyRef in the tests is the plain form).
func shortWords(key []byte) (lo, hi uint64) {
	lo, hi = padWords(key)
	return lo, hi | uint64(len(key))<<56
}

// padWords is a key of at most 16 bytes zero-padded to 16, as two
// little-endian words. They are put together from loads of the key itself,
// not copied through a buffer in memory: a load that spans such a copy's
// stores waits until they are written, so behind a lookup's cache miss
// (groupsHot touches a batch's index slots one after another) every key
// waited for the one before it (docs/experiments.md, 2026-12-03 midday).
func padWords(key []byte) (lo, hi uint64) {
	n := len(key)
	le := binary.LittleEndian
	switch {
	case n >= 8:
		lo = le.Uint64(key)
		if n > 8 { // bytes n-8..n-1, shifted down so byte 8 comes first
			hi = le.Uint64(key[n-8:]) >> ((16 - n) * 8)
		}
	case n >= 4: // two loads that overlap
		lo = uint64(le.Uint32(key)) | uint64(le.Uint32(key[n-4:]))<<((n-4)*8)
	case n > 0:
		lo = uint64(key[0]) | uint64(key[n/2])<<(n/2*8) | uint64(key[n-1])<<((n-1)*8)
	}
	return lo, hi
}

// index builds the index if a merge left it out (see concatGroups): it is
// only needed to find a key, which a finished answer is rarely asked to do.
func (g *Groups) index() {
	if g.short == nil {
		g.buildIndex() // (a merge's groups have distinct keys)
	}
}

// buildIndex makes the index of g's groups, and reports false if two of
// them have one key (the index then holds the first). A batch of keys'
// slots is fetched first (touchKeys), so that their cache misses overlap.
func (g *Groups) buildIndex() bool {
	g.short, g.long, g.recent = newShortIndex(g.Len()), make(map[string]int32), [64]int32{}
	var keys [hotRecs][]byte
	for s := 0; s < g.Len(); s += hotRecs {
		batch := keys[:min(hotRecs, g.Len()-s)]
		for k := range batch {
			batch[k] = g.keyBytes(s + k)
		}
		g.touchKeys(batch, nil)
		for k, key := range batch {
			if len(key) < 16 {
				lo, hi := shortWords(key)
				if _, added := g.short.getOrPut(lo, hi, int32(s+k)); !added {
					return false
				}
			} else if _, ok := g.long[string(key)]; ok {
				return false
			} else {
				g.long[string(key)] = int32(s + k)
			}
		}
	}
	return true
}

// counted reports whether key's group holds a row (false for a nil g).
func (g *Groups) counted(key []byte) bool {
	if g == nil {
		return false
	}
	i := g.find(key)
	return i >= 0 && g.Count[i] > 0
}

// find returns key's group, or -1.
func (g *Groups) find(key []byte) int {
	g.index()
	if len(key) < 16 {
		return int(g.short.get(shortWords(key)))
	}
	if i, ok := g.long[string(key)]; ok {
		return int(i)
	}
	return -1
}

// bigIndex says whether the short index has outgrown the caches
// (touchSlots), so that a batch's lookups wait for memory: only then does
// touching their slots first pay for hashing each key twice.
func (g *Groups) bigIndex() bool { return g.short != nil && len(g.short.slots) > touchSlots }

// touchSlots is the short index's size past which groupsHot touches a
// batch's slots first: 16,384 slots of 24 bytes, 384 KiB, over a third of
// this machine's 1 MiB L2 (docs/experiments.md, 2026-12-03).
const touchSlots = 1 << 14

// touchKeys starts fetching the index slots where the searches for keys
// start (those of at most 15 bytes, and not skip[i]'s; skip may be nil). At
// most hotRecs keys. See shortIndex.touchAt.
func (g *Groups) touchKeys(keys [][]byte, skip []bool) {
	x := g.short
	if x == nil {
		return
	}
	var at [hotRecs]uint64
	n := 0
	for i, key := range keys {
		if len(key) < 16 && (skip == nil || !skip[i]) {
			at[n] = x.hash(shortWords(key)) >> x.shift
			n++
		}
	}
	x.touchAt(at[:n])
}

// at returns the index of key's group, adding an empty one if it is new.
// key is not kept: its bytes are copied into the arena.
func (g *Groups) at(key []byte) int {
	g.index()
	if len(key) < 16 {
		lo, hi := shortWords(key)
		i, added := g.short.getOrPut(lo, hi, int32(g.Len()))
		if added {
			g.add(key)
		}
		return int(i)
	}
	h := longHash(key)
	if i := int(g.recent[h]) - 1; i >= 0 && i < g.Len() && string(g.keyBytes(i)) == string(key) {
		return i
	}
	i, ok := g.long[string(key)]
	if !ok {
		i = int32(g.add(key))
		g.long[string(key)] = i
	}
	g.recent[h] = i + 1
	return int(i)
}

// longHash is key's entry in Groups.recent: its length and its first and
// last 8 bytes (len(key) >= 16), mixed by a multiply.
func longHash(key []byte) int {
	w := binary.LittleEndian.Uint64(key) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(key[len(key)-8:]), 32) ^ uint64(len(key))
	return int(w * 0x9E3779B97F4A7C15 >> 58)
}

// reserve makes room for n more groups (their keys of 16 bytes on
// average), so that adding them grows neither the index nor the figures'
// arrays; untouched room costs address space, not memory (a large array's
// memory comes a huge page, 2 MiB, at a time: see growHuge).
func (g *Groups) reserve(n int) {
	g.index()
	if g.short.n+len(g.long) == 0 {
		g.short = newShortIndex(n)
	}
	g.reserveArrays(n)
}

// reserveArrays is reserve without the index.
func (g *Groups) reserveArrays(n int) {
	g.arena = growHuge(g.arena, 16*n)
	g.ends = growHuge(g.ends, n)
	g.Count = growHuge(g.Count, n)
	if g.Need&NeedSum != 0 {
		g.Sums = growHuge(g.Sums, n*g.Slots)
	}
	if g.Need&NeedMin != 0 {
		g.Mins = growHuge(g.Mins, n*g.Slots)
	}
	if g.Need&NeedMax != 0 {
		g.Maxs = growHuge(g.Maxs, n*g.Slots)
	}
}

// extremes is the slots' minimums (fn "min") or maximums ("max").
func (g *Groups) extremes(fn string) []Extreme {
	if fn == "max" {
		return g.Maxs
	}
	return g.Mins
}

// A new group's figures (copied, so that adding a group allocates nothing
// but what its arrays' growth takes).
var (
	noSums     [MaxSums]Fixed
	noExtremes [MaxSums]Extreme
)

// add appends an empty group for key (not yet in the index). The arrays
// grow by appendHuge, not append, so that large ones ask for huge pages.
func (g *Groups) add(key []byte) int {
	i := len(g.ends)
	g.arena = appendHuge(g.arena, key...)
	g.ends = appendHuge(g.ends, len(g.arena))
	g.Count = appendHuge(g.Count, 0)
	if g.Need&NeedSum != 0 {
		g.Sums = appendHuge(g.Sums, noSums[:g.Slots]...)
	}
	if g.Need&NeedMin != 0 {
		g.Mins = appendHuge(g.Mins, noExtremes[:g.Slots]...)
	}
	if g.Need&NeedMax != 0 {
		g.Maxs = appendHuge(g.Maxs, noExtremes[:g.Slots]...)
	}
	return i
}

// Merge adds o's groups into g. Both must come from the same query.
func (g *Groups) Merge(o *Groups) {
	if g.Len() == 0 && o.Len() > 1024 { // size the index and the arrays once
		g.reserve(o.Len())
	}
	g.mergeFrom(o, nil)
}

// mergeFrom adds the groups of o whose keys keep takes (every group, for a
// nil keep) into g, a batch at a time: with an index past the caches, the
// index slots of a batch's keys are fetched at once first (see touchAt).
func (g *Groups) mergeFrom(o *Groups, keep func(key []byte) bool) {
	var keys [hotRecs][]byte // a batch's keys
	var js [hotRecs]int      // and their groups in o
	for lo := 0; lo < o.Len(); lo += hotRecs {
		m := 0
		for j := lo; j < min(lo+hotRecs, o.Len()); j++ {
			if key := o.keyBytes(j); keep == nil || keep(key) {
				keys[m], js[m] = key, j
				m++
			}
		}
		if g.bigIndex() {
			g.touchKeys(keys[:m], nil)
		}
		for _, j := range js[:m] {
			g.mergeOne(o, j)
		}
	}
}

// mergeOne adds o's group j into g.
func (g *Groups) mergeOne(o *Groups, j int) { g.mergeOneAs(o, j, o.keyBytes(j)) }

// mergeOneAs adds o's group j into g's group of key.
func (g *Groups) mergeOneAs(o *Groups, j int, key []byte) {
	i := g.at(key)
	g.Count[i] += o.Count[j]
	a, b := i*g.Slots, j*g.Slots
	for k := range g.Slots {
		if g.Sums != nil {
			g.Sums[a+k].AddFixed(o.Sums[b+k])
		}
		if g.Mins != nil {
			g.Mins[a+k].mergeMin(o.Mins[b+k])
		}
		if g.Maxs != nil {
			g.Maxs[a+k].mergeMax(o.Maxs[b+k])
		}
		if o.Skipped != nil {
			if n := o.Skipped[b+k]; n != 0 {
				g.skip(i, k, n)
			}
		}
		if o.Words != nil {
			if w := o.Words[b+k]; w != nil {
				slotWords(&g.Words, a+k).merge(w)
			}
		}
	}
}

// Equal reports whether g and o hold the same groups with the same figures,
// in any order.
func (g *Groups) Equal(o *Groups) bool {
	if g == nil || o == nil {
		return (g == nil || g.Len() == 0) && (o == nil || o.Len() == 0)
	}
	if g.Len() != o.Len() || g.Slots != o.Slots || g.Need != o.Need {
		return false
	}
	for j := range o.Len() {
		i := g.find(o.keyBytes(j))
		if i < 0 || g.Count[i] != o.Count[j] {
			return false
		}
		a, b := i*g.Slots, j*g.Slots
		skips := g.Skipped != nil || o.Skipped != nil
		words := g.Words != nil || o.Words != nil
		for k := range g.Slots {
			if g.Sums != nil && !g.Sums[a+k].Equal(o.Sums[b+k]) ||
				g.Mins != nil && g.Mins[a+k] != o.Mins[b+k] ||
				g.Maxs != nil && g.Maxs[a+k] != o.Maxs[b+k] ||
				skips && g.Skipped[a+k] != o.Skipped[b+k] {
				return false
			}
			if words {
				if wa, wb := g.Words[a+k], o.Words[b+k]; (wa == nil) != (wb == nil) || wa != nil && !wa.equal(wb) {
					return false
				}
			}
		}
	}
	return true
}

// AppendBinary appends g's binary form, the variable part of a Result
// (see spawn/protocol.go for where the child protocol keeps it):
//
//	uvarint slots, need, groups
//	per group: uvarint key length, the key's bytes, varint count,
//	  per slot, in order: if NeedSum, the sum (varint V, uvarint Scale,
//	  4 × uvarint C); if NeedMin, then NeedMax, the extreme (byte set;
//	  if set, varint M, byte S)
//	uvarint the Skipped entries, each uvarint i·Slots+k and uvarint n
//	the Words (appendWords), keyed i·Slots+k
func (g *Groups) AppendBinary(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(g.Slots))
	b = binary.AppendUvarint(b, uint64(g.Need))
	b = binary.AppendUvarint(b, uint64(g.Len()))
	ext := func(b []byte, x Extreme) []byte {
		if !x.Set {
			return append(b, 0)
		}
		b = append(b, 1)
		b = binary.AppendVarint(b, x.M)
		return append(b, byte(x.S))
	}
	for i := range g.Len() {
		key := g.keyBytes(i)
		b = binary.AppendUvarint(b, uint64(len(key)))
		b = append(b, key...)
		b = binary.AppendVarint(b, g.Count[i])
		for k := i * g.Slots; k < (i+1)*g.Slots; k++ {
			if g.Sums != nil {
				s := g.Sums[k]
				b = binary.AppendVarint(b, s.V)
				b = binary.AppendUvarint(b, uint64(s.Scale))
				for _, w := range s.C {
					b = binary.AppendUvarint(b, w)
				}
			}
			if g.Mins != nil {
				b = ext(b, g.Mins[k])
			}
			if g.Maxs != nil {
				b = ext(b, g.Maxs[k])
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(len(g.Skipped)))
	for at, n := range g.Skipped {
		b = binary.AppendUvarint(b, uint64(at))
		b = binary.AppendUvarint(b, uint64(n))
	}
	return appendWords(b, g.Words)
}

// DecodeGroups reads what AppendBinary wrote; the keys are copied out of b.
func DecodeGroups(b []byte) (*Groups, error) {
	bad := fmt.Errorf("groups: malformed binary form")
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	sv := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			b = nil
			return 0
		}
		b = b[n:]
		return v
	}
	slots, need, n := uv(), uv(), uv()
	if b == nil || slots > MaxSums || need >= uint64(NeedValues)<<1 {
		return nil, bad
	}
	// A group takes at least a byte for its key's length and one for its
	// count, and per slot 5 for a sum and 1 for an extreme.
	if least := 2 + slots*(5*(need&1)+need>>1&1+need>>2&1); n > uint64(len(b))/least {
		return nil, bad
	}
	g := &Groups{Slots: int(slots), Need: Need(need)} // (the index comes last)
	g.reserveArrays(int(n))                           // no growth: n is bounded by len(b)
	ext := func() Extreme {
		if len(b) == 0 {
			b = nil
			return Extreme{}
		}
		set := b[0]
		b = b[1:]
		if set == 0 {
			return Extreme{}
		}
		m := sv()
		if len(b) == 0 {
			b = nil
			return Extreme{}
		}
		s := int8(b[0])
		b = b[1:]
		return Extreme{m, s, true}
	}
	for range n {
		kl := uv()
		if b == nil || kl > uint64(len(b)) {
			return nil, bad
		}
		key := b[:kl]
		b = b[kl:]
		i := g.add(key) // (the index comes after: buildIndex)
		g.Count[i] = sv()
		for k := i * g.Slots; k < (i+1)*g.Slots; k++ {
			if g.Sums != nil {
				s := &g.Sums[k]
				s.V, s.Scale = sv(), int64(uv())
				for w := range s.C {
					s.C[w] = uv()
				}
				if s.Scale > MaxScale {
					return nil, bad
				}
			}
			if g.Mins != nil {
				g.Mins[k] = ext()
			}
			if g.Maxs != nil {
				g.Maxs[k] = ext()
			}
		}
		if b == nil {
			return nil, bad
		}
	}
	ns := uv()
	if b == nil || ns > uint64(len(b))/2 {
		return nil, bad
	}
	for range ns {
		at, n := uv(), uv()
		if b == nil || at >= uint64(g.Len()*g.Slots) || n == 0 || n > uint64(g.Count[int(at)/max(g.Slots, 1)]) {
			return nil, bad
		}
		if g.Skipped == nil {
			g.Skipped = map[int]int64{}
		}
		if _, dup := g.Skipped[int(at)]; dup {
			return nil, bad
		}
		g.Skipped[int(at)] = int64(n)
	}
	if b == nil {
		return nil, bad
	}
	words, rest, err := decodeWords(b, g.Len()*g.Slots)
	if err != nil {
		return nil, err
	}
	g.Words, b = words, rest
	if len(b) != 0 || !g.buildIndex() { // (a key seen twice)
		return nil, bad
	}
	return g, nil
}

// groupKey appends the key of a row's group-by fields to dst: with one
// column, the field's bytes; with several, each field's length as a uvarint
// and then its bytes, so no two different rows make one key.
func groupKey(dst []byte, fields [][]byte) []byte {
	if len(fields) == 1 {
		return append(dst, fields[0]...)
	}
	for _, f := range fields {
		dst = binary.AppendUvarint(dst, uint64(len(f)))
		dst = append(dst, f...)
	}
	return dst
}
