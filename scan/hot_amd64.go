package scan

import "golang.org/x/sys/cpu"

// hotAsm says whether bulkHot runs hotWalk: it needs BMI1, BMI2 and POPCNT
// (every CPU with AVX2 has them). Tests turn it off to check the portable
// loop against it.
var hotAsm = cpu.X86.HasBMI1 && cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT

// hotWalk is Table.hit in assembly over a whole window (hot_amd64.s): it
// walks its sp bits from where it stands and takes each row hit would
// take, checking it the same way, and adds what it took to r when it
// returns. It skips blank lines, and hands back (it.more = 1, the row at
// it.q, it.e) any row it does not take: one that hit would turn down. If
// adding would take a sum's fast part (Fixed.V) out of the int64 range, it
// adds nothing and puts the walk back as it was (it.more = 2), so that line
// adds the rows through Fixed.Add. it.more = 0 when no bit is left.
//
// Its parse differs from parseCents only in how the digits become a
// number: checked the same way and shifted to the top of a word as in
// eightDigits, they are summed by byte lane over the window's rows, with
// the multiplications done once a call, not once a value.
//
//go:noescape
func hotWalk(it *hotState, window *byte, mk *marks, r *Result)

// bulkHot lets hotWalk take the rows of the window at wb that it can, and
// line the rows it hands back, while every sum is in cents. It reports
// whether they still are; if not, it leaves the rest of the walk in it.
func (t *Table) bulkHot(it *hotState, r *Result, mk *marks, wb int) (bool, error) {
	if !hotAsm {
		return true, nil
	}
	t.b.fillHot(it, t.data, wb)
	w := &t.data[wb]
	for hotWalk(it, w, mk, r); it.more != 0; hotWalk(it, w, mk, r) {
		if it.more == 2 {
			return false, nil // a sum leaves V's range: line adds the rows
		}
		if err := t.line(wb+it.q, wb+it.e, r, mk, wb); err != nil {
			return false, err
		}
		if !t.cents(r) {
			return false, nil
		}
	}
	return true, nil
}
