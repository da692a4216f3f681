package scan

import "golang.org/x/sys/cpu"

// hasDequote: the CPU has VPCOMPRESSB (AVX-512 VBMI2), and the BMI2
// and POPCNT that dequoteAVX512 uses beside it.
var hasDequote = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI2 && cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT

// dequoteAVX512 runs dequote.block over blocks 64-byte blocks at src (it
// reads 2 bytes past them: each block's byte after next), the masks
// from the bytes as masks makes them, storing each block's kept bytes at
// dst+s.out (whole 64-byte stores: dst must hold 64 bytes past them). It
// stops after the block that sets s.stop, and returns the bytes of src it
// took.
//
//go:noescape
func dequoteAVX512(dst, src *byte, blocks int, sep int, s *dequote) int

// vectorBlocks is dequoteAVX512 over the first blocks 64-byte blocks of
// src (src holds 2 bytes past them), writing to dst.
func vectorBlocks(dst, src []byte, blocks int, sep byte, s *dequote) int {
	_ = src[blocks*64+1]
	_ = dst[s.out+blocks*64+63]
	return dequoteAVX512(&dst[0], &src[0], blocks, int(sep), s)
}
