package principal_test

import (
	"context"
	"fmt"
	"math"

	"github.com/manifoldlab/manifold/engine/internal/principal"
)

// Rows of 8 features that vary along one direction only: one axis (rounded
// up to 4) keeps all the variance, and each row's coordinate on the first
// axis is its position along that direction (up to the axis's sign).
func Example() {
	const n, d = 100, 8
	dir := []float64{1, 2, 0, 0, 2, 1, 0, 0} // norm √10
	row := func(i int, buf []float64) []float64 {
		for k, v := range dir {
			buf[k] = 3 + float64(i)*v/math.Sqrt(10)
		}
		return buf
	}
	axes, mean, err := principal.Axes(context.Background(), n, d, row, 0.99)
	if err != nil {
		panic(err)
	}
	fmt.Println("axes:", axes.Cols)
	var z10, z0 float64
	_ = principal.Project(context.Background(), n, row, axes, mean, func(i int, _, z []float64) {
		switch i {
		case 0:
			z0 = z[0]
		case 10:
			z10 = z[0]
		}
	})
	fmt.Printf("row 10 lies %.6f from row 0 along the first axis\n", math.Abs(z10-z0))
	// Output:
	// axes: 4
	// row 10 lies 10.000000 from row 0 along the first axis
}
