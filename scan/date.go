package scan

import (
	"bytes"
	"encoding/binary"

	"parlab/internal/civil"
)

// The dates a filter compares, and a group-by column's sort, read: a day
// in any of these forms (month and day names in any case; "Sep" and
// "Sept" alike), each a real calendar day, years of four digits:
//
//	M/D/YYYY            1/31/2015, 01/31/2015 (the Sales Records' form)
//	M/D/YYYY H:MM[:SS] AM   4/23/2019 7:11:11 AM (12-hour, AM/PM or am/pm)
//	D.M.YYYY            31.1.2015, 31.01.2015 (much of Europe's: the day first)
//	YYYY-MM-DD          2015-01-31
//	YYYY/M/D            2015/1/31, 2015/01/31
//	YYYY-MM             2015-01, the month's first day
//	YYYY-MM-DD HH:MM[:SS[.ffffff]][Z|±HH:MM], with T or a space between
//	Mon D YYYY          Jan 31 2015, Jan 31, 2015, January 31, 2015
//	Mon-D-YYYY          Jan-31-2015
//	D Mon YYYY          31 Jan 2015, 31 January 2015
//	D-Mon-YYYY          31-Jan-2015
//
// A day alone is its midnight, so 2015-01-31 < 2015-01-31 10:00 and
// 2015-01-31 = 2015-01-31T00:00:00; a time of day may end in Z (UTC,
// which changes nothing) or a zone's offset (2015-01-31T10:00:00+01:00,
// or +0100), and then is compared as the instant it names (a time without
// one is taken as UTC). dateForms is the
// list errors name.
const dateForms = "M/D/YYYY, M/D/YYYY H:MM[:SS] AM, D.M.YYYY, YYYY-MM-DD, YYYY/M/D, YYYY-MM, YYYY-MM-DD HH:MM[:SS[.ffffff]] (T or a space), Mon D YYYY, Mon D, YYYY, Mon-D-YYYY, D Mon YYYY or D-Mon-YYYY"

// monthNames are the months' names; a date may give the whole name or
// its first three letters (and September "Sept").
var monthNames = [12]string{"january", "february", "march", "april", "may", "june", "july", "august",
	"september", "october", "november", "december"}

// month reads a month's name at the start of b (any case): its number and
// the rest of b, or 0. The name is its first three letters, the whole of
// it, or "sept"; the word's first three letters pick the month (most
// text is turned away there, without a comparison).
func month(b []byte) (int, []byte) {
	n := 0
	for n < len(b) && (b[n]|0x20) >= 'a' && (b[n]|0x20) <= 'z' {
		n++
	}
	if n < 3 || n > 9 {
		return 0, b
	}
	i := 0
	switch uint32(b[0]|0x20)<<16 | uint32(b[1]|0x20)<<8 | uint32(b[2]|0x20) {
	case 'j'<<16 | 'a'<<8 | 'n':
		i = 1
	case 'f'<<16 | 'e'<<8 | 'b':
		i = 2
	case 'm'<<16 | 'a'<<8 | 'r':
		i = 3
	case 'a'<<16 | 'p'<<8 | 'r':
		i = 4
	case 'm'<<16 | 'a'<<8 | 'y':
		i = 5
	case 'j'<<16 | 'u'<<8 | 'n':
		i = 6
	case 'j'<<16 | 'u'<<8 | 'l':
		i = 7
	case 'a'<<16 | 'u'<<8 | 'g':
		i = 8
	case 's'<<16 | 'e'<<8 | 'p':
		i = 9
	case 'o'<<16 | 'c'<<8 | 't':
		i = 10
	case 'n'<<16 | 'o'<<8 | 'v':
		i = 11
	case 'd'<<16 | 'e'<<8 | 'c':
		i = 12
	default:
		return 0, b
	}
	name := monthNames[i-1]
	switch {
	case n == 3, i == 9 && n == 4 && b[3]|0x20 == 't':
	case n != len(name):
		return 0, b
	default:
		for j := 3; j < n; j++ {
			if b[j]|0x20 != name[j] {
				return 0, b
			}
		}
	}
	return i, b[n:]
}

// dateDigits reads lo to hi decimal digits at the start of b: their value and
// the rest of b.
func dateDigits(b []byte, lo, hi int) (int, []byte, bool) {
	n, i := 0, 0
	for i < len(b) && i < hi && b[i]-'0' <= 9 {
		n = n*10 + int(b[i]-'0')
		i++
	}
	return n, b[i:], i >= lo
}

// parseDate reads a date in one of the forms above as a number that
// orders as the instants do: the day's ordinal (y·512 + m·32 + d) in
// microseconds, plus the time of day.
func parseDate(b []byte) (int64, bool) {
	if d, ok, sure := plainDay(b); sure {
		return d, ok
	}
	return anyDate(b)
}

// anyDate is parseDate for every form, the general way.
func anyDate(b []byte) (int64, bool) {
	var y, m, d int
	var ok bool
	twelve := false // what may follow the day: clock12's 12-hour time (M/D/YYYY), else clock's (a func variable would make b escape)
	rest := b
	switch {
	case len(b) == 0:
		return 0, false
	case b[0]-'0' > 9: // Mon D YYYY, Mon D, YYYY, Mon-D-YYYY
		if m, rest = month(b); m == 0 || len(rest) == 0 || rest[0] != ' ' && rest[0] != '-' {
			return 0, false
		}
		sep := rest[0]
		if d, rest, ok = dateDigits(rest[1:], 1, 2); !ok || len(rest) == 0 {
			return 0, false
		}
		if rest[0] == ',' && sep == ' ' {
			rest = rest[1:]
		}
		if len(rest) == 0 || rest[0] != sep {
			return 0, false
		}
		if y, rest, ok = dateDigits(rest[1:], 4, 4); !ok || len(rest) != 0 {
			return 0, false
		}
	case len(b) >= 5 && b[1]-'0' <= 9 && b[2]-'0' <= 9 && b[3]-'0' <= 9 && (b[4] == '-' || b[4] == '/'):
		y, rest, _ = dateDigits(b, 4, 4)
		sep := rest[0]
		width := 2 // YYYY-MM-DD
		if sep == '/' {
			width = 1 // YYYY/M/D
		}
		if m, rest, ok = dateDigits(rest[1:], width, 2); !ok {
			return 0, false
		}
		if len(rest) == 0 && sep == '-' { // YYYY-MM
			d = 1
			break
		}
		if len(rest) == 0 || rest[0] != sep {
			return 0, false
		}
		if d, rest, ok = dateDigits(rest[1:], width, 2); !ok {
			return 0, false
		}
	default: // M/D/YYYY, D.M.YYYY, D Mon YYYY, D-Mon-YYYY
		if d, rest, ok = dateDigits(b, 1, 2); !ok || len(rest) == 0 {
			return 0, false
		}
		switch sep := rest[0]; sep {
		case '/':
			m, twelve = d, true // (M/D/YYYY may have a 12-hour time)
			if d, rest, ok = dateDigits(rest[1:], 1, 2); !ok || len(rest) == 0 || rest[0] != '/' {
				return 0, false
			}
		case ' ', '-':
			if m, rest = month(rest[1:]); m == 0 || len(rest) == 0 || rest[0] != sep {
				return 0, false
			}
		case '.': // D.M.YYYY
			if m, rest, ok = dateDigits(rest[1:], 1, 2); !ok || len(rest) == 0 || rest[0] != '.' {
				return 0, false
			}
		default:
			return 0, false
		}
		if y, rest, ok = dateDigits(rest[1:], 4, 4); !ok || len(rest) != 0 && !twelve {
			return 0, false
		}
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	var us int64
	if twelve {
		us, ok = clock12(rest)
	} else {
		us, ok = clock(rest)
	}
	if !ok {
		return 0, false
	}
	return instant(y, m, d, us), true
}

// plainDay is parseDate for the two forms most files hold, M/D/YYYY and
// YYYY-MM-DD with nothing after the day, read straight from their digits
// (a date filter or a minimum reads one a row). sure says b has one of
// those shapes; if not, parseDate reads it the general way (anyDate).
// FuzzDate checks that the two agree.
func plainDay(b []byte) (day int64, ok, sure bool) {
	n := len(b)
	if n < 8 || n > 10 {
		return 0, false, false
	}
	whole := func(b []byte) (int, bool) { // b's digits, all of it
		v, rest, ok := dateDigits(b, len(b), len(b))
		return v, ok && len(rest) == 0
	}
	var y, m, d int
	var yok, mok, dok bool
	switch {
	case n == 10 && b[4] == '-' && b[7] == '-':
		y, yok = year4(b[:4])
		m, mok = whole(b[5:7])
		d, dok = whole(b[8:])
	case b[n-5] == '/':
		i := 1 // the first '/'
		if b[1] != '/' {
			i = 2
		}
		if b[i] != '/' || n-5-i-1 < 1 || n-5-i-1 > 2 {
			return 0, false, false
		}
		y, yok = year4(b[n-4:])
		m, mok = whole(b[:i])
		d, dok = whole(b[i+1 : n-5])
	}
	if !yok || !mok || !dok {
		return 0, false, false
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false, true
	}
	return instant(y, m, d, 0), true, true
}

// year4 reads the 4 decimal digits b holds at once (SWAR: a lane a
// digit, as in simdjson's eight-digit parse), or says they are not.
func year4(b []byte) (int, bool) {
	v := binary.LittleEndian.Uint32(b)
	if (v|(v-0x30303030)|(v+0x46464646))&0x80808080 != 0 {
		return 0, false // a byte below '0' or above '9' (or above 0x7F)
	}
	x := v - 0x30303030
	x = (x*10 + x>>8) & 0x00FF00FF // two-digit numbers in lanes 0 and 2
	return int((x*100 + x>>16) & 0xFFFF), true
}

// dayMicros is a day in microseconds, parseDate's unit.
const dayMicros = 86_400_000_000

// instant is parseDate's number for day y-m-d at us microseconds past its
// midnight, which a zone's offset may have taken below 0 or past a day
// (the day before or after, then).
func instant(y, m, d int, us int64) int64 {
	const day = dayMicros
	if us < 0 || us >= day {
		n := civil.Days(y, m, d)
		if us < 0 {
			n, us = n-1, us+day
		} else {
			n, us = n+1, us-day
		}
		y, m, d = civil.Date(n)
	}
	return int64(y*512+m*32+d)*day + us
}

// clock12 reads what may follow an M/D/YYYY day: nothing, or a space,
// H:MM[:SS] (the hour 0 to 12, as package time reads it), a space and AM or
// PM (or am or pm); the time of day in microseconds (12 AM is midnight).
func clock12(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	if b[0] != ' ' {
		return 0, false
	}
	h, rest, ok := dateDigits(b[1:], 1, 2)
	if !ok || h > 12 || len(rest) == 0 || rest[0] != ':' {
		return 0, false
	}
	mi, rest, ok := dateDigits(rest[1:], 2, 2)
	if !ok || mi > 59 {
		return 0, false
	}
	s := 0
	if len(rest) > 0 && rest[0] == ':' {
		if s, rest, ok = dateDigits(rest[1:], 2, 2); !ok || s > 59 {
			return 0, false
		}
	}
	if len(rest) != 3 || rest[0] != ' ' {
		return 0, false
	}
	switch string(rest[1:]) {
	case "AM", "am":
		if h == 12 {
			h = 0
		}
	case "PM", "pm":
		if h < 12 {
			h += 12
		}
	default:
		return 0, false
	}
	return (int64(h)*3600 + int64(mi)*60 + int64(s)) * 1_000_000, true
}

// clock reads what may follow a year-first day: nothing, or T or a space
// and HH:MM[:SS[.ffffff]], then Z (UTC) or a zone's offset (±HH:MM or
// ±HHMM, at most 23:59); the time of day in UTC, in microseconds, which
// an offset may take below 0 or past a day (parseDate rolls the day).
func clock(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	if b[0] != 'T' && b[0] != ' ' {
		return 0, false
	}
	h, rest, ok := dateDigits(b[1:], 2, 2)
	if !ok || len(rest) == 0 || rest[0] != ':' {
		return 0, false
	}
	mi, rest, ok := dateDigits(rest[1:], 2, 2)
	if !ok || h > 23 || mi > 59 {
		return 0, false
	}
	s, us := 0, 0
	if len(rest) > 0 && rest[0] == ':' {
		if s, rest, ok = dateDigits(rest[1:], 2, 2); !ok || s > 59 {
			return 0, false
		}
		if len(rest) > 0 && rest[0] == '.' {
			f, r, ok := dateDigits(rest[1:], 1, 6)
			if !ok {
				return 0, false
			}
			for n := len(rest) - 1 - len(r); n < 6; n++ {
				f *= 10
			}
			us, rest = f, r
		}
	}
	off := 0 // the zone's offset east of UTC, in minutes
	if len(rest) > 0 {
		if off, rest, ok = zone(rest); !ok {
			return 0, false
		}
	}
	if len(rest) != 0 {
		return 0, false
	}
	return (int64(h)*3600+int64(mi)*60+int64(s)-int64(off)*60)*1_000_000 + int64(us), true
}

// zone reads a time's zone at the start of b: Z (UTC), or an offset
// ±HH:MM or ±HHMM (at most 23:59): its minutes east of UTC and the rest.
func zone(b []byte) (int, []byte, bool) {
	if len(b) > 0 && b[0] == 'Z' {
		return 0, b[1:], true
	}
	if len(b) == 0 || b[0] != '+' && b[0] != '-' {
		return 0, b, false
	}
	oh, r, ok := dateDigits(b[1:], 2, 2)
	if len(r) > 0 && r[0] == ':' {
		r = r[1:]
	}
	om, r, ok2 := dateDigits(r, 2, 2)
	if !ok || !ok2 || oh > 23 || om > 59 {
		return 0, b, false
	}
	if b[0] == '-' {
		return -(oh*60 + om), r, true
	}
	return oh*60 + om, r, true
}

// datish reports whether v, which parseDate declines, reads as a try at a
// date: three groups of digits split by / or - (2005-1-2, 1/2/05), or by
// points with a year at one end (1.2.2005), a day in a known form with something after it (a time zone, a
// bad time), or a month's name beside a number (Jan 2005, 2005 Jan 1). As
// bytes such a value would compare dates wrongly, and silently.
func datish(v string) bool {
	b := []byte(v)
	var groups, seps, dots, first, last int
	for i := 0; i < len(b); {
		switch {
		case b[i]-'0' <= 9:
			_, r, _ := dateDigits(b[i:], 1, 64)
			n := len(b) - i - len(r)
			if groups == 0 {
				first = n
			}
			last = n
			groups++
			i += n
		case b[i] == '/' || b[i] == '-' || b[i] == '.':
			seps++
			if b[i] == '.' {
				dots++
			}
			i++
		default:
			groups, i = 0, len(b)
		}
	}
	// 1/2/05, 2005-1-2, 1.2.2005; but 1.2.3 is a version (or a number gone wrong)
	if groups == 3 && seps == 2 && (dots == 0 || first == 4 || last == 4) {
		return true
	}
	for n := len(b); n >= 7; n-- { // a known day, then something else
		if _, ok := parseDate(b[:n]); ok {
			return true
		}
	}
	for i := range b {
		if isLetter(b[i]) && (i == 0 || !isLetter(b[i-1])) {
			if m, _ := month(b[i:]); m != 0 && bytes.ContainsAny(b, "0123456789") {
				return true
			}
		}
	}
	return false
}

func isLetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
