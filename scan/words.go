package scan

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Word: a minimum or maximum reads every present value of its column as one of
// three kinds: a number (the grammar in the package comment), a date (one
// of dateForms), or text (anything else). Within a kind values order as
// numbers, as instants, or by their bytes; across kinds, as in SQLite,
// numbers come before dates and dates before text. So a column of numbers
// has a numeric minimum and maximum, a column of dates the earliest and the
// latest (printed as written), a column of names the first and last in byte
// order, and one that mixes kinds has the least value of its lowest kind
// and the greatest of its highest. The rule needs no sample of the file and
// gives the same answer in any order, so every split and strategy agrees.
//
// A value that reads as a try at a number or a date but is neither ($1.00,
// 1,234, 5%, 2015-02-30: see notQuite and moneyish) is an error naming its
// place, as in a sum: compared as text it would put $10 before $9,
// silently. A column
// that is also summed or averaged must hold numbers only.
//
// Word is a minimum or maximum among a column's values that are not
// numbers: its text as written and, for a date, Day, the instant it names
// (parseDate's number). The zero Word is none (a present value is never
// empty).
type Word struct {
	Text string
	Day  int64
}

// Words are one aggregate slot's minimum and maximum among its dates,
// among its text values, and among its numbers of more than 18 digits
// (MinNum, MaxNum: numbers whose mantissa an Extreme cannot hold, their
// Text the exact decimal at the value's scale, as Fixed writes it, so that
// equal values keep equal Words whatever their spelling). A Result or
// Groups holds them only for the slots and groups that saw such a value
// (nil maps otherwise), so a column of dates, text or long numbers pays
// for them, and any other nothing.
type Words struct {
	MinDate, MaxDate, MinText, MaxText Word
	MinNum, MaxNum                     Word
	// minNum and maxNum are MinNum's and MaxNum's values, set with them
	// (takeNum, merge, decodeWords), so that a row compares without
	// parsing them.
	minNum, maxNum numVal
	// Distinct and Nums are the holistic aggregates' (see Holistic): a
	// count_distinct's values, each once (distinctKey), and a median's or
	// quantile's values, each M·10^-S, in no order, in chunks (addNum: a
	// chunk is never copied to grow, and a merge takes o's chunks as they
	// are). Every group of a holistic slot has them.
	Distinct map[string]struct{}
	Nums     [][]Extreme
}

// numVal is a number as parseWide reads it.
type numVal struct {
	m  wide
	sc int
}

// takeNum folds in m·10^-sc (parseWide's), a number of more than 18
// digits. Of equal values the one at the larger scale stays (as in
// Extreme.takeMin).
func (w *Words) takeNum(m wide, sc int) {
	var text string // made only when the value becomes an extreme
	for _, x := range [2]struct {
		w    *Word
		v    *numVal
		sign int
	}{{&w.MinNum, &w.minNum, -1}, {&w.MaxNum, &w.maxNum, +1}} {
		if x.w.Text == "" || replaces(cmpWide(m, sc, x.v.m, x.v.sc), sc, x.v.sc, x.sign) {
			if text == "" {
				text = Fixed{C: m, Scale: int64(sc)}.String()
			}
			*x.w, *x.v = Word{Text: text}, numVal{m, sc}
		}
	}
}

// replaces says whether a value at scale sc that compares c with the
// extreme at scale xs takes its place as a minimum (sign -1) or maximum:
// it is beyond it, or equal at a larger scale (so every order of the rows
// keeps the same digits).
func replaces(c, sc, xs, sign int) bool { return c*sign > 0 || (c == 0 && sc > xs) }

// cmpDateWord orders two dates by their instants, then by their bytes (2005-01-01 and
// Jan 1 2005 are one instant; which is kept must not depend on the order
// rows arrive in).
func cmpDateWord(a, b Word) int {
	if c := cmp.Compare(a.Day, b.Day); c != 0 {
		return c
	}
	return cmp.Compare(a.Text, b.Text)
}

func cmpTextWord(a, b Word) int { return cmp.Compare(a.Text, b.Text) }

// takeWord folds w into *x by c (a minimum for sign -1, a maximum for +1).
func takeWord(x *Word, w Word, c func(a, b Word) int, sign int) {
	if w.Text == "" {
		return
	}
	if x.Text == "" || c(w, *x)*sign > 0 {
		*x = w
	}
}

// take folds in v, a present value that is not a number: a date if day is
// (isDate), else text. v is copied only when it becomes an extreme.
func (w *Words) take(v []byte, day int64, isDate bool) {
	if isDate {
		if w.MinDate.Text == "" || cmpDateBytes(day, v, w.MinDate) < 0 {
			w.MinDate = Word{string(v), day}
		}
		if w.MaxDate.Text == "" || cmpDateBytes(day, v, w.MaxDate) > 0 {
			w.MaxDate = Word{string(v), day}
		}
		return
	}
	// (string(v) in a comparison allocates nothing)
	if w.MinText.Text == "" || string(v) < w.MinText.Text {
		w.MinText = Word{Text: string(v)}
	}
	if w.MaxText.Text == "" || string(v) > w.MaxText.Text {
		w.MaxText = Word{Text: string(v)}
	}
}

func cmpDateBytes(day int64, v []byte, x Word) int {
	if c := cmp.Compare(day, x.Day); c != 0 {
		return c
	}
	switch {
	case string(v) < x.Text:
		return -1
	case string(v) > x.Text:
		return 1
	}
	return 0
}

// merge folds o into w.
func (w *Words) merge(o *Words) {
	takeWord(&w.MinDate, o.MinDate, cmpDateWord, -1)
	takeWord(&w.MaxDate, o.MaxDate, cmpDateWord, +1)
	takeWord(&w.MinText, o.MinText, cmpTextWord, -1)
	takeWord(&w.MaxText, o.MaxText, cmpTextWord, +1)
	if o.MinNum.Text != "" {
		w.takeNum(o.minNum.m, o.minNum.sc)
	}
	if o.MaxNum.Text != "" {
		w.takeNum(o.maxNum.m, o.maxNum.sc)
	}
	w.mergeHolistic(o)
}

// Kinds of a minimum's or maximum's value, in their order (see above).
const (
	kindOfNumber = iota
	kindOfDate
	kindOfText
)

// pickExtreme is the minimum (fn "min") or maximum of a slot whose numeric
// extreme of up to 18 digits is x and whose other values' are w (nil for
// none), by the kinds' order: its kind, and for a date or text the Word;
// ok false if the slot saw no value. A number is x itself if its Word's
// Text is empty, else the Word (a number of more than 18 digits).
func pickExtreme(fn string, x Extreme, w *Words) (word Word, kind int, ok bool) {
	if w == nil {
		return Word{}, kindOfNumber, x.Set
	}
	if fn == "min" {
		switch {
		case x.Set || w.MinNum.Text != "":
			return pickNum(x, w.MinNum, -1), kindOfNumber, true
		case w.MinDate.Text != "":
			return w.MinDate, kindOfDate, true
		}
		return w.MinText, kindOfText, w.MinText.Text != ""
	}
	switch {
	case w.MaxText.Text != "":
		return w.MaxText, kindOfText, true
	case w.MaxDate.Text != "":
		return w.MaxDate, kindOfDate, true
	}
	return pickNum(x, w.MaxNum, +1), kindOfNumber, x.Set || w.MaxNum.Text != ""
}

// pickNum is the minimum (sign -1) or maximum of the numbers x and n (a
// MinNum or MaxNum), as pickExtreme returns it: Word{} for x.
func pickNum(x Extreme, n Word, sign int) Word {
	if n.Text == "" {
		return Word{}
	}
	if !x.Set {
		return n
	}
	nm, ns := numOf(x, n)
	if replaces(cmpWide(nm, ns, wideOf(x.M), int(x.S)), ns, int(x.S), sign) {
		return n
	}
	return Word{}
}

// numOf is the number that pickExtreme picked: x, or its Word's.
func numOf(x Extreme, w Word) (wide, int) {
	if w.Text == "" {
		return wideOf(x.M), int(x.S)
	}
	m, sc, _ := parseWide([]byte(w.Text))
	return m, sc
}

// cmpPicked orders two set values that pickExtreme returned: by kind, then
// within it.
func cmpPicked(x Extreme, a Word, ka int, y Extreme, b Word, kb int) int {
	if ka != kb {
		return cmp.Compare(ka, kb)
	}
	switch ka {
	case kindOfNumber:
		if a.Text == "" && b.Text == "" {
			return x.cmp(y)
		}
		am, as := numOf(x, a)
		bm, bs := numOf(y, b)
		return cmpWide(am, as, bm, bs)
	case kindOfDate:
		return cmpDateWord(a, b)
	}
	return cmpTextWord(a, b)
}

// wordValue reads v, a present value of a min/max-only slot that is not a
// number (ParseFixed said err): a date (isDate, with its instant), text, or
// an error: a number out of range, or a value that reads as a try at a
// number or a date (notQuite).
func wordValue(v []byte, err error) (day int64, isDate bool, _ error) {
	if errors.Is(err, ErrOverflow) {
		return 0, false, err
	}
	if d, ok := parseDate(v); ok {
		return d, true, nil
	}
	if why := notQuite(string(v)); why != "" {
		return 0, false, fmt.Errorf("%w: %s", ErrNotComparable, why)
	}
	if moneyish(string(v)) {
		return 0, false, fmt.Errorf("%w: a number with a currency or per cent sign, which parlab does not read (as text it would put $10 before $9)", ErrNotComparable)
	}
	return 0, false, nil
}

// moneyish reports whether v is a number, or a try at one (notQuite), once
// its currency and per cent signs and spaces are taken out: $1.00, -€5,
// 5 %, $1,234.
func moneyish(v string) bool {
	t := strings.Map(func(r rune) rune {
		if strings.ContainsRune("$€£¥% ", r) {
			return -1
		}
		return r
	}, v)
	if t == v || t == "" {
		return false
	}
	_, _, err := parseWide([]byte(t))
	return err == nil || notQuite(t) != ""
}

// slotWords is the Words of key at in m (made if new, and m too).
func slotWords(m *map[int]*Words, at int) *Words {
	if *m == nil {
		*m = map[int]*Words{}
	}
	w := (*m)[at]
	if w == nil {
		w = &Words{}
		(*m)[at] = w
	}
	return w
}

// mergeWords folds every entry of o into *m, at key+shift.
func mergeWords(m *map[int]*Words, o map[int]*Words, shift int) {
	for at, w := range o {
		slotWords(m, at+shift).merge(w)
	}
}

// equalWords reports whether a and b hold the same words (a nil map and
// an empty one are the same).
func equalWords(a, b map[int]*Words) bool {
	if len(a) != len(b) {
		return false
	}
	for at, w := range a {
		if v, ok := b[at]; !ok || !v.equal(w) {
			return false
		}
	}
	return true
}

// appendWords appends m's binary form: uvarint the entries, then each in
// key order: uvarint its key, then per word (MinDate, MaxDate, MinText,
// MaxText, MinNum, MaxNum) uvarint its length, its bytes and, for the
// dates, varint Day; then its distinct set and values (appendHolistic).
func appendWords(b []byte, m map[int]*Words) []byte {
	b = binary.AppendUvarint(b, uint64(len(m)))
	for _, at := range slices.Sorted(maps.Keys(m)) {
		w := m[at]
		b = binary.AppendUvarint(b, uint64(at))
		for i, x := range [6]Word{w.MinDate, w.MaxDate, w.MinText, w.MaxText, w.MinNum, w.MaxNum} {
			b = binary.AppendUvarint(b, uint64(len(x.Text)))
			b = append(b, x.Text...)
			if i < 2 {
				b = binary.AppendVarint(b, x.Day)
			}
		}
		b = appendHolistic(b, w)
	}
	return b
}

// decodeWords reads what appendWords wrote at the start of b, every key
// below limit: the map (nil for no entries) and the rest of b.
func decodeWords(b []byte, limit int) (map[int]*Words, []byte, error) {
	bad := errors.New("words: malformed binary form")
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b))/9 {
		return nil, nil, bad
	}
	b = b[k:]
	var m map[int]*Words
	for range n {
		at, k := binary.Uvarint(b)
		if k <= 0 || at >= uint64(limit) {
			return nil, nil, bad
		}
		b = b[k:]
		if _, dup := m[int(at)]; dup {
			return nil, nil, bad
		}
		w := slotWords(&m, int(at))
		for i, x := range [6]*Word{&w.MinDate, &w.MaxDate, &w.MinText, &w.MaxText, &w.MinNum, &w.MaxNum} {
			l, k := binary.Uvarint(b)
			if k <= 0 || l > uint64(len(b)-k) {
				return nil, nil, bad
			}
			x.Text = string(b[k : k+int(l)])
			b = b[k+int(l):]
			if i >= 4 && x.Text != "" {
				m, sc, err := parseWide([]byte(x.Text))
				if err != nil {
					return nil, nil, bad
				}
				*[2]*numVal{&w.minNum, &w.maxNum}[i-4] = numVal{m, sc}
			}
			if i < 2 {
				d, k := binary.Varint(b)
				if k <= 0 {
					return nil, nil, bad
				}
				x.Day = d
				b = b[k:]
			}
		}
		var err error
		if b, err = decodeHolistic(b, w); err != nil {
			return nil, nil, err
		}
	}
	return m, b, nil
}
