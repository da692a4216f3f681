#include "textflag.h"

// hotState's fields (hot.go; TestHotStateLayout checks these offsets).
#define AVAIL 0
#define NZ 8
#define CUR 16
#define W 24
#define WZ 32
#define KEEP 40
#define VWORD 48
#define VMASK 56
#define NCM 64
#define NEED 72
#define NSUM 80
#define Q 88
#define E 96
#define MORE 104
#define SUMS 112
#define LEADBIT 128
#define VWORD2 136
#define VMASK2 144
#define SCL 152
#define OUT 160
#define NOUT 168
#define NCAP 176
#define VLEN 184
#define SPAN 192
#define KTAB 216
#define KACC 224
#define NSPAN 232
#define EQW 240
#define EQN 288
#define EQOP 312
#define NUMLO 336
#define NUMHI 400
#define NPARSE 464
#define NNUM 472
#define EXT 480
#define CMODE 488
#define CHAINF 496
#define SKIP 504
#define KEY2 512
#define KSHIFT 520
#define KMASK 528
#define ST 536
#define DV 544
#define DKEY 552
#define LDATE 560

// spanTests' fields (hot.go; TestHotStateLayout checks these), from
// hotState.st.
#define DLO 0
#define DHI 24
#define INW 48
#define INN 112
#define NIN 144
#define CFIRST 152
#define CLAST 200
#define LDLO 248
#define LDHI 256

// A span field at SPANBACK + i or more is found from the row's end.
#define SPANBACK 100

// hotKeys' slots (hotkeys.go; TestHotStateLayout checks these): a key's
// bytes, its length plus one (0: empty), its entry; and an entry's
// accumulators (keyAcc, ACCSIZE bytes, whole cache lines): the count, then
// three words a value (value k's at 24·k on): its digits' even and odd
// lanes at ACCEVEN and ACCODD and its cents at ACCCENT, flushed to its sum
// every LANEROWS rows of the key; then three more a value: its sum at
// ACCSUM, its maximum at ACCMAX and MaxInt64 minus its minimum at ACCMIN.
#define SLOTSIZE 80
#define SLOTN 64
#define SLOTJ 72
#define ACCSIZE 448
#define ACCEVEN 8
#define ACCODD 16
#define ACCCENT 24
#define ACCSUM 200
#define ACCMAX 208
#define ACCMIN 216
#define ACCDMAX 392
#define ACCDMIN 400
// ACCLOW: for each value k, a 32-bit count at ACCLOW+4k of the entry's
// rows whose value k was at a smaller scale than its sum's 2 (see
// ROWSCL), its top bit set once one had a digit after the point.
#define ACCLOW 408
#define LANEROWS 4096

// hotRec: a row's start and '\n', its span fields' starts and ends (from
// the window's start), then its values at 64.
#define RECSIZE 128

// marks' bitmaps, and Result's fields.
#define NL 0
#define CM 512
#define SPB 1536
#define ROWS 0
#define MATCHED 8
#define SUMV 24
#define FIXEDSIZE 56

// The frame. cpos[0..8] (cpos[i] is the i-th comma from the row's end,
// cpos[0] the end); for each summed field k, its digits and cents as last
// parsed (to take back) and the lane sums of the digits and the sum of the
// cents of the rows taken in this call (see fold); the row's '\n'; the
// rows that did not match in this call; the walk's state at the call's
// start; each field's digits summed a byte a digit (BYTES) since they were
// last added to its lanes (R15 counts the rows left until they must be);
// compress mode's state (see ccompare): the rows in cbuf (NBUF), the
// next to take (IBUF), 1 in the second pass (INP2), where that pass goes
// when it is done (P2NEXT: 0 the walk, 1 done) and the entry's ROWN
// (BROWN); slot mode's entry for the row, found before its parse (PACC,
// see lookup).
#define CPOS 0
#define DIG 72
#define CNT 136
#define EVEN 200
#define ODD 264
#define CSUM 328
#define ROWE 392
#define ROWN 400
#define NZ0 408
#define CUR0 416
#define W0 424
#define BYTES 432
#define SPS 496
#define SPE 520
#define KI 544
#define NBUF 552
#define IBUF 560
#define INP2 568
#define P2NEXT 576
#define BROWN 584
#define NEXTS 592
#define STOP 600
#define CHAIN 608
#define KBUF 616
#define PACC 744
// ROWSCL: the row's values that hotWalk read as cents but written at a
// smaller scale: bit k for value k (9.3 or 10), bit k+8 for one digit
// after the point (9.3). Slot mode counts them in the key's entry
// (ACCLOW); a row that goes out as a record with one goes back instead.
#define ROWSCL 752

// A byte lane of BYTES takes at most 9 a row, so 28 rows fit in it.
#define FLUSHROWS 28

// compress mode's buffer: entries of 24 bytes (hotWalk's cbuf); CBUFENT
// puts entry i's address in r.
#define CBUFLEN 64
#define CBUFENT(i, r) LEAQ (i)(i*2), r; SHLQ $3, r; ADDQ cbuf+32(FP), r

// NLFIND puts in R12 the first '\n' at or after BX (bulk takes no row
// without one), from the newline bits of BX's word and the three after it,
// without a branch: the lowest word with a bit wins, by TZCNT's carry (set
// for a zero word) and CMOV, so a row's length costs no mispredicted loop
// exit. The words read past nl are cm's: they matter only where no real
// '\n' comes first, which cannot be. A '\n' further on goes to far, where
// NLFAR(far, loop, done) finds it and goes on at done. Both use AX, CX and DX.
#define NLFIND(far) \
	MOVQ    BX, AX \
	SHRQ    $6, AX \
	MOVQ    $-1, DX \
	SHLXQ   BX, DX, DX \
	ANDQ    NL(DI)(AX*8), DX \
	TZCNTQ  (NL+24)(DI)(AX*8), R12 \
	LEAQ    192(R12), R12 \
	TZCNTQ  (NL+16)(DI)(AX*8), CX \
	LEAQ    128(CX), CX \
	CMOVQCC CX, R12 \
	TZCNTQ  (NL+8)(DI)(AX*8), CX \
	LEAQ    64(CX), CX \
	CMOVQCC CX, R12 \
	TZCNTQ  DX, CX \
	CMOVQCC CX, R12 \
	CMPQ    R12, $256 \
	JAE     far \
	SHLQ    $6, AX \
	ADDQ    AX, R12

#define NLFAR(far, loop, done) \
far: \
	ADDQ    $3, AX \
loop: \
	INCQ    AX \
	MOVQ    NL(DI)(AX*8), DX \
	TESTQ   DX, DX \
	JZ      loop \
	BSFQ    DX, DX \
	SHLQ    $6, AX \
	LEAQ    (AX)(DX*1), R12 \
	JMP     done

// WALKAT(s, nzl, done) makes the walk (R9, R10 and it.nz) the sp bits from
// byte s on: those of its word at or above it (none past word wz: then it
// goes on at done, which must follow it), and the words after it that the
// call began with (NZ0). It uses CX and R11.
#define WALKAT(s, nzl, done) \
	MOVQ   s, R10 \
	SHRQ   $6, R10 \
	XORL   R9, R9 \
	MOVQ   $0, NZ(R13) \
	CMPQ   R10, WZ(R13) \
	JA     done \
	MOVQ   SPB(DI)(R10*8), R9 \
	MOVQ   $-1, R11 \
	SHLXQ  s, R11, R11 \
	ANDQ   R11, R9 \
	CMPQ   R10, WZ(R13) \
	JNE    nzl \
	ANDQ   KEEP(R13), R9 \
nzl: \
	MOVQ   R10, CX \
	MOVQ   $-1, R11 \
	SHLQ   CX, R11 \
	SHLQ   $1, R11 \
	ANDQ   NZ0(SP), R11 \
	MOVQ   R11, NZ(R13)

// ADDLANES adds the bytes of the digit word w (a byte a digit) to lanes of
// 16 bits: its even bytes to even, its odd ones to odd (m holds
// 0x00FF00FF00FF00FF). It uses t, and leaves w changed.
#define ADDLANES(w, t, m, even, odd) \
	MOVQ w, t \
	ANDQ m, w \
	ADDQ w, even \
	SHRQ $8, t \
	ANDQ m, t \
	ADDQ t, odd

// LANEVALUE puts in v the value of a field's lanes e (even) and o (odd):
// lane j of each holds the digits worth 10^(7-2j) and 10^(6-2j) (see
// flush). It consumes e and o and uses BX.
#define LANEVALUE(e, o, v) \
	XORL    v, v \
	LANEPAIR(e, o, v) \
	LANEPAIR(e, o, v) \
	LANEPAIR(e, o, v) \
	LANEPAIR(e, o, v)

#define LANEPAIR(e, o, v) \
	IMUL3Q  $100, v, v \
	MOVWQZX e, BX \
	LEAQ    (BX)(BX*4), BX \
	LEAQ    (v)(BX*2), v \
	MOVWQZX o, BX \
	ADDQ    BX, v \
	SHRQ    $16, e \
	SHRQ    $16, o

// TONUM(done) makes value AX a number in DIG (see emit), from its digit
// word there and its cents in CNT: its digits paired by 10·256 + 1, the
// pairs by 100·65536 + 1, the fours by 10000·2^32 + 1, then cents added at
// scale 2. It uses CX and R8; done is a label of its own.
#define TONUM(done) \
	MOVQ   DIG(SP)(AX*8), R8 \
	IMUL3Q $2561, R8, R8 \
	SHRQ   $8, R8 \
	MOVQ   $0x00FF00FF00FF00FF, CX \
	ANDQ   CX, R8 \
	IMUL3Q $6553601, R8, R8 \
	SHRQ   $16, R8 \
	MOVQ   $0x0000FFFF0000FFFF, CX \
	ANDQ   CX, R8 \
	MOVQ   $42949672960001, CX \
	IMULQ  CX, R8 \
	SHRQ   $32, R8 \
	CMPB   SCL(R13)(AX*1), $0 \
	JEQ    done \
	IMUL3Q $100, R8, R8 \
	ADDQ   CNT(SP)(AX*8), R8 \
done: \
	MOVQ   R8, DIG(SP)(AX*8)

// POINT(other) goes on if the summed field at R8 has 1 to 8 digits
// (R12 of them) before a point at R8+R12, else jumps to other. R11 is
// scratch.
#define POINT(other) \
	LEAQ    -1(R12), R11 \
	CMPQ    R11, $7 \
	JHI     other \
	CMPB    (R8)(R12*1), $0x2E \
	JNE     other

// CENTDIGIT(off, r) puts in r the value of the digit off bytes after the
// point POINT found, or hands the row back (bad) if it is none.
#define CENTDIGIT(off, r) \
	MOVBQZX off(R8)(R12*1), r \
	SUBQ    $0x30, r \
	CMPQ    r, $9 \
	JHI     bad

// DIGITS2(w, t) puts in t the value of the two digits' bytes in w's
// low 16 bits (the tens first, in the low byte), and changes w.
#define DIGITS2(w, t) \
	ANDL    $0x0F0F, w \
	IMUL3L  $10, w, t \
	SHRL    $8, w \
	MOVBLZX t, t \
	ADDL    w, t

// DIFFER(x, v, n, r) puts in r the bytes of the first n (a register, at
// most 16) of x's where x and v differ, a bit a byte: ZF set if none. It
// changes x.
#define DIFFER(x, v, n, r) \
	PCMPEQB  v, x \
	PMOVMSKB x, r \
	XORL     $0xFFFF, r \
	BZHIQ    n, r, r

// func hotWalk(it *hotState, window *byte, mk *marks, r *Result, cbuf *[cbufLen][3]int)
//
// Table.hit, step for step (see there), for every sp bit of the window
// left in it, except that the values are not added one by one: each
// field's digits are summed by byte lane, and the sums, rows and matches
// reach r when the call returns (see fold). If a sum's V would overflow
// then, none of the call's rows count: it sets it.more = 2 and puts the walk
// back where the call found it, for line to add the rows (Fixed.Add carries).
//
// Registers: R13 it, SI the window, DI its marks, R9 the bits left of sp
// word R10; BX the row's start (kept until the row is taken or handed
// back) and DX its end without '\r', both from SI; R14 the matches taken
// in this call, R15 the rows left until BYTES must go to the lanes (an
// ABI0 function may use both); AX, CX, R8, R11 and R12 scratch.
TEXT ·hotWalk(SB), NOSPLIT, $760-40
	MOVQ it+0(FP), R13
	MOVQ window+8(FP), SI
	MOVQ mk+16(FP), DI
	MOVQ CUR(R13), R9
	MOVQ W(R13), R10
	MOVQ NZ(R13), AX
	MOVQ AX, NZ0(SP)
	MOVQ R9, CUR0(SP)
	MOVQ R10, W0(SP)
	MOVQ $0, ROWN(SP)
	MOVQ $0, NBUF(SP)
	MOVQ $0, INP2(SP)
	XORL R14, R14
	MOVQ $FLUSHROWS, R15
	XORL AX, AX

zero:
	MOVQ $0, EVEN(SP)(AX*8)
	MOVQ $0, ODD(SP)(AX*8)
	MOVQ $0, CSUM(SP)(AX*8)
	MOVQ $0, BYTES(SP)(AX*8)
	INCQ AX
	CMPQ AX, NSUM(R13)
	JLT  zero

	// Chain mode (it.chain: the sp bits are every row's start; no filter
	// on a later column, not compress mode): each row starts after the
	// last one's '\n', which NLFIND finds without a branch, so the sp bits
	// give only the call's first row (NEXTS), the walk ends at STOP (the
	// first bit wz and keep leave out), and fold makes the walk's state
	// from NEXTS. A row's start and end are then found with no branch that
	// depends on where rows fall in the sp words.
	MOVQ   $0, CHAIN(SP)
	CMPQ   CHAINF(R13), $0
	JEQ    next
	CMPQ   LEADBIT(R13), $0
	JNE    next
	CMPQ   CMODE(R13), $0
	JNE    next
	TZCNTQ R9, BX
	JCC    chfirst
	MOVQ   NZ(R13), R8
	TZCNTQ R8, R10
	JCS    next                  // no row left
	MOVQ   SPB(DI)(R10*8), R9    // (a bit keep leaves out is past STOP)
	TZCNTQ R9, BX
	JCS    next                  // (nz names no word of zeros)

chfirst:
	MOVQ    R10, AX
	SHLQ    $6, AX
	ADDQ    AX, BX
	MOVQ    BX, NEXTS(SP)
	XORL    R9, R9
	MOVQ    WZ(R13), AX
	SHLQ    $6, AX
	POPCNTQ KEEP(R13), CX
	ADDQ    CX, AX
	MOVQ    AX, STOP(SP)
	MOVQ    $1, CHAIN(SP)

	// The walk goes on: in compress mode's second pass, with its next row.
next:
	CMPQ  INP2(SP), $0
	JNE   p2next

nextbit:
	TESTQ R9, R9
	JNZ   bit
	CMPQ  CHAIN(SP), $0 // (chain mode keeps R9 0)
	JNE   chain

nextword:
	MOVQ  NZ(R13), R8
	TESTQ R8, R8
	JZ    done
	BSFQ  R8, R10
	BLSRQ R8, R8
	MOVQ  R8, NZ(R13)
	MOVQ  SPB(DI)(R10*8), R9
	CMPQ  R10, WZ(R13)
	JNE   nextbit
	ANDQ  KEEP(R13), R9
	JMP   nextbit

	// Chain mode's next row: from NEXTS, to its '\n'.
chain:
	MOVQ NEXTS(SP), BX
	CMPQ BX, STOP(SP)
	JGE  done
	NLFIND(chfar)

chend:
	LEAQ 1(R12), AX
	MOVQ AX, NEXTS(SP)
	JMP  haveend

bit:
	BSFQ  R9, BX
	BLSRQ R9, R9
	MOVQ  R10, AX
	SHLQ  $6, AX
	ADDQ  AX, BX // the row's start
	CMPQ  LEADBIT(R13), $0
	JNE   lead

rowend:
	NLFIND(nlfar)

haveend:
	MOVQ    R12, ROWE(SP)
	MOVBQZX (SI)(BX*1), AX
	CMPB    AL, $0x0A
	JEQ     nextbit          // a blank line is not a row
	MOVQ    R12, DX
	CMPB    -1(SI)(R12*1), $0x0D
	JNE     nocr
	DECQ    DX

nocr:
	// As in hit: 8 bytes readable at the start, more than 8 in the row.
	LEAQ 8(BX), AX
	CMPQ AX, AVAIL(R13)
	JGT  handback
	MOVQ DX, AX
	SUBQ BX, AX
	CMPQ AX, $8
	JLE  handback

	// The filter's field: the row's start, or (hotAll, a row lead could
	// not take) the byte after its lead-th comma, found in the comma bits
	// of its first 64 bytes, else (leadfar) of the 64 after them (a row
	// whose comma lies past them, or past its end, goes back).
	MOVQ  BX, R8
	MOVQ  LEADBIT(R13), R12
	TESTQ R12, R12
	JZ    compare
	MOVQ  BX, AX
	SHRQ  $6, AX
	MOVQ  CM(DI)(AX*8), R8
	MOVQ  (CM+8)(DI)(AX*8), R11 // word 63's next is qt's first: bits past the window
	MOVQ  BX, CX
	SHRQ  CX, R11, R8           // the comma bits from BX on (CX mod 64)
	PDEPQ R8, R12, R11          // the lead-th of them
	TZCNTQ R11, R11
	JCS   leadfar               // not in the first 64 bytes

leadat:
	LEAQ  (BX)(R11*1), R12      // the comma
	CMPQ  R12, DX
	JGE   handback              // a short row: line reports it
	LEAQ  1(R12), R8
	LEAQ  16(R8), AX
	CMPQ  AX, AVAIL(R13)
	JGT   handback
	CMPQ  LDATE(R13), $0
	JNE   leaddate

	// A value that reaches the row's end (a field that may be the last)
	// goes back: its comma is not there to compare. (At the row's start,
	// a value of up to 7 bytes cannot: the row has more than 8.)
	MOVQ  VLEN(R13), AX
	ADDQ  R8, AX
	CMPQ  AX, DX
	JGE   handback
	JMP   compare

	// A filter on a later column (LEADBIT set): the row's end is not
	// looked for until the row matches (see match). The lead-th comma from
	// BX must be in the comma bits of its first 64 bytes, and no '\n' in
	// its newline bits before it, in the value or in the two bytes after
	// (a value at the row's end, before '\n' or '\r\n'); then DX, the end
	// the compare sees, is a bound: no '\n' is before it. Any other row
	// takes the way above (rowend), which finds its end first.
lead:
	MOVQ   LEADBIT(R13), R12
	MOVQ   BX, CX
	MOVQ   BX, AX
	SHRQ   $6, AX
	MOVQ   CM(DI)(AX*8), R8
	MOVQ   (CM+8)(DI)(AX*8), R11
	SHRQ   CX, R11, R8          // the comma bits from BX on
	PDEPQ  R8, R12, R12
	TZCNTQ R12, R12             // the comma, from BX
	JCS    rowend
	MOVQ   NL(DI)(AX*8), R8
	MOVQ   (NL+8)(DI)(AX*8), R11 // (bits past the window can only send a row the slow way)
	SHRQ   CX, R11, R8          // the newline bits from BX on
	MOVQ   VLEN(R13), DX
	LEAQ   3(R12)(DX*1), DX     // the bits that must be clear
	CMPQ   DX, $64
	JA     rowend
	BZHIQ  DX, R8, R8
	JNZ    rowend
	LEAQ   1(BX)(R12*1), R8     // the value's field
	LEAQ   16(R8), AX
	CMPQ   AX, AVAIL(R13)
	JGT    rowend
	ADDQ   BX, DX
	MOVQ   $0, ROWE(SP)         // the row's end: not yet known
	CMPQ   LDATE(R13), $0
	JNE    leaddate
	JMP    compare

	// The lead-th comma, in the comma bits of the 64 bytes after BX's
	// first 64: the (lead - k)-th there, k the commas before them.
leadfar:
	POPCNTQ R8, CX
	SHRXQ   CX, R12, R12
	MOVQ    (CM+8)(DI)(AX*8), R8
	MOVQ    (CM+16)(DI)(AX*8), R11 // past the window: bits past the row's end (DX)
	MOVQ    BX, CX
	SHRQ    CX, R11, R8
	PDEPQ   R8, R12, R11
	TZCNTQ  R11, R11
	JCS     handback
	ADDQ    $64, R11
	JMP     leadat

compare:
	CMPQ  CMODE(R13), $0
	JNE   ccompare

	// One masked word compare, and a second for a longer value.
	MOVQ  (SI)(R8*1), AX
	ANDQ  VMASK(R13), AX
	CMPQ  AX, VWORD(R13)
	JNE   nomatch
	MOVQ  VMASK2(R13), CX
	TESTQ CX, CX
	JZ    match
	MOVQ  VLEN(R13), AX          // (as above, for a value at the row's start)
	ADDQ  R8, AX
	CMPQ  AX, DX
	JGE   handback
	LEAQ  16(R8), AX             // (the second word readable: a row's start checked 8 bytes)
	CMPQ  AX, AVAIL(R13)
	JGT   handback
	ANDQ  8(SI)(R8*1), CX
	CMPQ  CX, VWORD2(R13)
	JEQ   match

nomatch:
	INCQ ROWN(SP)        // not a match
	JMP  nextbit

	// Compress mode (it.cmode; the plan has no span field and no numeric
	// filter, and it is not emit mode), for a filter that holds for about
	// half the rows, whose branch a CPU cannot predict. The walk is in two
	// passes. The first tests the filter on each row without a branch and
	// puts the row in cbuf ({start, '\n', ROWN before it}), going on
	// one entry only if it matched; a row that must go back is put there
	// too, its '\n' as ^'\n', and ends the pass, as a full buffer or the
	// walk's end does. The second (p2next) takes the rows in the buffer as
	// match does, in order; one that goes back puts the walk right after
	// it, and ROWN back to its entry's, so that the next call walks on
	// from there.
ccompare:
	MOVQ  (SI)(R8*1), AX
	ANDQ  VMASK(R13), AX
	XORQ  VWORD(R13), AX         // 0 iff the first word is the value's
	MOVQ  VMASK2(R13), CX
	TESTQ CX, CX
	JZ    cput
	MOVQ  VLEN(R13), R12
	ADDQ  R8, R12
	CMPQ  R12, DX
	JGE   handback
	LEAQ  16(R8), R12            // (the second word readable, as in compare)
	CMPQ  R12, AVAIL(R13)
	JGT   handback
	ANDQ  8(SI)(R8*1), CX
	XORQ  VWORD2(R13), CX
	ORQ   CX, AX

cput:
	MOVQ   NBUF(SP), CX
	CBUFENT(CX, R8)
	MOVQ   BX, 0(R8)
	MOVQ   ROWE(SP), R12
	MOVQ   R12, 8(R8)
	MOVQ   ROWN(SP), R12
	MOVQ   R12, 16(R8)
	NEGQ   AX                    // CF: the value differs
	SBBQ   AX, AX                // -1 for a row turned away, else 0
	SUBQ   AX, ROWN(SP)
	LEAQ   1(CX)(AX*1), CX
	MOVQ   CX, NBUF(SP)
	CMPQ   CX, $CBUFLEN
	JLT    nextbit
	MOVQ   $0, P2NEXT(SP)        // full: the second pass, then the walk

pass2:
	MOVQ   $1, INP2(SP)
	MOVQ   $0, IBUF(SP)

p2next:
	MOVQ   IBUF(SP), CX
	CMPQ   CX, NBUF(SP)
	JGE    p2end
	LEAQ   1(CX), AX
	MOVQ   AX, IBUF(SP)
	CBUFENT(CX, R8)
	MOVQ   0(R8), BX
	MOVQ   16(R8), AX
	MOVQ   AX, BROWN(SP)
	MOVQ   8(R8), R12
	TESTQ  R12, R12
	JS     p2hand                // a row the first pass sent back
	MOVQ   R12, ROWE(SP)
	JZ     match                 // its end not yet known
	MOVQ   R12, DX
	CMPB   -1(SI)(R12*1), $0x0D
	JNE    match
	DECQ   DX
	JMP    match

p2hand:
	NOTQ   R12
	MOVQ   R12, ROWE(SP)
	JMP    p2back

p2end:
	MOVQ   $0, NBUF(SP)
	MOVQ   $0, INP2(SP)
	CMPQ   P2NEXT(SP), $0
	JEQ    nextbit
	MOVQ   $0, MORE(R13)         // the walk was done
	JMP    fold

	// A row of the second pass goes back: the walk from the sp bit after
	// its start (its word's bits above it, the words after it that the
	// call began with), the rows turned away before it.
p2back:
	LEAQ   1(BX), R12
	WALKAT(R12, p2nz, p2walk)

p2walk:
	MOVQ   BROWN(SP), AX
	MOVQ   AX, ROWN(SP)
	MOVQ   $0, NBUF(SP)
	JMP    backrow

match:
	// A row lead took: its end (ROWE, and DX without '\r').
	CMPQ  ROWE(SP), $0
	JNE   counted
	NLFIND(mfar)

mend:
	MOVQ  R12, ROWE(SP)
	MOVQ  R12, DX
	CMPB  -1(SI)(R12*1), $0x0D
	JNE   counted
	DECQ  DX

counted:
	// The commas in [BX, DX) must be the header's count: for a row whose
	// end is at most 192 bytes past its start's word, the bits of that
	// word and the two after it under masks of the row, without a branch
	// (a row's length costs no mispredicted loop exit); BZHI keeps a
	// word whole from 64 on. The words read past cm are qt's, and a mask
	// of 0 there: the row ends in the window.
	MOVQ    BX, AX
	SHRQ    $6, AX               // the start's word
	MOVQ    AX, CX
	SHLQ    $6, CX
	MOVQ    DX, R11
	SUBQ    CX, R11              // the end, from that word's first byte
	CMPQ    R11, $192
	JA      cmwide
	BZHIQ   R11, CM(DI)(AX*8), R8
	SHRXQ   BX, R8, R8           // from the start on (BX mod 64)
	POPCNTQ R8, R8
	XORL    CX, CX
	SUBQ    $64, R11
	CMOVQLT CX, R11
	BZHIQ   R11, (CM+8)(DI)(AX*8), R12
	POPCNTQ R12, R12
	ADDQ    R12, R8
	SUBQ    $64, R11
	CMOVQLT CX, R11
	BZHIQ   R11, (CM+16)(DI)(AX*8), R12
	POPCNTQ R12, R12
	ADDQ    R12, R8

cmcount:
	CMPQ R8, NCM(R13)
	JNE  handback

	// tail: the comma bits of the row's last 64 bytes, its last byte at
	// bit 63 (bits before the window read as zero).
	LEAQ  -1(DX), CX
	MOVQ  CX, AX
	SHRQ  $6, AX
	MOVQ  CM(DI)(AX*8), R8
	XORL  R11, R11
	TESTQ AX, AX
	JEQ   firstword
	MOVQ  (CM-8)(DI)(AX*8), R11

firstword:
	NOTQ    CX
	ANDQ    $63, CX
	SHLQ    CX, R11, R8          // R8 = R8<<CX | R11>>(64-CX)
	POPCNTQ R8, AX
	CMPQ    AX, NEED(R13)
	JLT     handback

	// cpos: the row's end, then its last NEED commas from the end, but
	// for the SKIP last ones, which no field needs (cpos[SKIP+1] on): the
	// i-th from the end is the (AX - i)-th lowest comma bit, picked by
	// PDEP, so that no comma waits for the one after it (a BSR, BTR walk
	// from the top made each wait for the last).
	MOVQ   DX, 0(SP)
	LEAQ   -64(DX), R11
	MOVQ   SKIP(R13), CX
	SUBQ   CX, AX

walk:
	DECQ   AX
	INCQ   CX
	MOVQ   $1, R12
	SHLXQ  AX, R12, R12
	PDEPQ  R8, R12, R12
	TZCNTQ R12, R12
	ADDQ   R11, R12
	MOVQ   R12, 0(SP)(CX*8)
	CMPQ   CX, NEED(R13)
	JLT    walk

	// Each span field's start and end (SPS, SPE), before any value is
	// parsed (so a row a filter turns away adds nothing): a front field k
	// from the row's start or after its k-th comma to the next comma, in
	// the comma bits of its first 128 bytes (spanfar for the second 64; a
	// field that ends past them, or that is the row's last, goes back); a
	// back one (SPANBACK + i)
	// from the comma cpos[i] to cpos[i-1].
	XORL   R12, R12
	CMPQ   NSPAN(R13), $0
	JEQ    spansdone

spanfield:
	MOVQ   SPAN(R13)(R12*8), CX
	TESTQ  CX, CX
	JS     spannext
	CMPQ   CX, $SPANBACK
	JGE    spanback
	MOVQ   BX, AX
	SHRQ   $6, AX
	MOVQ   CM(DI)(AX*8), R8
	MOVQ   (CM+8)(DI)(AX*8), R11
	MOVQ   CX, AX
	MOVQ   BX, CX
	SHRQ   CX, R11, R8          // the comma bits from BX on
	MOVQ   AX, CX
	MOVQ   $1, R11
	SHLQ   CX, R11
	PDEPQ  R8, R11, R11         // the comma after the field
	TZCNTQ R11, R11
	JCS    spanfar
	LEAQ   (BX)(R11*1), AX
	CMPQ   AX, ROWE(SP)         // past the row's end
	JGE    handback
	MOVQ   AX, SPE(SP)(R12*8)
	MOVQ   BX, AX
	TESTQ  CX, CX
	JZ     spanstart
	DECQ   CX
	MOVQ   $1, R11
	SHLQ   CX, R11
	PDEPQ  R8, R11, R11         // the comma before it
	TZCNTQ R11, R11
	LEAQ   1(BX)(R11*1), AX

spanstart:
	MOVQ   AX, SPS(SP)(R12*8)
	JMP    spantest

	// A front field whose comma after it is not in the first 64 bytes
	// (R8 their comma bits, CX the field): it is the (CX - n)-th in the
	// comma bits of the 64 after them (DX), n the commas in R8; the comma
	// before it, R8's last if that is the 0th, else the one before in DX
	// (none: the row's first field). Bits read past the window are past
	// the row's end (ROWE).
spanfar:
	MOVQ    BX, AX
	SHRQ    $6, AX
	MOVQ    (CM+8)(DI)(AX*8), DX
	MOVQ    (CM+16)(DI)(AX*8), R11
	MOVQ    CX, AX
	MOVQ    BX, CX
	SHRQ    CX, R11, DX          // the comma bits from BX+64 on
	POPCNTQ R8, CX
	SUBQ    CX, AX               // the field's comma, counted in DX
	MOVQ    AX, CX
	MOVQ    $1, R11
	SHLQ    CX, R11
	PDEPQ   DX, R11, R11
	TZCNTQ  R11, R11
	JCS     handback
	LEAQ    64(BX)(R11*1), R11
	CMPQ    R11, ROWE(SP)
	JGE     handback
	MOVQ    R11, SPE(SP)(R12*8)
	TESTQ   CX, CX
	JNZ     spanfarstart
	MOVQ    BX, AX
	BSRQ    R8, R11              // (ZF: no comma in R8, the first field)
	JZ      spanstart
	LEAQ    1(BX)(R11*1), AX
	JMP     spanstart

spanfarstart:
	DECQ    CX
	MOVQ    $1, R11
	SHLQ    CX, R11
	PDEPQ   DX, R11, R11
	TZCNTQ  R11, R11
	LEAQ    65(BX)(R11*1), AX
	JMP     spanstart

spanback:
	SUBQ   $SPANBACK, CX
	MOVQ   0(SP)(CX*8), AX
	INCQ   AX
	MOVQ   AX, SPS(SP)(R12*8)
	MOVQ   -8(SP)(CX*8), AX
	MOVQ   AX, SPE(SP)(R12*8)

	// A span's = or != filter (EQOP 1 or 2): its length, then its bytes
	// (16 readable) against EQW's under the length; a row it fails is not
	// a match. != fails on an empty field too (a missing value).
spantest:
	MOVQ     EQOP(R13)(R12*8), CX
	TESTQ    CX, CX
	JZ       spannext
	CMPQ     CX, $3
	JAE      spanother
	MOVQ     SPE(SP)(R12*8), AX
	SUBQ     SPS(SP)(R12*8), AX
	CMPQ     AX, EQN(R13)(R12*8)
	JNE      spandiffer
	MOVQ     SPS(SP)(R12*8), AX
	LEAQ     16(AX), R8
	CMPQ     R8, AVAIL(R13)
	JGT      handback
	MOVOU    (SI)(AX*1), X0
	MOVQ     R12, R8
	SHLQ     $4, R8
	MOVOU    EQW(R13)(R8*1), X1
	MOVQ     EQN(R13)(R12*8), R8
	DIFFER(X0, X1, R8, AX)
	JNZ      spandiffer
	CMPQ     CX, $1
	JEQ      spannext            // = holds
	JMP      nomatch

spandiffer:
	CMPQ CX, $1
	JEQ  nomatch                 // = fails
	MOVQ SPE(SP)(R12*8), AX
	CMPQ AX, SPS(SP)(R12*8)
	JEQ  nomatch                 // != fails on an empty field: a missing value
	JMP  spannext

	// A span's in (EQOP 5) or not in (6) list: the field's length, then
	// its bytes (16 readable), against each of the NIN values of INW (INN
	// bytes each). Not in fails on an empty field too (a missing value).
spanother:
	CMPQ     CX, $5
	JB       spandate
	CMPQ     CX, $7
	JAE      spantext
	MOVQ     SPE(SP)(R12*8), AX
	MOVQ     SPS(SP)(R12*8), R8
	SUBQ     R8, AX                // its length
	LEAQ     16(R8), R11
	CMPQ     R11, AVAIL(R13)
	JGT      handback
	MOVOU    (SI)(R8*1), X0
	XORL     R8, R8
	MOVQ     ST(R13), DX

spaninloop:
	CMPQ     AX, INN(DX)(R8*8)
	JNE      spaninnext
	MOVQ     R8, R11
	SHLQ     $4, R11
	MOVOU    INW(DX)(R11*1), X1
	DIFFER(X1, X0, AX, R11)
	JZ       spaninhit

spaninnext:
	INCQ     R8
	CMPQ     R8, NIN(DX)
	JLT      spaninloop
	CMPQ     CX, $5
	JEQ      nomatch               // in fails
	TESTQ    AX, AX
	JZ       nomatch               // not in fails on a missing value
	JMP      spannext

spaninhit:
	CMPQ     CX, $5
	JEQ      spannext              // in holds
	JMP      nomatch               // not in fails

	// A span's contains (EQOP 7) or starts with (8): EQW's EQN bytes (1
	// to 16). Contains: the starts p in [0, L-EQN] where the field's byte
	// is the value's first (CFIRST) and its byte p+EQN-1 the value's last
	// (CLAST), in two 16-byte blocks, each then compared whole (as
	// Muła's SIMD strstr); a field with a start past 31, or whose 48
	// bytes are not readable, goes back. An empty field fails both.
spantext:
	MOVQ     SPE(SP)(R12*8), AX
	MOVQ     SPS(SP)(R12*8), R8
	SUBQ     R8, AX                // its length L
	MOVQ     EQN(R13)(R12*8), DX
	SUBQ     DX, AX                // L - EQN, the last start
	JLT      nomatch
	LEAQ     48(R8), R11
	CMPQ     R11, AVAIL(R13)
	JGT      handback
	ADDQ     SI, R8                // the field
	MOVQ     R12, R11
	SHLQ     $4, R11
	MOVOU    EQW(R13)(R11*1), X4   // the value
	CMPQ     CX, $8
	JEQ      spanprefix
	CMPQ     AX, $31
	JA       handback
	MOVQ     ST(R13), CX
	MOVOU    CFIRST(CX)(R11*1), X2
	MOVOU    CLAST(CX)(R11*1), X3
	MOVOU    (R8), X0
	PCMPEQB  X2, X0
	MOVOU    -1(R8)(DX*1), X1
	PCMPEQB  X3, X1
	PAND     X1, X0
	PMOVMSKB X0, R11
	MOVOU    16(R8), X0
	PCMPEQB  X2, X0
	MOVOU    15(R8)(DX*1), X1
	PCMPEQB  X3, X1
	PAND     X1, X0
	PMOVMSKB X0, CX
	SHLQ     $16, CX
	ORQ      CX, R11
	INCQ     AX
	BZHIQ    AX, R11, R11          // the starts up to L - EQN

spancand:
	TZCNTQ   R11, CX
	JCS      nomatch               // none left: contains fails
	MOVOU    (R8)(CX*1), X0
	DIFFER(X0, X4, DX, AX)
	JZ       spantextok            // the value at CX: contains holds
	BLSRQ    R11, R11
	JMP      spancand

spanprefix:
	MOVOU    (R8), X0
	DIFFER(X0, X4, DX, AX)
	JNZ      nomatch

	// The test held: the next span, or, for a text lead (LDATE 2: span 1
	// is the lead's, which the plan leaves out of the spans), the row's
	// end, as leadday goes on.
spantextok:
	CMPQ  R12, $1
	JNE   spannext
	CMPQ  LDATE(R13), $2
	JNE   spannext
	MOVQ  ROWE(SP), R12
	TESTQ R12, R12
	JZ    match
	JMP   mend

	// A span's date filter (EQOP 3) or value (4): the field read as
	// plainDay reads M/D/YYYY and YYYY-MM-DD (16 bytes readable), its
	// day's ordinal y·512 + m·32 + d in [DLO, DHI], or made the row's
	// DKEY (see dateOfKey: the ordinal above the first 4 bytes, big-endian).
	// An empty field is a missing value: no match for a filter, and a
	// value's row goes back. So does a field of another form, a month not
	// in 1 to 12, a day 0 or past its month's (February's 28th: a leap day
	// goes back too).
spandate:
	MOVQ       SPS(SP)(R12*8), AX
	MOVQ       SPE(SP)(R12*8), R8
	SUBQ       AX, R8               // its length
	JZ         spanempty

	// (from leaddate too, R12 -1: AX the field, R8 its length)
spanday:
	LEAQ       -8(R8), CX
	CMPQ       CX, $2
	JA         handback             // not 8 to 10 bytes
	LEAQ       16(AX), CX
	CMPQ       CX, AVAIL(R13)
	JGT        handback
	ADDQ       SI, AX               // AX: the field
	MOVL       (AX), CX
	MOVQ       CX, X4               // its first 4 bytes
	MOVOU      (AX), X0
	MOVQ       $0x3030303030303030, CX
	MOVQ       CX, X1
	PUNPCKLQDQ X1, X1
	PSUBB      X1, X0               // each byte less '0': '/' is 0xFF
	MOVQ       $0x0909090909090909, CX
	MOVQ       CX, X1
	PUNPCKLQDQ X1, X1
	MOVOU      X0, X2
	PMINUB     X1, X2
	PCMPEQB    X0, X2
	PMOVMSKB   X2, DX               // the digits
	PCMPEQB    X2, X2
	PCMPEQB    X0, X2
	PMOVMSKB   X2, CX               // the slashes
	BZHIQ      R8, DX, DX
	BZHIQ      R8, CX, CX
	POPCNTQ    CX, R11
	CMPQ       R11, $2
	JNE        spaniso

	// M/D/YYYY: digits but at the slashes s1 (1 or 2) and s2 = L-5,
	// s2-s1 2 or 3.
	MOVQ    CX, R11
	ORQ     DX, R11
	POPCNTQ R11, R11
	CMPQ    R11, R8
	JNE     handback
	TZCNTQ  CX, DX                  // s1
	BLSRQ   CX, CX
	TZCNTQ  CX, CX                  // s2
	LEAQ    -5(R8), R11
	CMPQ    CX, R11
	JNE     handback
	LEAQ    -1(DX), R11
	CMPQ    R11, $1
	JA      handback
	MOVQ    CX, R11
	SUBQ    DX, R11
	SUBQ    $2, R11
	CMPQ    R11, $1
	JA      handback
	// the month's one or two digits as two (a one-digit month's tens
	// shifted in as 0), tens in the low byte
	MOVWLZX (AX), R11
	MOVL    $2, R8
	SUBL    DX, R8
	SHLL    $3, R8
	SHLXL   R8, R11, R11
	DIGITS2(R11, R8)
	MOVQ    R8, X3                  // the month
	// the day's, from s1+1, s2-s1-1 digits
	MOVWLZX 1(AX)(DX*1), R11
	MOVL    $3, R8
	ADDL    DX, R8
	SUBL    CX, R8
	SHLL    $3, R8
	SHLXL   R8, R11, R11
	DIGITS2(R11, R8)                // the day
	MOVL    1(AX)(CX*1), R11        // the year's 4 digits
	MOVQ    X3, DX
	JMP     spanyear

	// YYYY-MM-DD: 10 bytes, digits but at 4 and 7, which are '-'.
spaniso:
	TESTQ   CX, CX
	JNZ     handback
	CMPQ    R8, $10
	JNE     handback
	CMPQ    DX, $0x36F
	JNE     handback
	CMPB    4(AX), $0x2D
	JNE     handback
	CMPB    7(AX), $0x2D
	JNE     handback
	MOVWLZX 5(AX), R8
	DIGITS2(R8, DX)                 // the month
	MOVWLZX 8(AX), R11
	DIGITS2(R11, R8)                // the day
	MOVL    (AX), R11               // the year's 4 digits

	// DX the month, R8 the day, R11 the year's digits (as year4: a lane
	// a digit, paired by 10, the pairs by 100).
spanyear:
	ANDL    $0x0F0F0F0F, R11
	IMUL3L  $10, R11, CX
	SHRL    $8, R11
	ADDL    CX, R11
	ANDL    $0x00FF00FF, R11
	IMUL3L  $100, R11, CX
	SHRL    $16, R11
	ADDL    CX, R11
	ANDL    $0xFFFF, R11            // the year
	LEAQ    -1(DX), CX
	CMPQ    CX, $11
	JA      handback                // a month not in 1 to 12
	LEAQ    (DX)(DX*1), AX
	MOVQ    $0x3bbeecc, CX          // each month's days less 28, 2 bits a month from bit 2
	SHRXQ   AX, CX, CX
	ANDL    $3, CX
	ADDL    $28, CX
	LEAQ    -1(R8), AX
	CMPQ    AX, CX
	JAE     handback                // day 0, or past the month's last (or February's 28th)
	SHLQ    $9, R11
	SHLQ    $5, DX
	ADDQ    DX, R11
	ADDQ    R8, R11                 // the day's ordinal
	TESTQ   R12, R12
	JS      leadday
	CMPQ    EQOP(R13)(R12*8), $3
	JNE     spandval
	MOVQ    ST(R13), CX
	CMPQ    R11, DLO(CX)(R12*8)
	JLT     nomatch
	CMPQ    R11, DHI(CX)(R12*8)
	JGT     nomatch
	JMP     spannext

spanempty:
	CMPQ EQOP(R13)(R12*8), $3
	JEQ  nomatch
	JMP  handback

	// A date lead (LDATE; see hotPlan.dateLead): the field at R8 up to its
	// comma, or to DX if that is nearer (leadat's DX is the row's end: the
	// field may be the last; the lead way's is a bound no '\n' comes
	// before, VLEN+2 bytes past the field's start), read by spandate's
	// code (R12 -1), its day in [LDLO, LDHI]. An empty field fails (a
	// missing value).
leaddate:
	MOVQ    R8, CX
	MOVQ    R8, AX
	SHRQ    $6, AX
	MOVQ    CM(DI)(AX*8), R11
	MOVQ    (CM+8)(DI)(AX*8), R12
	SHRQ    CX, R12, R11         // the comma bits from the field on
	TZCNTQ  R11, R11             // to its comma (64: none near)
	LEAQ    (R8)(R11*1), AX
	CMPQ    LDATE(R13), $2
	JEQ     leadtext             // (a text lead: AX its field's end)
	MOVQ    DX, R12
	SUBQ    R8, R12
	CMPQ    AX, DX
	CMOVQGT R12, R11             // or to DX, the nearer
	TESTQ   R11, R11
	JZ      nomatch
	MOVQ    R8, AX
	MOVQ    R11, R8
	MOVQ    $-1, R12
	JMP     spanday

	// A text lead (LDATE 2; see hotPlan.textLead): the field at R8 up to
	// its comma at AX (leaddate's, R8+64 where none is near), which the
	// lead way (ROWE 0) must find by DX, its bound, else the row takes the
	// way that finds its end first (rowend); leadat's DX is the row's end,
	// where a last field ends. (A field of 64 bytes or more, cut at 64,
	// goes back from spantext.) Its place goes to span 1's, and spantext
	// tests it with span 1's value.
leadtext:
	CMPQ    AX, DX
	JLE     leadtextend
	CMPQ    ROWE(SP), $0
	JEQ     rowend               // the lead way, no comma by the bound
	MOVQ    DX, AX               // leadat: the row's last field

leadtextend:
	MOVQ    R8, (SPS+8)(SP)
	MOVQ    AX, (SPE+8)(SP)
	MOVQ    $1, R12
	MOVQ    (EQOP+8)(R13), CX
	JMP     spantext

	// (DX, the row's end where leadat found it, is spandate's scratch:
	// mend makes it again from ROWE; the lead way's match finds it.)
leadday:
	MOVQ  ST(R13), CX
	SUBQ  LDLO(CX), R11
	MOVQ  LDHI(CX), R12
	SUBQ  LDLO(CX), R12
	CMPQ  R11, R12
	JHI   nomatch        // one branch, unsigned: a day before LDLO wraps past the range (dateLead keeps LDLO ≤ LDHI)
	MOVQ  ROWE(SP), R12
	TESTQ R12, R12
	JZ    match
	JMP   mend

spandval:
	MOVQ   X4, CX
	BSWAPL CX
	SHLQ   $32, R11
	ORQ    CX, R11
	MOVQ   R11, DKEY(R13)

spannext:
	INCQ   R12
	CMPQ   R12, NSPAN(R13)
	JLT    spanfield

spansdone:
	CMPQ KTAB(R13), $0
	JNE  lookup

	// Parse each summed field as parseCents does: 1 to 8 digits, '.', 2
	// digits, 8 bytes readable.
parsestart:
	MOVQ $0, ROWSCL(SP)
	XORL AX, AX
	CMPQ NPARSE(R13), $0
	JEQ  parsed                  // no value but a date (DKEY)

parse:
	MOVBQZX SUMS(R13)(AX*2), CX
	MOVQ    0(SP)(CX*8), R8
	INCQ    R8                   // the field's start
	MOVQ    -8(SP)(CX*8), R12    // and end
	SUBQ    R8, R12              // its length
	LEAQ    8(R8), R11
	CMPQ    R11, AVAIL(R13)
	JGT     bad
	ADDQ    SI, R8
	CMPB    SCL(R13)(AX*1), $0
	JEQ     integer
	SUBQ    $3, R12              // digits before the point
	POINT(tenths)
	CENTDIGIT(1, R11)
	CENTDIGIT(2, CX)
	LEAQ    (R11)(R11*4), R11
	LEAQ    (CX)(R11*2), R11     // the cents
	JMP     digits

	// A money field with one digit after the point, or none (R, DuckDB
	// and pandas write 9.30 as 9.3 and 10.00 as 10): the same cents, where
	// the sums are the lanes' (a sum at scale 2 took a value at scale 2
	// already). In emit mode the value goes to its group, whose sum keeps
	// its own values' largest scale: back to Go.
tenths:
	CMPQ    OUT(R13), $0
	JEQ     tenthsok
	CMPQ    KTAB(R13), $0        // slot mode with sums alone: the entry counts them (ACCLOW)
	JEQ     bad
	CMPQ    EXT(R13), $0
	JNE     bad

tenthsok:
	INCQ    R12                  // digits before a point second to last
	POINT(nopoint)
	CENTDIGIT(1, R11)
	IMUL3Q  $10, R11, R11        // the cents
	MOVL    $0x101, CX
	SHLXQ   AX, CX, CX
	ORQ     CX, ROWSCL(SP)
	JMP     digits

nopoint:
	ADDQ    $2, R12              // the field's length: every byte a digit (checked below)
	LEAQ    -1(R12), R11
	CMPQ    R11, $7
	JHI     bad
	XORL    R11, R11             // no cents
	MOVL    $1, CX
	SHLXQ   AX, CX, CX
	ORQ     CX, ROWSCL(SP)
	JMP     digits

integer:
	// A field of scale 0 (parseSWAR's integer): 1 to 8 digits, no cents.
	LEAQ -1(R12), R11
	CMPQ R11, $7
	JHI  bad
	XORL R11, R11

digits:
	MOVQ    (R8), R8             // the digits' word

	// The first n bytes must be digits, as firstNonDigit checks: a byte
	// is one iff XOR '0' leaves it at most 9, so that neither it nor it
	// + 0x76 has its top bit set. (Only a byte that fails can carry into
	// the next.) The XOR leaves the digits' values.
	MOVQ  $0x3030303030303030, CX
	XORQ  CX, R8
	MOVQ  $0x7676767676767676, DX
	ADDQ  R8, DX
	ORQ   R8, DX
	MOVQ  $0x8080808080808080, CX
	ANDQ  CX, DX
	LEAQ  (R12*8), CX
	BZHIQ CX, DX, DX
	JNE   bad

	// The digits to the top (as eightDigits shifts them), summed a byte a
	// digit; every FLUSHROWS rows, and when the call ends, those sums go
	// to the lanes (see flush): ScanRegionInCache 27.4 to 26.7 us, medians
	// of 16 alternating runs.
	NEGQ  CX
	ADDQ  $64, CX
	SHLXQ CX, R8, R8
	MOVQ  R8, DIG(SP)(AX*8)
	MOVQ  R11, CNT(SP)(AX*8)
	ADDQ  R11, CSUM(SP)(AX*8) // (in emit mode too: fold then ignores the lanes)
	ADDQ  R8, BYTES(SP)(AX*8)
	INCQ  AX
	CMPQ  AX, NPARSE(R13)    // the sums, then the numeric filters' fields
	JLT   parse

parsed:
	MOVQ  OUT(R13), R12
	TESTQ R12, R12
	JNZ   emit
	CMPQ  NNUM(R13), $0
	JNE   numlanes

take:
	INCQ  R14
	DECQ  R15
	JNZ   next
	MOVQ  $1, R11        // flush, then walk on
	JMP   flush

	// A field that does not parse: take back the row's fields before it,
	// and hand the row back. A row a numeric filter turns away: take back
	// its sums, and it is not a match (the filters' fields' lanes are
	// never folded).
bad:
	XORL R12, R12
	JMP  takeback

numfail:
	MOVQ NSUM(R13), AX
	MOVQ $1, R12

takeback:
	DECQ  AX
	JLT   takendone
	MOVQ  CNT(SP)(AX*8), R11
	SUBQ  R11, CSUM(SP)(AX*8)
	MOVQ  DIG(SP)(AX*8), R8
	SUBQ  R8, BYTES(SP)(AX*8)
	JMP   takeback

takendone:
	TESTQ R12, R12
	JZ    handback
	JMP   nomatch

	// The values made numbers (in DIG) as simdjson's
	// parse_eight_digits_unrolled does (the bytes are values already, the
	// last digit the top byte), then cents added: in emit mode every
	// value, else the numeric filters' alone. Then each numeric filter:
	// its value within [NUMLO, NUMHI], compared as unsigned differences
	// so that the range of != wraps (see numOn). Then, in emit mode, the row to the
	// key table's accumulators (slot mode) or, with its spans, to
	// out[nout].
numlanes:
	MOVQ NSUM(R13), AX
	JMP  tonum

emit:
	XORL   AX, AX
	CMPQ   NPARSE(R13), $0
	JEQ    numok
	CMPQ   KTAB(R13), $0
	JEQ    tonum
	CMPQ   EXT(R13), $0
	JNE    tonum
	MOVQ   NSUM(R13), AX        // slot mode's sums go to lanes (slotlanes): numbers for the filters alone
	CMPQ   AX, NPARSE(R13)
	JLT    tonum
	JMP    numok

tonum:
	TONUM(numdone)
	INCQ   AX
	CMPQ   AX, NPARSE(R13)
	JLT    tonum
	MOVQ   NSUM(R13), AX
	CMPQ   NNUM(R13), $0
	JEQ    numok

numfilter:
	CMPQ   AX, NPARSE(R13)
	JGE    numok
	MOVQ   DIG(SP)(AX*8), R8
	MOVQ   NUMHI(R13)(AX*8), CX
	SUBQ   NUMLO(R13)(AX*8), R8
	SUBQ   NUMLO(R13)(AX*8), CX
	CMPQ   R8, CX
	JHI    numfail              // (unsigned: see numOn)
	INCQ   AX
	JMP    numfilter

numok:
	TESTQ  R12, R12
	JZ     take
	CMPQ   KTAB(R13), $0
	JNE    slot

record:
	MOVQ   OUT(R13), R12
	MOVQ   NOUT(R13), AX
	IMUL3Q $RECSIZE, AX, AX
	ADDQ   AX, R12              // the record
	MOVQ   BX, 0(R12)
	MOVQ   ROWE(SP), AX
	MOVQ   AX, 8(R12)
	MOVQ   SPS(SP), AX
	MOVQ   AX, 16(R12)
	MOVQ   SPE(SP), AX
	MOVQ   AX, 24(R12)
	CMPQ   NSPAN(R13), $1
	JLE    recspans               // no later filter's span
	MOVQ   (SPS+8)(SP), AX
	MOVQ   AX, 32(R12)
	MOVQ   (SPE+8)(SP), AX
	MOVQ   AX, 40(R12)
	MOVQ   (SPS+16)(SP), AX
	MOVQ   AX, 48(R12)
	MOVQ   (SPE+16)(SP), AX
	MOVQ   AX, 56(R12)

recspans:
	XORL   AX, AX

recvalue:
	MOVQ   DIG(SP)(AX*8), R8
	MOVQ   R8, 64(R12)(AX*8)
	INCQ   AX
	CMPQ   AX, NSUM(R13)
	JLT    recvalue
	MOVQ   NOUT(R13), AX
	INCQ   AX
	MOVQ   AX, NOUT(R13)
	CMPQ   AX, NCAP(R13)
	JLT    nextbit
	MOVQ   $3, MORE(R13)        // out is full
	JMP    fold

	// Slot mode: the key (span 0) looked up in the key table (hotKeys:
	// keyHash, then the next slot on, until the key or an empty slot),
	// compared with the slot's (cmpkey), before the values are parsed, so
	// that the wait for the table's slot overlaps the parse instead of
	// following it; found, PACC is the entry's accumulators, where slot
	// (after the parse) counts the row and adds its values. A key of more
	// than 64 bytes, one less than 64 bytes before the window's readable
	// end, or one not in the table leaves PACC 0 (premiss): the row goes
	// out as a record (slotmiss). With a second group-by column (KEY2),
	// the key is span 0, the delimiter and span 2, made in KBUF (see key2). The hash
	// is keyHash's, in a table of KMASK+1 slots.
lookup:
	MOVQ    SPS(SP), R8
	MOVQ    SPE(SP), R12
	SUBQ    R8, R12              // the key's length
	CMPQ    KEY2(R13), $0
	JNE     key2
	CMPQ    R12, $64
	JHI     premiss
	LEAQ    64(R8), AX
	CMPQ    AX, AVAIL(R13)
	JGT     premiss
	ADDQ    SI, R8               // the key's first byte

slothash:
	MOVQ    (R8), AX
	LEAQ    (R12*8), CX
	MOVQ    $64, DX
	CMPQ    CX, DX
	CMOVQGT DX, CX
	BZHIQ   CX, AX, AX           // its first 8 bytes, zero past its end
	XORQ    R12, AX
	MOVQ    $8, DX
	CMPQ    R12, DX
	CMOVQGT R12, DX
	MOVQ    -8(R8)(DX*1), DX     // its last 8 bytes (its first 8 if it has 8 or fewer)
	XORL    CX, CX
	CMPQ    R12, $8
	CMOVQLT CX, DX               // (none under 8)
	RORXQ   $32, DX, DX
	XORQ    DX, AX
	MOVQ    $0x9E3779B97F4A7C15, CX
	IMULQ   CX, AX
	MOVQ    KSHIFT(R13), CX
	SHRQ    CX, AX               // keyHash
	MOVQ    KTAB(R13), R11

probe:
	MOVQ    AX, KI(SP)
	IMUL3Q  $SLOTSIZE, AX, CX
	ADDQ    R11, CX              // the slot
	MOVQ    SLOTN(CX), DX
	TESTQ   DX, DX
	JZ      premiss              // an empty slot: a key not in the table
	DECQ    DX
	CMPQ    DX, R12
	JNE     nextslot

	// The key's 64 bytes (readable: checked above) against the slot's,
	// under its length, in two compares and no loop: the length changes
	// from row to row, and a loop's exit on it was mispredicted.
cmpkey:
	VMOVDQU   (R8), Y0
	VPCMPEQB  (CX), Y0, Y0
	VMOVDQU   32(R8), Y1
	VPCMPEQB  32(CX), Y1, Y1
	VPMOVMSKB Y0, DX
	VPMOVMSKB Y1, AX
	VZEROUPPER
	SHLQ      $32, AX
	ORQ       AX, DX
	NOTQ      DX                 // the bytes that differ
	BZHIQ     R12, DX, DX        // under the length (all from 64 on)
	JNZ       nextslot

	MOVQ   SLOTJ(CX), AX
	IMUL3Q $ACCSIZE, AX, AX
	ADDQ   KACC(R13), AX         // the entry's accumulators
	MOVQ   AX, PACC(SP)
	JMP    parsestart

premiss:
	MOVQ   $0, PACC(SP)
	JMP    parsestart

	// Slot mode, after the parse: the row's entry as the lookup before it
	// found it (PACC), or the row goes out as a record (slotmiss).
slot:
	MOVQ   PACC(SP), AX
	TESTQ  AX, AX
	JZ     slotmiss
	INCQ   0(AX)
	XORL   CX, CX
	CMPQ   EXT(R13), $0
	JEQ    slotlanes
	CMPQ   DV(R13), $0            // (a date's minimum or maximum: extremes mode)
	JNE    slotdate

	// Extremes mode: each value to its sum, its maximum, and MaxInt64
	// minus it to the minima's maximum (both start at 0: the values are
	// not negative), without a branch.
slotext:
	LEAQ    (CX)(CX*2), R12      // value CX's sum, maximum and minimum: 3·CX words on
	MOVQ    DIG(SP)(CX*8), R8
	ADDQ    R8, ACCSUM(AX)(R12*8)
	MOVQ    ACCMAX(AX)(R12*8), R11
	CMPQ    R8, R11
	CMOVQGT R8, R11
	MOVQ    R11, ACCMAX(AX)(R12*8)
	MOVQ    $0x7FFFFFFFFFFFFFFF, R11
	SUBQ    R8, R11
	MOVQ    ACCMIN(AX)(R12*8), DX
	CMPQ    R11, DX
	CMOVQGT R11, DX
	MOVQ    DX, ACCMIN(AX)(R12*8)
	INCQ    CX
	CMPQ    CX, NSUM(R13)
	JLT     slotext

slotdone:
	INCQ   R14
	JMP    nextbit

	// Sums alone: each value's digits (in DIG, as parsed) to the entry's
	// lanes, as flush does for r's, and its cents; every LANEROWS rows of
	// the key the lanes go to its sums (keyflush), before a lane can fill.
slotlanes:
	MOVQ   $0x00FF00FF00FF00FF, DX

slotlane:
	LEAQ   (CX)(CX*2), R12       // value CX's lanes and cents: 3·CX words on
	MOVQ   DIG(SP)(CX*8), R8
	ADDLANES(R8, R11, DX, ACCEVEN(AX)(R12*8), ACCODD(AX)(R12*8))
	MOVQ   CNT(SP)(CX*8), R8
	ADDQ   R8, ACCCENT(AX)(R12*8)
	INCQ   CX
	CMPQ   CX, NSUM(R13)
	JLT    slotlane
	CMPQ   ROWSCL(SP), $0
	JNE    slotlow

slotlowdone:
	TESTQ  $(LANEROWS-1), 0(AX)
	JNZ    slotdone
	XORL   CX, CX

keyflush:
	LEAQ   (CX)(CX*2), R12
	MOVQ   ACCEVEN(AX)(R12*8), R11
	MOVQ   ACCODD(AX)(R12*8), DX
	LANEVALUE(R11, DX, R8)
	CMPB   SCL(R13)(CX*1), $0
	JEQ    keywhole
	IMUL3Q $100, R8, R8
	ADDQ   ACCCENT(AX)(R12*8), R8

keywhole:
	ADDQ   R8, ACCSUM(AX)(R12*8)
	MOVQ   $0, ACCEVEN(AX)(R12*8)
	MOVQ   $0, ACCODD(AX)(R12*8)
	MOVQ   $0, ACCCENT(AX)(R12*8)
	INCQ   CX
	CMPQ   CX, NSUM(R13)
	JLT    keyflush
	JMP    slotdone

	// A two-column key (twoKey): span 0, the delimiter (KEY2) and span
	// 2, at most 64 bytes, in KBUF: each field's 64 bytes (readable)
	// copied 16 at a time, the second's after the first's length and the
	// delimiter. (Fields of a quote-free row hold no delimiter, so no two
	// pairs make one key.) The
	// bytes past the key are not its: the hash and the compare look under
	// its length only.
key2:
	MOVQ    (SPS+16)(SP), AX
	MOVQ    (SPE+16)(SP), CX
	SUBQ    AX, CX               // the second field's length
	LEAQ    1(R12)(CX*1), DX
	CMPQ    DX, $64
	JHI     premiss
	LEAQ    64(R8), DX
	CMPQ    DX, AVAIL(R13)
	JGT     premiss
	LEAQ    64(AX), DX
	CMPQ    DX, AVAIL(R13)
	JGT     premiss
	MOVOU   (SI)(R8*1), X0
	MOVOU   16(SI)(R8*1), X1
	MOVOU   32(SI)(R8*1), X2
	MOVOU   48(SI)(R8*1), X3
	MOVOU   X0, KBUF(SP)
	MOVOU   X1, (KBUF+16)(SP)
	MOVOU   X2, (KBUF+32)(SP)
	MOVOU   X3, (KBUF+48)(SP)
	MOVQ    KEY2(R13), DX
	MOVB    DX, KBUF(SP)(R12*1)
	LEAQ    (KBUF+1)(SP)(R12*1), DX
	MOVOU   (SI)(AX*1), X0
	MOVOU   16(SI)(AX*1), X1
	MOVOU   32(SI)(AX*1), X2
	MOVOU   48(SI)(AX*1), X3
	MOVOU   X0, (DX)
	MOVOU   X1, 16(DX)
	MOVOU   X2, 32(DX)
	MOVOU   X3, 48(DX)
	LEAQ    1(R12)(CX*1), R12    // the key's length
	LEAQ    KBUF(SP), R8
	JMP     slothash

	// The date value's key (DKEY) to the entry's date maximum, and
	// MaxInt64 minus it to its minima's (both start at 0: keys are not
	// negative), as slotext does for a value; then the values, if any.
slotdate:
	MOVQ    DKEY(R13), R8
	MOVQ    ACCDMAX(AX), R11
	CMPQ    R8, R11
	CMOVQGT R8, R11
	MOVQ    R11, ACCDMAX(AX)
	MOVQ    $0x7FFFFFFFFFFFFFFF, R11
	SUBQ    R8, R11
	MOVQ    ACCDMIN(AX), DX
	CMPQ    R11, DX
	CMOVQGT R11, DX
	MOVQ    DX, ACCDMIN(AX)
	XORL    CX, CX
	CMPQ    NSUM(R13), $0
	JNE     slotext
	JMP     slotdone

	// A row slot mode does not take (its key not in the table, too long
	// or too near the window's end) goes out as a record, as in emit
	// mode, for groupsHot to add and learn its key: its sums made
	// numbers first, if they are digit words for the lanes (not in
	// extremes mode, where every value is a number already; a numeric
	// filter's is one in both).
slotmiss:
	MOVQ  ROWSCL(SP), R8
	MOVQ  NSUM(R13), CX
	BZHIQ CX, R8, R8
	TESTQ R8, R8
	JZ    slotrec
	MOVQ  NPARSE(R13), AX        // (a sum read as cents at a smaller scale: records are at the sums' scales)
	JMP   bad

	// A row of the entry with values at a smaller scale (ROWSCL): each
	// one's count, and the flag of one with a digit after the point.
slotlow:
	MOVQ   ROWSCL(SP), R8
	MOVQ   NSUM(R13), CX
	BZHIQ  CX, R8, R11           // the sums' bits
	SHRQ   $8, R8
	BZHIQ  CX, R8, R8            // with a digit after the point

slotlowcount:
	TZCNTQ R11, CX
	JCS    slotlowtenths
	INCL   ACCLOW(AX)(CX*4)
	BLSRQ  R11, R11
	JMP    slotlowcount

slotlowtenths:
	TZCNTQ R8, CX
	JCS    slotlowdone
	ORL    $0x80000000, ACCLOW(AX)(CX*4)
	BLSRQ  R8, R8
	JMP    slotlowtenths

slotrec:
	CMPQ EXT(R13), $0
	JNE  record
	XORL AX, AX

missnum:
	TONUM(missdone)
	INCQ AX
	CMPQ AX, NSUM(R13)
	JLT  missnum
	JMP  record

nextslot:
	MOVQ KI(SP), AX
	INCQ AX
	ANDQ KMASK(R13), AX
	JMP  probe

	NLFAR(nlfar, nlloop, haveend)
	NLFAR(mfar, mloop, mend)
	NLFAR(hfar, hloop, hend)
	NLFAR(chfar, chloop, chend)

	// A wider row's commas, word by word (its last byte's word is at least
	// two past its start's).
cmwide:
	MOVQ    CM(DI)(AX*8), R8
	SHRXQ   BX, R8, R8
	POPCNTQ R8, R8
	LEAQ    -1(DX), CX
	SHRQ    $6, CX               // the last byte's word

cmloop:
	INCQ    AX
	CMPQ    AX, CX
	JEQ     cmlast
	POPCNTQ CM(DI)(AX*8), R11
	ADDQ    R11, R8
	JMP     cmloop

cmlast:
	LEAQ    -1(DX), R11
	ANDQ    $63, R11
	INCQ    R11
	BZHIQ   R11, CM(DI)(CX*8), R11 // the bits up to the last byte
	POPCNTQ R11, R11
	ADDQ    R11, R8
	JMP     cmcount


	// A row goes back: with its end (line takes [Q, E)), which a row lead
	// took has to find (no path does today: every check that can send one
	// back comes after match has found it).
handback:
	CMPQ ROWE(SP), $0
	JNE  hknown
	NLFIND(hfar)

hend:
	MOVQ R12, ROWE(SP)

hknown:
	CMPQ CMODE(R13), $0
	JEQ  backrow
	CMPQ INP2(SP), $0
	JNE  p2back
	MOVQ ROWE(SP), AX            // the first pass: the row to the buffer,
	NOTQ AX                      // marked to go back, after the rows there
	MOVQ NBUF(SP), CX
	CBUFENT(CX, R8)
	MOVQ BX, 0(R8)
	MOVQ AX, 8(R8)
	MOVQ ROWN(SP), AX
	MOVQ AX, 16(R8)
	INCQ CX
	MOVQ CX, NBUF(SP)
	MOVQ $0, P2NEXT(SP)
	JMP  pass2

backrow:
	MOVQ BX, Q(R13)
	MOVQ ROWE(SP), AX
	MOVQ AX, E(R13)
	MOVQ $1, MORE(R13)
	JMP  fold

done:
	CMPQ NBUF(SP), $0
	JEQ  walkdone
	MOVQ $1, P2NEXT(SP)          // compress mode: the second pass first
	JMP  pass2

walkdone:
	MOVQ $0, MORE(R13)

fold:
	// Chain mode: the walk from the sp bit at NEXTS on.
	CMPQ   CHAIN(SP), $0
	JEQ    folded
	MOVQ   NEXTS(SP), BX
	WALKAT(BX, chnz, folded)

folded:
	XORL R11, R11 // flush, then fold

	// flush: each field's byte sums (the digits shifted to the top of
	// the word, as eightDigits shifts them) into its lanes: even bytes
	// and odd bytes in 16-bit lanes of their own. A lane cannot overflow:
	// a call takes at most a window's rows, each over 8 bytes (410), at
	// most 9 a row, and 410·9 < 2^16 (TestHotPathDenseWindow).
flush:
	XORL AX, AX
	MOVQ $0x00FF00FF00FF00FF, CX

flushfield:
	MOVQ BYTES(SP)(AX*8), R8
	ADDLANES(R8, R12, CX, EVEN(SP)(AX*8), ODD(SP)(AX*8))
	MOVQ $0, BYTES(SP)(AX*8)
	INCQ AX
	CMPQ AX, NSUM(R13)
	JLT  flushfield
	MOVQ $FLUSHROWS, R15
	TESTQ R11, R11
	JNZ  next

	// fold: each field's sum in cents from its lanes (lane j of even and
	// odd holds the digits worth 10^(7-2j) and 10^(6-2j)), checked against
	// overflow in every slot before any is added.
	MOVQ R9, CUR(R13)
	MOVQ R10, W(R13)
	MOVQ r+24(FP), R12
	XORL AX, AX
	CMPQ OUT(R13), $0
	JNE  counts // emit mode: the lanes' rows went to out, not to r's sums

value:
	CMPQ    AX, NSUM(R13)
	JGE     apply
	MOVQ    EVEN(SP)(AX*8), R11
	MOVQ    ODD(SP)(AX*8), DX
	LANEVALUE(R11, DX, R8)
	CMPB    SCL(R13)(AX*1), $0
	JEQ     whole                   // an integer's lanes are its value
	IMUL3Q  $100, R8, R8
	ADDQ    CSUM(SP)(AX*8), R8

whole:
	MOVQ    R8, DIG(SP)(AX*8)       // the value, at its scale
	MOVBQZX (SUMS+1)(R13)(AX*2), CX
	IMUL3Q  $FIXEDSIZE, CX, CX
	ADDQ    SUMV(R12)(CX*1), R8
	JOS     overflow
	INCQ    AX
	JMP     value

apply:
	XORL AX, AX

add:
	CMPQ    AX, NSUM(R13)
	JGE     counts
	MOVBQZX (SUMS+1)(R13)(AX*2), CX
	IMUL3Q  $FIXEDSIZE, CX, CX
	MOVQ    DIG(SP)(AX*8), R8
	ADDQ    R8, SUMV(R12)(CX*1)
	INCQ    AX
	JMP     add

counts:
	MOVQ R14, AX
	ADDQ AX, MATCHED(R12)
	ADDQ ROWN(SP), AX
	ADDQ AX, ROWS(R12)
	RET

overflow:
	MOVQ NZ0(SP), AX
	MOVQ AX, NZ(R13)
	MOVQ CUR0(SP), AX
	MOVQ AX, CUR(R13)
	MOVQ W0(SP), AX
	MOVQ AX, W(R13)
	MOVQ $2, MORE(R13)
	RET
