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

// DQ_LOAD loads the dequote state at s (the frame's s+32) into the
// registers both dequotes keep it in: inq R8, prevD R9, prevN R10, prevC
// R11, quotes R14; DI moves on by s.out. BX and AX are scratch.
#define DQ_LOAD \
	MOVQ s+32(FP), BX \
	MOVQ DQ_INQ(BX), R8 \
	MOVQ DQ_PREVD(BX), R9 \
	MOVQ DQ_PREVN(BX), R10 \
	MOVQ DQ_PREVC(BX), R11 \
	MOVQ DQ_QUOTES(BX), R14 \
	MOVQ DQ_OUT(BX), AX \
	ADDQ AX, DI // DI - dst is s.out, the bytes kept, throughout

// DQ_STORE stores them back into the state at BX, s.out from DI, and
// leaves in SI the bytes of src taken, for the caller's result.
#define DQ_STORE \
	VZEROUPPER \
	MOVQ R8, DQ_INQ(BX) \
	MOVQ R9, DQ_PREVD(BX) \
	MOVQ R10, DQ_PREVN(BX) \
	MOVQ R11, DQ_PREVC(BX) \
	MOVQ R14, DQ_QUOTES(BX) \
	SUBQ dst+0(FP), DI \
	MOVQ DI, DQ_OUT(BX) \
	SUBQ src+8(FP), SI

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
	VMOVQ AX, X5 // all ones, for the prefix XOR (VEX: see classifyAVX2)
	DQ_LOAD

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
	VMOVQ      AX, X4
	VPCLMULQDQ $0, X5, X4, X4 // the prefix XOR: a carry-less product with all ones
	VMOVQ      X4, BX
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
	DQ_STORE
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

// MASK64(c, lo, hi, out, t) sets out to the 64-bit mask of the bytes of
// lo (bytes 0-31) and hi (32-63) equal to the broadcast c; t and Y8 are
// scratch.
#define MASK64(c, lo, hi, out, t) \
	VPCMPEQB  c, lo, Y8 \
	VPMOVMSKB Y8, out \
	VPCMPEQB  c, hi, Y8 \
	VPMOVMSKB Y8, t \
	SHLQ      $32, t \
	ORQ       t, out

// DMASK64(lo, hi, out, t): the mask of the bytes that are sep (Y10) or LF
// (Y12); Y8 and Y9 are scratch.
#define DMASK64(lo, hi, out, t) \
	VPCMPEQB  Y10, lo, Y8 \
	VPCMPEQB  Y12, lo, Y9 \
	VPOR      Y9, Y8, Y8 \
	VPMOVMSKB Y8, out \
	VPCMPEQB  Y10, hi, Y8 \
	VPCMPEQB  Y12, hi, Y9 \
	VPOR      Y9, Y8, Y8 \
	VPMOVMSKB Y8, t \
	SHLQ      $32, t \
	ORQ       t, out

// GROUP8(off) copies the kept bytes of the 8 at off(SI), whose keep mask
// is AX's low byte, to DI, by the shuffle table at BX; it moves DI past
// them and AX to the next group's byte.
#define GROUP8(off) \
	MOVBQZX AX, DX \
	VMOVQ   off(SI), X6 \
	VMOVQ   (BX)(DX*8), X7 \
	VPSHUFB X7, X6, X6 \
	VMOVQ   X6, (DI) \
	POPCNTQ DX, DX \
	ADDQ    DX, DI \
	SHRQ    $8, AX

// func dequoteAVX2(dst, src *byte, blocks int, sep int, s *dequote, shuffle *[256]uint64) int
//
// dequoteAVX512 for a CPU with AVX2, PCLMULQDQ, SSSE3 and POPCNT but no
// VPCOMPRESSB: the masks from two 32-byte halves, and the kept bytes of
// each 8 moved together by PSHUFB with the control shuffle[keep byte]
// (shuffle8). Same contract: it reads blocks*64+2 bytes, stores whole
// 8-byte words (dst must hold 64 bytes past what it keeps), and stops after
// the block where s.stop is set.
TEXT ·dequoteAVX2(SB), NOSPLIT, $8-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), AX
	MOVQ AX, left-8(SP)
	MOVQ sep+24(FP), AX
	VMOVQ AX, X0
	VPBROADCASTB X0, Y10 // sep
	MOVQ $0x22, AX
	VMOVQ AX, X0
	VPBROADCASTB X0, Y11 // '"'
	MOVQ $0x0A, AX
	VMOVQ AX, X0
	VPBROADCASTB X0, Y12 // '\n'
	MOVQ $0x0D, AX
	VMOVQ AX, X0
	VPBROADCASTB X0, Y13 // '\r'
	MOVQ $-1, AX
	VMOVQ AX, X5 // all ones, for the prefix XOR
	DQ_LOAD

block2:
	PREFETCHT0 4096(SI)
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 1(SI), Y2  // each byte's next
	VMOVDQU 33(SI), Y3

	MASK64(Y11, Y0, Y1, AX, DX) // q
	ORQ       AX, R14
	VMOVQ      AX, X4
	NOTQ       AX
	VMOVQ      AX, X15 // keep: every quote goes
	NOTQ       AX
	VPCLMULQDQ $0, X5, X4, X4 // the prefix XOR: a carry-less product with all ones
	VMOVQ      X4, BX
	XORQ       R8, BX // x
	VMOVQ      BX, X14 // (crlf2 needs BX)
	MOVQ      BX, R8
	SARQ      $63, R8 // inq
	MOVQ      AX, DX
	ANDQ      BX, DX // open
	XORQ      DX, AX // close

	DMASK64(Y0, Y1, R12, CX) // d
	MOVQ DX, CX
	NOTQ CX
	ANDQ BX, CX
	ANDQ R12, CX // bad = a delimiter or LF inside quotes
	MOVQ R12, R13
	SHLQ $1, R13
	ORQ  R9, R13
	NOTQ R13
	ANDQ DX, R13
	ORQ  R13, CX // | a quote that opens no field
	SHRQ $63, R12
	MOVQ R12, R9 // prevD
	DMASK64(Y2, Y3, R13, R12) // nd
	NOTQ R13
	ANDQ AX, R13
	JNZ  crlf2 // a closing quote before no delimiter or LF: CR LF?

closed2:
	MASK64(Y13, Y0, Y1, R12, R13) // c
	MOVQ R12, R13
	SHLQ $1, R13
	ORQ  R11, R13
	ANDQ AX, R13
	ORQ  R13, CX // | a CR before a closing quote
	SHRQ $63, R12
	MOVQ R12, R11 // prevC
	MASK64(Y12, Y0, Y1, R12, R13) // n
	MOVQ R12, R13
	SHLQ $1, R13
	ORQ  R10, R13
	ANDQ DX, R13
	MASK64(Y11, Y2, Y3, AX, DX) // nq
	ANDQ AX, R13
	ORQ  R13, CX // | a row that starts `""`
	MOVQ R12, AX
	SHRQ $63, AX
	MOVQ AX, R10 // prevN
	NOTQ BX
	ANDQ BX, R12 // rows: LF outside quotes

	VMOVQ X15, AX // keep
	MOVQ shuffle+40(FP), BX
	GROUP8(0)
	GROUP8(8)
	GROUP8(16)
	GROUP8(24)
	GROUP8(32)
	GROUP8(40)
	GROUP8(48)
	GROUP8(56)
	VMOVQ X15, AX // keep

	MOVQ CX, DX
	NEGQ DX
	ANDQ CX, DX
	DECQ DX
	ANDQ DX, R12 // the rows before the first bad byte (all if none)
	TESTQ R12, R12
	JZ    norows2
	// DI has moved past the block's kept bytes: the rows' end is
	// DI - dst - popcount(keep) + popcount(keep << (63-b)).
	BSRQ    R12, R13 // b
	MOVQ    $63, DX
	SUBQ    R13, DX
	SHLXQ   DX, AX, DX
	POPCNTQ DX, DX
	MOVQ    DI, BX
	SUBQ    dst+0(FP), BX
	ADDQ    BX, DX
	POPCNTQ AX, BX
	SUBQ    BX, DX
	MOVQ    s+32(FP), BX
	MOVQ    DX, DQ_OUTNL(BX)
	MOVQ    SI, DX
	SUBQ    src+8(FP), DX
	ADDQ    R13, DX
	MOVQ    DX, DQ_LASTNL(BX)

norows2:
	ADDQ  $64, SI
	TESTQ CX, CX
	JNZ   stopped2
	DECQ  left-8(SP)
	JNZ   block2
	MOVQ  s+32(FP), BX
	JMP   done2

stopped2:
	MOVQ s+32(FP), BX
	MOVB $1, DQ_STOP(BX)

done2:
	DQ_STORE
	MOVQ SI, ret+48(FP)
	RET

crlf2:
	// R13: the closing quotes before no delimiter or LF; those before CR
	// LF close a field, any other is out of place.
	VMOVDQU 2(SI), Y6
	VMOVDQU 34(SI), Y7
	VPCMPEQB Y13, Y2, Y8
	VPCMPEQB Y12, Y6, Y9
	VPAND    Y9, Y8, Y8
	VPMOVMSKB Y8, R12
	VPCMPEQB Y13, Y3, Y8
	VPCMPEQB Y12, Y7, Y9
	VPAND    Y9, Y8, Y8
	VPMOVMSKB Y8, BX
	SHLQ     $32, BX
	ORQ      BX, R12 // ncl
	NOTQ     R12
	ANDQ     R12, R13
	ORQ      R13, CX
	VMOVQ    X14, BX // x again
	JMP      closed2

// func quotedLeadWords(mk *marks, words int, last uint64, src *byte, v0 int) (ok bool, sp int, nz uint64)
//
// quotedLeadOK's test of mk's words 0..words-1 (the last one's bits past
// last, the mask of those that count, left out), a word at a time: the
// prefix XOR of the quotes by PCLMULQDQ, the carry into the next word by
// the parity of its quotes (POPCNT), so the words' products do not wait on
// each other. Where they pass, each word's sp becomes its row starts whose
// next byte (src's, at 64·word+bit+1: the row's quoted first field's
// first) is v0; sp counts their bits, nz has a bit for each word with
// any. marks is nl at 0, cm at 512, qt at 1024, sp at 1536. It
// reads the word after the last (nl's, or cm's first past nl's end: inside
// marks), whose bits past last cannot count.
TEXT ·quotedLeadWords(SB), NOSPLIT, $0-64
	MOVQ mk+0(FP), DI
	MOVQ $-1, AX
	VMOVQ AX, X1  // all ones, for the prefix XOR
	MOVQ v0+32(FP), R13
	VMOVQ R13, X4
	VPBROADCASTB X4, Y4 // v0
	XORQ R8, R8   // inq: all ones inside quotes at the word's start
	MOVQ $1, R9   // prevD: bit 0, the byte before is a delimiter or LF (a row's start)
	MOVQ $1, R10  // prevN: bit 0, the byte before is LF (a row's start)
	XORQ BX, BX
	XORQ CX, CX   // the sp bits
	MOVQ src+24(FP), R13
	INCQ R13      // the second byte of the word at BX

qlword:
	MOVQ 1024(DI)(BX*8), AX // q
	MOVQ (DI)(BX*8), DX     // nl
	MOVQ 512(DI)(BX*8), R11
	ORQ  DX, R11            // d
	VMOVQ AX, X0
	VPCLMULQDQ $0, X1, X0, X0
	VMOVQ X0, R12
	XORQ  R8, R12           // x: from each opening quote to its closing one
	MOVQ  R12, R8
	SARQ  $63, R8           // the next word's inq
	ANDNQ AX, R12, R14      // close = q &^ x
	ANDNQ R12, AX, R15      // x &^ q
	ANDQ  AX, R12           // open
	ANDQ  R11, R15          // bad: a delimiter or LF inside quotes
	LEAQ  (R9)(R11*2), SI   // d<<1 | prevD
	ANDNQ R12, SI, SI       // open &^ that: a quote that opens no field
	ORQ   SI, R15
	MOVQ  8(DI)(BX*8), SI
	ORQ   520(DI)(BX*8), SI // the next word's d (past the last: bits that cannot count)
	MOVQ  R11, AX
	SHRQ  $1, SI, AX        // d>>1, the next word's first bit on top
	ANDNQ R14, AX, AX       // close &^ that: a quote that closes none
	ORQ   AX, R15
	LEAQ  (R10)(DX*2), AX   // the row starts
	ANDNQ AX, R12, SI       // their bits that open no field: a row that does not start with a quote
	ORQ   SI, R15
	SHRQ  $63, R11
	MOVQ  R11, R9
	SHRQ  $63, DX
	MOVQ  DX, R10
	INCQ  BX
	CMPQ  BX, words+8(FP)
	JEQ   qllast
	TESTQ R15, R15
	JNZ   qlbad
	// sp: the row starts whose next byte is v0. A word before the last is
	// all src's, and so is the byte after it: the 64 bytes from its second
	// compared at once.
	VMOVDQU   (R13), Y2
	VMOVDQU   32(R13), Y3
	VPCMPEQB  Y4, Y2, Y2
	VPCMPEQB  Y4, Y3, Y3
	VPMOVMSKB Y2, DX
	VPMOVMSKB Y3, SI
	SHLQ      $32, SI
	ORQ       SI, DX        // bit i: byte i+1 is v0
	ANDQ      DX, AX
	MOVQ      AX, (1536-8)(DI)(BX*8)
	POPCNTQ   AX, SI
	ADDQ      SI, CX
	ADDQ      $64, R13
	JMP       qlword

qllast:
	// the last word: the bits of the rows that end in the window, row by
	// row (its bytes may end inside it)
	MOVQ  last+16(FP), SI
	ANDQ  SI, R15
	JNZ   qlbad
	ANDQ  SI, AX
	MOVQ  v0+32(FP), DX
	XORQ  R14, R14

qlrow:
	TZCNTQ  AX, R11
	JCS     qlrowsdone
	MOVBQZX (R13)(R11*1), SI
	BLSRQ   AX, AX
	XORL    R12, R12
	CMPQ    SI, DX
	SETEQ   R12              // (no branch on the byte: a quarter of rows match, unpredictably)
	SHLXQ   R11, R12, R12
	ORQ     R12, R14
	JMP     qlrow

qlrowsdone:
	MOVQ    R14, (1536-8)(DI)(BX*8)
	POPCNTQ R14, SI
	ADDQ    SI, CX
	VZEROUPPER
	// a bit for each sp word that has any
	XORQ BX, BX
	XORQ R8, R8
	MOVQ words+8(FP), R9

qlnz:
	XORL    SI, SI
	CMPQ    1536(DI)(BX*8), $0
	SETNE   SI
	SHLXQ   BX, SI, SI
	ORQ     SI, R8
	INCQ    BX
	CMPQ    BX, R9
	JNE     qlnz
	MOVB    $1, ok+40(FP)
	MOVQ    CX, sp+48(FP)
	MOVQ    R8, nz+56(FP)
	RET

qlbad:
	VZEROUPPER
	MOVB $0, ok+40(FP)
	MOVQ $0, sp+48(FP)
	MOVQ $0, nz+56(FP)
	RET
