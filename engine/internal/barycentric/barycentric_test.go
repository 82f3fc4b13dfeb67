package barycentric_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/engine/internal/barycentric"
	"github.com/manifoldlab/manifold/engine/internal/errs"
	"github.com/manifoldlab/manifold/engine/neighbors"
)

// A query inside a simplex of D+1 affinely independent neighbours is
// rebuilt exactly by its barycentric coordinates, the unique affine
// weights; with a tiny reg the weights are those coordinates.
func TestSimplexCoordinates(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const d = 4
	x := blas64.General{Rows: d + 1, Cols: d, Stride: d, Data: make([]float64, (d+1)*d)}
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	coord := []float64{0.1, 0.3, 0.2, 0.15, 0.25} // Σ = 1
	q := blas64.General{Rows: 1, Cols: d, Stride: d, Data: make([]float64, d)}
	for a, c := range coord {
		for t := range d {
			q.Data[t] += c * x.Data[a*d+t]
		}
	}
	nb := &neighbors.Result{Ptr: []int{0, d + 1}, Ind: []int{4, 2, 0, 3, 1}, Dist: make([]float64, d+1)}
	w, err := barycentric.Weights(context.Background(), x, q, nb, 1e-12, d+1)
	if err != nil {
		t.Fatal(err)
	}
	cols, vals := w.Row(0)
	sum := 0.0
	for p, j := range cols {
		if p > 0 && cols[p-1] >= j {
			t.Fatalf("columns %v not sorted", cols)
		}
		sum += vals[p]
		if math.Abs(vals[p]-coord[j]) > 1e-8 {
			t.Errorf("weight of neighbour %d: %v, want %v", j, vals[p], coord[j])
		}
	}
	if math.Abs(sum-1) > 1e-14 {
		t.Errorf("weights sum to %v", sum)
	}
}

// From with the local Gram matrices from dot products gives Weights'
// weights (to rounding); a singular local Gram matrix without
// regularisation is an error wrapping errs.Numerical that names the
// point; a cancelled context stops the work.
func TestFromAndErrors(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	const n, d, k = 60, 3, 5
	x := blas64.General{Rows: n, Cols: d, Stride: d, Data: make([]float64, n*d)}
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	nb := &neighbors.Result{Ptr: make([]int, n+1)}
	for i := range n {
		for a := 1; a <= k; a++ {
			nb.Ind = append(nb.Ind, (i+a*7)%n)
			nb.Dist = append(nb.Dist, 0)
		}
		nb.Ptr[i+1] = len(nb.Ind)
	}
	want, err := barycentric.Weights(ctx, x, x, nb, 1e-3, n)
	if err != nil {
		t.Fatal(err)
	}
	dot := func(a, b int) float64 {
		s := 0.0
		for t := range d {
			s += x.Data[a*d+t] * x.Data[b*d+t]
		}
		return s
	}
	got, err := barycentric.From(ctx, nb, n, n, 8, 1e-3, func() func(i int, js []int, gm []float64) {
		return func(i int, js []int, gm []float64) {
			for a, ja := range js {
				for b, jb := range js {
					gm[a*len(js)+b] = dot(ja, jb) - dot(ja, i) - dot(jb, i) + dot(i, i)
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, v := range want.Values() {
		if math.Abs(got.Values()[p]-v) > 1e-9*(1+math.Abs(v)) || got.ColIdx()[p] != want.ColIdx()[p] {
			t.Fatalf("entry %d: From %v (column %d), Weights %v (column %d)", p, got.Values()[p], got.ColIdx()[p], v, want.ColIdx()[p])
		}
	}

	// Point 1's neighbours 0 and 2 at the same place, 2 away: G = [[4, 4],
	// [4, 4]], whose Cholesky factor meets an exact 0.
	dup := blas64.General{Rows: 3, Cols: 2, Stride: 2, Data: []float64{3, 1, 1, 1, 3, 1}}
	pair := &neighbors.Result{Ptr: []int{0, 1, 3, 4}, Ind: []int{1, 0, 2, 1}, Dist: make([]float64, 4)}
	if _, err := barycentric.Weights(ctx, dup, dup, pair, 0, 3); !errors.Is(err, errs.Numerical) {
		t.Errorf("singular local Gram matrix, reg 0: %v, want errs.Numerical", err)
	} else if got := err.Error(); got[:8] != "point 1:" {
		t.Errorf("the error does not name point 1: %q", got)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := barycentric.Weights(cancelled, x, x, nb, 1e-3, n); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
