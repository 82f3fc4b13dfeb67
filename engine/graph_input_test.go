package engine

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// knnCSR is the directed kNN graph of x (row i: its k nearest, value =
// distance), as manifold neighbors writes it.
func knnCSR(t *testing.T, x mat.Matrix, k int) *sparse.CSR {
	t.Helper()
	res, err := neighbors.KNN(context.Background(), x, k, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return resultGraph(res, res.Len())
}

// A given kNN graph gives the embedding the method's own search gives
// (Isomap, Laplacian eigenmaps through the graph; LLE through the lists),
// Transform still maps new rows, and bad graphs are refused.
func TestGivenGraph(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(600, 0.05, 11)
	g := knnCSR(t, x, 10)
	given := Options{Neighbors: Neighbors{Graph: g}}

	own := mustFit(t, ctx, Isomap{K: 10}.Fit, x)
	withGraph := mustFit(t, ctx, Isomap{K: 10, Options: given}.Fit, x)
	if d := procrustes(t, own.Embedding(), withGraph.Embedding()); d > 1e-10 {
		t.Errorf("Isomap: Procrustes disparity %g between the given and the searched graph", d)
	}
	if st := stageOf(t, withGraph.Report(), "neighbors"); st.Search != "given graph" {
		t.Errorf("Isomap stage search %q", st.Search)
	}
	z, err := withGraph.Transform(ctx, x.Slice(0, 5, 0, 3))
	if err != nil {
		t.Fatal(err)
	}
	if d := procrustes(t, mat.DenseCopyOf(z), mat.DenseCopyOf(withGraph.Embedding().Slice(0, 5, 0, 2))); d > 1e-6 {
		t.Errorf("Transform of training rows: disparity %g", d)
	}

	lap := mustFit(t, ctx, LaplacianEigenmaps{K: 10}.Fit, x)
	lapG := mustFit(t, ctx, LaplacianEigenmaps{K: 10, Options: given}.Fit, x)
	if d := procrustes(t, lap.Embedding(), lapG.Embedding()); d > 1e-8 {
		t.Errorf("Laplacian eigenmaps: disparity %g", d)
	}

	lle := mustFit(t, ctx, LLE{K: 10}.Fit, x)
	lleG := mustFit(t, ctx, LLE{K: 10, Options: given}.Fit, x)
	if d := procrustes(t, lle.Embedding(), lleG.Embedding()); d > 1e-8 {
		t.Errorf("LLE: disparity %g", d)
	}
	if _, err := (LLE{K: 12, Options: given}).Fit(ctx, x); !errors.Is(err, ErrBadSetting) {
		t.Errorf("LLE k = 12 from a 10-NN graph: err = %v", err)
	}

	bad := map[string]*sparse.CSR{
		"wrong size":   knnCSR(t, x.Slice(0, 500, 0, 3), 10),
		"not square":   sparse.Zero(600, 601),
		"negative":     g.Map(func(i, j int, v float64) float64 { return -v }),
		"not a number": g.Map(func(i, j int, v float64) float64 { return math.NaN() }),
		// Weights whose squared geodesics overflow, or whose squares
		// underflow (before: Isomap failed in Lanczos on NaN or found no
		// positive eigenvalue; LPP failed on NaN, or embedded 1e-300 × the
		// graph otherwise than the graph, with no error).
		"huge weights": g.Map(func(i, j int, v float64) float64 { return v * 1e300 }),
		"tiny weights": g.Map(func(i, j int, v float64) float64 { return v * 1e-300 }),
	}
	for name, b := range bad {
		for _, fit := range []func(Options) error{
			func(o Options) error { _, err := (Isomap{K: 10, Options: o}).Fit(ctx, x); return err },
			func(o Options) error { _, err := (LPP{K: 10, Options: o}).Fit(ctx, x); return err },
		} {
			err := fit(Options{Neighbors: Neighbors{Graph: b}})
			if !errors.Is(err, ErrBadSetting) {
				t.Errorf("%s: err = %v", name, err)
			} else if c := strings.Count(err.Error(), ErrBadSetting.Error()); c != 1 {
				t.Errorf("%s: %q says %q %d times", name, err, ErrBadSetting, c)
			}
		}
	}
	// Within the range (the graph times 2^±400), Isomap's embedding scales
	// with the graph and Laplacian eigenmaps' (heat kernel of width the
	// mean squared distance) does not change.
	for _, e := range []int{400, -400} {
		s := math.Ldexp(1, e)
		scaled := Options{Neighbors: Neighbors{Graph: g.Map(func(i, j int, v float64) float64 { return v * s })}}
		iso := mustFit(t, ctx, Isomap{K: 10, Options: scaled}.Fit, x)
		var back mat.Dense
		back.Scale(1/s, iso.Embedding())
		if d := maxAbsDiff(&back, withGraph.Embedding()); d > 1e-9 {
			t.Errorf("Isomap of the graph × 2^%d: embedding differs by %g after scaling back", e, d)
		}
		if d := procrustes(t, lapG.Embedding(), mustFit(t, ctx, LaplacianEigenmaps{K: 10, Options: scaled}.Fit, x).Embedding()); d > 1e-8 {
			t.Errorf("Laplacian eigenmaps of the graph × 2^%d: disparity %g", e, d)
		}
	}
	if _, err := (Isomap{Eps: 2, Options: given}).Fit(ctx, x); !errors.Is(err, ErrBadSetting) {
		t.Errorf("ε with a graph: err = %v", err)
	}

	// Two clusters: the policies apply to a given graph as to a searched one.
	two := mat.NewDense(40, 2, nil)
	for i := 0; i < 40; i++ {
		two.Set(i, 0, float64(i%20)+100*float64(i/20))
		two.Set(i, 1, float64(i%3))
	}
	g2 := Options{Neighbors: Neighbors{Graph: knnCSR(t, two, 4)}}
	if _, err := (Isomap{K: 4, Options: g2}).Fit(ctx, two); !errors.Is(err, ErrDisconnected) {
		t.Errorf("two components: err = %v", err)
	}
	if _, err := (Isomap{K: 4, Disconnected: DisconnectedConnect, Options: g2}).Fit(ctx, two); err != nil {
		t.Errorf("two components, connect: %v", err)
	}
}

// resultGraph is the n×n graph of neighbour lists.
func resultGraph(nb *neighbors.Result, n int) *sparse.CSR {
	g := sparse.NewCOO(n, n, len(nb.Ind))
	for i := 0; i < n; i++ {
		js, ds := nb.Row(i)
		for c, j := range js {
			g.Add(i, j, ds[c])
		}
	}
	return g.ToCSR()
}
