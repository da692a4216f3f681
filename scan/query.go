package scan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Query is one filter-and-sum question: count the rows whose column Where
// equals Equals (byte for byte) and sum the columns Sum over them. An empty
// Where matches every row.
type Query struct {
	Where  string
	Equals string
	Sum    []string
}

// DefaultSums is what a query sums when it names no columns.
var DefaultSums = []string{"Total Revenue", "Total Profit"}

// aliases are the reference project's short filter names, in loose form
// (see looseName), and the header names they stand for. They apply to the
// names a query gives, never to the names in a header.
var aliases = map[string]string{
	"item":    "itemtype",
	"channel": "saleschannel",
}

// looseName folds a column name for the loose match: case, spaces, '_' and
// '-' are ignored, so "Item Type", "item_type" and "ITEMTYPE" are one name.
func looseName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r == ' ' || r == '_' || r == '-' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// resolve finds the header field a query's column name stands for, trying
// in turn, and taking the first rule that matches anything:
//  1. the name exactly, byte for byte;
//  2. the loose match (looseName of both sides equal);
//  3. an alias: "item" for Item Type, "channel" for Sales Channel, matched
//     loosely.
//
// A rule that matches two fields is an error (ErrDupColumn), and so is a
// name no rule matches (ErrColumn).
func resolve(name string, header []string) (int, error) {
	loose := looseName(name)
	rules := []func(h string) bool{
		func(h string) bool { return h == name },
		func(h string) bool { return looseName(h) == loose },
	}
	if a, ok := aliases[loose]; ok {
		rules = append(rules, func(h string) bool { return looseName(h) == a })
	}
	for _, match := range rules {
		at := -1
		for i, h := range header {
			if !match(h) {
				continue
			}
			if at >= 0 {
				return 0, fmt.Errorf("%w: %s matches fields %d (%s) and %d (%s)", ErrDupColumn,
					clipQuote(name), at+1, clipQuote(header[at]), i+1, clipQuote(h))
			}
			at = i
		}
		if at >= 0 {
			return at, nil
		}
	}
	return 0, fmt.Errorf("%w: %s (the header has %s)", ErrColumn, clipQuote(name), quoteList(header))
}

// maxQuote is the most bytes an error message quotes of a name or value.
const maxQuote = 200

// clipQuote quotes s for an error message (so invisible bytes, a BOM for one,
// show as escapes), cut to maxQuote bytes with "…" after.
func clipQuote(s string) string {
	if len(s) > maxQuote {
		return strconv.Quote(s[:maxQuote]) + "…"
	}
	return strconv.Quote(s)
}

// quoteList quotes a header's names for an error message, as many as fit in
// about maxQuote bytes, then "… (N more)".
func quoteList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 && b.Len()+len(n) > maxQuote {
			fmt.Fprintf(&b, ", … (%d more)", len(names)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(clipQuote(n))
	}
	return b.String()
}

// ParseWhere splits "COLUMN=VALUE" at its first '='.
func ParseWhere(s string) (col, val string, err error) {
	col, val, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(col) == "" {
		return "", "", fmt.Errorf("a filter is COLUMN=VALUE, got %s", clipQuote(s))
	}
	return strings.TrimSpace(col), val, nil
}

// ErrDupSum is a query that sums one column twice.
var ErrDupSum = errors.New("column is summed twice")

// Validate checks what can be checked without a header: Sum is nil (the
// default sums) or one to MaxSums names, none empty, none given twice.
func (q *Query) Validate() error {
	if q.Sum != nil && len(q.Sum) == 0 {
		return fmt.Errorf("the sum list names no column")
	}
	if len(q.Sum) > MaxSums {
		return fmt.Errorf("at most %d columns can be summed, got %d", MaxSums, len(q.Sum))
	}
	for i, s := range q.Sum {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("empty column name in the sum list")
		}
		for _, t := range q.Sum[:i] {
			if t == s {
				return fmt.Errorf("%w: %s", ErrDupSum, clipQuote(s))
			}
		}
	}
	return nil
}

// binding is a Query tied to one file's header: column indexes, not names.
type binding struct {
	filter int // column index of the filter, -1 for none
	value  []byte
	// bareOK: value can equal a bare field. A value holding ',', '"' or LF
	// can only equal a quoted one, and the fast path sees bare fields only.
	bareOK bool
	nsum   int
	// byCol lists the summed columns in ascending column order, so one walk
	// along a matching row finds them all; slot is where each one's sum goes.
	byCol [MaxSums]struct{ col, slot int }
	names []string // header name per slot, for errors
	ncols int      // fields in the header
	// back: the summed columns lie in the header's back half, so a row with
	// exactly ncols fields is quicker to walk from its end (see pickBack).
	back  bool
	fname string // header name of the filter column
	// hot: Table.hit may take rows (see there): the filter is on the first
	// column and its value plus a comma fits a word, vword under vmask;
	// every summed column lies in the last need fields.
	hot          bool
	vword, vmask uint64
	need         int
	// hotSums lists byCol for hotWalk: each summed column's slot, and
	// from, the count of commas from the row's end to the one before it.
	hotSums [MaxSums]struct{ from, slot uint8 }
}

func bind(q *Query, header []string) (binding, error) {
	var b binding
	find := func(name string) (int, error) { return resolve(name, header) }
	b.filter = -1
	if q.Where != "" {
		i, err := find(q.Where)
		if err != nil {
			return b, err
		}
		b.filter, b.value, b.fname = i, []byte(q.Equals), header[i]
		b.bareOK = !strings.ContainsAny(q.Equals, ",\"\n")
	}
	if err := q.Validate(); err != nil {
		return b, err
	}
	sums := q.Sum
	if sums == nil {
		sums = DefaultSums
	}
	b.nsum = len(sums)
	for slot, name := range sums {
		i, err := find(name)
		if err != nil {
			return b, err
		}
		for _, c := range b.byCol[:slot] {
			if c.col == i {
				return b, fmt.Errorf("%w: %s and %s are both field %d (%s)", ErrDupSum,
					clipQuote(sums[c.slot]), clipQuote(name), i+1, clipQuote(header[i]))
			}
		}
		b.names = append(b.names, header[i])
		// insertion into the sorted list
		j := slot
		for j > 0 && b.byCol[j-1].col > i {
			b.byCol[j] = b.byCol[j-1]
			j--
		}
		b.byCol[j] = struct{ col, slot int }{i, slot}
	}
	b.ncols = len(header)
	b.back = b.nsum > 0 && b.byCol[0].col >= len(header)/2
	b.need = b.ncols - b.byCol[0].col
	if n := len(b.value); b.filter == 0 && b.bareOK && n > 0 && n < 8 && b.value[0] != '\r' &&
		b.nsum > 0 && b.byCol[0].col > 0 && b.need <= maxNeed {
		b.hot = true
		var w [8]byte
		copy(w[:], b.value)
		w[n] = ','
		b.vword = binary.LittleEndian.Uint64(w[:])
		b.vmask = ^uint64(0) >> (64 - 8*(n+1))
		for k := range b.nsum {
			b.hotSums[k].from = uint8(b.ncols - b.byCol[k].col)
			b.hotSums[k].slot = uint8(b.byCol[k].slot)
		}
	}
	return b, nil
}
