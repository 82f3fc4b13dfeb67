package tangent

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
)

// Spaces returns the D×(q·t) matrix whose columns i·t … i·t+t−1
// are the t leading left singular vectors of the centred neighbours of
// point i (the rows nb.Row(i) of x; q = nb.Len()). The singular vectors
// come from the smaller of the D×D covariance and the k×k Gram matrix of
// the centred neighbours, in pure Go (too small for a cgo call to pay); a
// direction whose singular value is 0 to working accuracy (fewer than t+1
// distinct neighbours) is left 0, so the tangent space there has fewer
// dimensions. With coef (q×(t·k), used when k < D) it also writes, row i,
// the t×k matrix A_i = Σ⁻¹Vᵀ with P_i = CᵀVΣ⁻¹ (C the centred neighbours):
// P_iᵀx = A_i·(x_l·x)_{l ∈ neighbours}, since the columns of V are
// orthogonal to e; DistancesGram reads them. Pass a zero coef for none.
// Work goes in chunks of 1024 points, ctx checked and progress (when not
// nil) told the points done between chunks.
func Spaces(ctx context.Context, x blas64.General, nb *neighbors.Result, t int, coef blas64.General, progress func(done, total int64)) (blas64.General, error) {
	q, d := nb.Len(), x.Cols
	p := dense.New(d, q*t)
	kmax := 0
	for i := 0; i < q; i++ {
		kmax = max(kmax, nb.Ptr[i+1]-nb.Ptr[i])
	}
	const chunk = 1024
	for c0 := 0; c0 < q; c0 += chunk {
		c1 := min(q, c0+chunk)
		err := backend.ParallelForCtx(ctx, c1-c0, 16, func(lo, hi int) {
			cbuf := make([]float64, kmax*d)
			sbuf := make([]float64, min(kmax, d)*min(kmax, d))
			w := make([]float64, min(kmax, d))
			mean := make([]float64, d)
			for i := c0 + lo; i < c0+hi; i++ {
				ind, _ := nb.Row(i)
				var a []float64
				if coef.Rows > 0 {
					a = coef.Data[i*coef.Stride : i*coef.Stride+coef.Cols]
				}
				local(p, i*t, t, x, ind, a, cbuf, sbuf, w, mean)
			}
		})
		if err != nil {
			return blas64.General{}, err
		}
		if progress != nil {
			progress(int64(c1), int64(q))
		}
	}
	return p, nil
}

// local writes the t leading left singular vectors of the rows ind
// of x, centred on their mean, into columns col … col+t−1 of p, and, when
// coef is not nil and k < D, A = Σ⁻¹Vᵀ (t×k, row-major) into coef; the
// other arguments are work space.
func local(p blas64.General, col, t int, x blas64.General, ind []int, coef, cbuf, sbuf, w, mean []float64) {
	d, k := x.Cols, len(ind)
	clear(coef)
	if k == 0 {
		return
	}
	clear(mean)
	for _, j := range ind {
		for a, v := range x.Data[j*x.Stride : j*x.Stride+d] {
			mean[a] += v
		}
	}
	for a := range mean {
		mean[a] /= float64(k)
	}
	c := blas64.General{Rows: k, Cols: d, Stride: d, Data: cbuf[:k*d]}
	for r, j := range ind {
		row := c.Data[r*d : (r+1)*d]
		for a, v := range x.Data[j*x.Stride : j*x.Stride+d] {
			row[a] = v - mean[a]
		}
	}
	small := min(k, d)
	sym := blas64.Symmetric{N: small, Stride: small, Uplo: blas.Upper, Data: sbuf[:small*small]}
	if d <= k {
		backend.Local().Syrk(blas.Trans, 1, c, 0, sym) // CᵀC, d×d: its eigenvectors are the u
	} else {
		backend.Local().Syrk(blas.NoTrans, 1, c, 0, sym) // CCᵀ, k×k: u = Cᵀv/σ
	}
	w = w[:small]
	if err := backend.Local().Syevd(sym, w, true); err != nil {
		return // finite input: cannot happen; the tangent space stays 0
	}
	top := math.Max(w[small-1], 0)
	for c2 := 0; c2 < t && c2 < small; c2++ {
		e := small - 1 - c2 // eigenvalues ascend
		lam := w[e]
		if lam <= 1e-12*top || lam <= 0 {
			continue
		}
		dst := col + c2
		if d <= k {
			for a := 0; a < d; a++ {
				p.Data[a*p.Stride+dst] = sym.Data[a*small+e]
			}
			continue
		}
		inv := 1 / math.Sqrt(lam)
		if coef != nil {
			for r := 0; r < k; r++ {
				coef[c2*k+r] = sym.Data[r*small+e] * inv
			}
		}
		for a := 0; a < d; a++ {
			s := 0.0
			for r := 0; r < k; r++ {
				s += c.Data[r*d+a] * sym.Data[r*small+e]
			}
			p.Data[a*p.Stride+dst] = s * inv
		}
	}
}

// Anchors returns the n×t matrix of P_iᵀx_i: row i the coordinates of the
// point x_i (row i of x) in its tangent space (columns i·t … i·t+t−1 of
// the p of Spaces), which Distances subtracts.
func Anchors(x, p blas64.General, t int) blas64.General {
	n, d := x.Rows, x.Cols
	a := dense.New(n, t)
	for i := 0; i < n; i++ {
		xi := x.Data[i*x.Stride : i*x.Stride+d]
		for c := 0; c < t; c++ {
			s := 0.0
			for r, v := range xi {
				s += v * p.Data[r*p.Stride+i*t+c]
			}
			a.Data[i*t+c] = s
		}
	}
	return a
}

// SpacesFlam is the local PCA of Spaces (Zhao & Jiang §2.1) at n points
// of d features from k neighbours each, keeping t directions: per point
// the k×k Gram matrix of the centred neighbours (d·k²/2), its full
// eigendecomposition (flam.Syevd(k)) and the map back to t left singular
// vectors (d·k·t).
func SpacesFlam(n, d, k, t int) float64 {
	fd, fk := float64(d), float64(k)
	return float64(n) * (fd*fk*(fk+1)/2 + flam.Syevd(k, true) + fd*fk*float64(t))
}
