package engine

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/sparse"
)

// LLE's and LTSA's bottom eigenvectors without a factor (EigenLOBPCG):
// LOBPCG (Knyazev, "Toward the optimal preconditioned eigensolver: locally
// optimal block preconditioned conjugate gradient method", SIAM J. Sci.
// Comput. 23(2), 2001) on LLE's M = (I − W)ᵀ(I − W), applied as products
// with W and Wᵀ, never formed, or on LTSA's formed alignment matrix B, in
// reverse Cuthill–McKee order (sparse.LocalOrderOf), started from the
// locally linear landmarks' solution and preconditioned by their coarse
// space (Vladymyrov & Carreira-Perpiñán, ECML PKDD 2013): with Z the N×L
// landmark weights and D = diag(M),
//
//	T = Z·(Zᵀ·M·Z)⁺·Zᵀ + D⁻¹,
//
// an additive two-level preconditioner: the coarse term handles the
// smooth functions the landmarks span, Jacobi the rest. The Rayleigh–Ritz
// step of each iteration works in an orthonormal basis of [X, W, P] from
// the eigenvectors of its scaled Gram matrix (SVQB: Stathopoulos & Wu,
// "A block orthogonalization procedure with constant synchronization
// requirements", SIAM J. Sci. Comput. 23(6), 2002), dropping directions
// that have become dependent. Nothing certifies that no eigenvalue was
// missed; the residuals are checked (≤ lobpcgTol·‖M‖).
//
// On deformed digits, whose bottom eigenvalues of M lie 2.9e-6·‖M‖ apart
// at 20,000 rows and 2.5e-7·‖M‖ at 100,000 (bench/scale/llespectrum), so
// that Lanczos on M alone does not converge, this reaches 1e-9·‖M‖ in 248
// and 692 iterations (scipy's lobpcg with the same start and
// preconditioner: 247 and 694; without the preconditioner 572 and 1546).
const (
	// lobpcgTol is the residual tolerance relative to ‖M‖.
	lobpcgTol = 1e-9
	// lobpcgMaxIter bounds the iterations; a fit that needs more returns
	// ErrNumerical.
	lobpcgMaxIter = 20000
	// lobpcgExtra is the block's columns beyond Dim: more make each
	// iteration dearer (Rayleigh–Ritz on 3·block columns) and the
	// iterations fewer (dim + 4: 694 at 100,000 digits; dim + 2: 1166).
	lobpcgExtra = 4
	// lobpcgDrop: a direction of [X, W, P] whose scaled Gram eigenvalue
	// is below lobpcgDrop times the largest is dropped.
	lobpcgDrop = 1e-11
)

// lobpcgLandmarks is the coarse space's size (a variable only so that the
// race run's tests can shrink it: SetLOBPCGLandmarks).
var lobpcgLandmarks = 1000

// lleOperator is M = AᵀA, A = I − W, as products with W and Wᵀ.
type lleOperator struct {
	w, wt *sparse.CSR
	tmp   blas64.General // n×b scratch
}

// mul sets dst = M·src (n×b blocks).
func (op *lleOperator) mul(ctx context.Context, dst, src blas64.General) error {
	t := op.tmp
	t.Cols = src.Cols
	if err := op.w.MulBlockCtx(ctx, t, src); err != nil { // W·x
		return err
	}
	b := src.Cols
	backend.ParallelFor(src.Rows, 4096, func(lo, hi int) { // y = x − W·x
		for i := lo; i < hi; i++ {
			ti := t.Data[i*t.Stride : i*t.Stride+b]
			for j, v := range src.Data[i*src.Stride : i*src.Stride+b] {
				ti[j] = v - ti[j]
			}
		}
	})
	if err := op.wt.MulBlockCtx(ctx, dst, t); err != nil { // Wᵀ·y
		return err
	}
	backend.ParallelFor(src.Rows, 4096, func(lo, hi int) { // y − Wᵀ·y
		for i := lo; i < hi; i++ {
			di := dst.Data[i*dst.Stride : i*dst.Stride+b]
			for j, v := range t.Data[i*t.Stride : i*t.Stride+b] {
				di[j] = v - di[j]
			}
		}
	})
	return nil
}

// diagonal returns diag(M): 1 + Σᵢ W_ij² for column j (W has no diagonal).
func (op *lleOperator) diagonal(n int) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = 1
	}
	ind, val := op.w.ColIdx(), op.w.Values()
	for p, j := range ind {
		d[j] += val[p] * val[p]
	}
	return d
}

// twoLevel is the preconditioner T = Z·(Zᵀ·M·Z)⁺·Zᵀ + D⁻¹.
type twoLevel struct {
	z, zt  *sparse.CSR
	coarse blas64.General // (Zᵀ·M·Z)⁺, L×L
	dinv   []float64
	c1, c2 blas64.General // L×b scratch
}

// newTwoLevel makes the preconditioner from Z, Zᵀ·M·Z (both triangles;
// destroyed) and diag(M).
func newTwoLevel(ctx context.Context, z *sparse.CSR, am blas64.General, d []float64, b int) (*twoLevel, error) {
	l := am.Rows
	coarse, err := coarseInverse(ctx, am)
	if err != nil {
		return nil, err
	}
	t := &twoLevel{z: z, zt: z.Transpose(), coarse: coarse, dinv: make([]float64, len(d)), c1: newGeneral(l, b), c2: newGeneral(l, b)}
	for i, x := range d {
		if x > 0 { // M_ii = 0: row i of the positive semidefinite M is zero
			t.dinv[i] = 1 / x
		}
	}
	return t, nil
}

// coarseCond bounds the 1-norm condition number of Zᵀ·M·Z + s·e·eᵀ up to
// which coarseInverse takes its inverse from the Cholesky factor: its
// eigenvalues are then at least 1e-9 of its largest (κ₂ ≤ κ₁ for a
// symmetric matrix), none that the pseudo-inverse would drop.
const coarseCond = 1e9

// coarseInverse returns the pseudo-inverse of the L×L positive
// semidefinite A = Zᵀ·M·Z (both triangles; destroyed), whose null space
// holds e = 1/√L (Z·1 = 1, M·1 = 0). First by Cholesky: with s = tr(A)/L,
// (A + s·e·eᵀ)⁻¹ = A⁺ + e·eᵀ/s where A·e = 0 and its other eigenvalues are
// not null (the 1-norm condition number at most coarseCond), L³ flam;
// otherwise (more null vectors: LTSA's B on data in clusters) from the
// eigendecomposition, dropping eigenvalues at most 1e-12 of the largest,
// about 9·L³.
func coarseInverse(ctx context.Context, am blas64.General) (blas64.General, error) {
	l := am.Rows
	tr := 0.0
	for i := 0; i < l; i++ {
		tr += am.Data[i*am.Stride+i]
	}
	if s := tr / float64(l); s > 0 {
		a := newGeneral(l, l)
		for i := 0; i < l; i++ {
			for j, v := range am.Data[i*am.Stride : i*am.Stride+l] {
				a.Data[i*l+j] = v + s/float64(l)
			}
		}
		norm := norm1(a)
		err := cholUpper(ctx, a)
		if ctx.Err() != nil {
			return blas64.General{}, ctx.Err()
		}
		if err == nil {
			c := newGeneral(l, l) // R⁻¹, then R⁻¹·R⁻ᵀ
			for i := 0; i < l; i++ {
				c.Data[i*l+i] = 1
			}
			r := blas64.Triangular{N: l, Stride: l, Uplo: blas.Upper, Diag: blas.NonUnit, Data: a.Data}
			if err := rightSolve(ctx, c, r); err != nil {
				return blas64.General{}, err
			}
			inv := newGeneral(l, l)
			if err := backend.GemmCtx(ctx, backend.Active(), blas.NoTrans, blas.Trans, 1, c, c, 0, inv); err != nil {
				return blas64.General{}, err
			}
			if norm*norm1(inv) <= coarseCond {
				for i := range inv.Data {
					inv.Data[i] -= 1 / (s * float64(l))
				}
				return inv, nil
			}
		}
	}
	w := make([]float64, l)
	sym := blas64.Symmetric{N: l, Stride: am.Stride, Uplo: blas.Upper, Data: am.Data}
	if err := backend.Active().Syevd(sym, w, true); err != nil {
		return blas64.General{}, fmt.Errorf("%w: the coarse matrix Zᵀ·M·Z: %w", ErrNumerical, err)
	}
	top := max(math.Abs(w[0]), math.Abs(w[l-1]))
	v := newGeneral(l, l) // V·Λ^{-1/2} over the kept eigenvalues
	for j, lam := range w {
		if lam <= 1e-12*top {
			continue
		}
		s := 1 / math.Sqrt(lam)
		for i := 0; i < l; i++ {
			v.Data[i*l+j] = am.Data[i*am.Stride+j] * s
		}
	}
	inv := newGeneral(l, l)
	backend.Active().Gemm(blas.NoTrans, blas.Trans, 1, v, v, 0, inv)
	return inv, nil
}

// norm1 returns the largest column sum of |a|.
func norm1(a blas64.General) float64 {
	sums := make([]float64, a.Cols)
	for i := 0; i < a.Rows; i++ {
		for j, v := range a.Data[i*a.Stride : i*a.Stride+a.Cols] {
			sums[j] += math.Abs(v)
		}
	}
	return slices.Max(sums)
}

// apply sets dst = T·src.
func (t *twoLevel) apply(ctx context.Context, dst, src blas64.General) error {
	b := src.Cols
	c1, c2 := t.c1, t.c2
	c1.Cols, c2.Cols = b, b
	if err := t.zt.MulBlockCtx(ctx, c1, src); err != nil {
		return err
	}
	backend.Active().Gemm(blas.NoTrans, blas.NoTrans, 1, t.coarse, c1, 0, c2)
	if err := t.z.MulBlockCtx(ctx, dst, c2); err != nil {
		return err
	}
	backend.ParallelFor(src.Rows, 4096, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			di := dst.Data[i*dst.Stride : i*dst.Stride+b]
			for j, v := range src.Data[i*src.Stride : i*src.Stride+b] {
				di[j] += t.dinv[i] * v
			}
		}
	})
	return nil
}

// lobpcgProblem is what lobpcgBottom solves: the smallest eigenpairs of
// the positive semidefinite B on the complement of its unit null vector u.
type lobpcgProblem struct {
	mul  func(ctx context.Context, dst, src blas64.General) error // B·src
	prec func(ctx context.Context, dst, src blas64.General) error // T·src
	u    []float64
	norm float64 // ‖B‖, for the tolerance
	want int     // the leading pairs that must converge
	// progress, when set, is told each iteration's number.
	progress func(it int)
}

// lobpcgResult is lobpcgBottom's answer.
type lobpcgResult struct {
	vals       []float64      // want eigenvalues, ascending
	vecs       blas64.General // n×want, orthonormal, orthogonal to u
	iterations int
	worst      float64 // the largest residual of the pairs returned, relative to norm
	dropped    int     // directions dropped as dependent, over all iterations
}

// cols is the view of columns [lo, hi) of a.
func cols(a blas64.General, lo, hi int) blas64.General {
	return blas64.General{Rows: a.Rows, Cols: hi - lo, Stride: a.Stride, Data: a.Data[lo:]}
}

// lobpcgBottom runs LOBPCG from the n×b block x0 (its columns independent
// and not in span(u)) until the first want Ritz pairs have residuals
// ≤ lobpcgTol·norm. Every product sums over rows in a fixed order, so the
// result does not depend on the number of goroutines.
func lobpcgBottom(ctx context.Context, p lobpcgProblem, x0 blas64.General) (*lobpcgResult, error) {
	n, b := x0.Rows, x0.Cols
	// buf holds [X W P | BX BW BP], each n×b.
	buf := newGeneral(n, 6*b)
	x, w := cols(buf, 0, b), cols(buf, b, 2*b)
	bx, bw := cols(buf, 3*b, 4*b), cols(buf, 4*b, 5*b)
	scratch := newGeneral(n, b)
	for i := 0; i < n; i++ {
		copy(x.Data[i*x.Stride:i*x.Stride+b], x0.Data[i*x0.Stride:i*x0.Stride+b])
	}
	ug := blas64.General{Rows: n, Cols: 1, Stride: 1, Data: p.u}
	deflate := func(y blas64.General) { // y −= u·(uᵀy)
		small := newGeneral(1, y.Cols)
		tallTN(ug, y, small)
		tallNN(-1, ug, small, 1, y)
	}
	deflate(x)
	if err := p.mul(ctx, bx, x); err != nil {
		return nil, err
	}
	theta := make([]float64, b)
	res := &lobpcgResult{}
	m := b // the basis' columns: X alone at first, then [X W] and [X W P]
	hasP := false
	for it := 0; ; it++ {
		if it > 0 {
			// Residuals R = BX − X·Θ, in scratch, and their norms.
			rn, xn, err := residuals(ctx, x, bx, theta, scratch) // squared
			if err != nil {
				return nil, err
			}
			res.worst = 0
			for j := 0; j < p.want; j++ {
				res.worst = max(res.worst, math.Sqrt(rn[j]/xn[j])/p.norm)
			}
			if res.worst <= lobpcgTol {
				break
			}
			if it >= lobpcgMaxIter {
				return nil, fmt.Errorf("%w: LOBPCG: residuals %.1e·‖M‖ after %d iterations (want %.0e)", ErrNumerical, res.worst, it, lobpcgTol)
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if p.progress != nil {
				p.progress(it)
			}
			if err := p.prec(ctx, w, scratch); err != nil {
				return nil, err
			}
			// W ⟂ u (the Rayleigh–Ritz step scales the columns and drops
			// directions left dependent).
			deflate(w)
			if err := p.mul(ctx, bw, w); err != nil {
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
		coef, vals, dropped, err := rayleighRitzSVQB(gs, hs, m, b)
		if err != nil {
			return nil, err
		}
		res.dropped += dropped
		copy(theta, vals)
		// New X = S·C, BX = BS·C; P = S_{W,P}·C_{W,P}, BP likewise.
		hasP = m > b
		if err := updateBasis(ctx, buf, coef, m, b); err != nil {
			return nil, err
		}
		res.iterations = it
	}
	// The first want columns, orthogonal to u exactly, unit.
	res.vals = append([]float64(nil), theta[:p.want]...)
	res.vecs = newGeneral(n, p.want)
	for i := 0; i < n; i++ {
		copy(res.vecs.Data[i*p.want:(i+1)*p.want], x.Data[i*x.Stride:i*x.Stride+p.want])
	}
	deflate(res.vecs)
	scaleColumnsToUnit(res.vecs)
	return res, nil
}

// scaleColumnsToUnit scales each nonzero column of a to unit norm.
func scaleColumnsToUnit(a blas64.General) {
	norms := columnNorms(a)
	for j, v := range norms {
		if v > 0 {
			norms[j] = 1 / math.Sqrt(v)
		}
	}
	scaleColumns(a, norms)
}

// gramPair returns the m×m Sᵀ·S and Sᵀ·T (symmetrized: (Sᵀ·T + Tᵀ·S)/2
// where T = B·S, the two being equal in exact arithmetic) for s and t
// n×m, their upper triangles summed over fixed chunks of rows in chunk
// order (the same result at any GOMAXPROCS). It checks ctx between chunks.
func gramPair(ctx context.Context, s, t blas64.General) (blas64.General, blas64.General, error) {
	n, m := s.Rows, s.Cols
	chunks := (n + tallChunk - 1) / tallChunk
	size := 2 * m * m
	part := make([]float64, max(1, chunks)*size)
	err := backend.ParallelForCtx(ctx, chunks, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			acc := part[ch*size : (ch+1)*size]
			g, h := acc[:m*m], acc[m*m:]
			for i := ch * tallChunk; i < min(n, (ch+1)*tallChunk); i++ {
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
	gs, hs := newGeneral(m, m), newGeneral(m, m)
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
	chunks := (n + tallChunk - 1) / tallChunk
	part := make([]float64, max(1, chunks)*2*b)
	err := backend.ParallelForCtx(ctx, chunks, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			acc := part[ch*2*b : (ch+1)*2*b]
			for i := ch * tallChunk; i < min(n, (ch+1)*tallChunk); i++ {
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

// rayleighRitzSVQB takes the m×m Sᵀ·S g and Sᵀ·B·S hb, both symmetric,
// and returns the m×b coefficients (row-major) of the b smallest Ritz
// vectors S·C, their Ritz values, and the number of directions of S
// dropped as dependent.
func rayleighRitzSVQB(g, hb blas64.General, m, b int) ([]float64, []float64, int, error) {
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
		return nil, nil, 0, fmt.Errorf("%w: LOBPCG's Gram matrix: %w", ErrNumerical, err)
	}
	top := lam[m-1]
	var keep []int
	for j, v := range lam {
		if v > lobpcgDrop*top {
			keep = append(keep, j)
		}
	}
	r := len(keep)
	if r < b {
		return nil, nil, 0, fmt.Errorf("%w: LOBPCG's basis lost its rank (%d of %d directions left, %d wanted)", ErrNumerical, r, m, b)
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
	t := newGeneral(m, r)
	backend.Local().Gemm(blas.NoTrans, blas.NoTrans, 1, hb, qm, 0, t)
	backend.Local().Gemm(blas.Trans, blas.NoTrans, 1, qm, t, 0, blas64.General{Rows: r, Cols: r, Stride: r, Data: h})
	vals := make([]float64, r)
	if err := backend.Local().Syevd(blas64.Symmetric{N: r, Stride: r, Uplo: blas.Upper, Data: h}, vals, true); err != nil {
		return nil, nil, 0, fmt.Errorf("%w: LOBPCG's Rayleigh–Ritz step: %w", ErrNumerical, err)
	}
	coef := make([]float64, m*b) // Q·H's first b eigenvectors
	backend.Local().Gemm(blas.NoTrans, blas.NoTrans, 1, qm, blas64.General{Rows: r, Cols: b, Stride: r, Data: h},
		0, blas64.General{Rows: m, Cols: b, Stride: b, Data: coef})
	return coef, vals[:b], m - r, nil
}

// lobpcgOperator is the matrix LOBPCG works on, in the local order.
type lobpcgOperator interface {
	// mul sets dst = B·src (n×b blocks).
	mul(ctx context.Context, dst, src blas64.General) error
	// diagonal returns diag(B).
	diagonal(n int) []float64
}

// csrOperator is a formed sparse symmetric matrix (LTSA's alignment
// matrix).
type csrOperator struct{ b *sparse.CSR }

func (op csrOperator) mul(ctx context.Context, dst, src blas64.General) error {
	return op.b.MulBlockCtx(ctx, dst, src)
}

func (op csrOperator) diagonal(n int) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = op.b.At(i, i)
	}
	return d
}

// lobpcgSetup is what landmarkLOBPCG needs of a method's matrix B, whose
// null space holds the constant vector.
type lobpcgSetup struct {
	what   string // "the matrix M = (I−W)ᵀ(I−W)", for the stage detail
	name   string // the matrix's letter in it ("M")
	coarse coarseSpace
	// pattern returns a symmetric matrix with B's pattern, for the local
	// order (sparse.LocalOrderOf).
	pattern func(ctx context.Context) (*sparse.CSR, error)
	// operator returns B in the order perm (its row k is B's row perm[k])
	// with scratch for blocks of b columns.
	operator func(ctx context.Context, perm []int, b int) (lobpcgOperator, error)
	// mulPerRow is the flam of a product with B, a row and a column.
	mulPerRow int
}

// landmarkLOBPCG runs the stages "landmarks", "reduce" (those of
// LandmarkLLE, with ls's settings) and "eigensolve" of EigenLOBPCG on the
// rows g: the dim bottom eigenpairs of p's matrix on the complement of
// the constant.
func landmarkLOBPCG(r *run, g blas64.General, ls LandmarkLLE, dim int, p lobpcgSetup) (*bottomResult, error) {
	n := g.Rows
	lm := &LandmarkLLEModel{base: newBase(methodLandmarkLLE, landmarkLLEParams{K: ls.K, LandmarkK: ls.LandmarkK, Reg: ls.Reg, Choice: ls.Choice})}
	z, am, bm, err := ls.reduced(r, g, p.coarse, lm)
	if err != nil {
		return nil, err
	}
	p.coarse = coarseSpace{} // what it holds (LTSA: B) is the operator's to free
	l := len(lm.landmarks)
	b := min(dim+lobpcgExtra, l-1, n-1)
	var out *bottomResult
	// An iteration: a product with B, the preconditioner, the Gram
	// matrices of [X W P] with [X W P BX BW BP] (18·b² a row) and the
	// updates (12·b²); predicted for 500 iterations, then for those run.
	perIter := float64(n) * float64(p.mulPerRow+2*ls.LandmarkK+30*b+2) * float64(b)
	err = r.stage("eigensolve", flam.Syevd(l, true)+500*perIter, func(ctx context.Context, st *stageCtx) error {
		// Work in a local order: in the data's order every entry of a
		// product misses the cache.
		pattern, err := p.pattern(ctx)
		if err != nil {
			return err
		}
		perm, err := sparse.LocalOrderOf(ctx, pattern)
		if err != nil {
			return err
		}
		pattern = nil
		op, err := p.operator(ctx, perm, b)
		if err != nil {
			return err
		}
		zp, err := z.RowsPermuted(perm)
		if err != nil {
			return err
		}
		norm, err := operatorNorm(ctx, op, n)
		if err != nil {
			return err
		}
		// The start: the reduced problem's b bottom pairs, Y = Z·Ỹ.
		amc, bmc := newGeneral(l, l), newGeneral(l, l)
		copy(amc.Data, am.Data)
		copy(bmc.Data, bm.Data)
		start, err := generalizedBottom(ctx, amc, bmc, b)
		if err != nil {
			return err
		}
		x0 := newGeneral(n, b)
		if err := zp.MulBlockCtx(ctx, x0, start.vecs); err != nil {
			return err
		}
		mirrorUpper(am)
		pre, err := newTwoLevel(ctx, zp, am, op.diagonal(n), b)
		if err != nil {
			return err
		}
		res, err := lobpcgBottom(ctx, lobpcgProblem{mul: op.mul, prec: pre.apply, u: unitConstant(n), norm: norm, want: dim,
			progress: func(it int) { st.progress(int64(it), 0) }}, x0)
		if err != nil {
			return err
		}
		out = &bottomResult{vals: res.vals, vecs: newGeneral(n, dim), nullity: 1}
		for k, v := range perm { // back to the rows' order
			copy(out.vecs.Data[v*dim:(v+1)*dim], res.vecs.Data[k*dim:(k+1)*dim])
		}
		for _, v := range res.vals {
			if v <= nullRel*norm {
				out.nullity++
			}
		}
		out.nullAtLeast = out.nullity == dim+1
		st.iterations = res.iterations
		st.predicted = flam.Syevd(l, true) + float64(res.iterations+1)*perIter
		st.detail = fmt.Sprintf("lobpcg on %s (eigensolver %s), not certified: block %d, %d iterations, "+
			"started from and preconditioned by %d locally linear landmarks, residuals ≤ %.1e·‖%s‖", p.what, EigenLOBPCG, b, res.iterations, l, res.worst, p.name)
		if res.dropped > 0 {
			st.detail += fmt.Sprintf(", %d dependent directions dropped", res.dropped)
		}
		st.detail += out.note(dim)
		return nil
	})
	if err != nil {
		return nil, err
	}
	backend.FixSigns(out.vecs)
	return out, nil
}

// lleLOBPCG is LLE's EigenLOBPCG on the rows g and the reconstruction
// weights w: M applied as products with W and Wᵀ (never formed).
func lleLOBPCG(r *run, g blas64.General, w *sparse.CSR, s LLE) (*bottomResult, error) {
	n := g.Rows
	ls := s.landmarks(n)
	return landmarkLOBPCG(r, g, ls, s.Dim, lobpcgSetup{
		what:      "the matrix M = (I−W)ᵀ(I−W)",
		name:      "M",
		coarse:    lleCoarse(w, ls.K, ls.LandmarkK),
		mulPerRow: 4 * w.NNZ() / n,
		pattern: func(ctx context.Context) (*sparse.CSR, error) {
			return sparse.Symmetrized(ctx, w, true, func(x, _ float64) float64 { return x })
		},
		operator: func(ctx context.Context, perm []int, b int) (lobpcgOperator, error) {
			wp, err := w.Permuted(ctx, perm)
			if err != nil {
				return nil, err
			}
			return &lleOperator{w: wp, wt: wp.Transpose(), tmp: newGeneral(n, b)}, nil
		},
	})
}

// landmarks is the locally linear landmarks' fit whose reduced problem
// starts and preconditions LLE's LOBPCG.
func (s LLE) landmarks(n int) LandmarkLLE {
	return LandmarkLLE{Dim: s.Dim, K: s.K, Reg: s.Reg, Landmarks: min(n, lobpcgLandmarks), Seed: s.Seed,
		Options: Options{Neighbors: s.Neighbors}}.resolved(n)
}

// operatorNorm estimates ‖B‖ by 30 steps of the power method from a
// fixed vector (a lower bound, so a tolerance relative to it is not looser
// than one relative to ‖B‖).
func operatorNorm(ctx context.Context, op lobpcgOperator, n int) (float64, error) {
	v, mv := newGeneral(n, 1), newGeneral(n, 1)
	for i := range v.Data {
		v.Data[i] = math.Sin(float64(i) + 1) // not constant: B·1 = 0
	}
	lam := 0.0
	for range 30 {
		nn := math.Sqrt(columnNorms(v)[0])
		if nn == 0 {
			return 0, fmt.Errorf("%w: the matrix is zero", ErrNumerical)
		}
		scaleColumns(v, []float64{1 / nn})
		if err := op.mul(ctx, mv, v); err != nil {
			return 0, err
		}
		lam = 0
		for i, x := range v.Data {
			lam += x * mv.Data[i]
		}
		v, mv = mv, v
	}
	if !(lam > 0) {
		return 0, fmt.Errorf("%w: the matrix is zero", ErrNumerical)
	}
	return lam, nil
}
