package main

import (
	"flag"
	"fmt"
	"math"

	"parlab/input"
)

// cache reports how the page cache holds each PATH's files and, with
// --warm, puts them there in 2 MiB folios first (input.Warm).
func (a *app) cache(args []string) error {
	fs := flag.NewFlagSet("cache", flag.ContinueOnError)
	warm := fs.Bool("warm", false, "read the files into the page cache in 2 MiB folios, evicting first a file held in small ones")
	pos, err := a.parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		pos = []string{"data/sales-1M"}
	}
	for _, p := range pos {
		paths, err := input.ExpandPaths([]string{p})
		if err != nil {
			return err
		}
		c, err := input.State(paths)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%s: %s\n", p, cacheLine(c))
		if !*warm {
			continue
		}
		evicted := 0
		for _, f := range paths {
			e, err := input.Warm(f)
			if err != nil {
				return err
			}
			if e {
				evicted++
			}
		}
		if c, err = input.State(paths); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%s: warmed (%d of %d files evicted and read back): %s\n", p, evicted, len(paths), cacheLine(c))
		if h := c.HugeFraction(); h < input.HugeEnough {
			fmt.Fprintf(a.stdout, "%s: still in small folios: the filesystem keeps them so (tmpfs, or ext4 before Linux 6.16), or another process maps them; a scan maps them 4 KiB at a time\n", p)
		}
	}
	return nil
}

// cacheLine is one line of a set's page-cache state.
func cacheLine(c input.Cache) string {
	s := fmt.Sprintf("%d files, %d bytes, %.1f%% in the page cache", c.Files, c.Bytes, 100*c.ResidentFraction())
	switch h := c.HugeFraction(); {
	case !c.FolioKnown:
		return s + "; the kernel does not say in which folios"
	case math.IsNaN(h):
		return s + "; no whole 2 MiB block cached, so no 2 MiB folio"
	default:
		return s + fmt.Sprintf(", %.1f%% of its whole 2 MiB blocks in 2 MiB folios", 100*h)
	}
}
