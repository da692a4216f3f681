package scan

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestHugeAdvice checks that a large array makeHuge makes is advised for
// huge pages: the kernel marks its mapping "hg" (whether a fault then finds
// a free huge page is the kernel's business).
func TestHugeAdvice(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || bytes.Contains(mode, []byte("[never]")) {
		t.Skipf("no transparent huge pages here (%q, %v)", mode, err)
	}
	for range 3 {
		s := makeHuge[byte](16<<20, 16<<20)
		// the first whole huge page of the array (its head before it is
		// not advised, and the kernel keeps it apart)
		addr := (uint64(uintptr(unsafe.Pointer(&s[0]))) + hugePage - 1) &^ (hugePage - 1)
		if flags := vmFlags(t, addr); !slices.Contains(flags, "hg") {
			t.Fatalf("a 16 MiB array's mapping has the flags %v, no hg", flags)
		}
		runtime.KeepAlive(s) // past the read
	}
}

// vmFlags returns the VmFlags of the mapping that holds addr.
func vmFlags(t *testing.T, addr uint64) []string {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	in := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		first, _, _ := strings.Cut(line, " ")
		if lo, hi, ok := strings.Cut(first, "-"); ok { // a mapping's first line
			a, err1 := strconv.ParseUint(lo, 16, 64)
			z, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && a <= addr && addr < z
			continue
		}
		if v, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return strings.Fields(v)
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return nil
}
