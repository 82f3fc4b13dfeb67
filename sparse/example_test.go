package sparse_test

import (
	"context"
	"fmt"
	"os"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// Build a matrix from triplets and apply it.
func ExampleCOO() {
	t := sparse.NewCOO(2, 3, 4)
	t.Add(0, 0, 1)
	t.Add(1, 2, 2)
	t.Add(0, 0, 3) // duplicates are summed
	a := t.ToCSR()
	y := make([]float64, 2)
	a.MulVecTo(y, []float64{1, 1, 1})
	fmt.Println(a.NNZ(), a.At(0, 0), y)
	// Output: 2 4 [4 2]
}

// Geodesic distances on a path graph 0 – 1 – 2 with a shortcut 0 – 2,
// squared for MDS, with the row means for backend.DoubleCenterCtx.
func ExampleAllPairsShortestPaths() {
	t := sparse.NewCOO(3, 3, 6)
	for _, e := range []struct {
		i, j int
		w    float64
	}{{0, 1, 1}, {1, 2, 1}, {0, 2, 3}} {
		t.Add(e.i, e.j, e.w)
		t.Add(e.j, e.i, e.w)
	}
	g := t.ToCSR()
	d := blas64.General{Rows: 3, Cols: 3, Stride: 3, Data: make([]float64, 9)}
	means := make([]float64, 3)
	if err := sparse.AllPairsShortestPaths(context.Background(), g, d, sparse.PathOptions{Squared: true, RowMeans: means}); err != nil {
		panic(err)
	}
	fmt.Println(d.Data)
	fmt.Printf("%.4f\n", means)
	// Output:
	// [0 1 4 1 0 1 4 1 0]
	// [1.6667 0.6667 1.6667]
}

func ExampleWriteMatrixMarket() {
	a := sparse.Identity(2).Scale(0.5)
	if err := sparse.WriteMatrixMarket(os.Stdout, a, sparse.MMOptions{Symmetric: true}); err != nil {
		panic(err)
	}
	// Output:
	// %%MatrixMarket matrix coordinate real symmetric
	// 2 2 2
	// 1 1 0.5
	// 2 2 0.5
}

func ExampleConnectedComponents() {
	t := sparse.NewCOO(4, 4, 2)
	t.Add(0, 2, 1)
	t.Add(2, 0, 1)
	labels, sizes := sparse.ConnectedComponents(t.ToCSR())
	fmt.Println(labels, sizes)
	fmt.Println(sparse.CheckConnected(t.ToCSR()))
	// Output:
	// [0 1 0 2] [2 1 1]
	// sparse: the neighbour graph has 3 connected components (sizes 2, 1, 1), so some geodesic distances are infinite; increase k or ε, or choose the disconnected policy "connect" (add the shortest edges between components) or "largest" (keep the largest component)
}

// Count the eigenvalues of a path graph's Laplacian below a shift from the
// inertia of an LDLᵀ factorization (Sylvester's law), and solve with it.
// The Laplacian of the path 0 – 1 – 2 has eigenvalues 0, 1 and 3.
func ExampleAnalyzeLDL() {
	t := sparse.NewCOO(3, 3, 7)
	for _, e := range [][2]int{{0, 1}, {1, 2}} {
		t.Add(e[0], e[1], -1)
		t.Add(e[1], e[0], -1)
		t.Add(e[0], e[0], 1)
		t.Add(e[1], e[1], 1)
	}
	a := t.ToCSR()
	an, err := sparse.AnalyzeLDL(context.Background(), a, sparse.OrderAuto)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, sigma := range []float64{0.5, 2, 4} {
		f, err := an.Factor(context.Background(), a, sigma)
		if err != nil {
			fmt.Println(err)
			return
		}
		neg, _, _ := f.Inertia()
		fmt.Printf("eigenvalues below %g: %d\n", sigma, neg)
	}
	f, _ := an.Factor(context.Background(), a, -1) // A + I
	x := make([]float64, 3)
	f.SolveTo(x, []float64{1, 2, 1}) // (A + I)·x = [1 2 1]ᵀ
	fmt.Printf("%.3f\n", x)
	// Output:
	// eigenvalues below 0.5: 1
	// eigenvalues below 2: 2
	// eigenvalues below 4: 3
	// [1.250 1.500 1.250]
}

// A matrix whose factor would be too large is refused after the analysis
// has counted that much fill, and a local order keeps its products in
// cache instead: here a ring of 8 vertices stored in scrambled order.
func ExampleAnalyzeLDLWithin() {
	ring := []int{0, 5, 2, 7, 4, 1, 6, 3} // the ring's vertices, in order
	t := sparse.NewCOO(8, 8, 24)
	for k, v := range ring {
		w := ring[(k+1)%8]
		t.Add(v, w, -1)
		t.Add(w, v, -1)
		t.Add(v, v, 2.5)
	}
	a := t.ToCSR()
	ctx := context.Background()
	if _, err := sparse.AnalyzeLDLWithin(ctx, a, sparse.OrderAuto, 5); err != nil {
		fmt.Println(err)
	}
	an, _ := sparse.AnalyzeLDLWithin(ctx, a, sparse.OrderAuto, 100)
	fmt.Println("entries below the diagonal:", an.NNZ())
	farthest := func(m *sparse.CSR) int {
		far := 0
		for i := 0; i < 8; i++ {
			for _, j := range m.ColIdx()[m.RowPtr()[i]:m.RowPtr()[i+1]] {
				far = max(far, j-i, i-j)
			}
		}
		return far
	}
	b, perm, _ := sparse.LocalOrder(ctx, a)
	fmt.Println("farthest neighbour:", farthest(a), "rows away; in the order", perm, farthest(b))
	// Output:
	// sparse: factor too large: more than 5 entries in the factor under every ordering tried
	// entries below the diagonal: 13
	// farthest neighbour: 5 rows away; in the order [4 7 1 2 6 5 3 0] 2
}

// LLE's M = (I − W)ᵀ(I − W) for three points, the middle one rebuilt from
// its two neighbours by weights ½, ½ and the outer ones from the middle
// one alone: A = I − W is [[1, −1, 0], [−½, 1, −½], [0, −1, 1]].
func ExampleLLEMatrix() {
	coo := sparse.NewCOO(3, 3, 4)
	coo.Add(0, 1, 1)
	coo.Add(1, 0, 0.5)
	coo.Add(1, 2, 0.5)
	coo.Add(2, 1, 1)
	m, err := sparse.LLEMatrix(context.Background(), coo.ToCSR())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(mat.Formatted(m.ToDense()))
	// Output:
	// ⎡1.25  -1.5  0.25⎤
	// ⎢-1.5     3  -1.5⎥
	// ⎣0.25  -1.5  1.25⎦
}
