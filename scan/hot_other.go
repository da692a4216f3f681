//go:build !amd64

package scan

// hotAsm: no hotWalk here (see hot_amd64.go).
const hotAsm = false

// bulkHot is hot_amd64.go's, where hotWalk exists: here every row is left
// to bulk's portable loop.
func (t *Table) bulkHot(it *hotState, r *Result, mk *marks, wb int, sc *rowScratch, lead int, leadVal []byte) error {
	return nil
}
