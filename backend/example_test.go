package backend_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// Classical MDS of four points on a line, with the kernels: squared
// distances, double centering, the top eigenpair.
func Example() {
	impl := backend.Active()
	x := blas64.General{Rows: 4, Cols: 1, Stride: 1, Data: []float64{0, 1, 3, 6}}
	d := blas64.General{Rows: 4, Cols: 4, Stride: 4, Data: make([]float64, 16)}
	if err := backend.SqDistCtx(context.Background(), impl, d, x, x, nil, nil); err != nil {
		panic(err)
	}
	_ = backend.DoubleCenterCtx(context.Background(), d, nil)
	w, z, err := backend.EigTopCtx(context.Background(), impl, blas64.Symmetric{N: 4, Stride: 4, Data: d.Data, Uplo: blas.Lower}, 1)
	if err != nil {
		panic(err)
	}
	// The eigenvalue is Σ(x−mean)²; the coordinates are √λ·z.
	fmt.Printf("λ = %.4f\n", w[0])
	for i := 0; i < 4; i++ {
		fmt.Printf("%.4f\n", z.Data[i]*math.Sqrt(w[0]))
	}
	// Output:
	// λ = 21.0000
	// -2.5000
	// -1.5000
	// 0.5000
	// 3.5000
}

func ExampleInfo() {
	d := backend.Info()
	fmt.Println(d.Backend == backend.Active().Name(), d.BLASThreads >= 1)
	// Output: true true
}
