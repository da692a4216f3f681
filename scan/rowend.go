package scan

import "bytes"

// RowEnd is the end of the last whole record in b, bytes of an input in
// the dialect of delimiter sep that start at a record's start: the index
// after the last newline outside every quoted field, or -1 if there is
// none (a stream's reader cuts its blocks there).
//
// With ',', ';' or '|', a newline is outside if an even number of quotes
// comes before it: in RFC 4180 every quote opens a field, closes one, or
// is half of a doubled quote inside one, and the scanner refuses a quote
// anywhere else (ErrBareQuote), so on input it accepts the count cannot
// mislead, and on input it refuses the refusal comes first. A tab file's
// bare quotes are bytes (see NewTableSep), so there its records are read
// one by one from b's start, a quote-free line at a time where it can.
func RowEnd(b []byte, sep byte) int {
	k := bytes.LastIndexByte(b, '\n')
	if k < 0 {
		return -1
	}
	if bytes.IndexByte(b, '"') < 0 {
		return k + 1
	}
	if sep == '\t' {
		return tabRowEnd(b)
	}
	quotes := bytes.Count(b[:k], []byte{'"'})
	for quotes%2 != 0 {
		j := bytes.LastIndexByte(b[:k], '\n')
		if j < 0 {
			return -1
		}
		quotes -= bytes.Count(b[j:k], []byte{'"'})
		k = j
	}
	return k + 1
}

// tabRowEnd is RowEnd of a tab file's bytes.
func tabRowEnd(b []byte) int {
	end, p := -1, 0
	for p < len(b) {
		nl := bytes.IndexByte(b[p:], '\n')
		if nl < 0 {
			break
		}
		if bytes.IndexByte(b[p:p+nl], '"') < 0 { // a whole record
			p += nl + 1
			end = p
			continue
		}
		i := p
		for {
			_, n, last, err := readField(b, i, '\t', true)
			if err != nil {
				return end // (ErrOpenQuote: it may close past b)
			}
			if i = n; last {
				break
			}
		}
		if b[i-1] != '\n' {
			return end // it ends where b does: perhaps not there
		}
		p, end = i, i
	}
	return end
}
