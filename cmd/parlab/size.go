package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// byteSize is a flag of a size in bytes: a number, perhaps with a unit
// (B, KB, MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB, or K, M, G, T,
// in powers of 1024), as DuckDB's memory_limit reads one.
type byteSize int64

var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

func (s *byteSize) Set(v string) error {
	t := strings.TrimSpace(v)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	n, err := strconv.ParseFloat(t[:i], 64)
	unit, ok := sizeUnits[strings.ToLower(strings.TrimSpace(t[i:]))]
	if err != nil || !ok || n < 0 || n*unit >= math.MaxInt64 {
		return fmt.Errorf("%q is not a size (say 512MiB, 8GiB or 2GB)", v)
	}
	*s = byteSize(n * unit)
	return nil
}

func (s *byteSize) String() string {
	switch b := int64(*s); {
	case b == 0:
		return "0"
	case b%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", b>>30)
	case b%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", b>>20)
	default:
		return strconv.FormatInt(b, 10)
	}
}
