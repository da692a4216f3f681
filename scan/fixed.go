package scan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
)

// MaxScale is the most digits a number may have after its decimal point
// (once its exponent is applied): as many as it may have at all, so that a
// value of MaxDigits digits may lie anywhere around its point, as in a
// DECIMAL(38, s) of any s. A sum keeps the largest scale of its values.
const MaxScale = 38

// maxPow is the largest k with 10^k in an int64: pow10's last.
const maxPow = 18

// MaxDigits is the most significant digits a number may have (DuckDB's
// DECIMAL(38)). A value of up to 18 digits is an int64 mantissa
// (ParseFixed); a longer one is a wide (parseWide), which only the general
// paths meet.
const MaxDigits = 38

// Errors a number can cause. They are wrapped in a *ParseError that says where.
var (
	ErrSyntax   = errors.New("not a decimal number")
	ErrOverflow = errors.New("number out of range (a value may have at most 38 significant digits, and at most 38 digits after the point)")
)

var pow10 = [maxPow + 1]int64{
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
	10000000000, 100000000000, 1000000000000, 10000000000000, 100000000000000,
	1000000000000000, 10000000000000000, 100000000000000000, 1000000000000000000,
}

// Fixed is an exact decimal sum: (C + V) / 10^Scale. The zero value is 0.
//
// A sum keeps the largest scale of the values added to it, so adding 7, 3.5
// and 0.25 gives 1075 at scale 2 ("10.75"). V is the part that the hot paths
// add to (hot_amd64.s and Table.hit, with an overflow check); what leaves
// the int64 range moves to C, which cannot overflow (see wide). So no sum
// fails, and every order of the same values gives an Equal sum. The layout
// is fixed and pointer-free: hot_amd64.s knows its size (TestHotStateLayout).
type Fixed struct {
	V     int64
	Scale int64
	C     wide
}

// ParseFixed parses a number of the grammar in the package comment and returns
// its mantissa and scale: "-12.50" gives (-1250, 2). A number whose
// mantissa does not fit an int64 is ErrOverflow here, after its syntax was
// checked; parseWide reads it. It is the parser every
// path ends in: Table.hit calls its cents path (parseCents) directly, and
// hotWalk (hot_amd64.s) checks and converts cents its own way, declining what
// parseCents would; the tests run every input through each and compare them
// with the reference (TestHotPath, FuzzScan, FuzzParseFixed).
func ParseFixed(b []byte) (mant int64, scale int, err error) {
	if v, s, ok := parseQuick(b); ok {
		return v, s, nil
	}
	if len(b) > 0 && (blank(b[0]) || blank(b[len(b)-1])) {
		if b = trimBlanks(b); len(b) == 0 {
			return 0, 0, ErrSyntax
		}
	}
	return parseTrimmed(b)
}

// parseTrimmed is ParseFixed of b without blanks around it: a blank left
// is a stray byte.
func parseTrimmed(b []byte) (mant int64, scale int, err error) {
	if k := bytes.IndexAny(b, "eE"); k >= 0 {
		return parseExp(b, k)
	}
	i := 0
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	if len(b)-i > 18 {
		return parseLong(b, i, neg)
	}
	// At most 18 digits cannot overflow: no checks.
	v, j := digits(b, i, 0)
	nd := j - i
	if j < len(b) && b[j] == '.' {
		k := j + 1
		v, j = digits(b, k, v)
		scale, nd = j-k, nd+j-k
	}
	if j != len(b) || nd == 0 {
		return 0, 0, ErrSyntax // a stray byte, or no digit at all
	}
	if neg {
		return -int64(v), scale, nil
	}
	return int64(v), scale, nil
}

// blank reports whether c is a space or a tab, which may stand around a
// number (a hand-written "a, 12").
func blank(c byte) bool { return c == ' ' || c == '\t' }

// trimBlanks is b without the spaces and tabs around it.
func trimBlanks(b []byte) []byte {
	for len(b) > 0 && blank(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && blank(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// parseExp is ParseFixed of a number with an exponent at b[k] (1e5,
// 1.5E-3): the mantissa b[:k] as any number, then 1 to 3 exponent digits
// with an optional sign. The value is exact: 1.5E-3 is 15 at scale 4, 1e5
// is 100000 at scale 0; a scale past MaxScale, or a mantissa that leaves
// the int64 range once the exponent is applied, is ErrOverflow.
func parseExp(b []byte, k int) (int64, int, error) {
	e := b[k+1:]
	neg := len(e) > 0 && (e[0] == '-' || e[0] == '+')
	if neg {
		neg, e = e[0] == '-', e[1:]
	}
	if len(e) == 0 || len(e) > 3 {
		return 0, 0, ErrSyntax
	}
	x := 0
	for _, c := range e {
		if c-'0' > 9 {
			return 0, 0, ErrSyntax
		}
		x = x*10 + int(c-'0')
	}
	if neg {
		x = -x
	}
	m, s, err := parseTrimmed(b[:k]) // (after the exponent's syntax; b[:k] has no e; "1 e5" is no number)
	if err != nil {
		return 0, 0, err
	}
	s -= x
	for ; s < 0; s++ { // a positive exponent past the point's digits
		if m > math.MaxInt64/10 || m < math.MinInt64/10 {
			return 0, 0, ErrOverflow
		}
		m *= 10
	}
	if s > MaxScale {
		return 0, 0, ErrOverflow
	}
	return m, s, nil
}

// parseQuick is ParseFixed's fast path: money in cents (parseCents), else a
// number with at most 8 digits before and after its point and 16 bytes of
// capacity past its sign (true of every field but those at the very end of a
// file). It reports false for anything else, and ParseFixed's loops decide.
func parseQuick(b []byte) (int64, int, bool) {
	if v, ok := parseCents(b); ok {
		return v, 2, true
	}
	i := 0
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		i = 1
	}
	if cap(b)-i < 16 || len(b)-i > 17 {
		return 0, 0, false
	}
	v, s, ok := parseSWAR(b, i)
	if i == 1 && b[0] == '-' {
		v = -v
	}
	return v, s, ok
}

// parseCents is parseQuick for money as the Sales set writes it: 1 to 8
// digits, a point, 2 digits, with 8 bytes of capacity. The point's place is
// known from the length, so the digits are converted while they are checked,
// not after a search for the point. It returns the value in cents. Table.hit calls it directly; the profile-guided
// build (cmd/parlab/default.pgo) inlines it there.
func parseCents(b []byte) (int64, bool) {
	n := len(b) - 3 // digits before the point
	if n < 1 || n > 8 || cap(b) < 8 {
		return 0, false
	}
	w := binary.LittleEndian.Uint64(b[:8])
	c1, c2 := b[n+1]-'0', b[n+2]-'0'
	if b[n] != '.' || c1 > 9 || c2 > 9 || firstNonDigit(w) < n {
		return 0, false
	}
	return int64(eightDigits(w, n)*100 + uint64(c1)*10 + uint64(c2)), true
}

// parseSWAR parses b[i:] as digits, an optional point, digits, at most 8
// of each, reading 8 bytes at a time (so it needs 16 bytes of capacity past
// i). It reports false for anything else, and ParseFixed's loop decides.
func parseSWAR(b []byte, i int) (int64, int, bool) {
	full := b[:cap(b)]
	w := binary.LittleEndian.Uint64(full[i:])
	n := min(firstNonDigit(w), len(b)-i)
	v := eightDigits(w, n)
	j := i + n
	if j == len(b) {
		return int64(v), 0, n > 0 && n < 8
	}
	if b[j] != '.' || n == 8 {
		return 0, 0, false
	}
	if m := len(b) - j - 1; m <= 2 { // cents and the like: plain arithmetic
		for _, c := range b[j+1:] {
			if c-'0' > 9 {
				return 0, 0, false
			}
			v = v*10 + uint64(c-'0')
		}
		return int64(v), m, n+m > 0
	}
	w = binary.LittleEndian.Uint64(full[j+1:])
	m := min(firstNonDigit(w), len(b)-j-1)
	if j+1+m != len(b) || m == 8 {
		return 0, 0, false
	}
	return int64(v*uint64(pow10[m]) + eightDigits(w, m)), m, true
}

// firstNonDigit is the index of the first byte of w (little-endian) that is
// not an ASCII digit, 8 if all are.
func firstNonDigit(w uint64) int {
	// A byte is a digit iff its high nibble is 3 and adding 6 keeps it so.
	bad := (w&0xF0F0F0F0F0F0F0F0 ^ 0x3030303030303030) |
		((w+0x0606060606060606)&0xF0F0F0F0F0F0F0F0 ^ 0x3030303030303030)
	return bits.TrailingZeros64(bad) >> 3
}

// eightDigits is the value of the first n (0..8) bytes of w, all digits
// (simdjson's parse_eight_digits_unrolled, after shifting the n digits to the
// top so that the bytes below read as leading zeros).
func eightDigits(w uint64, n int) uint64 {
	w <<= 8 * uint(8-n) // n == 0 shifts everything out: 0
	w = (w & 0x0F0F0F0F0F0F0F0F) * 2561 >> 8
	w = (w & 0x00FF00FF00FF00FF) * 6553601 >> 16
	return (w & 0x0000FFFF0000FFFF) * 42949672960001 >> 32
}

// digits appends the digits of b from j to v, two at a time, and returns
// where they stop. The caller makes sure that v cannot overflow.
func digits(b []byte, j int, v uint64) (uint64, int) {
	for j+1 < len(b) {
		c0, c1 := b[j]-'0', b[j+1]-'0'
		if c0 > 9 || c1 > 9 {
			break
		}
		v = v*100 + uint64(c0)*10 + uint64(c1)
		j += 2
	}
	if j < len(b) && b[j]-'0' <= 9 {
		v = v*10 + uint64(b[j]-'0')
		j++
	}
	return v, j
}

// parseLong is ParseFixed for inputs of 19 bytes or more, where overflow is
// possible.
func parseLong(b []byte, i int, neg bool) (mant int64, scale int, err error) {
	var v uint64
	digits, sig := 0, 0 // digits seen; significant digits accumulated
	dot, over := -1, false
	for ; i < len(b); i++ {
		c := b[i]
		if c == '.' {
			if dot >= 0 {
				return 0, 0, ErrSyntax
			}
			dot = i
			continue
		}
		d := uint64(c - '0')
		if d > 9 {
			return 0, 0, ErrSyntax
		}
		digits++
		if (v == 0 && d == 0) || over {
			continue // leading zeros cost no precision; after overflow, only syntax matters
		}
		// Up to 18 significant digits fit with no check (10^18 < 2^63); the
		// check past that costs one compare per digit on long inputs only.
		if sig >= 18 && v > (math.MaxInt64-d)/10 {
			over = true // a syntax error later in the field takes precedence
			continue
		}
		v = v*10 + d
		sig++
	}
	if digits == 0 {
		return 0, 0, ErrSyntax
	}
	if dot >= 0 {
		scale = len(b) - dot - 1
	}
	if over || scale > MaxScale {
		return 0, 0, ErrOverflow
	}
	if neg {
		return -int64(v), scale, nil
	}
	return int64(v), scale, nil
}

// Add adds mant·10^-scale (scale at most MaxScale, as ParseFixed gives) to
// f exactly. It cannot fail: a sum that leaves the int64 range moves into
// the carried part (see wide), so the total, and whether it fits, never
// depends on the order of the values. The common case (same scale, no
// overflow) is small enough to inline.
func (f *Fixed) Add(mant int64, scale int) {
	if int64(scale) == f.Scale {
		sum := f.V + mant
		// Signed overflow happened iff both operands have the sign the sum lacks.
		if (f.V^sum)&(mant^sum) >= 0 {
			f.V = sum
			return
		}
	}
	f.addSlow(wideOf(mant), int64(scale))
}

// addSlow adds m·10^-s: V moves into C, and C or m is brought to the larger
// scale.
func (f *Fixed) addSlow(m wide, s int64) {
	// An empty sum takes the first value as it is (at the larger scale, and
	// in V when it fits), so a group's sums merged from units stay in V
	// and compare without math/big.
	if f.V == 0 && f.C.isZero() && s >= f.Scale {
		if v, ok := m.int64(); ok {
			f.V, f.Scale = v, s
			return
		}
	}
	f.C.add(wideOf(f.V))
	f.V = 0
	switch {
	case s > f.Scale:
		f.C.mulPow10(int(s - f.Scale))
		f.Scale = s
	case s < f.Scale:
		m.mulPow10(int(f.Scale - s))
	}
	f.C.add(m)
}

// parseWide is ParseFixed for every number of the grammar: its mantissa as
// a wide, of at most MaxDigits significant digits, and its scale, at most
// MaxScale, once the exponent is applied (ErrOverflow beyond either).
// Values that fit an int64 take ParseFixed's paths; the rest, 18 digits
// at a time, here (rare, and only on the general paths).
func parseWide(b []byte) (wide, int, error) {
	m, s, err := ParseFixed(b)
	if err == nil {
		return wideOf(m), s, nil
	}
	if !errors.Is(err, ErrOverflow) {
		return wide{}, 0, err
	}
	// ParseFixed checks the syntax before the range: b is a number, but
	// for the blanks around it.
	b = trimBlanks(b)
	mant, exp := b, 0
	if k := bytes.IndexAny(b, "eE"); k >= 0 {
		mant = b[:k]
		for _, c := range b[k+1:] {
			if c != '+' && c != '-' {
				exp = exp*10 + int(c-'0')
			}
		}
		if b[k+1] == '-' {
			exp = -exp
		}
	}
	neg := mant[0] == '-'
	if mant[0] == '-' || mant[0] == '+' {
		mant = mant[1:]
	}
	var w wide
	var chunk uint64 // the digits not yet in w, k of them (at most 18)
	sig, scale, point, k := 0, 0, false, 0
	for _, c := range mant {
		if c == '.' {
			point = true
			continue
		}
		if point {
			scale++
		}
		if sig == 0 && c == '0' {
			continue // leading zeros are not significant
		}
		if sig++; sig > MaxDigits {
			return wide{}, 0, ErrOverflow
		}
		if k == maxPow {
			w.mul(uint64(pow10[k]))
			w.add(wideOf(int64(chunk)))
			chunk, k = 0, 0
		}
		chunk, k = chunk*10+uint64(c-'0'), k+1
	}
	w.mul(uint64(pow10[k]))
	w.add(wideOf(int64(chunk)))
	for scale -= exp; scale < 0; scale++ { // a positive exponent past the point's digits
		if !w.isZero() {
			if sig++; sig > MaxDigits {
				return wide{}, 0, ErrOverflow
			}
		}
		w.mul(10)
	}
	if scale > MaxScale {
		return wide{}, 0, ErrOverflow
	}
	if neg {
		w = w.neg()
	}
	return w, scale, nil
}

// AddWide adds m·10^-scale (as parseWide gives) to f exactly.
func (f *Fixed) AddWide(m wide, scale int) {
	if v, ok := m.int64(); ok {
		f.Add(v, scale)
		return
	}
	f.addSlow(m, int64(scale))
}

// cmpWide compares a·10^-sa with b·10^-sb exactly (scales at most
// MaxScale, mantissas as parseWide gives: the larger-scale product fits,
// see wide).
func cmpWide(a wide, sa int, b wide, sb int) int {
	switch {
	case sa < sb:
		a.mulPow10(sb - sa)
	case sb < sa:
		b.mulPow10(sa - sb)
	}
	return a.cmp(b)
}

// AddFixed adds o to f exactly.
func (f *Fixed) AddFixed(o Fixed) {
	if o.C.isZero() {
		f.Add(o.V, int(o.Scale))
		return
	}
	m := o.C
	m.add(wideOf(o.V))
	f.addSlow(m, o.Scale)
}

// total is the sum's whole value at Scale.
func (f Fixed) total() wide {
	t := f.C
	t.add(wideOf(f.V))
	return t
}

// Equal reports whether f and o are the same decimal at the same scale. Two
// sums of the same values are Equal whatever the order they were added in,
// though their V and C may differ.
func (f Fixed) Equal(o Fixed) bool { return f.Scale == o.Scale && f.total() == o.total() }

// String returns the exact decimal, e.g. "-1234567.89".
func (f Fixed) String() string { return string(f.Append(nil, false)) }

// Append appends the exact decimal to dst, with a thousands separator ","
// in the integer part if group is set ("1,234,567.89").
func (f Fixed) Append(dst []byte, group bool) []byte {
	if f.C.isZero() {
		return appendInt(dst, f.V, int(f.Scale), group)
	}
	var buf [64]byte
	t := f.total().big()
	neg := t.Sign() < 0
	return appendDecimal(dst, neg, t.Abs(t).Append(buf[:0], 10), int(f.Scale), group)
}

// appendInt appends v·10^-sc (0 ≤ sc ≤ MaxScale) as Append does, its
// digits made from the right in one buffer: a group-by's table calls it
// for every figure of millions of rows.
func appendInt(dst []byte, v int64, sc int, group bool) []byte {
	var buf [72]byte // a sign, 19 digits, 6 ','s, a '.' and up to 38 zeros before the digits
	i := len(buf)
	u := uint64(v)
	if v < 0 {
		u = -u // two's complement: right for MinInt64 too
	}
	for range sc {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
	}
	if sc > 0 {
		i--
		buf[i] = '.'
	}
	for n := 0; ; n++ { // at least one integer digit
		if group && n > 0 && n%3 == 0 {
			i--
			buf[i] = ','
		}
		i--
		buf[i] = byte('0' + u%10)
		if u /= 10; u == 0 {
			break
		}
	}
	if v < 0 {
		i--
		buf[i] = '-'
	}
	return append(dst, buf[i:]...)
}

// appendDecimal appends the number whose magnitude's decimal digits are
// digits, at scale sc, to dst: a sign if neg, the integer part (grouped by
// thousands if group), then the point and the fraction.
func appendDecimal(dst []byte, neg bool, digits []byte, sc int, group bool) []byte {
	if neg {
		dst = append(dst, '-')
	}
	if sc > 0 && len(digits) <= sc { // no integer digit: "0." and the fraction padded
		dst = append(dst, '0', '.')
		for range sc - len(digits) {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	if len(digits) == 0 {
		return append(dst, '0')
	}
	intPart, frac := digits[:len(digits)-sc], digits[len(digits)-sc:]
	if group {
		k := (len(intPart)-1)%3 + 1 // the digits before the first ','
		dst = append(dst, intPart[:k]...)
		for intPart = intPart[k:]; len(intPart) > 0; intPart = intPart[3:] {
			dst = append(dst, ',', intPart[0], intPart[1], intPart[2])
		}
	} else {
		dst = append(dst, intPart...)
	}
	if sc > 0 {
		dst = append(dst, '.')
		dst = append(dst, frac...)
	}
	return dst
}
