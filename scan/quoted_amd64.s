#include "textflag.h"

// The offsets of dequote's fields (quoted.go; TestDequoteLayout checks them).
#define DQ_INQ 0
#define DQ_PREVD 8
#define DQ_PREVN 16
#define DQ_PREVC 24
#define DQ_LASTNL 32
#define DQ_OUTNL 40
#define DQ_OUT 48
#define DQ_QUOTES 56
#define DQ_STOP 64

// func dequoteAVX512(dst, src *byte, blocks int, sep int, s *dequote) int
//
// dequote.block for each 64-byte block at src, with the masks from the
// bytes, and the block's kept bytes stored at dst: see quoteBatchWith. It
// reads blocks*64+2 bytes (each block's next two bytes too), and stops
// after the block where s.stop is set. It returns the bytes of src it
// took (a multiple of 64).
TEXT ·dequoteAVX512(SB), NOSPLIT, $8-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), AX
	MOVQ AX, left-8(SP)
	MOVQ sep+24(FP), AX
	VPBROADCASTB AX, Z10 // sep
	MOVQ $0x22, AX
	VPBROADCASTB AX, Z11 // '"'
	MOVQ $0x0A, AX
	VPBROADCASTB AX, Z12 // '\n'
	MOVQ $0x0D, AX
	VPBROADCASTB AX, Z13 // '\r'
	MOVQ $-1, AX
	MOVQ AX, X5 // all ones, for the prefix XOR
	MOVQ s+32(FP), BX
	MOVQ DQ_INQ(BX), R8
	MOVQ DQ_PREVD(BX), R9
	MOVQ DQ_PREVN(BX), R10
	MOVQ DQ_PREVC(BX), R11
	MOVQ DQ_QUOTES(BX), R14
	MOVQ DQ_OUT(BX), AX
	ADDQ AX, DI // DI - dst is s.out, the bytes kept, throughout

block:
	PREFETCHT0 4096(SI) // the next window's line, as the classifiers do
	VMOVDQU8   (SI), Z0
	VMOVDQU8 1(SI), Z1
	VPCMPEQB Z11, Z0, K1 // q
	VPCMPEQB Z10, Z0, K2
	VPCMPEQB Z12, Z0, K3 // n
	VPCMPEQB Z13, Z0, K4 // c
	KORQ     K2, K3, K2  // d
	VPCMPEQB Z10, Z1, K5
	VPCMPEQB Z12, Z1, K6
	KORQ     K5, K6, K5  // nd
	VPCMPEQB Z11, Z1, K6 // nq

	KMOVQ     K1, AX // q
	ORQ       AX, R14
	MOVQ      AX, X4
	PCLMULQDQ $0, X5, X4 // the prefix XOR: a carry-less product with all ones
	MOVQ      X4, BX
	XORQ      R8, BX // x
	MOVQ      BX, R8
	SARQ      $63, R8 // inq
	MOVQ      AX, DX
	ANDQ      BX, DX // open
	XORQ      DX, AX // close

	KMOVQ K2, R12 // d
	MOVQ  DX, CX
	NOTQ  CX
	ANDQ  BX, CX
	ANDQ  R12, CX // bad = a delimiter or LF inside quotes
	MOVQ  R12, R13
	SHLQ  $1, R13
	ORQ   R9, R13
	NOTQ  R13
	ANDQ  DX, R13
	ORQ   R13, CX // | a quote that opens no field
	SHRQ  $63, R12
	MOVQ  R12, R9 // prevD
	KMOVQ K5, R13
	NOTQ  R13
	ANDQ  AX, R13
	JNZ   crlf // a closing quote before no delimiter or LF: CR LF?

closed:
	KMOVQ K4, R12 // c
	MOVQ  R12, R13
	SHLQ  $1, R13
	ORQ   R11, R13
	ANDQ  AX, R13
	ORQ   R13, CX // | a CR before a closing quote
	SHRQ  $63, R12
	MOVQ  R12, R11 // prevC
	KMOVQ K3, R12 // n
	MOVQ  R12, R13
	SHLQ  $1, R13
	ORQ   R10, R13
	ANDQ  DX, R13
	KMOVQ K6, AX
	ANDQ  AX, R13
	ORQ   R13, CX // | a row that starts `""`
	MOVQ  R12, AX
	SHRQ  $63, AX
	MOVQ  AX, R10 // prevN
	NOTQ  BX
	ANDQ  BX, R12 // rows: LF outside quotes

	KNOTQ       K1, K1 // keep
	VPCOMPRESSB Z0, K1, Z3
	VMOVDQU8    Z3, (DI)
	MOVQ        CX, AX
	NEGQ        AX
	ANDQ        CX, AX
	DECQ        AX
	ANDQ        AX, R12 // the rows before the first bad byte (all if none)
	KMOVQ       K1, AX
	TESTQ       R12, R12
	JZ          norows
	BSRQ        R12, R13 // b
	MOVQ        $63, DX
	SUBQ        R13, DX
	SHLXQ       DX, AX, DX
	POPCNTQ     DX, DX
	MOVQ        DI, BX
	SUBQ        dst+0(FP), BX
	ADDQ        BX, DX
	MOVQ        s+32(FP), BX
	MOVQ        DX, DQ_OUTNL(BX)
	MOVQ        SI, DX
	SUBQ        src+8(FP), DX
	ADDQ        R13, DX
	MOVQ        DX, DQ_LASTNL(BX)

norows:
	POPCNTQ AX, AX
	ADDQ    AX, DI
	ADDQ    $64, SI
	TESTQ   CX, CX
	JNZ     stopped
	DECQ    left-8(SP)
	JNZ     block
	MOVQ    s+32(FP), BX
	JMP     done

stopped:
	MOVQ s+32(FP), BX
	MOVB $1, DQ_STOP(BX)

done:
	VZEROUPPER
	MOVQ R8, DQ_INQ(BX)
	MOVQ R9, DQ_PREVD(BX)
	MOVQ R10, DQ_PREVN(BX)
	MOVQ R11, DQ_PREVC(BX)
	MOVQ R14, DQ_QUOTES(BX)
	SUBQ dst+0(FP), DI
	MOVQ DI, DQ_OUT(BX)
	SUBQ src+8(FP), SI
	MOVQ SI, ret+40(FP)
	RET

crlf:
	// R13: the closing quotes before no delimiter or LF; those before CR
	// LF close a field, any other is out of place.
	VMOVDQU8 2(SI), Z2
	VPCMPEQB Z13, Z1, K7
	VPCMPEQB Z12, Z2, K7, K7 // ncl
	KMOVQ    K7, R12
	NOTQ     R12
	ANDQ     R12, R13
	ORQ      R13, CX
	JMP      closed
