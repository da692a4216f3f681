package scan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// Quoted rows at the plain rows' speed. Most quoted files quote whole
// fields that hold no delimiter, line end or quote (R's write.csv, Excel,
// pandas with QUOTE_NONNUMERIC): dropping those quotes leaves the same
// values in a quote-free row. So a window with a quote is first read by
// its bitmaps (quoteBatch): the in-quote mask is the prefix XOR of the
// quote bits, as in simdjson and simdcsv, and the complete rows before the
// first quote that is not such a field's own are copied without their
// quotes (the best of dequoters: dequoteAVX512 by VPCOMPRESSB,
// dequoteAVX2 by PSHUFB, else the portable masks) into the scan's
// scratch, where every quote-free fast path reads them. A row that is not
// that simple (a quoted delimiter or line end, a doubled quote, a quote
// inside a bare field) takes the full parser as before, and the rows after
// it are tried again; where batches keep ending short, they pause
// (batches).
//
// The copy changes no answer: a simple row's fields are its values, and a
// batch's rows are its source's rows, line for line. Where the copy meets
// an error, the source row is read again by the path it took before the
// batches (slowRow, or line), so the error's file, line, column and words
// are the same.

// quotedBatches turns quotedBatch on; tests turn it off to read every
// quoted row with the full parser.
var quotedBatches = true

// prefixXor is the inclusive prefix XOR of x's bits: bit i is the parity
// of bits 0..i, so a quote mask becomes the mask of the bytes from each
// opening quote (included) to its closing quote (excluded).
func prefixXor(x uint64) uint64 {
	x ^= x << 1
	x ^= x << 2
	x ^= x << 4
	x ^= x << 8
	x ^= x << 16
	x ^= x << 32
	return x
}

// dequote is the state of a batch (see quoteBatch) between blocks: the
// carries of the masks into the next block, and how far the batch got.
type dequote struct {
	inq          uint64 // all ones where the next block starts inside quotes
	prevD, prevN uint64 // bit 0: the byte before the next block is a delimiter or LF; is LF
	prevC        uint64 // bit 0: the byte before the next block is CR
	lastNL       int    // the last LF outside quotes so far (-1: none)
	outNL        int    // the bytes kept up to lastNL, itself included
	out          int    // the bytes kept so far
	quotes       uint64 // not 0 if a quote was seen
	stop         bool   // a quote that is not a simple field's was found
}

// block takes the masks of the 64-byte block at pos: q quotes, d
// delimiters and LF, n LF, c CR; nd the bytes whose next byte is a
// delimiter, LF or the data's end, ncl those whose next two are CR LF,
// nq those whose next byte is a quote (or past the data); live the bytes
// of the block that are data.
// It returns the block's keep mask, and sets s.stop at the first quote out
// of place.
func (s *dequote) block(pos int, q, d, n, c, nd, ncl, nq, live uint64) (keep uint64) {
	x := prefixXor(q) ^ s.inq
	s.inq = uint64(int64(x) >> 63)
	s.quotes |= q
	open, close := q&x, q&^x
	bad := x &^ open & d                // a delimiter or LF inside quotes
	bad |= open &^ (d<<1 | s.prevD)     // a quote that opens no field
	bad |= close &^ (nd | ncl)          // or closes none
	bad |= close & (c<<1 | s.prevC)     // a CR the quotes keep from a line end
	bad |= open & (n<<1 | s.prevN) & nq // a row that starts `""` (alone, a blank line once copied)
	keep = ^q & live                    // every quote goes
	rows := n &^ x
	if bad != 0 {
		rows &= bad&-bad - 1
		s.stop = true
	}
	if rows != 0 {
		b := 63 - bits.LeadingZeros64(rows)
		s.lastNL = pos + b
		s.outNL = s.out + bits.OnesCount64(keep<<(63-b))
	}
	s.out += bits.OnesCount64(keep)
	s.prevD, s.prevN, s.prevC = d>>63, n>>63, c>>63
	return keep
}

// masks computes block's masks for src[pos:pos+64] (or to src's end,
// whose bits past it are 0) from the bytes, the portable way; sep is the
// delimiter, final says src ends where the data does. A byte whose next
// bytes lie past src is taken for the worst case: a quote there is not
// shown to close a field, unless final shows the data's end.
func masks(src []byte, pos int, sep byte, final bool) (q, d, n, c, nd, ncl, nq uint64) {
	if pos+66 <= len(src) {
		return masksSWAR(src[pos:pos+66], sep)
	}
	return masksBytes(src, pos, sep, final)
}

// masksBytes is masks a byte at a time (near src's end).
func masksBytes(src []byte, pos int, sep byte, final bool) (q, d, n, c, nd, ncl, nq uint64) {
	at := func(i int) int {
		if i < len(src) {
			return int(src[i])
		}
		return -1
	}
	for i := pos; i < min(pos+64, len(src)); i++ {
		bit, b := uint64(1)<<(i-pos), at(i+1) // b: the next byte
		switch src[i] {
		case '"':
			q |= bit
		case sep:
			d |= bit
		case '\n':
			d |= bit
			n |= bit
		case '\r':
			c |= bit
		}
		switch {
		case b == int(sep) || b == '\n' || b < 0 && final:
			nd |= bit
		case b == '\r' && at(i+2) == '\n':
			ncl |= bit
		}
		if b == '"' || b < 0 {
			nq |= bit
		}
	}
	return
}

// masksSWAR is masks for a whole block and the two bytes after it (b, 66
// bytes), eight bytes at a time in a word: the portable way's speed where
// no vector dequote runs (docs/experiments.md, 2026-12-07).
func masksSWAR(b []byte, sep byte) (q, d, n, c, nd, ncl, nq uint64) {
	_ = b[65]
	const ones = 0x0101010101010101
	cq, cs, cn, cc := '"'*uint64(ones), uint64(sep)*ones, '\n'*uint64(ones), '\r'*uint64(ones)
	for i := 0; i < 64; i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		sh := uint(i)
		q |= eq8(w, cq) << sh
		nl := eq8(w, cn)
		n |= nl << sh
		d |= (eq8(w, cs) | nl) << sh
		c |= eq8(w, cc) << sh
	}
	b64, b65 := b[64], b[65]
	nd = d>>1 | boolBit(b64 == sep || b64 == '\n')<<63
	ncl = (c>>1 | boolBit(b64 == '\r')<<63) & (n>>2 | boolBit(b64 == '\n')<<62 | boolBit(b65 == '\n')<<63)
	nq = q>>1 | boolBit(b64 == '"')<<63
	return
}

// eq8 is a bit for each byte of w that equals the byte repeated in c,
// byte i at bit i (the high bits of the zero bytes of w^c, exactly: no
// borrow crosses a byte, gathered by a multiply).
func eq8(w, c uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	x := w ^ c
	t := ^((x&low7 + low7) | x | low7)
	return t * 0x0002040810204081 >> 56
}

// boolBit is 1 for true, 0 for false.
func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// quoteBatch reads src, which starts at a row's start (final: src ends
// where the data does; sep its delimiter), and copies to dst the complete
// rows before the first one that is not simple, without their quotes. A
// simple row's quotes each open a field (after a delimiter or at the row's
// start) and close it (before a delimiter, LF or CR LF), and the field
// between holds no delimiter or LF, no quote and no CR at its end; a row
// that starts with an empty quoted field (`""`, which alone would copy as
// a blank line) is not simple either. It returns ok, the length of those
// rows in src (0 when the first row is not simple or not complete in src),
// and n, the length of their copy in dst, which must hold len(src)+64
// bytes. quotes says whether src held a quote before where it stopped
// looking.
//
// Every test is of the row's own bytes, so whether a row is simple does
// not depend on where src starts.
func quoteBatch(dst, src []byte, sep byte, final bool) (ok, n int, quotes bool) {
	return quoteBatchWith(dequoter, dst, src, sep, final)
}

// quoteBatchWith is quoteBatch by dequote way d (dequoters).
func quoteBatchWith(d int, dst, src []byte, sep byte, final bool) (ok, n int, quotes bool) {
	s := dequote{prevD: 1, prevN: 1, lastNL: -1}
	pos := 0
	if d != dequotePortable && len(src) >= 66 {
		pos = vectorBlocks(d, dst, src, (len(src)-2)/64, sep, &s)
		if !final && s.lastNL >= 0 {
			// The rows in the last bytes go to the next batch: the
			// portable masks cost more than a batch started earlier.
			return s.lastNL + 1, s.outNL, s.quotes != 0
		}
	}
	for ; pos < len(src) && !s.stop; pos += 64 {
		q, d, nl, c, nd, ncl, nq := masks(src, pos, sep, final)
		live := ^uint64(0)
		if r := len(src) - pos; r < 64 {
			live = 1<<r - 1
		}
		out := s.out
		k := s.block(pos, q, d, nl, c, nd, ncl, nq, live)
		for i, b := range src[pos:min(pos+64, len(src))] {
			dst[out] = b
			out += int(k >> i & 1)
		}
	}
	if final && !s.stop && s.inq == 0 {
		return len(src), s.out, s.quotes != 0
	}
	return s.lastNL + 1, s.outNL, s.quotes != 0
}

// quotedBatch takes the simple rows (see quoteBatch) that start at p
// and before end, with at most a window's bytes: it copies them without
// their quotes into sc.qbuf and scans the copy by sc.view (a Table over
// it, made once a scan and reused). It returns where the rows it took end
// (p if it took none) and whether it saw a quote. The scan's first batch
// allocates the copy's 4 KiB and the view. The batch's scan uses sc.mk:
// the caller's marks are gone once it took rows.
func (t *Table) quotedBatch(p, end int, r *Result, sc *rowScratch) (int, bool, error) {
	data := t.data
	lim := min(p+winBytes, len(data))
	if end < lim { // the last row to take is the one that holds end-1
		if i := bytes.IndexByte(data[end-1:lim], '\n'); i >= 0 {
			lim = end + i
		}
	}
	if sc.qbuf == nil {
		sc.qbuf = new([winBytes + 64]byte)
	}
	ok, n, quotes := quoteBatch(sc.qbuf[:], data[p:lim], t.b.sep, lim == len(data) && !t.cut)
	if ok == 0 {
		return p, quotes, nil
	}
	if sc.view == nil {
		v := t.View(nil, p)
		sc.view = &v
	}
	view := sc.view
	view.data, view.base = sc.qbuf[:n], p
	if _, err := view.scanPart(0, n, r, sc); err != nil {
		return p, quotes, t.againAt(p, sc.qbuf[:n], err, r)
	}
	return p + ok, quotes, nil
}

// againAt is the error of the source row behind err, the error of a
// batch's copy (from p, copied into cp): that row read again in place, as
// it was before batches, gives the error its own file, line and column.
func (t *Table) againAt(p int, cp []byte, err error, r *Result) error {
	var pe *ParseError
	if !errors.As(err, &pe) {
		return err
	}
	row := p
	for k := bytes.Count(cp[:min(pe.off, len(cp))], []byte{'\n'}); k > 0; k-- {
		row += bytes.IndexByte(t.data[row:], '\n') + 1
	}
	var sc rowScratch
	if _, again := t.oneRow(row, r, &sc); again != nil {
		return again
	}
	return fmt.Errorf("scan: %s: the row at byte %d (%v) read again in place has no error: %w", t.name, t.base+row, err, errDisagree)
}

// countQuoted counts the row data[p:next] (end: its line end), which the
// full parser read, in r.Quoted if it is not simple (rowSimple), and in
// r.QuotedLines too if a quoted field of it holds a line end. So the
// counts are the same whichever path a scan took (a batch, a paused
// window, a row longer than a window): they are the data's.
func (t *Table) countQuoted(r *Result, p, next, end int) {
	if rowSimple(t.data[p:next], t.b.sep) {
		return
	}
	r.Quoted++
	if bytes.IndexByte(t.data[p:end], '\n') >= 0 {
		r.QuotedLines++
	}
}

// rowSimple says whether row, one record the full parser read with its
// line end, has only quotes that quoteBatch would take (its rule, read
// field by field as refQuoteBatch reads it). It is sure only of the
// other: a row it calls not simple no batch takes, so such a row always
// reaches the full parser, and is counted wherever it is scanned.
func rowSimple(row []byte, sep byte) bool {
	for i, first := 0, true; ; first = false {
		if i < len(row) && row[i] == '"' {
			k := bytes.IndexByte(row[i+1:], '"')
			if k < 0 {
				return false
			}
			c := row[i+1 : i+1+k]
			if first && k == 0 || bytes.IndexByte(c, sep) >= 0 || bytes.IndexByte(c, '\n') >= 0 || k > 0 && c[k-1] == '\r' {
				return false
			}
			switch j := i + k + 2; {
			case j == len(row) || row[j] == '\n' || row[j] == '\r' && j+1 < len(row) && row[j+1] == '\n':
				return true
			case row[j] == sep:
				i = j + 1
			default:
				return false
			}
			continue
		}
		k := i
		for k < len(row) && row[k] != sep && row[k] != '\n' {
			if row[k] == '"' {
				return false
			}
			k++
		}
		if k == len(row) || row[k] == '\n' {
			return true
		}
		i = k + 1
	}
}

// oneRow reads the row at p as the row-by-row path of scanPart does,
// without marks (a row longer than a window, or one a batch cannot take):
// by the full parser if it holds a quote, else by line. It returns where
// the next row starts.
func (t *Table) oneRow(p int, r *Result, sc *rowScratch) (int, error) {
	e, next := len(t.data), len(t.data)
	if i := bytes.IndexByte(t.data[p:], '\n'); i >= 0 {
		e, next = p+i, p+i+1
	}
	if bytes.IndexByte(t.data[p:e], '"') >= 0 {
		return t.slowRow(p, r)
	}
	return next, t.anyLine(p, e, r, nil, 0, sc)
}

// errDisagree marks a copied row whose error its source row does not
// have: a fault of the scanner, never of the data.
var errDisagree = errors.New("the quoted rows' fast path and the full parser disagree")

// batches is scanPart's choice of when to give rows to quotedBatch. A
// file that quotes only the fields holding a delimiter or a line end
// (pandas' and Python's default, QUOTE_MINIMAL) has no simple quoted row:
// its batches end every few rows at one the full parser must read, and
// cost more than the plain walk of the window's rows (docs/experiments.md,
// 2026-12-07). After shortRun batches in a row shorter than
// shortBatch, pauseWindows windows are walked the plain way, twice as many
// each time again (up to 64 times), until a batch is long; then batches
// are tried again.
type batches struct {
	on     bool // quotedBatches
	quoted bool // the last window held a quote: batch before classifying
	short  int  // batches in a row that took less than shortBatch bytes
	pause  int  // windows left to walk without batches
	pauses int  // pauses since the last long batch
}

const (
	shortBatch   = 1024
	shortRun     = 8
	pauseWindows = 256
)

// ok says whether a window may be batched now.
func (b *batches) ok() bool { return b.on && b.pause == 0 }

// window counts a window classified.
func (b *batches) window() {
	if b.pause > 0 {
		b.pause--
	}
}

// took counts a batch of n bytes.
func (b *batches) took(n int) {
	if n >= shortBatch {
		b.short, b.pauses = 0, 0
		return
	}
	if b.short++; b.short >= shortRun {
		b.short, b.pause, b.quoted = 0, pauseWindows<<min(b.pauses, 6), false
		b.pauses++
	}
}

// quotedLeads turns on the in-place walk of quoted windows (quotedLeadOK);
// tests turn it off to compare.
var quotedLeads = true

// quotedLeadOK reports whether hotWalk may walk the rows of the window
// src in place by the binding's qhp (its first-column value in quotes): the
// rows that end in it (src starts at a row's start; mk its classification,
// n its tally) each start with a quoted field, and every quote of theirs
// opens a field (after a delimiter or at a row's start) or closes it
// (before a delimiter or LF), with no delimiter or LF between. Then the
// delimiter bits are the fields' bounds, as in a quote-free window; a
// quoted field is its value between two quotes (none inside: a doubled
// quote closes a field before no delimiter), so `"Europe",` at a row's
// start is the value Europe and no other; and a quoted field that hotWalk
// must parse (a number) sends its row back (to qline, which gives a row
// with a quoted sum to the full parser). A CR next
// to a closing quote, a blank line, a row with a bare first field, or any
// other quote turns the window away (it is read as before, by
// quotedBatch). It reads the bitmaps alone, and the byte after each row's
// start: where the window passes, mk.sp (and n's sp and nz) become its
// rows whose quoted first field starts with v0, those that may match;
// where it does not, mk.sp may have changed and n has not.
func quotedLeadOK(mk *marks, src []byte, v0 byte, n *tally) bool {
	words := (len(src) + 63) / 64
	w := words - 1
	for w >= 0 && mk.nl[w] == 0 {
		w--
	}
	if w < 0 {
		return false
	}
	last := uint(63 - bits.LeadingZeros64(mk.nl[w])) // the last LF's bit in word w
	var ok bool
	var sp int
	var nz uint64
	if quotedLeadAsm {
		ok, sp, nz = quotedLeadWords(mk, w+1, ^uint64(0)>>(63-last), &src[0], int(v0))
	} else {
		ok, sp, nz = quotedLeadPortable(mk, src, v0, w, last)
	}
	if ok {
		n.sp, n.nz = sp, nz
		clear(mk.sp[w+1 : words]) // (the row that starts after the last LF: the next window's)
	}
	return ok
}

// quotedLeadPortable is quotedLeadOK's test of words 0..w, the bits of
// word w up to last, and its sp words, the portable way (and the
// reference for quotedLeadWords).
func quotedLeadPortable(mk *marks, src []byte, v0 byte, w int, last uint) (ok bool, nsp int, nz uint64) {
	// bit 0 of each: the byte before this word is a delimiter or LF (or
	// the window's start, a row's); is LF (or the start)
	var inq, prevD, prevN uint64 = 0, 1, 1
	var sp [winBytes / 64]uint64
	for i := 0; i <= w; i++ {
		q, nl := mk.qt[i], mk.nl[i]
		d := mk.cm[i] | nl
		var nextD uint64 // bit 63: the byte after the word's last is a delimiter or LF
		if i < w {
			nextD = (mk.cm[i+1] | mk.nl[i+1]) << 63
		}
		x := prefixXor(q) ^ inq // from each opening quote to its closing one
		inq = uint64(int64(x) >> 63)
		open, close := q&x, q&^x
		starts := nl<<1 | prevN
		bad := x &^ open & d           // a delimiter or LF inside quotes
		bad |= open &^ (d<<1 | prevD)  // a quote that opens no field
		bad |= close &^ (d>>1 | nextD) // or closes none
		bad |= starts &^ open          // a row that does not start with a quote
		if i == w {
			keep := ^uint64(0) >> (63 - last) // (rows that end in the window)
			bad, starts = bad&keep, starts&keep
		}
		if bad != 0 {
			return false, 0, 0
		}
		for s := starts; s != 0; s &= s - 1 {
			if b := bits.TrailingZeros64(s); src[64*i+b+1] == v0 {
				sp[i] |= 1 << b
			}
		}
		if sp[i] != 0 {
			nsp += bits.OnesCount64(sp[i])
			nz |= 1 << i
		}
		prevD, prevN = d>>63, nl>>63
	}
	copy(mk.sp[:w+1], sp[:w+1])
	return true, nsp, nz
}
