package scan

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Table is one CSV file's bytes with a query bound to its header.
//
// A Table does not copy data: it keeps the slice it was given, so data must
// stay valid and unchanged (for a mapping: mapped, and the file not truncated)
// until the last Scan of the Table returns.
type Table struct {
	name string
	data []byte
	body int // offset of the first data row
	b    binding
	// header is the header's names (nameEmpty's for empty cells, at
	// indexes unnamed), shared by the Table's views
	header  []string
	unnamed []int
	// base is where data starts in the file (a View's; 0 for the whole)
	base int
	// cut: data ends before the file does (Cut)
	cut bool
	// lazy: errAt counts no line (scanSkipping's first try)
	lazy bool
}

// Cut says that the Table's data (a View's) ends before its file does:
// a quote still open at its end is then an error (ErrOpenQuote) even in a
// scan that skips bad rows, for the caller to read on, not a bad row.
func (t *Table) Cut() { t.cut = true }

var bom = []byte{0xEF, 0xBB, 0xBF}

// NewTable reads the header of data (the whole file) and binds q to it.
// name is used in errors only.
func NewTable(name string, data []byte, q *Query) (*Table, error) {
	return NewTableSep(name, data, ',', q)
}

// NewTableSep is NewTable for a file whose field delimiter is sep: ',', a
// tab, ';' or '|' (see Transcoding.Sep), scanned in place in that dialect.
// It is the package's grammar with sep in place of ','. A tab file's quotes
// are read as Transcode reads them: a quote inside a bare field is a byte
// of it, and a field that starts with a quote is quoted only where it
// closes as one.
func NewTableSep(name string, data []byte, sep byte, q *Query) (*Table, error) {
	return NewTableLike(name, data, sep, q, nil)
}

// NewTableLike is NewTableSep where like, if not nil, is a Table bound to
// the same q as it is now: a header that is like's (the same cells, the
// same delimiter) shares like's binding, as RebindLike does, and is not
// bound again (a set of many files with one header binds once).
func NewTableLike(name string, data []byte, sep byte, q *Query, like *Table) (*Table, error) {
	if sep != ',' && sep != '\t' && sep != ';' && sep != '|' {
		return nil, fmt.Errorf("%s: the delimiter %q is not one parlab reads in place (',', tab, ';' or '|')", name, sep)
	}
	p := 0
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return nil, errAt(name, data, 0, "", nil, ErrUTF16)
	}
	if bytes.HasPrefix(data, bom) {
		p = len(bom)
	}
	p = skipBlank(data, p)
	if p >= len(data) {
		return nil, errAt(name, data, p, "", nil, ErrNoHeader)
	}
	var header []string
	first := p
	for {
		f, next, last, err := readField(data, p, sep, false)
		if err != nil {
			return nil, errAt(name, data, next, "", nil, err)
		}
		if next-first > MaxHeaderBytes {
			return nil, errAt(name, data, first, "", nil, ErrLongHeader)
		}
		header = append(header, unquote(data[f.s:f.e], f.quoted))
		p = next
		if last {
			break
		}
	}
	if q.NoHeader { // the first record is data; its columns are 1..N
		for i := range header {
			header[i] = strconv.Itoa(i + 1)
		}
		p = first
	}
	unnamed := nameEmpty(header)
	if like != nil && like.b.sep == sep && slices.Equal(like.header, header) && slices.Equal(like.unnamed, unnamed) {
		return &Table{name: name, data: data, body: p, b: like.b, header: like.header, unnamed: like.unnamed}, nil
	}
	b, err := bind(q, header, sep)
	if err != nil {
		if errors.Is(err, ErrColumn) && slices.ContainsFunc(header, func(h string) bool { return strings.Contains(h, "\r") }) {
			err = fmt.Errorf("%w (if its lines end in a CR alone, as old Mac files' do, leave --delimiter out for parlab to read them, or tr '\\r' '\\n' makes them LF)", err)
		}
		return nil, errAt(name, data, first, "", nil, err)
	}
	b.spec.unnamed(header, unnamed)
	return &Table{name: name, data: data, body: p, b: b, header: header, unnamed: unnamed}, nil
}

// unnamed sets s.Unnamed: the columns s reads among the header's cells
// at indexes empty (named by nameEmpty).
func (s *Spec) unnamed(header []string, empty []int) {
	for _, i := range empty {
		n := header[i]
		used := slices.Contains(s.By, n) || slices.ContainsFunc(s.Filters, func(c Cond) bool { return c.Col == n }) ||
			slices.ContainsFunc(s.Aggs, func(a Agg) bool { return a.Col == n })
		if used {
			s.Unnamed = append(s.Unnamed, n)
		}
	}
}

// Header is the file's column names as the query reads them (an empty
// cell named column0 …, see nameEmpty). It must not be changed.
func (t *Table) Header() []string { return t.header }

// Rebind binds q to the Table's header again: the same file with the
// query's kinds decided (Decider), say. On error t is unchanged.
func (t *Table) Rebind(q *Query) error {
	b, err := bind(q, t.header, t.b.sep)
	if err != nil {
		return errAt(t.name, t.data, 0, "", nil, err)
	}
	b.spec.unnamed(t.header, t.unnamed)
	t.b = b
	return nil
}

// RebindLike is Rebind for a Table whose header may be o's, o bound to
// the same q: then o's binding is t's too, shared as a View shares it (a
// set of many files with one header binds once).
func (t *Table) RebindLike(o *Table, q *Query) error {
	if o != nil && o.b.sep == t.b.sep && slices.Equal(t.header, o.header) && slices.Equal(t.unnamed, o.unnamed) {
		t.b = o.b
		return nil
	}
	return t.Rebind(q)
}

// nameEmpty names each empty header cell (an R data frame's row names'
// column, say) as DuckDB names a column without one: column and its
// position from 0 (column0), so that a query can name it.
func nameEmpty(header []string) (named []int) {
	for i, h := range header {
		if h == "" {
			header[i] = "column" + strconv.Itoa(i)
			named = append(named, i)
		}
	}
	return named
}

// Records returns up to n records from the start of data (a file's
// first bytes: its header, then rows), as the dialect with the delimiter
// sep reads them; a record cut by the end of data is left out. For a
// command that shows a file's columns (parlab menu).
func Records(data []byte, n int, sep byte) ([][]string, error) {
	p := 0
	if bytes.HasPrefix(data, bom) {
		p = len(bom)
	}
	var out [][]string
	for len(out) < n {
		if p = skipBlank(data, p); p >= len(data) {
			break
		}
		var rec []string
		for {
			f, next, last, err := readField(data, p, sep, true)
			if errors.Is(err, ErrOpenQuote) {
				return out, nil
			}
			if err != nil {
				return out, errAt("", data, next, "", nil, err)
			}
			rec = append(rec, unquote(data[f.s:f.e], f.quoted))
			p = next
			if last {
				break
			}
		}
		out = append(out, rec)
	}
	return out, nil
}

// View returns the Table for a piece of the same file: data holds the
// file's bytes from offset base on (base at or after the header's end, at a
// line start), and the binding is shared. Offsets into the view are
// relative to base, and so are the lines in its errors: ParseError.Line
// counts from base (the caller adds the lines before it, see
// ParseError.Shift). data must stay valid and unchanged while the view is
// scanned.
func (t *Table) View(data []byte, base int) Table {
	return Table{name: t.name, data: data, body: max(t.body-base, 0), b: t.b, header: t.header, unnamed: t.unnamed, base: base}
}

// Body returns the byte range that holds the data rows: from the first row
// after the header to the end of the file.
func (t *Table) Body() (start, end int) { return t.body, len(t.data) }

// Head returns the bytes before the first data row: the header (and a BOM
// and blank lines before it). It points into the Table's data.
func (t *Table) Head() []byte { return t.data[:t.body] }

// skipBlank skips empty lines (LF or CRLF) starting at p.
func skipBlank(data []byte, p int) int {
	for p < len(data) {
		switch {
		case data[p] == '\n':
			p++
		case data[p] == '\r' && p+1 < len(data) && data[p+1] == '\n':
			p += 2
		default:
			return p
		}
	}
	return p
}

// Scan scans the rows that start in [start, end) and adds what it finds to r.
// start must be the start of a row (or at most the start of the body, see
// Body); a row that starts before end is scanned to its end even if that lies
// past end, so ranges that meet at row starts scan every row exactly once.
//
// Rows are found window by window (see marks.go). With a filter on the
// first column, a window with no quote is taken whole by bulk, which counts
// the rows by popcount and looks only at those that may match. A window
// with a quote first gives its simple rows to quotedBatch, which scans them
// without their quotes the same way. Otherwise rows are walked one by one:
// a row with no quote is taken straight from the bitmaps; a row with a
// quote goes to the full RFC 4180 parser (slowRow), so quoted input gives
// the same answers.
//
// On error r holds the rows before the bad one, and the error is a
// *ParseError. Scan allocates nothing unless it fails, but 4 KiB in a
// step that meets a quote (quotedBatch's copy).
func (t *Table) Scan(start, end int, r *Result) error {
	_, err := t.ScanPart(start, end, r)
	return err
}

// ScanPart is Scan that also returns where it stopped: the start of the
// first row at or after end (or the end of the data). Scanning [start, m)
// and then [that, end) takes every row exactly once, so a caller can cut a
// long scan into steps (to check a deadline between them) at any m.
func (t *Table) ScanPart(start, end int, r *Result) (int, error) {
	if err := t.checkPart(r.Part); err != nil {
		return start, err
	}
	if t.b.skipBad {
		return t.scanSkipping(start, end, r)
	}
	var sc rowScratch // the general path's per-row fields, zeroed once here
	sc.span = end - start
	p, err := t.scanPart(start, end, r, &sc)
	t.foldKeys(r, &sc)
	return p, err
}

// scanPart is ScanPart, with the scan's scratch.
func (t *Table) scanPart(start, end int, r *Result, sc *rowScratch) (int, error) {
	data := t.data
	end = min(end, len(data))
	p := max(start, t.body)
	mk := &sc.mk                     // (in the scratch: a local would be zeroed for every batch, see quotedBatch)
	lead, leadVal := -1, []byte(nil) // see binding.lead
	if g := t.b.gen; g != nil && g.lead >= 0 {
		lead, leadVal = g.lead, g.conds[0].val
	} else if t.b.lead > 0 {
		lead, leadVal = t.b.lead, t.b.value
	}
	wb, we, quotes := 0, 0, false // data[wb:we] is classified into mk
	quick, v0 := t.b.gen == nil && t.b.filter == 0 && t.b.bareOK && len(t.b.value) > 0 && t.b.value[0] != '\r', byte(0)
	if quick {
		v0 = t.b.value[0]
	}
	// genQuick: the general path's first filter is on the first column and
	// hotWalk takes its rows: bulk walks the rows the classifier marks, as
	// for quick.
	genQuick := t.allRows() && lead == 0
	if genQuick {
		quick, v0 = true, leadVal[0]
	}
	// firsts: the general path's first filter is an in list on the first
	// column that hotWalk tests: the classifier marks the rows that start
	// with one of its values' first bytes (groupHot.firsts), and bulk walks
	// those, as for genQuick.
	firsts := 0
	if g := t.b.gen; g != nil && !genQuick && t.allRows() && g.hot.firsts != 0 {
		quick, firsts = true, g.hot.firsts
	}
	// every: a query that takes every row the same way (no filter and sums
	// from the row's end, the fast group-by, or a first filter ScanPart
	// tests itself): bulkEvery walks a quote-free window's rows itself.
	every := (t.b.gen == nil && t.b.filter < 0 && t.b.sumsHot) || (t.b.gen != nil && (t.b.gen.hot != nil || t.b.gen.pre >= 0)) || lead >= 0
	all := t.allRows() && !genQuick && firsts == 0 // bulk takes every row, by hotWalk
	cv := int(v0)                                  // the row starts sp marks (see marksRow)
	if all {
		cv = everyRow
	} else if firsts != 0 {
		cv = firsts
	}
	bs := batches{on: quotedBatches} // when quotedBatch takes a window
	// qlead: a quoted window whose rows all start with a quoted first field
	// (R's write.csv, Excel's all-quoted export) is walked in place by the
	// binding's qhp (quotedLeadOK, which marks the rows whose field starts
	// with v0), not copied without its quotes. A window that is not turns
	// it off for the rest of the part.
	qlead := quick && t.b.qhot && hotAsm && quotedLeads
	for p < end {
		if p >= we {
			if bs.quoted && bs.ok() && !qlead {
				next, q, err := t.quotedBatch(p, end, r, sc)
				if err != nil {
					return p, err
				}
				bs.took(next - p)
				if bs.quoted = q; next > p {
					p = next
					continue
				}
				if bs.quoted {
					// The row at p is not simple: read it alone, not
					// classifying a window (twice, for its quotes) for
					// one row (files that quote a field only where it
					// holds a comma have one every few rows).
					n, err := t.oneRow(p, r, sc)
					if err != nil {
						return p, err
					}
					p = n
					continue
				}
			}
			wb, we = p, min(p+winBytes, len(data))
			var counts tally
			if we+winBytes <= len(data) { // (the next window is data: fetch it ahead)
				counts = classifyAhead(data[wb:we], mk, cv, t.b.sep)
			} else {
				counts = classify(data[wb:we], mk, cv, t.b.sep)
			}
			quotes = counts.qt > 0
			bs.window()
			if quotes && qlead {
				if quotedLeadOK(mk, data[wb:we], v0, &counts) {
					sc.qlead = true
					next, err := t.bulk(end, r, mk, counts, wb, we, '"', false, sc, lead, leadVal)
					sc.qlead = false
					if err != nil {
						return p, err
					}
					if next > p {
						p = next
						continue
					}
				} else {
					qlead = false
				}
			}
			if quotes && bs.ok() {
				next, _, err := t.quotedBatch(p, end, r, sc)
				if err != nil {
					return p, err
				}
				bs.took(next - p)
				if bs.quoted = true; next > p {
					p, we = next, next // (the window goes on from there)
					continue
				}
			}
			if (quick || all) && !quotes { // (never both)
				next, err := t.bulk(end, r, mk, counts, wb, we, v0, all, sc, lead, leadVal)
				if err != nil {
					return p, err
				}
				if next > p {
					p = next
					continue
				}
			}
			if every && !quotes {
				next, err := t.bulkEvery(end, r, mk, wb, we, sc, lead, leadVal)
				if err != nil {
					return p, err
				}
				if next > p {
					p = next
					continue
				}
			}
		}
		var e, next int
		if i := nextBit(&mk.nl, p-wb, (we-wb+63)/64); i >= 0 {
			e, next = wb+i, wb+i+1
		} else if we == len(data) {
			e, next = len(data), len(data) // last line, no newline
		} else if p > wb {
			we = p // the row runs past the window: classify again from its start
			continue
		} else {
			n, err := t.oneRow(p, r, sc) // a row longer than a window
			if err != nil {
				return p, err
			}
			p = n
			continue
		}
		if quotes && countBits(&mk.qt, p-wb, e-wb) > 0 {
			n, err := t.slowRow(p, r)
			if err != nil {
				return p, err
			}
			if p = n; bs.ok() {
				we = n // the rows after it may be simple (quotedBatch)
			}
			continue
		}
		if every && t.takeRow(p, e, r, mk, wb, lead, leadVal) {
			p = next
			continue
		}
		// A filter on the first column rejects most rows by their first byte
		// right here, without the call to line.
		if quick && data[p] != '\r' && e > p {
			if !marksRow(cv, data[p]) {
				r.Rows++
				p = next
				continue
			}
			if t.b.hot && t.hit(p, e, r, mk, wb) {
				p = next
				continue
			}
		}
		if err := t.anyLine(p, e, r, mk, wb, sc); err != nil {
			return p, err
		}
		p = next
	}
	return p, nil
}

// allRows says whether bulk and hotWalk take every row of a quote-free
// window (binding.hotAll, or the fast group-by's groupHot.all), on amd64.
func (t *Table) allRows() bool {
	if g := t.b.gen; g != nil {
		return hotAsm && g.hot != nil && g.hot.all
	}
	return hotAsm && t.b.hotAll
}

// anyLine takes the quote-free line data[p:e] by the binding's general
// code: lineGen (with the scan's scratch) or line.
func (t *Table) anyLine(p, e int, r *Result, mk *marks, wb int, sc *rowScratch) error {
	if t.b.gen != nil {
		return t.lineGen(p, e, r, mk, wb, sc)
	}
	return t.line(p, e, r, mk, wb)
}

// stripCR is a line without the CR of its CR LF (or of the data's end).
func stripCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

// fieldIs reports whether the bare field that starts at data[f], in the
// quote-free row that ends at e (its '\n', or the end of data), is v (not
// empty); sep is the delimiter.
func fieldIs(data []byte, f, e int, v []byte, sep byte) bool {
	// Most rows differ in the first byte: no call to memequal for them.
	if f >= e || data[f] != v[0] {
		return false
	}
	end := e
	if end > f && data[end-1] == '\r' {
		end--
	}
	n := f + len(v)
	return n <= end && string(data[f:n]) == string(v) && (n == end || data[n] == sep)
}

// line takes the quote-free line data[p:e] (e is its '\n' or the end of
// data). mk, if not nil, holds the marks of a window starting at wb that
// covers the line.
func (t *Table) line(p, e int, r *Result, mk *marks, wb int) error {
	if t.b.gen != nil {
		var sc rowScratch
		return t.lineGen(p, e, r, mk, wb, &sc)
	}
	line := stripCR(t.data[p:e])
	if len(line) == 0 {
		return nil // a blank line is not a row
	}
	r.Rows++
	if k := t.b.filter; k >= 0 {
		f, v := line, t.b.value
		for range k {
			i := bytes.IndexByte(f, t.b.sep)
			if i < 0 {
				return t.shortRow(p+len(line), t.b.fname, k, bytes.Count(line, []byte{t.b.sep})+1)
			}
			f = f[i+1:]
		}
		// The filter is one compare of the field's first bytes, and the
		// first byte alone turns most rows away without a call to memequal.
		if !t.b.bareOK || len(f) < len(v) || (len(v) > 0 && f[0] != v[0]) ||
			string(f[:len(v)]) != string(v) || (len(f) > len(v) && f[len(v)] != t.b.sep) {
			return nil
		}
	}
	_, err := t.lineSums(p, e, line, r, mk, wb, false)
	return err
}

// lineSums adds the sums of line, the matching row data[p:e] without its
// CR, as line does. With quotes (a row of a window quotedLeadOK passed,
// whose bare fields the comma bits bound), a summed field that is quoted
// is not read: done is false, and nothing was added.
func (t *Table) lineSums(p, e int, line []byte, r *Result, mk *marks, wb int, quotes bool) (done bool, err error) {
	if t.b.sumsHot && mk != nil && addTail(t.data, p, e, r.Sums[:], mk, wb, &t.b.tp) {
		r.Matched++
		return true, nil
	}
	// Find every summed field first, then parse: a short row is reported
	// as short even if an earlier field is also bad (as slowRow does).
	var fields [MaxSums][]byte
	var offs [MaxSums]int
	if t.b.back && mk != nil && countBits(&mk.cm, p-wb, p-wb+len(line)) == t.b.ncols-1 {
		pickBack(line, &mk.cm, p-wb, t.b.ncols, t.b.sumCols[:t.b.nsum], fields[:], offs[:])
		goto parse
	}
	if t.b.nsum > 0 {
		if k, have := pick(line, t.b.sumCols[:t.b.nsum], fields[:], offs[:], t.b.sep); k < t.b.nsum {
			if quotes {
				return false, nil // (a quoted field may hold the missing delimiters' bytes: the full parser says)
			}
			bc := t.b.byCol[k]
			return true, t.shortRow(p+len(line), t.b.names[bc.slot], bc.col, have)
		}
	}
parse:
	if quotes {
		for k := range t.b.nsum {
			if len(fields[k]) > 0 && fields[k][0] == '"' {
				return false, nil
			}
		}
	}
	var v rowSums
	for k := 0; k < t.b.nsum; k++ {
		if err := t.read(&v, k, t.b.byCol[k].slot, fields[k], p+offs[k]); err != nil {
			return true, err
		}
	}
	r.Matched++
	t.addRead(r, &v, t.b.nsum)
	return true, nil
}

// rowSums are a row's summed values, read whole before any is added, so
// that a bad row (--skip-bad-rows) leaves nothing behind.
type rowSums struct {
	m       [MaxSums]int64
	s       [MaxSums]int
	missing [MaxSums]bool
	wide    [MaxSums]bool // read again by parseWide when added: rare
	f       [MaxSums][]byte
}

// read reads the value f of the k-th summed column (slot slot) at off
// into v, or says why it is no number.
func (t *Table) read(v *rowSums, k, slot int, f []byte, off int) error {
	v.f[k], v.missing[k], v.wide[k] = f, len(f) == 0, false
	if len(f) == 0 {
		return nil
	}
	var err error
	if v.m[k], v.s[k], err = ParseFixed(f); err == nil {
		return nil
	}
	if _, _, err := parseWide(f); err != nil {
		return t.errAt(off, t.b.names[slot], f, err)
	}
	v.wide[k] = true
	return nil
}

// addRead adds v's n values, each into its slot's sum (or Skipped).
func (t *Table) addRead(r *Result, v *rowSums, n int) {
	for k := range n {
		slot := t.b.byCol[k].slot
		switch {
		case v.missing[k]:
			r.Skipped[slot]++
		case v.wide[k]:
			w, s, _ := parseWide(v.f[k])
			r.Sums[slot].AddWide(w, s)
		default:
			r.Sums[slot].Add(v.m[k], v.s[k])
		}
	}
}

func (t *Table) shortRow(off int, name string, col, have int) error {
	return t.errAt(off, name, nil, fmt.Errorf("%w (it is field %d; the row has %d)", ErrShortRow, col+1, have))
}

// span is a field's content: data[s:e], inside the quotes if quoted (quoted
// content may hold doubled quotes).
type span struct {
	s, e   int
	quoted bool
}

// slowRow parses the record at p with the full RFC 4180 parser and adds it to
// r. It returns where the next record starts.
func (t *Table) slowRow(p int, r *Result) (int, error) {
	if t.b.gen != nil {
		return t.slowGen(p, r)
	}
	b := &t.b
	var spans [MaxSums]span
	got, fi, i, end, fsp, err := t.record(p, b.sumCols[:b.nsum], spans[:], b.filter)
	if err != nil {
		return 0, err
	}
	matched := b.filter < 0 || (fi > b.filter && equalField(t.data[fsp.s:fsp.e], fsp.quoted, b.value))
	r.Rows++
	t.countQuoted(r, p, i, end)
	if fi <= b.filter {
		return i, t.shortRow(end, b.fname, b.filter, fi)
	}
	if !matched {
		return i, nil
	}
	if got < b.nsum {
		return i, t.shortRow(end, b.names[b.byCol[got].slot], b.byCol[got].col, fi)
	}
	var v rowSums
	for k := 0; k < b.nsum; k++ {
		sp := spans[k]
		if err := t.read(&v, k, b.byCol[k].slot, t.data[sp.s:sp.e], sp.s); err != nil {
			return i, err
		}
	}
	r.Matched++
	t.addRead(r, &v, b.nsum)
	return i, nil
}

// record reads the record at p with the full parser: spans[k] is the field
// of column cols[k] (cols ascending; got of them found), and extra's field
// (a column, -1 for none) is fsp. It returns how many fields the record has,
// where the next record starts, and where this one ends (its '\n' or the
// end of the data).
func (t *Table) record(p int, cols []int, spans []span, extra int) (got, fields, next, end int, fsp span, err error) {
	i := p
	for {
		f, n, last, ferr := readField(t.data, i, t.b.sep, t.cut)
		if ferr != nil {
			return 0, 0, 0, 0, fsp, t.errAt(n, "", nil, ferr)
		}
		if fields == extra {
			fsp = f
		}
		for got < len(cols) && cols[got] == fields {
			spans[got] = f
			got++
		}
		fields++
		i = n
		if last {
			break
		}
	}
	end = i
	if end > p && t.data[end-1] == '\n' {
		end--
	}
	return got, fields, i, end, fsp, nil
}

// readField reads the field that starts at data[i], sep its delimiter. It
// returns the field, where the next field or record starts, and whether
// this field ends its record. On error, next is the offset of the fault.
// With sep a tab, a field that starts with a quote is quoted only if it
// closes as one (tabQuoted), and a quote in a bare field is a byte of it,
// as Transcode reads a TSV; open says that the input may go on past data
// (a cut View), where such a field that data does not show to close or
// not is ErrOpenQuote, for the caller to read on.
func readField(data []byte, i int, sep byte, open bool) (f span, next int, last bool, err error) {
	n := len(data)
	if i < n && data[i] == '"' && sep == '\t' {
		q, known := tabQuoted(data[i+1:], open)
		if !known {
			return f, i, false, ErrOpenQuote
		}
		if !q {
			goto bare
		}
	}
	if i < n && data[i] == '"' {
		j := i + 1
		for {
			k := bytes.IndexByte(data[j:], '"')
			if k < 0 {
				return f, i, false, ErrOpenQuote
			}
			j += k
			if j+1 < n && data[j+1] == '"' {
				j += 2
				continue
			}
			break
		}
		f = span{i + 1, j, true}
		j++ // past the closing quote
		switch {
		case j == n:
			return f, n, true, nil
		case data[j] == sep:
			return f, j + 1, false, nil
		case data[j] == '\n':
			return f, j + 1, true, nil
		case data[j] == '\r' && j+1 == n:
			return f, n, true, nil
		case data[j] == '\r' && data[j+1] == '\n':
			return f, j + 2, true, nil
		}
		return f, j, false, ErrQuote
	}
bare:
	j := i
	for j < n && data[j] != sep && data[j] != '\n' && (data[j] != '"' || sep == '\t') {
		j++
	}
	switch {
	case j == n:
		e := j
		if e > i && data[e-1] == '\r' {
			e--
		}
		return span{i, e, false}, n, true, nil
	case data[j] == sep:
		return span{i, j, false}, j + 1, false, nil
	case data[j] == '"':
		return f, j, false, ErrBareQuote
	}
	e := j // data[j] == '\n'
	if e > i && data[e-1] == '\r' {
		e--
	}
	return span{i, e, false}, j + 1, true, nil
}

// tabQuoted reports whether a tab file's field whose opening quote comes
// just before rest is a quoted one: closesAsQuoted, looking no further than
// MaxRowBytes (a field still open there is bare, as Transcode has it).
// known is false only if open (the input may go on past rest) and rest
// does not tell.
func tabQuoted(rest []byte, open bool) (quoted, known bool) {
	if len(rest) > MaxRowBytes {
		rest, open = rest[:MaxRowBytes], false
	}
	k := 0
	return closesAsQuoted(rest, &k, !open)
}

// equalField reports whether a field's content, unescaped, equals want,
// without allocating.
func equalField(c []byte, quoted bool, want []byte) bool {
	if !quoted || bytes.IndexByte(c, '"') < 0 {
		return string(c) == string(want)
	}
	j := 0
	for i := 0; i < len(c); i++ {
		if j >= len(want) || c[i] != want[j] {
			return false
		}
		if c[i] == '"' {
			i++ // quoted content holds quotes doubled
		}
		j++
	}
	return j == len(want)
}

func unquote(c []byte, quoted bool) string {
	if quoted {
		return string(appendUnquoted(nil, c))
	}
	return string(c)
}

// RowStart returns the first line start at or after off within the body: off
// itself if a line starts there, else the byte after the next newline (or the
// end of the data). It is a row start for sure only if no row before it holds
// a quote, since a quoted field may hold a newline; see Result.Quoted.
func (t *Table) RowStart(off int) int {
	switch {
	case off <= t.body:
		return t.body
	case off >= len(t.data):
		return len(t.data)
	case t.data[off-1] == '\n':
		return off
	}
	if i := bytes.IndexByte(t.data[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(t.data)
}
