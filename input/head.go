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
	if err := guarded(func() { b = append([]byte(nil), data...) }); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
