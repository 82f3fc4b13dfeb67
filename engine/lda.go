package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/internal/discriminant"
	"github.com/manifoldlab/manifold/internal/dense"
)

// LDA is Fisher's linear discriminant analysis (Fisher 1936; Duda, Hart &
// Stork, "Pattern Classification", 2nd ed., §3.8.3): with the class means
// m_c, the mean m, the within-class scatter
// S_W = Σ_c Σ_{x∈c} (x − m_c)(x − m_c)ᵀ, the between-class scatter
// S_B = Σ_c N_c(m_c − m)(m_c − m)ᵀ = BBᵀ, B = [√N_c(m_c − m)], and the total
// scatter S_T = S_B + S_W, the projections W are the directions of the
// largest between-class scatter relative to the within-class scatter, at
// most c − 1 of them (the rank of S_B). Two solvers (Solver):
//
//   - LDASVD, the default: the construction of Deng Cai's reference code
//     (LDA.m, used by the papers' experiments: Cai, He & Han, "SRDA: an
//     efficient algorithm for large-scale discriminant analysis", IEEE
//     TKDE 20(1), 2008, §2–3): the SVD of the centred data X̄ = UΣVᵀ with
//     its zero singular values dropped (relative eigenvalue 10⁻¹⁰ of the
//     Gram or covariance matrix, as LDA.m's mySVD), the between-class
//     problem in the whitened space U (where S_T = I): the right singular
//     vectors q of H_b = [√N_c·ū_c] (ū_c the class means of U's rows), and
//     W = VΣ⁻¹Q. Each σ_q² ∈ [0, 1] is the ratio of between-class to total
//     scatter along w, and λ = σ²/(1 − σ²) the generalized eigenvalue of
//     S_B·w = λ·S_W·w. It needs no nonsingular S_W: constant pixels and
//     duplicated images drop out with the zero singular values, and in the
//     small-sample case (D ≥ N − c, S_W singular on the span of the data)
//     the directions of S_W's null space in that span come first (σ² = 1:
//     the training classes collapse to points — the null-space LDA the
//     papers' face experiments ran). Cost O(N·D·min(N, D) + min(N, D)³).
//     When S_W is nonsingular on the span of the data it gives the same
//     directions as the generalized eigenproblem, and on rank-deficient
//     data the same subspace as scikit-learn's
//     LinearDiscriminantAnalysis(solver='svd') (TestLDASVDAgainstSklearn).
//   - LDAFisherfaces: the generalized eigenproblem S_B·w = λ·S_W·w by the
//     Cholesky reduction S_W = LLᵀ and the thin SVD of L⁻¹B (σ² = λ,
//     w = L⁻ᵀu), O(D³/6 + D²c), after the Fisherfaces preprocessing of
//     Belhumeur, Hespanha & Kriegman (IEEE TPAMI 19(7), 1997, §2.3) when
//     D > N − c: the data are first projected on their N − c leading
//     principal components (W = W_pca·W_fld, the PCA by the N×N Gram
//     matrix when D > N), unless NoPCA; Reg > 0 adds the ridge
//     Reg·tr(S_W)/D·I to S_W (after the PCA). It refuses a singular S_W
//     (ErrNumerical) unless Reg > 0. Reg > 0 (or NoPCA) selects it by
//     default.
//
// W is normalized so that Wᵀ(S_W/N)W = I: in the LDA space the classes
// share the identity covariance (the maximum-likelihood pooled covariance
// S_W/N of Duda, Hart & Stork and scikit-learn). A direction along which
// the training data have no within-class scatter (LDASVD, σ² > 1 − 10⁻⁸)
// is normalized to unit total variance instead (wᵀ(S_T/N)w = 1) and its
// eigenvalue is reported as 10⁸. The embedding is Wᵀ(x − m). With a
// nonsingular S_W, W equals scikit-learn's
// LinearDiscriminantAnalysis(solver='eigen').scalings_ column by column up
// to sign (it normalizes by S_W/N too, but transforms without centring).
//
// Predict is the FLDA classifier: the Gaussian (Bayes) rule with a shared
// covariance in the LDA space, argmax_c −½‖y − Wᵀ(m_c − m)‖² + log π_c,
// π_c the class frequencies. With Dim = c − 1 it is scikit-learn's
// LinearDiscriminantAnalysis.predict (the rule in the full space reduces to
// the discriminant space); with balanced classes it is the nearest class
// mean in the LDA space — the papers' "FLDA classification"
// (Mehrbani & Kahaei, Low-Rank Isomap §4.2, after Mika et al. 1999) is one of the two, and
// on ORL (10 per class) and Yale (11 per class) they coincide.
// engine/metrics.FLDALeaveOneOut runs the leave-one-out protocol of Tables 5–6.
type LDA struct {
	// Dim is the number of discriminant directions, 1 ≤ Dim ≤ c − 1;
	// default c − 1.
	Dim int
	// Labels are the classes, one per sample (any integers); required.
	Labels []int `setting:"labels"`
	// Reg ≥ 0 is the relative ridge on S_W (the command line's -alpha);
	// LDAFisherfaces only.
	Reg float64 `setting:"alpha"`
	// NoPCA skips the Fisherfaces PCA when D > N − c; S_W must then be
	// nonsingular, or Reg > 0. LDAFisherfaces only.
	NoPCA bool
	// Solver is LDASVD or LDAFisherfaces (see LDA); the default ("") is
	// LDASVD, or LDAFisherfaces when Reg > 0 or NoPCA.
	Solver LDASolver
	Options
}

// LDASolver names how LDA solves its eigenproblem.
type LDASolver string

// The LDA solvers (see LDA).
const (
	LDASVD         LDASolver = "svd"
	LDAFisherfaces LDASolver = "fisherfaces"
)

// solver resolves the default and checks the combination with Reg and
// NoPCA.
func (s LDA) solver() (LDASolver, error) {
	switch s.Solver {
	case "":
		if s.Reg > 0 || s.NoPCA {
			return LDAFisherfaces, nil
		}
		return LDASVD, nil
	case LDASVD:
		if s.Reg != 0 || s.NoPCA {
			return "", fmt.Errorf("%s: %w: the svd solver takes no Reg (%v) nor NoPCA; they belong to the fisherfaces solver", methodLDA, ErrBadSetting, s.Reg)
		}
		return LDASVD, nil
	case LDAFisherfaces:
		return LDAFisherfaces, nil
	}
	return "", fmt.Errorf("%s: %w: solver %q (want svd or fisherfaces)", methodLDA, ErrBadSetting, s.Solver)
}

// LDAModel is a fitted LDA.
type LDAModel struct {
	base[ldaParams]
	fisher
}

// ldaParams are LDA's parameters. Reg and PCA are the fit's (nil for a
// model built from statistics, LDAFromStats).
type ldaParams struct {
	Classes int       `param:"classes,report"`
	Reg     *float64  `param:"reg,report,omitempty"`
	PCA     *bool     `param:"pca,report,omitempty"` // the Fisherfaces PCA ran
	Solver  LDASolver `param:"solver,report"`
	// PCADim is the number of the Fisherfaces PCA's components (0 without
	// it), or the rank the svd solver kept.
	PCADim int `param:"pca_dim,omitempty"`
}

// fisher is a fitted discriminant: what Transform and Predict need.
type fisher struct {
	mean    []float64      // D
	proj    blas64.General // D×dim
	vals    []float64      // the dim generalized eigenvalues λ, descending
	classes []int          // the label of every class, ascending
	centers blas64.General // c×dim: the class means in the LDA space
	logPri  []float64      // log π_c
}

const methodLDA = "lda"

// Fit learns the discriminant from the rows of x and s.Labels.
func (s LDA) Fit(ctx context.Context, x mat.Matrix) (*LDAModel, error) {
	const method = methodLDA
	var (
		y, classes []int
		dim        int
		solver     LDASolver
		usePCA     bool
	)
	return fitter[*LDAModel]{method: method, opts: s.Options, input: denseRows,
		plan: func(in samples) (fitPlan, error) {
			g := in.dense
			n, d := g.Rows, g.Cols
			var err error
			y, classes, _, err = checkLabels(method, s.Labels, n)
			if err != nil {
				return fitPlan{}, err
			}
			c := len(classes)
			dim = s.Dim
			if dim == 0 {
				dim = c - 1
			}
			if err := checkDim(method, dim, c-1, "classes−1"); err != nil {
				return fitPlan{}, err
			}
			if s.Reg < 0 || math.IsNaN(s.Reg) || math.IsInf(s.Reg, 0) {
				return fitPlan{}, fmt.Errorf("%s: %w: reg = %v, need ≥ 0", method, ErrBadSetting, s.Reg)
			}
			if solver, err = s.solver(); err != nil {
				return fitPlan{}, err
			}
			usePCA = solver == LDAFisherfaces && !s.NoPCA && d > n-c
			// The centred copy and the D'×D' scatter matrices (D' = min(D, N));
			// the Fisherfaces PCA adds the N×N Gram matrix, the SVD solver the
			// whitened scores and the map back (N×D' and D×D').
			est := 8 * int64(n*d+3*min(d, n)*min(d, n))
			if usePCA {
				est += 8 * int64(n) * int64(n+d)
			}
			if solver == LDASVD {
				est += 8 * int64(n+d) * int64(min(n, d))
			}
			return fitPlan{dim: dim, bytes: est, what: "LDA", cheaper: "fewer samples"}, nil
		},
		stages: func(r *run, in samples) (*LDAModel, error) {
			var err error
			m := &LDAModel{base: newBase(method, ldaParams{Classes: len(classes), Reg: &s.Reg, PCA: &usePCA, Solver: solver})}
			m.fisher, m.embedding, m.p.PCADim, err = fitFisher(r, in.dense, y, classes, dim, s.Reg, solver, usePCA)
			if err != nil {
				return nil, err
			}
			return m, nil
		},
	}.fit(ctx, x)
}

// checkLabels validates labels for n samples: at least two classes and
// more samples than classes.
func checkLabels(method string, labels []int, n int) ([]int, []int, []int, error) {
	if labels == nil {
		return nil, nil, nil, fmt.Errorf("%s: %w: labels are required", method, ErrLabels)
	}
	if len(labels) != n {
		return nil, nil, nil, fmt.Errorf("%s: %w: %d labels for %d samples", method, ErrLabels, len(labels), n)
	}
	if n < 3 {
		return nil, nil, nil, fmt.Errorf("%s: %w: %d sample(s), need at least 3 (two classes and a within-class scatter)", method, ErrTooFewSamples, n)
	}
	y, classes, size := discriminant.Classes(labels)
	if len(classes) < 2 {
		return nil, nil, nil, fmt.Errorf("%s: %w: %d class(es), need at least 2", method, ErrLabels, len(classes))
	}
	if n <= len(classes) {
		return nil, nil, nil, fmt.Errorf("%s: %w: %d samples in %d classes leave no within-class scatter", method, ErrTooFewSamples, n, len(classes))
	}
	return y, classes, size, nil
}

// runStage runs body as a stage of r, or directly when r is nil (the
// folds of the leave-one-out protocol).
func runStage(r *run, name string, predicted float64, body func(ctx context.Context, st *stageCtx) error) error {
	if r != nil {
		return r.stage(name, predicted, body)
	}
	return body(context.Background(), nil)
}

// fitFisher fits the discriminant of the n×D g with class indices y by
// the solver: for LDASVD the SVD of the centred data ("svd") and the
// between-class problem in the whitened space ("eigensolve"); for
// LDAFisherfaces the optional Fisherfaces PCA ("pca"), the scatter matrices
// ("scatter") and the generalized eigenproblem ("eigensolve"). It returns
// the model, the embedding of g and the dimension of the PCA or of the
// whitened space (ldaParams.PCADim).
func fitFisher(r *run, g blas64.General, y, classes []int, dim int, reg float64, solver LDASolver, usePCA bool) (fisher, blas64.General, int, error) {
	n := g.Rows
	c := len(classes)
	f := fisher{classes: classes}
	var a blas64.General // the centred data
	f.mean, a, _ = centre(g)
	size := make([]int, c)
	for _, k := range y {
		size[k]++
	}
	var err error
	var pcaDim int
	if solver == LDASVD {
		f.vals, f.proj, pcaDim, err = svdDiscriminant(r, a, y, size, dim)
	} else {
		f.vals, f.proj, pcaDim, err = fisherfacesDiscriminant(r, a, y, size, dim, reg, usePCA)
	}
	if err != nil {
		return f, blas64.General{}, 0, err
	}
	dim = f.proj.Cols
	backend.FixSigns(f.proj)
	// The embedding and the class centres in the LDA space, from the
	// data with the signs just fixed.
	emb := f.apply(g)
	f.centers = dense.New(c, dim)
	for i := 0; i < n; i++ {
		row := f.centers.Data[y[i]*dim : (y[i]+1)*dim]
		for j, v := range emb.Data[i*dim : (i+1)*dim] {
			row[j] += v
		}
	}
	f.logPri = make([]float64, c)
	for k := 0; k < c; k++ {
		for j := 0; j < dim; j++ {
			f.centers.Data[k*dim+j] /= float64(size[k])
		}
		f.logPri[k] = math.Log(float64(size[k]) / float64(n))
	}
	return f, emb, pcaDim, nil
}

// svdDiscriminant is the LDASVD solver (see LDA) on the centred n×D a with
// class indices y and class sizes size: the whitened principal scores U
// (n×r) and the map back M = VΣ⁻¹ (D×r, a·M = U) from discriminant.Whiten,
// the thin SVD of H_bᵀ = [√N_c·ū_c] (r×c) whose left singular vectors q
// are the directions in U's space, and W = M·Q scaled as LDA says
// (discriminant.Directions). It returns the eigenvalues λ, W (D×m,
// m ≤ min(dim, r, c)) and the rank r.
func svdDiscriminant(r *run, a blas64.General, y, size []int, dim int) ([]float64, blas64.General, int, error) {
	n, d := a.Rows, a.Cols
	c := len(size)
	p := min(n, d)
	var uw, mp blas64.General
	predicted := flam.Syrk(p, max(n, d)) + flam.Syevr(p, p) + flam.Gemm(max(n, d), p, p)
	err := runStage(r, "svd", predicted, func(ctx context.Context, st *stageCtx) error {
		var err error
		uw, mp, err = discriminant.Whiten(ctx, a)
		if st != nil {
			st.detail = fmt.Sprintf("%s matrix, rank %d", map[bool]string{true: "covariance", false: "Gram"}[d <= n], uw.Cols)
		}
		return wrapNumerical(err)
	})
	if err != nil {
		return nil, blas64.General{}, 0, err
	}
	rk := uw.Cols
	var vals []float64
	var w blas64.General
	err = runStage(r, "eigensolve", float64(n*rk)+flam.SVD(rk, c)+flam.Gemm(d, dim, rk), func(ctx context.Context, st *stageCtx) error {
		var err error
		vals, w, err = discriminant.Directions(ctx, discriminant.WhitenedMeans(uw, y, size), mp, n, dim)
		if err != nil {
			return wrapNumerical(err)
		}
		if st != nil {
			st.detail = fmt.Sprintf("SVD of the %d×%d whitened class means", c, rk)
		}
		return nil
	})
	if err != nil {
		return nil, blas64.General{}, 0, err
	}
	return vals, w, rk, nil
}

// fisherfacesDiscriminant is the LDAFisherfaces solver (see LDA) on the
// centred n×D a: it returns the eigenvalues λ, W (D×m) normalized to
// Wᵀ(S_W/N)W = I and the number of principal components kept (0 without
// the PCA).
func fisherfacesDiscriminant(r *run, a blas64.General, y, size []int, dim int, reg float64, usePCA bool) ([]float64, blas64.General, int, error) {
	n, d := a.Rows, a.Cols
	c := len(size)
	impl := backend.Active()
	pcaDim := 0
	var u blas64.General // D×p principal directions (PCA only)
	if usePCA {
		err := runStage(r, "pca", flam.Syrk(n, d)+flam.Syevr(n, n-c)+flam.Gemm(d, n-c, n), func(ctx context.Context, st *stageCtx) error {
			var err error
			u, a, err = fisherfacesPCA(ctx, a, n-c)
			if st != nil {
				st.detail = fmt.Sprintf("Gram matrix, %d components", a.Cols)
			}
			return err
		})
		if err != nil {
			return nil, blas64.General{}, 0, err
		}
		pcaDim = a.Cols
	}
	p := a.Cols
	var b, sw blas64.General
	err := runStage(r, "scatter", discriminant.ScatterFlam(n, p, c), func(ctx context.Context, st *stageCtx) error {
		var err error
		_, b, sw, err = discriminant.Scatter(ctx, a, y, size)
		return err
	})
	if err != nil {
		return nil, blas64.General{}, 0, err
	}
	var wf blas64.General
	var vals []float64
	err = runStage(r, "eigensolve", discriminant.SolveFlam(p, c, dim), func(ctx context.Context, st *stageCtx) error {
		ridge := 0.0
		if reg > 0 {
			ridge = discriminant.Ridge(reg, sw)
		}
		var err error
		vals, wf, err = discriminant.Solve(sw, b, dim, ridge)
		if errors.Is(err, discriminant.ErrSingular) {
			return fmt.Errorf("%w: the within-class scatter is singular (%d samples, %d classes, %d dimensions); use the svd solver or set Reg (-alpha) > 0", ErrNumerical, n, c, p)
		}
		if st != nil {
			st.detail = "Cholesky of S_W, SVD of L⁻¹B"
		}
		return wrapNumerical(err)
	})
	if err != nil {
		return nil, blas64.General{}, 0, err
	}
	discriminant.Pooled(wf, n) // Wᵀ(S_W/N)W = I
	if u.Rows == 0 {
		return vals, wf, pcaDim, nil
	}
	proj := dense.New(d, wf.Cols)
	impl.Gemm(blas.NoTrans, blas.NoTrans, 1, u, wf, 0, proj)
	return vals, proj, pcaDim, nil
}

// fisherfacesPCA returns the p leading principal directions U (D×r) of the
// centred n×D a and the scores a·U (n×r), r ≤ p the number with a non-zero
// variance: from the n×n Gram matrix aaᵀ = VΛVᵀ, scores VΛ^½ and
// U = aᵀVΛ^−½ (the Eigenfaces trick, Belhumeur et al. §2.1).
func fisherfacesPCA(ctx context.Context, a blas64.General, p int) (blas64.General, blas64.General, error) {
	n, d := a.Rows, a.Cols
	impl := backend.Active()
	gm := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: make([]float64, n*n)}
	if err := backend.SyrkCtx(ctx, impl, blas.NoTrans, 1, a, 0, gm); err != nil {
		return blas64.General{}, blas64.General{}, err
	}
	vals, vecs, err := backend.EigTopCtx(ctx, impl, gm, p)
	if err != nil {
		return blas64.General{}, blas64.General{}, wrapNumerical(err)
	}
	r := 0
	for _, v := range vals {
		if v > 1e-12*vals[0] && vals[0] > 0 {
			r++
		}
	}
	if r == 0 {
		return blas64.General{}, blas64.General{}, fmt.Errorf("%w: the data have no variance", ErrNumerical)
	}
	scores, v := sqrtScaled(vecs, vals, r)
	u := dense.New(d, r)
	if err := backend.GemmCtx(ctx, impl, blas.Trans, blas.NoTrans, 1, a, v, 0, u); err != nil {
		return blas64.General{}, blas64.General{}, err
	}
	return u, scores, nil
}

// Projection returns W (D×Dim).
func (m *LDAModel) Projection() *mat.Dense { return copyDense(m.proj) }

// Eigenvalues returns the generalized eigenvalues λ (between- over
// within-class scatter) of the Dim directions, descending.
func (m *LDAModel) Eigenvalues() []float64 { return append([]float64(nil), m.vals...) }

// Classes returns the class labels in the order of ClassMeans' rows.
func (m *LDAModel) Classes() []int { return append([]int(nil), m.classes...) }

// ClassMeans returns the class means in the LDA space (c×Dim).
func (m *LDAModel) ClassMeans() *mat.Dense { return copyDense(m.centers) }

// Transform maps new points: y = Wᵀ(x − m).
func (m *LDAModel) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	return m.fisher.transform(ctx, m.method, x)
}

func (f *fisher) transform(ctx context.Context, method string, x mat.Matrix) (*mat.Dense, error) {
	g, err := denseTransformInput(method+" transform", x, len(f.mean))
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return transformResult(method, f.apply(g))
}

// apply maps the rows of g: g·W − 1·(mᵀW).
func (f *fisher) apply(g blas64.General) blas64.General {
	dim := f.proj.Cols
	y := dense.New(g.Rows, dim)
	backend.Active().Gemm(blas.NoTrans, blas.NoTrans, 1, g, f.proj, 0, y)
	shift := make([]float64, dim)
	backend.Active().Gemv(blas.Trans, 1, f.proj, blas64.Vector{N: len(f.mean), Inc: 1, Data: f.mean}, 0, blas64.Vector{N: dim, Inc: 1, Data: shift})
	for i := 0; i < y.Rows; i++ {
		for j := range shift {
			y.Data[i*dim+j] -= shift[j]
		}
	}
	return y
}

// Predict classifies new points by the FLDA rule (see LDA): the class c
// maximizing −½‖Wᵀ(x − m) − Wᵀ(m_c − m)‖² + log π_c.
func (m *LDAModel) Predict(ctx context.Context, x mat.Matrix) ([]int, error) {
	y, err := m.Transform(ctx, x)
	if err != nil {
		return nil, err
	}
	return m.fisher.classify(y.RawMatrix()), nil
}

// classify applies the Gaussian rule to points already in the LDA space.
func (f *fisher) classify(y blas64.General) []int {
	out := make([]int, y.Rows)
	dim := f.centers.Cols
	for i := range out {
		row := y.Data[i*y.Stride : i*y.Stride+dim]
		best, arg := math.Inf(-1), 0
		for k := range f.classes {
			s := 0.0
			for j, v := range f.centers.Data[k*dim : (k+1)*dim] {
				t := row[j] - v
				s += t * t
			}
			if score := -0.5*s + f.logPri[k]; score > best {
				best, arg = score, k
			}
		}
		out[i] = f.classes[arg]
	}
	return out
}

// Save writes the model (see Load for the format).
func (m *LDAModel) Save(w io.Writer) error { return saveModel(w, m) }

func (m *LDAModel) fields(c *codec) {
	dim := c.dim(m.Dim())
	m.fisher.fields(c, dim)
	c.matrix("embedding", &m.embedding, -1, dim)
}

// fields carries the discriminant of a dim-dimensional projection.
func (f *fisher) fields(c *codec, dim int) {
	c.vector("mean", &f.mean, -1)
	c.matrix("projection", &f.proj, len(f.mean), dim)
	c.vector("eigenvalues", &f.vals, dim)
	c.ints("classes", &f.classes, -1)
	nc := len(f.classes)
	c.matrix("centers", &f.centers, nc, dim)
	c.vector("log_priors", &f.logPri, nc)
}
