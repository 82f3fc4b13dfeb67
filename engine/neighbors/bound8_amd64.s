//go:build amd64 && !noasm

#include "textflag.h"

// LOADQ8 loads the query's 8 coordinates from (SI) into X8–X11.
#define LOADQ8 \
	MOVUPD 0(SI), X8;  \
	MOVUPD 16(SI), X9; \
	MOVUPD 32(SI), X10; \
	MOVUPD 48(SI), X11

// SQDIST8(p) leaves in the low lane of X0 the squared distance of the 8
// values at p from X8–X11, summed ((e0² + e2²) + (e4² + e6²)) +
// ((e1² + e3²) + (e5² + e7²)) as bound8.go's Go form sums them; X1–X3
// are clobbered.
#define SQDIST8(p) \
	MOVUPD   0(p), X0;  \
	MOVUPD   16(p), X1; \
	MOVUPD   32(p), X2; \
	MOVUPD   48(p), X3; \
	SUBPD    X8, X0;    \
	SUBPD    X9, X1;    \
	SUBPD    X10, X2;   \
	SUBPD    X11, X3;   \
	MULPD    X0, X0;    \
	MULPD    X1, X1;    \
	MULPD    X2, X2;    \
	MULPD    X3, X3;    \
	ADDPD    X1, X0;    \
	ADDPD    X3, X2;    \
	ADDPD    X2, X0;    \
	MOVAPD   X0, X1;    \
	UNPCKHPD X1, X1;    \
	ADDSD    X1, X0

// func sqDist8RowsSSE2(lb []float64, q *[8]float64, t []float64)
TEXT ·sqDist8RowsSSE2(SB), NOSPLIT, $0-56
	MOVQ   lb_base+0(FP), DI
	MOVQ   lb_len+8(FP), CX
	MOVQ   q+24(FP), SI
	MOVQ   t_base+32(FP), DX
	LOADQ8
	TESTQ  CX, CX
	JE     rowsdone

rowsloop:
	SQDIST8(DX)
	MOVSD    X0, (DI)
	ADDQ     $64, DX
	ADDQ     $8, DI
	DECQ     CX
	JNE      rowsloop

rowsdone:
	RET

// func sqDist8AddSSE2(lb []float64, q *[8]float64, t []float64, rows []int)
TEXT ·sqDist8AddSSE2(SB), NOSPLIT, $0-80
	MOVQ   lb_base+0(FP), DI
	MOVQ   q+24(FP), SI
	MOVQ   t_base+32(FP), DX
	MOVQ   rows_base+56(FP), BX
	MOVQ   rows_len+64(FP), CX
	LOADQ8
	TESTQ  CX, CX
	JE     adddone

addloop:
	MOVQ     (BX), AX
	MOVQ     AX, R8
	SHLQ     $6, R8
	ADDQ     DX, R8
	SQDIST8(R8)
	ADDSD    (DI)(AX*8), X0
	MOVSD    X0, (DI)(AX*8)
	ADDQ     $8, BX
	DECQ     CX
	JNE      addloop

adddone:
	RET
