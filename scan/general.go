package scan

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// general is the binding of a query beyond the reference's shape: several
// filters, order comparisons, a group-by, minimums, maximums or averages.
// A row's fields are found once (pickFront and pickBack from a window's
// comma bitmap, or pick), then the filters test them in order and the
// matching row's values go to its group's accumulators (lineGen, rowGen);
// the common group-by takes rows its own quicker way (groupHit), and a
// first `=` filter is tested before either (lead).
type general struct {
	cols  []int    // the columns read, ascending, distinct (at most MaxFields)
	names []string // header name per entry of cols
	conds []cond   // in query order; fi indexes cols
	any   []cond   // the OR group (Query.Any); fi indexes cols
	keys  []int    // per group-by column, its index in cols
	// keyKinds, if not nil, are the group-by columns' kinds where one is
	// a number or date column: a new group's key is checked (checkKey)
	slots []aggSlot
	need  Need
	ncols int
	// lead: the first filter is COLUMN=VALUE on column lead, with a value
	// that a bare field can equal: ScanPart and bulkEvery turn away a row
	// that fails it (fieldStart, fieldIs) without the call to lineGen. Only the first
	// filter may: a later one must not hide an earlier one's error.
	lead int // the column, -1 for none
	// pre: the first filter is one that turns rows away by a bare field's
	// bytes (cond.preOK: in, contains, starts with): takeRow tests it on
	// the field the comma bitmap finds, and only rows it passes go on to
	// lineGen, which tests every filter as ever. -1 for none (or a lead).
	pre int
	// hot, if not nil, is the fast path of the common group-by (see
	// groupHit).
	hot *groupHot
	// split: cols[:split] lie in the header's front half, found from a
	// row's start (pickFront), the rest from its end (pickBack).
	split int
	// dates reads a date column's values (nil: parseDate's forms)
	dates    *dateReader
	keyKinds []ColumnKind
	// sel, if not nil: the query selects rows, which emit writes (no
	// group-by, no aggregate)
	sel *selector
}

// aggSlot is one aggregated column: where it is in cols and which
// accumulators it feeds.
type aggSlot struct {
	fi   int
	need Need
	// kind is the column's (KindAuto: each value read as it looks, see
	// Word); why says how it was decided
	kind Kind
	why  string
}

// AvgScale is the fewest digits after the point an average has (see Query).
const AvgScale = 6

func bindGeneral(q *Query, header []string, hk headerKinds, sep byte) (binding, error) {
	b := binding{filter: -1, ncols: len(header)}
	dr, err := newDateReader(q.DateFormats)
	if err != nil {
		return b, err
	}
	g := &general{ncols: len(header), dates: dr}
	var at []int // the column of each role, in the order of roles below
	use := func(col int) int {
		at = append(at, col)
		return len(at) - 1
	}
	// the filters, then the OR group: each bound to its column's kind,
	// and named in the Spec as the header spells the column
	for _, l := range []struct {
		in    []Cond
		conds *[]cond
		spec  *[]Cond
	}{{q.Filters, &g.conds, &b.spec.Filters}, {q.Any, &g.any, &b.spec.Any}} {
		for _, c := range l.in {
			i, err := resolve(c.Col, header)
			if err != nil {
				return b, err
			}
			ck, why := hk.of(i)
			named := Cond{Col: header[i], Op: c.Op, Value: c.Value, Quoted: c.Quoted, Values: c.Values}
			k, err := bindKind(named, ck, why, dr)
			if err != nil {
				return b, err
			}
			k.fi, k.field, k.name = use(i), i, header[i]
			*l.conds, *l.spec = append(*l.conds, k), append(*l.spec, named)
		}
	}
	byCol := map[int]string{}
	for _, name := range q.By {
		i, err := resolve(name, header)
		if err != nil {
			return b, err
		}
		if prev, dup := byCol[i]; dup {
			return b, fmt.Errorf("%w: %s and %s are both field %d (%s) in the group-by", ErrDupSum,
				clipQuote(prev), clipQuote(name), i+1, clipQuote(header[i]))
		}
		byCol[i] = name
		g.keys = append(g.keys, use(i))
		b.spec.By = append(b.spec.By, header[i])
		ck, why := hk.of(i)
		g.keyKinds = append(g.keyKinds, ColumnKind{header[i], ck, why})
	}
	type list struct {
		fn    string
		names []string
		need  Need
	}
	var lists []list // the running aggregates', in the table's order
	for _, f := range AggFuncs {
		if !f.Holistic() {
			lists = append(lists, list{f.Func, *f.list(q), f.need})
		}
	}
	if !q.named() {
		lists[0].names = q.defaultSums(header)
		b.spec.Sales = lists[0].names != nil
	}
	slotOf := map[int]int{} // column → slot
	slotFor := func(i int) (int, error) {
		slot, ok := slotOf[i]
		if !ok {
			if len(g.slots) == MaxSums {
				return 0, fmt.Errorf("at most %d distinct columns can be aggregated", MaxSums)
			}
			slot = len(g.slots)
			slotOf[i] = slot
			ck, why := hk.of(i)
			g.slots = append(g.slots, aggSlot{fi: use(i), kind: ck, why: why})
		}
		return slot, nil
	}
	for _, l := range lists {
		seen := map[int]string{}
		for _, name := range l.names {
			i, err := resolve(name, header)
			if err != nil {
				return b, err
			}
			if prev, dup := seen[i]; dup {
				return b, fmt.Errorf("%w: %s and %s are both field %d (%s)", ErrDupSum,
					clipQuote(prev), clipQuote(name), i+1, clipQuote(header[i]))
			}
			seen[i] = name
			slot, err := slotFor(i)
			if err != nil {
				return b, err
			}
			g.slots[slot].need |= l.need
			g.need |= l.need
			b.spec.Aggs = append(b.spec.Aggs, Agg{Func: l.fn, Col: header[i], Slot: slot})
		}
	}
	seenH := map[Holistic]bool{}
	for _, h := range q.Holistic {
		f, _ := holisticFunc(h.Func)
		i, err := resolve(h.Col, header)
		if err != nil {
			return b, err
		}
		key := Holistic{h.Func, header[i], h.P}
		if seenH[key] {
			return b, fmt.Errorf("%w: %s is asked for twice", ErrDupSum, clipQuote(key.label(header[i])))
		}
		seenH[key] = true
		slot, err := slotFor(i)
		if err != nil {
			return b, err
		}
		if sl := g.slots[slot]; f.numbers && (sl.kind == KindText || sl.kind == KindDate) {
			return b, fmt.Errorf("%s is %s (%s): %w (--types '%s=number' reads it as numbers)", clipQuote(header[i]), articled(sl.kind), sl.why, errSumKind, header[i])
		}
		g.slots[slot].need |= f.need
		g.need |= f.need
		b.spec.Aggs = append(b.spec.Aggs, Agg{Func: h.Func, Col: header[i], Slot: slot, P: h.P})
	}
	if q.Select != nil {
		if g.sel, b.spec.RowSort, err = bindSelect(q, header, hk, sep, use); err != nil {
			return b, err
		}
		b.spec.Select = g.sel.names
	}
	for _, sl := range g.slots {
		if sl.need&NeedSum != 0 && (sl.kind == KindText || sl.kind == KindDate) {
			return b, fmt.Errorf("%s is %s (%s): %w", clipQuote(header[at[sl.fi]]), articled(sl.kind), sl.why, errSumKind)
		}
	}
	// The distinct columns, ascending; each role's index moves to its
	// column's place in that list.
	g.cols = slices.Clone(at)
	slices.Sort(g.cols)
	g.cols = slices.Compact(g.cols)
	if len(g.cols) > MaxFields {
		return b, fmt.Errorf("a query can read at most %d distinct columns, this one reads %d", MaxFields, len(g.cols))
	}
	place := func(role int) int {
		i, _ := slices.BinarySearch(g.cols, at[role])
		return i
	}
	for i := range g.conds {
		g.conds[i].fi = place(g.conds[i].fi)
	}
	for i := range g.any {
		g.any[i].fi = place(g.any[i].fi)
	}
	for i := range g.keys {
		g.keys[i] = place(g.keys[i])
	}
	for i := range g.slots {
		g.slots[i].fi = place(g.slots[i].fi)
	}
	if g.sel != nil {
		for i := range g.sel.fi {
			g.sel.fi[i] = place(g.sel.fi[i])
		}
	}
	for _, c := range g.cols {
		g.names = append(g.names, header[c])
	}
	g.split, _ = slices.BinarySearch(g.cols, len(header)/2)
	g.lead, g.pre = -1, -1
	if len(g.conds) > 0 {
		if c := g.conds[0]; c.leadOK(sep) {
			g.lead = c.field
		} else if c.preOK(sep) {
			g.pre = c.field
		}
	}
	if !slices.ContainsFunc(g.keyKinds, func(c ColumnKind) bool { return c.Kind == KindNumber || c.Kind == KindDate }) {
		g.keyKinds = nil
	}
	g.hot = hotGroups(g, len(header), sep)
	b.gen = g
	b.spec.Limit = q.Limit
	for _, sk := range q.Sort {
		if q.Select != nil {
			break // (the rows' order: RowSort)
		}
		col, err := b.spec.sortColumn(sk.Col)
		if err != nil {
			return b, err
		}
		b.spec.Sort = append(b.spec.Sort, sortBy{col, sk.Desc})
	}
	return b, nil
}

// sortColumn finds the output column a sort key names: a group-by column,
// "count", or an aggregate's label (a sum also as "sum(COL)"), matched
// exactly, then loosely (see looseName).
func (s *Spec) sortColumn(name string) (int, error) {
	type label struct {
		name string
		col  int
	}
	var labels []label
	for i, n := range s.By {
		labels = append(labels, label{n, -1 - i})
	}
	labels = append(labels, label{"count", 0})
	for i, a := range s.Aggs {
		labels = append(labels, label{a.Label(), 1 + i})
		if a.Func == "sum" {
			labels = append(labels, label{"sum(" + a.Col + ")", 1 + i})
		}
	}
	for _, match := range []func(string) bool{
		func(l string) bool { return l == name },
		func(l string) bool { return looseName(l) == looseName(name) },
	} {
		for _, l := range labels {
			if match(l.name) {
				return l.col, nil
			}
		}
	}
	var names []string
	for _, l := range labels {
		names = append(names, l.name)
	}
	return 0, fmt.Errorf("%w: cannot sort by %s (the output has %s)", ErrColumn, clipQuote(name), quoteList(names))
}

// rowScratch holds a row's fields for the general path. The caller keeps
// one for a whole scan: zeroing it for every row cost a tenth of a
// group-by's time.
type rowScratch struct {
	fields  [MaxFields][]byte
	offs    [MaxFields]int
	scale   [MaxSums]uint8  // groupsHot's: each value's scale, as last seen
	recs    [hotRecs]hotRec // groupsHot's: the rows hotWalk hands over
	cbuf    [cbufLen][3]int // lanesHot's: compress mode's buffer (hotWalk's cbuf)
	foreign [hotRecs]bool   // groupsHot's: for a key split, the rows whose key is another part's
	// groupsHot's: the two-column keys of the rows it is handed, valid
	// until its next batch. Here, not a local of groupsHot, which Go
	// zeroed for every 4 KiB window (docs/experiments.md, 2026-12-03).
	kbs [hotRecs][keyBuf]byte
	// quotedBatch's copy of a batch's rows (64 bytes over for
	// dequoteAVX512's whole-block stores) and the Table over it, made at
	// the first batch (a Table over an array here would make the whole
	// scratch escape)
	qbuf *[winBytes + 64]byte
	view *Table
	// scanPart's marks, here so that a batch's scan does not zero 2 KiB
	// (a batch's scan shares them: its caller classifies again after it)
	mk marks
	// span is the bytes this ScanPart was asked to scan: how big a key
	// table a new Groups starts with (see firstKeyBits).
	span int
	// qlead: bulk is walking a window of quoted rows in place by the
	// binding's qhp (see quotedLeadOK): a row hotWalk hands back goes to
	// qline (or the full parser), never to a quote-free path.
	qlead bool
}

// lineGen is line for the general binding: data[p:e] is a quote-free line
// (e its '\n' or the end of data); mk, if not nil, holds the marks of the
// window at wb that covers it.
func (t *Table) lineGen(p, e int, r *Result, mk *marks, wb int, sc *rowScratch) error {
	g := t.b.gen
	line := stripCR(t.data[p:e])
	if len(line) == 0 {
		return nil // a blank line is not a row
	}
	r.Rows++
	fields, offs := &sc.fields, &sc.offs
	n := len(g.cols)
	found, have := n, g.ncols
	switch {
	case mk != nil && countBits(&mk.cm, p-wb, p-wb+len(line)) == g.ncols-1:
		// The header's field count: the front columns by the comma bitmap
		// forward, the back ones from the row's end.
		h := g.split
		pickFront(line, &mk.cm, p-wb, g.cols[:h], fields[:h], offs[:h])
		if h < n {
			pickBack(line, &mk.cm, p-wb, g.ncols, g.cols[h:], fields[h:n], offs[h:n])
		}
	case n > 0:
		found, have = pick(line, g.cols, fields[:n], offs[:n], t.b.sep)
	}
	for k := range found {
		offs[k] += p
	}
	return t.rowGen(r, fields, offs, found, func(k int) error {
		return t.shortRow(p+len(line), g.names[k], g.cols[k], have)
	}, p, line)
}

// slowGen is slowRow for the general binding: the record at p, parsed by
// the full parser. Quoted fields are unquoted into a buffer of this call's
// own (so a scan allocates only for a long quoted field).
func (t *Table) slowGen(p int, r *Result) (int, error) {
	g := t.b.gen
	var spans [MaxFields]span
	got, fi, i, end, _, err := t.record(p, g.cols, spans[:], -1)
	if err != nil {
		return 0, err
	}
	r.Rows++
	t.countQuoted(r, p, i, end)
	var fields [MaxFields][]byte
	var offs [MaxFields]int
	var buf [512]byte
	scratch := buf[:0]
	for k := range got {
		sp := spans[k]
		c := t.data[sp.s:sp.e]
		if sp.quoted {
			from := len(scratch)
			scratch = appendUnquoted(scratch, c)
			c = scratch[from:len(scratch):len(scratch)]
		}
		fields[k], offs[k] = c, sp.s
	}
	return i, t.rowGen(r, &fields, &offs, got, func(k int) error {
		return t.shortRow(end, g.names[k], g.cols[k], fi)
	}, p, stripCR(t.data[p:end]))
}

// rowGen tests a row's fields (fields[k] is column g.cols[k], at offset
// offs[k] in the data) against the filters and, if it passes, adds it to its
// group. A value that does not parse is an error before anything is added.
//
// Only the first found fields exist (the row is short if found <
// len(g.cols)); short(k) is the error for a missing field k. A filter's
// field that is missing or cannot be compared is an error only if the row
// passes every other filter (the first such in query order), so that the
// answer, or the error, never depends on the order of the filters; a
// missing group-by or aggregated field is one only in a row that passes
// every filter. A query that selects rows writes a passing row (emit):
// row is its bytes without the line end, at offset at.
func (t *Table) rowGen(r *Result, fields *[MaxFields][]byte, offs *[MaxFields]int, found int, short func(k int) error, at int, row []byte) error {
	g := t.b.gen
	var pending error
	for i := range g.conds {
		c := &g.conds[i]
		if c.fi >= found {
			if pending == nil {
				pending = short(c.fi)
			}
			continue
		}
		ok, err := c.test(fields[c.fi])
		if err != nil {
			if pending == nil {
				pending = t.errAt(offs[c.fi], c.name, fields[c.fi], err)
			}
			continue
		}
		if !ok {
			return nil
		}
	}
	if g.any != nil { // the OR group: one that holds passes it; none, and one's error is pending
		var anyErr error
		hold := false
		for i := range g.any {
			c := &g.any[i]
			if c.fi >= found {
				anyErr = cmp.Or(anyErr, short(c.fi))
				continue
			}
			ok, err := c.test(fields[c.fi])
			if err != nil {
				anyErr = cmp.Or[error](anyErr, t.errAt(offs[c.fi], c.name, fields[c.fi], err))
				continue
			}
			if ok {
				hold = true
				break
			}
		}
		if !hold && anyErr == nil {
			return nil
		}
		if !hold {
			pending = cmp.Or(pending, anyErr)
		}
	}
	if pending != nil {
		return pending
	}
	if found < len(g.cols) { // a short row that passed: an error if it lacks a column read past the filters
		if k := g.firstNeeded(found); k >= 0 {
			return short(k)
		}
	}
	if g.sel != nil {
		if g.sel.limit == 0 || r.Matched < g.sel.limit {
			if err := t.emit(r, fields, at, row); err != nil {
				return err
			}
		}
		r.Matched++
		return nil
	}
	var ms [MaxSums]int64
	var dks [MaxSums]string // a distinct value's key, but in a text column (see distinctKey)
	var ss [MaxSums]int
	missing := 0 // a bit a slot whose value is missing (an empty field)
	words := 0   // a bit a slot whose value is a date or text (see Word)
	var days [MaxSums]int64
	dates := 0 // of words, the dates
	wides := 0 // a bit a slot whose value is a number of more than 18 digits
	for k, s := range g.slots {
		if len(fields[s.fi]) == 0 {
			missing |= 1 << k
			continue
		}
		if s.need&NeedDistinct != 0 && s.kind != KindText {
			key, err := distinctKey(fields[s.fi], s.kind, g.dates)
			if err != nil {
				return t.errAt(offs[s.fi], g.names[s.fi], fields[s.fi], kindError(g.names[s.fi], s.kind, s.why))
			}
			dks[k] = key
		}
		if s.need == NeedDistinct {
			continue // (its value's key is all it needs)
		}
		switch s.kind {
		case KindText:
			words |= 1 << k
			continue
		case KindDate:
			d, ok := g.dates.parse(fields[s.fi])
			if !ok {
				return t.errAt(offs[s.fi], g.names[s.fi], fields[s.fi], kindError(g.names[s.fi], s.kind, s.why))
			}
			days[k], words, dates = d, words|1<<k, dates|1<<k
			continue
		}
		m, sc, err := ParseFixed(fields[s.fi])
		if (errors.Is(err, ErrOverflow) || err == nil && sc > 18) && s.need&NeedValues != 0 {
			// (1e-20 parses, to m = 1 at scale 20: its digits are 20)
			err = fmt.Errorf("%w: a median or quantile reads numbers of at most 18 digits", ErrOverflow)
		} else if errors.Is(err, ErrOverflow) {
			if _, _, err = parseWide(fields[s.fi]); err == nil {
				wides |= 1 << k // read again below: rare
				continue
			}
		}
		if err != nil && s.need&(NeedSum|NeedValues) == 0 && s.kind == KindAuto {
			var isDate bool
			if days[k], isDate, err = wordValue(fields[s.fi], err); err == nil {
				words |= 1 << k
				if isDate {
					dates |= 1 << k
				}
				continue
			}
		}
		if err != nil {
			if s.kind == KindNumber && s.need&NeedSum == 0 && !errors.Is(err, ErrOverflow) {
				err = kindError(g.names[s.fi], s.kind, s.why) // (a summed value's error is ErrSyntax, as in the simple shape's)
			}
			return t.errAt(offs[s.fi], g.names[s.fi], fields[s.fi], err)
		}
		ms[k], ss[k] = m, sc
	}
	n := len(g.slots)
	sums, mins, maxs := r.Sums[:n], r.Mins[:n], r.Maxs[:n]
	group := -1
	if g.keys != nil {
		var i int
		var ours bool
		var key []byte
		var kb [256]byte
		if len(g.keys) == 1 {
			key = fields[g.keys[0]]
		} else {
			var kf [MaxFields][]byte
			for j, fi := range g.keys {
				kf[j] = fields[fi]
			}
			key = groupKey(kb[:0], kf[:len(g.keys)])
		}
		if g.keyKinds != nil && !r.Groups.counted(key) {
			for j, fi := range g.keys { // a new group: its key must be its columns' kinds
				if _, err := canonField(fields[fi], g.keyKinds[j].Kind, g.dates); err != nil {
					return t.errAt(offs[fi], g.names[fi], fields[fi], kindError(g.names[fi], g.keyKinds[j].Kind, g.keyKinds[j].Why))
				}
			}
		}
		i, ours = t.groupOf(r, key)
		if !ours {
			return nil // another part's key: a row, not a match, here
		}
		gr := r.Groups
		gr.Count[i]++
		group = i
		sums, mins, maxs = nil, nil, nil
		if gr.Sums != nil {
			sums = gr.Sums[i*n : (i+1)*n]
		}
		if gr.Mins != nil {
			mins = gr.Mins[i*n : (i+1)*n]
		}
		if gr.Maxs != nil {
			maxs = gr.Maxs[i*n : (i+1)*n]
		}
	}
	r.Matched++
	for k, s := range g.slots {
		if missing&(1<<k) != 0 {
			if group >= 0 {
				r.Groups.skip(group, k, 1)
			} else {
				r.Skipped[k]++
			}
			continue
		}
		if s.need&(NeedDistinct|NeedValues) != 0 {
			var w *Words
			if group >= 0 {
				w = r.Groups.holWords(group*n + k)
			} else {
				w = r.holWords(k)
			}
			if s.need&NeedDistinct != 0 {
				v := fields[s.fi]
				if s.kind != KindText {
					v = []byte(dks[k])
				}
				if w.addDistinct(v) {
					r.Held += int64(len(v)) + distinctCost
				}
			}
			if s.need&NeedValues != 0 {
				r.holdNum(w, ms[k], ss[k])
			}
			if s.need&(NeedSum|NeedMin|NeedMax) == 0 {
				continue
			}
		}
		if (words|wides)&(1<<k) != 0 {
			w := &r.Words
			at := k
			if group >= 0 {
				w, at = &r.Groups.Words, group*n+k
			}
			if words&(1<<k) != 0 {
				slotWords(w, at).take(fields[s.fi], days[k], dates&(1<<k) != 0)
				continue
			}
			m, sc, _ := parseWide(fields[s.fi])
			if s.need&NeedSum != 0 {
				sums[k].AddWide(m, sc)
			}
			if s.need&(NeedMin|NeedMax) != 0 {
				slotWords(w, at).takeNum(m, sc)
			}
			continue
		}
		if s.need&NeedSum != 0 {
			sums[k].Add(ms[k], ss[k])
		}
		if s.need&NeedMin != 0 {
			mins[k].takeMin(ms[k], ss[k])
		}
		if s.need&NeedMax != 0 {
			maxs[k].takeMax(ms[k], ss[k])
		}
	}
	return nil
}

// firstNeeded is the first of g.cols at or past found that a passing row
// must have (a group-by, aggregated or selected column; a filter's,
// an OR group's alternative not tested, need not be there), or -1.
func (g *general) firstNeeded(found int) int {
	k := -1
	take := func(fi int) {
		if fi >= found && (k < 0 || fi < k) {
			k = fi
		}
	}
	for _, fi := range g.keys {
		take(fi)
	}
	for _, s := range g.slots {
		take(s.fi)
	}
	if g.sel != nil {
		for _, fi := range g.sel.fi {
			take(fi)
		}
	}
	return k
}

// groupOf returns the index of key's group in r's groups, made if new (and
// r's groups too), and true; or false if key is another part's (see
// KeyPart).
func (t *Table) groupOf(r *Result, key []byte) (int, bool) {
	if !r.Part.has(key) {
		return 0, false
	}
	if r.Groups == nil {
		g := t.b.gen
		r.makeGroups(len(g.slots), g.need)
	}
	return r.Groups.at(key), true
}

// Spec returns what the table's query answers, with the header's names.
func (t *Table) Spec() Spec { return t.b.spec }

// groupHot is the fast path of the common queries beyond the simple shape:
// at most two group-by columns (two with at most one later filter: the
// second column takes the span hotWalk would find for a second later
// filter), aggregates each in the last maxNeed fields,
// and no filter, or a first one that ScanPart (or hotWalk) tests itself
// (general.lead) and any after it (rest), which restPass tests on the
// fields the comma bitmap finds. tp lists the aggregated columns, each
// with its slot; sumOnly is tp restricted to the slots that need a sum
// (for addVals).
type groupHot struct {
	key     int    // the group-by column, -1 for none
	key2    int    // the second group-by column, -1 for none (see keyOf)
	rest    []cond // the filters after the first (see restPass)
	tp      tailPlan
	need    [MaxSums]Need // per entry of tp.byCol
	sumOnly tailPlan
	sums    bool // every slot is a sum alone: tp is sumOnly
	// all: hotWalk may take every row (see groupsHot), with the plan hp
	// (the values tp names, the first filter if any)
	all bool
	hp  hotPlan
	// firsts, if not 0, is the classifier's v0 (firstBytes) for a first
	// filter that is an in list on the first column which hotWalk tests:
	// a row whose first byte is none of its values' cannot pass, so only
	// the others are walked, as a first = filter's candidates are
	firsts int
	// tested: the filters of rest that hotWalk tests (hotPlan.testOn): a
	// row it hands over has passed them
	tested int
	// lanes: no group-by, sums alone and every filter one hotWalk tests:
	// it adds the rows to r's sums itself, as for the simple query
	// (lanesHot)
	lanes bool
	// slot: hotWalk's slot mode (see groupsHot): a group-by whose every
	// later filter is one hotWalk tests
	slot bool
	// dslot: the slot of a date column's minimum or maximum (-1: none),
	// column dcol, not one of tp's: hotWalk reads it on span dspan (eqop
	// 4: see dateOfKey), and addAccs takes it from its field's bytes
	dslot, dcol, dspan int
	// dk: the column of a count distinct (slot dkSlot, not one of tp's;
	// -1: none), in slot mode only: the key table's key is the group-by
	// key and this column's field, joined as a two-column key is
	// (twoKey, on span 2), and each entry's rows are one group's with
	// one value of it. lineGen takes the row that teaches the table a
	// key, which puts the value in its group's distinct set; the entry's
	// later rows only count (a missing value is never learnt: its rows
	// are lineGen's, which counts them as skipped). So a row whose pair is
	// known never leaves hotWalk.
	dk, dkSlot int
}

func hotGroups(g *general, ncols int, sep byte) *groupHot {
	rest := g.conds // with no lead, every filter is a later one
	if g.lead >= 0 {
		rest = g.conds[1:]
	}
	if len(g.keys) > 2 || (len(g.keys) == 2 && len(rest) > 1) || len(g.slots) == 0 || g.sel != nil || g.any != nil {
		return nil
	}
	// A count distinct of one column, by one column, with at most one
	// later filter (span 2 is free), each of its slots hot: see dk.
	dk, dkSlot := -1, -1
	if g.need&NeedDistinct != 0 {
		for k, s := range g.slots {
			if s.need&NeedDistinct != 0 {
				if dkSlot >= 0 || s.need != NeedDistinct {
					return nil
				}
				dk, dkSlot = g.cols[s.fi], k
			}
		}
		if len(g.keys) != 1 || len(rest) > 1 || g.need&NeedValues != 0 {
			return nil
		}
	}
	// hotWalk reads numbers, and the dates of one slot's minimum or
	// maximum on a span (see dateOfKey) if one is free: rest's are 1 and 2,
	// key2's 2
	dslot, dspan := -1, 0
	for k, s := range g.slots {
		switch {
		case k == dkSlot:
		case s.kind == KindDate && dslot < 0 && g.dates == nil && s.need&^(NeedMin|NeedMax) == 0 && len(rest) <= 1 && (len(rest) == 0 || len(g.keys) < 2 && dk < 0):
			dslot, dspan = k, 1+len(rest)
		case s.kind == KindText || s.kind == KindDate:
			return nil
		}
	}
	h := &groupHot{key: -1, key2: -1, tp: tailPlan{ncols: ncols}, dslot: dslot, dspan: dspan, dk: dk, dkSlot: dkSlot}
	for k, s := range g.slots {
		if k != dslot && k != dkSlot {
			h.tp.byCol[h.tp.nsum] = struct{ col, slot int }{g.cols[s.fi], k}
			h.tp.nsum++
		}
	}
	if dslot >= 0 {
		h.dcol = g.cols[g.slots[dslot].fi]
	}
	if len(g.keys) >= 1 {
		h.key = g.cols[g.keys[0]]
	}
	if len(g.keys) == 2 {
		h.key2 = g.cols[g.keys[1]]
	}
	if len(rest) > 0 {
		h.rest = rest
	}
	slices.SortFunc(h.tp.byCol[:h.tp.nsum], func(a, b struct{ col, slot int }) int { return a.col - b.col })
	if h.tp.nsum > 0 {
		h.tp.need = ncols - h.tp.byCol[0].col
		if h.tp.byCol[0].col == 0 || h.tp.need > maxNeed {
			return nil
		}
	}
	h.hp, h.all = newHotPlan(&h.tp), true
	if h.key >= 0 {
		h.hp.spanOn(0, h.key, ncols)
		h.all = h.hp.span[0] >= 0 // a key hotWalk cannot find
	}
	for i := range min(len(h.rest), 2) {
		h.hp.spanOn(1+i, h.rest[i].field, ncols)
	}
	if k2 := max(h.key2, h.dk); k2 >= 0 { // (at most one later filter: span 2 is free)
		h.hp.spanOn(2, k2, ncols)
		h.hp.key2 = int(sep) // (the key's joiner: see twoKey)
		h.all = h.all && h.hp.span[2] >= 0
	}
	if dslot >= 0 {
		h.hp.spanOn(dspan, h.dcol, ncols)
		h.all = h.all && h.hp.span[dspan] >= 0
		h.hp.eqop[dspan], h.hp.dv = 4, 1 // (see dateOfKey)
	}
	// With no first = filter to lead, a first later filter that compares
	// a date may lead (dateLead), with the next if it is the range's other
	// end, or one that is a contains or starts with (textLead): their
	// spans are freed.
	if g.lead < 0 && h.all && len(h.rest) > 0 {
		var d *cond
		if len(h.rest) > 1 {
			d = &h.rest[1]
		}
		if ok, both := h.hp.dateLead(&h.rest[0], d); ok {
			h.tested, h.hp.span[1] = 1, -1
			if both {
				h.tested, h.hp.span[2] = 2, -1
			}
			h.hp.spansSet()
		} else if h.hp.textLead(&h.rest[0]) { // (or a contains, or starts with)
			h.tested, h.hp.span[1] = 1, -1
			h.hp.spansSet()
		}
	}
	// hotWalk tests the later filters it can, in order up to the first it
	// cannot: = and != of bytes, in lists of them, contains and starts
	// with, and a date's comparisons (a date it cannot read goes back: no
	// error either) on their spans before it parses a value,
	// then the comparisons with numbers on the values it parses. = and !=
	// cannot fail with an error, so the order of those two stages is the
	// query's as far as the answer and its errors go; but a filter after an
	// order comparison (<, <=, >, >=: its field may not be a number) waits
	// for it, as does anything after a filter hotWalk cannot test.
	for ordered := false; h.tested < len(h.rest); h.tested++ {
		c := &h.rest[h.tested]
		if !ordered && h.tested < 2 && (h.hp.testOn(1+h.tested, c) || h.hp.dateOn(1+h.tested, c) || h.hp.inOn(1+h.tested, c, sep) || h.hp.textOn(1+h.tested, c)) {
			continue
		}
		if !h.hp.numOn(c, ncols) {
			break
		}
		ordered = ordered || (c.op != OpEq && c.op != OpNe)
	}
	if g.lead >= 0 && h.all {
		h.all = h.hp.filterOn(g.lead, g.conds[0].val, sep)
	}
	if g.lead < 0 && h.all && h.tested > 0 && h.rest[0].op == OpIn && h.rest[0].field == 0 && h.hp.eqop[1] == 5 {
		var bs []byte
		for _, v := range h.rest[0].list {
			if len(v.val) == 0 || v.val[0] == '\r' || v.val[0] == '\n' {
				bs = nil
				break
			}
			if !slices.Contains(bs, v.val[0]) {
				bs = append(bs, v.val[0])
			}
		}
		if len(bs) > 0 && len(bs) <= 4 {
			h.firsts = firstBytes(bs)
		}
	}
	h.sumOnly, h.sums = tailPlan{ncols: ncols}, g.need == NeedSum
	h.slot = h.all && h.key >= 0 && h.tested == len(h.rest) && g.need&NeedValues == 0 // (slot mode keeps running figures, not every value)
	h.lanes = h.all && h.key < 0 && h.sums && h.tested == len(h.rest)
	if dk >= 0 && !h.slot {
		return nil // (every row would go to lineGen, after hotWalk)
	}
	for k := range h.tp.nsum {
		h.need[k] = g.slots[h.tp.byCol[k].slot].need
		if h.need[k]&NeedSum != 0 {
			h.sumOnly.byCol[h.sumOnly.nsum] = h.tp.byCol[k]
			h.sumOnly.nsum++
		}
	}
	return h
}

// groupHit takes a quote-free row data[p:e] (e > p, data[p] not '\r')
// inside the window at wb whose marks are mk, that passes the first
// filter, for the fast path (groupHot): its key field by the comma bitmap,
// its values from the row's end by tailValues, the other filters
// (restPass), its group by the key, and the values into the group's sums
// (addVals), minimums and maximums. It reports false, having added nothing
// (it may have made the row's group, empty), for anything tailValues,
// restPass or addVals declines; lineGen then takes the row.
func (t *Table) groupHit(p, e int, r *Result, mk *marks, wb int) bool {
	if t.b.gen.hot.dk >= 0 {
		return false // (a distinct value: lineGen)
	}
	s, end, s2, end2 := t.keySpans(p, e, mk, wb)
	if s < 0 {
		return false
	}
	var vals [MaxSums]int64
	var scales [MaxSums]int
	if !tailValues(t.data, p, e, mk, wb, &t.b.gen.hot.tp, &vals, &scales) {
		return false
	}
	if pass, ok := t.restPass(p, e, mk, wb, nil); !ok {
		return false
	} else if !pass {
		r.Rows++
		return true
	}
	var dv []byte
	if h := t.b.gen.hot; h.dslot >= 0 {
		ds, de := t.fieldSpan(p, e, mk, wb, h.dcol)
		if ds < 0 {
			return false
		}
		// read here, before groupAdd leaves another key part's row (as
		// tailValues read the values): every part sees a bad date
		dv = t.data[ds:de]
		if _, ok := parseDate(dv); !ok {
			return false
		}
	}
	var kb [keyBuf]byte
	return t.groupAdd(t.keyOf(kb[:0], s, end, s2, end2), r, &vals, &scales, dv)
}

// keyBuf is the room for a two-column key that keyOf builds without
// allocating (a longer one allocates).
const keyBuf = 64

// keyOf is the fast group-by's key of a row whose key field is
// data[s:end] and, with a second group-by column, whose second one is
// data[s2:end2]: the field itself, or the two made one key as groupKey
// makes it, appended to buf. It stays valid while data and buf do.
func (t *Table) keyOf(buf []byte, s, end, s2, end2 int) []byte {
	if t.b.gen.hot.key2 < 0 {
		return t.data[s:end]
	}
	a, b := t.data[s:end], t.data[s2:end2]
	if n := 2 + len(a) + len(b); len(a) < 0x80 && len(b) < 0x80 && n <= cap(buf) {
		// groupKey's bytes, each length one uvarint byte, without its loop
		buf = buf[:n]
		buf[0] = byte(len(a))
		copy(buf[1:], a)
		buf[1+len(a)] = byte(len(b))
		copy(buf[2+len(a):], b)
		return buf
	}
	return groupKey(buf, [][]byte{a, b})
}

// keySpans returns where the fast group-by's key field starts and ends in
// the quote-free row data[p:e] (see groupKey) and, with a second group-by
// column or a distinct one (groupHot.dk), where its field does (else 0,
// 0): keyOf's and learnKey's arguments. s = -1 for a row too short to
// have either.
func (t *Table) keySpans(p, e int, mk *marks, wb int) (s, end, s2, end2 int) {
	if s, end = t.groupKey(p, e, mk, wb); s < 0 {
		return -1, 0, 0, 0
	}
	if k2 := max(t.b.gen.hot.key2, t.b.gen.hot.dk); k2 >= 0 {
		if s2, end2 = t.fieldSpan(p, e, mk, wb, k2); s2 < 0 {
			return -1, 0, 0, 0
		}
	}
	return s, end, s2, end2
}

// groupKey returns where the fast group-by's key field starts and ends in
// the quote-free row data[p:e] inside the window at wb whose marks are mk,
// found by the comma bitmap; s = -1 for a row too short to have it.
func (t *Table) groupKey(p, e int, mk *marks, wb int) (s, end int) {
	if t.b.gen.hot.key < 0 {
		return 0, 0 // no group-by: no key
	}
	return t.fieldSpan(p, e, mk, wb, t.b.gen.hot.key)
}

// fieldSpan returns where field k starts and ends in the quote-free row
// data[p:e] inside the window at wb whose marks are mk, found by the comma
// bitmap (a last field without its '\r'); s = -1 for a row too short to
// have it.
func (t *Table) fieldSpan(p, e int, mk *marks, wb int, k int) (s, end int) {
	s = p
	if k > 0 {
		if s = fieldStart(mk, wb, p, e, k); s < 0 {
			return -1, 0
		}
	}
	end = e
	if c := nextBit(&mk.cm, s-wb, (e-wb+63)/64); c >= 0 && wb+c < e {
		end = wb + c
	} else if end > s && t.data[end-1] == '\r' {
		end--
	}
	return s, end
}

// groupAdd is the end of groupHit, for a row whose key is key (see keyOf)
// and whose values (in groupHot.tp's order) are vals, at scales, and
// whose date slot's field is dv (see addAccs): the values into the key's
// group. It reports false, having added nothing (it may have made the
// group, empty), if addAccs does. A key of another part
// (see KeyPart) makes the row a row, not a match, here.
func (t *Table) groupAdd(key []byte, r *Result, vals *[MaxSums]int64, scales *[MaxSums]int, dv []byte) bool {
	if t.b.gen.hot.key >= 0 && !r.Part.has(key) {
		r.Rows++
		return true
	}
	return t.groupAddOwn(key, r, vals, scales, dv)
}

// groupAddOwn is groupAdd for a row whose key is known to be r's part's.
func (t *Table) groupAddOwn(key []byte, r *Result, vals *[MaxSums]int64, scales *[MaxSums]int, dv []byte) bool {
	g := t.b.gen
	h := g.hot
	if h.dk >= 0 {
		return false // (a distinct value: lineGen)
	}
	n := len(g.slots)
	if h.key < 0 {
		return t.addAccs(r, r.Sums[:], r.Mins[:], r.Maxs[:], 0, nil, vals, scales, dv)
	}
	if r.Groups == nil {
		r.makeGroups(n, g.need)
	}
	gr := r.Groups
	n0 := gr.Len()
	i := gr.at(key)
	if i == n0 && g.keyKinds != nil && !g.keyFits(key) {
		return false // (lineGen reports it, with its place)
	}
	if i == n0 && gr.Sums != nil {
		// A new group: its sums take the row's scales, as Fixed.Add gives
		// an empty sum its first value's, so that addVals takes the row
		// (else every new key's row went back to lineGen).
		for k := range h.tp.nsum {
			if h.need[k]&NeedSum != 0 {
				gr.Sums[i*n+h.tp.byCol[k].slot].Scale = int64(scales[k])
			}
		}
	}
	if h.sums { // the commonest: sums alone
		if !addVals(gr.Sums[i*n:(i+1)*n], &h.tp, vals, scales) {
			return false
		}
		gr.Count[i]++
		r.Rows++
		r.Matched++
		return true
	}
	return t.addAccs(r, gr.Sums, gr.Mins, gr.Maxs, i*n, &gr.Count[i], vals, scales, dv)
}

// addAccs is the end of groupAdd: the row's values into the accumulators
// of its group, which start at base in sums, mins and maxs (sums nil when
// no slot needs one), and the date slot's field dv (groupHot.dslot; a row
// whose dv is not a date, or missing, is declined: lineGen reports or
// skips it), then the counts (count is the group's, nil for no group-by).
func (t *Table) addAccs(r *Result, sums []Fixed, mins, maxs []Extreme, base int, count *int64, vals *[MaxSums]int64, scales *[MaxSums]int, dv []byte) bool {
	h := t.b.gen.hot
	var day int64
	if h.dslot >= 0 { // the date slot's value, dv: one parseDate reads, else lineGen takes the row
		var ok bool
		if day, ok = parseDate(dv); !ok {
			return false
		}
	}
	if h.sums {
		if !addVals(sums[base:], &h.tp, vals, scales) {
			return false
		}
	} else {
		if sums != nil {
			// addVals reads the values of the summed slots only, in their order
			var sv [MaxSums]int64
			var ss [MaxSums]int
			j := 0
			for k := range h.tp.nsum {
				if h.need[k]&NeedSum != 0 {
					sv[j], ss[j] = vals[k], scales[k]
					j++
				}
			}
			if !addVals(sums[base:], &h.sumOnly, &sv, &ss) {
				return false
			}
		}
		for k := range h.tp.nsum {
			slot := base + h.tp.byCol[k].slot
			if h.need[k]&NeedMin != 0 {
				mins[slot].takeMin(vals[k], scales[k])
			}
			if h.need[k]&NeedMax != 0 {
				maxs[slot].takeMax(vals[k], scales[k])
			}
			if h.need[k]&NeedValues != 0 { // a median's or quantile's value (see Holistic)
				var w *Words
				if count != nil { // (a group's: slot is i·Slots+k)
					w = r.Groups.holWords(slot)
				} else {
					w = r.holWords(slot)
				}
				r.holdNum(w, vals[k], scales[k])
			}
		}
	}
	if h.dslot >= 0 {
		w := &r.Words
		if count != nil {
			w = &r.Groups.Words
		}
		slotWords(w, base+h.dslot).take(dv, day, true)
	}
	if count != nil {
		*count++
	}
	r.Rows++
	r.Matched++
	return true
}

// restPass tests the filters after the first (groupHot.rest) on the
// quote-free row data[p:e] inside the window at wb whose marks are mk, in
// the query's order, each on its field: the span hotWalk found (spans, if
// not nil, and the plan has one), else the one the comma bitmap finds.
// With spans, the row is one hotWalk handed over: the filters it tested
// (groupHot.tested) are not tested again. ok is false for a row the
// general code must take (a field missing, a value a filter cannot
// compare: lineGen reports it); else pass says whether every filter holds.
func (t *Table) restPass(p, e int, mk *marks, wb int, spans *[3][2]int) (pass, ok bool) {
	h := t.b.gen.hot
	i0 := 0
	if spans != nil {
		i0 = h.tested // a row hotWalk handed over passed them
	}
	day, dayOf := int64(0), -1 // a date column's day, read once for all its filters (a range: two)
	for i := i0; i < len(h.rest); i++ {
		c := &h.rest[i]
		var s, end int
		if spans != nil && i < 2 && h.hp.span[1+i] >= 0 {
			s, end = wb+spans[1+i][0], wb+spans[1+i][1]
		} else if s, end = t.fieldSpan(p, e, mk, wb, c.field); s < 0 {
			return false, false
		}
		if c.ckind == KindDate && c.op.compares() && len(c.val) > 0 && end > s {
			if dayOf != c.field {
				d, ok := c.dates.parse(t.data[s:end])
				if !ok {
					return false, false // (lineGen reports it)
				}
				day, dayOf = d, c.field
			}
			if !c.op.holds(cmpInt(day, c.day)) {
				return false, true
			}
			continue
		}
		yes, err := c.test(t.data[s:end])
		if err != nil {
			return false, false
		}
		if !yes {
			return false, true
		}
	}
	return true, true
}

// keyFits reports whether every field of key (a group-by's, as groupKey
// makes it of several) is its column's kind (keyKinds).
func (g *general) keyFits(key []byte) bool {
	for j, ck := range g.keyKinds {
		f := key
		if len(g.keyKinds) > 1 {
			f = keyField(key, j)
		}
		if !fieldFits(f, ck.Kind, g.dates) {
			return false
		}
	}
	return true
}

// fieldFits says whether canonField reads f without an error, without
// making its string (a group-by of millions of keys checks each new one).
func fieldFits(f []byte, k Kind, dr *dateReader) bool {
	switch {
	case len(f) == 0:
		return true
	case k == KindNumber:
		if plainNumber(f) {
			return true
		}
		if _, _, err := ParseFixed(f); err == nil {
			return true
		}
		_, _, err := parseWide(f)
		return err == nil
	case k == KindDate:
		_, ok := dr.parse(f)
		return ok
	}
	return true
}
