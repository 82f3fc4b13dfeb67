package engine_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
)

// PCA of points on a tilted line in 3-D: one component carries all the
// variance.
func ExamplePCA() {
	x := mat.NewDense(5, 3, []float64{
		0, 0, 0,
		1, 2, 2,
		2, 4, 4,
		3, 6, 6,
		4, 8, 8,
	})
	m, err := engine.PCA{Dim: 1}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	fmt.Printf("explained variance ratio %.3f\n", m.ExplainedVarianceRatio()[0])
	fmt.Printf("component %.3f\n", mat.Formatted(m.Components().T()))
	// Output:
	// explained variance ratio 1.000
	// component [0.333  0.667  0.667]
}

// Isomap unrolls a swiss roll: the first coordinate follows the roll
// parameter t almost perfectly.
func ExampleIsomap() {
	x, t := datasets.SwissRoll(1000, 0, 1)
	m, err := engine.Isomap{Dim: 2, K: 10}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	y := m.Embedding()
	fmt.Printf("|corr(y1, t)| > 0.99: %v\n", math.Abs(corr(mat.Col(nil, 0, y), t)) > 0.99)
	for _, s := range m.Report().Stages {
		fmt.Println(s.Name)
	}
	// Output:
	// |corr(y1, t)| > 0.99: true
	// neighbors
	// components
	// geodesics
	// centering
	// eigensolve
}

// Isometric Projection learns a linear map, so new points are mapped by a
// matrix product.
func ExampleIsoProjection() {
	x, _ := datasets.SwissRoll(500, 0.05, 2)
	m, err := engine.IsoProjection{Dim: 2, K: 8}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	a := m.Projection()
	r, c := a.Dims()
	fmt.Printf("projection %d×%d\n", r, c)
	xnew, _ := datasets.SwissRoll(3, 0.05, 3)
	y, err := m.Transform(context.Background(), xnew)
	if err != nil {
		panic(err)
	}
	var want mat.Dense
	want.Mul(xnew, a)
	fmt.Println(mat.EqualApprox(y, &want, 1e-12))
	// Output:
	// projection 3×2
	// true
}

func corr(a, b []float64) float64 {
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma /= float64(len(a))
	mb /= float64(len(b))
	var sab, saa, sbb float64
	for i := range a {
		sab += (a[i] - ma) * (b[i] - mb)
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}
