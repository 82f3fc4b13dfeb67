package neighbors

import "unsafe"

// NN-descent and the approximate queries read rows scattered over the
// float32 copy of the data (100 MB for 100,000 rows of 256 features): on
// 4 KiB pages nearly every row read is also a TLB miss. Where the kernel
// gives transparent huge pages on request (Linux's default "madvise"
// mode; the Go runtime does not ask for them), the copy is asked to be on
// 2 MiB pages: random rows' dot products 134–154 → 111–113 ns on the 2-core
// EPYC VM, 100,000×256 (2026-11-25). The memory stays the Go heap's; the
// request only changes how the kernel backs it.

// hugePage is the size of a transparent huge page.
const hugePage = 2 << 20

// float32sOnHugePages returns a zeroed slice of n values which, when it
// spans a few huge pages, starts on a huge-page boundary and is advised to
// the kernel for huge pages (adviseHuge) before it is first written; the
// alignment costs one huge page (2 MiB) more than the values.
func float32sOnHugePages(n int) []float32 {
	if n*4 < 2*hugePage || !hugePagesAdvised {
		return make([]float32, n)
	}
	buf := make([]float32, n+hugePage/4)
	p := uintptr(unsafe.Pointer(&buf[0]))
	off := int((hugePage-p%hugePage)%hugePage) / 4
	x := buf[off : off+n : off+n]
	adviseHuge(unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 4*n))
	return x
}
