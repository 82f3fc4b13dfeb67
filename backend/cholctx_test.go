package backend

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// TestCholUpperRightSolve: the blocked factor and solve against gonum's
// Cholesky and dense products, at sizes around the block size, and the
// refusal of a matrix that is not positive definite.
func TestCholUpperRightSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, l := range []int{1, 5, cholBlock, cholBlock + 1, 300} {
		g := mat.NewDense(l, l, nil)
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				g.Set(i, j, rng.NormFloat64())
			}
		}
		var spd mat.SymDense
		spd.SymOuterK(1, g)
		for i := 0; i < l; i++ {
			spd.SetSym(i, i, spd.At(i, i)+float64(l))
		}
		b := blas64.General{Rows: l, Cols: l, Stride: l, Data: make([]float64, l*l)}
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				b.Data[i*l+j] = spd.At(i, j)
			}
		}
		if err := CholUpperCtx(context.Background(), Active(), b); err != nil {
			t.Fatal(err)
		}
		var ch mat.Cholesky
		if !ch.Factorize(&spd) {
			t.Fatal("gonum: not positive definite")
		}
		var u mat.TriDense
		ch.UTo(&u)
		worst := 0.0
		for i := 0; i < l; i++ {
			for j := i; j < l; j++ {
				worst = max(worst, math.Abs(b.Data[i*l+j]-u.At(i, j)))
			}
		}
		// m·R⁻¹ times R gives m back.
		m := blas64.General{Rows: l, Cols: l, Stride: l, Data: make([]float64, l*l)}
		for i := range m.Data {
			m.Data[i] = rng.NormFloat64()
		}
		orig := blas64.General{Rows: l, Cols: l, Stride: l, Data: append([]float64(nil), m.Data...)}
		r := blas64.Triangular{N: l, Stride: l, Uplo: blas.Upper, Diag: blas.NonUnit, Data: b.Data}
		if err := RightSolveUpperCtx(context.Background(), Active(), m, r); err != nil {
			t.Fatal(err)
		}
		blas64.Trmm(blas.Right, blas.NoTrans, 1, r, m)
		back := 0.0
		for i := range m.Data {
			back = max(back, math.Abs(m.Data[i]-orig.Data[i]))
		}
		if worst > 1e-12*float64(l) || back > 1e-12*float64(l) {
			t.Errorf("L = %d: factor differs from gonum's by %.3g, m·R⁻¹·R from m by %.3g", l, worst, back)
		}
	}
	// Not positive definite (a negative pivot in the second block).
	l := cholBlock + 10
	b := blas64.General{Rows: l, Cols: l, Stride: l, Data: make([]float64, l*l)}
	for i := 0; i < l; i++ {
		b.Data[i*l+i] = 1
	}
	b.Data[(l-1)*l+l-1] = -1
	if err := CholUpperCtx(context.Background(), Active(), b); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("a negative diagonal entry: %v, want ErrNotPositiveDefinite", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := CholUpperCtx(ctx, Active(), b); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
