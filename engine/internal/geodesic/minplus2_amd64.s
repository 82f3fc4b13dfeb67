//go:build amd64 && !noasm

#include "textflag.h"

// func minPlus2SSE2(ref, r0, r1 []float64, d0, d1 float64)
TEXT ·minPlus2SSE2(SB), NOSPLIT, $0-88
	MOVQ     ref_base+0(FP), DI
	MOVQ     ref_len+8(FP), CX
	MOVQ     r0_base+24(FP), SI
	MOVQ     r1_base+48(FP), DX
	MOVSD    d0+72(FP), X8
	MOVSD    d1+80(FP), X9
	UNPCKLPD X8, X8
	UNPCKLPD X9, X9
	XORQ     AX, AX
	MOVQ     CX, BX
	ANDQ     $-2, BX
	JE       mptail

mploop:
	MOVUPD (DI)(AX*8), X0
	MOVUPD (SI)(AX*8), X1
	MOVUPD (DX)(AX*8), X2
	ADDPD  X8, X1
	ADDPD  X9, X2
	MINPD  X1, X0
	MINPD  X2, X0
	MOVUPD X0, (DI)(AX*8)
	ADDQ   $2, AX
	CMPQ   AX, BX
	JB     mploop

mptail:
	CMPQ  AX, CX
	JAE   mpdone
	MOVSD (DI)(AX*8), X0
	MOVSD (SI)(AX*8), X1
	MOVSD (DX)(AX*8), X2
	ADDSD X8, X1
	ADDSD X9, X2
	MINSD X1, X0
	MINSD X2, X0
	MOVSD X0, (DI)(AX*8)

mpdone:
	RET
