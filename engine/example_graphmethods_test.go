package engine_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/sparse"
)

// LTSA unrolls a swiss roll: its first coordinate follows the roll
// parameter t.
func ExampleLTSA() {
	x, t := datasets.SwissRoll(1000, 0, 1)
	m, err := engine.LTSA{Dim: 2, K: 10}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	fmt.Printf("|corr(y1, t)| > 0.99: %v\n", math.Abs(corr(mat.Col(nil, 0, m.Embedding()), t)) > 0.99)
	for _, s := range m.Report().Stages {
		fmt.Println(s.Name)
	}
	// Output:
	// |corr(y1, t)| > 0.99: true
	// neighbors
	// tangents
	// eigensolve
}

// Laplacian eigenmaps of a swiss roll with the heat kernel: the generalized
// eigenvalues λ of L·y = λ·D·y are small and ascending.
func ExampleLaplacianEigenmaps() {
	x, t := datasets.SwissRoll(1000, 0, 1)
	m, err := engine.LaplacianEigenmaps{Dim: 2, K: 10}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	lam := m.Eigenvalues()
	fmt.Println(lam[0] > 0, lam[0] < lam[1], lam[1] < 0.01)
	fmt.Printf("|corr(y1, t)| > 0.9: %v\n", math.Abs(corr(mat.Col(nil, 0, m.Embedding()), t)) > 0.9)
	// Output:
	// true true true
	// |corr(y1, t)| > 0.9: true
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
