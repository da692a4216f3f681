package scan

import (
	"fmt"
	"strings"
)

// A date format (--date-format, DuckDB's dateformat) is strftime's
// grammar, for reading: each directive reads a field of the date, any
// other byte must be there as it is.
//
//	%Y  year, 4 digits         %y  year, 2 digits (00-68: 2000s, 69-99: 1900s)
//	%m  month, 1 or 2 digits   %d, %e  day of the month, 1 or 2 digits
//	%b, %h, %B  month's name (any case, whole or its first three letters)
//	%H  hour 0-23, 1 or 2      %I  hour 1-12, 1 or 2 (with %p)
//	%M  minute, 2 digits       %S  second, 2 digits
//	%f  fraction of a second, 1 to 6 digits
//	%p  AM or PM (any case)    %z  Z, or an offset ±HH:MM or ±HHMM
//	%a, %A  a weekday's name (read, not checked)
//	%T  %H:%M:%S               %F  %Y-%m-%d
//	%%  a percent sign
//
// A value is a date in the format if the format reads all of it and it
// names a real day; it is then the instant parseDate's number says.
type dateFormat struct {
	src   string
	items []dateItem
}

// dateItem is a directive (verb) or a literal byte (verb 0).
type dateItem struct {
	verb byte
	lit  byte
}

// ParseDateFormat checks a --date-format: known directives, a year, a
// month and a day among them (a time alone is no date).
func ParseDateFormat(s string) (dateFormat, error) {
	f := dateFormat{src: s}
	expanded := strings.NewReplacer("%T", "%H:%M:%S", "%F", "%Y-%m-%d").Replace(s)
	var year, month, day bool
	for i := 0; i < len(expanded); i++ {
		c := expanded[i]
		if c != '%' {
			f.items = append(f.items, dateItem{lit: c})
			continue
		}
		if i+1 == len(expanded) {
			return f, fmt.Errorf("date format %s ends in a lone %%", clipQuote(s))
		}
		i++
		v := expanded[i]
		switch v {
		case '%':
			f.items = append(f.items, dateItem{lit: '%'})
			continue
		case 'Y', 'y':
			year = true
		case 'm', 'b', 'h', 'B':
			month = true
		case 'd', 'e':
			day = true
		case 'H', 'I', 'M', 'S', 'f', 'p', 'z', 'a', 'A':
		default:
			return f, fmt.Errorf("date format %s: unknown directive %%%c (the known: %%Y %%y %%m %%d %%e %%b %%B %%H %%I %%M %%S %%f %%p %%z %%a %%T %%F %%%%)", clipQuote(s), v)
		}
		f.items = append(f.items, dateItem{verb: v})
	}
	if !year || !month || !day {
		return f, fmt.Errorf("date format %s names no year, month or day (%%Y or %%y, %%m or %%b, %%d)", clipQuote(s))
	}
	return f, nil
}

// parse reads b in the format: parseDate's number for the instant.
func (f *dateFormat) parse(b []byte) (int64, bool) {
	y, m, d := 0, 0, 0
	h, mi, s, us, off := 0, 0, 0, 0, 0
	pm, ampm, twelve := false, false, false
	ok := true
	for _, it := range f.items {
		if it.verb == 0 {
			if len(b) == 0 || b[0] != it.lit {
				return 0, false
			}
			b = b[1:]
			continue
		}
		switch it.verb {
		case 'Y':
			y, b, ok = dateDigits(b, 4, 4)
		case 'y':
			y, b, ok = dateDigits(b, 2, 2)
			if y < 69 {
				y += 2000
			} else {
				y += 1900
			}
		case 'm':
			m, b, ok = dateDigits(b, 1, 2)
		case 'd', 'e':
			d, b, ok = dateDigits(b, 1, 2)
		case 'b', 'h', 'B':
			m, b = month(b)
			ok = m != 0
		case 'H':
			h, b, ok = dateDigits(b, 1, 2)
			ok = ok && h <= 23
		case 'I':
			h, b, ok = dateDigits(b, 1, 2)
			ok, twelve = ok && h >= 1 && h <= 12, true
		case 'M':
			mi, b, ok = dateDigits(b, 2, 2)
			ok = ok && mi <= 59
		case 'S':
			s, b, ok = dateDigits(b, 2, 2)
			ok = ok && s <= 59
		case 'f':
			var r []byte
			us, r, ok = dateDigits(b, 1, 6)
			for n := len(b) - len(r); n < 6; n++ {
				us *= 10
			}
			b = r
		case 'p':
			if len(b) < 2 {
				return 0, false
			}
			switch strings.ToUpper(string(b[:2])) {
			case "AM":
			case "PM":
				pm = true
			default:
				return 0, false
			}
			ampm, b = true, b[2:]
		case 'z':
			off, b, ok = zone(b)
		case 'a', 'A':
			n := 0
			for n < len(b) && isLetter(b[n]) {
				n++
			}
			ok, b = n >= 2, b[n:]
		}
		if !ok {
			return 0, false
		}
	}
	if len(b) != 0 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	if twelve != ampm && twelve {
		return 0, false // %I without %p: which half of the day?
	}
	if ampm {
		if h == 12 {
			h = 0
		}
		if pm {
			h += 12
		}
	}
	return instant(y, m, d, (int64(h)*3600+int64(mi)*60+int64(s)-int64(off)*60)*1_000_000+int64(us)), true
}

// dateReader reads a date column's values: in the formats given
// (Query.DateFormats) first, in their order, then in parseDate's forms
// that no format could read another way (year first, or a month's name);
// without formats, in every form parseDate reads. A nil *dateReader has
// none.
type dateReader struct {
	formats []dateFormat
}

// newDateReader compiles formats (nil for none).
func newDateReader(formats []string) (*dateReader, error) {
	if len(formats) == 0 {
		return nil, nil
	}
	r := &dateReader{}
	for _, s := range formats {
		f, err := ParseDateFormat(s)
		if err != nil {
			return nil, err
		}
		r.formats = append(r.formats, f)
	}
	return r, nil
}

// parse reads b as a date (see dateReader).
func (r *dateReader) parse(b []byte) (int64, bool) {
	if r == nil {
		return parseDate(b)
	}
	for i := range r.formats {
		if d, ok := r.formats[i].parse(b); ok {
			return d, true
		}
	}
	// M/D/YYYY and D.M.YYYY are what a format says otherwise
	if i := len(b) - len(trimDigits(b)); i >= 1 && i <= 2 && i < len(b) && (b[i] == '/' || b[i] == '.') {
		return 0, false
	}
	return parseDate(b)
}

// trimDigits is b without its leading digits.
func trimDigits(b []byte) []byte {
	for len(b) > 0 && b[0]-'0' <= 9 {
		b = b[1:]
	}
	return b
}

// forms is what errors name as the forms r reads.
func (r *dateReader) forms() string {
	if r == nil {
		return dateForms
	}
	var s []string
	for _, f := range r.formats {
		s = append(s, "--date-format "+f.src)
	}
	return strings.Join(s, ", ") + ", or one year first (YYYY-MM-DD …) or with a month's name"
}
