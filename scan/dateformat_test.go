package scan

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// Each format reads what package time writes in it, as the instant that
// the same moment written year first (parseDate's ISO form) reads as;
// and a value in a built-in ambiguous form is no date once formats are
// given, while year-first and month-name ones stay.
func TestDateFormats(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ format, layout string }{
		{"%d/%m/%Y", "02/01/2006"},
		{"%e.%m.%y", "2.01.06"},
		{"%Y%m%d", "20060102"},
		{"%d %b %Y %H:%M", "02 Jan 2006 15:04"},
		{"%B %d, %Y %I:%M:%S %p", "January 02, 2006 03:04:05 PM"},
		{"%a %d/%m/%Y %T", "Mon 02/01/2006 15:04:05"},
		{"%F %H:%M:%S.%f%z", "2006-01-02 15:04:05.000000-07:00"},
		{"%d-%m-%Y %Hh%M", "02-01-2006 15h04"},
		{"%Y-%m-%d %%", "2006-01-02 %"},
	} {
		dr, err := newDateReader([]string{c.format})
		if err != nil {
			t.Fatal(err)
		}
		for range 2000 {
			at := time.Unix(r.Int64N(4e9)-1e9, 0).UTC()
			if strings.Contains(c.format, "%z") {
				at = at.Add(time.Duration(r.IntN(1e6)) * time.Microsecond).In(time.FixedZone("", (r.IntN(49)-24)*1800))
			}
			if strings.HasPrefix(c.format, "%e.%m.%y") && (at.Year() < 1969 || at.Year() > 2068) {
				continue
			}
			v := at.Format(c.layout)
			got, ok := dr.parse([]byte(v))
			var want int64
			var wok bool
			switch {
			case strings.Contains(c.layout, "05"): // to the second (or microsecond)
				want, wok = parseDate([]byte(at.UTC().Format("2006-01-02 15:04:05.000000")))
			case strings.Contains(c.layout, "04"): // to the minute
				want, wok = parseDate([]byte(at.UTC().Truncate(time.Minute).Format("2006-01-02 15:04:05")))
			default:
				want, wok = parseDate([]byte(at.Format("2006-01-02")))
			}
			if !ok || !wok || got != want {
				t.Fatalf("%s: %q read %d %v, want %d", c.format, v, got, ok, want)
			}
		}
	}
	dr, _ := newDateReader([]string{"%d/%m/%Y"})
	for v, want := range map[string]bool{"13/01/2015": true, "1/13/2015": false, "31.1.2015": false, "2015-01-31": true, "Jan 31 2015": true, "31 Jan 2015": true, "31/02/2015": false, "31/01/2015 ": false} {
		if _, ok := dr.parse([]byte(v)); ok != want {
			t.Errorf("%q: a date %v, want %v", v, ok, want)
		}
	}
	for _, bad := range []string{"%Y-%m", "%d/%m/%Q", "%Y-%m-%d %", "%H:%M"} {
		if _, err := ParseDateFormat(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, ok := newDateReaderMust("%d/%m/%Y %I:%M").parse([]byte("01/02/2015 10:30")); ok {
		t.Errorf("%s: read", "%I without %p")
	}
}

func newDateReaderMust(f string) *dateReader {
	dr, err := newDateReader([]string{f})
	if err != nil {
		panic(err)
	}
	return dr
}

// A query with --date-format: the date column's filter, minimum, maximum
// and group-by order read the format, in every hot mode, against the
// reference reading ISO dates written for the same days.
func TestDateFormatQuery(t *testing.T) {
	var in, iso strings.Builder
	in.WriteString("day,n\n")
	iso.WriteString("day,n\n")
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 400 {
		at := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(400))
		in.WriteString(at.Format("02/01/2006") + "," + string(rune('0'+i%10)) + "\n")
		iso.WriteString(at.Format("2006-01-02") + "," + string(rune('0'+i%10)) + "\n")
	}
	q := Query{Filters: []Cond{{Col: "day", Op: OpGe, Value: "01/03/2015"}}, By: []string{"day"}, Sum: []string{"n"}, DateFormats: []string{"%d/%m/%Y"}, Sort: []SortKey{{Col: "day", Desc: true}}}
	q, err := decided(t, []refFile{{"d.csv", []byte(in.String())}}, q)
	if err != nil || q.Kinds[1].Kind != KindDate {
		t.Fatalf("%+v %v", q.Kinds, err)
	}
	_, a, err := answerOf([]refFile{{"d.csv", []byte(in.String())}}, q)
	if err != nil {
		t.Fatal(err)
	}
	qi := q
	qi.DateFormats, qi.Kinds, qi.Filters = nil, nil, []Cond{{Col: "day", Op: OpGe, Value: "2015-03-01"}}
	want, err := checkGen(t, "iso", []refFile{{"i.csv", []byte(iso.String())}}, qi)
	if err != nil || a.Matched != want.matched || a.Groups().Len() != len(want.cells) {
		t.Fatalf("formats: %d rows, %d groups; ISO %d, %d (%v)", a.Matched, a.Groups().Len(), want.matched, len(want.cells), err)
	}
	gt := a.Groups()
	for i := range gt.Len() {
		row := gt.Row(nil, i, false)
		d, _ := time.Parse("02/01/2006", row[0])
		if d.Format("2006-01-02") != want.cells[i][0] || row[2] != want.cells[i][2] {
			t.Fatalf("group %d: %v, ISO %v", i, row, want.cells[i])
		}
	}
}
