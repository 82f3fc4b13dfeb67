package sparse_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// laplacian returns the graph Laplacian of an r×c grid with random weights
// and a few random long edges.
func gridLaplacian(r, c int, seed uint64) *sparse.CSR { return gridLaplacianLong(r, c, seed, true) }

// gridLaplacianLong is gridLaplacian, with or without the long edges.
func gridLaplacianLong(r, c int, seed uint64, long bool) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, 9))
	n := r * c
	coo := sparse.NewCOO(n, n, 6*n)
	edge := func(i, j int, w float64) {
		coo.Add(i, j, -w)
		coo.Add(j, i, -w)
		coo.Add(i, i, w)
		coo.Add(j, j, w)
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := i*c + j
			if j+1 < c {
				edge(v, v+1, 0.5+rng.Float64())
			}
			if i+1 < r {
				edge(v, v+c, 0.5+rng.Float64())
			}
		}
	}
	for e := 0; long && e < n/20; e++ {
		a, b := rng.IntN(n), rng.IntN(n)
		if a != b {
			edge(a, b, rng.Float64())
		}
	}
	return coo.ToCSR()
}

// The factor solves (A + shift·I)x = b to the accuracy of a dense solve.
func TestCholeskySolve(t *testing.T) {
	t.Parallel()
	for _, sz := range [][2]int{{1, 1}, {1, 7}, {6, 5}, {30, 40}} {
		a := gridLaplacian(sz[0], sz[1], uint64(sz[0]))
		n, _ := a.Dims()
		for _, shift := range []float64{1e-3, 1} {
			c, err := sparse.NewCholesky(context.Background(), a, shift)
			if err != nil {
				t.Fatal(err)
			}
			if e, _ := sparse.EnvelopeSize(a); c.Size() != e {
				t.Errorf("Size %d, EnvelopeSize %d", c.Size(), e)
			}
			b := make([]float64, n)
			for i := range b {
				b[i] = math.Sin(float64(i) + 1)
			}
			x := make([]float64, n)
			c.SolveTo(x, b)
			// Residual against the explicit shifted matrix.
			d := a.ToDense()
			for i := 0; i < n; i++ {
				d.Set(i, i, d.At(i, i)+shift)
			}
			var want mat.VecDense
			if err := want.SolveVec(d, mat.NewVecDense(n, b)); err != nil {
				t.Fatal(err)
			}
			scale := mat.Norm(&want, math.Inf(1))
			for i := range x {
				if math.Abs(x[i]-want.AtVec(i)) > 1e-9*scale {
					t.Fatalf("%dx%d shift %g: x[%d] = %v, want %v", sz[0], sz[1], shift, i, x[i], want.AtVec(i))
				}
			}
			// In place.
			c.SolveTo(b, b)
			for i := range x {
				if b[i] != x[i] {
					t.Fatal("in-place solve differs")
				}
			}
		}
	}
}

func TestCholeskyErrors(t *testing.T) {
	a := gridLaplacian(4, 4, 1)
	// A Laplacian is singular: without a shift the last pivot is ~0 or negative.
	if _, err := sparse.NewCholesky(context.Background(), a, -0.1); !errors.Is(err, sparse.ErrNotPositiveDefinite) {
		t.Errorf("negative shift: error %v, want ErrNotPositiveDefinite", err)
	}
	if _, err := sparse.NewCholesky(context.Background(), sparse.Zero(2, 3), 1); !errors.Is(err, sparse.ErrInvalid) {
		t.Errorf("non-square: error %v, want ErrInvalid", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sparse.NewCholesky(ctx, a, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
}

// The reverse Cuthill–McKee envelope of a grid is about n·min(r, c): far
// below the n²/2 of a dense factor.
func TestCholeskyEnvelope(t *testing.T) {
	a := gridLaplacianLong(100, 30, 2, false)
	n, _ := a.Dims()
	s, _ := sparse.EnvelopeSize(a)
	t.Logf("envelope %d entries, n·30 = %d", s, n*30)
	if s > 2*n*30 {
		t.Errorf("envelope %d entries for a 100×30 grid (n·30 = %d)", s, n*30)
	}
}
