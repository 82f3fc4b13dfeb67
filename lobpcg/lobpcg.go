package lobpcg

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/internal/tall"
)

// Problem is what Bottom solves: the smallest eigenpairs of a symmetric
// positive semidefinite B, on the complement of its unit null vector Null
// when one is given.
type Problem struct {
	// Mul sets dst = B·src for n×b blocks, row-major and strided: both
	// may be column views of a wider matrix (Stride > Cols).
	Mul func(ctx context.Context, dst, src blas64.General) error
	// Prec sets dst = T·src (blocks as Mul's), T the symmetric positive
	// definite preconditioner (nil: none, T = I).
	Prec func(ctx context.Context, dst, src blas64.General) error
	// Null, when set, is a unit vector with B·Null = 0: the block and the
	// answer are kept orthogonal to it.
	Null []float64
	// Norm is ‖B‖ or an estimate of it from below (EstimateNorm): the
	// residual tolerance is relative to it.
	Norm float64
	// Want is how many of the leading pairs must converge (at most the
	// block's columns).
	Want int
	// Tol is the residual tolerance relative to Norm (0: DefaultTol).
	Tol float64
	// MaxIter bounds the iterations (0: DefaultMaxIter); a solve that
	// needs more returns an error wrapping ErrNotConverged.
	MaxIter int
	// Progress, when set, is told each iteration's number.
	Progress func(it int)
}

const (
	// DefaultTol is Problem.Tol's default.
	DefaultTol = 1e-9
	// DefaultMaxIter is Problem.MaxIter's default.
	DefaultMaxIter = 20000
	// drop: a direction of [X, W, P] whose scaled Gram eigenvalue is below
	// drop times the largest is dropped as dependent.
	drop = 1e-11
)

var (
	// ErrNotConverged is wrapped by the error of a solve that reached
	// MaxIter (backend.ErrNotConverged, as lanczos reports it).
	ErrNotConverged = backend.ErrNotConverged
	// ErrBreakdown is wrapped by the error of a solve whose basis lost its
	// rank or whose small eigenproblems failed.
	ErrBreakdown = errors.New("lobpcg: breakdown")
	// ErrSettings is wrapped by the error of a Problem or a start that
	// cannot be solved as given.
	ErrSettings = errors.New("lobpcg: invalid settings")
)

// Result is Bottom's answer.
type Result struct {
	// Values are the Want smallest Ritz values, ascending.
	Values []float64
	// Vectors is n×Want, orthonormal (and orthogonal to Null).
	Vectors blas64.General
	// Iterations is the number of iterations run.
	Iterations int
	// Worst is the largest residual ‖B·v − θ·v‖ of the pairs returned,
	// relative to Norm.
	Worst float64
	// Dropped counts the directions dropped as dependent, over all
	// iterations.
	Dropped int
}

// cols is the view of columns [lo, hi) of a.
func cols(a blas64.General, lo, hi int) blas64.General {
	return blas64.General{Rows: a.Rows, Cols: hi - lo, Stride: a.Stride, Data: a.Data[lo:]}
}

// Bottom runs LOBPCG from the n×b block x0 (its columns independent and
// not in span(Null)) until the first Want Ritz pairs have residuals
// ≤ Tol·Norm. Every product sums over rows in a fixed order, so the
// result does not depend on the number of goroutines. Errors wrap
// ErrSettings, ErrNotConverged or ErrBreakdown, or are ctx's.
func Bottom(ctx context.Context, p Problem, x0 blas64.General) (*Result, error) {
	n, b := x0.Rows, x0.Cols
	if p.Mul == nil || p.Want < 1 || p.Want > b || b > n || !(p.Norm > 0) || (p.Null != nil && len(p.Null) != n) {
		return nil, fmt.Errorf("%w: %d×%d start, %d pairs wanted, norm %v, null vector of %d", ErrSettings, n, b, p.Want, p.Norm, len(p.Null))
	}
	tol, maxIter := p.Tol, p.MaxIter
	if tol <= 0 {
		tol = DefaultTol
	}
	if maxIter <= 0 {
		maxIter = DefaultMaxIter
	}
	// buf holds [X W P | BX BW BP], each n×b.
	buf := dense.New(n, 6*b)
	x, w := cols(buf, 0, b), cols(buf, b, 2*b)
	bx, bw := cols(buf, 3*b, 4*b), cols(buf, 4*b, 5*b)
	scratch := dense.New(n, b)
	dense.CopyRows(x, x0)
	ug := blas64.General{Rows: n, Cols: 1, Stride: 1, Data: p.Null}
	deflate := func(y blas64.General) { // y −= u·(uᵀy)
		if p.Null == nil {
			return
		}
		small := dense.New(1, y.Cols)
		tall.TN(ug, y, small)
		tall.NN(-1, ug, small, 1, y)
	}
	deflate(x)
	if err := p.Mul(ctx, bx, x); err != nil {
		return nil, err
	}
	theta := make([]float64, b)
	res := &Result{}
	m := b // the basis' columns: X alone at first, then [X W] and [X W P]
	hasP := false
	for it := 0; ; it++ {
		if it > 0 {
			// Residuals R = BX − X·Θ, in scratch, and their norms.
			rn, xn, err := residuals(ctx, x, bx, theta, scratch) // squared
			if err != nil {
				return nil, err
			}
			res.Worst = 0
			for j := 0; j < p.Want; j++ {
				res.Worst = max(res.Worst, math.Sqrt(rn[j]/xn[j])/p.Norm)
			}
			if res.Worst <= tol {
				break
			}
			if it >= maxIter {
				return nil, fmt.Errorf("%w: residuals %.1e·‖B‖ after %d iterations (want %.0e)", ErrNotConverged, res.Worst, it, tol)
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if p.Progress != nil {
				p.Progress(it)
			}
			if p.Prec == nil {
				dense.CopyRows(w, scratch)
			} else if err := p.Prec(ctx, w, scratch); err != nil {
				return nil, err
			}
			// W ⟂ u (the Rayleigh–Ritz step scales the columns and drops
			// directions left dependent).
			deflate(w)
			if err := p.Mul(ctx, bw, w); err != nil {
				return nil, err
			}
			m = 2 * b
			if hasP {
				m = 3 * b
			}
		}
		// Gram matrices Sᵀ·S and Sᵀ·B·S of the basis S = buf's first m columns.
		s, bs := cols(buf, 0, m), cols(buf, 3*b, 3*b+m)
		gs, hs, err := gramPair(ctx, s, bs)
		if err != nil {
			return nil, err
		}
		coef, vals, dropped, err := rayleighRitz(gs, hs, m, b)
		if err != nil {
			return nil, err
		}
		res.Dropped += dropped
		copy(theta, vals)
		// New X = S·C, BX = BS·C; P = S_{W,P}·C_{W,P}, BP likewise.
		hasP = m > b
		if err := updateBasis(ctx, buf, coef, m, b); err != nil {
			return nil, err
		}
		res.Iterations = it
	}
	// The first want columns, orthogonal to u exactly, unit.
	res.Values = append([]float64(nil), theta[:p.Want]...)
	res.Vectors = dense.New(n, p.Want)
	for i := 0; i < n; i++ {
		copy(res.Vectors.Data[i*p.Want:(i+1)*p.Want], x.Data[i*x.Stride:i*x.Stride+p.Want])
	}
	deflate(res.Vectors)
	tall.UnitColumns(res.Vectors)
	return res, nil
}

// gramPair returns the m×m Sᵀ·S and Sᵀ·T (symmetrized: (Sᵀ·T + Tᵀ·S)/2
// where T = B·S, the two being equal in exact arithmetic) for s and t
// n×m, their upper triangles summed over fixed chunks of rows in chunk
// order (the same result at any GOMAXPROCS). It checks ctx between chunks.
func gramPair(ctx context.Context, s, t blas64.General) (blas64.General, blas64.General, error) {
	n, m := s.Rows, s.Cols
	chunks := (n + tall.Chunk - 1) / tall.Chunk
	size := 2 * m * m
	part := make([]float64, max(1, chunks)*size)
	err := backend.ParallelForCtx(ctx, chunks, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			acc := part[ch*size : (ch+1)*size]
			g, h := acc[:m*m], acc[m*m:]
			for i := ch * tall.Chunk; i < min(n, (ch+1)*tall.Chunk); i++ {
				si := s.Data[i*s.Stride : i*s.Stride+m]
				ti := t.Data[i*t.Stride : i*t.Stride+m]
				for a, sa := range si {
					ga, ha := g[a*m+a:a*m+m], h[a*m:a*m+m]
					for c, v := range si[a:] {
						ga[c] += sa * v
					}
					for c, v := range ti {
						ha[c] += sa * v
					}
				}
			}
		}
	})
	if err != nil {
		return blas64.General{}, blas64.General{}, err
	}
	gs, hs := dense.New(m, m), dense.New(m, m)
	for ch := 0; ch < chunks; ch++ {
		acc := part[ch*size : (ch+1)*size]
		for k, v := range acc[:m*m] {
			gs.Data[k] += v
		}
		for k, v := range acc[m*m:] {
			hs.Data[k] += v
		}
	}
	for a := 0; a < m; a++ {
		for c := a + 1; c < m; c++ {
			gs.Data[c*m+a] = gs.Data[a*m+c]
			v := 0.5 * (hs.Data[a*m+c] + hs.Data[c*m+a])
			hs.Data[a*m+c], hs.Data[c*m+a] = v, v
		}
	}
	return gs, hs, nil
}

// residuals sets r = bx − x·diag(theta) (n×b) and returns the squared
// column norms of r and of x, summed over fixed chunks of rows in chunk
// order. It checks ctx between chunks.
func residuals(ctx context.Context, x, bx blas64.General, theta []float64, r blas64.General) ([]float64, []float64, error) {
	n, b := x.Rows, x.Cols
	chunks := (n + tall.Chunk - 1) / tall.Chunk
	part := make([]float64, max(1, chunks)*2*b)
	err := backend.ParallelForCtx(ctx, chunks, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			acc := part[ch*2*b : (ch+1)*2*b]
			for i := ch * tall.Chunk; i < min(n, (ch+1)*tall.Chunk); i++ {
				xi := x.Data[i*x.Stride : i*x.Stride+b]
				bi := bx.Data[i*bx.Stride : i*bx.Stride+b]
				ri := r.Data[i*r.Stride : i*r.Stride+b]
				for j, v := range xi {
					d := bi[j] - theta[j]*v
					ri[j] = d
					acc[j] += d * d
					acc[b+j] += v * v
				}
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	rn, xn := make([]float64, b), make([]float64, b)
	for ch := 0; ch < chunks; ch++ {
		for j := 0; j < b; j++ {
			rn[j] += part[ch*2*b+j]
			xn[j] += part[ch*2*b+b+j]
		}
	}
	return rn, xn, nil
}

// updateBasis replaces, row by row in place, X and P of buf = [X W P |
// BX BW BP] (n×6b, the basis S its first m columns) by X = S·C and
// P = S_{W,P}·C_{W,P}, and BX, BP likewise, for the m×b coefficients
// coef (row-major): P's sum is X's over the rows of C past b, so each is
// computed once. It checks ctx between blocks of rows (cancelled, buf
// holds a partial update).
func updateBasis(ctx context.Context, buf blas64.General, coef []float64, m, b int) error {
	return backend.ParallelForCtx(ctx, buf.Rows, 2048, func(lo, hi int) {
		var nx, np [2][]float64
		for h := range 2 {
			nx[h], np[h] = make([]float64, b), make([]float64, b)
		}
		for i := lo; i < hi; i++ {
			row := buf.Data[i*buf.Stride : i*buf.Stride+6*b]
			for h, off := range [2]int{0, 3 * b} { // S, then B·S
				sr := row[off : off+m]
				x, p := nx[h], np[h]
				clear(p)
				for a := b; a < m; a++ {
					sa := sr[a]
					for k, v := range coef[a*b : (a+1)*b] {
						p[k] += sa * v
					}
				}
				copy(x, p)
				for a := 0; a < b; a++ {
					sa := sr[a]
					for k, v := range coef[a*b : (a+1)*b] {
						x[k] += sa * v
					}
				}
			}
			copy(row[0:b], nx[0])
			copy(row[3*b:4*b], nx[1])
			if m > b {
				copy(row[2*b:3*b], np[0])
				copy(row[5*b:6*b], np[1])
			}
		}
	})
}

// rayleighRitz, by SVQB, takes the m×m Sᵀ·S g and Sᵀ·B·S hb, both symmetric,
// and returns the m×b coefficients (row-major) of the b smallest Ritz
// vectors S·C, their Ritz values, and the number of directions of S
// dropped as dependent.
func rayleighRitz(g, hb blas64.General, m, b int) ([]float64, []float64, int, error) {
	d := make([]float64, m)
	for i := range d {
		if v := g.Data[i*g.Stride+i]; v > 0 {
			d[i] = 1 / math.Sqrt(v)
		}
	}
	gs := make([]float64, m*m) // D·G·D
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			gs[i*m+j] = d[i] * g.Data[i*g.Stride+j] * d[j]
		}
	}
	lam := make([]float64, m)
	if err := backend.Local().Syevd(blas64.Symmetric{N: m, Stride: m, Uplo: blas.Upper, Data: gs}, lam, true); err != nil {
		return nil, nil, 0, fmt.Errorf("%w: the Gram matrix: %w", ErrBreakdown, err)
	}
	top := lam[m-1]
	var keep []int
	for j, v := range lam {
		if v > drop*top {
			keep = append(keep, j)
		}
	}
	r := len(keep)
	if r < b {
		return nil, nil, 0, fmt.Errorf("%w: the basis lost its rank (%d of %d directions left, %d wanted)", ErrBreakdown, r, m, b)
	}
	q := make([]float64, m*r) // D·V·Λ^{-1/2}
	for k, j := range keep {
		s := 1 / math.Sqrt(lam[j])
		for i := 0; i < m; i++ {
			q[i*r+k] = d[i] * gs[i*m+j] * s
		}
	}
	h := make([]float64, r*r) // Qᵀ·(Sᵀ·B·S)·Q
	qm := blas64.General{Rows: m, Cols: r, Stride: r, Data: q}
	t := dense.New(m, r)
	backend.Local().Gemm(blas.NoTrans, blas.NoTrans, 1, hb, qm, 0, t)
	backend.Local().Gemm(blas.Trans, blas.NoTrans, 1, qm, t, 0, blas64.General{Rows: r, Cols: r, Stride: r, Data: h})
	vals := make([]float64, r)
	if err := backend.Local().Syevd(blas64.Symmetric{N: r, Stride: r, Uplo: blas.Upper, Data: h}, vals, true); err != nil {
		return nil, nil, 0, fmt.Errorf("%w: the Rayleigh–Ritz step: %w", ErrBreakdown, err)
	}
	coef := make([]float64, m*b) // Q·H's first b eigenvectors
	backend.Local().Gemm(blas.NoTrans, blas.NoTrans, 1, qm, blas64.General{Rows: r, Cols: b, Stride: r, Data: h},
		0, blas64.General{Rows: m, Cols: b, Stride: b, Data: coef})
	return coef, vals[:b], m - r, nil
}

// EstimateNorm estimates ‖B‖ of the n×n symmetric positive semidefinite B
// (mul sets dst = B·src) by 30 steps of the power method from a fixed
// vector that is not constant (B·1 = 0 for a Laplacian): a lower bound,
// so a tolerance relative to it is not looser than one relative to ‖B‖.
// Errors wrap ErrBreakdown (B is zero on the vectors met) or are mul's.
func EstimateNorm(ctx context.Context, mul func(ctx context.Context, dst, src blas64.General) error, n int) (float64, error) {
	v, mv := dense.New(n, 1), dense.New(n, 1)
	for i := range v.Data {
		v.Data[i] = math.Sin(float64(i) + 1) // not constant: B·1 = 0
	}
	lam := 0.0
	for range 30 {
		nn := math.Sqrt(tall.ColumnNorms(v)[0])
		if nn == 0 {
			return 0, fmt.Errorf("%w: the matrix is zero", ErrBreakdown)
		}
		tall.ScaleColumns(v, []float64{1 / nn})
		if err := mul(ctx, mv, v); err != nil {
			return 0, err
		}
		lam = 0
		for i, x := range v.Data {
			lam += x * mv.Data[i]
		}
		v, mv = mv, v
	}
	if !(lam > 0) {
		return 0, fmt.Errorf("%w: the matrix is zero", ErrBreakdown)
	}
	return lam, nil
}
