package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// hugeSize is a PMD's reach on x86-64 and arm64 with 4 KiB pages: a folio
// this large, aligned in the file, maps with one page-table entry.
const hugeSize = 2 << 20

// ErrNoFolioInfo says that this kernel cannot tell how a file's pages sit
// in the page cache: it lacks MADV_POPULATE_READ (before Linux 5.14) or
// FilePmdMapped in /proc/self/smaps (no transparent huge pages).
var ErrNoFolioInfo = errors.New("the kernel does not say how the page cache holds a file")

// Folios reports how the page cache holds path's whole 2 MiB blocks (a
// file's last part, shorter than 2 MiB, never maps by PMD, so it is left
// out): of the block bytes it holds (cached), how many are in 2 MiB folios
// (huge), which a mapping maps whole, one page-table entry (PMD) each. The
// rest map 4 KiB at a time: a page fault per 16 pages and a TLB entry per
// page, which docs/pagecache.md measures.
//
// It maps the file with MADV_HUGEPAGE and MADV_RANDOM (no readahead), maps
// in only the pages mincore finds cached (MADV_POPULATE_READ, run by run),
// and reads the mapping's FilePmdMapped from /proc/self/smaps. So it reads
// nothing from disk (unless a page is evicted between the two calls), and
// it leaves the cache as it was.
func Folios(path string) (huge, cached int64, err error) {
	fd, err := unix.Open(path, unix.O_RDONLY, 0)
	if err != nil {
		return 0, 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, 0, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	blocks := st.Size / hugeSize * hugeSize
	if blocks == 0 {
		return 0, 0, nil
	}
	b, err := unix.Mmap(fd, 0, int(blocks), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, 0, fmt.Errorf("mmap %s: %w", path, err)
	}
	defer unix.Munmap(b)
	unix.Madvise(b, unix.MADV_HUGEPAGE) // fails where THP is off: then nothing maps by PMD anyway
	if err := unix.Madvise(b, unix.MADV_RANDOM); err != nil {
		return 0, 0, fmt.Errorf("madvise %s: %w", path, err)
	}
	ps := os.Getpagesize()
	vec := make([]byte, len(b)/ps)
	if err := mincore(b, vec); err != nil {
		return 0, 0, fmt.Errorf("mincore %s: %w", path, err)
	}
	for i := 0; i < len(vec); {
		if vec[i]&1 == 0 {
			i++
			continue
		}
		j := i
		for j < len(vec) && vec[j]&1 != 0 {
			j++
		}
		cached += int64(j-i) * int64(ps)
		if err := unix.Madvise(b[i*ps:j*ps], unix.MADV_POPULATE_READ); err != nil {
			if err == unix.EINVAL {
				return 0, 0, ErrNoFolioInfo
			}
			return 0, 0, fmt.Errorf("populating %s: %w", path, err)
		}
		i = j
	}
	kb, err := smapsKB(addr(b), "FilePmdMapped")
	if err != nil {
		return 0, 0, err
	}
	return kb[0] << 10, cached, nil
}

// smapsKB returns the values, in bytes/1024, of the given fields of
// /proc/self/smaps's entry for the mapping that starts at start.
// ErrNoFolioInfo if the entry lacks one.
func smapsKB(start uintptr, fields ...string) ([]int64, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := []byte(strconv.FormatUint(uint64(start), 16) + "-")
	vals, found := make([]int64, len(fields)), 0
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Bytes()
		k, v, ok := bytes.Cut(l, []byte(":"))
		if !ok || bytes.IndexByte(k, ' ') >= 0 {
			// An entry's first line: "start-end perms offset dev inode path".
			if in {
				break
			}
			in = bytes.HasPrefix(l, head)
			continue
		}
		if !in {
			continue
		}
		for i, name := range fields {
			if string(k) == name {
				n, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("/proc/self/smaps: %s: %w", l, err)
				}
				vals[i] = n
				found++
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if found < len(fields) {
		return nil, ErrNoFolioInfo
	}
	return vals, nil
}
