package scan

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

// bulk takes every row that starts in the window data[wb:we] (just
// classified into mk, with no quote in it) before end and ends inside it,
// and returns where the next row starts: wb if no row ends in the window.
// It serves a filter on the first column (see Scan's quick): the rows whose
// first byte is not v0 (nor '\r' or '\n') are counted by popcount and never
// looked at; the others, the sp bits, go to hotWalk, hit or line. With all
// (see Table.allRows), the sp bits are every row's start (everyRow), and
// the rows go to hotWalk, takeRow (with the first filter lead, leadVal, as
// ScanPart gives it) or anyLine.
func (t *Table) bulk(end int, r *Result, mk *marks, n tally, wb, we int, v0 byte, all bool, sc *rowScratch, lead int, leadVal []byte) (int, error) {
	words := (we - wb + 63) / 64
	w := words - 1
	for w >= 0 && mk.nl[w] == 0 {
		w--
	}
	if w < 0 {
		return wb, nil
	}
	last := w<<6 + 63 - bits.LeadingZeros64(mk.nl[w]) // the window's last '\n'
	// Take the rows that start at bits [0, stop): one at bit 0, one after
	// every '\n' before stop-1. The classifier counted the bits; a window
	// that end cuts short counts its own.
	stop := last + 1
	if end-wb >= stop {
		r.Rows += int64(n.nl - n.sp)
		if stop < 64*words && mk.sp[stop>>6]&(1<<(stop&63)) != 0 {
			r.Rows++ // that row starts after the last '\n': not taken here
		}
	} else {
		stop = end - wb
		r.Rows += int64(1 + countBits(&mk.nl, 0, stop-1) - countBits(&mk.sp, 0, stop))
	}
	data := t.data
	// The sp bits are sparse (one row in four on the reference query): the
	// classifier's summary with a bit per word that holds any lets the loop
	// below branch once per row, not once per word.
	it := walk(&n, stop)
	if all {
		it.chain = 1
	}
	// On amd64, hotWalk takes the rows it can; the loop below takes what
	// it leaves.
	if err := t.bulkHot(&it, r, mk, wb, sc, lead, leadVal); err != nil {
		return 0, err
	}
	for s := it.next(mk); s >= 0; s = it.next(mk) {
		q, e := wb+s, wb+nextBit(&mk.nl, s, words)
		switch {
		case data[q] == '\n': // a blank line is not a row
		case sc.qlead: // a quoted row (see quotedLeadOK)
			if err := t.qline(q, e, r, mk, wb); err != nil {
				return 0, err
			}
		case all && t.takeRow(q, e, r, mk, wb, lead, leadVal):
		case !all && data[q] == v0 && t.b.hot && t.hit(q, e, r, mk, wb):
		default:
			if err := t.anyLine(q, e, r, mk, wb, sc); err != nil {
				return 0, err
			}
		}
	}
	return wb + nextBit(&mk.nl, stop-1, words) + 1, nil
}

// hotState is bulk's walk over a window's sp bits, shared by its portable
// loop and hotWalk: the words left (nz: a bit per word of mk.sp), the bits
// left of word w (cur), and the last word and its part to take (wz, keep).
// The rest is hotWalk's input and output, filled in by fillHot;
// hot_amd64.s reads every field by its offset, which TestHotStateLayout
// checks.
type hotState struct {
	avail int                                 // 0: bytes readable from the window's start
	nz    uint64                              // 8
	cur   uint64                              // 16
	w     int                                 // 24
	wz    int                                 // 32
	keep  uint64                              // 40
	vword uint64                              // 48: binding.vword, vmask, ncols-1, need, nsum
	vmask uint64                              // 56
	ncm   int                                 // 64
	need  int                                 // 72
	nsum  int                                 // 80
	q, e  int                                 // 88, 96: the row handed back, from the window's start: its start and '\n'
	more  int                                 // 104: 1 if hotWalk handed a row back, 0 when it is done
	sums  [MaxSums]struct{ from, slot uint8 } // 112: hotPlan.sums
	// 128, 136, 144: hotPlan.leadbit, vword2, vmask2
	leadbit, vword2, vmask2 uint64
	// 152: each summed field's scale, 2 (money in cents) or 0 (an
	// integer): a field that is not goes back.
	scale [MaxSums]uint8
	// 160, 168, 176: emit mode, for the fast group-by: out (not nil) is
	// an array of ncap records, and each row taken goes to out[nout],
	// not to the lanes (hotWalk returns with more = 3 when it is full).
	out        *hotRec
	nout, ncap int
	vlen       int    // 184: hotPlan.vlen
	span       [3]int // 192: hotPlan.span
	// 216, 224: slot mode (emit mode with a key table): each row whose
	// key is in the table goes to its entry's accumulators, not to out
	// (see hotKeys); nil for none.
	ktab  *keySlot
	kacc  *keyAcc
	nspan int // 232: hotPlan.nspan
	// 240, 288, 312: hotPlan.eqw, eqn, eqop
	eqw  [3][2]uint64
	eqn  [3]int
	eqop [3]int
	// 336, 400, 464, 472: the numeric filters' bounds at their values'
	// scales (hotPlan.numBounds), and the fields parsed: the sums, then
	// nnum filters' (see hotPlan.numOn)
	numlo, numhi [MaxSums]int64
	nparse, nnum int
	// 480: extremes mode, for slot mode: not 0 if the key table's
	// maxima and minima are kept too (keyAcc)
	ext int
	// 488: compress mode (see compress), not 0 to test the filter
	// without a branch and take the matching rows in a second pass, with
	// hotWalk's cbuf the buffer between the passes; only for a plan with no
	// span field and no numeric filter, not in emit mode
	cmode int
	// 496: chain mode, not 0 if the sp bits are every row's start
	// (everyRow): with no filter on a later column and not in compress
	// mode, hotWalk then finds each row's start from the last one's end
	chain int
	// 504: hotPlan.skip
	skip int
	// 512: hotPlan.key2, for slot mode: not 0 if the key is two columns
	// (then the delimiter, which joins them: twoKey),
	// span 0's and span 2's (see twoKey)
	key2 int
	// 520, 528: slot mode's table size, as 64 minus its bits and as a
	// mask of them (hotKeys.bits)
	kshift, kmask uint64
	// 536: the plan's span tests' values (hotPlan.st), read where a test
	// needs them: a window's copy of the state stays small
	st *spanTests
	// 544: hotPlan.dv: not 0 if a span is a date value (eqop 4): hotWalk
	// puts each row's key (see dateOfKey) in dkey (552), and slot mode
	// takes its maximum and minimum to the key's entry (keyAcc, accDate)
	dv   int
	dkey int64
	// 560: hotPlan.ldate
	ldate int
}

// spanTests are the values of a plan's span tests beyond = and != (see
// hotPlan.eqop; hot_amd64.s reads them by their offsets, which
// TestHotStateLayout checks): per span, a date's range of days (dlo, dhi
// at 0, 24); an in list's values and lengths (inw, inn at 48, 112; nin at
// 144 of them); per span, a contains value's first and last byte in every
// byte (cfirst, clast at 152, 200); a date lead's range (ldlo, ldhi at
// 248, 256).
type spanTests struct {
	dlo, dhi      [3]int64
	inw           [maxIn][2]uint64
	inn           [maxIn]int
	nin           int
	cfirst, clast [3][2]uint64
	ldlo, ldhi    int64
}

// cbufLen is how many rows compress mode's first pass takes at most
// (hot_amd64.s: CBUFLEN).
const cbufLen = 64

// hotRec is a row hotWalk took in emit mode (hot_amd64.s writes it by
// RECSIZE): its start and its '\n' from the window's start, its key's
// span, and its values in the plan's order, each at the scale
// hotState.scale gives.
type hotRec struct {
	q, e int
	span [3][2]int // each span field's start and end (hotPlan.span), where there is one
	v    [MaxSums]int64
}

// hotRecs is how many rows hotWalk's emit mode hands over at once.
const hotRecs = 64

// hotPlan is what hotWalk needs to know of a query (see hotState): the
// filter's field (leadbit, 0 for the row's start) and value (vword under
// vmask, then vword2 under vmask2, with the comma after it; all 0: every
// row holds; vlen bytes without the comma), the commas a
// row has (ncm), how many fields from its end hold the values (need), and
// for each value it parses (the nsum sums, then the numeric filters' values
// up to nparse) the commas from the row's end to the one before it (from)
// and, for a sum, its slot.
type hotPlan struct {
	vword, vmask, leadbit, vword2, vmask2 uint64
	vlen, ncm, need, nsum                 int
	// span: emit mode's span fields, whose start and end a record holds
	// (-1: none): the group-by key first, then the later filters' fields.
	// A field k < spanBack is found from the row's start, as the byte after
	// its k-th comma; spanBack + i from its end, after cpos[i] (i ≤ need).
	span  [3]int
	nspan int // the span fields up to the last one set
	// eqop: span field j's filter, tested by hotWalk: 0 none, 1 =, 2 !=,
	// against the eqn bytes of eqw (at most 16; see testOn), 3 a date
	// whose day lies in [st.dlo[j], st.dhi[j]] (see dateOn); 4, no
	// filter: a date whose minimum or maximum the query asks for (see
	// dateOfKey; dv); 5 in, 6 not in, the st.nin values of st.inw
	// (st.inn bytes each; see inOn); 7 contains, 8 starts with eqw's eqn
	// bytes (st.cfirst and st.clast: its first and last byte in every
	// byte; see textOn)
	eqw  [3][2]uint64
	eqn  [3]int
	eqop [3]int
	st   spanTests
	// dv: not 0 if a span is a date value (eqop 4)
	dv int
	// ldate: 1 if the lead (leadbit) is a date's comparison, whose day
	// must lie in [st.ldlo, st.ldhi], not a value (see dateLead); 2 if it
	// is a contains or starts with, span 1's test (see textLead)
	ldate int
	// numeric filters, tested by hotWalk on values parsed after the
	// sums: value k (nsum ≤ k < nparse) of field numField[k] must lie in
	// [numlo[k][i], numhi[k][i]], i = 0 for scale 0 and 1 for scale 2 (see
	// numOn)
	nparse       int
	numField     [MaxSums]int
	numlo, numhi [MaxSums][2]int64
	sums         [MaxSums]struct{ from, slot uint8 }
	// skip: skipOf, kept up to date by each step that adds a value or a
	// span field (newHotPlan, spanOn, numOn)
	skip int
	// key2: not 0 if a group-by's key is two columns, span 0 and span 2:
	// the delimiter, which joins them (twoKey; hotState.key2)
	key2 int
}

// newHotPlan is the plan for the values tp names, with no filter.
func newHotPlan(tp *tailPlan) hotPlan {
	hp := hotPlan{ncm: tp.ncols - 1, need: tp.need, nsum: tp.nsum, nparse: tp.nsum, span: [3]int{-1, -1, -1}}
	for k := range tp.nsum {
		hp.sums[k].from = uint8(tp.ncols - tp.byCol[k].col)
		hp.sums[k].slot = uint8(tp.byCol[k].slot)
	}
	hp.skip = hp.skipOf()
	return hp
}

// filterOn makes hp test field lead (0: the row's first) for the bare
// value v, followed by its delimiter sep. It reports false, changing nothing, if
// hotWalk cannot: v empty or starting with '\r', more than 15 bytes, or
// lead past the 33rd field.
func (hp *hotPlan) filterOn(lead int, v []byte, sep byte) bool {
	n := len(v)
	if n == 0 || n > 15 || v[0] == '\r' || lead < 0 || lead > 32 {
		return false
	}
	var w [16]byte
	copy(w[:], v)
	w[n] = sep
	hp.leadbit, hp.vlen = 0, n
	if lead > 0 {
		hp.leadbit = 1 << (lead - 1)
	}
	hp.vmask, hp.vmask2 = ^uint64(0), 0
	if n+1 < 8 {
		hp.vmask = ^uint64(0) >> (64 - 8*(n+1))
	} else if n+1 > 8 {
		hp.vmask2 = ^uint64(0) >> (64 - 8*(n+1-8))
	}
	hp.vword = binary.LittleEndian.Uint64(w[:8]) & hp.vmask
	hp.vword2 = binary.LittleEndian.Uint64(w[8:]) & hp.vmask2
	return true
}

// spanBack marks a span field found from the row's end (hotPlan.span;
// hot_amd64.s: SPANBACK).
const spanBack = 100

// spanOn makes span field j field f of a row of ncols: from the row's end
// if it is in the last maxNeed fields but not the first (the walk then
// reaches the comma before it, a comma of the row: need ≤ ncols-1) and
// the walk reaches it anyway (for a value) or it is no nearer the start,
// else from its start if it is in the first 33, else none (-1: the Go code
// finds it).
//
// The walk from the end looks in the row's last 64 bytes and the search
// from the start in its first 128, and a row whose field lies past them
// goes back to Go: so a field in the middle is looked for from the start.
// (Order ID, 8 fields from the end of a Sales Records row but 7 from its
// start, lay past the last 64 bytes in most rows.)
func (hp *hotPlan) spanOn(j, f, ncols int) {
	switch i := ncols - f; {
	case i <= maxNeed && f > 0 && (i <= hp.need || i <= f || f > 32): // (the first field has no comma before it)
		hp.span[j], hp.need = spanBack+i, max(hp.need, i)
	case f <= 32:
		hp.span[j] = f
	default:
		hp.span[j] = -1
	}
	hp.spansSet()
}

// spansSet brings nspan and skip up to date with span.
func (hp *hotPlan) spansSet() {
	hp.nspan = 0
	for k, v := range hp.span {
		if v >= 0 {
			hp.nspan = k + 1
		}
	}
	hp.skip = hp.skipOf()
}

// word16 is v, at most 16 bytes, as the two little-endian words hotWalk
// compares a field's first 16 bytes with (zero past v).
func word16(v []byte) [2]uint64 {
	var w [16]byte
	copy(w[:], v)
	return [2]uint64{binary.LittleEndian.Uint64(w[:8]), binary.LittleEndian.Uint64(w[8:])}
}

// testOn makes hotWalk test c on span field j, if it can: = or != with a
// value of at most 16 bytes that is neither a number nor a date (a byte
// comparison, which never fails; see cond.equal), on a field it finds.
// As cond.test, hotWalk fails != on an empty field (a missing value).
func (hp *hotPlan) testOn(j int, c *cond) bool {
	if (c.op != OpEq && c.op != OpNe) || c.kind != kindBytes || len(c.val) > 16 || hp.span[j] < 0 {
		return false
	}
	hp.eqw[j], hp.eqn[j], hp.eqop[j] = word16(c.val), len(c.val), 1
	if c.op == OpNe {
		hp.eqop[j] = 2
	}
	return true
}

// textOn makes hotWalk test c, contains (~) or starts with (^=), on span
// field j, if it can: a value of 1 to 16 bytes, on a field it finds. (Both
// compare bytes, whatever the column's kind, and never fail; a field
// with a start past 31 goes back: see spantext in hot_amd64.s.)
func (hp *hotPlan) textOn(j int, c *cond) bool {
	if c.op != OpContains && c.op != OpPrefix || len(c.val) == 0 || len(c.val) > 16 || hp.span[j] < 0 {
		return false
	}
	hp.eqw[j], hp.eqn[j], hp.eqop[j] = word16(c.val), len(c.val), 7
	if c.op == OpPrefix {
		hp.eqop[j] = 8
	}
	const ones = 0x0101010101010101
	f, l := uint64(c.val[0])*ones, uint64(c.val[len(c.val)-1])*ones
	hp.st.cfirst[j], hp.st.clast[j] = [2]uint64{f, f}, [2]uint64{l, l}
	return true
}

// textLead makes hotWalk's lead (leadbit) c, a contains or starts with on
// a column past the first and within the first 33 (textOn's test, on span
// 1), if no other filter leads: hotWalk then tests each row's field after
// the lead-th comma before it looks for the row's end (a field that does
// not end within textLeadLen bytes takes the way that finds it first), so a
// row the test turns away costs what a lead's value compare does. The
// caller frees span 1 (span[1] = -1): the lead has tested it.
func (hp *hotPlan) textLead(c *cond) bool {
	if c.field < 1 || c.field > 32 || hp.leadbit != 0 || hp.vmask != 0 || !hp.textOn(1, c) {
		return false
	}
	hp.leadbit, hp.vlen, hp.ldate = 1<<(c.field-1), textLeadLen, 2
	return true
}

// textLeadLen is the longest field a text lead finds without the row's
// end: the lead's comma, this and 3 bytes must lie in the row's first 64.
const textLeadLen = 24

// maxIn is how many values an in list hotWalk tests may have (inOn).
const maxIn = 4

// inOn makes hotWalk test c, in or not in a list, on span field j, if it
// can: one list a plan, of at most maxIn values that are each bytes that
// could lead (leadOK: = of bytes, which never fails) of at most 16 bytes,
// on a field it finds. As cond.test, both fail on an empty field.
func (hp *hotPlan) inOn(j int, c *cond, sep byte) bool {
	if c.op != OpIn && c.op != OpNotIn || hp.st.nin != 0 || len(c.list) > maxIn || hp.span[j] < 0 {
		return false
	}
	for i := range c.list {
		if !c.list[i].leadOK(sep) || len(c.list[i].val) > 16 {
			return false
		}
	}
	for i := range c.list {
		hp.st.inw[i], hp.st.inn[i] = word16(c.list[i].val), len(c.list[i].val)
	}
	hp.st.nin, hp.eqop[j] = len(c.list), 5
	if c.op == OpNotIn {
		hp.eqop[j] = 6
	}
	return true
}

// dateOn makes hotWalk test c on span field j, if it can
// (dateTestable). hotWalk reads a field of the two
// forms plainDay reads, M/D/YYYY and YYYY-MM-DD, as its day's ordinal
// y·512 + m·32 + d, and c holds iff that lies in [dlo[j], dhi[j]]; an empty
// field is a missing value, which fails c; any other field goes back to
// Go (another form, which may be a date, a time or an error; a day past
// the 28th of February, a leap day or not). If an earlier span k tests a
// date on the same field, c narrows k's range instead and span j is
// freed: a range's two filters read the field once.
func (hp *hotPlan) dateOn(j int, c *cond) bool {
	if !dateTestable(c) || hp.span[j] < 0 {
		return false
	}
	lo, hi := dayBounds(c.op, c.day)
	for k := 1; k < j; k++ {
		if hp.eqop[k] == 3 && hp.span[k] == hp.span[j] {
			hp.st.dlo[k], hp.st.dhi[k] = max(hp.st.dlo[k], lo), min(hp.st.dhi[k], hi)
			hp.span[j] = -1
			hp.spansSet()
			return true
		}
	}
	hp.eqop[j], hp.st.dlo[j], hp.st.dhi[j] = 3, lo, hi
	return true
}

// dateTestable says whether hotWalk can test c on a date it reads (see
// dateOn): an order comparison (or = in a date column) of a column read
// as dates in parseDate's forms (no --date-format).
func dateTestable(c *cond) bool {
	dates := c.ckind == KindDate || c.ckind == KindAuto && c.kind == kindDate
	return dates && c.dates == nil && len(c.val) > 0 && (c.op.ordered() || c.op == OpEq && c.ckind == KindDate)
}

// dateLead makes hotWalk's lead (leadbit) c, a date comparison on a
// column past the first and within the first 33 (dateTestable), if no
// other filter leads: hotWalk then reads each row's date after the lead-th
// comma, as dateOn's span does, before it looks for the row's end, so a
// row the date turns away costs what a lead's value compare does. A next
// filter d (nil for none) on the same column narrows the range, and
// dateLead reports that it took it too.
func (hp *hotPlan) dateLead(c, d *cond) (ok, both bool) {
	if !dateTestable(c) || c.field < 1 || c.field > 32 || hp.leadbit != 0 || hp.vmask != 0 {
		return false, false
	}
	hp.leadbit, hp.vlen, hp.ldate = 1<<(c.field-1), 10, 1 // (vlen: the longest date it reads)
	hp.st.ldlo, hp.st.ldhi = dayBounds(c.op, c.day)
	if d != nil && dateTestable(d) && d.field == c.field {
		lo, hi := dayBounds(d.op, d.day)
		hp.st.ldlo, hp.st.ldhi = max(hp.st.ldlo, lo), min(hp.st.ldhi, hi)
		both = true
	}
	if hp.st.ldlo > hp.st.ldhi { // no day: a range hotWalk tests as one unsigned compare, which no day passes
		hp.st.ldlo, hp.st.ldhi = math.MaxInt64, math.MaxInt64
	}
	return true, both
}

// dateOfKey is the text and the parseDate instant of the date hotWalk
// read as key (eqop 4, in M/D/YYYY or YYYY-MM-DD: plainDay's forms; see
// spandate in hot_amd64.s): the day's ordinal y·512 + m·32 + d above the
// field's first 4 bytes, big-endian, so that keys order as cmpDateWord
// orders their Words (two spellings of one day differ within those bytes:
// a month's or day's leading zero, or YYYY- against a '/' in the first 3).
// The spelling is the one the day and the 4 bytes give: YYYY-MM-DD if they
// hold no '/', else M/D/YYYY with the month's digits up to the first '/'
// and the day's two if it is past 9 or its first is '0'.
func dateOfKey(key int64) (string, int64) {
	ord := key >> 32
	var b4 [4]byte
	binary.BigEndian.PutUint32(b4[:], uint32(key))
	y, m, d := int(ord>>9), int(ord>>5&15), int(ord&31)
	s1 := bytes.IndexByte(b4[:], '/')
	if s1 < 0 {
		return fmt.Sprintf("%04d-%02d-%02d", y, m, d), ord * dayMicros
	}
	mf, df := "%d", "%d"
	if s1 == 2 {
		mf = "%02d"
	}
	if d > 9 || b4[s1+1] == '0' {
		df = "%02d"
	}
	return fmt.Sprintf(mf+"/"+df+"/%04d", m, d, y), ord * dayMicros
}

// dayBounds is the range of day ordinals (y·512 + m·32 + d) whose
// midnight, as parseDate gives it (the ordinal times dayMicros), compares
// by op with at, a parseDate instant: [lo, hi], empty (lo > hi) if none.
func dayBounds(op Op, at int64) (lo, hi int64) {
	fl := at / dayMicros
	if at%dayMicros != 0 && at < 0 {
		fl-- // the floor
	}
	ce := fl
	if at%dayMicros != 0 {
		ce++ // the ceiling
	}
	lo, hi = math.MinInt64, math.MaxInt64
	switch op {
	case OpGt:
		lo = fl + 1
	case OpGe:
		lo = ce
	case OpLt:
		hi = ce - 1
	case OpLe:
		hi = fl
	case OpEq:
		lo, hi = ce, fl // (empty unless at is a midnight)
	}
	return lo, hi
}

// numOn makes hotWalk test c, a comparison with a number, on the value it
// parses of c's field, if it can: the field is one of the row's last
// maxNeed but not its first, and a value is left in sums. A value it
// parses is at scale 0 or 2, at least 0 and below 10^10; c holds for it at
// scale s iff v - numlo <= numhi - numlo as unsigned words, numlo and
// numhi the bounds c's number gives at s (floor and ceiling, exactly): for
// numlo <= numhi, iff v lies in [numlo, numhi]; for != v, the bounds
// [v+1, v-1] wrap around and hold for every value but v. (A field that
// does not parse goes back to Go, where = compares its bytes: see
// cond.equal.)
func (hp *hotPlan) numOn(c *cond, ncols int) bool {
	i := ncols - c.field
	if c.kind != kindNumber || !c.op.compares() || c.field == 0 || i > maxNeed || hp.nparse == MaxSums {
		return false
	}
	k := hp.nparse
	for si, sc := range []int{0, 2} {
		num := new(big.Int).Mul(c.wm.big(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(sc)), nil))
		den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(c.s)), nil)
		floor := new(big.Int).Div(num, den) // Euclidean: the floor, den > 0
		ceil := new(big.Int).Neg(new(big.Int).Div(new(big.Int).Neg(num), den))
		lo, hi := big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
		// = and !=: the value at scale sc, if it has one that hotWalk can
		// parse (in [0, 10^10), so that v ± 1 stays in the int64 range)
		at := floor.Cmp(ceil) == 0 && floor.Sign() >= 0 && floor.Cmp(big.NewInt(1e10)) < 0
		switch c.op {
		case OpGt:
			lo = floor.Add(floor, big.NewInt(1))
		case OpGe:
			lo = ceil
		case OpLt:
			hi = ceil.Sub(ceil, big.NewInt(1))
		case OpLe:
			hi = floor
		case OpEq:
			lo, hi = big.NewInt(-1), big.NewInt(-1) // no value parsed is -1
			if at {
				lo, hi = floor, floor
			}
		case OpNe:
			if at { // every value but it: a range that wraps (see numOn)
				lo, hi = new(big.Int).Add(floor, big.NewInt(1)), new(big.Int).Sub(floor, big.NewInt(1))
			}
		}
		hp.numlo[k][si], hp.numhi[k][si] = clamp64(lo), clamp64(hi)
	}
	hp.sums[k].from = uint8(i)
	hp.numField[k] = c.field
	hp.need = max(hp.need, i)
	hp.nparse++
	hp.skip = hp.skipOf()
	return true
}

// clamp64 is x, or the int64 bound nearest it. (A clamped bound of a
// numeric filter keeps its answer: every value hotWalk parses is in
// [0, 10^10).)
func clamp64(x *big.Int) int64 {
	switch {
	case x.IsInt64():
		return x.Int64()
	case x.Sign() < 0:
		return math.MinInt64
	}
	return math.MaxInt64
}

// numBounds sets it's numeric filters' bounds for the scales it.scale
// gives their values.
func (hp *hotPlan) numBounds(it *hotState) {
	for k := hp.nsum; k < hp.nparse; k++ {
		i := it.scale[k] / 2
		it.numlo[k], it.numhi[k] = hp.numlo[k][i], hp.numhi[k][i]
	}
}

// learnNumScales sets sc.scale for the numeric filters' values from the
// row data[p:e] (a quote-free row of the window at wb, marks mk), where
// such a value is at scale 0 or 2, so hotWalk parses the next rows at it.
func (t *Table) learnNumScales(p, e int, mk *marks, wb int, sc *rowScratch, hp *hotPlan) {
	for k := hp.nsum; k < hp.nparse; k++ {
		if s, end := t.fieldSpan(p, e, mk, wb, hp.numField[k]); s >= 0 {
			if _, sc0, err := ParseFixed(t.data[s:end]); err == nil && (sc0 == 0 || sc0 == 2) {
				sc.scale[k] = uint8(sc0)
			}
		}
	}
}

// walk returns the walk over the sp bits before stop (> 0) of a window
// whose tally is n.
func walk(n *tally, stop int) hotState {
	wz := (stop - 1) >> 6
	return hotState{
		nz:   n.nz & (^uint64(0) >> (63 - wz)),
		wz:   wz,
		keep: ^uint64(0) >> (63 - (stop-1)&63), // the part of word wz to take
	}
}

// next returns the next sp bit, -1 when there is none left.
func (it *hotState) next(mk *marks) int {
	for it.cur == 0 {
		if it.nz == 0 {
			return -1
		}
		it.w = bits.TrailingZeros64(it.nz)
		it.nz &= it.nz - 1
		it.cur = mk.sp[it.w]
		if it.w == it.wz {
			it.cur &= it.keep
		}
	}
	s := it.w<<6 + bits.TrailingZeros64(it.cur)
	it.cur &= it.cur - 1
	return s
}

// fillHot fills in hotWalk's input for a window at wb of len(data) bytes.
// (The window, its marks and the Result are hotWalk's arguments: stored in
// it, they would escape to the heap.)
func (hp *hotPlan) fillHot(it *hotState, data []byte, wb int) {
	it.avail = len(data) - wb
	it.vword, it.vmask, it.ncm, it.need, it.nsum = hp.vword, hp.vmask, hp.ncm, hp.need, hp.nsum
	it.sums = hp.sums
	it.leadbit, it.vword2, it.vmask2, it.vlen, it.span, it.nspan = hp.leadbit, hp.vword2, hp.vmask2, hp.vlen, hp.span, hp.nspan
	it.eqw, it.eqn, it.eqop, it.st, it.dv, it.ldate = hp.eqw, hp.eqn, hp.eqop, &hp.st, hp.dv, hp.ldate
	it.nparse, it.nnum = hp.nparse, hp.nparse-hp.nsum
	it.skip, it.key2 = hp.skip, hp.key2
}

// skipOf returns how many of a row's last commas no value or span field of
// the plan starts or ends at (cpos[0], the row's end, aside): hotWalk does
// not walk them one by one.
func (hp *hotPlan) skipOf() int {
	lo := hp.need // the lowest cpos index above 0 a field reads
	for k := range hp.nparse {
		lo = min(lo, max(int(hp.sums[k].from)-1, 1))
	}
	for _, f := range hp.span[:hp.nspan] {
		if f >= spanBack {
			lo = min(lo, max(f-spanBack-1, 1))
		}
	}
	return max(lo-1, 0)
}

// scalesOf puts in it the scale of each sum of r that hotWalk adds to and
// reports whether each is 0 or 2, as hotWalk's parse requires (a sum takes
// the scale of the values added to it: on the Sales set, from a file's
// first matching row, which line takes, on).
func (hp *hotPlan) scalesOf(it *hotState, r *Result, sc *rowScratch) bool {
	for k := range hp.nsum {
		s := r.Sums[hp.sums[k].slot].Scale
		if s != 0 && s != 2 {
			return false
		}
		it.scale[k] = uint8(s)
	}
	for k := hp.nsum; k < hp.nparse; k++ {
		it.scale[k] = sc.scale[k]
	}
	hp.numBounds(it)
	return true
}

// compress says whether hotWalk should take the rows in compress mode
// (hotState.cmode): where the plan allows it (a filter, no span field, no
// numeric filter), once r has counted compressRows rows, if at least a
// third of them matched. (Around half, a branch on the filter is
// mispredicted for one row in two: docs/performance.md.)
func (hp *hotPlan) compress(r *Result) bool {
	return hp.vmask != 0 && hp.nspan == 0 && hp.nparse == hp.nsum &&
		r.Rows >= compressRows && 3*r.Matched >= r.Rows
}

// compressRows is how many rows compress waits for, minCompressRows but
// in tests that set it to 0, to take every row they can in compress mode
// (see hotModes).
var compressRows int64 = minCompressRows

const minCompressRows = 256

// maxNeed is how many fields from a row's end Table.hit can reach: the comma
// before each must lie in the row's last 64 bytes anyway.
const maxNeed = 8

// hit is the hot path for the reference query's shape (see binding.hot): a
// quote-free row data[p:e] inside the window whose marks are mk (starting at
// wb), with data[p] equal to the filter value's first byte. It does in one function, calling only
// parseCents, what line, pickBack, add and Fixed.Add do in seven: one masked
// word compare for the filter, one popcount per word for the field count,
// leading-zero counts on the comma bits of the row's last 64 bytes for the
// money fields, each parsed as soon as its comma is found, and the sums added
// once every value has parsed (and put back if one overflows). The commas
// stay in registers, and the sums' scales are checked once per change (see
// cents), not per row: an earlier version kept the commas in an array and
// read the scales from r, and those loads stalled, by an amount that moved
// with the stack frame's layout (docs/experiments.md).
//
// It reports false, having changed nothing, for anything unusual (a row
// ending right after the value, a field count other than the header's, a
// value parseCents declines, an overflow), and the caller hands the row to
// line, which gives the exact answer or error.
func (t *Table) hit(p, e int, r *Result, mk *marks, wb int) bool {
	b := &t.b
	data := t.data
	ee := e
	if data[e-1] == '\r' { // e > p: data[p] is the value's first byte, not '\n'
		ee--
	}
	if p+8 > len(data) || ee-p <= 8 {
		return false
	}
	if binary.LittleEndian.Uint64(data[p:])&b.hp.vmask != b.hp.vword {
		r.Rows++ // not a match: the first field is longer or different
		return true
	}
	if !addTail(data, p, e, r.Sums[:], mk, wb, &b.tp) {
		return false
	}
	r.Rows++
	r.Matched++
	return true
}

// qline is line for a row of a window quotedLeadOK passed, which hotWalk
// handed back (a sum at another scale, a value past its range): the
// first field is the value in quotes and a delimiter (binding.qval), or
// the row is not a match; a match's sums are read as line reads them (bare
// numbers, bounded by the comma bits), and a row with a quoted one goes to
// the full parser.
func (t *Table) qline(p, e int, r *Result, mk *marks, wb int) error {
	line := stripCR(t.data[p:e])
	if !bytes.HasPrefix(line, t.b.qval) {
		r.Rows++ // not a match
		return nil
	}
	r.Rows++ // (counted before its sums are read, as line counts it)
	if done, err := t.lineSums(p, e, line, r, mk, wb, true); done {
		return err
	}
	r.Rows-- // (slowRow counts it)
	_, err := t.slowRow(p, r)
	return err
}

// tailPlan says where a row's summed fields are, counted from its end:
// byCol lists the summed columns in ascending order with each one's slot;
// every one lies in the last need fields of a row of ncols fields, none is
// the first. The simple binding's sums (binding.tp) and a group-by's
// (general.tp) have one each.
type tailPlan struct {
	ncols, need, nsum int
	byCol             [MaxSums]struct{ col, slot int }
}

// tailValues is the part of hit after the filter, for any quote-free row
// data[p:e] in the window whose marks are mk (starting at wb): it finds the
// fields tp names from the row's end by the comma bitmap and parses them
// with parseQuick into vals and scales (in byCol order). It reports false
// for anything unusual (a field count other than ncols, a value parseQuick
// declines), and the caller hands the row to the general code.
func tailValues(data []byte, p, e int, mk *marks, wb int, tp *tailPlan, vals *[MaxSums]int64, scales *[MaxSums]int) bool {
	if e > p && data[e-1] == '\r' {
		e--
	}
	if e-p <= 0 {
		return false
	}
	// The row must have the header's field count, or its fields counted
	// from the end are not the columns named.
	a, z := p-wb, e-wb // the row's bits in mk
	wa, wz := a>>6, (z-1)>>6
	n := -bits.OnesCount64(mk.cm[wa] & (1<<(a&63) - 1))
	for w := wa; w < wz; w++ {
		n += bits.OnesCount64(mk.cm[w])
	}
	n += bits.OnesCount64(mk.cm[wz] & (^uint64(0) >> (63 - (z-1)&63)))
	if n != tp.ncols-1 {
		return false
	}
	// tail: the comma bits of bytes [e-64, e), byte e-1 at bit 63. Bits
	// before the window are zero; any before p are not the row's, but then
	// tail covers the whole row and its last commas are the row's.
	var tail uint64
	if s := z & 63; s == 0 {
		tail = mk.cm[z>>6-1]
	} else {
		tail = mk.cm[z>>6] << (64 - s)
		if z >= 64 {
			tail |= mk.cm[z>>6-1] >> s
		}
	}
	if bits.OnesCount64(tail) < tp.need {
		return false
	}
	// Walk the commas from the end; the fields come last to first (byCol
	// is in column order), each between its comma and the previous.
	k, end := tp.nsum-1, e
	for col := tp.ncols - 1; k >= 0; col-- {
		lz := bits.LeadingZeros64(tail)
		c := e - 1 - lz
		tail &^= 1 << 63 >> lz
		if tp.byCol[k].col == col {
			// parseQuick: cents, or up to 8 digits before and after a point
			v, sc, ok := parseQuick(data[c+1 : end])
			if !ok {
				return false
			}
			for ; k >= 0 && tp.byCol[k].col == col; k-- {
				vals[k], scales[k] = v, sc
			}
		}
		end = c
	}
	return true
}

// addTail is tailValues that adds the values to sums (indexed by slot). It
// reports false, having changed nothing, when tailValues does, or when a
// value's scale is not its sum's or a sum would leave V's range; the
// general code then adds the row (and sets a new sum's scale from its
// first value). It does not count the row.
func addTail(data []byte, p, e int, sums []Fixed, mk *marks, wb int, tp *tailPlan) bool {
	var vals [MaxSums]int64
	var scales [MaxSums]int
	if !tailValues(data, p, e, mk, wb, tp, &vals, &scales) {
		return false
	}
	return addVals(sums, tp, &vals, &scales)
}

// addVals adds vals (at scales, in tp.byCol order) to their sums, or
// changes nothing and reports false if a scale differs from its sum's or a
// sum would overflow V (the general code's Fixed.Add then carries).
func addVals(sums []Fixed, tp *tailPlan, vals *[MaxSums]int64, scales *[MaxSums]int) bool {
	for k := range tp.nsum {
		if int64(scales[k]) != sums[tp.byCol[k].slot].Scale {
			return false
		}
	}
	for k := range tp.nsum {
		f := &sums[tp.byCol[k].slot]
		sum := f.V + vals[k]
		// Signed overflow happened iff both operands have the sign the sum lacks.
		if (f.V^sum)&(vals[k]^sum) < 0 {
			for k--; k >= 0; k-- {
				sums[tp.byCol[k].slot].V -= vals[k]
			}
			return false
		}
		f.V = sum
	}
	return true
}

// bulkEvery takes every row that starts in the quote-free window
// data[wb:we] (just classified into mk) before end and ends inside it, for
// a query that takes every row the same way (see ScanPart's every): it
// walks the window's newline bits itself and gives each row to takeRow,
// and a row takeRow declines to line or lineGen. It returns where the next
// row starts: wb if no row ends in the window.
func (t *Table) bulkEvery(end int, r *Result, mk *marks, wb, we int, sc *rowScratch, lead int, leadVal []byte) (int, error) {
	words := (we - wb + 63) / 64
	p := wb
	for w := range words {
		for m := mk.nl[w]; m != 0; m &= m - 1 {
			if p >= end {
				return p, nil
			}
			e := wb + w<<6 + bits.TrailingZeros64(m)
			if !t.takeRow(p, e, r, mk, wb, lead, leadVal) {
				if err := t.anyLine(p, e, r, mk, wb, sc); err != nil {
					return p, err
				}
			}
			p = e + 1
		}
	}
	return p, nil
}

// takeRow is the fast way with a quote-free row data[p:e] inside the window
// at wb whose marks are mk, for the queries ScanPart's every names: a first
// filter on column lead (≥ 0) with the value leadVal, tested on the field
// the comma bitmap finds (fieldStart, fieldIs); then the fast group-by
// (groupHit), or the simple shape's sums from the row's end (addTail). It
// reports whether it took the row (counted it, and added it if it passes);
// if not, it changed nothing the caller's line or lineGen will not redo,
// and they take the row (a blank line, a short row, an unusual value).
func (t *Table) takeRow(p, e int, r *Result, mk *marks, wb int, lead int, leadVal []byte) bool {
	data := t.data
	if e == p || data[p] == '\r' {
		return false
	}
	if lead >= 0 {
		f := p
		if lead > 0 {
			f = fieldStart(mk, wb, p, e, lead)
		}
		if f < 0 {
			return false // a short row: line reports it
		}
		if !fieldIs(data, f, e, leadVal, t.b.sep) {
			r.Rows++ // the first filter fails
			return true
		}
	} else if g := t.b.gen; g != nil && g.pre >= 0 {
		f := p
		if g.pre > 0 {
			f = fieldStart(mk, wb, p, e, g.pre)
		}
		if f < 0 {
			return false // a short row: lineGen reports it
		}
		n := bytes.IndexByte(data[f:e], t.b.sep)
		if n < 0 {
			n = e - f
			if n > 0 && data[f+n-1] == '\r' {
				n--
			}
		}
		if !g.conds[0].pre(data[f : f+n]) {
			r.Rows++ // the first filter fails
			return true
		}
	}
	if g := t.b.gen; g != nil {
		return g.hot != nil && t.groupHit(p, e, r, mk, wb)
	}
	// The simple shape: no filter, or its one filter just held.
	if t.b.sumsHot && (t.b.filter < 0 || lead > 0) && addTail(data, p, e, r.Sums[:], mk, wb, &t.b.tp) {
		r.Rows++
		r.Matched++
		return true
	}
	return false
}
