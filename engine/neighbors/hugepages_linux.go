//go:build linux

package neighbors

import "syscall"

const hugePagesAdvised = true

// adviseHuge asks for transparent huge pages on b (MADV_HUGEPAGE); a
// kernel that refuses leaves the pages as they are, which is only slower.
func adviseHuge(b []byte) {
	const madvHugepage = 14
	_ = syscall.Madvise(b, madvHugepage)
}
