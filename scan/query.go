package scan

import (
	"encoding/binary"
	"fmt"
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

// aliases are the reference project's short filter names.
var aliases = map[string]string{
	"region":  "region",
	"country": "country",
	"item":    "itemtype",
	"channel": "saleschannel",
}

// normName folds a column name for lookup: case, spaces, '_' and '-' are
// ignored, so "Item Type", "item_type" and "ITEMTYPE" are one name.
func normName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r == ' ' || r == '_' || r == '-' {
			continue
		}
		b.WriteRune(r)
	}
	n := b.String()
	if a, ok := aliases[n]; ok {
		return a
	}
	return n
}

// ParseWhere splits "COLUMN=VALUE" at its first '='.
func ParseWhere(s string) (col, val string, err error) {
	col, val, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(col) == "" {
		return "", "", fmt.Errorf("--where wants COLUMN=VALUE, got %q", s)
	}
	return strings.TrimSpace(col), val, nil
}

// Validate checks what can be checked without a header.
func (q *Query) Validate() error {
	if len(q.Sum) > MaxSums {
		return fmt.Errorf("at most %d columns can be summed, got %d", MaxSums, len(q.Sum))
	}
	for _, s := range q.Sum {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("empty column name in the sum list")
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
	find := func(name string) (int, error) {
		want, at := normName(name), -1
		for i, h := range header {
			if normName(h) == want {
				if at >= 0 {
					return 0, fmt.Errorf("%w: %q (fields %d and %d)", ErrDupColumn, name, at+1, i+1)
				}
				at = i
			}
		}
		if at < 0 {
			return 0, fmt.Errorf("%w: %q (the header has %s)", ErrColumn, name, strings.Join(header, ", "))
		}
		return at, nil
	}
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
