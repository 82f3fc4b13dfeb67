package engine_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
)

// Classical MDS of points on a plane tilted in 3-D recovers their
// pairwise distances exactly in 2-D.
func ExampleMDS() {
	x := planeRows(49)
	m, err := engine.MDS{Dim: 2}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	y := m.Embedding()
	worst := 0.0
	for i := 0; i < 49; i++ {
		for j := 0; j < i; j++ {
			dx := mat.Norm(subRows(x, i, j), 2)
			dy := mat.Norm(subRows(y, i, j), 2)
			worst = math.Max(worst, math.Abs(dx-dy))
		}
	}
	fmt.Println("distances preserved:", worst < 1e-9)
	// Output: distances preserved: true
}

func subRows(a *mat.Dense, i, j int) *mat.VecDense {
	var d mat.VecDense
	d.SubVec(a.RowView(i), a.RowView(j))
	return &d
}

// LLE unrolls the swiss roll locally; new points are mapped by their
// reconstruction weights.
func ExampleLLE() {
	x, _ := datasets.SwissRoll(800, 0, 3)
	m, err := engine.LLE{Dim: 2, K: 12}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	z, err := m.Transform(context.Background(), x.Slice(0, 5, 0, 3))
	if err != nil {
		panic(err)
	}
	r, c := z.Dims()
	fmt.Println(m.Method(), r, c)
	// Output: lle 5 2
}

// Landmark Isomap runs Dijkstra from the landmarks only, O(L·N) memory,
// and still unrolls the roll.
func ExampleLandmarkIsomap() {
	x, t := datasets.SwissRoll(1500, 0, 4)
	m, err := engine.LandmarkIsomap{Dim: 2, K: 10, Landmarks: 150}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	y := m.Embedding()
	fmt.Printf("landmarks %d, |corr(y1, t)| > 0.95: %v\n", len(m.Landmarks()), math.Abs(corr(mat.Col(nil, 0, y), t)) > 0.95)
	// Output: landmarks 150, |corr(y1, t)| > 0.95: true
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
