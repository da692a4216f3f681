package scan

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on amd64 and arm64 (4 KiB
// base pages).
const hugePage = 2 << 20

// adviseHuge asks (madvise MADV_HUGEPAGE) for huge pages over the whole
// 2 MiB pages that s[:cap(s)] covers, if it is hugeMin bytes or more. It
// must be called before the array is written, or the pages already touched
// stay small (the advice applies to faults to come); Go's heap hands a
// large new array over untouched when it comes fresh from the kernel.
//
// It is the one system call of this package (see the package comment): a
// hint, which changes how memory is backed, never what it holds. Safety: s,
// which the caller keeps, keeps the array alive during the call.
// An error (no THP in this kernel, an address the kernel declines) is
// ignored: the pages are then small, as without the advice.
func adviseHuge[T any](s []T) {
	s = s[:cap(s)]
	var t T
	size := uintptr(len(s)) * unsafe.Sizeof(t)
	if size < hugeMin {
		return
	}
	base := unsafe.Pointer(unsafe.SliceData(s))
	p := uintptr(base)
	a := (p + hugePage - 1) &^ (hugePage - 1) // the first whole huge page
	z := (p + size) &^ (hugePage - 1)         // and the end of the last
	if z > a {
		syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(base, a-p)), z-a), syscall.MADV_HUGEPAGE)
	}
}
