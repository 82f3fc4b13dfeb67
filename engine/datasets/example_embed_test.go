package datasets_test

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/manifoldlab/manifold/engine/datasets"
)

// A swiss roll in 784 dimensions: the distances of the 3-D roll, kept.
func ExampleEmbed() {
	x, _ := datasets.SwissRoll(100, 0, 1)
	y, err := datasets.Embed(x, 784, 0, 2)
	if err != nil {
		panic(err)
	}
	r, c := y.Dims()
	d3 := floats.Distance(x.RawRowView(0), x.RawRowView(1), 2)
	d784 := floats.Distance(y.RawRowView(0), y.RawRowView(1), 2)
	fmt.Printf("%d×%d, distance %.6f in 3-D and %.6f in 784-D\n", r, c, d3, d784)
	// Output:
	// 100×784, distance 11.671699 in 3-D and 11.671699 in 784-D
}
