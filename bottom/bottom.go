package bottom

import (
	"context"
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/internal/tall"
	"github.com/manifoldlab/manifold/sparse"
)

const (
	// shiftRel is ε/‖B‖: B + ε·I is nonsingular although B is singular,
	// and ε stays below the wanted eigenvalues, which for LLE on a 2-D
	// manifold fall like 1/N² (1e-13·‖B‖ at N = 50,000), so that their
	// images 1/(λ + ε) stay apart. It sits near the factorization's
	// backward error: pivots may come out of either sign (LDLᵀ needs none
	// positive), and a zero pivot retries with 100·ε.
	shiftRel = 1e-14
	// certLockRel is the residual tolerance relative to ‖B‖ (Gershgorin).
	certLockRel = 1e-10
	// NullRel: eigenvalues at most NullRel·‖B‖ count in the null space.
	// Rounding leaves null eigenvalues near 1e-16·‖B‖; the smallest
	// genuine ones of LLE and LTSA on 2000-point swiss rolls are 5e-11·‖B‖
	// and 7e-10·‖B‖, of LLE on 50,000 points about 1e-13·‖B‖ (they fall
	// like 1/N²: on millions of points they reach the rounding level, and
	// the report calls them null, rightly: they are then not determined).
	NullRel = 1e-14
	// certMaxGrowth bounds the growth factor of an LDLᵀ of B − σ·I whose
	// inertia is trusted (B − σ·I is indefinite: its pivots are not
	// bounded).
	certMaxGrowth = 1e6
	// certMaxRounds bounds the lock-and-certify rounds.
	certMaxRounds = 12
	// certExtra: eigenpairs beyond those wanted that the dense path
	// computes, and room for as many more locked vectors.
	certExtra = 2
	// operatorTol is the residual tolerance of Operator relative to
	// ‖B‖, and operatorRestarts bounds its thick restarts (the Laplacians
	// of 10⁶ deformed digits need 32 with binary weights and 58 with the
	// heat kernel's; LLE's M, whose bottom eigenvalues are 1e-13·‖B‖
	// apart, would need thousands, and fails after these).
	operatorTol      = 1e-9
	operatorRestarts = 150
)

// DefaultMaxFactorFlam is the default bound on the cost of one LDLᵀ
// factorization (Options.MaxFactorFlam); beyond it Certified cannot
// certify and returns a *LimitError.
const DefaultMaxFactorFlam = 2e12

// Result is the dim bottom eigenpairs of B on the complement of u.
type Result struct {
	Values  []float64      // the dim eigenvalues on the complement of u, ascending
	Vectors blas64.General // n×dim unit eigenvectors, orthogonal to u
	// Nullity is the dimension of B's null space (eigenvalues ≤
	// NullRel·‖B‖), u included; NullAtLeast says it is a lower bound
	// (when every eigenvalue computed was null).
	Nullity     int
	NullAtLeast bool
	Certified   bool // by an inertia certificate (Certified)
}

// Options are the settings of Certified and Operator.
type Options struct {
	// Seed makes the start vectors; the same seed gives the same bits on
	// any number of goroutines.
	Seed uint64
	// MaxBytes bounds the memory of the factors or of the Lanczos basis
	// (each may take half of it); 0: no bound.
	MaxBytes int64
	// MaxFactorFlam bounds the cost of one LDLᵀ factorization; 0:
	// DefaultMaxFactorFlam.
	MaxFactorFlam float64
	// Progress, when not nil, counts the products (solves with the
	// factor, or products with B).
	Progress *atomic.Int64
	// Early is an analysis started from the matrix's pattern
	// (StartAnalysis), used when the matrix stores exactly its graph's
	// entries and the diagonal; nil: none.
	Early *Analysis
	// NoSpeculation starts no factorization of the certificate during the
	// first round (for tests that compare the two ways).
	NoSpeculation bool
}

func (o Options) maxFactorFlam() float64 {
	if o.MaxFactorFlam > 0 {
		return o.MaxFactorFlam
	}
	return DefaultMaxFactorFlam
}

// Info is what an eigensolve did: a sentence for a report, its rounds or
// Lanczos iterations, its flam, and the bytes of the factors it held at
// once (0 without a factor).
type Info struct {
	Detail      string
	Iterations  int
	Flam        float64
	FactorBytes int64
}

// LimitError says that an eigensolve was not made because its factor or
// basis would pass a limit: Budget when the memory bound (MaxBytes) set
// it, CannotCertify when it is the certificate's factor that Certified
// could not afford (Operator, with no factor, may then serve).
type LimitError struct {
	Budget        bool
	CannotCertify bool
	Msg           string
}

func (e *LimitError) Error() string { return e.Msg }

// Gershgorin returns max_i Σ_j |b_ij| ≥ ‖B‖₂ for symmetric b.
func Gershgorin(b *sparse.CSR) float64 {
	n, _ := b.Dims()
	ptr, val := b.RowPtr(), b.Values()
	norm := 0.0
	for i := 0; i < n; i++ {
		s := 0.0
		for p := ptr[i]; p < ptr[i+1]; p++ {
			s += math.Abs(val[p])
		}
		norm = max(norm, s)
	}
	return norm
}

// orthonormalize returns an orthonormal basis (n×p', p' ≤ p) of the part of
// span(q) orthogonal to the columns of x (n×l, orthonormal), dropping
// directions whose norm falls below 1e-8 of their original norm (already in
// span(x), or dependent). It scales the columns of q in place. Two passes of projection and eigenvalue-based
// orthonormalization (q ← q·V·Λ^{-1/2} from qᵀq = V·Λ·Vᵀ).
func orthonormalize(q, x blas64.General) blas64.General {
	for pass := 0; pass < 2; pass++ {
		if x.Cols > 0 && q.Cols > 0 {
			c := dense.New(x.Cols, q.Cols)
			tall.TN(x, q, c)
			tall.NN(-1, x, c, 1, q)
		}
		if q.Cols == 0 {
			return q
		}
		// Unit columns first: after a solve their norms differ by the
		// ratio of the eigenvalues of S (1e14 for a null vector against
		// a wanted one), which would hide them from the relative cut.
		tall.UnitColumns(q)
		g := dense.New(q.Cols, q.Cols)
		tall.TN(q, q, g)
		dense.Symmetrize(g)
		var es mat.EigenSym
		if !es.Factorize(mat.NewSymDense(q.Cols, g.Data), true) {
			return dense.New(q.Rows, 0)
		}
		w := es.Values(nil)
		var v mat.Dense
		es.VectorsTo(&v)
		top := w[len(w)-1]
		keep := 0
		for _, l := range w {
			if l > 1e-16*top && l > 1e-20 {
				keep++
			}
		}
		t := dense.New(q.Cols, keep)
		c := 0
		for j := len(w) - 1; j >= 0 && c < keep; j-- {
			s := 1 / math.Sqrt(w[j])
			for i := 0; i < q.Cols; i++ {
				t.Data[i*keep+c] = v.At(i, j) * s
			}
			c++
		}
		out := dense.New(q.Rows, keep)
		tall.NN(1, q, t, 0, out)
		q = out
	}
	return q
}

// rayleighRitz returns the eigenpairs of B on span(q) (q orthonormal,
// n×p): values ascending, vectors n×p, and the residual norms
// ‖B·c − θ·c‖.
func rayleighRitz(b *sparse.CSR, q blas64.General) ([]float64, blas64.General, []float64, error) {
	return rayleighRitzOf(b.MulBlockTo, q)
}

// rayleighRitzOf is rayleighRitz of the symmetric operator whose product
// mul writes (dst = B·src).
func rayleighRitzOf(mul func(dst, src blas64.General), q blas64.General) ([]float64, blas64.General, []float64, error) {
	n, p := q.Rows, q.Cols
	bq := dense.New(n, p)
	mul(bq, q)
	h := dense.New(p, p)
	tall.TN(q, bq, h)
	dense.Symmetrize(h)
	w, z, err := backend.EigBottomCtx(context.Background(), backend.Local(), blas64.Symmetric{N: p, Stride: p, Uplo: blas.Upper, Data: h.Data}, p)
	if err != nil {
		return nil, blas64.General{}, nil, err
	}
	c := dense.New(n, p)
	tall.NN(1, q, z, 0, c)
	bc := dense.New(n, p)
	tall.NN(1, bq, z, 0, bc)
	res := make([]float64, p)
	for i := 0; i < n; i++ {
		cr, br := c.Data[i*p:(i+1)*p], bc.Data[i*p:(i+1)*p]
		for j := range res {
			d := br[j] - w[j]*cr[j]
			res[j] += d * d
		}
	}
	for j := range res {
		res[j] = math.Sqrt(res[j])
	}
	return w, c, res, nil
}

// column returns column j of g as a new slice.
func column(g blas64.General, j int) []float64 {
	out := make([]float64, g.Rows)
	for i := range out {
		out[i] = g.Data[i*g.Stride+j]
	}
	return out
}
