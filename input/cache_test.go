package input

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// State adds up Resident and Folios over its files; Warm leaves a file
// in 2 MiB folios already as it was, and evicts and reads back one in small
// folios (as read(2) by cat leaves a file), so that it maps by PMD.
func TestStateAndWarm(t *testing.T) {
	const size = 16 << 20
	big := writeInChunks(t, "big.csv", size, 2<<20)
	small := writeInChunks(t, "small.csv", size, 4096) // 4 KiB folios
	tiny := write(t, "tiny.csv", []byte("a,b\n1,2\n"))
	bigHuge, _ := folios(t, big)
	if bigHuge < size/2 {
		t.Skip("this filesystem or kernel keeps no 2 MiB folios: nothing maps by PMD")
	}
	c, err := State([]string{big, small, tiny})
	if err != nil {
		t.Fatal(err)
	}
	ps := os.Getpagesize()
	if c.Files != 3 || c.Bytes != 2*size+8 || c.Pages != 2*size/ps+1 || c.Resident != c.Pages {
		t.Errorf("State: %+v, want 3 files of %d bytes, every page resident", c, 2*size+8)
	}
	if !c.FolioKnown || c.Blocks != 2*size || c.Huge != bigHuge {
		t.Errorf("State: %+v, want %d block bytes, %d of them huge (big's)", c, 2*size, bigHuge)
	}
	if h := c.HugeFraction(); math.Abs(h-float64(bigHuge)/(2*size)) > 1e-9 {
		t.Errorf("HugeFraction %v", h)
	}

	if evicted, err := Warm(big); err != nil || evicted {
		t.Errorf("Warm of a file in 2 MiB folios: evicted %v, %v; want it left", evicted, err)
	}
	if huge, _ := folios(t, big); huge != bigHuge {
		t.Errorf("Warm changed big's folios: %d huge bytes, were %d", huge, bigHuge)
	}
	evicted, err := Warm(small)
	if err != nil || !evicted {
		t.Fatalf("Warm of a file in 4 KiB folios: evicted %v, %v; want it evicted", evicted, err)
	}
	c, err = State([]string{small})
	if err != nil {
		t.Fatal(err)
	}
	if c.ResidentFraction() != 1 || c.HugeFraction() < HugeEnough {
		t.Errorf("after Warm: %.3f resident, %.3f of the blocks in 2 MiB folios; want all and at least %.1f", c.ResidentFraction(), c.HugeFraction(), HugeEnough)
	}
	// A file with no whole block is read in, never evicted.
	if err := Evict(tiny); err != nil {
		t.Fatal(err)
	}
	if evicted, err := Warm(tiny); err != nil || evicted {
		t.Errorf("Warm of a file shorter than a block: evicted %v, %v", evicted, err)
	}
	if c, err := State([]string{tiny}); err != nil || c.ResidentFraction() != 1 || !math.IsNaN(c.HugeFraction()) {
		t.Errorf("tiny after Warm: %+v, %v", c, err)
	}

	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := Warm(missing); err == nil {
		t.Error("Warm of a missing file: no error")
	}
	if _, err := State([]string{big, missing}); err == nil {
		t.Error("State with a missing file: no error")
	}
	if f := (Cache{}).ResidentFraction(); f != 1 {
		t.Errorf("no pages: resident fraction %v, want 1", f)
	}
	if h := (Cache{Blocks: 1, Huge: 1}).HugeFraction(); !math.IsNaN(h) {
		t.Errorf("folios unknown: huge fraction %v, want NaN", h)
	}
}
