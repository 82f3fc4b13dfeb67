package engine_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
)

// OIP learns an orthonormal linear map from the swiss roll's geodesics;
// new points are mapped by it.
func ExampleOIP() {
	x, _ := datasets.SwissRoll(500, 0.05, 2)
	m, err := engine.OIP{Dim: 2, K: 10}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	v := m.Projection()
	var g mat.Dense
	g.Mul(v.T(), v)
	fmt.Printf("V is %d×%d, VᵀV = I: %v\n", v.RawMatrix().Rows, v.RawMatrix().Cols, mat.EqualApprox(&g, identityForExample(2), 1e-12))
	y, _ := m.Transform(context.Background(), x.Slice(0, 3, 0, 3))
	fmt.Println("mapped rows:", y.RawMatrix().Rows)
	// Output:
	// V is 3×2, VᵀV = I: true
	// mapped rows: 3
}

// TDPM of a circle with 1-D tangent spaces gives the circle back with its
// radius (the tangent distances are chord²/2R).
func ExampleTDPM() {
	const n = 60
	x := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		a := 2 * math.Pi * float64(i) / n
		x.SetRow(i, []float64{2 * math.Cos(a), 2 * math.Sin(a)})
	}
	m, err := engine.TDPM{Dim: 2, TangentDim: 1, K: 4}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	y := m.Embedding()
	fmt.Printf("radius of point 0: %.6f\n", math.Hypot(y.At(0, 0), y.At(0, 1)))
	// Output:
	// radius of point 0: 2.000000
}

// LDA separates three classes along one axis each; Predict is the FLDA
// rule.
func ExampleLDA() {
	x := mat.NewDense(9, 2, []float64{
		0, 0, 0.1, 0.2, -0.1, 0.1,
		3, 0, 3.2, 0.1, 2.9, -0.1,
		0, 3, 0.1, 3.1, -0.2, 2.8,
	})
	labels := []int{1, 1, 1, 2, 2, 2, 3, 3, 3}
	m, err := engine.LDA{Labels: labels}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	pred, _ := m.Predict(context.Background(), mat.NewDense(3, 2, []float64{2.8, 0.3, 0.2, 2.5, 0.3, -0.2}))
	fmt.Println("directions:", m.Dim(), "predicted:", pred)
	// Output:
	// directions: 2 predicted: [2 3 1]
}

func identityForExample(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

// LDA from statistics a distributed pipeline merged (the manifold-beam
// module's FitLDA): the total mean and scatter and the class counts and
// means are all it needs.
func ExampleLDAFromStats() {
	// Two classes on a line, and a constant feature.
	rows := [][]float64{{0, 1}, {1, 1}, {2, 1}, {5, 1}, {6, 1}, {7, 1}}
	st := engine.LDAStats{
		Mean:       []float64{3.5, 1},
		Classes:    []int{0, 1},
		Counts:     []int{3, 3},
		ClassMeans: [][]float64{{1, 1}, {6, 1}},
	}
	scatter := mat.NewSymDense(2, nil)
	for _, r := range rows {
		scatter.SetSym(0, 0, scatter.At(0, 0)+(r[0]-3.5)*(r[0]-3.5))
	}
	st.Scatter = scatter
	m, err := engine.LDAFromStats(context.Background(), st, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	classes, _ := m.Predict(context.Background(), mat.NewDense(2, 2, []float64{0.5, 1, 6.5, 1}))
	fmt.Println(m.Dim(), classes)
	// Output: 1 [0 1]
}
