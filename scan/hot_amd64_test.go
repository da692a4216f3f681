package scan

import (
	"testing"
	"unsafe"
)

// hot_amd64.s reads hotState, marks and Result by fixed offsets.
func TestHotStateLayout(t *testing.T) {
	var it hotState
	var m marks
	var r Result
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"base", unsafe.Offsetof(it.base), 0},
		{"avail", unsafe.Offsetof(it.avail), 8},
		{"mk", unsafe.Offsetof(it.mk), 16},
		{"r", unsafe.Offsetof(it.r), 24},
		{"nz", unsafe.Offsetof(it.nz), 32},
		{"cur", unsafe.Offsetof(it.cur), 40},
		{"w", unsafe.Offsetof(it.w), 48},
		{"wz", unsafe.Offsetof(it.wz), 56},
		{"keep", unsafe.Offsetof(it.keep), 64},
		{"vword", unsafe.Offsetof(it.vword), 72},
		{"vmask", unsafe.Offsetof(it.vmask), 80},
		{"ncm", unsafe.Offsetof(it.ncm), 88},
		{"need", unsafe.Offsetof(it.need), 96},
		{"nsum", unsafe.Offsetof(it.nsum), 104},
		{"q", unsafe.Offsetof(it.q), 120},
		{"e", unsafe.Offsetof(it.e), 128},
		{"more", unsafe.Offsetof(it.more), 136},
		{"sums", unsafe.Offsetof(it.sums), 144},
		{"sums[1].slot", unsafe.Offsetof(it.sums) + unsafe.Sizeof(it.sums[0]) + unsafe.Offsetof(it.sums[0].slot), 147},
		{"marks.nl", unsafe.Offsetof(m.nl), 0},
		{"marks.cm", unsafe.Offsetof(m.cm), 512},
		{"marks.sp", unsafe.Offsetof(m.sp), 1536},
		{"Result.Rows", unsafe.Offsetof(r.Rows), 0},
		{"Result.Matched", unsafe.Offsetof(r.Matched), 8},
		{"Result.Sums", unsafe.Offsetof(r.Sums), 24},
		{"Fixed", unsafe.Sizeof(r.Sums[0]), 16},
	} {
		if c.got != c.want {
			t.Errorf("%s at %d, hot_amd64.s has %d", c.name, c.got, c.want)
		}
	}
}
