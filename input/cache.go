package input

import (
	"errors"
	"fmt"
	"math"
	"os"
)

// Cache is how the page cache holds a set of files (State).
type Cache struct {
	Files int
	Bytes int64
	// Pages is the files' pages (of the system's page size), Resident how
	// many of them the page cache holds.
	Pages, Resident int
	// Blocks is the bytes of the files' whole 2 MiB blocks that are
	// cached, Huge how many of those are in 2 MiB folios (Folios). Both
	// are 0 where the kernel does not say (FolioKnown false).
	Blocks, Huge int64
	FolioKnown   bool
}

// ResidentFraction is the fraction of the files' pages in the page cache
// (1 for files with no pages).
func (c Cache) ResidentFraction() float64 {
	if c.Pages == 0 {
		return 1
	}
	return float64(c.Resident) / float64(c.Pages)
}

// HugeFraction is the fraction of the cached bytes of whole 2 MiB blocks
// that are in 2 MiB folios: NaN where the kernel does not say or no whole
// block is cached.
func (c Cache) HugeFraction() float64 {
	if !c.FolioKnown || c.Blocks == 0 {
		return math.NaN()
	}
	return float64(c.Huge) / float64(c.Blocks)
}

// State reports how the page cache holds paths (regular files: a FIFO
// would block it). It reads nothing from disk and leaves the cache as it
// was (Resident, Folios).
func State(paths []string) (Cache, error) {
	c := Cache{Files: len(paths), FolioKnown: true}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return Cache{}, err
		}
		r, n, err := Resident(p)
		if err != nil {
			return Cache{}, fmt.Errorf("page cache of %s: %w", p, err)
		}
		c.Resident, c.Pages, c.Bytes = c.Resident+r, c.Pages+n, c.Bytes+st.Size()
		h, b, err := Folios(p)
		if errors.Is(err, ErrNoFolioInfo) {
			c.FolioKnown = false
		} else if err != nil {
			return Cache{}, fmt.Errorf("page cache of %s: %w", p, err)
		}
		c.Huge, c.Blocks = c.Huge+h, c.Blocks+b
	}
	if !c.FolioKnown {
		c.Huge, c.Blocks = 0, 0
	}
	return c, nil
}

// HugeEnough is the share of a set's cached whole 2 MiB blocks in 2 MiB
// folios below which Warm evicts a file before reading it back, and the
// bench and `parlab cache` warn: a scan of 4 KiB pages takes a page fault
// per 16 pages and a TLB entry per page (docs/pagecache.md measures it).
const HugeEnough = 0.9

// Warm puts path (a regular file: a FIFO would block it) in the page cache
// the way a scan wants it: every page cached and, where the kernel and the
// filesystem keep large folios, in 2 MiB folios. If less than HugeEnough
// of its cached whole blocks are in 2 MiB folios (as after a read(2) by
// cat, cp or another program filled the cache), it is evicted first
// (Evict; pages that another process maps stay); then it is mapped with
// MADV_HUGEPAGE and populated (MADV_POPULATE_READ), which reads what is
// missing from disk in 2 MiB folios. It reports whether it evicted. On a
// filesystem that keeps small folios (tmpfs, ext4 before Linux 6.16) the
// pages come back small, and a later Warm evicts them again: State tells.
func Warm(path string) (evicted bool, err error) {
	huge, blocks, err := Folios(path)
	if err != nil && !errors.Is(err, ErrNoFolioInfo) {
		return false, err
	}
	if err == nil && blocks > 0 && float64(huge) < HugeEnough*float64(blocks) {
		if err := Evict(path); err != nil {
			return false, fmt.Errorf("evicting %s: %w", path, err)
		}
		evicted = true
	}
	f, err := Open(path, Mmap, Options{Populate: true})
	if err != nil {
		return evicted, err
	}
	return evicted, f.Close()
}
