package sysmem_test

import (
	"fmt"
	"runtime/debug"

	"github.com/manifoldlab/manifold/internal/sysmem"
)

// With a Go memory limit of 1 MiB set, Available is at most that, and
// says where its figure came from.
func ExampleAvailable() {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 20))
	avail, source := sysmem.Available()
	fmt.Println(avail <= 1<<20, source != "")
	// Output: true true
}
