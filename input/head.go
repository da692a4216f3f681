package input

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Head returns a copy of the first n bytes of the regular file at path (all
// of it if shorter), read so that the page cache is left as a scan by Open
// wants it. It maps the file with MADV_HUGEPAGE and MADV_RANDOM (no
// readahead) and copies from the mapping: of a file the cache lacks, the
// scan's mapping after it then reads every block in 2 MiB folios
// (TestHeadLeavesHugeFolios). A pread (or preadv2 with RWF_NOWAIT, which
// starts readahead even as it fails) or a sequential mapping left most of
// a file in small folios for a seq scan after it (docs/experiments.md,
// 2026-12-06).
// Where those bytes are in the page cache already (cachestat(2), Linux
// 6.5 on), they are read by pread(2) instead: no mapping to make, fault and
// unmap, whose TLB shootdown reaches every core the process runs on
// (docs/experiments.md, 2026-12-07), and no readahead to fear, the pages
// being there.
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
	if cached(int(fd.Fd()), size) {
		b = make([]byte, size)
		n, err := unix.Pread(int(fd.Fd()), b, 0)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		return b[:n], nil
	}
	data, err := unix.Mmap(int(fd.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	defer unix.Munmap(data)
	unix.Madvise(data, unix.MADV_HUGEPAGE) // (EINVAL where THP is off: no matter)
	unix.Madvise(data, unix.MADV_RANDOM)
	if err := guarded(func() { b = append([]byte(nil), data...) }); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// cached reports whether the first size bytes of the file fd are all in
// the page cache (false where the kernel has no cachestat).
func cached(fd, size int) bool {
	var st unix.Cachestat_t
	r := unix.CachestatRange{Len: uint64(size)}
	if unix.Cachestat(uint(fd), &r, &st, 0) != nil {
		return false
	}
	page := uint64(os.Getpagesize())
	return st.Cache >= (uint64(size)+page-1)/page
}
