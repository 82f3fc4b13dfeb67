package cluster

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// sparseDocs returns n sparse "documents" over d terms drawn from k topics
// (each topic uses its own block of terms, plus a few shared ones), dense
// and as CSR.
func sparseDocs(n, d, k int, seed uint64) (blas64.General, *sparse.CSR) {
	rng := rand.New(rand.NewPCG(seed, 2))
	x := blas64.General{Rows: n, Cols: d, Stride: d, Data: make([]float64, n*d)}
	block := d / (k + 1)
	for i := 0; i < n; i++ {
		topic := i % k
		for w := 0; w < 8; w++ {
			j := topic*block + rng.IntN(block)
			if rng.IntN(4) == 0 {
				j = k*block + rng.IntN(d-k*block) // shared vocabulary
			}
			x.Data[i*d+j] += 1 + rng.Float64()
		}
	}
	var m mat.Dense
	m.SetRawMatrix(x)
	return x, sparse.FromDense(&m)
}

// FitSparse clusters sparse rows as Fit clusters the same rows densified:
// the same seeds from the same draws, the same Lloyd iterations.
func TestFitSparseMatchesDense(t *testing.T) {
	ctx := context.Background()
	for _, seed := range []uint64{1, 2, 3} {
		xd, xs := sparseDocs(300, 120, 4, seed)
		s := KMeans{K: 4, Restarts: 3, Seed: seed}
		a, err := s.Fit(ctx, xd)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.FitSparse(ctx, xs)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Labels, b.Labels) || a.Iterations != b.Iterations {
			t.Errorf("seed %d: sparse labels or iterations (%d) differ from dense (%d)", seed, b.Iterations, a.Iterations)
		}
		if math.Abs(a.Inertia-b.Inertia) > 1e-9*a.Inertia {
			t.Errorf("seed %d: inertia %v sparse, %v dense", seed, b.Inertia, a.Inertia)
		}
		for i, v := range a.Centers.Data {
			if math.Abs(v-b.Centers.Data[i]) > 1e-12 {
				t.Fatalf("seed %d: centre entry %d: %v sparse, %v dense", seed, i, b.Centers.Data[i], v)
			}
		}
	}
}

func TestFitSparseErrors(t *testing.T) {
	ctx := context.Background()
	_, xs := sparseDocs(10, 20, 2, 1)
	if _, err := (KMeans{K: 11}).FitSparse(ctx, xs); !errors.Is(err, ErrInput) {
		t.Errorf("K > n: %v", err)
	}
	bad := sparse.FromDense(mat.NewDense(2, 2, []float64{1, math.NaN(), 0, 1}))
	if _, err := (KMeans{K: 1}).FitSparse(ctx, bad); !errors.Is(err, ErrInput) {
		t.Errorf("NaN: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (KMeans{K: 2}).FitSparse(cctx, xs); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
