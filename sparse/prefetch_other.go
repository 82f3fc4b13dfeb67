//go:build !amd64 || noasm

package sparse

import "unsafe"

// prefetch2 is a no-op where there is no prefetch instruction.
func prefetch2(a, b unsafe.Pointer) {}
