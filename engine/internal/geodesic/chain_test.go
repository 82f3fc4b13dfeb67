package geodesic_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/engine/internal/geodesic"
	"github.com/manifoldlab/manifold/sparse"
)

// chain returns n points 0, 1, …, n−1 on a line (one feature), the graph
// joining each to the next both ways with length 1, and the triangulation
// of classical MDS on the reference points refs (nil: all): for collinear
// points the geodesics are the distances, and the triangulation places a
// point x at x − mean(refs) exactly.
func chain(n int, refs []int) geodesic.Config {
	train := blas64.General{Rows: n, Cols: 1, Stride: 1, Data: make([]float64, n)}
	coo := sparse.NewCOO(n, n, 2*n)
	for i := range n {
		train.Data[i] = float64(i)
		if i+1 < n {
			coo.Add(i, i+1, 1)
			coo.Add(i+1, i, 1)
		}
	}
	if refs == nil {
		refs = make([]int, n)
		for i := range refs {
			refs[i] = i
		}
	}
	r := len(refs)
	mean := 0.0
	for _, j := range refs {
		mean += float64(j)
	}
	mean /= float64(r)
	lambda := 0.0 // the one eigenvalue: Σ (x_c − mean)²
	for _, j := range refs {
		lambda += (float64(j) - mean) * (float64(j) - mean)
	}
	pinv := blas64.General{Rows: r, Cols: 1, Stride: 1, Data: make([]float64, r)}
	meanSq := make([]float64, r)
	for c, j := range refs {
		pinv.Data[c] = (float64(j) - mean) / lambda // v/√λ with v = y/√λ
		for _, i := range refs {
			meanSq[c] += (float64(i) - float64(j)) * (float64(i) - float64(j)) / float64(r)
		}
	}
	c := geodesic.Config{Train: train, Graph: coo.ToCSR(), K: 2, Pinv: pinv, MeanSq: meanSq}
	if len(refs) < n {
		c.Cols = refs
	}
	return c
}

// On a chain the geodesics are the distances along the line, so a new
// point x maps to x − mean of the reference points: by Dijkstra, by the
// table, with every point or four landmarks as references.
func TestChainClosedForm(t *testing.T) {
	ctx := context.Background()
	for _, refs := range [][]int{nil, {0, 3, 6, 9}} {
		c := chain(10, refs)
		mean := 4.5 // of 0, 1, …, 9 and of 0, 3, 6, 9
		gi, err := geodesic.New(c)
		if err != nil {
			t.Fatal(err)
		}
		if gi.Approximate() || gi.Exact() == nil || gi.Rows() != 10 || gi.Cols() != 1 {
			t.Fatalf("refs %v: approximate %v, exact %v, %d×%d", refs, gi.Approximate(), gi.Exact() != nil, gi.Rows(), gi.Cols())
		}
		for _, table := range []bool{false, true} {
			if table {
				if err := gi.PrepareTable(ctx); err != nil || !gi.TableReady() {
					t.Fatalf("refs %v: PrepareTable: %v, ready %v", refs, err, gi.TableReady())
				}
			}
			for _, x := range []float64{0, 3.5, 7.25, 9} {
				y := []float64{math.NaN()}
				if err := gi.Row(ctx, y, []float64{x}); err != nil {
					t.Fatal(err)
				}
				if want := x - mean; math.Abs(y[0]-want) > 1e-12 {
					t.Errorf("refs %v, table %v: x = %v maps to %v, want %v", refs, table, x, y[0], want)
				}
			}
		}
	}
}

// A point farther than Eps from every training point has no neighbours;
// a cancelled context stops Row; LimitTable(0) keeps the table from being
// built and Row still maps by Dijkstra.
func TestErrorsAndLimits(t *testing.T) {
	ctx := context.Background()
	c := chain(10, nil)
	c.K, c.Eps = 0, 0.25
	gi, err := geodesic.New(c)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, 1)
	if err := gi.Row(ctx, y, []float64{3.5}); !errors.Is(err, geodesic.ErrNoNeighbour) {
		t.Errorf("3.5 with eps 0.25: %v, want ErrNoNeighbour", err)
	}
	if err := gi.Row(ctx, y, []float64{3}); err != nil || math.Abs(y[0]-(3-4.5)) > 1e-12 {
		t.Errorf("3 with eps 0.25: %v, %v", y[0], err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := gi.Row(cancelled, y, []float64{3}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if err := gi.PrepareTable(cancelled); !errors.Is(err, context.Canceled) || gi.TableReady() {
		t.Errorf("PrepareTable cancelled: %v, ready %v", err, gi.TableReady())
	}
	gi.LimitTable(0)
	if err := gi.PrepareTable(ctx); err != nil || gi.TableReady() {
		t.Errorf("PrepareTable past the limit: %v, ready %v", err, gi.TableReady())
	}
	if err := gi.Row(ctx, y, []float64{3}); err != nil || math.Abs(y[0]-(3-4.5)) > 1e-12 {
		t.Errorf("3 without a table: %v, %v", y[0], err)
	}
	bad := chain(3, nil)
	bad.Graph = sparse.NewCOO(3, 2, 0).ToCSR()
	if _, err := geodesic.New(bad); err == nil {
		t.Error("a 3×2 graph was accepted")
	}
}
