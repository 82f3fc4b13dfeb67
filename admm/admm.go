package admm

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Errors returned (wrapped) by the solvers. errors.Is works on them; an error
// about NaN or Inf in the data also wraps backend.ErrNotFinite.
var (
	// ErrInput: the data or the settings are unusable (empty, NaN or Inf,
	// lengths inconsistent with the data, a negative weight, …). The message
	// names the argument and the problem.
	ErrInput = errors.New("admm: invalid input")
	// ErrNotConverged: the iteration limit was reached before the stopping
	// criteria held. The iterate and the Stats returned with it are valid:
	// the last iterate, not a solution to the requested accuracy.
	ErrNotConverged = errors.New("admm: not converged within the iteration limit")
)

// Problem is a convex problem split for ADMM (Boyd et al. 2011, eq. 3.1):
//
//	minimize f(x) + g(z) subject to A·x + B·z = c,
//
// with x ∈ Rⁿ, z ∈ Rᵐ and c ∈ Rᵖ (Dims returns n, m, p). The driver Solve
// runs the scaled form of the iteration (§3.1.1, eq. 3.5–3.7) and asks the
// problem only for the two minimizations, for products with Aᵀ (to measure
// the dual residual) and for c. A, B and c never need to exist as matrices:
// for the common consensus form x − z = 0 (A = I, B = −I, c = 0; lasso,
// elastic net, constrained least squares) the products are copies.
//
// The methods fill the slices they are given (overwrite semantics) and
// must not retain them.
type Problem interface {
	// Dims returns the lengths n of x, m of z and p of c.
	Dims() (n, m, p int)
	// UpdateX sets x to argmin_x f(x) + ρ/2·‖A·x + v‖² and ax to A·x, where
	// v = B·z − c + u is supplied by the driver.
	UpdateX(x, ax, v []float64, rho float64) error
	// UpdateZ sets z to argmin_z g(z) + ρ/2·‖B·z + w‖² and bz to B·z, where
	// w = Â − c + u and Â is A·x, over-relaxed (§3.4.3) when Settings.Relax ≠ 1.
	UpdateZ(z, bz, w []float64, rho float64) error
	// MulATTo sets dst (length n) to Aᵀ·y (y of length p).
	MulATTo(dst, y []float64)
	// C returns c (length p); nil means the zero vector.
	C() []float64
}

// FlamCounter is implemented by a Problem that counts its own arithmetic;
// the driver adds Flam() (cumulative) to Stats.Flam.
type FlamCounter interface {
	Flam() float64
}

// PenaltyObserver is implemented by a Problem that wants to know when the
// driver changed ρ (for instance to drop a cached factorization early); the
// new ρ is also passed to every UpdateX and UpdateZ call.
type PenaltyObserver interface {
	PenaltyChanged(oldRho, newRho float64)
}

// Settings control the ADMM driver. The zero value means the documented
// defaults; the driver never modifies a Settings.
type Settings struct {
	// Rho is the initial penalty ρ > 0 when State.Rho is 0. Default 1.
	Rho float64
	// Relax is the over-relaxation parameter α ∈ (0, 2) of §3.4.3: the
	// z- and u-updates use α·A·x − (1−α)·(B·z_old − c) in place of A·x.
	// Boyd et al. report α ∈ [1.5, 1.8] often faster. Default 1 (none).
	Relax float64
	// AbsTol and RelTol are ε_abs and ε_rel of the stopping criterion
	// (§3.3.1, eq. 3.12): stop when ‖r‖ ≤ √p·ε_abs + ε_rel·max(‖Ax‖, ‖Bz‖, ‖c‖)
	// and ‖s‖ ≤ √n·ε_abs + ε_rel·‖ρAᵀu‖. Defaults 1e-6 and 1e-5 (Boyd et
	// al.'s examples use 1e-4 and 1e-2, which leave visible error in the
	// solution).
	AbsTol, RelTol float64
	// MaxIter bounds the iterations. Default 10000.
	MaxIter int
	// FixedRho turns off residual balancing: ρ keeps its initial value.
	FixedRho bool
	// Balance (μ) and Scale (τ) set residual balancing (§3.4.1, eq. 3.13):
	// ρ ← τ·ρ when ‖r‖ > μ‖s‖, ρ ← ρ/τ when ‖s‖ > μ‖r‖, and the scaled dual
	// u is rescaled by the inverse factor. Defaults μ = 10, τ = 2.
	Balance, Scale float64
	// AdaptIter stops residual balancing after this many iterations, so
	// that ρ is eventually fixed (the convergence theory assumes a fixed ρ
	// after finitely many changes, §3.4.1). Default 1000.
	AdaptIter int
}

// Defaults of Settings.
const (
	DefaultRho       = 1.0
	DefaultAbsTol    = 1e-6
	DefaultRelTol    = 1e-5
	DefaultMaxIter   = 10000
	DefaultBalance   = 10.0
	DefaultScale     = 2.0
	DefaultAdaptIter = 1000
)

// withDefaults returns s with zero fields replaced by the defaults and
// checks the values.
func (s Settings) withDefaults() (Settings, error) {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&s.Rho, DefaultRho)
	def(&s.Relax, 1)
	def(&s.AbsTol, DefaultAbsTol)
	def(&s.RelTol, DefaultRelTol)
	def(&s.Balance, DefaultBalance)
	def(&s.Scale, DefaultScale)
	if s.MaxIter == 0 {
		s.MaxIter = DefaultMaxIter
	}
	if s.AdaptIter == 0 {
		s.AdaptIter = DefaultAdaptIter
	}
	switch {
	case !(s.Rho > 0) || math.IsInf(s.Rho, 0):
		return s, fmt.Errorf("%w: Settings.Rho = %v, need a finite ρ > 0", ErrInput, s.Rho)
	case !(s.Relax > 0 && s.Relax < 2):
		return s, fmt.Errorf("%w: Settings.Relax = %v, need 0 < α < 2", ErrInput, s.Relax)
	case !(s.AbsTol > 0) || !(s.RelTol >= 0):
		return s, fmt.Errorf("%w: Settings.AbsTol = %v, RelTol = %v, need positive tolerances", ErrInput, s.AbsTol, s.RelTol)
	case s.MaxIter < 0 || s.AdaptIter < 0:
		return s, fmt.Errorf("%w: Settings.MaxIter = %d, AdaptIter = %d, need ≥ 0", ErrInput, s.MaxIter, s.AdaptIter)
	case !(s.Balance > 1) || !(s.Scale > 1):
		return s, fmt.Errorf("%w: Settings.Balance = %v, Scale = %v, need both > 1", ErrInput, s.Balance, s.Scale)
	}
	return s, nil
}

// State is the ADMM iterate: x, z, the scaled dual variable u = y/ρ and the
// penalty ρ. Passing the State of a previous solve warm-starts the next one
// (along a regularization path, for instance). Nil slices start at zero;
// Rho 0 starts at Settings.Rho.
type State struct {
	X, Z, U []float64
	Rho     float64
}

// Stats describe a run of an ADMM solver.
type Stats struct {
	// Iterations run.
	Iterations int
	// Converged reports whether the stopping criteria held.
	Converged bool
	// PrimalResidual ‖r‖ = ‖Ax + Bz − c‖ and DualResidual ‖s‖ =
	// ‖ρAᵀB(z − z_old)‖ at the last iteration, with the tolerances they
	// were held against (eq. 3.12).
	PrimalResidual, DualResidual float64
	EpsPrimal, EpsDual           float64
	// Rho is the final penalty, RhoChanges how often residual balancing
	// changed it.
	Rho        float64
	RhoChanges int
	// Objective is the objective at the returned point, when the solver
	// knows it (the lasso and elastic net do; Solve leaves it 0).
	Objective float64
	// Flam is the arithmetic done, in flam (backend/flam), including the
	// problem's own when it implements FlamCounter.
	Flam float64
}

// Solve runs ADMM on p from st (warm start; st is updated in place and
// holds the final iterate) until the stopping criterion of Boyd et al. eq.
// 3.12 holds, ctx is cancelled, or Settings.MaxIter is reached. ctx is
// checked once per iteration; cancellation returns an error wrapping
// ctx.Err(). Reaching MaxIter returns an error wrapping ErrNotConverged,
// with st and the Stats describing the last iterate.
//
// Per iteration it does one UpdateX, one UpdateZ, one MulATTo and about
// 12·p flam of vector work. A State whose slices have the wrong lengths is
// a programmer error and panics.
func Solve(ctx context.Context, p Problem, st *State, s Settings) (Stats, error) {
	s, err := s.withDefaults()
	if err != nil {
		return Stats{}, err
	}
	n, m, q := p.Dims()
	st.X = ensure(st.X, n, "State.X")
	st.Z = ensure(st.Z, m, "State.Z")
	st.U = ensure(st.U, q, "State.U")
	if st.Rho == 0 {
		st.Rho = s.Rho
	}
	if !(st.Rho > 0) || math.IsInf(st.Rho, 0) {
		return Stats{}, fmt.Errorf("%w: State.Rho = %v, need a finite ρ > 0", ErrInput, st.Rho)
	}
	c := p.C()
	if c != nil && len(c) != q {
		panic(fmt.Sprintf("admm: Problem.C has length %d, Dims says p = %d", len(c), q))
	}
	var (
		ax    = make([]float64, q)
		bz    = make([]float64, q)
		bzOld = make([]float64, q)
		v     = make([]float64, q)
		dz    = make([]float64, q)
		atv   = make([]float64, n)
		stats Stats
		vflam float64
	)
	// B·z of the starting z, which the first x-update needs: from
	// BMultiplier, or −z in consensus form.
	bzOf(p, st.Z, bz)
	rho := st.Rho
	nrm := func(x []float64) float64 { return math.Sqrt(dot(x, x)) }
	for it := 1; it <= s.MaxIter; it++ {
		if err := ctx.Err(); err != nil {
			stats.Iterations = it - 1
			stats.Rho = rho
			stats.Flam = vflam + problemFlam(p)
			return stats, fmt.Errorf("admm: cancelled after %d iterations: %w", it-1, err)
		}
		// x-update (eq. 3.5): v = B·z − c + u.
		for i := range v {
			v[i] = bz[i] + st.U[i]
			if c != nil {
				v[i] -= c[i]
			}
		}
		if err := p.UpdateX(st.X, ax, v, rho); err != nil {
			return stats, err
		}
		// z-update (eq. 3.6) with over-relaxation: Â = α·A·x − (1−α)(B·z − c).
		copy(bzOld, bz)
		a := s.Relax
		for i := range v {
			ci := 0.0
			if c != nil {
				ci = c[i]
			}
			ah := ax[i]
			if a != 1 {
				ah = a*ax[i] - (1-a)*(bz[i]-ci)
			}
			v[i] = ah - ci + st.U[i] // w, reusing v
			dz[i] = ah               // keep Â for the dual update
		}
		if err := p.UpdateZ(st.Z, bz, v, rho); err != nil {
			return stats, err
		}
		// u-update (eq. 3.7) and residuals r = Ax + Bz − c, s = ρAᵀB(z − z_old).
		var rr, nax, nbz, nc float64
		for i := range st.U {
			ci := 0.0
			if c != nil {
				ci = c[i]
			}
			st.U[i] += dz[i] + bz[i] - ci
			r := ax[i] + bz[i] - ci
			rr += r * r
			nax += ax[i] * ax[i]
			nbz += bz[i] * bz[i]
			nc += ci * ci
			dz[i] = bz[i] - bzOld[i]
		}
		p.MulATTo(atv, dz)
		sres := rho * nrm(atv)
		p.MulATTo(atv, st.U)
		uNorm := rho * nrm(atv)
		vflam += 12 * float64(q)
		stats.PrimalResidual = math.Sqrt(rr)
		stats.DualResidual = sres
		stats.EpsPrimal = math.Sqrt(float64(q))*s.AbsTol + s.RelTol*math.Sqrt(max(nax, nbz, nc))
		stats.EpsDual = math.Sqrt(float64(n))*s.AbsTol + s.RelTol*uNorm
		stats.Iterations = it
		if math.IsNaN(stats.PrimalResidual) || math.IsNaN(stats.DualResidual) {
			stats.Rho = rho
			return stats, fmt.Errorf("%w: residuals became NaN at iteration %d", ErrInput, it)
		}
		if stats.PrimalResidual <= stats.EpsPrimal && stats.DualResidual <= stats.EpsDual {
			stats.Converged = true
			break
		}
		// Residual balancing (eq. 3.13), rescaling the scaled dual u.
		if !s.FixedRho && it <= s.AdaptIter {
			f := 1.0
			switch {
			case stats.PrimalResidual > s.Balance*stats.DualResidual:
				f = s.Scale
			case stats.DualResidual > s.Balance*stats.PrimalResidual:
				f = 1 / s.Scale
			}
			if f != 1 {
				if po, ok := p.(PenaltyObserver); ok {
					po.PenaltyChanged(rho, rho*f)
				}
				rho *= f
				for i := range st.U {
					st.U[i] /= f
				}
				stats.RhoChanges++
			}
		}
	}
	st.Rho = rho
	stats.Rho = rho
	stats.Flam = vflam + problemFlam(p)
	if !stats.Converged {
		return stats, fmt.Errorf("%w: %d iterations, primal residual %.3g (tolerance %.3g), dual residual %.3g (tolerance %.3g)",
			ErrNotConverged, stats.Iterations, stats.PrimalResidual, stats.EpsPrimal, stats.DualResidual, stats.EpsDual)
	}
	return stats, nil
}

// BMultiplier is implemented by a Problem whose B·z the driver needs before
// the first z-update of a warm start (B·z of the State's z). Problems in
// consensus form x − z = 0 need not implement it: without it B = −I is
// assumed (Dims must then have m = p).
type BMultiplier interface {
	MulBTo(dst, z []float64)
}

func bzOf(p Problem, z, dst []float64) {
	if bm, ok := p.(BMultiplier); ok {
		bm.MulBTo(dst, z)
		return
	}
	if len(z) != len(dst) {
		panic(fmt.Sprintf("admm: Problem has m = %d ≠ p = %d and does not implement BMultiplier", len(z), len(dst)))
	}
	for i, v := range z {
		dst[i] = -v
	}
}

func problemFlam(p Problem) float64 {
	if fc, ok := p.(FlamCounter); ok {
		return fc.Flam()
	}
	return 0
}

func ensure(x []float64, n int, what string) []float64 {
	if x == nil {
		return make([]float64, n)
	}
	if len(x) != n {
		panic(fmt.Sprintf("admm: %s has length %d, the problem needs %d", what, len(x), n))
	}
	return x
}

func dot(x, y []float64) float64 {
	y = y[:len(x)]
	s := 0.0
	for i, v := range x {
		s += v * y[i]
	}
	return s
}
