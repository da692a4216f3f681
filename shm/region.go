// Package shm is the memory parlab shares between processes: the result
// region that child processes write (Region: a memfd mapped MAP_SHARED by
// both sides, with atomic words across processes) and anonymous memory
// files (NewMemFile, MemFilePath) that a child maps by path. atomic.go is
// its one file with unsafe. How input files are mapped is package input's.
package shm

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Region is memory shared between a parent and the child processes it
// starts with fork+exec.
//
// MAP_SHARED|MAP_ANONYMOUS memory survives fork() but not exec: the new
// program image gets a fresh address space. And a Go program cannot safely
// fork without exec (only the forking thread survives, the runtime's other
// threads do not). So the region is anonymous memory with a name the kernel
// can hand over: memfd_create makes it, ftruncate sizes it, and both sides
// map the descriptor MAP_SHARED. The parent passes the descriptor to each
// child in syscall.ProcAttr.Files; memfd pages live in RAM (tmpfs), never on
// disk, and vanish when the last descriptor and mapping are gone.
//
// The byte layout of what goes in a region is the business of its user
// (package spawn documents parlab's in one place).
type Region struct {
	fd   int
	data []byte
}

// NewRegion creates a zero-filled shared region of size bytes. Its
// descriptor is close-on-exec: only a child that is handed it explicitly (as
// ProcAttr.Files does, with dup2) inherits it.
func NewRegion(size int) (*Region, error) {
	fd, err := unix.MemfdCreate("parlab-results", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("ftruncate memfd: %w", err)
	}
	return mapRegion(fd, size)
}

// OpenRegion maps a region whose descriptor fd was inherited from the
// parent. The Region owns fd from now on.
func OpenRegion(fd int) (*Region, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("shared region on fd %d: %w", fd, err)
	}
	return mapRegion(fd, int(st.Size))
}

func mapRegion(fd, size int) (*Region, error) {
	if size <= 0 {
		unix.Close(fd)
		return nil, fmt.Errorf("shared region of %d bytes", size)
	}
	data, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("mmap shared region: %w", err)
	}
	return &Region{fd: fd, data: data}, nil
}

// Fd is the region's descriptor, to hand to a child.
func (r *Region) Fd() int { return r.fd }

// Bytes is the shared memory. Valid until Close. Writes are seen by every
// process that maps the region; use the atomic accessors (atomic.go) for
// words that another process may touch at the same time.
func (r *Region) Bytes() []byte { return r.data }

// Close unmaps the region and closes its descriptor. Idempotent.
func (r *Region) Close() error {
	if r.data == nil {
		return nil
	}
	err := unix.Munmap(r.data)
	if cerr := unix.Close(r.fd); err == nil {
		err = cerr
	}
	r.data, r.fd = nil, -1
	return err
}
