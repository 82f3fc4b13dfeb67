package engine

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine/internal/discriminant"
	"github.com/manifoldlab/manifold/internal/dense"
)

// PCAFromCovariance builds a PCA model from the statistics of data it never
// sees: the mean (length D) and the covariance Σ = MᵀM/(n−1) (D×D, M the
// centred data) of n samples, e.g. merged across the workers of a
// distributed pipeline. The components are the dim leading eigenvectors of
// Σ (backend.EigTopCtx, the sign convention of PCA.Fit's covariance path), so
// the model equals PCA{Solver: PCACovariance}.Fit of the same data up to
// the statistics' rounding. The training rows were never seen, so the
// model's Embedding is one row: the mean's coordinates, zeros (1×dim).
// Transform, Save and Load work as for a fitted PCA.
func PCAFromCovariance(ctx context.Context, mean []float64, cov mat.Symmetric, n, dim int) (*PCAModel, error) {
	const method = "pca from covariance"
	d := len(mean)
	if d == 0 || cov == nil {
		return nil, fmt.Errorf("%s: %w", method, ErrEmpty)
	}
	if cov.SymmetricDim() != d {
		return nil, fmt.Errorf("%s: %w: mean has %d features, covariance is %d×%d", method, ErrShape, d, cov.SymmetricDim(), cov.SymmetricDim())
	}
	if n < 2 {
		return nil, fmt.Errorf("%s: %w: %d sample(s), need at least 2", method, ErrTooFewSamples, n)
	}
	if err := checkDim(methodPCA, dim, min(n-1, d), "min(samples−1, features)"); err != nil {
		return nil, err
	}
	c := blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: make([]float64, d*d)}
	total := 0.0
	for i := 0; i < d; i++ {
		if v := mean[i]; math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: %w: mean[%d] = %v", method, ErrNotFinite, i, v)
		}
		for j := i; j < d; j++ {
			v := cov.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: %w: covariance[%d,%d] = %v", method, ErrNotFinite, i, j, v)
			}
			c.Data[i*d+j] = v
		}
		total += c.Data[i*d+i]
	}
	vals, vecs, err := backend.EigTopCtx(ctx, backend.Active(), c, dim)
	if err != nil {
		return nil, wrapNumerical(err)
	}
	if err := checkRank(methodPCA, vals, dim); err != nil {
		return nil, err
	}
	m := &PCAModel{base: newBase(methodPCA, pcaParams{Solver: "covariance statistics", Total: total}),
		mean: append([]float64(nil), mean...), components: vecs, variance: vals}
	return fromStats(m, n, d, dim), nil
}

// LDAStats are the statistics LDAFromStats builds a discriminant from, as
// a distributed pipeline merges them: the mean of all samples, the total
// scatter S_T = Σ (x − m)(x − m)ᵀ (D×D, not divided by anything), and for
// every class its label, its number of samples and its mean.
type LDAStats struct {
	Mean       []float64
	Scatter    mat.Symmetric
	Classes    []int // ascending
	Counts     []int
	ClassMeans [][]float64
}

// LDAFromStats builds an LDA model (the LDASVD solver, see LDA) from
// statistics of data it never sees: the whitening map M = VΛ^−½ from the
// eigendecomposition of S_T (rank by Deng Cai's 10⁻¹⁰ rule), the
// between-class matrix H_bᵀ = [√N_c·Mᵀ(m_c − m)], whose thin SVD gives the
// directions, scaled and signed as LDA.Fit's covariance path (D ≤ N) does,
// so the model equals LDA{Solver: LDASVD}.Fit of the same data up to the
// statistics' rounding. The class centres in the LDA space are Wᵀ(m_c − m)
// and the priors N_c/N. The training rows were never seen: the model's
// Embedding is one row of zeros (the mean's coordinates). Transform,
// Predict, Save and Load work as for a fitted LDA.
func LDAFromStats(ctx context.Context, st LDAStats, dim int) (*LDAModel, error) {
	const method = "lda from statistics"
	d, c := len(st.Mean), len(st.Classes)
	if d == 0 || st.Scatter == nil {
		return nil, fmt.Errorf("%s: %w", method, ErrEmpty)
	}
	if st.Scatter.SymmetricDim() != d || len(st.Counts) != c || len(st.ClassMeans) != c {
		return nil, fmt.Errorf("%s: %w: mean of %d features, scatter %d×%d, %d classes with %d counts and %d means",
			method, ErrShape, d, st.Scatter.SymmetricDim(), st.Scatter.SymmetricDim(), c, len(st.Counts), len(st.ClassMeans))
	}
	if c < 2 {
		return nil, fmt.Errorf("%s: %w: %d class(es), need at least 2", method, ErrLabels, c)
	}
	n := 0
	for k, nk := range st.Counts {
		if nk < 1 || (k > 0 && st.Classes[k] <= st.Classes[k-1]) {
			return nil, fmt.Errorf("%s: %w: class %d (label %d) has %d samples; labels must ascend", method, ErrLabels, k, st.Classes[k], nk)
		}
		if len(st.ClassMeans[k]) != d {
			return nil, fmt.Errorf("%s: %w: class %d's mean has %d features, not %d", method, ErrShape, k, len(st.ClassMeans[k]), d)
		}
		n += nk
	}
	if n <= c {
		return nil, fmt.Errorf("%s: %w: %d samples in %d classes leave no within-class scatter", method, ErrTooFewSamples, n, c)
	}
	if dim == 0 {
		dim = c - 1
	}
	if err := checkDim(methodLDA, dim, c-1, "classes−1"); err != nil {
		return nil, err
	}
	sym := blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: make([]float64, d*d)}
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			sym.Data[i*d+j] = st.Scatter.At(i, j)
		}
	}
	diffs := dense.New(c, d) // m_c − m
	for k := 0; k < c; k++ {
		for i := 0; i < d; i++ {
			diffs.Data[k*d+i] = st.ClassMeans[k][i] - st.Mean[i]
		}
	}
	for _, v := range append(append([]float64(nil), sym.Data...), diffs.Data...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: %w: a statistic is %v", method, ErrNotFinite, v)
		}
	}
	mp, err := discriminant.CovarianceWhiten(ctx, sym)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, wrapNumerical(err))
	}
	rk := mp.Cols
	hb := dense.New(rk, c) // H_bᵀ = Mᵀ·[√N_c(m_c − m)]
	scaled := dense.New(d, c)
	for k := 0; k < c; k++ {
		sc := math.Sqrt(float64(st.Counts[k]))
		for i := 0; i < d; i++ {
			scaled.Data[i*c+k] = sc * diffs.Data[k*d+i]
		}
	}
	impl := backend.Active()
	impl.Gemm(blas.Trans, blas.NoTrans, 1, mp, scaled, 0, hb)
	vals, w, err := discriminant.Directions(ctx, hb, mp, n, dim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, wrapNumerical(err))
	}
	backend.FixSigns(w)
	dim = w.Cols
	f := fisher{mean: append([]float64(nil), st.Mean...), proj: w, vals: vals, classes: append([]int(nil), st.Classes...),
		centers: dense.New(c, dim), logPri: make([]float64, c)}
	impl.Gemm(blas.NoTrans, blas.NoTrans, 1, diffs, w, 0, f.centers)
	for k := range f.logPri {
		f.logPri[k] = math.Log(float64(st.Counts[k]) / float64(n))
	}
	m := &LDAModel{base: newBase(methodLDA, ldaParams{Classes: c, Solver: "svd statistics", PCADim: rk}), fisher: f}
	return fromStats(m, n, d, dim), nil
}

// LSIFromGram builds an LSI model from the term-space Gram matrix
// G = XᵀX (D×D, uncentred, not divided by anything) of n rows it never
// sees, e.g. summed across the workers of a distributed pipeline. The
// components are the dim leading eigenvectors of G (backend.EigTopCtx, each
// with its largest-magnitude entry positive, as LSI.Fit), the singular
// values the square roots of their eigenvalues, so the model equals
// LSI.Fit of the same data up to the statistics' rounding and the signs
// LSI.Fit's X·Xᵀ side may pick (it uses that side when n < D). The
// training rows were never seen, so the model's Embedding is one row: the
// coordinates of the zero row, zeros (1×dim). Transform, Save and Load work
// as for a fitted LSI.
//
// Cost: one dense D×D symmetric eigenproblem (D² words).
func LSIFromGram(ctx context.Context, gram mat.Symmetric, n, dim int) (*LSIModel, error) {
	const method = "lsi from gram"
	if gram == nil || gram.SymmetricDim() == 0 {
		return nil, fmt.Errorf("%s: %w", method, ErrEmpty)
	}
	d := gram.SymmetricDim()
	if n < 1 {
		return nil, fmt.Errorf("%s: %w: %d sample(s)", method, ErrTooFewSamples, n)
	}
	if err := checkDim(methodLSI, dim, min(n, d), "min(documents, terms)"); err != nil {
		return nil, err
	}
	vals, vecs, err := lsiTop(ctx, method, "gram", gram, dim)
	if err != nil {
		return nil, err
	}
	m := &LSIModel{base: newBase(methodLSI, lsiParams{Eigensolver: EigenDense, Input: "gram statistics"}),
		components: vecs, sigma: make([]float64, dim)}
	for j, v := range vals {
		m.sigma[j] = math.Sqrt(v)
	}
	backend.FixSigns(m.components)
	return fromStats(m, n, d, dim), nil
}

// lsiTop returns the dim leading eigenpairs of the Gram matrix s, refusing
// a value of s that is not finite (finiteUpper, named what) and
// eigenpairs with a zero eigenvalue (ErrDimension).
func lsiTop(ctx context.Context, method, what string, s mat.Symmetric, dim int) ([]float64, blas64.General, error) {
	g, err := finiteUpper(method, what, s)
	if err != nil {
		return nil, blas64.General{}, err
	}
	vals, vecs, err := backend.EigTopCtx(ctx, backend.Active(), g, dim)
	if err != nil {
		return nil, blas64.General{}, wrapNumerical(err)
	}
	return vals, vecs, checkLSIRank(vals, dim)
}

// finiteUpper copies the upper triangle of s, refusing a value that is not
// finite (ErrNotFinite, named what[i,j]).
func finiteUpper(method, what string, s mat.Symmetric) (blas64.Symmetric, error) {
	d := s.SymmetricDim()
	c := blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: make([]float64, d*d)}
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := s.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return blas64.Symmetric{}, fmt.Errorf("%s: %w: %s[%d,%d] = %v", method, ErrNotFinite, what, i, j, v)
			}
			c.Data[i*d+j] = v
		}
	}
	return c, nil
}

// fromStats completes a model built from statistics of n samples of d
// features: its embedding is one row of dim zeros (the mean's coordinates;
// the training rows were never seen), its report has no stages.
func fromStats[M describedModel](m M, n, d, dim int) M {
	b := m.core()
	b.embedding = rowVec(make([]float64, dim))
	info := backend.Info()
	b.report = Report{Method: b.method, Backend: info.Backend, BackendInfo: info, N: n, Features: d, Dim: dim, Params: reportParams(m)}
	return m
}

// LSIFromRange builds an LSI model from the statistics of a randomized
// range finder over rows it never sees (Halko, Martinsson & Tropp,
// "Finding structure with randomness: probabilistic algorithms for
// constructing approximate matrix decompositions", SIAM Review 53(2),
// 2011, Algorithms 4.4 and 5.1), e.g. summed across the workers of a
// distributed pipeline: basis is Q (D×ℓ, orthonormal columns), an
// approximate basis of the range of XᵀX (the span of the leading right
// singular vectors of the n×D rows X), and proj is the projected Gram
// matrix C = QᵀXᵀXQ (ℓ×ℓ, not divided by anything). The Rayleigh–Ritz
// step C = WΛWᵀ gives the components V = Q·W_dim (each with its
// largest-magnitude entry positive, as LSI.Fit) and the singular values
// √λ_j. When Q spans the dim leading right singular vectors exactly (ℓ = D,
// Q = I: C is XᵀX) the model equals LSIFromGram's and LSI.Fit's up to the
// statistics' rounding; otherwise the error of each σ_j² is of the order
// of the square of the angle between its singular vector and span(Q).
// The training rows were never seen, so the model's Embedding is one row
// of zeros (1×dim). Transform, Save and Load work as for a fitted LSI.
//
// basis must be orthonormal to 1e-8 (largest |QᵀQ − I|), dim ≤ min(n, ℓ).
// Cost: ℓ²·D flam to check the basis and D·ℓ·dim for V, one dense ℓ×ℓ
// symmetric eigenproblem.
func LSIFromRange(ctx context.Context, basis mat.Matrix, proj mat.Symmetric, n, dim int) (*LSIModel, error) {
	const method = "lsi from range"
	if basis == nil || proj == nil || proj.SymmetricDim() == 0 {
		return nil, fmt.Errorf("%s: %w", method, ErrEmpty)
	}
	d, l := basis.Dims()
	if proj.SymmetricDim() != l || l > d {
		return nil, fmt.Errorf("%s: %w: basis %d×%d, projected Gram matrix %d×%d (want D×ℓ and ℓ×ℓ, ℓ ≤ D)", method, ErrShape, d, l, proj.SymmetricDim(), proj.SymmetricDim())
	}
	if n < 1 {
		return nil, fmt.Errorf("%s: %w: %d sample(s)", method, ErrTooFewSamples, n)
	}
	if err := checkDim(methodLSI, dim, min(n, l), "min(documents, basis columns)"); err != nil {
		return nil, err
	}
	q := dense.New(d, l)
	for i := 0; i < d; i++ {
		for j := 0; j < l; j++ {
			v := basis.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: %w: basis[%d,%d] = %v", method, ErrNotFinite, i, j, v)
			}
			q.Data[i*l+j] = v
		}
	}
	qtq := blas64.Symmetric{N: l, Stride: l, Uplo: blas.Upper, Data: make([]float64, l*l)}
	blas64.Syrk(blas.Trans, 1, q, 0, qtq)
	for i := 0; i < l; i++ {
		for j := i; j < l; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if e := math.Abs(qtq.Data[i*l+j] - want); e > 1e-8 {
				return nil, fmt.Errorf("%s: %w: the basis is not orthonormal: |QᵀQ − I|[%d,%d] = %.3g", method, ErrBadSetting, i, j, e)
			}
		}
	}
	vals, w, err := lsiTop(ctx, method, "projected gram", proj, dim)
	if err != nil {
		return nil, err
	}
	v := dense.New(d, dim)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, q, w, 0, v)
	m := &LSIModel{base: newBase(methodLSI, lsiParams{Eigensolver: "randomized range", Input: "range statistics", Basis: l}),
		components: v, sigma: make([]float64, dim)}
	for j, e := range vals {
		m.sigma[j] = math.Sqrt(e)
	}
	backend.FixSigns(m.components)
	return fromStats(m, n, d, dim), nil
}
