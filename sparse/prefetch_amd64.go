//go:build amd64 && !noasm

package sparse

import "unsafe"

// prefetch2 asks for the cache lines at a, b and b+64 without waiting
// (PREFETCHT0); it reads nothing the program sees.
//
//go:noescape
func prefetch2(a, b unsafe.Pointer)
