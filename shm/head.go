package shm

import (
	"fmt"
	"os"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// Head returns a copy of the first n bytes of the regular file at path (all
// of it if shorter), read so that the page cache is left as a scan by Open
// wants it. It maps the file with MADV_HUGEPAGE and MADV_RANDOM and copies
// from the mapping: a file the cache lacks then comes in as one 2 MiB folio
// without a readahead mark, and the scan's mapping reads the rest in 2 MiB
// folios too. A pread (or preadv2 with RWF_NOWAIT, which starts readahead
// even as it fails) or a sequential mapping left most of a 59 MB file in
// small folios for a seq scan after it (docs/experiments.md, 2026-12-06).
// It never blocks on a FIFO; a fault (the file was truncated meanwhile) is
// ErrFault.
func Head(path string, n int) (b []byte, err error) {
	fd, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	size := int(min(st.Size(), int64(n)))
	if size <= 0 {
		return nil, nil
	}
	data, err := unix.Mmap(int(fd.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	defer unix.Munmap(data)
	unix.Madvise(data, unix.MADV_HUGEPAGE) // (EINVAL where THP is off: no matter)
	unix.Madvise(data, unix.MADV_RANDOM)
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if a, ok := r.(interface{ Addr() uintptr }); ok {
				b, err = nil, fmt.Errorf("%s: %w at %#x", path, ErrFault, a.Addr())
				return
			}
			panic(r)
		}
	}()
	return append([]byte(nil), data...), nil
}
