package backend_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// The operator adapters must agree with naïve products, and the block forms
// with the vector forms column by column.
func TestOps(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 7))
	m, n, b := 7, 5, 3
	a := blas64.General{Rows: m, Cols: n, Stride: n + 1, Data: make([]float64, m*(n+1))}
	for i := range a.Data {
		a.Data[i] = rnd.NormFloat64()
	}
	s := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.Data[i*n+j] = rnd.NormFloat64()
		}
	}
	symAt := func(i, j int) float64 { return s.Data[min(i, j)*n+max(i, j)] }
	for _, impl := range backend.Impls() {
		g := backend.GeneralOp{A: a, Impl: impl}
		x := make([]float64, n)
		for i := range x {
			x[i] = rnd.NormFloat64()
		}
		y := make([]float64, m)
		g.MulVecTo(y, x)
		for i := 0; i < m; i++ {
			want := 0.0
			for j := 0; j < n; j++ {
				want += a.Data[i*a.Stride+j] * x[j]
			}
			if math.Abs(y[i]-want) > 1e-13 {
				t.Fatalf("%s GeneralOp.MulVecTo[%d] = %v, want %v", impl.Name(), i, y[i], want)
			}
		}
		// ⟨Ax, z⟩ = ⟨x, Aᵀz⟩.
		z := make([]float64, m)
		for i := range z {
			z[i] = rnd.NormFloat64()
		}
		atz := make([]float64, n)
		g.MulTransVecTo(atz, z)
		if l, r := dot(y, z), dot(x, atz); math.Abs(l-r) > 1e-12 {
			t.Fatalf("%s GeneralOp: ⟨Ax,z⟩ = %v, ⟨x,Aᵀz⟩ = %v", impl.Name(), l, r)
		}
		// Block forms column by column.
		xb := blas64.General{Rows: n, Cols: b, Stride: b, Data: make([]float64, n*b)}
		for i := range xb.Data {
			xb.Data[i] = rnd.NormFloat64()
		}
		yb := blas64.General{Rows: m, Cols: b, Stride: b, Data: make([]float64, m*b)}
		g.MulBlockTo(yb, xb)
		sy := blas64.General{Rows: n, Cols: b, Stride: b, Data: make([]float64, n*b)}
		so := backend.SymOp{A: s, Impl: impl}
		so.MulBlockTo(sy, xb)
		for c := 0; c < b; c++ {
			col := make([]float64, n)
			for i := range col {
				col[i] = xb.Data[i*b+c]
			}
			g.MulVecTo(y, col)
			sv := make([]float64, n)
			so.MulVecTo(sv, col)
			for i := 0; i < m; i++ {
				if math.Abs(y[i]-yb.Data[i*b+c]) > 1e-13 {
					t.Fatalf("%s GeneralOp block column %d differs", impl.Name(), c)
				}
			}
			for i := 0; i < n; i++ {
				want := 0.0
				for j := 0; j < n; j++ {
					want += symAt(i, j) * col[j]
				}
				if math.Abs(sv[i]-want) > 1e-13 || math.Abs(sy.Data[i*b+c]-want) > 1e-13 {
					t.Fatalf("%s SymOp row %d: vec %v block %v want %v", impl.Name(), i, sv[i], sy.Data[i*b+c], want)
				}
			}
		}
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
