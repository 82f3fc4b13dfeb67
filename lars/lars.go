package lars

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

// ErrInput: the data or the settings are unusable (empty design, NaN or
// Inf — such errors also wrap backend.ErrNotFinite —, a response whose
// length is not the number of samples, a negative limit). The message names
// the argument and the problem.
var ErrInput = errors.New("lars: invalid input")

// GramMode says whether a Design precomputes the Gram matrix XᵀX.
type GramMode int

const (
	// GramAuto (the zero value) precomputes XᵀX when the design has at
	// most MaxAutoGram features and no more features than samples: a
	// Design is made to be reused (Design.FitMany), over which the Gram
	// matrix pays. (Fit, for one response, decides by its own rule.)
	GramAuto GramMode = iota
	// GramAlways precomputes XᵀX (p² memory, n·p²/2 flam once); every step
	// then costs O(p·k) instead of O(n·p).
	GramAlways
	// GramNever works from X itself: each step costs a product Xᵀu.
	GramNever
)

// MaxAutoGram is the largest number of features for which GramAuto
// precomputes the Gram matrix (a 2048² Gram matrix is 32 MiB).
const MaxAutoGram = 2048

// degenerateTol: a variable whose column, projected off the span of the
// active columns, keeps less than this fraction of its squared norm is
// treated as collinear with the active set and never enters (Efron et al.
// 2004 assume general position; with ties in the data this is what keeps
// the Cholesky factor of the active Gram matrix positive definite).
const degenerateTol = 1e-10

// Settings control a LARS run. The zero value runs the whole lasso path.
type Settings struct {
	// MaxNonZero stops the path at the first breakpoint where MaxNonZero
	// variables are active and the next event would add one more: the
	// returned final coefficients then have exactly MaxNonZero non-zeros
	// (fewer only if the path ends first) and are the lasso solution with
	// the smallest λ on that stretch of the path. 0: no limit.
	MaxNonZero int
	// LambdaMin stops the path at λ = LambdaMin (the last step is
	// shortened to land on it). λ is the penalty of the unscaled objective
	// ½‖y − Xβ‖² + λ‖β‖₁; scikit-learn's alpha is λ/n_samples. 0: down to 0.
	LambdaMin float64
	// MaxSteps bounds the number of steps (breakpoints after the first).
	// Default 8·min(n, p) + 8.
	MaxSteps int
	// LAR runs plain least angle regression, without the lasso
	// modification (variables never leave the active set).
	LAR bool
}

// Step is one breakpoint of the path.
type Step struct {
	// Lambda is λ at the breakpoint: the common absolute correlation
	// |x_jᵀ(y − Xβ)| of the active variables.
	Lambda float64
	// Active lists the active variables after the event of this
	// breakpoint, in the order they entered; Coef holds their coefficients
	// at the breakpoint (a variable that just entered has 0).
	Active []int
	Coef   []float64
	// Added and Dropped name the variable that entered or left the active
	// set at this breakpoint, -1 for none. The last breakpoint of a path
	// stopped by a limit has neither.
	Added, Dropped int
}

// StopReason says why a path ended.
type StopReason int

const (
	// StopEnd: the path reached λ = 0 (the least-squares fit on the active
	// set) or no variable can enter any more.
	StopEnd StopReason = iota
	// StopCardinality: Settings.MaxNonZero was reached.
	StopCardinality
	// StopLambda: Settings.LambdaMin was reached.
	StopLambda
	// StopSteps: Settings.MaxSteps was reached.
	StopSteps
)

func (r StopReason) String() string {
	switch r {
	case StopEnd:
		return "end of path"
	case StopCardinality:
		return "cardinality reached"
	case StopLambda:
		return "λ_min reached"
	case StopSteps:
		return "step limit"
	}
	return fmt.Sprintf("StopReason(%d)", int(r))
}

// Stats describe a LARS run.
type Stats struct {
	// Steps taken (breakpoints after the first), of which Drops were lasso
	// removals; Degenerate counts variables refused as collinear with the
	// active set.
	Steps, Drops, Degenerate int
	// Reason the path ended.
	Reason StopReason
	// Gram reports whether the precomputed Gram matrix was used.
	Gram bool
	// Flam is the arithmetic of this path, in flam (the Gram matrix of a
	// shared Design is counted in Design.SetupFlam, not here).
	Flam float64
}

// Path is the piecewise-linear lasso (or LAR) path.
type Path struct {
	// Steps are the breakpoints in order of decreasing λ; Steps[0] is
	// λ_max = ‖Xᵀy‖∞ with β = 0.
	Steps []Step
	// P is the number of features.
	P     int
	Stats Stats
}

// Coef returns the dense coefficient vector (length P) at breakpoint i.
func (p *Path) Coef(i int) []float64 {
	b := make([]float64, p.P)
	s := p.Steps[i]
	for k, j := range s.Active {
		b[j] = s.Coef[k]
	}
	return b
}

// Final returns the dense coefficients at the last breakpoint.
func (p *Path) Final() []float64 { return p.Coef(len(p.Steps) - 1) }

// Lambdas returns λ at every breakpoint.
func (p *Path) Lambdas() []float64 {
	l := make([]float64, len(p.Steps))
	for i, s := range p.Steps {
		l[i] = s.Lambda
	}
	return l
}

// At returns the coefficients at λ by linear interpolation between the
// breakpoints around it (the lasso path is linear in λ between
// breakpoints). λ above λ_max gives 0; below the last breakpoint, the last
// coefficients.
func (p *Path) At(lambda float64) []float64 {
	n := len(p.Steps)
	if lambda >= p.Steps[0].Lambda {
		return make([]float64, p.P)
	}
	for i := 1; i < n; i++ {
		hi, lo := p.Steps[i-1].Lambda, p.Steps[i].Lambda
		if lambda >= lo {
			b0, b1 := p.Coef(i-1), p.Coef(i)
			t := 0.0
			if hi > lo {
				t = (hi - lambda) / (hi - lo)
			}
			for j := range b0 {
				b0[j] += t * (b1[j] - b0[j])
			}
			return b0
		}
	}
	return p.Final()
}

// Design is the n×p design matrix X (n samples, p features, row-major) of
// one or many LARS fits, with its Gram matrix when precomputed. It is
// read-only after NewDesign and safe for concurrent use; X must not change
// while the Design is in use.
type Design struct {
	x         blas64.General
	n, p      int
	gram      []float64 // p×p full symmetric, or nil
	colSq     []float64 // ‖x_j‖²
	impl      backend.Impl
	setupFlam float64
}

// NewDesign checks x and, as mode says, precomputes XᵀX (Syrk,
// GramFlam). Errors wrap ErrInput (empty, NaN or Inf).
func NewDesign(x blas64.General, mode GramMode) (*Design, error) {
	n, p := x.Rows, x.Cols
	if n == 0 || p == 0 {
		return nil, fmt.Errorf("%w: X is %d×%d, need at least one sample and one feature", ErrInput, n, p)
	}
	if mode < GramAuto || mode > GramNever {
		return nil, fmt.Errorf("%w: GramMode %d", ErrInput, mode)
	}
	for i := 0; i < n; i++ {
		for j, v := range x.Data[i*x.Stride : i*x.Stride+p] {
			if v-v != 0 {
				return nil, fmt.Errorf("%w: %w: X[%d,%d] = %v", ErrInput, backend.ErrNotFinite, i, j, v)
			}
		}
	}
	d := &Design{x: x, n: n, p: p, impl: backend.Active()}
	useGram := mode == GramAlways || (mode == GramAuto && p <= MaxAutoGram && p <= n)
	d.colSq = make([]float64, p)
	if useGram {
		d.gram = make([]float64, p*p)
		d.impl.Syrk(blas.Trans, 1, x, 0, blas64.Symmetric{N: p, Stride: p, Data: d.gram, Uplo: blas.Upper})
		for i := 0; i < p; i++ {
			for j := i + 1; j < p; j++ {
				d.gram[j*p+i] = d.gram[i*p+j]
			}
			d.colSq[i] = d.gram[i*p+i]
		}
		d.setupFlam = flam.Syrk(p, n)
	} else {
		for i := 0; i < n; i++ {
			for j, v := range x.Data[i*x.Stride : i*x.Stride+p] {
				d.colSq[j] += v * v
			}
		}
		d.setupFlam = float64(n) * float64(p)
	}
	return d, nil
}

// Dims returns the number of samples n and of features p. (n, p int) { return d.n, d.p }

// HasGram reports whether the Gram matrix was precomputed.
func (d *Design) HasGram() bool { return d.gram != nil }

// SetupFlam returns the flam NewDesign spent.
func (d *Design) SetupFlam() float64 { return d.setupFlam }

// Fit computes the lasso path (LAR with Settings.LAR) of y on X: one
// Design, used once. It precomputes the Gram matrix (n·p²/2 flam, at
// matrix–matrix speed) only when that costs less than the products Xᵀu it
// saves (k·n·p flam at the memory-bound matrix–vector speed, k =
// Settings.MaxNonZero or min(n, p) for the whole path): when p ≤ n,
// p ≤ MaxAutoGram and p ≤ 2·k·r, with r the measured speed ratio of the
// two, 1 for the pure-Go backend (serial Syrk) and 5 for OpenBLAS. On 5000
// samples × 256 features to 50 non-zeros (BenchmarkLARS50of256, 2-core AMD
// EPYC shared with other work, medians of 5): pure Go 53 ms from X, 72 ms
// with the Gram matrix (31 and 44 ms in a quieter run); OpenBLAS 23 ms
// from X, 11 ms with it; 0.6–1.3 ms once the Gram matrix exists. For several responses on one design use NewDesign and
// Design.FitMany. See Design.Fit.
func Fit(ctx context.Context, x blas64.General, y []float64, s Settings) (*Path, error) {
	n, p := x.Rows, x.Cols
	k := s.MaxNonZero
	if k <= 0 {
		k = min(n, p)
	}
	r := 1
	if backend.Active().Name() != "purego" {
		r = 5
	}
	mode := GramNever
	if p <= n && p <= MaxAutoGram && p <= 2*k*r {
		mode = GramAlways
	}
	d, err := NewDesign(x, mode)
	if err != nil {
		return nil, err
	}
	path, err := d.Fit(ctx, y, s)
	if path != nil {
		path.Stats.Flam += d.setupFlam
	}
	return path, err
}

// FitMany fits every column of the n×r Y on the same design, in parallel
// (backend.ParallelForCtx, one response per task), as sparse spectral
// regression and Sparse OIP do with their r embedding coordinates. It
// returns the r paths, or the first error.
func (d *Design) FitMany(ctx context.Context, y blas64.General, s Settings) ([]*Path, error) {
	if y.Rows != d.n {
		return nil, fmt.Errorf("%w: Y has %d rows, X has %d samples", ErrInput, y.Rows, d.n)
	}
	paths := make([]*Path, y.Cols)
	errs := make([]error, y.Cols)
	err := backend.ParallelForCtx(ctx, y.Cols, 1, func(lo, hi int) {
		col := make([]float64, d.n)
		for c := lo; c < hi; c++ {
			for i := range col {
				col[i] = y.Data[i*y.Stride+c]
			}
			paths[c], errs[c] = d.Fit(ctx, col, s)
		}
	})
	for c, e := range errs {
		if e != nil {
			return paths, fmt.Errorf("lars: response %d: %w", c, e)
		}
	}
	if err != nil {
		return paths, err
	}
	return paths, nil
}

// Fit computes the lasso path of y (length n) on the design by LARS with
// the lasso modification (Efron et al. 2004, §2 and §3.1), or plain LAR
// with Settings.LAR, from λ_max = ‖Xᵀy‖∞ down to the first limit of
// Settings. Each step costs StepFlam(n, p, k, gram) with k active
// variables. ctx is checked every step. Errors wrap ErrInput or ctx.Err().
//
// The intercept is not fitted: center y and the columns of X first if one
// is wanted (as lars_path in scikit-learn also expects).
func (d *Design) Fit(ctx context.Context, y []float64, s Settings) (*Path, error) {
	n, p := d.n, d.p
	if len(y) != n {
		return nil, fmt.Errorf("%w: y has length %d, X has %d samples", ErrInput, len(y), n)
	}
	for i, v := range y {
		if v-v != 0 {
			return nil, fmt.Errorf("%w: %w: y[%d] = %v", ErrInput, backend.ErrNotFinite, i, v)
		}
	}
	if s.MaxNonZero < 0 || s.MaxSteps < 0 || !(s.LambdaMin >= 0) || math.IsInf(s.LambdaMin, 0) {
		return nil, fmt.Errorf("%w: Settings MaxNonZero = %d, MaxSteps = %d, LambdaMin = %v; need non-negative values",
			ErrInput, s.MaxNonZero, s.MaxSteps, s.LambdaMin)
	}
	maxSteps := s.MaxSteps
	if maxSteps == 0 {
		maxSteps = 8*min(n, p) + 8
	}
	r := newRun(d, s)
	c := r.c
	d.impl.Gemv(blas.Trans, 1, d.x, blas64.Vector{N: n, Inc: 1, Data: y}, 0, blas64.Vector{N: p, Inc: 1, Data: c})
	r.flam += flam.Gemv(n, p)
	path := &Path{P: p}
	path.Stats.Gram = d.gram != nil

	// The first variable: the largest absolute correlation.
	C, first := 0.0, -1
	for j, v := range c {
		if d.colSq[j] > 0 && math.Abs(v) > C {
			C, first = math.Abs(v), j
		}
	}
	if first < 0 || C == 0 {
		// y is orthogonal to every column: β = 0 for every λ.
		path.Steps = []Step{{Lambda: C, Added: -1, Dropped: -1}}
		path.Stats.Flam = r.flam
		return path, nil
	}
	if C <= s.LambdaMin {
		path.Steps = []Step{{Lambda: C, Added: -1, Dropped: -1}}
		path.Stats.Reason = StopLambda
		path.Stats.Flam = r.flam
		return path, nil
	}
	pending := first // variable to add at the current breakpoint
	event := Step{Lambda: C, Added: -1, Dropped: -1}
	justDropped, droppedSign := -1, 0.0
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("lars: cancelled after %d steps: %w", path.Stats.Steps, err)
		}
		// Add the pending variable (or refuse it as collinear).
		if pending >= 0 {
			if s.MaxNonZero > 0 && len(r.active) >= s.MaxNonZero {
				path.Steps = append(path.Steps, r.snapshot(event))
				path.Stats.Reason = StopCardinality
				break
			}
			if r.add(pending, math.Copysign(1, c[pending])) {
				event.Added = pending
			} else {
				path.Stats.Degenerate++
			}
		}
		path.Steps = append(path.Steps, r.snapshot(event))
		if path.Stats.Steps >= maxSteps {
			path.Stats.Reason = StopSteps
			break
		}
		if len(r.active) == 0 {
			// Only possible when the first variable was refused: restart
			// from the next best one.
			C, pending = 0, -1
			for j, v := range c {
				if !r.excluded[j] && d.colSq[j] > 0 && math.Abs(v) > C {
					C, pending = math.Abs(v), j
				}
			}
			if pending < 0 {
				break
			}
			event = Step{Lambda: C, Added: -1, Dropped: -1}
			path.Steps = path.Steps[:len(path.Steps)-1]
			continue
		}
		// Equiangular direction: G_AA·w = s_A (Efron et al. eq. 2.5 up to
		// the normalization A_A, which the step length absorbs), and
		// a = Xᵀ·X_A·w, the rate at which every correlation changes.
		if !r.fresh {
			r.direction()
		}
		a := r.a
		// Step to the next entry (eq. 2.13, in the unnormalized form
		// γ = (C − c_j)/(1 − a_j), (C + c_j)/(1 + a_j), smallest positive).
		// With n active columns (n ≤ p) they span Rⁿ: any other column is
		// in their span and would only be refused as collinear, one step
		// per variable (hundreds of wasted steps on wide designs such as
		// SOIP's 200 × 4096 faces); the path goes to λ = 0 or a drop.
		gamma, enter := C, -1
		if len(r.active) < n {
			gamma, enter = r.entering(C, justDropped, droppedSign)
		}
		// Lasso modification (§3.1, eq. 3.4–3.6): a coefficient reaching 0
		// before the next entry ends the step and leaves the active set.
		drop := -1
		if !s.LAR {
			for k, j := range r.active {
				if r.w[k] == 0 {
					continue
				}
				g := -r.beta[j] / r.w[k]
				if g > 1e-12*C && g < gamma {
					gamma, drop = g, j
				}
			}
		}
		stopLambda := false
		if C-gamma <= s.LambdaMin {
			gamma = C - s.LambdaMin
			stopLambda = true
			enter, drop = -1, -1
		}
		// Take the step.
		for k, j := range r.active {
			r.beta[j] += gamma * r.w[k]
		}
		for j := range c {
			c[j] -= gamma * a[j]
		}
		r.flam += 2 * float64(p)
		C -= gamma
		if !stopLambda && C <= 1e-13*path.Steps[0].Lambda {
			// The residual is orthogonal to every column: λ = 0.
			enter, drop = -1, -1
		}
		path.Stats.Steps++
		event = Step{Lambda: C, Added: -1, Dropped: -1}
		justDropped, pending = -1, -1
		switch {
		case stopLambda:
			path.Steps = append(path.Steps, r.snapshot(event))
			path.Stats.Reason = StopLambda
		case drop >= 0:
			droppedSign = r.sign[r.pos(drop)]
			r.beta[drop] = 0
			r.remove(drop)
			event.Dropped = drop
			justDropped = drop
			path.Stats.Drops++
			continue
		case enter >= 0:
			pending = enter
			continue
		default:
			// γ = C: the least-squares fit on the active set, λ = 0.
			event.Lambda = 0
			path.Steps = append(path.Steps, r.snapshot(event))
			path.Stats.Reason = StopEnd
		}
		break
	}
	path.Stats.Flam = r.flam
	return path, nil
}

// GramFlam is the precomputed Gram matrix XᵀX of an n×p design (its
// triangle, Syrk) and Xᵀy.
func GramFlam(n, p int) float64 { return flam.Syrk(p, n) + flam.Gemv(n, p) }

// StepFlam is one step of LARS (Efron et al. 2004) with k active variables
// out of p, n samples: solving for the equiangular direction with the
// Cholesky factor of the active Gram matrix (the backward solve, k²/2 flam,
// and one new row of the forward solve, k, which is kept between steps;
// a drop at position k0 re-solves the rows from k0 on), the correlations of
// every variable with it, a = Xᵀu (gram: G[:,A]·w, p·k flam; otherwise
// u = X_A·w and Xᵀu, n·k + n·p flam), and adding one variable to the
// factor (a triangular solve, k²/2, plus its Gram column: n·k without the
// precomputed Gram).
func StepFlam(n, p, k int, gram bool) float64 {
	fk := float64(k)
	solve := fk*fk/2 + fk
	add := fk * fk / 2
	if gram {
		return solve + float64(p)*fk + add + 4*float64(p)
	}
	return solve + float64(n)*fk + flam.Gemv(n, p) + add + float64(n)*fk + 4*float64(p) + 2*float64(n)
}
