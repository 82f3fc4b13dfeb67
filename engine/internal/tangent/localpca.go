package tangent

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/internal/errs"
)

// LocalPCA is the workspace of one local tangent space, LTSA's (Zhang &
// Zha, SIAM J. Sci. Comput. 26(1), 2004, §4): the centred Gram matrix of a
// neighbourhood of k points and its dim top eigenvectors. After Fit, Q and
// W hold them; a LocalPCA is reused from one neighbourhood to the next by
// one goroutine.
type LocalPCA struct {
	k, dim   int
	gram     []float64 // k×k raw inner products x_a·x_b
	RowMeans []float64 // row means of the Gram matrix (Fit with means)
	c        []float64 // k×k centred Gram matrix (destroyed by the solver)
	W        []float64 // the dim leading eigenvalues, descending
	Q        []float64 // k×dim eigenvectors (the left singular vectors)
	allW     []float64 // all k eigenvalues
	allV     []float64 // k×k eigenvectors
	order    []int
	// The covariance path (fitCov): centred neighbours k×D, the D×D
	// covariance (then its eigenvectors) and its eigenvalues.
	xc, cov, covW, covMean []float64
}

// NewLocalPCA returns the workspace for neighbourhoods of k points and dim
// tangent directions.
func NewLocalPCA(k, dim int) *LocalPCA {
	return &LocalPCA{k: k, dim: dim, gram: make([]float64, k*k), RowMeans: make([]float64, k), c: make([]float64, k*k),
		W: make([]float64, dim), Q: make([]float64, k*dim), allW: make([]float64, k), allV: make([]float64, k*k),
		order: make([]int, k)}
}

// Fit computes the local PCA of the k points js, known through
// dot(a, b, o) = (x_a − x_o)·(x_b − x_o) and, when they are dense rows, as
// the rows of rows (rows.Cols = 0 for points known only through dot): the
// centred Gram matrix C = H·G·H (H the centring matrix) and its dim
// leading eigenvectors (the leading left singular vectors of the centred
// neighbourhood), descending, by the backend's symmetric eigensolver (pure
// Go at these sizes in every build: the dispatch thresholds keep k×k
// problems out of cgo). With means it also leaves the Gram matrix's row
// means in RowMeans (LTSA's Transform reads them); without, dense rows of
// fewer features than neighbours go straight to fitCov and the Gram matrix
// is formed only if fitCov declines (a degenerate neighbourhood). A failed
// eigensolver gives an error wrapping errs.Numerical (engine's
// ErrNumerical).
func (l *LocalPCA) Fit(dot func(a, b, o int) float64, rows blas64.General, js []int, means bool) error {
	k := l.k
	cov := rows.Cols > 0 && rows.Cols < k
	if !means && cov {
		if ok, err := l.fitCov(rows, js); ok || err != nil {
			return err
		}
	}
	for a, ja := range js {
		for c := a; c < k; c++ {
			v := dot(ja, js[c], js[0]) // H·G·H is the same from any origin
			l.gram[a*k+c], l.gram[c*k+a] = v, v
		}
	}
	all := 0.0
	for a := 0; a < k; a++ {
		s := 0.0
		for c := 0; c < k; c++ {
			s += l.gram[a*k+c]
		}
		l.RowMeans[a] = s / float64(k)
		all += s
	}
	all /= float64(k * k)
	if means && cov {
		if ok, err := l.fitCov(rows, js); ok || err != nil {
			return err
		}
	}
	for a := 0; a < k; a++ {
		for c := 0; c < k; c++ {
			l.c[a*k+c] = l.gram[a*k+c] - l.RowMeans[a] - l.RowMeans[c] + all
		}
	}
	copy(l.allV, l.c)
	if err := backend.Active().Syevd(blas64.Symmetric{N: k, Stride: k, Data: l.allV, Uplo: blas.Upper}, l.allW, true); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return fmt.Errorf("%w: local PCA of a neighbourhood: %w", errs.Numerical, err)
	}
	// The dim largest, descending (ties by index, for determinism).
	for i := range l.order {
		l.order[i] = i
	}
	for i := 1; i < k; i++ {
		for j := i; j > 0 && l.allW[l.order[j]] > l.allW[l.order[j-1]]; j-- {
			l.order[j], l.order[j-1] = l.order[j-1], l.order[j]
		}
	}
	for t := 0; t < l.dim; t++ {
		src := l.order[t]
		l.W[t] = l.allW[src]
		for a := 0; a < k; a++ {
			l.Q[a*l.dim+t] = l.allV[a*k+src]
		}
	}
	return nil
}

// fitCov is Fit's eigenproblem for dense rows with fewer features D than
// neighbours:
// the D×D covariance C = X_cᵀ·X_c of the centred neighbourhood has the
// nonzero eigenvalues of the centred Gram matrix, and Q = X_c·V·Λ^{-1/2}
// its leading eigenvectors (the left singular vectors; Golub & Van Loan,
// "Matrix Computations", 4th ed., §8.6.1): a D×D eigenproblem instead of a
// k×k one (3×3 against 10×10 for a swiss roll). It returns false, leaving
// the Gram path to decide, when the dim-th eigenvalue is not clearly
// positive (a degenerate neighbourhood, whose tangent basis the Gram path
// picks).
func (l *LocalPCA) fitCov(x blas64.General, js []int) (bool, error) {
	k, d := l.k, x.Cols
	if cap(l.xc) < k*d {
		l.xc = make([]float64, k*d)
		l.cov = make([]float64, d*d)
		l.covW = make([]float64, d)
		l.covMean = make([]float64, d)
	}
	xc, cov, cw, mean := l.xc[:k*d], l.cov[:d*d], l.covW[:d], l.covMean[:d]
	clear(cov)
	clear(mean)
	for a, j := range js {
		row := x.Data[j*x.Stride : j*x.Stride+d]
		copy(xc[a*d:(a+1)*d], row)
		for c, v := range row {
			mean[c] += v
		}
	}
	for c := range mean {
		mean[c] /= float64(k)
	}
	for a := 0; a < k; a++ {
		r := xc[a*d : (a+1)*d]
		for c := range r {
			r[c] -= mean[c]
		}
		for c, v := range r {
			for e := c; e < d; e++ {
				cov[c*d+e] += v * r[e]
			}
		}
	}
	if err := backend.Active().Syevd(blas64.Symmetric{N: d, Stride: d, Data: cov, Uplo: blas.Upper}, cw, true); err != nil {
		return false, fmt.Errorf("%w: local PCA of a neighbourhood: %w", errs.Numerical, err)
	}
	// Ascending from Syevd: the dim largest are the last ones.
	if d < l.dim || !(cw[d-l.dim] > 1e-8*cw[d-1]) {
		return false, nil
	}
	for t := 0; t < l.dim; t++ {
		src := d - 1 - t
		l.W[t] = cw[src]
		s := 1 / math.Sqrt(cw[src])
		for a := 0; a < k; a++ {
			v := 0.0
			for c, e := range xc[a*d : (a+1)*d] {
				v += e * cov[c*d+src]
			}
			l.Q[a*l.dim+t] = v * s
		}
	}
	return true, nil
}

// LocalPCAFlam is the tangent space of one neighbourhood of k points whose rows
// hold nnzRow stored entries (D for dense rows): the k(k+1)/2 inner
// products of the k×k Gram matrix, its double centring (k²) and its t
// leading eigenvectors by index range (flam.Syevr(k, t)). LTSA and its
// out-of-sample map pay it once per point.
func LocalPCAFlam(k, nnzRow, t int) float64 {
	fk := float64(k)
	return fk*(fk+1)/2*float64(nnzRow) + fk*fk + flam.Syevr(k, t)
}
