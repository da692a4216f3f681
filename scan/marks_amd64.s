#include "textflag.h"

// func classifyAVX2(src *byte, blocks int, m *marks)
// For each 64-byte block i: m.nl[i], m.cm[i], m.qt[i] = bitmaps of the
// bytes '\n', ',' and '"'. marks is three [64]uint64: nl at 0, cm at 512,
// qt at 1024.
TEXT ·classifyAVX2(SB), NOSPLIT, $0-24
	MOVQ src+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ m+16(FP), DI
	MOVQ $0x0A, AX
	MOVQ AX, X0
	VPBROADCASTB X0, Y1 // '\n'
	MOVQ $0x2C, AX
	MOVQ AX, X0
	VPBROADCASTB X0, Y2 // ','
	MOVQ $0x22, AX
	MOVQ AX, X0
	VPBROADCASTB X0, Y3 // '"'
	XORQ BX, BX

loop:
	CMPQ BX, CX
	JGE  done
	VMOVDQU (SI), Y4
	VMOVDQU 32(SI), Y5

	VPCMPEQB  Y1, Y4, Y6
	VPCMPEQB  Y1, Y5, Y7
	VPMOVMSKB Y6, AX
	VPMOVMSKB Y7, DX
	SHLQ      $32, DX
	ORQ       DX, AX
	MOVQ      AX, (DI)(BX*8)

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

	ADDQ $64, SI
	INCQ BX
	JMP  loop

done:
	VZEROUPPER
	RET
