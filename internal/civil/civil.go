// Package civil converts between proleptic Gregorian dates and days since
// 1970-01-01 (Howard Hinnant's days_from_civil and civil_from_days): far
// cheaper than package time in a loop (the generator's dates), and for any
// year, before year 0 too (a zone's offset may move 0000-01-01 back a day).
package civil

// Days is the count of days from 1970-01-01 to y-m-d (m 1–12, d 1–31).
func Days(y, m, d int) int {
	if m <= 2 {
		y--
	}
	era := (y - 399*b2i(y < 0)) / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// Date is Days' inverse: the date z days after 1970-01-01.
func Date(z int) (y, m, d int) {
	z += 719468
	era := (z - 146096*b2i(z < 0)) / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	return yoe + era*400 + b2i(m <= 2), m, d
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
