package stage

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"parlab/scan"
)

// flatLine converts t, a line's bytes (trimmed, not blank), where it is a
// flat JSON object, the shape of most JSON lines files: keys without a
// backslash, each value a string without a backslash, a number as JSON
// writes it (or as fastjson reads one), true, false or null, with spaces or tabs between the tokens.
// It fills c.fields and c.vals as convert does from fastjson's parse, and
// reports whether it did; any other line (a nested value, an escape, a
// number JSON does not write, anything malformed) it leaves to fastjson,
// which gives its fields or its error. Every line it takes fastjson takes
// too, with the same fields (FuzzFlatLine): it reads a subset of what
// fastjson reads, about three times as fast, since it builds no values and
// looks at a value only to find its end.
func (c *jsonConv) flatLine(t []byte) bool {
	c.reset()
	if len(t) < 2 || t[0] != '{' {
		return false
	}
	s := skipBlanks(t[1:])
	if len(s) > 0 && s[0] == '}' {
		return len(s) == 1
	}
	for i := 0; ; i++ {
		if len(s) == 0 || s[0] != '"' {
			return false
		}
		var k int // the key's column
		if i < len(c.at) && c.at[i].is(s) {
			k, s = c.at[i].col, skipBlanks(s[len(c.at[i].lit):]) // the key the line before had here
		} else {
			n := quoted(s[1:])
			if n < 0 {
				return false
			}
			k, s = c.colAt(i, s[1:1+n]), skipBlanks(s[n+2:])
		}
		if len(s) == 0 || s[0] != ':' {
			return false
		}
		s = skipBlanks(s[1:])
		if len(s) == 0 {
			return false
		}
		var v []byte
		str, null := false, false
		switch ch := s[0]; {
		case ch == '"':
			n := quoted(s[1:])
			if n < 0 {
				return false
			}
			v, s, str = s[1:1+n], s[n+2:], true
		case ch == 't' || ch == 'f' || ch == 'n':
			for _, lit := range [...]string{"true", "false", "null"} {
				if lit[0] == ch && len(s) >= len(lit) && string(s[:len(lit)]) == lit {
					v, s = s[:len(lit)], s[len(lit):]
				}
			}
			if v == nil {
				return false
			}
			null = ch == 'n'
		case numberByte[ch]:
			n := numberLen(s)
			if n == 0 {
				return false
			}
			v, s = s[:n], s[n:]
		default:
			return false
		}
		if k >= 0 && c.fields[k] == nil { // (put's work, written out: a call a field cost 3% of BenchmarkFlatLine)
			from := len(c.vals)
			switch {
			case null:
			case str:
				if !c.isNull(v) {
					c.vals = scan.AppendCSVField(c.vals, v)
				}
			default: // a number or a literal: no byte CSV quotes
				c.vals = append(c.vals, v...)
			}
			c.fields[k] = c.vals[from:len(c.vals):len(c.vals)]
		}
		s = skipBlanks(s)
		if len(s) == 0 {
			return false
		}
		switch s[0] {
		case ',':
			s = skipBlanks(s[1:])
		case '}':
			return len(s) == 1
		default:
			return false
		}
	}
}

// quoted is the length of the string at s's start (past its opening
// quote) up to its closing quote, or -1 where it holds a backslash or has
// no end. Eight bytes at a time (SWAR: a byte of the word that is '"' or
// '\\' made a zero, the first zero found by its borrow): JSON lines'
// strings are short, where a call to IndexByte for each of the two bytes,
// or a byte loop, cost more (docs/experiments.md, 2026-12-07).
func quoted(s []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		q, b := w^('"'*ones), w^('\\'*ones)
		if m := ((q-ones)&^q | (b-ones)&^b) & highs; m != 0 {
			i += bits.TrailingZeros64(m) / 8
			if s[i] == '"' {
				return i
			}
			return -1
		}
	}
	for ; i < len(s); i++ {
		switch s[i] {
		case '"':
			return i
		case '\\':
			return -1
		}
	}
	return -1
}

// colAt is the column of the key at position i of a line's object (-1:
// none), through c.at: lines mostly write their keys in one order, so it is
// a compare, not a lookup.
func (c *jsonConv) colAt(i int, key []byte) int {
	if i == len(c.at) {
		c.at = append(c.at, keyAt{col: -1})
	}
	a := &c.at[i]
	if a.key != string(key) {
		a.key, a.col = string(key), -1
		a.lit, a.w = "", [2]uint64{}
		if bytes.IndexByte(key, '"') < 0 && bytes.IndexByte(key, '\\') < 0 {
			a.lit = `"` + a.key + `"`
			if len(a.lit) <= 16 {
				var b [16]byte
				copy(b[:], a.lit)
				a.w = [2]uint64{binary.LittleEndian.Uint64(b[:]), binary.LittleEndian.Uint64(b[8:])}
				a.m = [2]uint64{lowBytes(len(a.lit)), lowBytes(len(a.lit) - 8)}
			}
		}
		if k, ok := c.top[a.key]; ok {
			a.col = k
		}
	}
	return a.col
}

// keyAt is the key last seen at a position of a line's object, and its
// column (-1: none). lit is the key in quotes where it holds no '"' or
// '\\' (fastjson unescapes a key; else ""), so a line whose bytes there
// are lit has that key.
type keyAt struct {
	key, lit string
	col      int
	w, m     [2]uint64 // a lit of at most 16 bytes as two words, and the masks of its bytes in them
}

// is reports whether s starts with a.lit: two word compares where lit is
// short and s holds 16 bytes, which a call to compare the bytes cost
// several times over (a line's every key goes through here).
func (a *keyAt) is(s []byte) bool {
	if a.lit == "" {
		return false
	}
	if a.m[0] != 0 && len(s) >= 16 {
		return binary.LittleEndian.Uint64(s)&a.m[0] == a.w[0] && binary.LittleEndian.Uint64(s[8:])&a.m[1] == a.w[1]
	}
	return len(s) >= len(a.lit) && string(s[:len(a.lit)]) == a.lit
}

// lowBytes is a word's mask of its n low bytes (n clamped to 0..8).
func lowBytes(n int) uint64 {
	switch {
	case n <= 0:
		return 0
	case n >= 8:
		return ^uint64(0)
	}
	return 1<<(8*n) - 1
}

// isNull reports whether a string value is one --null names missing.
func (c *jsonConv) isNull(v []byte) bool {
	for _, n := range c.nulls {
		if string(v) == n {
			return true
		}
	}
	return false
}

// skipBlanks is s past the spaces and tabs at its start (a line's bytes
// hold no line end).
func skipBlanks(s []byte) []byte {
	if len(s) == 0 || s[0] > ' ' { // (nearly always: one compare, inlined)
		return s
	}
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

// numberLen is the length of the number at s's start as fastjson reads
// it: the bytes up to the first that is not a digit, '.', '-', '+', 'e' or
// 'E' (so 1.2.3 is a number's text, as fastjson gives it); 0 where there
// are none, or only a sign, which fastjson may read as -inf (left to it).
func numberLen(s []byte) int {
	i := 0
	for i < len(s) && numberByte[s[i]] {
		i++
	}
	if i == 1 && (s[0] == '-' || s[0] == '+') {
		return 0
	}
	return i
}

// numberByte marks the bytes fastjson's number reads.
var numberByte = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true,
	'8': true, '9': true, '.': true, '-': true, '+': true, 'e': true, 'E': true}
