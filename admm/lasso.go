package admm

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
)

// Operator is the design matrix A (m×n) of a regression as a linear
// operator, in the method set the project's solvers consume:
// backend.GeneralOp (dense) and *sparse.CSR implement it. MulVecTo sets
// dst = A·x, MulTransVecTo sets dst = Aᵀ·x, both overwriting dst.
type Operator interface {
	Dims() (r, c int)
	MulVecTo(dst, x []float64)
	MulTransVecTo(dst, x []float64)
}

// BlockOperator is an Operator that also applies to a block of vectors at
// once (dst = A·X, dst = Aᵀ·X, overwriting dst); the Gram matrix of an
// operator that is not a backend.GeneralOp is formed with these when present.
type BlockOperator interface {
	Operator
	MulBlockTo(dst, x blas64.General)
	MulTransBlockTo(dst, x blas64.General)
}

// MaxGram is the largest min(m, n) for which an ElasticNet caches a Gram
// matrix and its Cholesky factor (2·MaxGram² float64, 512 MiB at the limit).
const MaxGram = 8192

// ElasticNet is the regression
//
//	minimize ½‖A·x − b‖² + λ·(α‖x‖₁ + (1−α)/2·‖x‖²)
//
// (α = 1: the lasso) solved by ADMM in consensus form x − z = 0 (Boyd et al.
// 2011 §6.4): f(x) = ½‖Ax − b‖², g(z) = λ(α‖z‖₁ + (1−α)/2‖z‖²). The
// x-update solves (AᵀA + ρI)·x = Aᵀb + ρ(z − u) with a cached Cholesky
// factor of the smaller of AᵀA + ρI (n×n, when n ≤ m) and AAᵀ + ρI (m×m,
// when m < n, through the matrix inversion lemma, §4.2.4); the factor does
// not depend on λ or α, so a whole regularization path reuses it and is
// refactored only when residual balancing changes ρ. The z-update is the
// scaled soft threshold z = S_{λα}(ρ·w)/(ρ + λ(1−α)).
//
// With m samples and n features, the set-up costs lassoFactorFlam(m, n)
// and one iteration lassoIterFlam(m, n). An ElasticNet is not safe for
// concurrent use (it holds the factor and work buffers); make one per
// goroutine.
type ElasticNet struct {
	m, n      int
	op        Operator
	impl      backend.Impl
	a         blas64.General // the dense design when the operator is a backend.GeneralOp
	b         []float64
	atb       []float64
	wide      bool // m < n: factor AAᵀ + ρI
	k         int  // min(m, n)
	gram      []float64
	chol      blas64.Symmetric
	rho       float64 // ρ of chol; 0: none yet
	setupFlam float64

	// Set per solve.
	lambda, l1 float64
	q, t, tm   []float64 // work: length n, n, m
}

// NetSettings are the settings of an ElasticNet solve. The zero value means
// the documented defaults.
type NetSettings struct {
	// L1Ratio is α ∈ (0, 1], the share of the ℓ1 penalty. Default 1 (the
	// lasso). A pure ridge (α = 0) has a closed form; use package lsqr
	// with damping.
	L1Ratio float64
	// ADMM holds the driver's settings (penalty, tolerances, iteration limit).
	ADMM Settings
}

// Fit is one solution of a regularization path.
type Fit struct {
	// Lambda is the λ solved for.
	Lambda float64
	// X holds the coefficients: the z iterate, whose zeros are exact.
	X []float64
	// Stats of the ADMM run; Stats.Objective is the objective at X.
	Stats Stats
}

// NewElasticNet prepares the regression of b (length m) on the m×n design
// a: it checks the data, forms the Gram matrix of the smaller side and Aᵀb.
// A dense design (backend.GeneralOp) must not change while the ElasticNet is
// in use. Errors wrap ErrInput (empty design, len(b) ≠ m, NaN or Inf, which
// also wrap backend.ErrNotFinite, or min(m, n) > MaxGram).
func NewElasticNet(a Operator, b []float64) (*ElasticNet, error) {
	m, n := a.Dims()
	if m == 0 || n == 0 {
		return nil, fmt.Errorf("%w: the design is %d×%d, need at least one sample and one feature", ErrInput, m, n)
	}
	if len(b) != m {
		return nil, fmt.Errorf("%w: b has length %d, the design has %d rows", ErrInput, len(b), m)
	}
	if err := finite("b", b); err != nil {
		return nil, err
	}
	e := &ElasticNet{m: m, n: n, op: a, b: append([]float64(nil), b...), wide: m < n, k: min(m, n)}
	if e.k > MaxGram {
		return nil, fmt.Errorf("%w: min(m, n) = %d exceeds MaxGram = %d for a cached factorization", ErrInput, e.k, MaxGram)
	}
	switch g := a.(type) {
	case backend.GeneralOp:
		e.a, e.impl = g.A, g.Impl
	case *backend.GeneralOp:
		e.a, e.impl = g.A, g.Impl
	}
	if e.impl == nil {
		e.impl = backend.Active()
	}
	e.gram = make([]float64, e.k*e.k)
	if e.a.Data != nil {
		if err := finiteMat("A", e.a); err != nil {
			return nil, err
		}
		t := blas.Trans // AᵀA
		if e.wide {
			t = blas.NoTrans // AAᵀ
		}
		e.impl.Syrk(t, 1, e.a, 0, blas64.Symmetric{N: e.k, Stride: e.k, Data: e.gram, Uplo: blas.Lower})
	} else {
		operatorGram(a, e.wide, e.gram, e.k)
		if err := finite("the Gram matrix of A", e.gram); err != nil {
			return nil, err
		}
	}
	e.atb = make([]float64, n)
	a.MulTransVecTo(e.atb, e.b)
	e.setupFlam = lassoFactorFlam(m, n) - flam.Potrf(e.k)
	e.chol = blas64.Symmetric{N: e.k, Stride: e.k, Data: make([]float64, e.k*e.k), Uplo: blas.Lower}
	e.q, e.t, e.tm = make([]float64, n), make([]float64, n), make([]float64, m)
	return e, nil
}

// operatorGram fills the lower triangle of the k×k g with AᵀA (tall) or
// AAᵀ (wide) from operator products, b columns of the identity at a time.
func operatorGram(a Operator, wide bool, g []float64, k int) {
	m, n := a.Dims()
	inner := m // length of the intermediate A·e_j (tall) or Aᵀ·e_j (wide)
	if wide {
		inner = n
	}
	bo, block := a.(BlockOperator)
	const bs = 64
	e := make([]float64, k*bs)
	w := make([]float64, inner*bs)
	out := make([]float64, k*bs)
	for j0 := 0; j0 < k; j0 += bs {
		nb := min(bs, k-j0)
		if block {
			E := blas64.General{Rows: k, Cols: nb, Stride: nb, Data: e[:k*nb]}
			clear(E.Data)
			for j := 0; j < nb; j++ {
				E.Data[(j0+j)*nb+j] = 1
			}
			W := blas64.General{Rows: inner, Cols: nb, Stride: nb, Data: w[:inner*nb]}
			O := blas64.General{Rows: k, Cols: nb, Stride: nb, Data: out[:k*nb]}
			if wide {
				bo.MulTransBlockTo(W, E)
				bo.MulBlockTo(O, W)
			} else {
				bo.MulBlockTo(W, E)
				bo.MulTransBlockTo(O, W)
			}
			for j := 0; j < nb; j++ {
				for i := j0 + j; i < k; i++ {
					g[i*k+j0+j] = O.Data[i*nb+j]
				}
			}
			continue
		}
		ej, wj, oj := e[:k], w[:inner], out[:k]
		for j := j0; j < j0+nb; j++ {
			clear(ej)
			ej[j] = 1
			if wide {
				a.MulTransVecTo(wj, ej)
				a.MulVecTo(oj, wj)
			} else {
				a.MulVecTo(wj, ej)
				a.MulTransVecTo(oj, wj)
			}
			for i := j; i < k; i++ {
				g[i*k+j] = oj[i]
			}
		}
	}
}

// Dims returns the number of samples m and of features n.
func (e *ElasticNet) Dims() (m, n int) { return e.m, e.n }

// LambdaMax returns the smallest λ at which x = 0 solves the problem with
// ℓ1 share l1Ratio (0 means 1): ‖Aᵀb‖∞/α.
func (e *ElasticNet) LambdaMax(l1Ratio float64) float64 {
	if l1Ratio == 0 {
		l1Ratio = 1
	}
	mx := 0.0
	for _, v := range e.atb {
		mx = max(mx, math.Abs(v))
	}
	return mx / l1Ratio
}

// Objective returns ½‖A·x − b‖² + λ(α‖x‖₁ + (1−α)/2‖x‖²) (l1Ratio 0 means 1).
func (e *ElasticNet) Objective(x []float64, lambda, l1Ratio float64) float64 {
	if len(x) != e.n {
		panic(fmt.Sprintf("admm: ElasticNet.Objective: x has length %d, need %d", len(x), e.n))
	}
	if l1Ratio == 0 {
		l1Ratio = 1
	}
	r := make([]float64, e.m)
	e.op.MulVecTo(r, x)
	var rr, l1, l2 float64
	for i, v := range r {
		d := v - e.b[i]
		rr += d * d
	}
	for _, v := range x {
		l1 += math.Abs(v)
		l2 += v * v
	}
	return 0.5*rr + lambda*(l1Ratio*l1+(1-l1Ratio)/2*l2)
}

func (s NetSettings) l1Ratio() (float64, error) {
	a := s.L1Ratio
	if a == 0 {
		a = 1
	}
	if !(a > 0 && a <= 1) {
		return 0, fmt.Errorf("%w: NetSettings.L1Ratio = %v, need 0 < α ≤ 1", ErrInput, s.L1Ratio)
	}
	return a, nil
}

// Solve solves the problem for one λ ≥ 0. warm, if not nil, is the starting
// iterate and receives the final one (pass the same State along a path);
// nil starts from zero. Errors: ErrInput for a bad λ or settings,
// ErrNotConverged (with a usable Fit), a wrapped ctx.Err() on cancellation.
func (e *ElasticNet) Solve(ctx context.Context, lambda float64, s NetSettings, warm *State) (Fit, error) {
	l1, err := s.l1Ratio()
	if err != nil {
		return Fit{}, err
	}
	if !(lambda >= 0) || math.IsInf(lambda, 0) {
		return Fit{}, fmt.Errorf("%w: λ = %v, need a finite λ ≥ 0", ErrInput, lambda)
	}
	if warm == nil {
		warm = &State{}
	}
	e.lambda, e.l1 = lambda, l1
	st, err := Solve(ctx, &netProblem{e: e}, warm, s.ADMM)
	fit := Fit{Lambda: lambda, X: append([]float64(nil), warm.Z...), Stats: st}
	if err == nil || errors.Is(err, ErrNotConverged) {
		fit.Stats.Objective = e.Objective(fit.X, lambda, l1)
		fit.Stats.Flam += flam.Gemv(e.m, e.n)
	}
	return fit, err
}

// Path solves the problem for each λ in lambdas in the order given, each
// solve warm-started from the previous one (give them in decreasing order,
// from LambdaMax down, for the usual path). It stops at the first error
// other than ErrNotConverged and returns the fits so far; an
// ErrNotConverged of any λ is returned (the first one) after the whole path.
func (e *ElasticNet) Path(ctx context.Context, lambdas []float64, s NetSettings) ([]Fit, error) {
	fits := make([]Fit, 0, len(lambdas))
	var st State
	var first error
	for _, l := range lambdas {
		f, err := e.Solve(ctx, l, s, &st)
		if err != nil && !errors.Is(err, ErrNotConverged) {
			return fits, err
		}
		if err != nil && first == nil {
			first = fmt.Errorf("λ = %g: %w", l, err)
		}
		fits = append(fits, f)
	}
	return fits, first
}

// LambdaGrid returns n values from lmax down to eps·lmax, equally spaced in
// log scale (the usual path grid; glmnet and scikit-learn use eps = 1e-3).
func LambdaGrid(lmax, eps float64, n int) []float64 {
	g := make([]float64, n)
	if n == 1 {
		g[0] = lmax
		return g
	}
	for i := range g {
		g[i] = lmax * math.Pow(eps, float64(i)/float64(n-1))
	}
	return g
}

// The Problem methods (consensus form x − z = 0).

// SetupFlam returns the flam NewElasticNet spent: the Gram matrix and Aᵀb
// (the first Cholesky factor is counted in the first solve's Stats).
func (e *ElasticNet) SetupFlam() float64 { return e.setupFlam }

// netProblem is an ElasticNet as an ADMM Problem, counting the flam of one
// solve.
type netProblem struct {
	e    *ElasticNet
	flam float64
}

// Dims implements Problem: n = m = p = number of features.
func (p *netProblem) Dims() (n, m, q int) { return p.e.n, p.e.n, p.e.n }

// refactor makes chol the Cholesky factor of gram + ρI.
func (p *netProblem) refactor(rho float64) error {
	e := p.e
	k := e.k
	for i := 0; i < k; i++ {
		copy(e.chol.Data[i*k:i*k+i+1], e.gram[i*k:i*k+i+1])
		e.chol.Data[i*k+i] += rho
	}
	if err := e.impl.Potrf(e.chol); err != nil {
		return fmt.Errorf("admm: Cholesky factor of the Gram matrix + %g·I: %w", rho, err)
	}
	e.rho = rho
	p.flam += lassoRefactorFlam(e.m, e.n)
	return nil
}

// UpdateX implements Problem: x = (AᵀA + ρI)⁻¹(Aᵀb − ρv), ax = x.
func (p *netProblem) UpdateX(x, ax, v []float64, rho float64) error {
	e := p.e
	if rho != e.rho {
		if err := p.refactor(rho); err != nil {
			return err
		}
	}
	q := e.q
	for i := range q {
		q[i] = e.atb[i] - rho*v[i]
	}
	if !e.wide {
		copy(x, q)
		e.impl.Potrs(e.chol, blas64.General{Rows: e.n, Cols: 1, Stride: 1, Data: x})
	} else {
		// x = (q − Aᵀ(ρI + AAᵀ)⁻¹A·q)/ρ.
		e.op.MulVecTo(e.tm, q)
		e.impl.Potrs(e.chol, blas64.General{Rows: e.m, Cols: 1, Stride: 1, Data: e.tm})
		e.op.MulTransVecTo(e.t, e.tm)
		for i := range x {
			x[i] = (q[i] - e.t[i]) / rho
		}
	}
	copy(ax, x)
	p.flam += lassoIterFlam(e.m, e.n)
	return nil
}

// UpdateZ implements Problem: z = S_{λα}(ρw)/(ρ + λ(1−α)), bz = −z.
func (p *netProblem) UpdateZ(z, bz, w []float64, rho float64) error {
	e := p.e
	k := e.lambda * e.l1
	den := rho + e.lambda*(1-e.l1)
	for i, wi := range w {
		v := rho * wi
		var zi float64
		switch {
		case v > k:
			zi = (v - k) / den
		case v < -k:
			zi = (v + k) / den
		}
		z[i] = zi
		bz[i] = -zi
	}
	return nil
}

// MulATTo implements Problem: A = I.
func (p *netProblem) MulATTo(dst, y []float64) { copy(dst, y) }

// C implements Problem: c = 0.
func (p *netProblem) C() []float64 { return nil }

// Flam implements FlamCounter.
func (p *netProblem) Flam() float64 { return p.flam }

func finite(what string, x []float64) error {
	for i, v := range x {
		if v-v != 0 {
			return fmt.Errorf("%w: %w: %s[%d] = %v", ErrInput, backend.ErrNotFinite, what, i, v)
		}
	}
	return nil
}

func finiteMat(what string, a blas64.General) error {
	for i := 0; i < a.Rows; i++ {
		for j, v := range a.Data[i*a.Stride : i*a.Stride+a.Cols] {
			if v-v != 0 {
				return fmt.Errorf("%w: %w: %s[%d,%d] = %v", ErrInput, backend.ErrNotFinite, what, i, j, v)
			}
		}
	}
	return nil
}

// lassoFactorFlam is the set-up of an ADMM lasso or elastic net with a dense
// m×n design: the Gram matrix of the smaller side, k = min(m, n) (AᵀA when
// n ≤ m, else AAᵀ: flam.Syrk(k, max(m, n))), its Cholesky factor after adding ρI
// (flam.Potrf(k)), and Aᵀb (m·n). Boyd et al. 2011 §4.2.4.
func lassoFactorFlam(m, n int) float64 {
	k, q := min(m, n), max(m, n)
	return flam.Syrk(k, q) + flam.Potrf(k) + flam.Gemv(m, n)
}

// lassoRefactorFlam is a new Cholesky factor after the penalty ρ changed:
// flam.Potrf(min(m, n)) plus restoring the Gram diagonal.
func lassoRefactorFlam(m, n int) float64 {
	k := min(m, n)
	return flam.Potrf(k) + float64(k)*float64(k+1)/2
}

// lassoIterFlam is one ADMM iteration of the lasso or elastic net with a cached
// factor (Boyd et al. 2011 §6.4): the x-update is two triangular solves with
// the n×n factor when n ≤ m; when m < n it is the matrix inversion lemma,
// Aᵀ(ρI + AAᵀ)⁻¹A·q, two products with A and two m×m triangular solves.
// The z-update (soft thresholding), the dual update and the residual norms
// are about 8n.
func lassoIterFlam(m, n int) float64 {
	vec := 8 * float64(n)
	if n <= m {
		return flam.Potrs(n, 1) + vec
	}
	return 2*flam.Gemv(m, n) + flam.Potrs(m, 1) + vec
}
