package lanczos_test

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// randomOrthogonal returns an n×n orthogonal matrix (Q of a Gaussian
// matrix's QR factorization).
func randomOrthogonal(rnd *rand.Rand, n int) blas64.General {
	q := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	for i := range q.Data {
		q.Data[i] = rnd.NormFloat64()
	}
	tau := make([]float64, n)
	backend.PureGo.Geqrf(q, tau)
	backend.PureGo.Orgqr(q, tau)
	return q
}

// withSpectrum returns Q·diag(lambda)·Qᵀ, fully stored.
func withSpectrum(rnd *rand.Rand, lambda []float64) blas64.General {
	n := len(lambda)
	q := randomOrthogonal(rnd, n)
	ql := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			ql.Data[i*n+j] = q.Data[i*n+j] * lambda[j]
		}
	}
	a := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	backend.PureGo.Gemm(blas.NoTrans, blas.Trans, 1, ql, q, 0, a)
	symmetrize(a)
	return a
}

func symmetrize(a blas64.General) {
	n := a.Rows
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := 0.5 * (a.Data[i*n+j] + a.Data[j*n+i])
			a.Data[i*n+j], a.Data[j*n+i] = v, v
		}
	}
}

func sym(a blas64.General) blas64.Symmetric {
	return blas64.Symmetric{N: a.Rows, Stride: a.Stride, Uplo: blas.Upper, Data: a.Data}
}

// denseEig returns all eigenvalues (ascending) and eigenvectors (columns)
// of the fully stored symmetric a, by the backend's dense solver.
func denseEig(t testing.TB, a blas64.General) ([]float64, blas64.General) {
	n := a.Rows
	c := blas64.General{Rows: n, Cols: n, Stride: n, Data: append([]float64(nil), a.Data...)}
	w := make([]float64, n)
	if err := backend.PureGo.Syevd(sym(c), w, true); err != nil {
		t.Fatal(err)
	}
	return w, c
}

func norm2(a blas64.General, w []float64) float64 {
	return math.Max(math.Abs(w[0]), math.Abs(w[len(w)-1]))
}

// trueResiduals returns ‖A·yᵢ − θᵢ·yᵢ‖ computed from the dense matrix.
func trueResiduals(a blas64.General, vals []float64, vec blas64.General) []float64 {
	n, k := vec.Rows, vec.Cols
	out := make([]float64, k)
	y := make([]float64, n)
	for c := 0; c < k; c++ {
		for i := 0; i < n; i++ {
			y[i] = vec.Data[i*vec.Stride+c]
		}
		ss := 0.0
		for i := 0; i < n; i++ {
			s := -vals[c] * y[i]
			row := a.Data[i*a.Stride : i*a.Stride+n]
			for j, v := range row {
				s += v * y[j]
			}
			ss += s * s
		}
		out[c] = math.Sqrt(ss)
	}
	return out
}

// orthoError returns max |YᵀY − I|.
func orthoError(vec blas64.General) float64 {
	n, k := vec.Rows, vec.Cols
	worst := 0.0
	for a := 0; a < k; a++ {
		for b := a; b < k; b++ {
			s := 0.0
			for i := 0; i < n; i++ {
				s += vec.Data[i*vec.Stride+a] * vec.Data[i*vec.Stride+b]
			}
			if a == b {
				s -= 1
			}
			worst = math.Max(worst, math.Abs(s))
		}
	}
	return worst
}

func sortedCopy(x []float64) []float64 {
	c := append([]float64(nil), x...)
	sort.Float64s(c)
	return c
}
