//go:build !amd64

package scan

const dequotePortable = 0

// dequoters: no vector dequote here.
func dequoters() []int { return []int{dequotePortable} }

// dequoter is the dequote quoteBatch uses.
var dequoter = dequotePortable

// vectorBlocks is never called where dequoter is dequotePortable.
func vectorBlocks(d int, dst, src []byte, blocks int, sep byte, s *dequote) int {
	panic("scan: no vector dequote on this architecture")
}

const quotedLeadAsm = false

func quotedLeadWords(mk *marks, words int, last uint64, src *byte, v0 int) (ok bool, sp int, nz uint64) {
	panic("scan: no quotedLeadWords on this architecture")
}
