package input

import (
	"errors"
	"fmt"
	"io"
	"os"
	"parlab/internal/names"
	"runtime"
	"runtime/debug"
	"strings"

	"golang.org/x/exp/mmap"
	"golang.org/x/sys/unix"
)

// Mode is how an input file's bytes arrive.
type Mode int

const (
	// Mmap maps the file read-only and scans the page cache in place: no copy.
	Mmap Mode = iota
	// ReadAt maps it with golang.org/x/exp/mmap, whose ReaderAt copies the
	// bytes out into a buffer of ours, a piece at a time (File.ReadAt).
	ReadAt
	// Read reads the file with pread(2) into a buffer, a piece at a time:
	// one copy, no mapping.
	Read
)

// modes is the registry of I/O modes, in Mode order: each one's name and
// what it does, for parsing and for help text.
var modes = names.Table{
	{Name: "mmap", Help: "zero-copy"},
	{Name: "readat", Help: "x/exp/mmap, copies"},
	{Name: "read", Help: "read(2)"},
}

func (m Mode) String() string { return modes.Name(int(m)) }

// ParseMode parses a mode's name: "mmap", "readat" or "read".
func ParseMode(s string) (Mode, error) {
	i, err := modes.Parse("I/O mode", s)
	return Mode(i), err
}

// MarshalText and UnmarshalText name a Mode in flags (flag.TextVar) and
// JSON.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

func (m *Mode) UnmarshalText(b []byte) error { return names.Unmarshal(modes, "I/O mode", b, m) }

// ModeHelp lists the modes and what each does, for help text.
func ModeHelp() string { return modes.Help() }

// Options tune the modes.
type Options struct {
	// Buffer is the copying modes' read buffer, per worker, in bytes; 0:
	// the default (1 MiB). Tests make it small to cut files into many
	// pieces.
	Buffer int
	// Populate asks the kernel to map every page at open
	// (MADV_POPULATE_READ): one system call instead of a page fault per
	// 2 MiB folio (or per fault-around block) during the scan. Kernels
	// before 5.14 lack it; there the pages fault in during the scan.
	Populate bool
	// Transient, for the Read mode: the file is opened for each ReadAt
	// and closed after, not held open, so that a set of more files than
	// the process may hold descriptors (or mappings) for can be read.
	Transient bool
}

// File is one input file, opened in one Mode: mapped whole (Bytes), or
// read in pieces (ReadAt) by the copying modes, which hold no more of the
// file in memory than their callers' buffers.
type File struct {
	Name   string
	mode   Mode
	size   int
	data   []byte         // Mmap: the mapping (nil for an empty file)
	fd     *os.File       // Read: pread(2) through it (nil: transient)
	ra     *mmap.ReaderAt // ReadAt: x/exp/mmap's copy out of its own mapping
	mapped bool
	memory bool // a mapped memory file (memfd): its pages are shmem's (see SmallPages)
	// base and off: the path opened and where the bytes start in it (a
	// RegionPath's region; 0 for a file); transient: Options.Transient
	base      string
	off       int64
	transient bool
}

// ErrFault marks a memory fault on a mapping: the file was truncated while
// mapped (SIGBUS), caught by debug.SetPanicOnFault.
var ErrFault = errors.New("memory fault while reading the mapping (was the file truncated while in use?)")

// ErrNotRegular is returned for anything but a regular file (a FIFO, a
// device, a directory): parlab reads files, and a FIFO would block forever.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path and makes its bytes available in the given mode. It
// refuses anything but a regular file, and never blocks doing so: the file
// is opened with O_NONBLOCK (a FIFO opens at once) and checked by fstat
// before anything reads it.
//
// A RegionPath opens its region of a memory file as a file; the ReadAt mode
// reads one as the Read mode does (x/exp/mmap maps whole files only).
func Open(path string, mode Mode, opt Options) (*File, error) {
	if mode < Mmap || mode > Read {
		return nil, fmt.Errorf("unknown mode %d", mode)
	}
	base, off, n, err := splitRegion(path)
	if err != nil {
		return nil, err
	}
	fd, err := os.OpenFile(base, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := fd.Stat()
	if err != nil {
		fd.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		fd.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	size := st.Size()
	if n >= 0 { // a region: it must lie in the file
		if off+n > size {
			fd.Close()
			return nil, fmt.Errorf("%q: the region ends past the file's %d bytes", path, size)
		}
		size = n
		if mode == ReadAt {
			mode = Read
		}
	}
	if int64(int(size)) != size {
		fd.Close()
		return nil, fmt.Errorf("%s: too large", path)
	}
	f := &File{Name: path, mode: mode, size: int(size), base: base, off: off}
	switch mode {
	case Mmap:
		defer fd.Close() // the mapping outlives the descriptor
		f.data, err = mapFile(fd, path, off, f.size, opt)
		f.mapped = f.data != nil
		f.memory = f.mapped && strings.HasPrefix(path, "/proc/") && isMemFile(fd)
	case ReadAt:
		fd.Close()
		if f.size > 0 {
			f.ra, err = mmap.Open(path)
			if err == nil && f.ra.Len() != f.size {
				f.ra.Close()
				err = fmt.Errorf("%s: changed size while being opened", path)
			}
		}
	case Read:
		if f.transient = opt.Transient; f.transient {
			fd.Close()
		} else {
			f.fd = fd
		}
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Bytes returns a mapped file's contents; nil for the copying modes (use
// ReadAt) and for an empty file. The slice points into the page cache: it is
// valid until Close, and only while no one truncates the file (see the
// package comment). Never write to it.
func (f *File) Bytes() []byte { return f.data }

// Mapped reports whether Bytes is a mapping (and so must not outlive Close).
func (f *File) Mapped() bool { return f.mapped }

// Copying reports whether the file is read in pieces with ReadAt (modes
// ReadAt and Read) rather than mapped.
func (f *File) Copying() bool { return f.mode != Mmap }

// Size is the file's length when it was opened.
func (f *File) Size() int { return f.size }

// ReadAt fills p with the file's bytes at off, whole: a file that ends
// before off+len(p) (it shrank after Open) is an error naming it, and so is
// a fault on the ReadAt mode's mapping (ErrFault), never a crash. Safe for
// concurrent use. For a mapped file it copies from Bytes.
func (f *File) ReadAt(p []byte, off int) (err error) {
	n := 0
	switch {
	case f.mode == Mmap:
		n = copy(p, f.data[min(off, len(f.data)):])
	case f.mode == Read && f.transient:
		n, err = f.transientReadAt(p, off)
	case f.mode == Read:
		n, err = f.fd.ReadAt(p, f.off+int64(off))
	case f.ra != nil:
		n, err = f.guardedReadAt(p, off)
	}
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		return fmt.Errorf("%s: ends before byte %d (was it truncated while in use?)", f.Name, off+len(p))
	}
	return fmt.Errorf("read %s: %w", f.Name, err)
}

// transientReadAt opens the file, reads p at off, and closes it
// (Options.Transient).
func (f *File) transientReadAt(p []byte, off int) (int, error) {
	fd, err := os.OpenFile(f.base, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return 0, err
	}
	defer fd.Close()
	return fd.ReadAt(p, f.off+int64(off))
}

// guardedReadAt is x/exp/mmap's ReadAt, which copies out of a mapping, with
// a fault on it (the file was truncated: SIGBUS) turned into ErrFault.
func (f *File) guardedReadAt(p []byte, off int) (n int, err error) {
	if ferr := guarded(func() { n, err = f.ra.ReadAt(p, int64(off)) }); ferr != nil {
		return 0, ferr
	}
	return n, err
}

// guarded runs read, which reads a mapping, with a memory fault on it (the
// file was truncated: SIGBUS) turned into ErrFault at the fault's address.
// Any other panic goes on up.
func guarded(read func()) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if a, ok := r.(interface{ Addr() uintptr }); ok {
				err = fmt.Errorf("%w at %#x", ErrFault, a.Addr())
				return
			}
			panic(r)
		}
	}()
	read()
	return nil
}

// Populate faults in the pages of Bytes()[off:off+n] of a mapped file, so
// that a worker pays for its own pages before its scan, and workers pay in
// parallel. It does nothing for a copied file.
//
// It reads a byte of every page, so each page not yet mapped faults, and
// the kernel's fault-around maps its cached neighbours with it (16 pages a
// fault by default); docs/pagecache.md has the measurements against
// madvise(MADV_POPULATE_READ). Reading a page that is gone (the file was
// truncated) raises SIGBUS, which the caller must be ready for as for the
// scan (see debug.SetPanicOnFault).
//
// A memory file's pages (SmallPages) are mapped by MADV_POPULATE_READ
// instead, with no fault at all, in a third of the time faulting them in
// takes (docs/experiments.md, 2026-12-06). Where
// the madvise fails, the reads above run, and a page that is gone raises
// SIGBUS as they always do.
func (f *File) Populate(off, n int) {
	if !f.mapped || n <= 0 {
		return
	}
	b := f.data[off:min(off+n, len(f.data))]
	if f.memory {
		a := off &^ (pageSize - 1)
		if unix.Madvise(f.data[a:off+len(b)], unix.MADV_POPULATE_READ) == nil {
			return
		}
	}
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

// SmallPages reports whether f is a mapped memory file (a memfd: standard
// input, a decompressed or transcoded file, see package stage). Its pages
// are shmem's, 4 KiB where shmem's transparent huge pages are off (the
// default), so a scan would fault in 16 of them at a time where a file's
// page cache maps 2 MiB at a time: its scanners should Populate it first.
func (f *File) SmallPages() bool { return f.memory }

// isMemFile reports whether fd is a memfd (its /proc link names
// "/memfd:…"). A memfd is opened by a /proc path (MemFilePath: a child
// opens its parent's by /proc/PID/fd/N), so Open asks only for those, and
// a data set's files cost no extra system call.
func isMemFile(fd *os.File) bool {
	target, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd.Fd()))
	return err == nil && strings.HasPrefix(target, "/memfd:")
}

// Close releases the file. Close is idempotent.
func (f *File) Close() error {
	var err error
	if f.mapped {
		err = unix.Munmap(f.data)
	}
	if f.fd != nil {
		f.fd.Close()
	}
	if f.ra != nil {
		f.ra.Close()
	}
	f.data, f.mapped, f.fd, f.ra = nil, false, nil, nil
	return err
}

func mapFile(fd *os.File, path string, off int64, size int, opt Options) ([]byte, error) {
	if size == 0 {
		return nil, nil // mmap of length 0 is EINVAL; an empty file has no bytes
	}
	data, err := unix.Mmap(int(fd.Fd()), off, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	// MADV_HUGEPAGE: pages the cache lacks come back from disk, through the
	// mapping's faults, in 2 MiB folios (the kernel's mmap readahead does
	// that for VM_HUGEPAGE), and a 2 MiB folio maps with one PMD: one fault
	// where there were 32 (docs/pagecache.md). Where THP is off it fails
	// (EINVAL) and changes nothing: the error is of no consequence.
	unix.Madvise(data, unix.MADV_HUGEPAGE)
	// We read front to back once: let the kernel read ahead aggressively.
	if err := unix.Madvise(data, unix.MADV_SEQUENTIAL); err != nil {
		unix.Munmap(data)
		return nil, fmt.Errorf("madvise %s: %w", path, err)
	}
	// Populated after MADV_HUGEPAGE, not by MAP_POPULATE in mmap, which
	// reads what is not cached before the advice can apply (a cold set came
	// back in small folios that way). A file truncated meanwhile is an error
	// here, not a SIGBUS.
	if opt.Populate {
		if err := unix.Madvise(data, unix.MADV_POPULATE_READ); err != nil && err != unix.EINVAL {
			unix.Munmap(data)
			return nil, fmt.Errorf("populating %s: %w", path, err)
		}
	}
	return data, nil
}

// Evict asks the kernel to drop path's pages from the page cache
// (posix_fadvise POSIX_FADV_DONTNEED), so the next read comes from disk: the
// bench's --cold. It touches only this file, never the whole cache; pages
// that a live mapping still holds stay.
func Evict(path string) error {
	path = basePath(path)
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
	path = basePath(path) // (a region's: its whole memory file's)
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
