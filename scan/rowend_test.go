package scan

import (
	"slices"
	"testing"
)

// FuzzRowEnd checks RowEnd on every prefix of an input that the reference
// reads whole, in each delimiter: it is a record boundary the reference
// finds (or -1), within the prefix; with ',', ';' and '|' the last one
// there, the whole input's end once the prefix is all of it; with a tab
// perhaps an earlier one (a field that starts with a quote and does not
// close within the prefix may be quoted or bare: its stream reads on).
func FuzzRowEnd(f *testing.F) {
	f.Add([]byte("a,b\n\"c\nd\",e\n\"x\"\"y\",z\n"))
	f.Add([]byte("27\" tv\t1\n\"AGENT\" K\t2\n\"a\tb\nc\"\t3\n\"open\t4\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 512 {
			in = in[:512]
		}
		for _, sep := range []byte(",\t;|") {
			b := swapSep(in, sep)
			if len(b) == 0 || b[len(b)-1] != '\n' {
				b = append(b, '\n')
			}
			r := &refReader{data: b, comma: sep}
			var ends []int // where records and blank lines end
			for {
				for p := r.pos; ; { // the blank lines Read skips
					if p < len(b) && b[p] == '\n' {
						p++
					} else if p+1 < len(b) && b[p] == '\r' && b[p+1] == '\n' {
						p += 2
					} else {
						break
					}
					ends = append(ends, p)
				}
				if _, err := r.Read(); err != nil {
					break
				}
				if r.pos > 0 && b[r.pos-1] == '\n' {
					ends = append(ends, r.pos)
				}
			}
			if r.pos < len(b) {
				continue // not read whole: an error the scan reports
			}
			for c := 0; c <= len(b); c++ {
				got := RowEnd(b[:c], sep)
				last := -1
				for _, e := range ends {
					if e <= c {
						last = e
					}
				}
				switch {
				case got > c || got != -1 && !slices.Contains(ends, got):
					t.Fatalf("sep %q, %q[:%d]: %d is not a record's end (%v)", sep, b, c, got, ends)
				case sep != '\t' && got != last:
					t.Fatalf("sep %q, %q[:%d]: %d, want %d", sep, b, c, got, last)
				case sep == '\t' && got > last:
					t.Fatalf("sep %q, %q[:%d]: %d, past %d", sep, b, c, got, last)
				}
			}
			if got := RowEnd(b, sep); sep != '\t' && len(ends) > 0 && got != ends[len(ends)-1] {
				t.Fatalf("sep %q, %q whole: %d, want %d", sep, b, got, ends[len(ends)-1])
			}
		}
	})
}
