package sparsetest

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Operator is the method set the solvers consume.
type Operator interface {
	Dims() (r, c int)
	MulVecTo(dst, x []float64)
	MulTransVecTo(dst, x []float64)
	MulBlockTo(dst, x blas64.General)
	MulTransBlockTo(dst, x blas64.General)
}

// CheckOperator runs the conformance checks on op. want, if not nil, is the
// dense matrix op should equal (for a *sparse.CSR, pass its ToDense or the
// matrix it was built from); without it only the adjoint identities and the
// overwrite semantics are checked. Failures are reported through t.Errorf.
func CheckOperator(t testing.TB, op Operator, want mat.Matrix) {
	t.Helper()
	r, c := op.Dims()
	if want != nil {
		wr, wc := want.Dims()
		if wr != r || wc != c {
			t.Errorf("Dims = %d×%d, reference is %d×%d", r, c, wr, wc)
			return
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	nan := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = math.NaN()
		}
		return v
	}
	// Scale of A for the tolerances: Frobenius norm from the reference or
	// from products with random vectors.
	x, y := vec(c), vec(r)
	xc, yc := append([]float64(nil), x...), append([]float64(nil), y...)
	ax, aty := nan(r), nan(c)
	op.MulVecTo(ax, x)
	op.MulTransVecTo(aty, y)
	if !equal(x, xc) || !equal(y, yc) {
		t.Errorf("a product modified its input vector")
	}
	for i, v := range ax {
		if math.IsNaN(v) {
			t.Errorf("MulVecTo left dst[%d] unwritten (NaN)", i)
			break
		}
	}
	for i, v := range aty {
		if math.IsNaN(v) {
			t.Errorf("MulTransVecTo left dst[%d] unwritten (NaN)", i)
			break
		}
	}
	norm := math.Max(nrm(ax)/math.Max(nrm(x), 1e-300), nrm(aty)/math.Max(nrm(y), 1e-300))
	if want != nil {
		norm = math.Max(norm, mat.Norm(want, 2))
	}
	tol := 1e3 * 2.2e-16 * float64(max(r, c, 1)) * math.Max(norm, 1e-300)

	// ⟨Ax, y⟩ = ⟨x, Aᵀy⟩.
	if d := math.Abs(dot(ax, y) - dot(x, aty)); d > tol*nrm(x)*nrm(y) {
		t.Errorf("⟨Ax, y⟩ = %v but ⟨x, Aᵀy⟩ = %v", dot(ax, y), dot(x, aty))
	}
	if want != nil {
		wax, waty := make([]float64, r), make([]float64, c)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				a := want.At(i, j)
				wax[i] += a * x[j]
				waty[j] += a * y[i]
			}
		}
		if d := dist(ax, wax); d > tol*nrm(x) {
			t.Errorf("MulVecTo differs from the dense product by %v (tolerance %v)", d, tol*nrm(x))
		}
		if d := dist(aty, waty); d > tol*nrm(y) {
			t.Errorf("MulTransVecTo differs from the dense product by %v (tolerance %v)", d, tol*nrm(y))
		}
	}

	// Block forms: b = 3 columns, dst with a padded stride filled with NaN,
	// each column must equal the vector product.
	const b = 3
	xb := blas64.General{Rows: c, Cols: b, Stride: b, Data: vec(c * b)}
	yb := blas64.General{Rows: r, Cols: b, Stride: b, Data: vec(r * b)}
	dst := blas64.General{Rows: r, Cols: b, Stride: b + 2, Data: nan(max(1, r*(b+2)))}
	dstT := blas64.General{Rows: c, Cols: b, Stride: b + 2, Data: nan(max(1, c*(b+2)))}
	op.MulBlockTo(dst, xb)
	op.MulTransBlockTo(dstT, yb)
	for k := 0; k < b; k++ {
		xk, yk := column(xb, k), column(yb, k)
		want1, want2 := make([]float64, r), make([]float64, c)
		op.MulVecTo(want1, xk)
		op.MulTransVecTo(want2, yk)
		if d := dist(column(dst, k), want1); !(d <= tol*nrm(xk)) {
			t.Errorf("MulBlockTo column %d differs from MulVecTo by %v", k, d)
		}
		if d := dist(column(dstT, k), want2); !(d <= tol*nrm(yk)) {
			t.Errorf("MulTransBlockTo column %d differs from MulTransVecTo by %v", k, d)
		}
	}
	// The padding between rows must be left alone.
	for i := 0; i < r; i++ {
		for k := b; k < b+2; k++ {
			if !math.IsNaN(dst.Data[i*dst.Stride+k]) {
				t.Errorf("MulBlockTo wrote outside dst (row %d, column %d)", i, k)
				return
			}
		}
	}
}

func column(g blas64.General, k int) []float64 {
	v := make([]float64, g.Rows)
	for i := range v {
		v[i] = g.Data[i*g.Stride+k]
	}
	return v
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func nrm(a []float64) float64 { return math.Sqrt(dot(a, a)) }

func dist(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		e := v - b[i]
		s += e * e
	}
	return math.Sqrt(s)
}

func equal(a, b []float64) bool {
	for i, v := range a {
		if v != b[i] {
			return false
		}
	}
	return true
}
