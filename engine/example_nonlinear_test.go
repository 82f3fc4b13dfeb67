package engine_test

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
)

// Examples of the nonlinear methods: an embedding of the training points
// (and, where the method has one, the map of new points).

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

// Landmark LLE solves LLE's problem on the embeddings the landmarks'
// coordinates reconstruct: an L×L eigenproblem instead of M's N×N one, so
// it scales to millions of points; it still unrolls the roll, and the
// model keeps the landmarks only.
func ExampleLandmarkLLE() {
	x, t := datasets.SwissRoll(3000, 0, 4)
	m, err := engine.LandmarkLLE{Dim: 2, K: 12, Landmarks: 300, Seed: 1}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	y := m.Embedding()
	best := max(math.Abs(corr(mat.Col(nil, 0, y), t)), math.Abs(corr(mat.Col(nil, 1, y), t)))
	fmt.Printf("landmarks %d, some |corr(y, t)| > 0.9: %v\n", len(m.Landmarks()), best > 0.9)
	// Output: landmarks 300, some |corr(y, t)| > 0.9: true
}

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

// A front end fits any method by name: the settings struct from New, the
// settings by the names their tags give, then Fit.
func ExampleMethod() {
	x, _ := datasets.SwissRoll(400, 0.05, 1)
	m, ok := engine.LookupMethod("lle")
	if !ok {
		panic("no lle")
	}
	fmt.Println(m.Name, "reads", m.Settings())
	s := m.New() // *engine.LLE
	for name, v := range map[string]any{"dim": 2, "k": 12, "alpha": 1e-3} {
		if err := m.Set(s, name, v); err != nil {
			panic(err)
		}
	}
	model, err := m.Fit(context.Background(), s, x)
	if err != nil {
		panic(err)
	}
	fmt.Println(model.Method(), model.Dim(), model.Report().Params["k"])
	// Output:
	// lle reads [k alpha eigensolver]
	// lle 2 12
}
