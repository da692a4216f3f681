package scan

import "golang.org/x/sys/cpu"

// The vector dequotes (quoted_amd64.s), slowest first: dequoteAVX2 moves
// each 8 bytes' kept bytes together by PSHUFB, dequoteAVX512 a block's by
// VPCOMPRESSB (AVX-512 VBMI2).
const (
	dequotePortable = iota
	dequoteAVX2Way
	dequoteAVX512Way
)

// dequoters lists the dequotes this CPU runs, best last, so that tests
// check each against the reference.
func dequoters() []int {
	d := []int{dequotePortable}
	if cpu.X86.HasAVX2 && cpu.X86.HasPCLMULQDQ && cpu.X86.HasSSSE3 && cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT {
		d = append(d, dequoteAVX2Way)
	}
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI2 && cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT {
		d = append(d, dequoteAVX512Way)
	}
	return d
}

// dequoter is the dequote quoteBatch uses: the best this CPU runs.
var dequoter = func() int {
	d := dequoters()
	return d[len(d)-1]
}()

// dequoteAVX512 runs dequote.block over blocks 64-byte blocks at src (it
// reads 2 bytes past them: each block's byte after next), the masks
// from the bytes as masks makes them, storing each block's kept bytes at
// dst+s.out (whole 64-byte stores: dst must hold 64 bytes past them). It
// stops after the block that sets s.stop, and returns the bytes of src it
// took.
//
//go:noescape
func dequoteAVX512(dst, src *byte, blocks int, sep int, s *dequote) int

//go:noescape
func dequoteAVX2(dst, src *byte, blocks int, sep int, s *dequote, shuffle *[256]uint64) int

// shuffle8 is dequoteAVX2's PSHUFB controls: for each keep mask m of 8
// bytes, the indexes of its set bits in order, then 0x80 (a zero byte).
var shuffle8 = func() (t [256]uint64) {
	for m := range t {
		c, k := ^uint64(0)&0x8080808080808080, 0
		for i := range 8 {
			if m>>i&1 == 1 {
				c = c&^(0xff<<(8*k)) | uint64(i)<<(8*k)
				k++
			}
		}
		t[m] = c
	}
	return t
}()

// vectorBlocks is dequote way d (not dequotePortable) over the first
// blocks 64-byte blocks of src (src holds 2 bytes past them), writing to
// dst.
func vectorBlocks(d int, dst, src []byte, blocks int, sep byte, s *dequote) int {
	_ = src[blocks*64+1]
	_ = dst[s.out+blocks*64+63]
	if d == dequoteAVX2Way {
		return dequoteAVX2(&dst[0], &src[0], blocks, int(sep), s, &shuffle8)
	}
	return dequoteAVX512(&dst[0], &src[0], blocks, int(sep), s)
}

//go:noescape
func quotedLeadWords(mk *marks, words int, last uint64, src *byte, v0 int) (ok bool, sp int, nz uint64)

// quotedLeadAsm: quotedLeadOK takes quotedLeadWords, not the portable loop.
var quotedLeadAsm = cpu.X86.HasAVX2 && cpu.X86.HasPCLMULQDQ && cpu.X86.HasPOPCNT && cpu.X86.HasBMI1 && cpu.X86.HasBMI2
