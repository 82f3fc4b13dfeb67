package engine

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/sparse"
)

// filteredBottom against the dense eigendecomposition: the path Laplacian
// of 600 vertices (eigenvalues 2 − 2cos(πj/n): a cluster near 0 far below
// ‖L‖ = 4, the hard case of plain Lanczos), and a matrix whose bottom
// eigenvalues lie above the cut (reported, so the caller falls back).
func TestFilteredBottom(t *testing.T) {
	ctx := context.Background()
	n := 600
	if testing.Short() {
		n = 300 // -race
	}
	coo := sparse.NewCOO(n, n, 3*n)
	for i := 0; i < n; i++ {
		d := 2.0
		if i == 0 || i == n-1 {
			d = 1
		}
		coo.Add(i, i, d)
		if i > 0 {
			coo.Add(i, i-1, -1)
			coo.Add(i-1, i, -1)
		}
	}
	lap := coo.ToCSR()
	res, err := filteredBottom(ctx, lap, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !res.ok {
		t.Fatalf("Ritz values %v reported above the cut", res.vals)
	}
	dense := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		cols, vals := lap.Row(i)
		for c, j := range cols {
			dense.Data[i*n+j] = vals[c]
		}
	}
	w, z, err := backend.EigBottom(backend.PureGo, dense, 4)
	if err != nil {
		t.Fatal(err)
	}
	backend.FixSigns(z)
	for j := 0; j < 4; j++ {
		want := 2 - 2*math.Cos(math.Pi*float64(j)/float64(n))
		if math.Abs(res.vals[j]-want) > 1e-12 || math.Abs(w[j]-want) > 1e-12 {
			t.Errorf("eigenvalue %d: filtered %v, dense %v, closed form %v", j, res.vals[j], w[j], want)
		}
	}
	if e := colsUpToSign(t, toDense(z), toDense(res.vecs)); e > 1e-6 {
		t.Errorf("eigenvectors differ from the dense ones by %g", e)
	}
	t.Logf("%d products in %d Lanczos steps", res.matvecs, res.steps)

	shifted := lap.Map(func(i, j int, v float64) float64 {
		if i == j {
			return v + 1
		}
		return v
	})
	res, err = filteredBottom(ctx, shifted, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.ok {
		t.Errorf("bottom eigenvalues %v ≥ 1 reported below the cut", res.vals)
	}
}
