package input

// This is input's one file that uses unsafe: mincore(2), which x/sys/unix
// does not wrap, needs the address of a mapping's first byte (Resident,
// Folios), as does finding a mapping in /proc/self/smaps (Folios).

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// mincore fills vec with a byte per page of the mapping b (bit 0: resident).
func mincore(b, vec []byte) error {
	if len(b) == 0 {
		return nil
	}
	if len(vec) < (len(b)+unix.Getpagesize()-1)/unix.Getpagesize() {
		panic("input: mincore vector shorter than the mapping's pages")
	}
	_, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if e != 0 {
		return e
	}
	return nil
}

// addr is the address of a mapping's first byte, as /proc/self/smaps names
// the mapping.
func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }
