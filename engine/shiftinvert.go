package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/pprof"
	"slices"
	"sort"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/internal/tall"
	"github.com/manifoldlab/manifold/lanczos"
	"github.com/manifoldlab/manifold/sparse"
)

// Certified bottom eigenpairs of a sparse positive semidefinite matrix B
// (LLE's M, LTSA's alignment matrix, the normalized graph Laplacian) with a
// known null vector u (B·u = 0: the constant vector, or D^{1/2}·1 for the
// normalized Laplacian), the embedding being the Dim eigenvectors of the
// smallest eigenvalues of B on the complement of u.
//
// Shift-invert Lanczos with locking (Ericsson & Ruhe, "The spectral
// transformation Lánczos method for the numerical solution of large sparse
// generalized symmetric eigenvalue problems", Math. Comp. 35(152), 1980;
// Saad, "Numerical Methods for Large Eigenvalue Problems", 2nd ed., SIAM
// 2011, §4.2.3 locking, §8.1 shift-and-invert): S = (B + ε·I)⁻¹ through a
// sparse LDLᵀ factor with a fill-reducing ordering (sparse.AnalyzeLDL),
// applied to P·S·P with P the projector on the complement of u and of
// every locked vector. Each round runs block Lanczos on the deflated
// operator, a Rayleigh–Ritz step with B itself on the Lanczos vectors and
// up to three steps of subspace iteration with S when needed, and locks
// every Ritz pair whose residual meets ‖B·v − θ·v‖ ≤ certLockRel·‖B‖ —
// the eigenvalues themselves, not the tolerance relative to ‖S‖ ≈ 1/ε a
// Lanczos run on S applies. Locked vectors leave the operator, so the next
// round's Lanczos works relative to the largest remaining 1/(λ + ε): the
// copies of a repeated eigenvalue (a null space of dimension 24) are found
// one round, or one block, after another.
//
// The certificate (Sylvester's law of inertia; Parlett, "The Symmetric
// Eigenvalue Problem", §3.3): with θ_Dim the largest eigenvalue returned
// and σ slightly above it, the number of negative pivots of the LDLᵀ of
// B − σ·I is the number of eigenvalues of B below σ; it must equal the
// number of locked pairs below σ (u included). When it is larger an
// eigenvalue was missed, and the rounds go on for it. When θ_Dim is null
// (at most nullRel·‖B‖) the inertia at that threshold certifies instead:
// more than Dim eigenvalues below it make the wanted ones all null, any
// basis of the null space being the embedding. A fit that cannot
// certify within certMaxRounds rounds returns ErrNumerical. The first
// certificate's factorization starts during the first round, at σ from
// the Ritz values (speculation), and runs beside its remaining solves.
//
// A factor that would not fit the budget or cost more than maxFactorFlam
// is not made: the analysis refuses an ordering whose factor passes the
// bound (sparse.AnalyzeLDLWithin), and the fit, which cannot certify,
// returns ErrNumerical saying why. Asked for (EigenUncertified),
// operatorBottom runs Lanczos on B alone, with no factor and no
// certificate.
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
	// nullRel: eigenvalues at most nullRel·‖B‖ count in the null space.
	// Rounding leaves null eigenvalues near 1e-16·‖B‖; the smallest
	// genuine ones of LLE and LTSA on 2000-point swiss rolls are 5e-11·‖B‖
	// and 7e-10·‖B‖, of LLE on 50,000 points about 1e-13·‖B‖ (they fall
	// like 1/N²: on millions of points they reach the rounding level, and
	// the report calls them null, rightly: they are then not determined).
	nullRel = 1e-14
	// certMaxGrowth bounds the growth factor of an LDLᵀ of B − σ·I whose
	// inertia is trusted (B − σ·I is indefinite: its pivots are not
	// bounded).
	certMaxGrowth = 1e6
	// certMaxRounds bounds the lock-and-certify rounds.
	certMaxRounds = 12
	// certExtra: eigenpairs beyond those wanted that the dense path
	// computes, and room for as many more locked vectors.
	certExtra = 2
	// operatorTol is the residual tolerance of operatorBottom relative to
	// ‖B‖, and operatorRestarts bounds its thick restarts (the Laplacians
	// of 10⁶ deformed digits need 32 with binary weights and 58 with the
	// heat kernel's; LLE's M, whose bottom eigenvalues are 1e-13·‖B‖
	// apart, would need thousands, and fails after these).
	operatorTol      = 1e-9
	operatorRestarts = 150
)

// maxFactorFlam bounds the cost of one LDLᵀ factorization; beyond it the
// fit cannot certify and returns ErrNumerical. A variable for the tests,
// which take that path on small matrices.
var maxFactorFlam = 2e12

// bottomResult is what bottomSparse found.
type bottomResult struct {
	vals []float64      // the Dim eigenvalues on the complement of u, ascending
	vecs blas64.General // n×Dim unit eigenvectors, orthogonal to u
	// nullity is the dimension of B's null space (eigenvalues ≤
	// nullRel·‖B‖), u included; nullAtLeast says it is a lower bound
	// (dense path, when every eigenvalue computed was null).
	nullity     int
	nullAtLeast bool
	certified   bool // an inertia certificate (iterative path)
}

// nullSpace is the null space of a bottom eigenproblem (LLE, LTSA,
// Laplacian eigenmaps) as the report gives it.
type nullSpace struct {
	// Nullity is the dimension of the null space at the fit, the known
	// null vector included (0 for a loaded model whose report does not say).
	Nullity int `param:"nullity,report"`
	// NullDropped counts the null vectors beyond the dim the embedding kept.
	NullDropped int `param:"null_dropped,report,omitempty"`
}

// nullSpace returns the null space of b for an embedding of dim
// dimensions.
func (b *bottomResult) nullSpace(dim int) nullSpace {
	return nullSpace{Nullity: b.nullity, NullDropped: max(0, b.nullity-1-dim)}
}

// note returns a sentence on the null space for the stage detail.
func (b *bottomResult) note(dim int) string {
	if b.nullity <= 1 {
		return ""
	}
	extra := b.nullity - 1 // null vectors orthogonal to u
	s := fmt.Sprintf("; null space of dimension %d", b.nullity)
	if b.nullAtLeast {
		s = fmt.Sprintf("; null space of dimension at least %d", b.nullity)
	}
	if extra > dim {
		s += fmt.Sprintf(" (the embedding is one basis of it: %d null vectors dropped; not unique — use more neighbours or a smaller dim)", extra-dim)
	} else {
		s += fmt.Sprintf(" (the first %d coordinates are a basis of it: not unique — use more neighbours or a smaller dim)", extra)
	}
	return s
}

// gershgorin returns max_i Σ_j |b_ij| ≥ ‖B‖₂ for symmetric b.
func gershgorin(b *sparse.CSR) float64 {
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
			c := newGeneral(x.Cols, q.Cols)
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
		g := newGeneral(q.Cols, q.Cols)
		tall.TN(q, q, g)
		symmetrize(g)
		var es mat.EigenSym
		if !es.Factorize(mat.NewSymDense(q.Cols, g.Data), true) {
			return newGeneral(q.Rows, 0)
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
		t := newGeneral(q.Cols, keep)
		c := 0
		for j := len(w) - 1; j >= 0 && c < keep; j-- {
			s := 1 / math.Sqrt(w[j])
			for i := 0; i < q.Cols; i++ {
				t.Data[i*keep+c] = v.At(i, j) * s
			}
			c++
		}
		out := newGeneral(q.Rows, keep)
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
	bq := newGeneral(n, p)
	mul(bq, q)
	h := newGeneral(p, p)
	tall.TN(q, bq, h)
	symmetrize(h)
	w, z, err := backend.EigBottomCtx(context.Background(), backend.Local(), blas64.Symmetric{N: p, Stride: p, Uplo: blas.Upper, Data: h.Data}, p)
	if err != nil {
		return nil, blas64.General{}, nil, err
	}
	c := newGeneral(n, p)
	tall.NN(1, q, z, 0, c)
	bc := newGeneral(n, p)
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

// certifier is the state of one certifiedBottom.
type certifier struct {
	b        *sparse.CSR
	progress *atomic.Int64 // solves done, for the stage's progress (may be nil)
	n        int
	norm     float64
	an       *sparse.LDLAnalysis
	fac      *sparse.LDL // of B + ε·I
	eps      float64     // ε
	dim      int         // eigenpairs wanted
	spec     *speculation
	specNull bool      // the first round's smallest Ritz value was null: no speculation
	x        []float64 // locked vectors, n×cap row-major, u first
	xcap     int
	vals     []float64 // their eigenvalues (Rayleigh quotients)
	solve    int       // vectors solved with
	flam     float64
}

func (c *certifier) locked() blas64.General {
	return blas64.General{Rows: c.n, Cols: len(c.vals), Stride: c.xcap, Data: c.x}
}

func (c *certifier) lock(v []float64, val float64) {
	if len(c.vals) == c.xcap {
		nc := 2 * c.xcap
		nx := make([]float64, c.n*nc)
		for i := 0; i < c.n; i++ {
			copy(nx[i*nc:i*nc+c.xcap], c.x[i*c.xcap:(i+1)*c.xcap])
		}
		c.x, c.xcap = nx, nc
	}
	j := len(c.vals)
	for i, e := range v {
		c.x[i*c.xcap+j] = e
	}
	c.vals = append(c.vals, val)
}

// project sets the n×b y to (I − X·Xᵀ)·y for the locked X.
func (c *certifier) project(y blas64.General) {
	x := c.locked()
	t := newGeneral(x.Cols, y.Cols)
	tall.TN(x, y, t)
	tall.NN(-1, x, t, 1, y)
}

// applyS sets dst = P·S·P·src (n×b) with P the projector off the locked
// vectors.
func (c *certifier) applyS(dst, src blas64.General) {
	tmp := newGeneral(src.Rows, src.Cols)
	copyRowsTo(tmp, src)
	c.project(tmp)
	c.fac.SolveBlockTo(tmp, tmp)
	c.project(tmp)
	copyRowsTo(dst, tmp)
	c.solve += src.Cols
}

// round runs one Lanczos on the deflated operator for want more pairs and
// locks the converged ones; it returns how many it locked.
func (c *certifier) round(ctx context.Context, want, bs int, seed uint64) (int, error) {
	free := c.n - len(c.vals)
	// Lanczos is asked for the pairs still wanted, no more: two extra
	// pairs "for the gap" cost 30–45 % more solves on swiss rolls and USPS
	// digits (LLE, LTSA, Laplacian eigenmaps at 10,000 and 50,000 points:
	// 19–30 against 13–17), and the certificate, not a gap, says whether
	// an eigenvalue was missed. Exactly repeated eigenvalues then take a
	// second round more often (the 24×24 grid's Laplacian, double
	// eigenvalues: 79 solves in 2 rounds against 52 in 1).
	kk := min(want, free-2*bs) // leaves a basis of at least kk + bs
	if kk < 1 || free <= 8 {
		// Few directions left: Rayleigh–Ritz on all of them.
		rng := rand.New(rand.NewPCG(seed, uint64(len(c.vals))))
		q := newGeneral(c.n, free)
		for i := range q.Data {
			q.Data[i] = rng.NormFloat64()
		}
		return c.lockAll(orthonormalize(q, c.locked()))
	}
	nz := float64(c.an.NNZ())
	op := lanczos.Func{N: c.n, Flam: 2*nz + float64(c.n)*(1+4*float64(len(c.vals))),
		Mul: func(dst, x []float64) {
			c.applyS(blas64.General{Rows: c.n, Cols: 1, Stride: 1, Data: dst}, blas64.General{Rows: c.n, Cols: 1, Stride: 1, Data: x})
		},
		MulBlock: func(dst, x blas64.General) { c.applyS(dst, x) },
	}
	// A start vector orthogonal to the locked ones (random otherwise).
	rng := rand.New(rand.NewPCG(seed, uint64(len(c.vals))))
	start := newGeneral(c.n, 1)
	for i := range start.Data {
		start.Data[i] = rng.NormFloat64()
	}
	c.project(start)
	// A small basis: the spectrum of S decays fast, and every basis vector
	// costs a solve.
	basis := min(kk+max(kk, 8, 4*bs), free-bs)
	// In the first round (u alone locked), the certificate's factorization
	// starts once the Ritz values place the dim-th eigenvalue — unless the
	// smallest is null: a null space beyond u is seldom found whole by then
	// (3000 USPS digits, LTSA: 43 null vectors), and the count would not
	// match.
	var look func(values, residuals []float64)
	if !noSpeculation && c.spec == nil && len(c.vals) == 1 && want == c.dim && kk >= c.dim {
		look = func(values, residuals []float64) {
			th := values[c.dim-1]
			if c.spec != nil || c.specNull || !(th > 0) || residuals[c.dim-1] > specRel*th {
				return
			}
			if 1/values[0]-c.eps <= nullRel*c.norm {
				c.specNull = true
				return
			}
			if lk := 1/th - c.eps; lk > 0 {
				c.speculate(ctx, lk+certDelta(lk, c.norm))
			}
		}
	}
	res, err := lanczos.Solve(ctx, op, lanczos.Settings{K: kk, Which: lanczos.Largest, Seed: seed + uint64(len(c.vals)), Tol: 1e-10, BlockSize: bs, BasisSize: basis, Start: start.Data, Progress: c.progress, Look: look, NoCopiesCheck: true})
	if err != nil && !errors.Is(err, lanczos.ErrNotConverged) {
		return 0, wrapNumerical(err)
	}
	c.flam += res.Stats.Flam
	q := orthonormalize(res.Vectors, c.locked())
	var w, res2 []float64
	var v blas64.General
	for step := 0; ; step++ {
		if q.Cols == 0 {
			return 0, nil
		}
		w, v, res2, err = rayleighRitz(c.b, q)
		if err != nil {
			return 0, wrapNumerical(err)
		}
		c.flam += float64(c.b.NNZ()*q.Cols) + 4*float64(c.n*q.Cols*q.Cols)
		ok := 0
		for j := 0; j < min(want, len(w)); j++ {
			if res2[j] <= certLockRel*c.norm {
				ok++
			}
		}
		if ok == min(want, len(w)) || step == 3 {
			break
		}
		// Subspace iteration with S on the Ritz vectors.
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		c.applyS(v, v)
		c.flam += float64(v.Cols) * (2*nz + float64(c.n))
		q = orthonormalize(v, c.locked())
	}
	return c.lockPairs(w, v, res2)
}

// lockAll locks the Ritz pairs of B on span(q) that meet the tolerance.
func (c *certifier) lockAll(q blas64.General) (int, error) {
	if q.Cols == 0 {
		return 0, nil
	}
	w, v, res, err := rayleighRitz(c.b, q)
	if err != nil {
		return 0, wrapNumerical(err)
	}
	return c.lockPairs(w, v, res)
}

// lockPairs locks the Ritz pairs (w, v) whose residuals meet the
// tolerance; it returns how many it locked.
func (c *certifier) lockPairs(w []float64, v blas64.General, res2 []float64) (int, error) {
	got := 0
	for j := range w {
		if res2[j] > certLockRel*c.norm {
			continue
		}
		vj := column(v, j)
		// Orthogonal to the locked vectors already (Rayleigh–Ritz on a
		// projected basis); re-project against the ones locked just now.
		one := blas64.General{Rows: c.n, Cols: 1, Stride: 1, Data: vj}
		one = orthonormalize(one, c.locked())
		if one.Cols == 0 {
			continue
		}
		c.lock(one.Data, w[j])
		got++
	}
	return got, nil
}

// speculation is the certificate's factorization of B − σ·I started
// while the first round's Lanczos run goes on (on the other core: that run
// is a sequence of single-vector solves), at σ just above the dim-th
// eigenvalue its Ritz values give. A Ritz value θ of the deflated S is
// below the eigenvalue of S it approximates (interlacing), so 1/θ − ε is
// above the eigenvalue of B, and σ above the dim-th eigenvalue locked
// later. It certifies when it counts as many eigenvalues below σ as are
// locked there; otherwise (σ took in an eigenvalue not found, or the
// factor was unstable) it is dropped and the certificate is factored as
// before. Whether it is used depends on the Ritz values and the inertia
// alone, not on timing.
type speculation struct {
	sigma  float64
	used   bool // taken by a certificate (whether it held or not)
	done   chan struct{}
	f      *sparse.LDL
	err    error
	cancel context.CancelFunc
}

// specRel: the speculation starts once the residual estimate of the
// dim-th Ritz value is at most specRel times it; its error is then of
// order specRel²·θ/gap, far below the 1e-3 relative margin of σ.
const specRel = 1e-4

// certDelta is σ − λ_dim for a certificate: well above the backward error
// of the factorization (a few ε·‖B‖) and small next to λ_dim, so that the
// count rarely takes in an eigenvalue beyond the wanted ones.
func certDelta(lk, norm float64) float64 { return max(1e-13*norm, 1e-3*math.Abs(lk)) }

// speculate starts the factorization of B − σ·I on a goroutine.
func (c *certifier) speculate(ctx context.Context, sigma float64) {
	sctx, cancel := context.WithCancel(ctx)
	sp := &speculation{sigma: sigma, done: make(chan struct{}), cancel: cancel}
	c.spec = sp
	c.flam += c.an.Flam()
	go func() {
		defer close(sp.done)
		defer func() {
			if p := recover(); p != nil {
				sp.err = fmt.Errorf("%w: the certificate's factorization panicked: %v", ErrNumerical, p)
			}
		}()
		sp.f, sp.err = c.an.Factor(sctx, c.b, sigma)
	}()
}

// noSpeculation, for the tests, starts no speculation (the certificate
// is then factored after the round).
var noSpeculation bool

// stopSpeculation cancels a speculation still running and waits for it.
func (c *certifier) stopSpeculation() {
	if c.spec != nil {
		c.spec.cancel()
		<-c.spec.done
	}
}

// refined is what refine found: the dim eigenpairs and the work done.
type refined struct {
	out    *bottomResult
	solves int
	flam   float64
	err    error
}

// refine improves the locked pairs: two steps of subspace iteration with
// S on the locked vectors that are not null (u and the null ones
// projected out: S would blow their rounding-level components up by 1/ε)
// and a Rayleigh–Ritz step with B: each step divides the error in a
// vector of eigenvalue λ by about (λ' + ε)/(λ + ε), λ' the smallest
// eigenvalue not locked. It reads the locked pairs and solves with c.fac
// and changes nothing of c, so it may run beside the certificate's
// factorization (its work is returned, for the caller to add).
func (c *certifier) refine(ctx context.Context, dim int, thr float64) (ref refined) {
	defer func() {
		if p := recover(); p != nil { // it may run on a goroutine of its own
			ref = refined{err: fmt.Errorf("%w: the refinement of the eigenvectors panicked: %v", ErrNumerical, p)}
		}
	}()
	b, n := c.b, c.n
	var nullIdx, restIdx []int
	for j := 1; j < len(c.vals); j++ {
		if c.vals[j] <= thr {
			nullIdx = append(nullIdx, j)
		} else {
			restIdx = append(restIdx, j)
		}
	}
	sort.SliceStable(nullIdx, func(a, b int) bool { return c.vals[nullIdx[a]] < c.vals[nullIdx[b]] })
	pick := func(idx []int) blas64.General {
		g := newGeneral(n, len(idx))
		for i := 0; i < n; i++ {
			for j, k := range idx {
				g.Data[i*len(idx)+j] = c.x[i*c.xcap+k]
			}
		}
		return g
	}
	fixed := pick(append([]int{0}, nullIdx...))
	y := pick(restIdx)
	var w []float64
	for step := 0; step < 2 && y.Cols > 0; step++ {
		if err := ctx.Err(); err != nil {
			return refined{err: err}
		}
		y = orthonormalize(y, fixed)
		c.fac.SolveBlockTo(y, y)
		ref.solves += y.Cols
		y = orthonormalize(y, fixed)
		if y.Cols < len(restIdx) {
			return refined{err: fmt.Errorf("%w: the locked eigenvectors lost their rank (%d of %d)", ErrNumerical, y.Cols, len(restIdx))}
		}
		var err error
		w, y, _, err = rayleighRitz(b, y)
		if err != nil {
			return refined{err: wrapNumerical(err)}
		}
		ref.flam += float64(y.Cols) * (2*float64(c.an.NNZ()) + float64(b.NNZ()) + 4*float64(n*y.Cols))
	}
	out := &bottomResult{vals: make([]float64, dim), vecs: newGeneral(n, dim), certified: true}
	for j := 0; j < dim; j++ {
		src, col := y, j-len(nullIdx)
		if j < len(nullIdx) {
			src, col = fixed, j+1
			out.vals[j] = c.vals[nullIdx[j]]
		} else {
			out.vals[j] = w[col]
		}
		for i := 0; i < n; i++ {
			out.vecs.Data[i*dim+j] = src.Data[i*src.Stride+col]
		}
	}
	ref.out = out
	return ref
}

// factorEntryLimit is the most entries below the diagonal the
// certificate's LDLᵀ factor of an n×n matrix may hold, and whether the
// memory budget (maxBytes, 0: none) rather than the flam bound sets it:
// the factor's entries cost at least 12 bytes each, and E entries in n
// columns at least E²/(2n) flam. An analysis that counts more stops there.
func factorEntryLimit(n int, maxBytes int64) (limit int64, byBudget bool) {
	limit = int64(math.Sqrt(2 * float64(n) * maxFactorFlam))
	if maxBytes > 0 && maxBytes/2/12 < limit {
		return maxBytes / 2 / 12, true
	}
	return limit, false
}

// earlyAnalysis is the LDLᵀ analysis (the ordering and the symbolic
// factorization) of an eigenproblem's matrix, started from its pattern
// before its values are known: Laplacian eigenmaps knows the pattern of
// I − D^-½·W·D^-½ once the graph is built, and the weights, the degrees
// and the matrix are then made on one core while AMD's ordering, a serial
// computation, runs on another; RCM's runs once the eigensolve asks for
// the analysis (sparse.StartLDLAnalysis). The graph g itself is analysed:
// the analysis reads no diagonal (sparse.AnalyzeLDL), so it is that of
// g + I. certifiedBottom takes it when the matrix stores exactly g's
// entries and the diagonal (the same analysis, so the same factor, bit for
// bit) and analyses the matrix itself otherwise. nil: none started.
type earlyAnalysis struct {
	pending *sparse.PendingLDL
	cancel  context.CancelFunc
	g       *sparse.CSR
}

// noEarlyAnalysis keeps Laplacian eigenmaps from starting its analysis
// early (for the tests that compare the two).
var noEarlyAnalysis bool

// startAnalysis starts the analysis of g (n×n) with the limit
// factorEntryLimit gives and the eigensolve's profile label. The caller
// stops it (stop) when the fit ends.
func startAnalysis(r *run, g *sparse.CSR) *earlyAnalysis {
	ctx, cancel := context.WithCancel(r.ctx)
	n, _ := g.Dims()
	limit, _ := factorEntryLimit(n, r.opts.MaxBytes)
	var pending *sparse.PendingLDL
	var err error
	pprof.Do(ctx, pprof.Labels("method", r.method, "stage", "eigensolve"), func(ctx context.Context) {
		pending, err = sparse.StartLDLAnalysis(ctx, g, limit) // its goroutine takes the labels
	})
	if err != nil { // g not square: nothing started
		cancel()
		return nil
	}
	return &earlyAnalysis{pending: pending, cancel: cancel, g: g}
}

// stop cancels the analysis if it still runs and waits for it.
func (e *earlyAnalysis) stop() {
	if e != nil {
		e.cancel()
		e.pending.Wait()
	}
}

// analysis returns the analysis of b within limit: the early one when b
// stores g's entries and its diagonal (its ErrTooLarge too; ahead says
// so), else b's own. It is asked once: it lets go of g.
func (e *earlyAnalysis) analysis(ctx context.Context, b *sparse.CSR, limit int64) (an *sparse.LDLAnalysis, ahead bool, err error) {
	if e != nil {
		g := e.g
		e.g = nil // the graph may go now (200 MB at 10⁶ points)
		if !isPatternPlusDiagonal(b, g) {
			e.stop() // not this matrix's analysis: stopped, and its hold on g released
		} else if an, err := e.pending.Wait(); err == nil || errors.Is(err, sparse.ErrTooLarge) {
			return an, true, err // checks ctx as it goes
		}
	}
	an, err = sparse.AnalyzeLDLWithin(ctx, b, sparse.OrderAuto, limit)
	return an, false, err
}

// isPatternPlusDiagonal reports whether b (square, rows sorted) stores
// entries exactly where g does and on the whole diagonal.
func isPatternPlusDiagonal(b, g *sparse.CSR) bool {
	if g == nil {
		return false
	}
	n, c := b.Dims()
	gr, gc := g.Dims()
	if n != c || gr != n || gc != n {
		return false
	}
	bp, bi := b.RowPtr(), b.ColIdx()
	gp, gi := g.RowPtr(), g.ColIdx()
	for i := range n {
		row, want := bi[bp[i]:bp[i+1]], gi[gp[i]:gp[i+1]]
		k, diag := 0, false
		for _, j := range row {
			switch {
			case k < len(want) && want[k] == j:
				k++
			case j != i:
				return false
			}
			if j == i {
				if diag {
					return false
				}
				diag = true
			}
		}
		if k != len(want) || !diag {
			return false
		}
	}
	return true
}

// cannotCertify is why, with what the user can do: a fit that cannot
// afford the certificate's factor returns an error, never an uncertified
// embedding it was not asked for.
func cannotCertify(why error) error {
	return fmt.Errorf("%w; Eigensolver %q (-eigensolver %s) runs Lanczos on the matrix alone, with no factor and no certificate", why, EigenUncertified, EigenUncertified)
}

// certifiedBottom returns the dim smallest eigenpairs of b on the
// complement of the unit null vector u, certified by inertia.
// done, when not nil, counts the solves with the factor (the Lanczos
// products), for the stage's progress.
func certifiedBottom(ctx context.Context, r *run, b *sparse.CSR, u []float64, dim int, seed uint64, early *earlyAnalysis, done *atomic.Int64) (*bottomResult, string, int, float64, error) {
	n, _ := b.Dims()
	norm := gershgorin(b)
	if norm == 0 {
		return nil, "", 0, 0, fmt.Errorf("%w: the matrix is zero", ErrNumerical)
	}
	limit, byBudget := factorEntryLimit(n, r.opts.MaxBytes)
	an, ahead, err := early.analysis(ctx, b, limit)
	if errors.Is(err, sparse.ErrTooLarge) {
		if byBudget {
			return nil, "", 0, 0, cannotCertify(fmt.Errorf("%w: %w: the LDLᵀ factor that certifies the eigenvalues would hold more than %d entries, %d bytes", ErrNumerical, ErrMemoryBudget, limit, 12*limit))
		}
		return nil, "", 0, 0, cannotCertify(fmt.Errorf("%w: the LDLᵀ factor that certifies the eigenvalues would hold more than %d entries, %.3g flam; the graph is too dense for a certified sparse eigensolve", ErrNumerical, limit, maxFactorFlam))
	}
	if err != nil {
		return nil, "", 0, 0, wrapNumerical(err)
	}
	bytes := an.FactorBytes() + 56*int64(n)
	if r.opts.MaxBytes > 0 && bytes > r.opts.MaxBytes/2 {
		return nil, "", 0, 0, cannotCertify(fmt.Errorf("%w: %w: the LDLᵀ factor that certifies the eigenvalues needs %d bytes (%d entries)", ErrNumerical, ErrMemoryBudget, bytes, an.NNZ()))
	}
	// Two factors live at once (the shift-invert one and a certificate's):
	// the report's estimate says so, now that the fill is known.
	if r.rep != nil {
		r.rep.EstimatedBytes = max(r.rep.EstimatedBytes, 2*bytes)
	}
	if an.Flam() > maxFactorFlam {
		return nil, "", 0, 0, cannotCertify(fmt.Errorf("%w: the LDLᵀ factor that certifies the eigenvalues would cost %.3g flam (%d entries); the graph is too dense for a certified sparse eigensolve", ErrNumerical, an.Flam(), an.NNZ()))
	}
	c := &certifier{b: b, n: n, norm: norm, an: an, xcap: dim + 1 + certExtra, progress: done, dim: dim}
	defer c.stopSpeculation()
	c.x = make([]float64, n*c.xcap)
	for c.eps = shiftRel * norm; ; c.eps *= 100 {
		c.fac, err = an.Factor(ctx, b, -c.eps)
		if !errors.Is(err, sparse.ErrSingular) || c.eps > 1e-8*norm {
			break
		}
	}
	if err != nil {
		return nil, "", 0, 0, wrapNumerical(err)
	}
	c.flam += an.Flam()
	factors := 1
	bu := make([]float64, n)
	b.MulVecTo(bu, u)
	uval := 0.0
	for i, v := range u {
		uval += v * bu[i]
	}
	c.lock(u, uval)
	// Single vectors first (measured: fewer solves than blocks of 2 on
	// LLE, LTSA and Laplacian matrices of 10,000 and 50,000-point swiss
	// rolls, 20–34 against 30–66); the block grows to the number missing
	// when the certificate finds eigenvalues not yet locked, and doubles
	// when a round locks nothing.
	bs := 1
	want := dim
	rounds := 0
	thr := nullRel * norm
	var ref refined   // the refined pairs of the round the certificate holds for
	var beside string // says when the speculation certified
	var sigma float64
	var neg, found int
	nullBelow := -1  // the inertia's count below thr: -1 not factored, 0 not trusted
	allNull := false // the count below thr certified the dim eigenvalues null
	for {
		if err := ctx.Err(); err != nil {
			return nil, "", 0, 0, err
		}
		if rounds == certMaxRounds {
			return nil, "", 0, 0, fmt.Errorf("%w: eigenpairs not certified after %d rounds (%d locked, %d eigenvalues below σ = %g, %d found)", ErrNumerical, rounds, len(c.vals), neg, sigma, found)
		}
		rounds++
		got, err := c.round(ctx, want, bs, seed)
		if err != nil {
			return nil, "", 0, 0, err
		}
		if got == 0 {
			bs = min(2*bs, 16)
		}
		sorted := slices.Clone(c.vals[1:])
		sort.Float64s(sorted)
		if len(sorted) < dim {
			want = dim - len(sorted)
			continue
		}
		// Certificate at σ just above the dim-th eigenvalue.
		lk := sorted[dim-1]
		delta := certDelta(lk, norm)
		// The refinement of the locked pairs runs beside the
		// certificate's factorization (it reads what the certificate
		// does not change); it is kept when the certificate holds, and
		// waited for either way.
		refining := make(chan refined, 1)
		go func() { refining <- c.refine(ctx, dim, thr) }()
		certified := false
		var certErr error
		if lk <= thr && nullBelow < 0 {
			// The dim-th eigenvalue locked is null: when the inertia at
			// the null threshold counts more than dim eigenvalues below
			// it (u's among them), the dim wanted are all null and the
			// embedding is a basis of the null space whichever null
			// vectors were locked; finding the others would only change
			// the basis (LTSA of 20,000 deformed digits: 395 null
			// vectors). One factorization certifies that, and counts the
			// nullity, where a certificate at σ above lk and then one at
			// the null threshold took two.
			nullBelow = 0
			f, err := an.Factor(ctx, b, thr)
			factors++
			c.flam += an.Flam()
			if err != nil && !errors.Is(err, sparse.ErrSingular) {
				certErr = wrapNumerical(err)
			} else if err == nil {
				if count, _, ok := c.countBelow(f, thr); ok {
					nullBelow = count
					if count > dim {
						sigma, neg, found, certified, allNull = thr, count, count, true, true
					}
				}
			}
		}
		if sp := c.spec; sp != nil && !sp.used && !certified && certErr == nil {
			sp.used = true
			<-sp.done
			factors++
			if sp.err == nil && sp.sigma > lk {
				if count, locked, ok := c.countBelow(sp.f, sp.sigma); ok && count == locked {
					sigma, neg, found, certified = sp.sigma, count, locked, true
					beside = " (the certificate's beside the lanczos run)"
				}
			}
			sp.f = nil
			if err := ctx.Err(); err != nil {
				certErr = err
			}
		}
		for try := 0; try < 4 && !certified && certErr == nil; try++ {
			sigma = lk + delta*float64(1+try)
			f, err := an.Factor(ctx, b, sigma)
			factors++
			c.flam += an.Flam()
			if errors.Is(err, sparse.ErrSingular) {
				continue
			}
			if err != nil {
				certErr = wrapNumerical(err)
				break
			}
			if neg, found, certified = c.countBelow(f, sigma); certified {
				break
			}
		}
		ref = <-refining
		c.solve += ref.solves // counted whether kept or not: the work was done
		c.flam += ref.flam
		if certErr != nil {
			return nil, "", 0, 0, certErr
		}
		if !certified {
			return nil, "", 0, 0, fmt.Errorf("%w: no stable LDLᵀ of B − σI near σ = %g to certify the eigenvalues", ErrNumerical, sigma)
		}
		if neg == found {
			if ref.err != nil {
				return nil, "", 0, 0, ref.err
			}
			break
		}
		if neg < found {
			return nil, "", 0, 0, fmt.Errorf("%w: %d eigenpairs locked below σ = %g but the inertia counts %d eigenvalues there", ErrNumerical, found, sigma, neg)
		}
		want = neg - found
		bs = max(bs, min(want, 16))
	}
	out := ref.out
	// Nullity: certified below σ when the dim-th eigenvalue is not null;
	// otherwise the inertia at the null threshold counts it.
	out.nullity = 0
	for _, v := range c.vals {
		if v <= thr {
			out.nullity++
		}
	}
	if nullBelow > 0 {
		out.nullity = max(out.nullity, nullBelow)
	} else if out.vals[dim-1] <= thr && nullBelow == 0 {
		out.nullAtLeast = true // the count at thr was not trusted
	} else if out.vals[dim-1] <= thr {
		f, err := an.Factor(ctx, b, thr)
		factors++
		c.flam += an.Flam()
		if err == nil && f.Growth() <= certMaxGrowth {
			neg, _, _ := f.Inertia()
			out.nullity = max(out.nullity, neg)
		} else {
			out.nullAtLeast = true
		}
	}
	how := "row by row"
	if an.Multifrontal() {
		how = "multifrontal"
	}
	if ahead {
		how += ", ordered while the matrix was made"
	}
	certificate := fmt.Sprintf("%d eigenvalues below σ = %.3g, all found", neg, sigma)
	if allNull {
		certificate = fmt.Sprintf("%d eigenvalues below the null threshold %.3g, all null, %d of them locked", neg, thr, len(c.vals))
	}
	detail := fmt.Sprintf("shift-invert block lanczos with locking (LDLᵀ, %s ordering: %d entries, %.3g flam, %d factorizations %s%s; %d solves, %d rounds); inertia certificate: %s",
		an.Ordering(), an.NNZ(), an.Flam(), factors, how, beside, c.solve, rounds, certificate)
	return out, detail, rounds, c.flam, nil
}

// countBelow returns, for f the LDLᵀ of B − σ·I, the inertia's count of
// the eigenvalues of B below σ and the count of locked pairs below it;
// ok is false when f's growth is too large for its inertia to be trusted.
func (c *certifier) countBelow(f *sparse.LDL, sigma float64) (neg, found int, ok bool) {
	if f.Growth() > certMaxGrowth {
		return 0, 0, false
	}
	neg, _, _ = f.Inertia()
	for _, v := range c.vals {
		if v < sigma {
			found++
		}
	}
	return neg, found, true
}

// denseBottom is the dense path: the eigenpairs of b (densified), the null
// space counted, u projected out and the Dim smallest pairs on its
// complement by a Rayleigh–Ritz step.
func denseBottom(ctx context.Context, b *sparse.CSR, u []float64, dim int) (*bottomResult, error) {
	return denseBottomOf(ctx, denseSymmetric(b), gershgorin(b), b.MulBlockTo, u, dim)
}

// denseBottomOf is denseBottom of the dense symmetric sym (the triangle its
// Uplo names is read), whose norm is at most norm and whose product mul
// writes (dst = sym·src).
func denseBottomOf(ctx context.Context, sym blas64.Symmetric, norm float64, mul func(dst, src blas64.General), u []float64, dim int) (*bottomResult, error) {
	n := sym.N
	thr := nullRel * norm
	kk := min(n, dim+1+certExtra)
	var vals []float64
	var vecs blas64.General
	for {
		var err error
		cp := blas64.Symmetric{N: n, Stride: n, Uplo: sym.Uplo, Data: slices.Clone(sym.Data)}
		vals, vecs, err = backend.EigBottomCtx(ctx, backend.Active(), cp, kk)
		if err != nil {
			return nil, wrapNumerical(err)
		}
		if vals[kk-1] > thr || kk == n {
			break
		}
		kk = min(n, 2*kk)
	}
	out := &bottomResult{}
	for _, v := range vals {
		if v <= thr {
			out.nullity++
		}
	}
	out.nullAtLeast = out.nullity == kk && kk < n
	// Keep the pairs up to the dim+1-th and every one tied with it, so that
	// the span is invariant; project u out.
	m := dim + 1
	for m < kk && vals[m]-vals[dim] <= max(thr, 1e-12*norm) {
		m++
	}
	cp := copyGeneral(blas64.General{Rows: n, Cols: m, Stride: vecs.Stride, Data: vecs.Data})
	q := orthonormalize(cp, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: u})
	if q.Cols < dim {
		return nil, fmt.Errorf("%w: the bottom eigenvectors span only %d directions off the null vector (want %d)", ErrNumerical, q.Cols, dim)
	}
	w, v, _, err := rayleighRitzOf(mul, q)
	if err != nil {
		return nil, wrapNumerical(err)
	}
	out.vals = w[:dim]
	out.vecs = copyGeneral(blas64.General{Rows: n, Cols: dim, Stride: v.Stride, Data: v.Data})
	return out, nil
}

// bottomSparse finds the dim smallest eigenpairs of the symmetric positive
// semidefinite sparse b on the complement of its unit null vector u
// (stage "eigensolve"): densely (index range) or by certified
// shift-invert Lanczos (certifiedBottom). The vectors come signed by
// backend.FixSigns; the null space is counted (nullSpace).
func bottomSparse(r *run, b *sparse.CSR, u []float64, dim int, solver Eigensolver, seed uint64, early *earlyAnalysis, what string) (out *bottomResult, err error) {
	n, _ := b.Dims()
	if testHookBottom != nil {
		defer func() {
			if err == nil {
				cp := *out
				cp.vecs = newGeneral(out.vecs.Rows, out.vecs.Cols)
				copy(cp.vecs.Data, out.vecs.Data)
				testHookBottom(b, u, &cp)
			}
		}()
	}
	if solver == EigenDense {
		err = r.stage("eigensolve", flam.Syevr(n, dim+1), func(ctx context.Context, st *stageCtx) error {
			var err error
			out, err = denseBottom(ctx, b, u, dim)
			if err != nil {
				return err
			}
			st.detail = "dense syevr on the " + what + out.note(dim)
			return nil
		})
		if err != nil {
			return nil, err
		}
		backend.FixSigns(out.vecs)
		return out, nil
	}
	err = r.stage("eigensolve", flam.Lanczos(n, dim+1, 20)*float64(b.NNZ())/float64(n*n), func(ctx context.Context, st *stageCtx) error {
		var err error
		var detail string
		err = st.watchCount(lanczosBudget(dim+1), func(done *atomic.Int64) error {
			var err error
			if solver == EigenUncertified {
				out, detail, st.iterations, st.predicted, err = operatorBottom(ctx, r, b, u, dim, seed, done)
			} else {
				out, detail, st.iterations, st.predicted, err = certifiedBottom(ctx, r, b, u, dim, seed, early, done)
			}
			return err
		})
		if err != nil {
			return err
		}
		st.detail = detail + " on the " + what + out.note(dim)
		return nil
	})
	if err != nil {
		return nil, err
	}
	backend.FixSigns(out.vecs)
	return out, nil
}

// operatorBottom finds what certifiedBottom does by Lanczos on B
// itself, with products alone and no factorization (EigenUncertified):
// for graphs whose LDLᵀ factor, which the certificate needs, would not
// fit the budget or cost too much. Such graphs — k nearest neighbours of
// high-dimensional data (digits), near expanders — have no small
// separators, so their factors fill in, but the bottom of their spectrum
// is well separated, which is what Lanczos on B needs. The known null vector u is moved to the top of
// the spectrum (B + ‖B‖·u·uᵀ) and the Dim smallest eigenpairs are wanted,
// with residuals ≤ operatorTol·‖B‖. Nothing certifies that no eigenvalue
// below the last one was missed (a single Lanczos vector finds one copy of
// an exactly repeated eigenvalue; rounding brings the others in, slowly),
// and the detail says so; a run that does not converge returns
// ErrNumerical with the Lanczos error.
func operatorBottom(ctx context.Context, r *run, b *sparse.CSR, u []float64, dim int, seed uint64, done *atomic.Int64) (*bottomResult, string, int, float64, error) {
	n, _ := b.Dims()
	norm := gershgorin(b)
	if norm == 0 {
		return nil, "", 0, 0, fmt.Errorf("%w: the matrix is zero", ErrNumerical)
	}
	// Single vectors and a basis of dim + 28 vectors (dim = 2: 30): on the
	// Laplacians of 200,000 and 10⁶ deformed digits, Lanczos' own cost —
	// reorthogonalizing against the basis — outweighs the products, and
	// these took 2.6 and 40.5 s where blocks of 2 and a basis of 50 took
	// 4.7 and 71.7 s (throw-away benchmark, one run each).
	set := lanczos.Settings{K: dim, Which: lanczos.Smallest, BlockSize: 1, BasisSize: dim + max(2*dim, 28),
		Tol: operatorTol, MaxRestarts: operatorRestarts, Seed: seed, Progress: done}
	if bytes := 8 * int64(n) * int64(set.BasisSize+4); r.opts.MaxBytes > 0 && bytes > r.opts.MaxBytes/2 {
		return nil, "", 0, 0, fmt.Errorf("%w: %w: Lanczos on the matrix alone needs %d bytes", ErrNumerical, ErrMemoryBudget, bytes)
	}
	// Lanczos runs on P·B·Pᵀ in a local order (sparse.LocalOrder): the rows
	// of a neighbour graph come in the data's order, where every product
	// misses the cache at every entry.
	b, perm, err := sparse.LocalOrder(ctx, b)
	if err != nil {
		return nil, "", 0, 0, err
	}
	uo := make([]float64, n)
	for k, v := range perm {
		uo[k] = u[v]
	}
	// B + ‖B‖·u·uᵀ, one vector at a time (BlockSize 1: Lanczos makes no
	// block products).
	op := lanczos.Func{N: n, Flam: float64(b.NNZ() + 2*n), Mul: func(dst, x []float64) {
		b.MulVecTo(dst, x)
		s := 0.0
		for i, v := range uo {
			s += v * x[i]
		}
		for i, v := range uo {
			dst[i] += norm * s * v
		}
	}}
	res, err := lanczos.Solve(ctx, op, set)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", 0, 0, ctx.Err()
		}
		return nil, "", 0, 0, fmt.Errorf("%w: Lanczos on the matrix alone failed (eigensolver %s): %w", ErrNumerical, EigenUncertified, err)
	}
	out := &bottomResult{vals: res.Values, vecs: newGeneral(n, dim)}
	for k, v := range perm { // back to the rows' order
		copy(out.vecs.Data[v*dim:(v+1)*dim], res.Vectors.Data[k*res.Vectors.Stride:k*res.Vectors.Stride+dim])
	}
	// The vectors are orthogonal to u up to the tolerance: exactly so now.
	for j := 0; j < dim; j++ {
		dot, nn := 0.0, 0.0
		for i, v := range u {
			dot += v * out.vecs.Data[i*out.vecs.Stride+j]
		}
		for i, v := range u {
			x := out.vecs.Data[i*out.vecs.Stride+j] - dot*v
			out.vecs.Data[i*out.vecs.Stride+j] = x
			nn += x * x
		}
		nn = 1 / math.Sqrt(nn)
		for i := 0; i < n; i++ {
			out.vecs.Data[i*out.vecs.Stride+j] *= nn
		}
	}
	out.nullity = 1
	for _, v := range out.vals {
		if v <= nullRel*norm {
			out.nullity++
		}
	}
	out.nullAtLeast = out.nullity == dim+1
	st := res.Stats
	worst := 0.0
	for _, r := range res.Residuals {
		worst = max(worst, r/norm)
	}
	detail := fmt.Sprintf("lanczos on the matrix alone (eigensolver %s), not certified: block %d, %d products, %d restarts, residuals ≤ %.1e·‖B‖", EigenUncertified, set.BlockSize, st.MatVecs, st.Restarts, worst)
	return out, detail, st.Iterations, st.Flam, nil
}

// testHookBottom, when set (by tests only, never concurrently with a
// fit), sees every matrix bottomSparse solved and its result.
var testHookBottom func(b *sparse.CSR, u []float64, res *bottomResult)

// unitConstant returns the unit constant vector of length n.
func unitConstant(n int) []float64 {
	u := make([]float64, n)
	for i := range u {
		u[i] = 1 / math.Sqrt(float64(n))
	}
	return u
}
