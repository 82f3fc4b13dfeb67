package lanczos

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// Which selects the end of the spectrum. Both are algebraic: Largest means
// the most positive eigenvalues, not the largest in magnitude (τ(D_G) of
// Isomap is indefinite and its embedding needs the most positive ones).
type Which int

const (
	// Largest asks for the K algebraically largest eigenpairs (the zero value).
	Largest Which = iota
	// Smallest asks for the K algebraically smallest eigenpairs.
	Smallest
)

// String returns "largest" or "smallest".
func (w Which) String() string {
	switch w {
	case Largest:
		return "largest"
	case Smallest:
		return "smallest"
	}
	return fmt.Sprintf("Which(%d)", int(w))
}

// TolFloor is the smallest relative tolerance the solver accepts:
// ε^(2/3) ≈ 3.7e-11 with ε = 2⁻⁵² (the floor ARPACK puts under its own
// relative test). Tighter requests are raised to it: below it the Lanczos
// residual estimates stop tracking the true residuals, which stagnate near
// ε·‖A‖, and the iteration could run on without end.
const TolFloor = 3.6669e-11

// Defaults of the zero-value Settings.
const (
	DefaultK           = 6
	DefaultMaxRestarts = 1000
)

// Settings configure Solve. The zero value asks for the 6 algebraically
// largest eigenpairs at the tightest tolerance, with a random start drawn
// from seed 0. Solve never modifies a Settings value.
type Settings struct {
	// K is the number of eigenpairs wanted, 1 ≤ K < n; 0 means DefaultK.
	K int
	// Which end of the spectrum: Largest (the zero value) or Smallest.
	Which Which
	// BasisSize is the largest number of basis vectors held before a thick
	// restart (the m of Wu & Simon); 0 means K + max(2K, 16·BlockSize, 48).
	// It must be at least K + BlockSize; it is clipped to n − BlockSize.
	// A larger basis costs memory (BasisSize·n) and orthogonalization
	// (4·n·BasisSize flam per vector at most) and saves restarts.
	BasisSize int
	// BlockSize is the number of vectors the operator is applied to at once
	// (block Lanczos); 0 means 1. A block of b vectors is one pass over a
	// dense matrix (a BlockOperator's MulBlockTo: a Gemm or Symm) and finds
	// eigenvalues of multiplicity up to b, where a single vector finds one
	// copy of a repeated eigenvalue. But a block Krylov space of the same
	// dimension is a polynomial of lower degree: on τ(D_G) and random
	// matrices b = 4 needs about twice the operator applications of b = 1,
	// and b = 8 three times, so blocks pay off only when a block product
	// costs less than that per vector, or for multiplicities.
	BlockSize int
	// Tol is the relative tolerance: an eigenpair (θ, y) has converged when
	// its residual ‖A·y − θ·y‖ ≤ Tol·‖A‖, with ‖A‖ estimated by the largest
	// |Ritz value| seen. Values below TolFloor, 0 included, mean TolFloor.
	Tol float64
	// MaxRestarts bounds the thick restarts; 0 means DefaultMaxRestarts.
	MaxRestarts int
	// Seed seeds the random start block (and random replacement vectors when
	// the Krylov space becomes invariant). Equal seeds give equal results.
	Seed uint64
	// Start, if not nil, is the first start vector (length n, not zero);
	// the remaining BlockSize − 1 start vectors are random.
	Start []float64
	// Progress, if not nil, counts the operator's applications to single
	// vectors as they are made (Stats.MatVecs so far), for a caller that
	// shows progress from another goroutine.
	Progress *atomic.Int64
	// Look, if not nil, is called on Solve's goroutine after each look at
	// convergence with the K wanted Ritz values, most extreme first (as
	// Result.Values), and their residual estimates (as
	// Result.Residuals); the slices are valid during the call only. The
	// looks come at the same steps with the same numbers whatever the
	// number of threads, so a caller may start work from one (a
	// factorization at a shift the Ritz values suggest) and stay
	// deterministic. Not called on the dense path (n ≤ 64).
	Look func(values, residuals []float64)
	// NoCopiesCheck skips the check for missed copies of a repeated
	// eigenvalue that follows convergence (see checkCopies; it costs one
	// Lanczos run for one pair), for a caller that certifies its pairs
	// otherwise.
	NoCopiesCheck bool
}

// Status says how Solve ended.
type Status int

const (
	// Converged: all K eigenpairs met the tolerance.
	Converged Status = iota
	// NotConverged: MaxRestarts was reached first; Result.Converged says how
	// many met the tolerance.
	NotConverged
	// Canceled: the context was cancelled or its deadline passed.
	Canceled
)

// String returns "converged", "not converged" or "canceled".
func (s Status) String() string {
	switch s {
	case Converged:
		return "converged"
	case NotConverged:
		return "not converged"
	case Canceled:
		return "canceled"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Stats count the work of a Solve.
type Stats struct {
	// Iterations is the number of block Lanczos steps (one operator
	// application to a block of BlockSize vectors each).
	Iterations int
	// Restarts is the number of thick restarts.
	Restarts int
	// MatVecs counts operator applications to single vectors (a block
	// product counts BlockSize).
	MatVecs int
	// Flam is the arithmetic done, in flam (backend/flam): MatVecs times the
	// cost of one application (NNZ() for an operator that has that method,
	// Func.Flam, n² otherwise) plus orthogonalization, restarts and the
	// projected eigenproblems.
	Flam float64
	// BlockSize and BasisSize are the values used.
	BlockSize, BasisSize int
}

// Result holds the eigenpairs Solve found.
type Result struct {
	// Values are the K eigenvalues: descending for Largest, ascending for
	// Smallest (the most extreme first either way).
	Values []float64
	// Vectors is the n×K matrix (row-major) whose column i is the unit
	// eigenvector of Values[i], signed so that its largest-magnitude
	// component is positive (backend.FixSigns).
	Vectors blas64.General
	// Residuals are the residual norms ‖A·yᵢ − θᵢ·yᵢ‖ as the Lanczos
	// relation gives them (equal to the computed residuals up to rounding of
	// order ε·‖A‖).
	Residuals []float64
	// ANorm is the estimate of ‖A‖₂ the tolerance was relative to.
	ANorm float64
	// Tol is the relative tolerance applied (after the floor).
	Tol float64
	// Converged is how many of the K eigenpairs met the tolerance.
	Converged int
	// Status says how the solve ended.
	Status Status
	// Stats count the work.
	Stats Stats
}

// Errors returned, wrapped, by Solve. errors.Is works on them.
var (
	// ErrK: K is negative or not smaller than the dimension n.
	ErrK = errors.New("lanczos: K out of range")
	// ErrSettings: a setting is negative, NaN or inconsistent.
	ErrSettings = errors.New("lanczos: invalid settings")
	// ErrNotFinite is backend.ErrNotFinite: the start vector or an operator
	// product holds NaN or Inf.
	ErrNotFinite = backend.ErrNotFinite
	// ErrNotConverged is backend.ErrNotConverged: MaxRestarts was reached
	// before all K eigenpairs converged. The Result is returned too.
	ErrNotConverged = backend.ErrNotConverged
)

// Solve computes the K algebraically largest or smallest eigenpairs of the
// symmetric operator a by thick-restart block Lanczos with full
// reorthogonalization (see the package documentation).
//
// Bad settings or data return an error wrapping ErrK, ErrSettings or
// ErrNotFinite and a nil Result. When MaxRestarts is reached the Result holds
// the best approximations (Status NotConverged) and the error wraps
// ErrNotConverged. When ctx is cancelled, Solve returns within one block step
// a Result with Status Canceled and only Stats filled, and an error wrapping
// ctx.Err(). A non-square operator or a Start of the wrong length is a
// programmer error and panics.
func Solve(ctx context.Context, a Operator, s Settings) (*Result, error) {
	n, c := a.Dims()
	if n != c {
		panic(fmt.Sprintf("lanczos: operator is %d×%d, not square", n, c))
	}
	if s.Start != nil && len(s.Start) != n {
		panic(fmt.Sprintf("lanczos: Start has length %d, operator is %d×%d", len(s.Start), n, n))
	}
	p, err := plan(a, n, s)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return &Result{Status: Canceled}, fmt.Errorf("lanczos: %w", err)
	}
	if p.dense {
		return solveDense(a, p)
	}
	res, err := newSolver(a, p).run(ctx)
	if err != nil || s.NoCopiesCheck || p.b >= p.k {
		return res, err // a block of K vectors or more finds every copy the K pairs need
	}
	return checkCopies(ctx, a, s, p, res)
}

// add counts the work of another run in s.
func (s *Stats) add(o Stats) {
	s.Iterations += o.Iterations
	s.Restarts += o.Restarts
	s.MatVecs += o.MatVecs
	s.Flam += o.Flam
}

// checkRestarts bounds the restarts of a copies check's Lanczos run, and
// checkTol is its tolerance and the margin it asks of a missed value
// beyond the K-th found (relative to ‖A‖): a missed copy within it is a
// tie to that precision. 1e-6 cost nearly twice the products of 1e-4 on
// a swiss roll's τ (13 against 7) for ties no embedding resolves.
const (
	checkRestarts = 2
	checkTol      = 1e-4
)

// checkCopies looks for copies of a repeated eigenvalue that the Krylov
// space of res missed: a space grown from b start vectors holds at most b
// directions of an eigenspace, so the K pairs returned can be one copy of
// a repeated eigenvalue followed by the next distinct ones — all
// converged, and not the K wanted (MDS of points on a square grid: the
// second copy of the top eigenvalue missed, the zero after it returned).
// One Lanczos run for the extreme pair of P·A·P, P the projector off the
// K vectors found, from a random start off them, tells: a Ritz value of
// it beyond the K-th value by more than Tol·‖A‖ is the Rayleigh quotient
// of a vector orthogonal to those found, so A has K + 1 eigenvalues beyond
// the K-th found, and one was missed. Then Solve runs again with twice the
// block size, and checks again; the run's work is in Stats either way. A
// check that does not converge within checkRestarts restarts decides on
// its best Ritz value. Settings.NoCopiesCheck skips it.
func checkCopies(ctx context.Context, a Operator, s Settings, p params, res *Result) (*Result, error) {
	n, k := p.n, p.k
	stats := res.Stats
	for {
		v := res.Vectors
		tmp := make([]float64, k)
		project := func(x []float64) { // x −= V·Vᵀ·x, tmp = Vᵀ·x (one pass over V each)
			clear(tmp)
			for i, xi := range x {
				for c, e := range v.Data[i*v.Stride : i*v.Stride+k] {
					tmp[c] += e * xi
				}
			}
			for i := range x {
				for c, e := range v.Data[i*v.Stride : i*v.Stride+k] {
					x[i] -= e * tmp[c]
				}
			}
		}
		// P·A·P maps the found vectors to 0, which may lie beyond the rest
		// of the spectrum (τ(D_G) is indefinite; the smallest eigenvalues
		// of a definite matrix are above 0): they are moved 2·‖A‖ past
		// the far end instead, where the check never looks.
		shift := -2 * res.ANorm
		if p.which == Smallest {
			shift = -shift
		}
		in, c := make([]float64, n), make([]float64, k) // the check's solver applies it to one vector at a time
		deflated := Func{N: n, Flam: opFlam(a) + 6*float64(n*k), Mul: func(dst, x []float64) {
			copy(in, x)
			project(in)
			copy(c, tmp) // Vᵀ·x
			a.MulVecTo(dst, in)
			project(dst)
			for i := 0; i < n; i++ {
				row := v.Data[i*v.Stride : i*v.Stride+k]
				for j, t := range c {
					dst[i] += shift * row[j] * t
				}
			}
		}}
		start := make([]float64, n)
		rng := rand.New(rand.NewPCG(p.seed, 0x636f70696573)) // "copies"
		for i := range start {
			start[i] = rng.NormFloat64()
		}
		project(start)
		// Its basis no larger than the solve's (WorkBytes holds for both).
		cp := params{n: n, k: 1, b: 1, m: max(2, min(defaultBasis(1, 1), p.m, n-1)), which: p.which, tol: max(p.tol, checkTol), maxRestarts: checkRestarts,
			seed: p.seed ^ 0x636f70696573, start: start, opFlam: deflated.Flam, progress: p.progress}
		check, err := newSolver(deflated, cp).run(ctx)
		if check != nil {
			stats.add(check.Stats)
		}
		if err != nil && !errors.Is(err, ErrNotConverged) {
			res.Stats = stats
			return res, err
		}
		theta, last := check.Values[0], res.Values[k-1]
		margin := max(p.tol, checkTol) * max(res.ANorm, math.Abs(theta))
		missed := theta > last+margin
		if p.which == Smallest {
			missed = theta < last-margin
		}
		if !missed {
			res.Stats = stats
			return res, nil
		}
		// A copy was missed: again with a block twice as wide (it finds
		// eigenvalues of multiplicity up to the block size).
		s.BlockSize = 2 * p.b
		if s.BasisSize > 0 {
			s.BasisSize = max(s.BasisSize, k+s.BlockSize)
		}
		q, err := plan(a, n, s)
		if err != nil || q.dense {
			res.Stats = stats
			return res, fmt.Errorf("lanczos: a repeated eigenvalue has more copies than a block of %d vectors finds (%w)", p.b, ErrNotConverged)
		}
		p = q
		res, err = newSolver(a, p).run(ctx)
		if res != nil {
			stats.add(res.Stats)
			stats.BlockSize = res.Stats.BlockSize
			res.Stats = stats
		}
		if err != nil {
			return res, err
		}
	}
}

// denseMaxN is the order up to which Solve forms the matrix and solves the
// dense eigenproblem instead of iterating.
const denseMaxN = 64

// params are the settings after defaults and checks.
type params struct {
	n, k, b, m  int
	which       Which
	tol         float64
	maxRestarts int
	seed        uint64
	start       []float64
	look        func(values, residuals []float64)
	block       bool    // use the operator's block product
	opFlam      float64 // cost of one application to one vector
	dense       bool    // n too small for a Krylov basis: solve densely
	progress    *atomic.Int64
}

func plan(a Operator, n int, s Settings) (params, error) {
	p := params{n: n, k: s.K, which: s.Which, seed: s.Seed, start: s.Start, maxRestarts: s.MaxRestarts, progress: s.Progress, look: s.Look}
	if p.k == 0 {
		p.k = DefaultK
	}
	switch {
	case n == 0:
		return p, fmt.Errorf("%w: the operator is empty (0×0)", ErrK)
	case p.k < 0 || p.k >= n:
		return p, fmt.Errorf("%w: K = %d eigenpairs of a %d×%d operator (need 1 ≤ K < n)", ErrK, p.k, n, n)
	case s.Which != Largest && s.Which != Smallest:
		return p, fmt.Errorf("%w: Which = %d", ErrSettings, int(s.Which))
	case s.BlockSize < 0:
		return p, fmt.Errorf("%w: BlockSize = %d is negative", ErrSettings, s.BlockSize)
	case s.BasisSize < 0:
		return p, fmt.Errorf("%w: BasisSize = %d is negative", ErrSettings, s.BasisSize)
	case s.MaxRestarts < 0:
		return p, fmt.Errorf("%w: MaxRestarts = %d is negative", ErrSettings, s.MaxRestarts)
	case math.IsNaN(s.Tol) || s.Tol < 0 || math.IsInf(s.Tol, 0):
		return p, fmt.Errorf("%w: Tol = %v (need a finite value ≥ 0)", ErrSettings, s.Tol)
	}
	if s.Start != nil {
		zero := true
		for i, v := range s.Start {
			if v-v != 0 {
				return p, fmt.Errorf("lanczos: Start[%d] = %v: %w", i, v, ErrNotFinite)
			}
			zero = zero && v == 0
		}
		if zero {
			return p, fmt.Errorf("%w: Start is the zero vector", ErrSettings)
		}
	}
	p.tol = max(s.Tol, TolFloor)
	if p.maxRestarts == 0 {
		p.maxRestarts = DefaultMaxRestarts
	}
	p.opFlam = opFlam(a)
	p.b = max(1, s.BlockSize)
	p.block = p.b > 1 && hasBlock(a)
	p.m = s.BasisSize
	if p.m == 0 {
		p.m = defaultBasis(p.k, p.b)
	} else if p.m < p.k+p.b {
		return p, fmt.Errorf("%w: BasisSize = %d is smaller than K + BlockSize = %d", ErrSettings, p.m, p.k+p.b)
	}
	// The basis and the next block must fit in ℝⁿ. Tiny operators (and
	// those where they would not) are solved densely: n products with the
	// unit vectors and a dense eigensolver cost less than the iteration.
	p.m = min(p.m, n-p.b)
	p.dense = p.m < p.k+p.b || n <= denseMaxN
	return p, nil
}

// defaultBasis is the basis size Solve takes when Settings.BasisSize is 0.
func defaultBasis(k, b int) int { return k + max(2*k, 16*b, 48) }

// WorkBytes is about the most memory Solve allocates for an n×n operator
// with the settings s, besides the operator's own: the basis of BasisSize
// + BlockSize vectors of n (BasisSize by default K + max(2K, 16·BlockSize,
// 48)) and two blocks of scratch.
func WorkBytes(n int, s Settings) int64 {
	k, b := s.K, max(1, s.BlockSize)
	if k == 0 {
		k = DefaultK
	}
	m := s.BasisSize
	if m == 0 {
		m = defaultBasis(k, b)
	}
	return 8 * int64(n) * int64(min(m, n)+3*b)
}
