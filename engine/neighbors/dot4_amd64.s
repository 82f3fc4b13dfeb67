//go:build amd64 && !noasm

#include "textflag.h"

// HSUM4(acc, off) stores (lane 0 + lane 2) + (lane 1 + lane 3) of acc at
// off(DI), the order dot4.go's Go form sums in; X4 is clobbered.
#define HSUM4(acc, off) \
	MOVHLPS acc, X4;       \
	ADDPS   X4, acc;       \
	MOVAPS  acc, X4;       \
	SHUFPS  $0x55, X4, X4; \
	ADDSS   X4, acc;       \
	MOVSS   acc, off(DI)

// func dots4SSE(q, x []float32, off *[4]int, out *[4]float32)
// Four rows' dot products with q over len(q) &^ 3 coordinates, one
// accumulator of four lanes a row.
TEXT ·dots4SSE(SB), NOSPLIT, $0-64
	MOVQ  q_base+0(FP), SI
	MOVQ  q_len+8(FP), CX
	MOVQ  x_base+24(FP), DX
	MOVQ  off+48(FP), BX
	MOVQ  out+56(FP), DI
	ANDQ  $-4, CX
	SHLQ  $2, CX             // bytes
	MOVQ  0(BX), R8
	MOVQ  8(BX), R9
	MOVQ  16(BX), R10
	MOVQ  24(BX), R11
	LEAQ  (DX)(R8*4), R8
	LEAQ  (DX)(R9*4), R9
	LEAQ  (DX)(R10*4), R10
	LEAQ  (DX)(R11*4), R11
	XORPS X0, X0
	XORPS X1, X1
	XORPS X2, X2
	XORPS X3, X3
	XORQ  AX, AX
	CMPQ  AX, CX
	JAE   sums

loop:
	MOVUPS (SI)(AX*1), X4
	MOVUPS (R8)(AX*1), X5
	MOVUPS (R9)(AX*1), X6
	MOVUPS (R10)(AX*1), X7
	MOVUPS (R11)(AX*1), X8
	MULPS  X4, X5
	MULPS  X4, X6
	MULPS  X4, X7
	MULPS  X4, X8
	ADDPS  X5, X0
	ADDPS  X6, X1
	ADDPS  X7, X2
	ADDPS  X8, X3
	ADDQ   $16, AX
	CMPQ   AX, CX
	JB     loop

sums:
	HSUM4(X0, 0)
	HSUM4(X1, 4)
	HSUM4(X2, 8)
	HSUM4(X3, 12)
	RET

// func prefetchRowsSSE(x []float32, rows []int32, dim int)
// PREFETCHT0 of every 64-byte line of x[row·dim : (row+1)·dim] for each row.
TEXT ·prefetchRowsSSE(SB), NOSPLIT, $0-56
	MOVQ x_base+0(FP), DX
	MOVQ rows_base+24(FP), BX
	MOVQ rows_len+32(FP), CX
	MOVQ dim+48(FP), R9
	SHLQ $2, R9              // bytes a row
	TESTQ CX, CX
	JE   pfdone

pfrow:
	MOVLQSX (BX), AX
	IMULQ   R9, AX
	LEAQ    (DX)(AX*1), SI
	XORQ    R8, R8

pfline:
	PREFETCHT0 (SI)(R8*1)
	ADDQ       $64, R8
	CMPQ       R8, R9
	JB         pfline
	ADDQ       $4, BX
	DECQ       CX
	JNE        pfrow

pfdone:
	RET
