package input

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"parlab/shm"
)

// RegionPath is a path that opens bytes [off, off+n) of f (a memory file
// that holds several inputs back to back: Stage packs many small
// ones so, one descriptor for thousands) as if they were a file of their
// own, in every Mode: shm.MemFilePath(f), a NUL byte, then "off:n". No real
// path holds a NUL, so no file is taken for one. off must be a multiple
// of the page size (a mapping starts on a page).
func RegionPath(f *os.File, off, n int64) string {
	return fmt.Sprintf("%s\x00%d:%d", shm.MemFilePath(f), off, n)
}

// splitRegion parses a RegionPath: the file's path, and the region (n -1
// for a plain path: the whole file).
func splitRegion(path string) (base string, off, n int64, err error) {
	i := strings.IndexByte(path, 0)
	if i < 0 {
		return path, 0, -1, nil
	}
	a, b, ok := strings.Cut(path[i+1:], ":")
	off, err1 := strconv.ParseInt(a, 10, 64)
	n, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || off < 0 || n < 0 || off%int64(pageSize) != 0 {
		return "", 0, 0, fmt.Errorf("%q: not a region of a file", path)
	}
	return path[:i], off, n, nil
}

// basePath is the file a RegionPath names (a plain path itself).
func basePath(path string) string {
	if i := strings.IndexByte(path, 0); i >= 0 {
		return path[:i]
	}
	return path
}
