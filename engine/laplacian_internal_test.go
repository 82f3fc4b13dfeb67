package engine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// The embedding solves the generalized problem L·y = λ·D·y with yᵀDy = 1
// and yᵀD1 = 0 (Belkin & Niyogi §2 step 3), checked against the graph
// rebuilt here; sparse rows give the same embedding as dense ones.
func TestLaplacianEigenproblem(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(600, 0.05, 4)
	m := mustFit(t, ctx, LaplacianEigenmaps{Dim: 3, K: 8}.Fit, x)
	fixed, err := neighborsForTest(x, 8)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := reweight(fixed, samples{dense: x.RawMatrix()}, WeightHeat, 0, 8)
	deg := w.RowSums()
	y := m.Embedding()
	n, dim := y.Dims()
	col := make([]float64, n)
	wy := make([]float64, n)
	for j := 0; j < dim; j++ {
		mat.Col(col, j, y)
		w.MulVecTo(wy, col)
		lam := m.Eigenvalues()[j]
		res, norm, d1 := 0.0, 0.0, 0.0
		for i := range col {
			r := deg[i]*col[i] - wy[i] - lam*deg[i]*col[i]
			res = math.Max(res, math.Abs(r))
			norm += deg[i] * col[i] * col[i]
			d1 += deg[i] * col[i]
		}
		if res > 1e-7 || math.Abs(norm-1) > 1e-9 || math.Abs(d1) > 1e-7 {
			t.Errorf("vector %d: residual %g, yᵀDy = %v, yᵀD1 = %g", j, res, norm, d1)
		}
	}
	ms, err := LaplacianEigenmaps{Dim: 3, K: 8}.Fit(ctx, sparse.FromDense(x))
	if err != nil {
		t.Fatal(err)
	}
	if e := colsUpToSign(t, y, ms.Embedding()); e > 1e-6 {
		t.Errorf("sparse rows: embedding differs by %g", e)
	}
}

func neighborsForTest(x *mat.Dense, k int) (*sparse.CSR, error) {
	r, err := startRun(context.Background(), "test", Options{}, 0, 0, 0, nil)
	if err != nil {
		return nil, err
	}
	defer r.finish()
	f, err := inputGraph(r, samples{dense: x.RawMatrix()}, graphSpec{k: k}, true)
	if err != nil {
		return nil, err
	}
	return f.Graph, nil
}

// When the certificate's factor would cost more than the bound (here
// lowered to 10⁴ flam), the fit cannot certify and returns ErrNumerical
// naming EigenUncertified. With EigenUncertified it runs Lanczos on the
// Laplacian alone: the same eigenvalues and embedding as the certified
// path, and a report that says it was not certified. LLE, whose bottom
// eigenvalues Lanczos on M cannot separate in the restarts allowed, fails
// with Lanczos's error.
func TestBottomWithoutFactor(t *testing.T) {
	testmode.Skip(t, "certified and uncertified eigensolves of 1500 points (numerics, not concurrency)")
	ctx := context.Background()
	x, _ := relData(1500, 30, 5)
	full := mustFit(t, ctx, LaplacianEigenmaps{Dim: 3, K: 10}.Fit, x)
	if d := full.Report().Stages[len(full.Report().Stages)-1].Detail; !strings.Contains(d, "inertia certificate") {
		t.Fatalf("the unbounded fit did not certify: %s", d)
	}
	// Asked for, the uncertified path runs whatever the factor would cost.
	asked := mustFit(t, ctx, LaplacianEigenmaps{Dim: 3, K: 10, Eigensolver: EigenUncertified}.Fit, x)
	if d := asked.Report().Stages[len(asked.Report().Stages)-1].Detail; !strings.Contains(d, "not certified") {
		t.Fatalf("EigenUncertified: the eigensolve %q", d)
	}
	defer func(f float64) { maxFactorFlam = f }(maxFactorFlam)
	maxFactorFlam = 1e4
	for _, fit := range []func() error{
		func() error { _, err := (LaplacianEigenmaps{Dim: 3, K: 10}).Fit(ctx, x); return err },
		func() error { _, err := (LLE{Dim: 2, K: 10}).Fit(ctx, x); return err },
		func() error { _, err := (LTSA{Dim: 2, K: 10}).Fit(ctx, x); return err },
	} {
		if err := fit(); !errors.Is(err, ErrNumerical) || !strings.Contains(err.Error(), "factor that certifies") || !strings.Contains(err.Error(), "-eigensolver uncertified") {
			t.Errorf("factors bounded by 10⁴ flam: %v, want ErrNumerical naming the factor and -eigensolver uncertified", err)
		}
	}
	op := mustFit(t, ctx, LaplacianEigenmaps{Dim: 3, K: 10, Eigensolver: EigenUncertified}.Fit, x)
	detail := op.Report().Stages[len(op.Report().Stages)-1].Detail
	if !strings.Contains(detail, "not certified") {
		t.Fatalf("factors bounded by 10⁴ flam: the eigensolve %q", detail)
	}
	t.Log(detail)
	for j, v := range full.Eigenvalues() {
		if g := op.Eigenvalues()[j]; math.Abs(g-v) > 1e-8*math.Max(v, 1e-3) {
			t.Errorf("eigenvalue %d: %.12g, certified %.12g", j, g, v)
		}
	}
	if e := colsUpToSign(t, full.Embedding(), op.Embedding()); e > 1e-5 {
		t.Errorf("embedding differs from the certified one by %g", e)
	}
	if op.Nullity() != 1 {
		t.Errorf("nullity %d, want 1", op.Nullity())
	}
	if _, err := (LLE{Dim: 2, K: 10, Eigensolver: EigenUncertified}).Fit(ctx, x); !errors.Is(err, ErrNumerical) || !strings.Contains(err.Error(), "Lanczos on the matrix alone failed") {
		t.Errorf("LLE: %v, want ErrNumerical: Lanczos on the matrix alone failed", err)
	}
	// Only the bottom eigenvector methods take it.
	if _, err := (Isomap{Dim: 2, K: 10, Eigensolver: EigenUncertified}).Fit(ctx, x); !errors.Is(err, ErrBadSetting) {
		t.Errorf("Isomap with EigenUncertified: %v, want ErrBadSetting", err)
	}
}

// Connectivity weights: ½ for each direction in which an edge is among the
// vertex's k nearest (by distance, then index), ½ for an edge neither
// chose. Checked against the definition (each row sorted, the reverse
// entry found by search) on graphs whose rows hold k to k + 8 entries
// (the selection) and more (the sort), with ties in distance, symmetric
// and not (no mirror places).
func TestConnectivityWeightsByDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	n, k := 300, 6
	for _, symmetric := range []bool{true, false} {
		c := sparse.NewCOO(n, n, 0)
		for i := range n {
			deg := k + rng.IntN(9) // rows of k to k + 8 entries, and more
			if symmetric {         // (a symmetric row gets its own and the reverse)
				deg = k/2 + rng.IntN(4)
			}
			if i%10 == 0 {
				deg += 15 // rows past k + 8: the sort
			}
			for range deg {
				j := rng.IntN(n)
				if j == i {
					continue
				}
				d := float64(1 + rng.IntN(5)) // ties
				c.Add(i, j, d)
				if symmetric {
					c.Add(j, i, d)
				}
			}
		}
		g := c.ToCSR()
		if got := g.TransposePlaces() != nil; got != symmetric {
			t.Fatalf("symmetric %v: transposePlaces found mirrors %v", symmetric, got)
		}
		w, _ := reweight(g, samples{}, WeightConnectivity, 0, k)
		ptr, ind, val := g.RowPtr(), g.ColIdx(), g.Values()
		chose := func(i, j int) bool { // j among i's k nearest
			row := make([]int, 0, ptr[i+1]-ptr[i])
			for p := ptr[i]; p < ptr[i+1]; p++ {
				row = append(row, p)
			}
			sort.Slice(row, func(a, b int) bool {
				pa, pb := row[a], row[b]
				return val[pa] < val[pb] || val[pa] == val[pb] && ind[pa] < ind[pb]
			})
			for _, p := range row[:min(k, len(row))] {
				if ind[p] == j {
					return true
				}
			}
			return false
		}
		wv := w.Values()
		for i := range n {
			for p := ptr[i]; p < ptr[i+1]; p++ {
				j := ind[p]
				want := 0.0
				if chose(i, j) {
					want += 0.5
				}
				if chose(j, i) {
					want += 0.5
				}
				if want == 0 {
					want = 0.5
				}
				if wv[p] != want {
					t.Fatalf("symmetric %v: weight (%d, %d) = %v, want %v", symmetric, i, j, wv[p], want)
				}
			}
		}
	}
}
