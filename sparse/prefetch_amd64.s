//go:build amd64 && !noasm

#include "textflag.h"

// func prefetch2(a, b unsafe.Pointer)
// Asks for the cache lines at a, b and b+64 (an adjacency list's first
// neighbours and weights) without waiting for them.
TEXT ·prefetch2(SB), NOSPLIT, $0-16
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	PREFETCHT0 (AX)
	PREFETCHT0 (BX)
	PREFETCHT0 64(BX)
	RET
