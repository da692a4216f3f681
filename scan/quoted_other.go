//go:build !amd64

package scan

// hasDequote: no vector dequote here.
var hasDequote = false

// vectorBlocks is never called where hasDequote is false.
func vectorBlocks(dst, src []byte, blocks int, sep byte, s *dequote) int {
	panic("scan: no vector dequote on this architecture")
}
