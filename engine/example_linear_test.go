package engine_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/sparse"
)

// Examples of the linear methods: a projection learned from the training
// points, which maps new points by a matrix product.

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

func identityForExample(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

// Sparse OIP learns sparse projection vectors by L1-regularized
// regressions; new points are mapped by the projection.
func ExampleSOIP() {
	x, _ := datasets.SwissRoll(400, 0.05, 5)
	m, err := engine.SOIP{Dim: 2, K: 8}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	r, c := m.Projection().Dims()
	z, err := m.Transform(context.Background(), x.Slice(0, 4, 0, 3))
	if err != nil {
		panic(err)
	}
	zr, zc := z.Dims()
	fmt.Printf("projection %d×%d, %d points mapped to %d coordinates\n", r, c, zr, zc)
	// Output: projection 3×2, 4 points mapped to 2 coordinates
}

// Low-Rank Isomap learns a linear projection from k-means landmarks and a
// low-rank representation of their between-class scatter.
func ExampleLowRankIsomap() {
	x, _ := datasets.SwissRoll(600, 0.05, 6)
	m, err := engine.LowRankIsomap{Dim: 2, Landmarks: 20, Seed: 1}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	z, err := m.Transform(context.Background(), x.Slice(0, 4, 0, 3))
	if err != nil {
		panic(err)
	}
	r, c := z.Dims()
	fmt.Println(m.Method(), r, c)
	// Output: lowrank-isomap 4 2
}

// LPP learns a linear map from a neighbour graph; new points are projected
// by y = Aᵀ(x − mean), here for sparse rows as well as dense ones.
func ExampleLPP() {
	x, _ := datasets.SwissRoll(500, 0.05, 2)
	m, err := engine.LPP{Dim: 2, K: 8}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	r, c := m.Projection().Dims()
	fmt.Printf("projection %d×%d\n", r, c)
	xnew, _ := datasets.SwissRoll(3, 0.05, 3)
	yd, _ := m.Transform(context.Background(), xnew)
	ys, _ := m.Transform(context.Background(), sparse.FromDense(xnew))
	fmt.Println(mat.EqualApprox(yd, ys, 1e-12))
	// Output:
	// projection 3×2
	// true
}

// NPE's projections are normalised by aᵀ·X·Xᵀ·a = 1 (X centred): the
// training embedding has orthonormal columns.
func ExampleNPE() {
	x, _ := datasets.SwissRoll(500, 0.05, 2)
	m, err := engine.NPE{Dim: 2, K: 10}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	y := m.Embedding()
	var g mat.Dense
	g.Mul(y.T(), y)
	fmt.Println("YᵀY = I:", mat.EqualApprox(&g, mat.NewDiagDense(2, []float64{1, 1}), 1e-9))
	// Output:
	// YᵀY = I: true
}

// LSI of a small document–term matrix with two topics (pets, finance): a
// new document about finance loads on the finance dimension only.
func ExampleLSI() {
	// Rows: documents; columns: terms (cat, dog, pet, stock, bond, market).
	docs := sparse.FromDense(mat.NewDense(4, 6, []float64{
		3, 2, 1, 0, 0, 0,
		2, 3, 1, 0, 0, 0,
		0, 0, 0, 2, 1, 1,
		0, 0, 0, 1, 2, 1,
	}))
	m, err := engine.LSI{Dim: 2}.Fit(context.Background(), docs)
	if err != nil {
		panic(err)
	}
	fmt.Printf("singular values %.3f\n", m.SingularValues())
	q := sparse.FromDense(mat.NewDense(1, 6, []float64{0, 0, 0, 1, 1, 0})) // "stock bond"
	y, _ := m.Transform(context.Background(), q)
	fmt.Printf("new document %.3f\n", mat.Formatted(y))
	// Output:
	// singular values [5.196 3.317]
	// new document [0.000  1.279]
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
