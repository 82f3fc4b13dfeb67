package admm

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
)

// LRRSettings are the constants of Mehrbani & Kahaei, Low-Rank Isomap Alg. 2. The zero
// value means the paper's defaults; LRR never modifies a LRRSettings.
type LRRSettings struct {
	// Beta weighs ‖Z‖₁ in eq. (9). Default 1.0 (Alg. 2). Eq. (17)–(18) call
	// this weight λ and eq. (11) attaches it to J; we follow eq. (9) and
	// Alg. 2's constants: J carries β‖J‖₁, thresholded at β/μ in eq. (18).
	Beta float64
	// Lambda weighs ‖E‖₁ in eq. (9). Default 0.02 (Alg. 2). Eq. (11), (19)
	// and (20) call it γ; E is thresholded at λ/μ in eq. (20). The paper's E
	// norm is the elementwise ℓ1 norm (eq. 9, 19, 20), not the ℓ2,1 norm of
	// column-sparse LRR; we follow the paper.
	Lambda float64
	// Mu0 and MuMax are the initial and largest penalty μ (eq. 23).
	// Defaults 1e-6 and 1e6.
	Mu0, MuMax float64
	// Rho0 is the penalty growth factor ρ₀ of eq. (24). Default 2.5.
	Rho0 float64
	// Eps1 bounds the relative constraint residual of eq. (25), default
	// 1e-6; Eps2 bounds the change of eq. (26), default 1e-2.
	Eps1, Eps2 float64
	// EtaScale is the factor by which η₁ exceeds the bound of eq. (16):
	// η₁ = EtaScale·μ_k·(1 + ‖S‖₂²), recomputed whenever μ changes (the
	// bound involves μ, which eq. 23 increases; LADMAP's η is likewise
	// tied to the penalty). Default 1.02; must be > 1.
	EtaScale float64
	// MaxIter bounds the iterations. Default 10000 (the paper gives no limit; the planted problems of the tests need 2000–6000).
	MaxIter int
	// SVT selects the singular value thresholding method. Default SVTAuto.
	SVT SVTMethod
	// Seed seeds the random start blocks of the partial SVD.
	Seed uint64
	// NoScaling runs Alg. 2 on S as given. By default LRR runs it on
	// S/‖S‖₂ with λ·‖S‖₂ in place of λ — the same problem (9), since
	// (Z, E) solves (9) for (S, λ) exactly when (Z, E/c) solves it for
	// (S/c, λc) — and reports E and M1 in the units of S. The paper's
	// constants μ₀, μmax and ε₂ are absolute, and its single penalty μ
	// weighs the constraints S = SZ + E (curvature μ‖S‖₂²) and Z = J
	// (curvature μ) alike, so on unscaled data (pixel values, ‖S‖₂ ≫ 1)
	// η₁ of eq. (16) is huge, the change of eq. (24) stays above ε₂ and μ
	// never grows. On a planted 40×60 problem with ‖S‖₂ = 333, Alg. 2 on
	// the scaled S converged in 5234 iterations; on the raw S it had not
	// met eq. (26) after 20000, with μ stuck at 0.149 (TestLRRScaling
	// checks a smaller instance: 936 iterations scaled, not converged raw
	// within the same budget).
	NoScaling bool
	// Trace records the objective of eq. (9) at every iterate in
	// LRRStats.Objectives (one float64 per iteration).
	Trace bool
}

// Defaults of LRRSettings (Mehrbani & Kahaei, Low-Rank Isomap Alg. 2, step 1).
const (
	DefaultLRRBeta     = 1.0
	DefaultLRRLambda   = 0.02
	DefaultLRRMu0      = 1e-6
	DefaultLRRMuMax    = 1e6
	DefaultLRRRho0     = 2.5
	DefaultLRREps1     = 1e-6
	DefaultLRREps2     = 1e-2
	DefaultLRREtaScale = 1.02
	DefaultLRRMaxIter  = 10000
)

func (s LRRSettings) withDefaults() (LRRSettings, error) {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&s.Beta, DefaultLRRBeta)
	def(&s.Lambda, DefaultLRRLambda)
	def(&s.Mu0, DefaultLRRMu0)
	def(&s.MuMax, DefaultLRRMuMax)
	def(&s.Rho0, DefaultLRRRho0)
	def(&s.Eps1, DefaultLRREps1)
	def(&s.Eps2, DefaultLRREps2)
	def(&s.EtaScale, DefaultLRREtaScale)
	if s.MaxIter == 0 {
		s.MaxIter = DefaultLRRMaxIter
	}
	pos := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: LRRSettings.%s = %v, need a finite positive value", ErrInput, name, v)
		}
		return nil
	}
	for _, c := range []struct {
		n string
		v float64
	}{{"Beta", s.Beta}, {"Lambda", s.Lambda}, {"Mu0", s.Mu0}, {"MuMax", s.MuMax}, {"Eps1", s.Eps1}, {"Eps2", s.Eps2}} {
		if err := pos(c.n, c.v); err != nil {
			return s, err
		}
	}
	switch {
	case s.MuMax < s.Mu0:
		return s, fmt.Errorf("%w: LRRSettings.MuMax = %v below Mu0 = %v", ErrInput, s.MuMax, s.Mu0)
	case !(s.Rho0 >= 1) || math.IsInf(s.Rho0, 0):
		return s, fmt.Errorf("%w: LRRSettings.Rho0 = %v, need ρ₀ ≥ 1", ErrInput, s.Rho0)
	case !(s.EtaScale > 1) || math.IsInf(s.EtaScale, 0):
		return s, fmt.Errorf("%w: LRRSettings.EtaScale = %v, need > 1 (eq. 16 is strict)", ErrInput, s.EtaScale)
	case s.MaxIter < 0:
		return s, fmt.Errorf("%w: LRRSettings.MaxIter = %d", ErrInput, s.MaxIter)
	case s.SVT < SVTAuto || s.SVT > SVTPartial:
		return s, fmt.Errorf("%w: LRRSettings.SVT = %v", ErrInput, s.SVT)
	}
	return s, nil
}

// LRRStats describe a run of LRR.
type LRRStats struct {
	Iterations int
	Converged  bool
	// PrimalResidual is ‖S − SZ − E‖_F/‖S‖_F (eq. 25) and ZJResidual
	// ‖Z − J‖_F/max(1, ‖Z‖_F), the second constraint of eq. (10), at the
	// last iterate; both must fall below Eps1.
	PrimalResidual, ZJResidual float64
	// Change is max{η₁‖Z_{k+1} − Z_k‖, μ_k‖J_{k+1} − J_k‖, μ_k‖E_{k+1} − E_k‖}
	// (eq. 24, 26; Frobenius norms), which must fall to Eps2: the dual
	// residual of this method (η₁(Z_{k+1} − Z_k) is the proximal term's
	// contribution to the optimality condition of the Z-step).
	Change float64
	// Mu and Eta1 are the final μ and η₁ (for the scaled S unless
	// NoScaling); SNorm is ‖S‖₂ and Scale the factor S was divided by
	// (‖S‖₂, or 1 with NoScaling).
	Mu, Eta1, SNorm, Scale float64
	// Rank is the rank of Z (singular values kept by the last SVT).
	Rank int
	// Objective is ‖Z‖_* + β‖Z‖₁ + λ‖E‖₁ (eq. 9) at the returned Z and E;
	// Objectives is its value at every iterate when LRRSettings.Trace is
	// set. It is not monotone: the early iterates are far from feasible
	// (see the package documentation).
	Objective  float64
	Objectives []float64
	// PartialSVTs, FullSVTs and Sweeps count the SVT calls by method and the
	// subspace-iteration sweeps; Fallbacks counts partial calls that did not
	// converge and were redone by the full SVD.
	PartialSVTs, FullSVTs, Sweeps, Fallbacks int
	// Flam is the arithmetic done, in flam.
	Flam float64
}

// LRRResult is the solution of the low-rank representation S = SZ + E.
type LRRResult struct {
	// Z (n×n) is the low-rank coefficient matrix, the output Z_B of Alg. 2:
	// the last SVT iterate, of rank Stats.Rank.
	Z blas64.General
	// J (n×n) is the auxiliary copy of Z of eq. (10): elementwise
	// nonnegative and sparse; ‖Z − J‖ ≤ Eps1·max(1, ‖Z‖) at convergence.
	J blas64.General
	// E (m×n) is the sparse error.
	E blas64.General
	// M1 (m×n) and M2 (n×n) are the Lagrange multipliers of the constraints
	// S = SZ + E and Z = J (eq. 21–22), a certificate of optimality: at a
	// solution SᵀM1 − M2 is a subgradient of ‖·‖_* at Z, |M1| ≤ λ
	// elementwise, and M2 ≤ β.
	M1, M2 blas64.General
	Stats  LRRStats
}

// LRR computes the low-rank representation of the columns of the m×n S
// (Mehrbani & Kahaei, Low-Rank Isomap eq. 9):
//
//	minimize ‖Z‖_* + β‖Z‖₁ + λ‖E‖₁  subject to  S = SZ + E,  Z ≥ 0,
//
// by the linearized ADMM with adaptive penalty of Alg. 2 (Lin, Liu & Su
// 2011, LADMAP), with the auxiliary J of eq. (10):
//
//	Z ← Θ_{1/η₁}(Z − ∇q(Z)/η₁)                            eq. (12)–(15)
//	J ← max(S_{β/μ}(Z + M2/μ), 0)                          eq. (18)
//	E ← S_{λ/μ}(S − SZ + M1/μ)                             eq. (20)
//	M1 ← M1 + μ(S − SZ − E),  M2 ← M2 + μ(Z − J)           eq. (21)–(22)
//	μ ← min(μmax, ρ·μ), ρ = ρ₀ if the change ≤ ε₂ else 1   eq. (23)–(24)
//
// from Z = J = I, E = M1 = M2 = 0, μ = μ₀, stopping when eq. (25) (and its
// analogue for Z = J) and eq. (26) hold. s is not modified.
//
// One iteration costs LRRIterFlam(m, n, rank) plus one SVT of an n×n
// matrix (partial or full, see SVT). ctx is checked every iteration.
// Errors: ErrInput (empty S, NaN or Inf, bad settings), ErrNotConverged
// (with a usable result), a wrapped ctx.Err() on cancellation.
func LRR(ctx context.Context, s blas64.General, set LRRSettings) (*LRRResult, error) {
	set, err := set.withDefaults()
	if err != nil {
		return nil, err
	}
	m, n := s.Rows, s.Cols
	if m == 0 || n == 0 {
		return nil, fmt.Errorf("%w: S is %d×%d, need at least one row and one column", ErrInput, m, n)
	}
	if err := finiteMat("S", s); err != nil {
		return nil, err
	}
	impl := backend.Active()
	st := LRRStats{}

	// ‖S‖₂² = largest eigenvalue of the Gram matrix of the smaller side.
	k, big := min(m, n), max(m, n)
	g := blas64.Symmetric{N: k, Stride: k, Data: make([]float64, k*k), Uplo: blas.Lower}
	tr := blas.Trans
	if m < n {
		tr = blas.NoTrans
	}
	impl.Syrk(tr, 1, s, 0, g)
	w, _, err := backend.EigTopCtx(ctx, impl, g, 1)
	if err != nil {
		return nil, fmt.Errorf("admm: LRR: ‖S‖₂: %w", err)
	}
	snorm2 := max(0, w[0])
	st.SNorm = math.Sqrt(snorm2)
	st.Flam += flam.Syrk(k, big) + flam.Syevr(k, 1)
	if st.SNorm == 0 {
		return nil, fmt.Errorf("%w: S is zero", ErrInput)
	}
	// Scale S to ‖S‖₂ = 1 (see LRRSettings.NoScaling).
	scale, lambda := 1.0, set.Lambda
	if !set.NoScaling {
		scale = st.SNorm
		lambda *= scale
		sc := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
		for i := 0; i < m; i++ {
			row := sc.Data[i*n : i*n+n]
			for c, v := range s.Data[i*s.Stride : i*s.Stride+n] {
				row[c] = v / scale
			}
		}
		s = sc
		snorm2 = 1
	}
	st.Scale = scale
	sF := 0.0
	for i := 0; i < m; i++ {
		for _, v := range s.Data[i*s.Stride : i*s.Stride+n] {
			sF += v * v
		}
	}
	sF = math.Sqrt(sF)

	mat := func(r, c int) blas64.General {
		return blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
	}
	var (
		z, zOld = mat(n, n), mat(n, n)
		j       = mat(n, n)
		m2      = mat(n, n)
		a       = mat(n, n) // the SVT argument; also holds Sᵀ·R1
		e       = mat(m, n)
		m1      = mat(m, n)
		sz      = mat(m, n) // S·Z
		r1      = mat(m, n)
		su      blas64.General
	)
	for i := 0; i < n; i++ {
		z.Data[i*n+i] = 1
		j.Data[i*n+i] = 1
	}
	for i := 0; i < m; i++ {
		copy(sz.Data[i*n:i*n+n], s.Data[i*s.Stride:i*s.Stride+n])
	}
	svt := NewSVT(n, set.SVT, impl, set.Seed)
	mu := set.Mu0
	var lr LowRank
	var nuc float64
	rank := n
	for it := 1; it <= set.MaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("admm: LRR cancelled after %d iterations: %w", it-1, err)
		}
		eta := set.EtaScale * mu * (1 + snorm2)
		// R1 = S − S·Z − E + M1/μ (eq. 13).
		par(m, n, func(i0, i1 int) {
			for i := i0; i < i1; i++ {
				sr := s.Data[i*s.Stride : i*s.Stride+n]
				for c := 0; c < n; c++ {
					x := i*n + c
					r1.Data[x] = sr[c] - sz.Data[x] - e.Data[x] + m1.Data[x]/mu
				}
			}
		})
		// A = Z − ∇q/η₁ with ∇q = −μSᵀR1 + μ(Z − J) + M2.
		impl.Gemm(blas.Trans, blas.NoTrans, 1, s, r1, 0, a)
		par(n, n, func(i0, i1 int) {
			for x := i0 * n; x < i1*n; x++ {
				grad := -mu*a.Data[x] + mu*(z.Data[x]-j.Data[x]) + m2.Data[x]
				a.Data[x] = z.Data[x] - grad/eta
			}
		})
		z, zOld = zOld, z
		lr, nuc, err = svt.Apply(z, a, 1/eta)
		if err != nil {
			return nil, err
		}
		rank = lr.Rank()
		// S·Z, through the factors when the rank is low.
		if 2*rank < n {
			if su.Data == nil || su.Cols < rank {
				su = mat(m, n)
			}
			sub := blas64.General{Rows: m, Cols: rank, Stride: n, Data: su.Data}
			if rank > 0 {
				impl.Gemm(blas.NoTrans, blas.NoTrans, 1, s, lr.U, 0, sub)
				for i := 0; i < m; i++ {
					row := sub.Data[i*n : i*n+rank]
					for c := range row {
						row[c] *= lr.S[c]
					}
				}
				impl.Gemm(blas.NoTrans, blas.NoTrans, 1, sub, lr.Vt, 0, sz)
			} else {
				for i := range sz.Data {
					sz.Data[i] = 0
				}
			}
		} else {
			impl.Gemm(blas.NoTrans, blas.NoTrans, 1, s, z, 0, sz)
		}
		st.Flam += LRRIterFlam(m, n, rank)
		// J (eq. 18), M2 (eq. 22) and the norms of eq. (24)–(26).
		var dz2, dj2, zj2, z2, l1z float64
		bmu := set.Beta / mu
		for x := range j.Data {
			zx := z.Data[x]
			d := zx - zOld.Data[x]
			dz2 += d * d
			z2 += zx * zx
			l1z += math.Abs(zx)
			v := zx + m2.Data[x]/mu - bmu
			if v < 0 {
				v = 0
			}
			d = v - j.Data[x]
			dj2 += d * d
			j.Data[x] = v
			d = zx - v
			zj2 += d * d
			m2.Data[x] += mu * d
		}
		// E (eq. 20), M1 (eq. 21).
		var de2, p2, l1e float64
		lmu := lambda / mu
		for i := 0; i < m; i++ {
			sr := s.Data[i*s.Stride : i*s.Stride+n]
			for c := 0; c < n; c++ {
				x := i*n + c
				res := sr[c] - sz.Data[x]
				v := res + m1.Data[x]/mu
				switch {
				case v > lmu:
					v -= lmu
				case v < -lmu:
					v += lmu
				default:
					v = 0
				}
				d := v - e.Data[x]
				de2 += d * d
				e.Data[x] = v
				l1e += math.Abs(v)
				res -= v
				p2 += res * res
				m1.Data[x] += mu * res
			}
		}
		st.Iterations = it
		st.PrimalResidual = math.Sqrt(p2) / sF
		st.ZJResidual = math.Sqrt(zj2) / max(1, math.Sqrt(z2))
		st.Change = max(eta*math.Sqrt(dz2), mu*math.Sqrt(dj2), mu*math.Sqrt(de2))

		st.Mu, st.Eta1 = mu, eta
		st.Objective = nuc + set.Beta*l1z + lambda*l1e
		if set.Trace {
			st.Objectives = append(st.Objectives, st.Objective)
		}
		if math.IsNaN(st.PrimalResidual) || math.IsNaN(st.Change) {
			return nil, fmt.Errorf("%w: LRR iterates became NaN at iteration %d", ErrInput, it)
		}
		if st.PrimalResidual < set.Eps1 && st.ZJResidual < set.Eps1 && st.Change <= set.Eps2 {
			st.Converged = true
			break
		}
		// ρ (eq. 24) and μ (eq. 23).
		if st.Change <= set.Eps2 {
			mu = min(set.MuMax, set.Rho0*mu)
		}
	}
	st.Rank = rank
	st.PartialSVTs, st.FullSVTs, st.Sweeps, st.Fallbacks = svt.Partial, svt.Full, svt.Sweeps, svt.Fallbacks
	st.Flam += svt.Flam
	if scale != 1 {
		for i := range e.Data {
			e.Data[i] *= scale
			m1.Data[i] /= scale
		}
	}
	res := &LRRResult{Z: z, J: j, E: e, M1: m1, M2: m2, Stats: st}
	if !st.Converged {
		return res, fmt.Errorf("%w: LRR after %d iterations: residual %.3g (ε₁ = %g), Z−J %.3g, change %.3g (ε₂ = %g), μ = %.3g",
			ErrNotConverged, st.Iterations, st.PrimalResidual, set.Eps1, st.ZJResidual, st.Change, set.Eps2, mu)
	}
	return res, nil
}

// par runs fn over row blocks of an r×c pass in parallel when the pass is
// large enough to pay for the goroutines.
func par(r, c int, fn func(i0, i1 int)) {
	if r*c < 1<<16 {
		fn(0, r)
		return
	}
	grain := max(1, (1<<15)/max(1, c))
	backend.ParallelFor(r, grain, fn)
}

// LRRIterFlam is one iteration of the linearized ADMM for low-rank
// representation (Mehrbani & Kahaei, Low-Rank Isomap Alg. 2, eq. 12–26) with S m×n and
// Z n×n, without the singular value thresholding: the gradient of eq. 13
// needs Sᵀ·R (m·n² flam), the E-update of eq. 20 needs S·Z (m·n² flam, or
// 2·m·n·r when Z has rank r, passed as rank; rank < 0 means dense), and
// about 12 elementwise passes over the m×n and n×n iterates.
func LRRIterFlam(m, n, rank int) float64 {
	sz := flam.Gemm(m, n, n)
	if rank >= 0 && 2*rank < n {
		sz = 2 * flam.Gemm(m, n, rank)
	}
	return flam.Gemm(n, n, m) + sz + 12*(float64(m)*float64(n)+float64(n)*float64(n))
}
