package centred_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/internal/centred"
	"github.com/manifoldlab/manifold/sparse"
)

// problem returns n×d sparse rows with weights b, the dense X̂ =
// diag(√b)·(X − 1·μᵀ) formed from its definition, and Hats on the sparse
// rows (centred implicitly) and on the explicit X̂.
func problem(n, d int, seed uint64) (*mat.Dense, *centred.Hat, *centred.Hat, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	coo := sparse.NewCOO(n, d, 0)
	x := mat.NewDense(n, d, nil)
	b := make([]float64, n)
	for i := range n {
		b[i] = 0.5 + rng.Float64()
		for j := range d {
			if rng.IntN(3) == 0 {
				v := rng.NormFloat64()
				coo.Add(i, j, v)
				x.Set(i, j, v)
			}
		}
	}
	a := coo.ToCSR()
	mu := centred.WeightedMean(blas64.General{}, a, b)
	if dm := centred.WeightedMean(x.RawMatrix(), nil, b); !equalSlices(dm, mu, 1e-15) {
		panic("the dense and sparse weighted means differ")
	}
	hat := mat.NewDense(n, d, nil)
	sb := make([]float64, n)
	for i := range n {
		sb[i] = math.Sqrt(b[i])
		for j := range d {
			hat.Set(i, j, sb[i]*(x.At(i, j)-mu[j]))
		}
	}
	return hat, &centred.Hat{N: n, D: d, A: a, Mu: mu, Sb: sb}, &centred.Hat{N: n, D: d, Dense: hat.RawMatrix()}, mu
}

func equalSlices(a, b []float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol*(1+math.Abs(b[i])) {
			return false
		}
	}
	return len(a) == len(b)
}

func TestWeightedMean(t *testing.T) {
	x := blas64.General{Rows: 3, Cols: 2, Stride: 2, Data: []float64{1, 2, 3, 4, 5, 6}}
	if got := centred.WeightedMean(x, nil, nil); !equalSlices(got, []float64{3, 4}, 0) {
		t.Errorf("plain mean %v, want [3 4]", got)
	}
	if got := centred.WeightedMean(x, nil, []float64{1, 0, 3}); !equalSlices(got, []float64{4, 5}, 1e-15) {
		t.Errorf("weighted mean %v, want [4 5]", got)
	}
}

// Mul, MulT, the Gram matrices formed and as an operator equal their
// dense definitions, for sparse rows centred implicitly and for the
// explicit X̂.
func TestAgainstDense(t *testing.T) {
	ctx := context.Background()
	for _, sz := range []struct{ n, d int }{{40, 15}, {12, 30}} {
		want, sp, de, _ := problem(sz.n, sz.d, uint64(sz.n))
		rng := rand.New(rand.NewPCG(9, 9))
		bm := mat.NewDense(sz.d, 3, nil)
		um := mat.NewDense(sz.n, 3, nil)
		for _, m := range []*mat.Dense{bm, um} {
			r, c := m.Dims()
			for i := range r {
				for j := range c {
					m.Set(i, j, rng.NormFloat64())
				}
			}
		}
		var xb, xtu mat.Dense
		xb.Mul(want, bm)
		xtu.Mul(want.T(), um)
		for name, h := range map[string]*centred.Hat{"sparse": sp, "dense": de} {
			got := mat.NewDense(sz.n, 3, nil)
			if err := h.Mul(ctx, got.RawMatrix(), bm.RawMatrix()); err != nil || !mat.EqualApprox(got, &xb, 1e-12) {
				t.Errorf("%d×%d %s: Mul differs from X̂·B (%v)", sz.n, sz.d, name, err)
			}
			gotT := mat.NewDense(sz.d, 3, nil)
			if err := h.MulT(ctx, gotT.RawMatrix(), um.RawMatrix()); err != nil || !mat.EqualApprox(gotT, &xtu, 1e-12) {
				t.Errorf("%d×%d %s: MulT differs from X̂ᵀ·U (%v)", sz.n, sz.d, name, err)
			}
			for _, samples := range []bool{true, false} {
				var gram mat.Dense
				if samples {
					gram.Mul(want, want.T())
				} else {
					gram.Mul(want.T(), want)
				}
				g := centred.Gram{H: h, Samples: samples}
				calls := 0
				sym, err := g.Form(ctx, func(done, total int64) { calls++ })
				if err != nil {
					t.Fatal(err)
				}
				m := g.Size()
				formed := mat.NewDense(m, m, nil)
				for i := range m {
					for j := i; j < m; j++ {
						formed.Set(i, j, sym.Data[i*sym.Stride+j])
						formed.Set(j, i, sym.Data[i*sym.Stride+j])
					}
				}
				if !mat.EqualApprox(formed, &gram, 1e-12) {
					t.Errorf("%d×%d %s, samples %v: Form differs from the Gram matrix", sz.n, sz.d, name, samples)
				}
				if name == "sparse" && calls == 0 {
					t.Errorf("%d×%d sparse: Form reported no progress", sz.n, sz.d)
				}
				op := g.Operator()
				e := make([]float64, m)
				y := make([]float64, m)
				e[m-1] = 1
				op.Mul(y, e)
				for i := range m {
					if math.Abs(y[i]-gram.At(i, m-1)) > 1e-12*(1+math.Abs(gram.At(i, m-1))) {
						t.Fatalf("%d×%d %s, samples %v: the operator's last column differs at %d", sz.n, sz.d, name, samples, i)
					}
				}
			}
		}
	}
}

// Forming the Gram matrix of sparse rows stops when ctx is cancelled.
func TestFormCancelled(t *testing.T) {
	_, sp, _, _ := problem(200, 150, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (centred.Gram{H: sp}).Form(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
