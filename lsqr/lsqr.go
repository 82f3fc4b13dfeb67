package lsqr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// Defaults of the zero-value Settings (those of scipy.sparse.linalg.lsqr).
const (
	DefaultATol   = 1e-6
	DefaultBTol   = 1e-6
	DefaultConLim = 1e8
)

// Settings are the parameters of Paige and Saunders' algorithm. The zero
// value means no damping, ATol = BTol = 1e-6, ConLim = 1e8 and an iteration
// limit of 2n. Solve never modifies a Settings value.
type Settings struct {
	// Damp is the damping parameter: LSQR then solves
	// min ‖[A; Damp·I]·x − [b; 0]‖, the ridge regression of
	// Cai, He & Han, AAAI 2007 eq. (10) with α = Damp².
	Damp float64
	// ATol and BTol are the relative accuracies of A and b: the iteration
	// stops when ‖r‖ ≤ BTol·‖b‖ + ATol·‖A‖·‖x‖ (Status Compatible) or
	// ‖Aᵀr‖ ≤ ATol·‖A‖·‖r‖ (Status LeastSquares), with r = b − A·x (and
	// the damped analogues). 0 means 1e-6. A tiny value (1e-16) asks for
	// machine precision (Status CompatibleEps, LeastSquaresEps).
	ATol, BTol float64
	// ConLim stops the iteration when the estimate of cond(Ā) exceeds it
	// (Status CondLimit), Ā = [A; Damp·I]. 0 means 1e8; +Inf disables it.
	ConLim float64
	// IterLim bounds the iterations; 0 means 2n.
	IterLim int
	// Progress, if not nil, counts the iterations as they are done (over
	// every right-hand side of SolveMany), for a caller that shows progress
	// from another goroutine.
	Progress *atomic.Int64
}

// Status is Paige and Saunders' istop: why the iteration stopped. The
// values 0–7 are theirs; Canceled is added.
type Status int

const (
	// ZeroSolution (istop 0): b = 0 or Aᵀb = 0, so x = 0 is exact.
	ZeroSolution Status = iota
	// Compatible (istop 1): ‖r‖ ≤ BTol·‖b‖ + ATol·‖A‖·‖x‖: x solves
	// A·x = b to the tolerances.
	Compatible
	// LeastSquares (istop 2): ‖Aᵀr‖ ≤ ATol·‖A‖·‖r‖: x solves the
	// least-squares problem to the tolerance.
	LeastSquares
	// CondLimit (istop 3): the estimate of cond(Ā) exceeded ConLim.
	CondLimit
	// CompatibleEps (istop 4): as Compatible with ATol = BTol = ε.
	CompatibleEps
	// LeastSquaresEps (istop 5): as LeastSquares with ATol = ε.
	LeastSquaresEps
	// CondLimitEps (istop 6): cond(Ā) ≥ 1/ε.
	CondLimitEps
	// IterLimit (istop 7): IterLim iterations were done.
	IterLimit
	// Canceled: the context was cancelled (not one of the paper's codes).
	Canceled
)

// String describes the status.
func (s Status) String() string {
	switch s {
	case ZeroSolution:
		return "x = 0 is the exact solution"
	case Compatible:
		return "A·x = b solved to the tolerances"
	case LeastSquares:
		return "least-squares solution to the tolerance"
	case CondLimit:
		return "condition estimate exceeded ConLim"
	case CompatibleEps:
		return "A·x = b solved to machine precision"
	case LeastSquaresEps:
		return "least-squares solution to machine precision"
	case CondLimitEps:
		return "condition estimate reached 1/ε"
	case IterLimit:
		return "iteration limit reached"
	case Canceled:
		return "canceled"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Converged reports whether the iteration met a tolerance (istop 0, 1, 2,
// 4 or 5), as opposed to stopping at a limit or on cancellation.
func (s Status) Converged() bool {
	switch s {
	case ZeroSolution, Compatible, LeastSquares, CompatibleEps, LeastSquaresEps:
		return true
	}
	return false
}

// Result is the solution of one right-hand side and the estimates of
// Paige and Saunders, all for the damped problem when Damp > 0 (Ā = [A;
// Damp·I], r̄ = [b; 0] − Ā·x).
type Result struct {
	// X is the solution (length n).
	X []float64
	// Status says why the iteration stopped.
	Status Status
	// Iterations is the number of iterations (each one product with A
	// and one with Aᵀ).
	Iterations int
	// RNorm estimates ‖b − A·x‖ (scipy's r1norm; negative in the rare
	// case that rounding makes its square negative).
	RNorm float64
	// R2Norm estimates ‖r̄‖ = √(‖b − A·x‖² + Damp²·‖x‖²) (scipy's r2norm).
	R2Norm float64
	// ANorm estimates the Frobenius norm of Ā (from the bidiagonal
	// matrix; it grows towards ‖Ā‖_F).
	ANorm float64
	// ACond estimates cond(Ā) = ‖Ā‖_F·‖Ā⁺‖_F (a lower bound).
	ACond float64
	// ArNorm estimates ‖Āᵀr̄‖ = ‖Aᵀ(b − A·x) − Damp²·x‖.
	ArNorm float64
	// XNorm estimates ‖x‖.
	XNorm float64
	// Flam is the arithmetic done for this right-hand side (backend/flam:
	// Iterations·(2mn + 3m + 5n) for a dense A, 2·nnz in place of 2mn for
	// an operator with an NNZ() method).
	Flam float64
}

// Errors returned, wrapped, by Solve and SolveMany. errors.Is works on them.
var (
	// ErrEmpty: the operator has no rows or no columns.
	ErrEmpty = errors.New("lsqr: empty operator")
	// ErrSettings: a setting is negative or NaN.
	ErrSettings = errors.New("lsqr: invalid settings")
	// ErrNotFinite is backend.ErrNotFinite: b or an operator product holds
	// NaN or Inf.
	ErrNotFinite = backend.ErrNotFinite
)

// Solve computes the x that minimizes ‖A·x − b‖² + Damp²·‖x‖² by LSQR
// (Paige and Saunders 1982), starting from x = 0: for a consistent system
// the minimum-norm solution of A·x = b, otherwise the minimum-norm
// least-squares solution, or the ridge solution when Damp > 0.
//
// Bad settings or data return an error wrapping ErrEmpty, ErrSettings or
// ErrNotFinite. Stopping at a limit (CondLimit, IterLimit) is a Status, not
// an error. When ctx is cancelled Solve returns within one iteration the
// current iterate with Status Canceled and an error wrapping ctx.Err(). A
// b of the wrong length panics.
func Solve(ctx context.Context, a Operator, b []float64, s Settings) (*Result, error) {
	m, _ := a.Dims()
	if len(b) != m {
		panic(fmt.Sprintf("lsqr: b has length %d, the operator has %d rows", len(b), m))
	}
	res, err := SolveMany(ctx, a, blas64.General{Rows: m, Cols: 1, Stride: 1, Data: b}, s)
	if res == nil {
		return nil, err
	}
	return &res[0], err
}

// SolveMany solves for every column of the m×k B at once, with the same
// operator and settings. The k recurrences advance in lock step: each
// iteration applies A and Aᵀ to the block of right-hand sides still
// iterating, with one block product when the operator has them (a dense
// backend.GeneralOp is read once per iteration for all of them), so the
// k solves cost little more than one when the products are bound by memory.
// Each column stops on its own tests; its Result is what Solve would return
// for it alone, up to rounding. Errors are as for Solve.
func SolveMany(ctx context.Context, a Operator, bm blas64.General, s Settings) ([]Result, error) {
	m, n := a.Dims()
	if bm.Rows != m {
		panic(fmt.Sprintf("lsqr: B has %d rows, the operator has %d", bm.Rows, m))
	}
	if m == 0 || n == 0 {
		return nil, fmt.Errorf("%w: %d×%d", ErrEmpty, m, n)
	}
	p, err := plan(n, s)
	if err != nil {
		return nil, err
	}
	for i := 0; i < m; i++ {
		for j, v := range bm.Data[i*bm.Stride : i*bm.Stride+bm.Cols] {
			if v-v != 0 {
				return nil, fmt.Errorf("lsqr: b[%d] of right-hand side %d = %v: %w", i, j, v, ErrNotFinite)
			}
		}
	}
	if bm.Cols == 0 {
		return []Result{}, nil
	}
	return newSolver(a, m, n, bm, p).run(ctx)
}

type params struct {
	damp, atol, btol, ctol float64
	iterLim                int
	progress               *atomic.Int64
}

func plan(n int, s Settings) (params, error) {
	bad := func(name string, v float64) error {
		return fmt.Errorf("%w: %s = %v (need a value ≥ 0)", ErrSettings, name, v)
	}
	switch {
	case math.IsNaN(s.Damp) || s.Damp < 0 || math.IsInf(s.Damp, 0):
		return params{}, bad("Damp", s.Damp)
	case math.IsNaN(s.ATol) || s.ATol < 0:
		return params{}, bad("ATol", s.ATol)
	case math.IsNaN(s.BTol) || s.BTol < 0:
		return params{}, bad("BTol", s.BTol)
	case math.IsNaN(s.ConLim) || s.ConLim < 0:
		return params{}, bad("ConLim", s.ConLim)
	case s.IterLim < 0:
		return params{}, fmt.Errorf("%w: IterLim = %d is negative", ErrSettings, s.IterLim)
	}
	p := params{damp: s.Damp, atol: s.ATol, btol: s.BTol, iterLim: s.IterLim, progress: s.Progress}
	if p.atol == 0 {
		p.atol = DefaultATol
	}
	if p.btol == 0 {
		p.btol = DefaultBTol
	}
	conlim := s.ConLim
	if conlim == 0 {
		conlim = DefaultConLim
	}
	p.ctol = 1 / conlim // 0 for +Inf: the test never fires
	if p.iterLim == 0 {
		p.iterLim = 2 * n
	}
	return p, nil
}
