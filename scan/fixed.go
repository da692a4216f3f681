package scan

import (
	"errors"
	"math"
	"strconv"
)

// MaxScale is the most digits a number may have after its decimal point:
// 10^18 is the largest power of ten an int64 holds.
const MaxScale = 18

// Errors a number can cause. They are wrapped in a *ParseError that says where.
var (
	ErrSyntax   = errors.New("not a decimal number")
	ErrOverflow = errors.New("value out of range (exact sums hold 18 significant digits, about ±9.2e18 units of the smallest decimal place)")
)

var pow10 = [MaxScale + 1]int64{
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
	10000000000, 100000000000, 1000000000000, 10000000000000, 100000000000000,
	1000000000000000, 10000000000000000, 100000000000000000, 1000000000000000000,
}

// Fixed is an exact decimal: V / 10^Scale. The zero value is 0.
//
// A sum keeps the largest scale of the values added to it, so adding 7, 3.5
// and 0.25 gives 1075 at scale 2 ("10.75"). Both fields are int64 so the
// layout is fixed and pointer-free (it travels through shared memory).
type Fixed struct {
	V     int64
	Scale int64
}

// ParseFixed parses a number of the grammar in the package comment and returns
// its mantissa and scale: "-12.50" gives (-1250, 2). This is the only number
// parser: the scanner's hot loop calls it for every matching value.
func ParseFixed(b []byte) (mant int64, scale int, err error) {
	i := 0
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	if len(b)-i <= 18 {
		// At most 18 digits cannot overflow: one tight loop, no checks. This
		// took a money value from 19.6 to about 9 ns (BenchmarkParseFixed).
		var v int64
		dot := -1
		for j := i; j < len(b); j++ {
			c := b[j] - '0'
			if c <= 9 {
				v = v*10 + int64(c)
				continue
			}
			if b[j] != '.' || dot >= 0 {
				return 0, 0, ErrSyntax
			}
			dot = j
		}
		if len(b)-i == 0 || (dot >= 0 && len(b)-i == 1) {
			return 0, 0, ErrSyntax // no digit at all
		}
		if dot >= 0 {
			scale = len(b) - dot - 1
		}
		if neg {
			v = -v
		}
		return v, scale, nil
	}
	return parseLong(b, i, neg)
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

// rescale returns v·10^by, or false if that does not fit.
func rescale(v int64, by int64) (int64, bool) {
	if by == 0 || v == 0 {
		return v, true
	}
	if by > MaxScale {
		return 0, false
	}
	p := pow10[by]
	if v > math.MaxInt64/p || v < -math.MaxInt64/p {
		return 0, false
	}
	return v * p, true
}

// Add adds mant·10^-scale to f exactly, or returns ErrOverflow and leaves f as
// it was. Overflow is checked at every step, so a sum never wraps.
func (f *Fixed) Add(mant int64, scale int) error {
	s := int64(scale)
	acc := f.V
	if s > f.Scale {
		var ok bool
		if acc, ok = rescale(acc, s-f.Scale); !ok {
			return ErrOverflow
		}
	} else if s < f.Scale {
		var ok bool
		if mant, ok = rescale(mant, f.Scale-s); !ok {
			return ErrOverflow
		}
		s = f.Scale
	}
	sum := acc + mant
	// Signed overflow happened iff both operands have the sign the sum lacks.
	if (acc^sum)&(mant^sum) < 0 || sum == math.MinInt64 {
		return ErrOverflow
	}
	f.V, f.Scale = sum, s
	return nil
}

// String returns the exact decimal, e.g. "-1234567.89".
func (f Fixed) String() string { return string(f.Append(nil, false)) }

// Append appends the exact decimal to dst, with a thousands separator ","
// in the integer part if group is set ("1,234,567.89").
func (f Fixed) Append(dst []byte, group bool) []byte {
	v := f.V
	if v < 0 {
		dst = append(dst, '-')
		v = -v // V is never MinInt64: Add refuses it
	}
	var buf [20]byte
	digits := strconv.AppendUint(buf[:0], uint64(v), 10)
	sc := int(f.Scale)
	for len(digits) <= sc { // pad so there is at least one integer digit
		digits = append([]byte{'0'}, digits...)
	}
	intPart, frac := digits[:len(digits)-sc], digits[len(digits)-sc:]
	for i, c := range intPart {
		if group && i > 0 && (len(intPart)-i)%3 == 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, c)
	}
	if sc > 0 {
		dst = append(dst, '.')
		dst = append(dst, frac...)
	}
	return dst
}
