// Package shm owns every memory mapping parlab makes: read-only mappings of
// the input files, and the shared result region that child processes write
// (region.go). It also keeps the two copying input paths, so users can
// measure what zero-copy buys: how bytes arrive is decided here, and nothing
// downstream knows which path was taken.
//
// # The SIGBUS hazard
//
// A mapping of a file is only as long-lived as the file's length: if another
// process truncates a file while it is mapped, touching a page past the new
// end raises SIGBUS. The Go runtime turns that into a fatal "unexpected fault
// address" unless the goroutine has called debug.SetPanicOnFault(true), in
// which case it is a recoverable panic. Package spawn scans with that set and
// reports such a fault as an error naming the file, never as a wrong total.
// The copying modes (ReadAt, Read) are immune: they own their bytes.
package shm

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"golang.org/x/exp/mmap"
	"golang.org/x/sys/unix"
)

// Mode is how an input file's bytes arrive.
type Mode int

const (
	// Mmap maps the file read-only and scans the page cache in place: no copy.
	Mmap Mode = iota
	// ReadAt maps it with golang.org/x/exp/mmap, whose ReaderAt copies the
	// bytes out into a buffer of ours.
	ReadAt
	// Read reads the file with read(2) into a buffer: one copy, no mapping.
	Read
)

var modeNames = []string{"mmap", "readat", "read"}

func (m Mode) String() string { return modeNames[m] }

// ParseMode parses "mmap", "readat" or "read".
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if s == n {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown --io %q (want mmap, readat or read)", s)
}

// Options tune the Mmap mode.
type Options struct {
	// Populate asks the kernel to map every page at open
	// (MADV_POPULATE_READ): one system call instead of a page fault per
	// 2 MiB folio (or per fault-around block) during the scan. Kernels
	// before 5.14 lack it; there the pages fault in during the scan.
	Populate bool
}

// File is one input file's bytes.
type File struct {
	Name   string
	data   []byte
	mapped bool
}

// Open opens path and makes its bytes available in the given mode.
func Open(path string, mode Mode, opt Options) (*File, error) {
	f := &File{Name: path}
	var err error
	switch mode {
	case Mmap:
		f.data, err = mapFile(path, opt)
		f.mapped = f.data != nil
	case ReadAt:
		f.data, err = readAtFile(path)
	case Read:
		f.data, err = readFile(path)
	default:
		err = fmt.Errorf("unknown mode %d", mode)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Bytes returns the file's contents. For a mapped file the slice points into
// the page cache: it is valid until Close, and only while no one truncates
// the file (see the package comment). Never write to it.
func (f *File) Bytes() []byte { return f.data }

// Mapped reports whether Bytes is a mapping (and so must not outlive Close).
func (f *File) Mapped() bool { return f.mapped }

// Populate faults in the pages of Bytes()[off:off+n] of a mapped file, so
// that a worker pays for its own pages before its scan, and workers pay in
// parallel. It does nothing for a copied file.
//
// It reads a byte of every page, so each page not yet mapped faults, and
// the kernel's fault-around maps its cached neighbours with it (16 pages a
// fault by default). madvise(MADV_POPULATE_READ) maps one page at a time
// through get_user_pages: with it, 2 goroutines on the 10M set took 108 ms,
// against 105 reading a byte a page and 93 with the pages faulted in during
// the scan; the newline floor 77 ms against 72 and 64. Reading a page that
// is gone (the file was truncated) raises SIGBUS, which the caller must be
// ready for as for the scan (see debug.SetPanicOnFault).
func (f *File) Populate(off, n int) {
	if !f.mapped || n <= 0 {
		return
	}
	b := f.data[off:min(off+n, len(f.data))]
	var x byte
	for i := 0; i < len(b); i += pageSize {
		x ^= b[i]
	}
	if len(b) > 0 {
		x ^= b[len(b)-1] // the last page, if the range ends part way into it
	}
	runtime.KeepAlive(x) // the reads are the point: keep them
}

var pageSize = os.Getpagesize()

// Close releases the bytes. Close is idempotent.
func (f *File) Close() error {
	d, m := f.data, f.mapped
	f.data, f.mapped = nil, false
	if m {
		return unix.Munmap(d)
	}
	return nil
}

func mapFile(path string, opt Options) ([]byte, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fd.Close() // the mapping outlives the descriptor
	st, err := fd.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	size := st.Size()
	if size == 0 {
		return nil, nil // mmap of length 0 is EINVAL; an empty file has no bytes
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("%s: too large to map", path)
	}
	data, err := unix.Mmap(int(fd.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	// MADV_HUGEPAGE: pages the cache lacks come back from disk, through the
	// mapping's faults, in 2 MiB folios (the kernel's mmap readahead does
	// that for VM_HUGEPAGE), and a 2 MiB folio maps with one PMD: one fault
	// where there were 32, and a page table less to tear down at unmap.
	// Refilled that way, the 10M set took 2 goroutines 55 ms, not 72, and
	// 2 worker processes 62, not 85 (15 alternating runs). Where THP is off
	// it fails (EINVAL) and changes nothing: the error is of no consequence.
	unix.Madvise(data, unix.MADV_HUGEPAGE)
	// We read front to back once: let the kernel read ahead aggressively.
	if err := unix.Madvise(data, unix.MADV_SEQUENTIAL); err != nil {
		unix.Munmap(data)
		return nil, fmt.Errorf("madvise %s: %w", path, err)
	}
	// Populated after MADV_HUGEPAGE, not by MAP_POPULATE in mmap, which
	// reads what is not cached before the advice can apply: a cold 1M set
	// came back in small folios that way, and every later run paid for it.
	// A file truncated meanwhile is an error here, not a SIGBUS.
	if opt.Populate {
		if err := unix.Madvise(data, unix.MADV_POPULATE_READ); err != nil && err != unix.EINVAL {
			unix.Munmap(data)
			return nil, fmt.Errorf("populating %s: %w", path, err)
		}
	}
	return data, nil
}

func readAtFile(path string) ([]byte, error) {
	r, err := mmap.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	buf := make([]byte, r.Len())
	if _, err := r.ReadAt(buf, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf, nil
}

func readFile(path string) ([]byte, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	buf := make([]byte, st.Size())
	if _, err := io.ReadFull(fd, buf); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return buf, nil
}

// Evict asks the kernel to drop path's pages from the page cache
// (posix_fadvise POSIX_FADV_DONTNEED), so the next read comes from disk: the
// bench's --cold. It touches only this file, never the whole cache; pages
// that a live mapping still holds stay.
func Evict(path string) error {
	fd, err := unix.Open(path, unix.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Fdatasync(fd); err != nil && err != unix.EINVAL {
		return err
	}
	return unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
}

// Resident reports how many of path's pages the page cache holds, and how
// many it has (mincore(2) over a mapping of the file, which maps but does
// not fault: asking changes nothing). The bench reports it before the
// first round and after the last: a trial that finds the data gone from
// the cache measures the disk, not the scan.
func Resident(path string) (resident, pages int, err error) {
	fd, err := unix.Open(path, unix.O_RDONLY, 0)
	if err != nil {
		return 0, 0, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, 0, err
	}
	if st.Size == 0 {
		return 0, 0, nil
	}
	b, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, 0, err
	}
	defer unix.Munmap(b)
	vec := make([]byte, (len(b)+os.Getpagesize()-1)/os.Getpagesize())
	if err := mincore(b, vec); err != nil {
		return 0, 0, fmt.Errorf("mincore: %w", err)
	}
	for _, v := range vec {
		resident += int(v & 1)
	}
	return resident, len(vec), nil
}
