package scan

import "golang.org/x/sys/cpu"

// hotAsm says whether bulkHot runs hotWalk: it needs AVX2 (a group's key
// is compared 32 bytes at a time), BMI1, BMI2 and POPCNT. Tests turn it
// off to check the portable loop against it.
var hotAsm = cpu.X86.HasAVX2 && cpu.X86.HasBMI1 && cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT

// hotWalk is Table.hit in assembly over a whole window (hot_amd64.s): it
// walks its sp bits from where it stands and takes each row hit would
// take, checking it the same way, and adds what it took to r when it
// returns. It skips blank lines, and hands back (it.more = 1, the row at
// it.q, it.e) any row it does not take: one that hit would turn down. If
// adding would take a sum's fast part (Fixed.V) out of the int64 range, it
// adds nothing and puts the walk back as it was (it.more = 2), so that line
// adds the rows through Fixed.Add. it.more = 0 when no bit is left.
//
// Its parse differs from parseCents only in how the digits become a
// number: checked the same way and shifted to the top of a word as in
// eightDigits, they are summed by byte lane over the window's rows, with
// the multiplications done once a call, not once a value. A field whose
// it.scale is 0 is parsed as an integer of 1 to 8 digits instead.
//
// The plan (hotPlan.fillHot) may name a filter on a later field, which it
// finds after the row's lead-th comma in the comma bits of its first 64
// bytes, and a value of up to 15 bytes. It finds up to 3 span fields
// (hotPlan.span: the group-by key, the later filters' fields, a date
// value) and tests the later =, !=, in, contains, starts-with and date
// filters on them before it parses a value (testOn, inOn, textOn,
// dateOn; a date as the lead: dateLead), and the numeric ones on the
// values it parses after the sums (hotPlan.numOn); a row one turns away
// counts as a row, not a match. A date value's key goes to the key
// table's entry in slot mode (see dateOfKey). In emit mode (it.out
// not nil) it adds nothing to the lanes: each row it takes goes to
// it.out[it.nout] with its values made numbers and its spans, and it
// returns with it.more = 3 when it.ncap rows are there (r gets only the
// count of rows turned away); in slot mode (it.ktab not nil) a row whose
// key is in the key table goes to the key's accumulators instead, and
// counts in r (see hotKeys). In compress mode (it.cmode, see
// hotPlan.compress) it tests the filter without a branch, keeping the rows
// in cbuf (the caller's, cbufLen rows, used only for the call), and takes
// them in a second pass; a row it hands back from either pass leaves the
// walk right after it, so the next call goes on from there. In chain mode
// (it.chain: the sp bits are every row's start, set by bulk; with no filter
// on a later field and not in compress mode) it reads the sp bits only for
// a call's first row and takes each next row after the last one's '\n';
// the walk it leaves in it is the same as without.
//
//go:noescape
func hotWalk(it *hotState, window *byte, mk *marks, r *Result, cbuf *[cbufLen][3]int)

// bulkHot lets hotWalk take the rows of the window at wb that it can, in
// the walk it, and gives the rows it hands back to takeRow (for a hotAll
// query, with the first filter lead, leadVal) or line. It returns when the
// walk is done, or leaves the rest of it in it when hotWalk cannot go on: a
// sum at a scale other than 0 and 2, or one that would leave V's range.
// The fast group-by goes to groupsHot.
func (t *Table) bulkHot(it *hotState, r *Result, mk *marks, wb int, sc *rowScratch, lead int, leadVal []byte) error {
	if !hotAsm {
		return nil
	}
	if g := t.b.gen; g != nil {
		if h := g.hot; h != nil && h.lanes {
			return t.lanesHot(it, r, mk, wb, sc, &h.hp, lead, leadVal)
		}
		if g.hot != nil && g.hot.all {
			return t.groupsHot(it, r, mk, wb, sc, lead, leadVal)
		}
		return nil
	}
	hp := &t.b.hp
	if !t.b.hot && !t.b.hotAll {
		return nil
	}
	if sc.qlead {
		hp = &t.b.qhp
	}
	return t.lanesHot(it, r, mk, wb, sc, hp, lead, leadVal)
}

// lanesHot is bulkHot's walk with hotWalk adding the rows it takes to r's
// sums (not in emit mode), for the plan hp: the simple query's, or the
// general path's when every filter is one hotWalk tests (groupHot.lanes).
// A row it hands back goes to takeRow (for a hotAll or general query),
// then line or lineGen. It returns when the walk is done, or leaves the
// rest of it in it when hotWalk cannot go on: a sum at a scale other than
// 0 and 2, or one that would leave V's range.
func (t *Table) lanesHot(it *hotState, r *Result, mk *marks, wb int, sc *rowScratch, hp *hotPlan, lead int, leadVal []byte) error {
	hp.fillHot(it, t.data, wb)
	if !hp.scalesOf(it, r, sc) {
		return nil
	}
	if hp.compress(r) {
		it.cmode = 1
	}
	gen := t.b.gen != nil
	w := &t.data[wb]
	for hotWalk(it, w, mk, r, &sc.cbuf); it.more != 0; hotWalk(it, w, mk, r, &sc.cbuf) {
		if it.more == 2 {
			return nil // a sum leaves V's range: line adds the rows
		}
		p, e := wb+it.q, wb+it.e
		// The rest of the window without compress mode: each row that goes
		// back from it costs the first pass's rows after it again.
		it.cmode = 0
		switch {
		case sc.qlead: // (a quoted row)
			if err := t.qline(p, e, r, mk, wb); err != nil {
				return err
			}
		case gen:
			if !t.takeRow(p, e, r, mk, wb, lead, leadVal) {
				if err := t.lineGen(p, e, r, mk, wb, sc); err != nil {
					return err
				}
			}
		case !t.b.hotAll || !t.takeRow(p, e, r, mk, wb, lead, leadVal):
			if err := t.line(p, e, r, mk, wb); err != nil {
				return err
			}
		}
		if gen {
			t.learnNumScales(p, e, mk, wb, sc, hp)
		}
		if !hp.scalesOf(it, r, sc) {
			return nil
		}
	}
	return nil
}

// groupsHot is bulkHot for the fast group-by: hotWalk, in emit mode, parses
// the values of the rows it takes (each at the scale sc.scale has learnt:
// a row whose value is at another goes back). In slot mode (groupHot.slot:
// a group-by whose later filters hotWalk tests itself) it adds each row
// whose key is in the Groups' key table to the key's accumulators itself
// (hotKeys; with a minimum or maximum, in extremes mode); else
// it hands the rows over hotRecs at a time, and groupAdd puts each in its
// group, and lineGen takes a row it declines. (In slot mode the rows handed
// over are those whose key the table lacks, which teach it their keys.) A
// row hotWalk hands back goes
// to takeRow or lineGen, teaches the key table its key and sc.scale its
// values' scales (the accumulators are folded first if they change). The
// whole walk is taken. (hotWalk's more = 2, an overflow, cannot come in
// emit mode: it adds nothing to r's sums.)
func (t *Table) groupsHot(it *hotState, r *Result, mk *marks, wb int, sc *rowScratch, lead int, leadVal []byte) error {
	h := t.b.gen.hot
	recs := &sc.recs // the scan's: zeroing 5 KiB a window cost 5 instructions a row
	loc := *it       // recs' address goes in loc, a local that nothing keeps
	h.hp.fillHot(&loc, t.data, wb)
	loc.out, loc.ncap = &recs[0], len(recs)
	if !h.sums {
		loc.ext = 1 // slot mode keeps maxima and minima too
	}
	var keys *hotKeys
	if h.slot && r.Part.N <= 1 { // (a key split is for many keys, where slot mode gives up: one path for it)
		if r.Groups == nil {
			r.makeGroups(len(t.b.gen.slots), t.b.gen.need)
		}
		keys = r.Groups.hotKeys(sc.span)
	}
	w := &t.data[wb]
	// each handed-over row's key (none without a group-by): in data, or a
	// two-column one made in sc.kbs. A local, not in sc: a slice of sc
	// stored in sc would make sc escape, an allocation a scan.
	var rowKeys [hotRecs][]byte
	kbs := &sc.kbs
	for {
		loc.scale = sc.scale
		h.hp.numBounds(&loc)
		loc.nout = 0
		loc.ktab, loc.kacc = nil, nil
		if keys != nil && !keys.off {
			if keys.rows > foldRows-winBytes {
				keys.fold(r.Groups, h, &sc.scale)
			}
			loc.ktab, loc.kacc = &keys.slots[0], &keys.acc[0]
			loc.kshift, loc.kmask = uint64(64-keys.bits), uint64(len(keys.slots)-1)
		}
		m, slotOn := r.Matched, loc.ktab != nil
		hotWalk(&loc, w, mk, r, nil)
		if keys != nil {
			keys.rows += r.Matched - m
			keys.taken += r.Matched - m
		}
		var scales [MaxSums]int
		for k := range h.tp.nsum {
			scales[k] = int(loc.scale[k])
		}
		if h.key >= 0 { // each row's key, once (see keyOf)
			for i := range loc.nout {
				sp := &recs[i].span
				rowKeys[i] = t.keyOf(kbs[i][:0], wb+sp[0][0], wb+sp[0][1], wb+sp[2][0], wb+sp[2][1])
			}
		}
		split := r.Part.N > 1 && h.key >= 0
		if split {
			// A key split: which rows' keys are this part's, found once
			// (groupAdd would find it again for each), so that only
			// those rows fetch their index slots below.
			for i := range loc.nout {
				sc.foreign[i] = !r.Part.has(rowKeys[i])
			}
		}
		if g := r.Groups; g != nil && h.key >= 0 && (keys == nil || keys.off) && loc.nout > 1 && g.bigIndex() {
			// Many keys (slot mode off): their index slots fetched at
			// once, so that the lookups below wait for memory once a
			// batch, not once a row.
			var skip []bool
			if split {
				skip = sc.foreign[:loc.nout]
			}
			g.touchKeys(rowKeys[:loc.nout], skip)
		}
		for i := range loc.nout {
			rc := &recs[i]
			p, e := wb+rc.q, wb+rc.e
			pass, ok := true, true
			if h.rest != nil {
				if pass, ok = t.restPass(p, e, mk, wb, &rc.span); ok && !pass {
					r.Rows++ // a later filter fails
					continue
				}
			}
			if ok && split && sc.foreign[i] {
				r.Rows++ // another part's key (see groupAdd)
				continue
			}
			// a key split's row that gets here is its part's (sc.foreign)
			var dv []byte
			if h.dslot >= 0 {
				dv = t.data[wb+rc.span[h.dspan][0] : wb+rc.span[h.dspan][1]]
			}
			if !ok || !t.groupAddOwn(rowKeys[i], r, &rc.v, &scales, dv) {
				if err := t.lineGen(p, e, r, mk, wb, sc); err != nil {
					return err
				}
			}
		}
		if slotOn {
			// In slot mode the records are rows whose key the table
			// lacks: it learns them, their groups made by now.
			for i := range loc.nout {
				sp := &recs[i].span
				t.learnKey(keys, r.Groups, rowKeys[i], wb+sp[0][0], wb+sp[0][1], wb+sp[2][0], wb+sp[2][1])
			}
		}
		switch loc.more {
		case 0:
			it.nz, it.cur, it.w = loc.nz, loc.cur, loc.w // the walk, done
			return nil
		case 1:
			p, e := wb+loc.q, wb+loc.e
			if !t.takeRow(p, e, r, mk, wb, lead, leadVal) {
				if err := t.lineGen(p, e, r, mk, wb, sc); err != nil {
					return err
				}
			}
			if keys != nil && !keys.off {
				if s, end, s2, end2 := t.keySpans(p, e, mk, wb); s >= 0 {
					var kb [keyBuf]byte
					t.learnKey(keys, r.Groups, t.keyOf(kb[:0], s, end, s2, end2), s, end, s2, end2)
				}
			}
			t.learnNumScales(p, e, mk, wb, sc, &h.hp)
			var vals [MaxSums]int64
			var ss [MaxSums]int
			if tailValues(t.data, p, e, mk, wb, &h.tp, &vals, &ss) {
				for k := range h.tp.nsum {
					// (cents stay cents: an integer in a column of money,
					// as R and DuckDB write 10.00, goes to Go on its own,
					// not flipping the column to integers and back)
					if (ss[k] == 0 && sc.scale[k] != 2 || ss[k] == 2) && sc.scale[k] != uint8(ss[k]) {
						if keys != nil {
							keys.fold(r.Groups, h, &sc.scale) // at the scales they were taken at
						}
						sc.scale[k] = uint8(ss[k])
					}
				}
			}
		}
	}
}

// learnKey teaches keys the group-by key whose fields are data[s:end]
// and, with a second column, data[s2:end2], and whose Groups key (keyOf) is
// key, as slot mode finds it (see twoKey), with its group in g, if the row
// it is from has one by now. With a distinct column (groupHot.dk), the
// second field is its value, learnt once the group's set holds it (a row
// hotWalk then counts in the entry adds nothing to the set: see counted),
// and never while it is missing (lineGen counts such a row as skipped).
func (t *Table) learnKey(keys *hotKeys, g *Groups, key []byte, s, end, s2, end2 int) {
	i := g.find(key)
	if i < 0 {
		return
	}
	h := t.b.gen.hot
	if h.key2 < 0 && h.dk < 0 {
		keys.learn(key, i)
		return
	}
	if h.dk >= 0 && (s2 == end2 || !t.counted(g, i, t.data[s2:end2])) {
		return // (a missing value, skipped by lineGen; or its row did not match: the next one to will teach it)
	}
	var tb [len(keySlot{}.key)]byte
	if k, ok := twoKey(tb[:0], t.data[s:end], t.data[s2:end2], t.b.sep); ok {
		keys.learn(k, i)
	} else {
		keys.miss()
	}
}

// counted reports whether group i of g holds distinct value v (not empty)
// of the count distinct's column (groupHot.dk) in its set.
func (t *Table) counted(g *Groups, i int, v []byte) bool {
	gen := t.b.gen
	s := gen.slots[gen.hot.dkSlot]
	key := string(v)
	if s.kind != KindText {
		k, err := distinctKey(v, s.kind, gen.dates)
		if err != nil {
			return false
		}
		key = k
	}
	_, ok := g.holWords(i*g.Slots + gen.hot.dkSlot).Distinct[key]
	return ok
}
