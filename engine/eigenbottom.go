package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/pprof"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/bottom"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/sparse"
)

// The bottom eigenproblems of LLE, LTSA and Laplacian eigenmaps (package
// bottom: certified shift-invert Lanczos, Lanczos on the matrix alone, or
// dense) as a stage of a fit, with the run's budget, progress and profile
// labels, and their errors in the engine's terms.

// Test knobs: maxFactorFlam bounds the cost of one LDLᵀ factorization (a
// variable for the tests, which take the refusal's path on small
// matrices); noSpeculation starts no certificate during the first round
// and noEarlyAnalysis no analysis before Laplacian eigenmaps' matrix is
// made (for the tests that compare the two ways).
var (
	maxFactorFlam   = bottom.DefaultMaxFactorFlam
	noSpeculation   bool
	noEarlyAnalysis bool
)

// bottomOptions are the settings of an eigensolve of the run r.
func bottomOptions(r *run, seed uint64, done *atomic.Int64, early *bottom.Analysis) bottom.Options {
	return bottom.Options{Seed: seed, MaxBytes: r.opts.MaxBytes, MaxFactorFlam: maxFactorFlam, Progress: done, Early: early, NoSpeculation: noSpeculation}
}

// bottomErr puts an error of package bottom in the engine's terms:
// ErrNumerical, with ErrMemoryBudget when the budget refused a factor or a
// basis, and what the user can do when the certificate could not be
// afforded; ctx's errors as they are.
func bottomErr(err error) error {
	var le *bottom.LimitError
	if !errors.As(err, &le) {
		return wrapNumerical(err)
	}
	if le.Budget {
		err = fmt.Errorf("%w: %w: %s", ErrNumerical, ErrMemoryBudget, le.Msg)
	} else {
		err = fmt.Errorf("%w: %s", ErrNumerical, le.Msg)
	}
	if le.CannotCertify {
		return cannotCertify(err)
	}
	return err
}

// cannotCertify is why, with what the user can do: a fit that cannot
// afford the certificate's factor returns an error, never an uncertified
// embedding it was not asked for.
func cannotCertify(why error) error {
	return fmt.Errorf("%w; Eigensolver %q (-eigensolver %s) runs Lanczos on the matrix alone, with no factor and no certificate", why, EigenUncertified, EigenUncertified)
}

// generalizedBottom is bottom.Generalized on the landmark methods'
// reduced problem (a = Zᵀ·M·Z, b = Zᵀ·Z), its errors in the engine's
// terms.
func generalizedBottom(ctx context.Context, a, b blas64.General, dim int) (*bottom.Result, error) {
	res, err := bottom.Generalized(ctx, a, b, dim)
	if errors.Is(err, backend.ErrNotPositiveDefinite) {
		return nil, fmt.Errorf("%w: Zᵀ·Z is not positive definite", ErrNumerical)
	}
	return res, wrapNumerical(err)
}

// startAnalysis starts the analysis of g (n×n) for the run's eigensolve
// (bottom.StartAnalysis) under the eigensolve's profile label; nil when g
// is not square. The caller stops it (Stop) when the fit ends.
func startAnalysis(r *run, g *sparse.CSR) *bottom.Analysis {
	var an *bottom.Analysis
	pprof.Do(r.ctx, pprof.Labels("method", r.method, "stage", "eigensolve"), func(ctx context.Context) {
		an = bottom.StartAnalysis(ctx, g, bottomOptions(r, 0, nil, nil)) // its goroutine takes the labels
	})
	return an
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

// nullSpaceOf returns the null space of b for an embedding of dim
// dimensions.
func nullSpaceOf(b *bottom.Result, dim int) nullSpace {
	return nullSpace{Nullity: b.Nullity, NullDropped: max(0, b.Nullity-1-dim)}
}

// nullNote returns a sentence on the null space of b for the stage
// detail.
func nullNote(b *bottom.Result, dim int) string {
	if b.Nullity <= 1 {
		return ""
	}
	extra := b.Nullity - 1 // null vectors orthogonal to u
	s := fmt.Sprintf("; null space of dimension %d", b.Nullity)
	if b.NullAtLeast {
		s = fmt.Sprintf("; null space of dimension at least %d", b.Nullity)
	}
	if extra > dim {
		s += fmt.Sprintf(" (the embedding is one basis of it: %d null vectors dropped; not unique — use more neighbours or a smaller dim)", extra-dim)
	} else {
		s += fmt.Sprintf(" (the first %d coordinates are a basis of it: not unique — use more neighbours or a smaller dim)", extra)
	}
	return s
}

// bottomSparse finds the dim smallest eigenpairs of the symmetric positive
// semidefinite sparse b on the complement of its unit null vector u
// (stage "eigensolve"): densely (index range) or by certified
// shift-invert Lanczos (bottom.Certified), or, asked for, by Lanczos on b alone
// (bottom.Operator). The vectors come signed by backend.FixSigns; the
// null space is counted (nullSpaceOf).
func bottomSparse(r *run, b *sparse.CSR, u []float64, dim int, solver Eigensolver, seed uint64, early *bottom.Analysis, what string) (out *bottom.Result, err error) {
	n, _ := b.Dims()
	if testHookBottom != nil {
		defer func() {
			if err == nil {
				cp := *out
				cp.Vectors = dense.Copy(out.Vectors)
				testHookBottom(b, u, &cp)
			}
		}()
	}
	if solver == EigenDense {
		err = r.stage("eigensolve", flam.Syevr(n, dim+1), func(ctx context.Context, st *stageCtx) error {
			var err error
			out, err = bottom.Dense(ctx, b, u, dim)
			if err != nil {
				return bottomErr(err)
			}
			st.detail = "dense syevr on the " + what + nullNote(out, dim)
			return nil
		})
		if err != nil {
			return nil, err
		}
		backend.FixSigns(out.Vectors)
		return out, nil
	}
	err = r.stage("eigensolve", flam.Lanczos(n, dim+1, 20)*float64(b.NNZ())/float64(n*n), func(ctx context.Context, st *stageCtx) error {
		var info bottom.Info
		err := st.watchCount(lanczosBudget(dim+1), func(done *atomic.Int64) error {
			var err error
			o := bottomOptions(r, seed, done, early)
			if solver == EigenUncertified {
				out, info, err = bottom.Operator(ctx, b, u, dim, o)
			} else {
				out, info, err = bottom.Certified(ctx, b, u, dim, o)
				if r.rep != nil { // two factors live at once, now that the fill is known
					r.rep.EstimatedBytes = max(r.rep.EstimatedBytes, info.FactorBytes)
				}
			}
			st.iterations, st.predicted = info.Iterations, info.Flam
			return bottomErr(err)
		})
		if err != nil {
			return err
		}
		st.detail = info.Detail + " on the " + what + nullNote(out, dim)
		return nil
	})
	if err != nil {
		return nil, err
	}
	backend.FixSigns(out.Vectors)
	return out, nil
}

// testHookBottom, when set (by tests only, never concurrently with a
// fit), sees every matrix bottomSparse solved and its result.
var testHookBottom func(b *sparse.CSR, u []float64, res *bottom.Result)

// unitConstant returns the unit constant vector of length n.
func unitConstant(n int) []float64 {
	u := make([]float64, n)
	for i := range u {
		u[i] = 1 / math.Sqrt(float64(n))
	}
	return u
}
