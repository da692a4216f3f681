#include "textflag.h"

// ROWSTARTS ends a block in both classifiers: R8 holds its sp word, AX its
// nl word, BX its index. It stores the sp word, adds its bits to the counts
// (R13, at bit 21), rotates "is it non-zero" into the summary (R12: NEGQ
// sets CF iff its operand is not zero, RCRQ puts CF in the top bit), and
// keeps the carry (R11) for the next block's first byte.
#define ROWSTARTS \
	MOVQ    R8, 1536(DI)(BX*8) \
	POPCNTQ R8, R10 \
	SHLQ    $21, R10 \
	ADDQ    R10, R13 \
	MOVQ    R8, R10 \
	NEGQ    R10 \
	RCRQ    $1, R12 \
	MOVQ    AX, R11 \
	SHRQ    $63, R11

// func classifyAVX2(src *byte, blocks int, m *marks, v0 byte, carry uint64, sep int, ahead int) (next, counts, nz uint64)
// For each 64-byte block i: m.nl[i], m.cm[i], m.qt[i] = bitmaps of the
// bytes '\n', sep (the delimiter) and '"', and m.sp[i] = the row starts (a byte after '\n',
// or the first byte if carry is 1) whose byte is v0, '\r' or '\n' (v0
// made by firstBytes: one of the four bytes in its bits 16-47). marks is
// four [64]uint64: nl at 0, cm at 512, qt at 1024, sp at 1536. It returns
// the carry for the next block (the top bit of the last nl word) and the
// number of bits set in nl, sp and qt, packed as nl + sp<<21 + qt<<42, and
// a summary of sp: a bit per block, set if its word is not zero, block i at
// bit 64-blocks+i (blocks must be at most 64).
TEXT ·classifyAVX2(SB), NOSPLIT, $8-80
	MOVQ src+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ m+16(FP), DI
	MOVQ v0+24(FP), AX
	MOVQ AX, R14
	SHRQ $8, R14
	ANDQ $1, R14
	NEGQ R14 // every row start (v0 = everyRow): all ones, else 0
	VMOVQ AX, X0
	VPBROADCASTB X0, Y8 // v0
	MOVQ carry+32(FP), R11
	MOVQ $0x0A, AX
	VMOVQ AX, X0
	VPBROADCASTB X0, Y1 // '\n'
	MOVQ sep+40(FP), AX
	VMOVQ AX, X0
	VPBROADCASTB X0, Y2 // sep
	MOVQ $0x22, AX
	VMOVQ AX, X0
	VPBROADCASTB X0, Y3 // '"'
	MOVQ $0x0D, AX
	VMOVQ AX, X0
	VPBROADCASTB X0, Y10 // '\r'
	MOVQ v0+24(FP), AX // (Y0 last: the broadcasts above go through X0)
	MOVQ AX, R15
	SHRQ $9, R15
	ANDQ $1, R15 // firstSet: three more first bytes, v0's bits 24-47
	MOVQ R15, firstset-8(SP)
	MOVQ ahead+48(FP), R15 // the prefetch's distance (0: this line, no hint past src)
	MOVQ AX, R8
	SHRQ $24, R8
	VMOVQ R8, X0
	VPBROADCASTB X0, Y14
	SHRQ $8, R8
	VMOVQ R8, X0
	VPBROADCASTB X0, Y15
	SHRQ $8, R8
	VMOVQ R8, X0
	VPBROADCASTB X0, Y0
	XORQ BX, BX
	XORQ R12, R12 // sp summary
	XORQ R13, R13 // bit counts: nl + sp<<21 + qt<<42

loop:
	CMPQ BX, CX
	JGE  done
	PREFETCHT0 (SI)(R15*1) // the next window's line, as classifyAVX512 does
	VMOVDQU (SI), Y4
	VMOVDQU 32(SI), Y5

	VPCMPEQB  Y1, Y4, Y6
	VPCMPEQB  Y1, Y5, Y7
	VPMOVMSKB Y6, AX
	VPMOVMSKB Y7, DX
	SHLQ      $32, DX
	ORQ       DX, AX
	MOVQ      AX, (DI)(BX*8)
	POPCNTQ   AX, R10
	ADDQ      R10, R13

	// sp: (v0 | '\r' | '\n') at a row start, or every row start
	VPCMPEQB  Y8, Y4, Y9
	VPCMPEQB  Y10, Y4, Y11
	VPOR      Y9, Y11, Y9
	VPOR      Y6, Y9, Y9
	VPCMPEQB  Y8, Y5, Y12
	VPCMPEQB  Y10, Y5, Y13
	VPOR      Y12, Y13, Y12
	VPOR      Y7, Y12, Y12
	CMPQ      firstset-8(SP), $0
	JEQ       one
	VPCMPEQB  Y14, Y4, Y11
	VPOR      Y11, Y9, Y9
	VPCMPEQB  Y15, Y4, Y11
	VPOR      Y11, Y9, Y9
	VPCMPEQB  Y0, Y4, Y11
	VPOR      Y11, Y9, Y9
	VPCMPEQB  Y14, Y5, Y13
	VPOR      Y13, Y12, Y12
	VPCMPEQB  Y15, Y5, Y13
	VPOR      Y13, Y12, Y12
	VPCMPEQB  Y0, Y5, Y13
	VPOR      Y13, Y12, Y12

one:
	VPMOVMSKB Y9, R8
	VPMOVMSKB Y12, R9
	SHLQ      $32, R9
	ORQ       R9, R8
	ORQ       R14, R8
	MOVQ      AX, R10
	SHLQ      $1, R10
	ORQ       R11, R10
	ANDQ      R10, R8
	ROWSTARTS

	VPCMPEQB  Y2, Y4, Y6
	VPCMPEQB  Y2, Y5, Y7
	VPMOVMSKB Y6, AX
	VPMOVMSKB Y7, DX
	SHLQ      $32, DX
	ORQ       DX, AX
	MOVQ      AX, 512(DI)(BX*8)

	VPCMPEQB  Y3, Y4, Y6
	VPCMPEQB  Y3, Y5, Y7
	VPMOVMSKB Y6, AX
	VPMOVMSKB Y7, DX
	SHLQ      $32, DX
	ORQ       DX, AX
	MOVQ      AX, 1024(DI)(BX*8)
	POPCNTQ   AX, R10
	SHLQ      $42, R10
	ADDQ      R10, R13

	ADDQ $64, SI
	INCQ BX
	JMP  loop

done:
	VZEROUPPER
	MOVQ R11, next+56(FP)
	MOVQ R13, counts+64(FP)
	MOVQ R12, nz+72(FP)
	RET

// func classifyAVX512(src *byte, blocks int, m *marks, v0 byte, carry uint64, sep int, ahead int) (next, counts, nz uint64)
// classifyAVX2 with AVX-512BW: one 64-byte load, and compares straight into
// mask registers, so a block takes half the instructions. It leaves qt
// alone: its count is of the quote bits in all blocks ORed together, enough
// to say whether there is any (see classifyWith).
TEXT ·classifyAVX512(SB), NOSPLIT, $0-80
	MOVQ src+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ m+16(FP), DI
	MOVQ v0+24(FP), AX
	MOVQ AX, R14
	SHRQ $8, R14
	ANDQ $1, R14
	NEGQ R14 // every row start (v0 = everyRow): all ones, else 0
	VPBROADCASTB AX, Z8 // v0
	MOVQ AX, DX
	SHRQ $9, DX
	ANDQ $1, DX // firstSet: three more first bytes, v0's bits 24-47
	MOVQ AX, R8
	SHRQ $24, R8
	VPBROADCASTB R8, Z9
	SHRQ $8, R8
	VPBROADCASTB R8, Z11
	SHRQ $8, R8
	VPBROADCASTB R8, Z12
	MOVQ carry+32(FP), R11
	MOVQ $0x0A, AX
	VPBROADCASTB AX, Z1 // '\n'
	MOVQ sep+40(FP), AX
	VPBROADCASTB AX, Z2 // sep
	MOVQ $0x22, AX
	VPBROADCASTB AX, Z3 // '"'
	MOVQ $0x0D, AX
	VPBROADCASTB AX, Z10 // '\r'
	MOVQ ahead+48(FP), R15 // the prefetch's distance (0: this line, no hint past src)
	XORQ BX, BX
	XORQ R12, R12 // sp summary
	KXORQ K6, K6, K6
	XORQ R13, R13 // bit counts: nl + sp<<21 + qt<<42

loop512:
	CMPQ BX, CX
	JGE  done512
	PREFETCHT0 (SI)(R15*1) // the next window's line: 1.5-2% off 2 workers on 10M rows
	VMOVDQU64 (SI), Z4
	VPCMPEQB Z1, Z4, K1
	VPCMPEQB Z2, Z4, K2
	VPCMPEQB Z3, Z4, K3
	KORQ     K3, K6, K6 // quotes: only whether any, see classifyWith
	VPCMPEQB Z8, Z4, K4
	TESTQ    DX, DX
	JZ       one512
	VPCMPEQB Z9, Z4, K7
	KORQ     K7, K4, K4
	VPCMPEQB Z11, Z4, K7
	KORQ     K7, K4, K4
	VPCMPEQB Z12, Z4, K7
	KORQ     K7, K4, K4

one512:
	VPCMPEQB Z10, Z4, K5
	KMOVQ    K1, AX
	KMOVQ    K4, R8
	KMOVQ    K5, R9
	MOVQ     AX, (DI)(BX*8)
	KMOVQ    K2, 512(DI)(BX*8)
	POPCNTQ  AX, R10
	ADDQ     R10, R13
	ORQ      R9, R8
	ORQ      AX, R8
	ORQ      R14, R8
	LEAQ     (R11)(AX*2), R10 // row starts: nl<<1 | carry
	ANDQ     R10, R8
	ROWSTARTS
	ADDQ     $64, SI
	INCQ     BX
	JMP      loop512

done512:
	KMOVQ   K6, R9
	POPCNTQ R9, R9
	SHLQ    $42, R9
	ADDQ    R9, R13
	VZEROUPPER
	MOVQ R11, next+56(FP)
	MOVQ R13, counts+64(FP)
	MOVQ R12, nz+72(FP)
	RET
