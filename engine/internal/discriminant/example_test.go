package discriminant_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/engine/internal/discriminant"
)

// Two classes of four points each, a cross of radius 1 around (0, 0) and
// the same cross around (4, 0): S_W = 4·I and S_B = diag(32, 0), so the
// one discriminant direction is the first axis with λ = 32/4 = 8, and
// scaled to Wᵀ(S_W/8)W = 1 it is (±√2, 0).
func Example() {
	x := [][2]float64{{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {3, 0}, {5, 0}, {4, -1}, {4, 1}}
	labels := []int{7, 7, 7, 7, 9, 9, 9, 9}
	a := blas64.General{Rows: 8, Cols: 2, Stride: 2, Data: make([]float64, 16)}
	for i, row := range x {
		a.Data[2*i], a.Data[2*i+1] = row[0]-2, row[1] // centred: the mean is (2, 0)
	}
	y, classes, size := discriminant.Classes(labels)
	_, b, sw, err := discriminant.Scatter(context.Background(), a, y, size)
	if err != nil {
		panic(err)
	}
	vals, w, err := discriminant.Solve(sw, b, 1, 0)
	if err != nil {
		panic(err)
	}
	discriminant.Pooled(w, a.Rows)
	fmt.Println("classes:", classes, "sizes:", size)
	fmt.Printf("λ = %.4f, |w| = (%.4f, %.4f)\n", vals[0], math.Abs(w.Data[0]), math.Abs(w.Data[1]))
	// Output:
	// classes: [7 9] sizes: [4 4]
	// λ = 8.0000, |w| = (1.4142, 0.0000)
}
