package scan

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// hot_amd64.s reads hotState, marks and Result by fixed offsets.
func TestHotStateLayout(t *testing.T) {
	var it hotState
	var m marks
	var r Result
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"avail", unsafe.Offsetof(it.avail), 0},
		{"nz", unsafe.Offsetof(it.nz), 8},
		{"cur", unsafe.Offsetof(it.cur), 16},
		{"w", unsafe.Offsetof(it.w), 24},
		{"wz", unsafe.Offsetof(it.wz), 32},
		{"keep", unsafe.Offsetof(it.keep), 40},
		{"vword", unsafe.Offsetof(it.vword), 48},
		{"vmask", unsafe.Offsetof(it.vmask), 56},
		{"ncm", unsafe.Offsetof(it.ncm), 64},
		{"need", unsafe.Offsetof(it.need), 72},
		{"nsum", unsafe.Offsetof(it.nsum), 80},
		{"q", unsafe.Offsetof(it.q), 88},
		{"e", unsafe.Offsetof(it.e), 96},
		{"more", unsafe.Offsetof(it.more), 104},
		{"sums", unsafe.Offsetof(it.sums), 112},
		{"sums[1].slot", unsafe.Offsetof(it.sums) + unsafe.Sizeof(it.sums[0]) + unsafe.Offsetof(it.sums[0].slot), 115},
		{"leadbit", unsafe.Offsetof(it.leadbit), 128},
		{"vword2", unsafe.Offsetof(it.vword2), 136},
		{"vmask2", unsafe.Offsetof(it.vmask2), 144},
		{"scale", unsafe.Offsetof(it.scale), 152},
		{"out", unsafe.Offsetof(it.out), 160},
		{"nout", unsafe.Offsetof(it.nout), 168},
		{"ncap", unsafe.Offsetof(it.ncap), 176},
		{"vlen", unsafe.Offsetof(it.vlen), 184},
		{"span", unsafe.Offsetof(it.span), 192},
		{"ktab", unsafe.Offsetof(it.ktab), 216},
		{"kacc", unsafe.Offsetof(it.kacc), 224},
		{"nspan", unsafe.Offsetof(it.nspan), 232},
		{"eqw", unsafe.Offsetof(it.eqw), 240},
		{"eqn", unsafe.Offsetof(it.eqn), 288},
		{"eqop", unsafe.Offsetof(it.eqop), 312},
		{"numlo", unsafe.Offsetof(it.numlo), 336},
		{"numhi", unsafe.Offsetof(it.numhi), 400},
		{"nparse", unsafe.Offsetof(it.nparse), 464},
		{"nnum", unsafe.Offsetof(it.nnum), 472},
		{"ext", unsafe.Offsetof(it.ext), 480},
		{"cmode", unsafe.Offsetof(it.cmode), 488},
		{"chain", unsafe.Offsetof(it.chain), 496},
		{"skip", unsafe.Offsetof(it.skip), 504},
		{"key2", unsafe.Offsetof(it.key2), 512},
		{"kshift", unsafe.Offsetof(it.kshift), 520},
		{"kmask", unsafe.Offsetof(it.kmask), 528},
		{"st", unsafe.Offsetof(it.st), 536},
		{"dv", unsafe.Offsetof(it.dv), 544},
		{"dkey", unsafe.Offsetof(it.dkey), 552},
		{"ldate", unsafe.Offsetof(it.ldate), 560},
		{"spanTests.dlo", unsafe.Offsetof(spanTests{}.dlo), 0},
		{"spanTests.dhi", unsafe.Offsetof(spanTests{}.dhi), 24},
		{"spanTests.inw", unsafe.Offsetof(spanTests{}.inw), 48},
		{"spanTests.inn", unsafe.Offsetof(spanTests{}.inn), 112},
		{"spanTests.nin", unsafe.Offsetof(spanTests{}.nin), 144},
		{"spanTests.cfirst", unsafe.Offsetof(spanTests{}.cfirst), 152},
		{"spanTests.clast", unsafe.Offsetof(spanTests{}.clast), 200},
		{"spanTests.ldlo", unsafe.Offsetof(spanTests{}.ldlo), 248},
		{"spanTests.ldhi", unsafe.Offsetof(spanTests{}.ldhi), 256},
		{"keyAcc date max", 8 * accDate, 392},
		{"keyAcc date min", 8 * (accDate + 1), 400},
		{"keyAcc low counts", 8 * accLow, 408},
		{"cbufLen", cbufLen, 64},
		{"spanBack", spanBack, 100},
		{"keySlot", unsafe.Sizeof(keySlot{}), 80},
		{"keySlot.n", unsafe.Offsetof(keySlot{}.n), 64},
		{"keySlot.j", unsafe.Offsetof(keySlot{}.j), 72},
		{"keyAcc", unsafe.Sizeof(keyAcc{}), 448},
		{"keyAcc even", 8 * accLane, 8},
		{"keyAcc odd", 8 * (accLane + 1), 16},
		{"keyAcc cents", 8 * (accLane + 2), 24},
		{"keyAcc sum", 8 * accExt, 200},
		{"keyAcc max", 8 * (accExt + 1), 208},
		{"keyAcc min", 8 * (accExt + 2), 216},
		{"laneRows", laneRows, 4096},
		{"hotRec", unsafe.Sizeof(hotRec{}), 128},
		{"hotRec.span", unsafe.Offsetof(hotRec{}.span), 16},
		{"hotRec.v", unsafe.Offsetof(hotRec{}.v), 64},
		{"marks.nl", unsafe.Offsetof(m.nl), 0},
		{"marks.cm", unsafe.Offsetof(m.cm), 512},
		{"marks.sp", unsafe.Offsetof(m.sp), 1536},
		{"Result.Rows", unsafe.Offsetof(r.Rows), 0},
		{"Result.Matched", unsafe.Offsetof(r.Matched), 8},
		{"Result.Sums", unsafe.Offsetof(r.Sums), 24},
		{"Fixed", unsafe.Sizeof(r.Sums[0]), 56},
	} {
		if c.got != c.want {
			t.Errorf("%s at %d, hot_amd64.s has %d", c.name, c.got, c.want)
		}
	}
}

// hotWalk takes the rows of clean generated data itself, handing none back
// to line (which would give the same answer, slower), and adds what the
// reference finds in them: for a first-column filter's candidates, and
// (hotAll) for every row with no filter or a filter on a later column,
// its value shorter and longer than a word; and the same rows widened, so
// that their '\n' lies anywhere from 1 to 7 words past their start's, and
// ended by CR LF.
func TestHotWalkTakesCleanRows(t *testing.T) {
	oneGoroutine(t)
	if !hotAsm {
		t.Skip("no BMI1, BMI2 or POPCNT: no hotWalk")
	}
	gen := generated(t, 1000, 1)[0].data
	crlf := reencode(t, gen, false, true, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13})
	for _, in := range [][]byte{gen, widened(gen), crlf, farFirst(t)} {
		takesCleanRows(t, in)
	}
}

// farFirst is generated data with every other row at first one whose
// Region and Country take 60 bytes or more, so that its third comma, or
// its second, or both, lie past its first 64 bytes.
func farFirst(t *testing.T) []byte {
	lines := bytes.SplitAfter(generated(t, 20000, 1)[0].data, []byte("\n"))
	var far, near [][]byte
	for _, row := range lines[1:] {
		if f := bytes.SplitN(row, []byte(","), 3); len(f) == 3 && len(f[0])+len(f[1]) >= 60 {
			far = append(far, row)
		} else {
			near = append(near, row)
		}
	}
	out := slices.Clone(lines[0])
	for i := range max(len(far), len(near)) {
		for _, rows := range [][][]byte{far, near} {
			if i < len(rows) {
				out = append(out, rows[i]...)
			}
		}
	}
	return out
}

// widened is generated data with its fifth field (Order Priority) made
// 0 to 330 bytes long, a different length each row.
func widened(in []byte) []byte {
	var out []byte
	for i, row := range bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n")) {
		f := bytes.Split(row, []byte(","))
		if i > 0 {
			f[4] = bytes.Repeat([]byte{'p'}, i*37%331)
		}
		out = append(append(out, bytes.Join(f, []byte(","))...), '\n')
	}
	return out
}

func takesCleanRows(t *testing.T, in []byte) {
	var country string // the first row's that a 16-byte compare takes
	for _, row := range bytes.Split(in, []byte("\n"))[1:] {
		if c := bytes.Split(row, []byte(","))[1]; len(c) < 16 {
			country = string(c)
			break
		}
	}
	for _, q := range []Query{
		{Filters: []Cond{Eq("Region", "Europe")}},
		{},
		{Filters: []Cond{Eq("Country", country)}},
		{Filters: []Cond{Eq("Item Type", "Cosmetics")}},
		{Filters: []Cond{Eq("Item Type", "Office Supplies")}}, // 16 bytes with its comma
		{Filters: []Cond{Eq("Sales Channel", "Online")}},
		{Filters: []Cond{Eq("Sales Channel", "Offline")}}, // 8
	} {
		tb, err := NewTable("w.csv", in, &q)
		if err != nil {
			t.Fatal(err)
		}
		if (len(q.Filters) == 0 || q.Filters[0].Col != "Region") && !tb.b.hotAll {
			t.Fatalf("%+v: not hotAll", q)
		}
		s, _ := tb.Body()
		win := in[s : s+winBytes]
		stop := bytes.LastIndexByte(win, '\n') + 1
		var mk marks
		var n tally
		if tb.b.hotAll {
			n = classify(win, &mk, everyRow, ',')
		} else {
			n = classify(win, &mk, 'E', ',')
		}
		var want refAnswer
		if err := refQuery([]refFile{{"w.csv", append(append([]byte{}, in[:s]...), win[:stop]...)}}, q, &want); err != nil {
			t.Fatal(err)
		}
		// with the filter's branch, and (given a filter) in compress mode
		for mode := range 3 {
			cmode, chain := mode&1, mode>>1
			if cmode == 1 && tb.b.hp.vmask == 0 || chain == 1 && !tb.b.hotAll {
				continue
			}
			it := walk(&n, stop)
			tb.b.hp.fillHot(&it, in, s)
			it.cmode, it.chain = cmode, chain
			var r Result
			for k := range r.Sums {
				r.Sums[k].Scale = 2
			}
			if !tb.b.hp.scalesOf(&it, &r, &rowScratch{}) {
				t.Fatal("scalesOf: not 0 or 2")
			}
			var cbuf [cbufLen][3]int
			hotWalk(&it, &in[s], &mk, &r, &cbuf)
			if it.more != 0 {
				t.Fatalf("%+v, cmode %d, chain %d: hotWalk ended with more = %d, the row %q", q, cmode, chain, it.more, win[it.q:it.e])
			}
			if r.Matched != want.matched || r.Matched == 0 {
				t.Errorf("%+v, cmode %d, chain %d: matched %d, reference %d", q, cmode, chain, r.Matched, want.matched)
			}
			if tb.b.hotAll && r.Rows != want.rows {
				t.Errorf("%+v, cmode %d, chain %d: rows %d, reference %d", q, cmode, chain, r.Rows, want.rows)
			}
			for i, w := range want.sums {
				if r.Sums[i].String() != w.String() {
					t.Errorf("%+v, cmode %d, chain %d: sum %d: %s, reference %s", q, cmode, chain, i, r.Sums[i], w)
				}
			}
		}
	}
}

// Compress mode (hotState.cmode) takes over once a third of the rows
// match, and must still give the reference's answer, or its error, when
// rows go back from either pass, before or after its buffer fills: values
// that do not parse, at another scale, too long or empty, a field count
// other than the header's, a filter value at the row's end, a short row.
func TestCompressMode(t *testing.T) {
	oneGoroutine(t)
	if !hotAsm {
		t.Skip("no BMI1, BMI2 or POPCNT: no hotWalk")
	}
	var b strings.Builder
	b.WriteString("A,B,C,D\n")
	for i := range 600 {
		fmt.Fprintf(&b, "r%d,%s,%d.%02d,%d\n", i%7, []string{"Online", "Offline"}[(i*i+i/3)%2], i*13%1000, i%100, i)
	}
	clean := b.String()
	odd := []string{
		"x,Offline,12x.00,1", "x,Offline,1.5,2", "x,Offline,,3", "x,Offline,123456789012.00,4",
		"x,Offline,1.00,5,extra", "x,Offline", "x,Offline,7.00", "x,Online,1.5,7", "x,Onlinex,3.00,8",
		"x,Online,12x.00,1", "x,Online,1.00,5,extra", "x,Online,1,2", "x,Online", "x,On,1.00,9", ",Online,0.00,0", "x",
	}
	q := Query{Filters: []Cond{Eq("B", "Online")}, Sum: []string{"C", "D"}}
	tb, err := NewTable("b.csv", []byte(clean), &q)
	if err != nil || !tb.b.hotAll {
		t.Fatalf("not hotAll (%v)", err)
	}
	r := Result{Rows: minCompressRows, Matched: (minCompressRows + 2) / 3}
	if !tb.b.hp.compress(&r) {
		t.Fatal("a third matching: not compress mode")
	}
	r.Matched--
	if tb.b.hp.compress(&r) {
		t.Fatal("less than a third matching: compress mode")
	}
	// each odd row once, then three in one window (the first goes back
	// from compress mode, the others after it is off for the window)
	for _, o := range append(odd, odd[0]+"\n"+odd[9]+"\n"+odd[4], odd[10]+"\n"+odd[1]+"\n"+odd[10]) {
		in := clean + o + "\n" + clean
		if _, err := check(t, o, []refFile{{"b.csv", []byte(in)}}, q); err != nil && !strings.Contains(o, "Online") && o != "x" {
			t.Errorf("%q: %v", o, err)
		}
	}
}

// In emit mode (the fast group-by's), hotWalk hands over every row of a
// clean window with the values tailValues finds in it, integers and cents
// alike, and hands back a row whose value is not at the scale it expects.
func TestHotWalkEmits(t *testing.T) {
	if !hotAsm {
		t.Skip("no BMI1, BMI2 or POPCNT: no hotWalk")
	}
	for _, in := range [][]byte{generated(t, 1000, 1)[0].data, farFirst(t)} {
		emits(t, in)
	}
}

func emits(t *testing.T, in []byte) {
	for _, q := range []Query{
		{By: []string{"Region"}, Sum: []string{"Total Revenue", "Total Profit"}},
		{By: []string{"Country"}, Sum: []string{"Units Sold"}, Max: []string{"Unit Price"}},
		{Filters: []Cond{Eq("Sales Channel", "Online")}, By: []string{"Item Type"}, Min: []string{"Total Cost"}},
		// spans from the row's start and from its end
		{Filters: []Cond{{"Region", OpEq, "Europe", false, nil}, {"Item Type", OpNe, "Fruits", false, nil}, {"Unit Cost", OpGt, "5", false, nil}}, By: []string{"Order Priority"}},
		{Filters: []Cond{{"Sales Channel", OpEq, "Online", false, nil}, {"Units Sold", OpGt, "0", false, nil}}, By: []string{"Total Profit"}},
		// a numeric filter's field nearer the row's end than the sum's (hotPlan.skip)
		{Filters: []Cond{{"Sales Channel", OpEq, "Online", false, nil}, {"Total Profit", OpGt, "0", false, nil}}, By: []string{"Region"}, Sum: []string{"Units Sold"}},
		{Filters: []Cond{{"Region", OpEq, "Europe", false, nil}, {"Sales Channel", OpEq, "Online", false, nil}, {"Units Sold", OpGt, "5000", false, nil}}},
		// two group-by columns: the second in span 2
		{By: []string{"Region", "Sales Channel"}},
		{Filters: []Cond{{"Region", OpEq, "Europe", false, nil}, {"Units Sold", OpGt, "5000", false, nil}}, By: []string{"Country", "Item Type"}, Min: []string{"Total Cost"}},
	} {
		tb, err := NewTable("w.csv", in, &q)
		if err != nil {
			t.Fatal(err)
		}
		g := tb.b.gen
		if g == nil || g.hot == nil || !g.hot.all {
			t.Fatalf("%+v: no groupsHot", q)
		}
		h := g.hot
		if want := min(len(h.rest), 2); len(q.Filters) > 1 && q.Filters[1].Op != OpGt && h.tested == 0 {
			t.Fatalf("%+v: hotWalk tests %d of the later filters, want some of %d", q, h.tested, want)
		}
		s, _ := tb.Body()
		win := in[s : s+winBytes]
		stop := bytes.LastIndexByte(win, '\n') + 1
		var mk marks
		n := classify(win, &mk, everyRow, ',')
		for chain := range 2 { // the sp walk, and (given no later filter) chain mode
			it := walk(&n, stop)
			it.chain = chain
			h.hp.fillHot(&it, in, s)
			var recs [hotRecs]hotRec
			it.out, it.ncap = &recs[0], len(recs)
			var want [MaxSums]int64
			var scales [MaxSums]int
			// the scales of the first row's values
			e := bytes.IndexByte(win, '\n')
			if !tailValues(in, s, s+e, &mk, s, &h.tp, &want, &scales) {
				t.Fatalf("%+v: tailValues declines the first row", q)
			}
			for k := range h.tp.nsum {
				it.scale[k] = uint8(scales[k])
			}
			var sc rowScratch // the numeric filters' scales, from the first row
			tb.learnNumScales(s, s+e, &mk, s, &sc, &h.hp)
			for k := h.hp.nsum; k < h.hp.nparse; k++ {
				it.scale[k] = sc.scale[k]
			}
			h.hp.numBounds(&it)
			var r Result
			hotWalk(&it, &in[s], &mk, &r, nil)
			if it.more != 3 && it.more != 0 {
				t.Fatalf("%+v, chain %d: more = %d, the row %q", q, chain, it.more, win[it.q:it.e])
			}
			rows := bytes.Count(win[:stop], []byte("\n"))
			filtered := len(q.Filters) > 0
			if !filtered && it.nout != min(rows, hotRecs) {
				t.Errorf("%+v, chain %d: %d rows handed over of %d", q, chain, it.nout, rows)
			}
			if filtered && (it.more != 0 || it.nout+int(r.Rows) != rows || it.nout == 0) {
				t.Errorf("%+v, chain %d: more = %d, %d rows handed over and %d turned away, of %d", q, chain, it.more, it.nout, r.Rows, rows)
			}
			for _, rc := range recs[:it.nout] {
				row := win[rc.q:rc.e]
				if filtered && q.Filters[0].Op == OpEq && !bytes.Contains(append([]byte(","), row...), []byte(","+q.Filters[0].Value+",")) {
					t.Errorf("%+v, chain %d: row %q taken", q, chain, row)
				}
				var got [MaxSums]int64
				if !tailValues(in, s+rc.q, s+rc.e, &mk, s, &h.tp, &got, &scales) || got != rc.v {
					t.Errorf("%+v, chain %d: row %q: values %v, tailValues %v", q, chain, row, rc.v, got)
				}
				fields := []int{h.key, -1, -1} // span j's field
				for i, c := range h.rest[:min(len(h.rest), 2)] {
					fields[1+i] = c.field
				}
				if h.key2 >= 0 {
					fields[2] = h.key2
				}
				for i := range min(h.tested, 2) { // the filters hotWalk tested hold
					sp := rc.span[1+i]
					if ok, err := h.rest[i].test(in[s+sp[0] : s+sp[1]]); !ok || err != nil {
						t.Errorf("%+v, chain %d: row %q taken, though %s", q, chain, row, q.Filters[1+i])
					}
				}
				for j, f := range fields {
					if f < 0 || h.hp.span[j] < 0 {
						continue
					}
					if fs, fe := tb.fieldSpan(s+rc.q, s+rc.e, &mk, s, f); fs != s+rc.span[j][0] || fe != s+rc.span[j][1] {
						t.Errorf("%+v, chain %d: row %q: span %d %q, fieldSpan %q", q, chain, row, j, in[s+rc.span[j][0]:s+rc.span[j][1]], in[fs:fe])
					}
				}
			}
			// A value at the other scale goes back.
			it = walk(&n, stop)
			it.chain = chain
			h.hp.fillHot(&it, in, s)
			it.out, it.ncap = &recs[0], len(recs)
			for k := range h.tp.nsum {
				it.scale[k] = 2 - uint8(scales[k])
			}
			hotWalk(&it, &in[s], &mk, &r, nil)
			if it.more != 1 || it.nout != 0 {
				t.Errorf("%+v, chain %d: at the wrong scales, more = %d with %d rows handed over", q, chain, it.more, it.nout)
			}
		}
	}
}

// Slot mode (hotKeys): hotWalk adds rows of known keys to the key table's
// accumulators itself. Every path must give the reference's groups for
// keys of every length around its 16-byte compares and its 64-byte limit,
// the empty key, keys that share their hash (the same length and first 8
// bytes), values that change from integers to cents mid-file (the
// accumulators fold at the old scale first), and more keys than the table
// holds (slot mode given up, with rows still to fold), and more rows of
// one key than its lanes hold.
func TestSlotMode(t *testing.T) {
	oneGoroutine(t)
	if !hotAsm {
		t.Skip("no BMI1, BMI2 or POPCNT: no hotWalk")
	}
	var keys []string
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 70} {
		keys = append(keys, strings.Repeat("k", n))
	}
	for c := 'a'; c < 'e'; c++ {
		keys = append(keys, "samefirst8"+string(c)+"samelast") // one hash (keyHash), four keys
	}
	for _, n := range []int{16, 17, 32, 33, 40, 63, 64} {
		// the length and hash of one above, a byte apart in each 16 or 32
		keys = append(keys, strings.Repeat("k", n-1)+"z", strings.Repeat("k", n-9)+"z"+strings.Repeat("k", 8))
	}
	rowsOf := func(keys []string, reps int, cents bool) string {
		var b strings.Builder
		for i := range reps {
			for j, k := range keys {
				if cents {
					fmt.Fprintf(&b, "%s,%d.%02d,%d\n", k, (i*37+j*11)%1000, (i+j)%100, j)
				} else {
					fmt.Fprintf(&b, "%s,%d,%d\n", k, (i*37+j*11)%1000, j)
				}
			}
		}
		return b.String()
	}
	q := Query{By: []string{"K"}, Sum: []string{"V", "N"}}
	// and with filters hotWalk tests itself: slot mode takes them too
	qf := Query{Filters: []Cond{{"N", OpEq, "5", false, nil}, {"K", OpNe, "k", false, nil}, {"V", OpGe, "100.5", false, nil}}, By: []string{"K"}, Sum: []string{"V", "N"}}
	// and with minimums and maximums (extremes mode), of the integers
	// and the cents: values 0 among them
	qm := Query{By: []string{"K"}, Min: []string{"V", "N"}, Max: []string{"N", "V"}, Avg: []string{"V"}}
	qmf := Query{Filters: []Cond{{"N", OpEq, "5", false, nil}, {"K", OpNe, "k", false, nil}, {"V", OpLt, "1000", false, nil}}, By: []string{"K"}, Min: []string{"V", "N"}, Max: []string{"V"}}
	few := []byte("K,V,N\n" + rowsOf(keys, 300, false) + rowsOf(keys, 300, true))
	for _, q := range []Query{qf, qm, qmf} {
		if tb, err := NewTable("few.csv", few, &q); err != nil || tb.b.gen.hot == nil || !tb.b.gen.hot.slot {
			t.Fatalf("%+v does not take slot mode (%v)", q, err)
		}
	}
	var many []string
	for i := range 2 * maxKeyCap {
		many = append(many, fmt.Sprintf("key %d", i))
	}
	// rows in the table's accumulators, slot mode given up, then a new scale
	manyIn := []byte("K,V,N\n" + rowsOf(keys[1:6], 50, false) + rowsOf(many, 3, false) + rowsOf(many, 3, true))
	// more keys than the table starts with: it doubles (twice), the
	// accumulators kept, with rows of the first keys before and after
	grown := []byte("K,V,N\n" + rowsOf(keys[1:6], 50, false) + rowsOf(many[:900], 4, false) + rowsOf(keys[1:6], 50, true) + rowsOf(many[:900], 2, true))
	// a key's lanes past laneRows rows of nines: a lane would fill at 7,282
	// (a row of 8 bytes or fewer goes back: see hotWalk's nocr)
	dense := []byte("K,V,N\n" + strings.Repeat("a,99999999.99,99999999\nbb,1.01,1\nc,500.00,5\n", 2*laneRows+5))
	for _, c := range []struct {
		name  string
		files []refFile
		off   bool
		nkeys int // in the table
	}{
		{"lengths, hashes and scales", []refFile{{"few.csv", few}}, false, len(keys) - 2}, // all but the two over 64 bytes
		{"two files, one table", []refFile{{"a.csv", few}, {"b.csv", few}}, false, len(keys) - 2},
		{"more keys than the table starts with", []refFile{{"grown.csv", grown}}, false, 905},
		{"more keys than the table holds", []refFile{{"many.csv", manyIn}}, true, 0},
		{"lanes flushed", []refFile{{"dense.csv", dense}}, false, 3},
	} {
		if _, err := checkGen(t, c.name, c.files, q); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, v := range []struct {
			name string
			q    Query
		}{{"filtered", qf}, {"extremes", qm}, {"extremes, filtered", qmf}} {
			if got, err := checkGen(t, c.name+", "+v.name, c.files, v.q); err != nil || got.matched == 0 {
				t.Fatalf("%s, %s: matched %d, %v", c.name, v.name, got.matched, err)
			}
		}
		// and slot mode took part
		for _, q := range []Query{q, qm} {
			r, err := scanAll(c.files, q)
			if err != nil {
				t.Fatal(err)
			}
			k := r.Groups.keys
			if k == nil || k.n == 0 || k.off != c.off {
				t.Fatalf("%s: key table %v", c.name, k != nil && k.n > 0)
			}
			if !c.off && k.n != c.nkeys {
				t.Errorf("%s: %d keys in the table, want %d", c.name, k.n, c.nkeys)
			}
			if !c.off && k.taken*10 < r.Matched*8 { // (hotWalk finds the keys learn put in: one hash)
				t.Errorf("%s: hotWalk took %d rows of %d", c.name, k.taken, r.Matched)
			}
			if a := uintptr(unsafe.Pointer(&k.acc[0])); a%64 != 0 {
				t.Errorf("%s: the accumulators at %#x, not on a cache line", c.name, a)
			}
			for j := range k.n {
				if k.acc[j] != (keyAcc{}) {
					t.Fatalf("%s: entry %d not folded: %v", c.name, j, k.acc[j])
				}
			}
		}
	}
}

// keyHash: keys that share their first 8 bytes, their last 8 and their
// length share a slot; keys that share only their first 8 bytes and length
// (dates of one day in several years) need not.
func TestKeyHash(t *testing.T) {
	if keyHash([]byte("samefirst8asamelast"), 11) != keyHash([]byte("samefirst8bsamelast"), 11) {
		t.Error("keys alike but for their middle byte hash apart")
	}
	slots := map[uint64]bool{}
	for y := 2010; y < 2018; y++ {
		slots[keyHash([]byte(fmt.Sprintf("1/23/%d", y)), 11)] = true
	}
	if len(slots) < 6 {
		t.Errorf("8 dates of one day in %d slots", len(slots))
	}
	if keyHash(nil, 11) != keyHash([]byte{}, 11) || keyHash([]byte("a"), 11) == keyHash([]byte("a\x00"), 11) {
		t.Error("the empty key, or a key and its zero-padded self")
	}
}

// Slot mode with a two-column key (twoKey): the key table's key is the
// two fields joined by ',', made in the assembly's buffer. Every path must
// give the reference's groups for pairs whose joined key is 63, 64 and 65
// bytes long (the last never in the table), empty fields on either side,
// pairs that join to one hash, the columns apart, side by side and in
// either order, the second found from the row's end, and with a later
// filter that hotWalk tests.
func TestSlotModeTwoKeys(t *testing.T) {
	oneGoroutine(t)
	if !hotAsm {
		t.Skip("no BMI1, BMI2 or POPCNT: no hotWalk")
	}
	type pair struct{ a, b string }
	var pairs []pair
	for _, n := range []int{0, 1, 8, 31, 32} {
		for _, m := range []int{0, 1, 15, 31, 32} {
			pairs = append(pairs, pair{strings.Repeat("a", n), strings.Repeat("b", m)})
		}
	}
	// 64 bytes joined, and 65 (as 32 and 32 above)
	pairs = append(pairs, pair{strings.Repeat("a", 62), "b"}, pair{strings.Repeat("a", 63), ""}, pair{strings.Repeat("a", 63), "b"})
	pairs = append(pairs, pair{"samefirst", "x"}, pair{"samefirst", "y"}, pair{"samefirs", "tx"}, pair{"same", "firstx"})
	pairs = append(pairs, pair{"samefirst8a", "samelast"}, pair{"samefirst8b", "samelast"}) // one hash
	fits := 0
	for _, p := range pairs {
		if len(p.a)+1+len(p.b) <= 64 {
			fits++
		}
	}
	var b strings.Builder
	b.WriteString("K,X,J,V,N\n")
	for i := range 200 {
		for j, p := range pairs {
			fmt.Fprintf(&b, "%s,x%d,%s,%d.%02d,%d\n", p.a, j%3, p.b, (i*37+j*11)%1000, (i+j)%100, j%7)
		}
	}
	in := []refFile{{"two.csv", []byte(b.String())}}
	for _, c := range []struct {
		q     Query
		nkeys int
	}{
		{Query{By: []string{"K", "J"}, Sum: []string{"V", "N"}}, fits},
		{Query{By: []string{"J", "K"}, Sum: []string{"V"}}, fits},
		{Query{By: []string{"K", "X"}, Sum: []string{"V"}}, 0}, // (counted below)
		{Query{By: []string{"J", "N"}, Max: []string{"V"}, Min: []string{"N"}}, 0},
		{Query{Filters: []Cond{{"X", OpEq, "x1", false, nil}, {"N", OpNe, "3", false, nil}}, By: []string{"K", "J"}, Sum: []string{"V", "N"}}, 0},
	} {
		q := c.q
		tb, err := NewTable("two.csv", in[0].data, &q)
		if err != nil || tb.b.gen.hot == nil || !tb.b.gen.hot.slot || tb.b.gen.hot.hp.key2 != ',' {
			t.Fatalf("%+v does not take slot mode with two keys (%v)", q, err)
		}
		got, err := checkGen(t, fmt.Sprint(q.By), in, q)
		if err != nil || got.matched == 0 {
			t.Fatalf("%v: matched %d, %v", q.By, got.matched, err)
		}
		r, err := scanAll(in, q)
		if err != nil {
			t.Fatal(err)
		}
		k := r.Groups.keys
		if k == nil || k.off {
			t.Fatalf("%v: slot mode given up", q.By)
		}
		if k.taken*10 < r.Matched*8 {
			t.Errorf("%v: hotWalk took %d rows of %d", q.By, k.taken, r.Matched)
		}
		want := c.nkeys
		if want == 0 { // the groups whose joined key fits (groupKey's: a byte a length here)
			for i := range r.Groups.Len() {
				if len(r.Groups.Key(i))-1 <= 64 {
					want++
				}
			}
		}
		if k.n != want {
			t.Errorf("%v: %d keys in the table, want %d", q.By, k.n, want)
		}
		for j := range k.n {
			if k.acc[j] != (keyAcc{}) {
				t.Fatalf("%v: entry %d not folded", q.By, j)
			}
		}
	}
}

// A row that goes back from compress mode's second pass puts the walk
// right after it: in the window's last word too, where the row after it
// starts past the rows bulk gives hotWalk, and is not taken.
func TestCompressModeWindowEnd(t *testing.T) {
	if !hotAsm {
		t.Skip("no BMI1, BMI2 or POPCNT: no hotWalk")
	}
	q := Query{Filters: []Cond{Eq("B", "Online")}, Sum: []string{"C"}}
	var b strings.Builder
	b.WriteString("A,B,C\n")
	for i := range 40 {
		fmt.Fprintf(&b, "r,%s,%d.00\n", []string{"Online", "Offline"}[i%3/2], i)
	}
	b.WriteString("x,Online,1x.00\nr,Online,5.00") // a bad value, then a row with no '\n'
	in := []byte(b.String())
	tb, err := NewTable("e.csv", in, &q)
	if err != nil || !tb.b.hotAll {
		t.Fatalf("not hotAll (%v)", err)
	}
	s, _ := tb.Body()
	win := make([]byte, winBytes)
	copy(win, in[s:])
	stop := bytes.LastIndexByte(in[s:], '\n') + 1
	if bad := bytes.LastIndex(in[s:], []byte("x,")); bad>>6 != (stop-1)>>6 || stop>>6 != bad>>6 {
		t.Fatalf("the bad row at %d and the last one at %d are not in the '\\n' at %d's word", bad, stop, stop-1)
	}
	var mk marks
	n := classify(win, &mk, everyRow, ',')
	it := walk(&n, stop)
	tb.b.hp.fillHot(&it, win, 0)
	it.avail = len(in) - s
	it.cmode = 1
	var r Result
	r.Sums[0].Scale = 2
	if !tb.b.hp.scalesOf(&it, &r, &rowScratch{}) {
		t.Fatal("scalesOf")
	}
	var cbuf [cbufLen][3]int
	hotWalk(&it, &win[0], &mk, &r, &cbuf)
	if it.more != 1 || string(win[it.q:it.e]) != "x,Online,1x.00" {
		t.Fatalf("more = %d, the row %q", it.more, win[it.q:it.e])
	}
	hotWalk(&it, &win[0], &mk, &r, &cbuf)
	if it.more != 0 || r.Rows != 40 || r.Matched != 27 {
		t.Fatalf("more = %d, rows %d matched %d; want 0, 40 and 27", it.more, r.Rows, r.Matched)
	}
}

// hotWalk reads the dates of a range's span itself (hotPlan.dateOn),
// handing none back, in each shape it knows: M/D/YYYY of every width and
// YYYY-MM-DD, each day of a month up to the 28th, the field first, in the
// middle, near the row's end or last.
func TestHotWalkReadsDates(t *testing.T) {
	if !hotAsm {
		t.Skip("no BMI1, BMI2 or POPCNT: no hotWalk")
	}
	for at := range 4 {
		b := []byte([4]string{"D,R,N,V\n", "R,D,N,V\n", "R,N,D,V\n", "R,N,V,D\n"}[at])
		for i := range 200 {
			y, m, d := 2014+i%3, 1+i%12, 1+(i*5)%28
			day := fmt.Sprintf("%d/%d/%d", m, d, y)
			switch i % 4 {
			case 1:
				day = fmt.Sprintf("%02d/%02d/%d", m, d, y)
			case 2:
				day = fmt.Sprintf("%d-%02d-%02d", y, m, d)
			}
			row := [4]string{day + ",r,%d,%d.%02d\n", "r," + day + ",%d,%d.%02d\n", "r,%d," + day + ",%d.%02d\n", "r,%d,%d.%02d," + day + "\n"}[at]
			b = fmt.Appendf(b, row, i, i%1000, i%100)
		}
		for _, r := range [][2]string{{"2015-01-01", "2016-01-01"}, {"2014-03-05", "2016-11-20 08:00"}, {"1/1/2000", "2014-01-02"}} {
			q := Query{Filters: []Cond{{Col: "D", Op: OpGe, Value: r[0]}, {Col: "D", Op: OpLt, Value: r[1]}}, Sum: []string{"V"}}
			tb, err := NewTable("d.csv", b, &q)
			if err != nil {
				t.Fatal(err)
			}
			h := tb.b.gen.hot
			s, _ := tb.Body()
			win := b[s:min(len(b), s+winBytes)]
			stop := bytes.LastIndexByte(win, '\n') + 1
			var mk marks
			n := classify(win, &mk, everyRow, ',')
			it := walk(&n, stop)
			h.hp.fillHot(&it, b, s)
			var res Result
			res.Sums[0].Scale = 2
			if !h.hp.scalesOf(&it, &res, &rowScratch{}) {
				t.Fatal("scalesOf: not 0 or 2")
			}
			hotWalk(&it, &b[s], &mk, &res, nil)
			want, err := refGeneral([]refFile{{"d.csv", b[:s+stop]}}, q) // the window's rows
			if err != nil {
				t.Fatal(err)
			}
			if it.more != 0 || res.Matched != want.matched || res.Rows != want.rows || res.Matched == 0 {
				t.Errorf("at %d, %v: more = %d (the row %q), matched %d of %d, reference %d of %d", at, r, it.more, win[it.q:it.e], res.Matched, res.Rows, want.matched, want.rows)
			}
		}
	}
}
