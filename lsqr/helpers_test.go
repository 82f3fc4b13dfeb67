package lsqr_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// fixture is one scipy.sparse.linalg.lsqr run from testdata/make_fixtures.py.
type fixture struct {
	Name                  string
	M, N, Ndup, Npow      int
	Compatible            bool
	Damp, Atol, Btol      float64
	Conlim                float64
	IterLim               int `json:"iter_lim"`
	Istop, Itn            int
	R1norm, R2norm, Anorm float64
	Acond, Arnorm, Xnorm  float64
	X                     []float64
}

func loadFixtures(t *testing.T) []fixture {
	t.Helper()
	data, err := os.ReadFile("testdata/scipy_lsqr.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Cases []fixture }
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f.Cases
}

// psProblem builds Paige and Saunders' test problem exactly as
// make_fixtures.py does, and returns A, b and the exact solution of the
// problem damped by damp.
func psProblem(m, n, ndup, npow int, compatible bool, damp float64) (blas64.General, []float64, []float64) {
	y := make([]float64, m)
	for i := range y {
		y[i] = math.Sin(4 * math.Pi * float64(i+1) / float64(m))
	}
	z := make([]float64, n)
	for j := range z {
		z[j] = math.Cos(4 * math.Pi * float64(j+1) / float64(n))
	}
	normalize(y)
	normalize(z)
	p := min(m, n)
	d := make([]float64, p)
	for k := range d {
		d[k] = math.Pow(float64(k/ndup+1), float64(npow))
	}
	// A = Y·D·Z with Y = I − 2yyᵀ, Z = I − 2zzᵀ.
	a := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for k := 0; k < p; k++ {
				yik := -2 * y[i] * y[k]
				if i == k {
					yik++
				}
				zkj := -2 * z[k] * z[j]
				if k == j {
					zkj++
				}
				s += yik * d[k] * zkj
			}
			a.Data[i*n+j] = s
		}
	}
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = float64(n-j) / float64(n)
	}
	b := make([]float64, m)
	backend.PureGo.Gemv(blas.NoTrans, 1, a, vec(x0), 0, vec(b))
	if !compatible && m > n {
		c := make([]float64, m)
		for i := n; i < m; i++ {
			c[i] = math.Pow(-1, float64(i+1)) * float64(i+1) / float64(m)
		}
		// b += Y·c
		yc := dotv(y, c)
		for i := range b {
			b[i] += c[i] - 2*y[i]*yc
		}
	}
	// Exact: x = Z_p·diag(d/(d²+damp²))·(Yᵀb)_p.
	ytb := make([]float64, m)
	yb := dotv(y, b)
	for i := range ytb {
		ytb[i] = b[i] - 2*y[i]*yb
	}
	q := make([]float64, n)
	for k := 0; k < p; k++ {
		q[k] = d[k] / (d[k]*d[k] + damp*damp) * ytb[k]
	}
	zq := dotv(z, q)
	x := make([]float64, n)
	for j := range x {
		x[j] = q[j] - 2*z[j]*zq
	}
	return a, b, x
}

func normalize(x []float64) {
	s := math.Sqrt(dotv(x, x))
	for i := range x {
		x[i] /= s
	}
}

func dotv(x, y []float64) float64 {
	s := 0.0
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

func vec(x []float64) blas64.Vector { return blas64.Vector{N: len(x), Inc: 1, Data: x} }

func nrm(x []float64) float64 { return math.Sqrt(dotv(x, x)) }

func relDiff(x, y []float64) float64 {
	d := 0.0
	for i := range x {
		d += (x[i] - y[i]) * (x[i] - y[i])
	}
	return math.Sqrt(d) / math.Max(nrm(y), 1e-300)
}

func randGeneral(rnd *rand.Rand, m, n int) blas64.General {
	a := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
	for i := range a.Data {
		a.Data[i] = rnd.NormFloat64()
	}
	return a
}

func randVec(rnd *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rnd.NormFloat64()
	}
	return x
}

// residuals returns r = b − A·x and Aᵀr − damp²·x.
func residuals(a blas64.General, b, x []float64, damp float64) (r, atr []float64) {
	r = append([]float64(nil), b...)
	backend.PureGo.Gemv(blas.NoTrans, -1, a, vec(x), 1, vec(r))
	atr = make([]float64, a.Cols)
	backend.PureGo.Gemv(blas.Trans, 1, a, vec(r), 0, vec(atr))
	for i := range atr {
		atr[i] -= damp * damp * x[i]
	}
	return r, atr
}

// funcOp wraps a dense matrix as a plain function operator (no block
// products, no dense fast path).
type funcOp struct{ a blas64.General }

func (f funcOp) Dims() (int, int) { return f.a.Rows, f.a.Cols }
func (f funcOp) MulVecTo(dst, x []float64) {
	backend.PureGo.Gemv(blas.NoTrans, 1, f.a, vec(x), 0, vec(dst))
}
func (f funcOp) MulTransVecTo(dst, x []float64) {
	backend.PureGo.Gemv(blas.Trans, 1, f.a, vec(x), 0, vec(dst))
}

// blockOp adds block products (column by column through Gemm), as a
// BlockOperator that is not a backend.GeneralOp.
type blockOp struct{ funcOp }

func (b blockOp) MulBlockTo(dst, x blas64.General) {
	backend.PureGo.Gemm(blas.NoTrans, blas.NoTrans, 1, b.a, x, 0, dst)
}
func (b blockOp) MulTransBlockTo(dst, x blas64.General) {
	backend.PureGo.Gemm(blas.Trans, blas.NoTrans, 1, b.a, x, 0, dst)
}
