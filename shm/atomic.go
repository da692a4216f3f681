package shm

// This is shm's one file that uses unsafe (scan's is huge_linux.go, for
// madvise; tests aside): sync/atomic works on a
// *uint64, and a shared region is a []byte. The offsets are checked (8-byte
// aligned, inside the region) before the conversion, and the region's mapping
// is page-aligned, so every such word is naturally aligned. Atomic
// operations on MAP_SHARED memory are atomic across processes too: they are
// plain locked instructions on the same physical memory.

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

func (r *Region) word(off int) *uint64 {
	if off < 0 || off%8 != 0 || off+8 > len(r.data) {
		panic(fmt.Sprintf("shm: word at offset %d of a %d-byte region", off, len(r.data)))
	}
	return (*uint64)(unsafe.Pointer(&r.data[off]))
}

// Add atomically adds delta to the word at off and returns the new value.
func (r *Region) Add(off int, delta uint64) uint64 { return atomic.AddUint64(r.word(off), delta) }

// Load atomically reads the word at off.
func (r *Region) Load(off int) uint64 { return atomic.LoadUint64(r.word(off)) }

// Store atomically writes the word at off. Writes before it are visible to
// a process that Loads the new value (a release/acquire pair), which is what
// a completion marker needs.
func (r *Region) Store(off int, v uint64) { atomic.StoreUint64(r.word(off), v) }
