package lobpcg_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/lobpcg"
)

// The two smallest nonzero eigenvalues of the Laplacian of a path of 100
// vertices, 2 − 2·cos(jπ/100), on the complement of its constant null
// vector, with the product given as a function (never stored).
func Example() {
	const n = 100
	mul := func(ctx context.Context, dst, src blas64.General) error {
		for i := 0; i < n; i++ {
			for c := 0; c < src.Cols; c++ {
				v := 0.0
				if i > 0 {
					v += src.Data[i*src.Stride+c] - src.Data[(i-1)*src.Stride+c]
				}
				if i < n-1 {
					v += src.Data[i*src.Stride+c] - src.Data[(i+1)*src.Stride+c]
				}
				dst.Data[i*dst.Stride+c] = v
			}
		}
		return nil
	}
	null := make([]float64, n)
	start := blas64.General{Rows: n, Cols: 4, Stride: 4, Data: make([]float64, n*4)}
	for i := range null {
		null[i] = 1 / math.Sqrt(n)
		for c := 0; c < 4; c++ {
			start.Data[i*4+c] = math.Sin(float64((i+1)*(c+2)) * 0.37)
		}
	}
	ctx := context.Background()
	norm, err := lobpcg.EstimateNorm(ctx, mul, n)
	if err != nil {
		panic(err)
	}
	res, err := lobpcg.Bottom(ctx, lobpcg.Problem{Mul: mul, Null: null, Norm: norm, Want: 2}, start)
	if err != nil {
		panic(err)
	}
	for j, v := range res.Values {
		fmt.Printf("%.9f (exact %.9f)\n", v, 2-2*math.Cos(float64(j+1)*math.Pi/n))
	}
	// Output:
	// 0.000986879 (exact 0.000986879)
	// 0.003946543 (exact 0.003946543)
}
