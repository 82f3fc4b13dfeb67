package bench_test

import (
	"fmt"

	"github.com/manifoldlab/manifold/bench"
)

// The benchmark matrices are reproducible from their seed, and Best keeps
// the shortest of several timed runs.
func Example() {
	a := bench.RandGeneral(1, 3, 2)
	b := bench.RandGeneral(1, 3, 2)
	fmt.Println(a.Rows, a.Cols, a.Data[0] == b.Data[0])
	runs := 0
	best := bench.Best(3, func() { runs++ })
	fmt.Println(runs, best >= 0)
	// Output:
	// 3 2 true
	// 3 true
}
