package engine

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
)

// PCAFromCovariance builds a PCA model from the statistics of data it never
// sees: the mean (length D) and the covariance Σ = MᵀM/(n−1) (D×D, M the
// centred data) of n samples, e.g. merged across the workers of a
// distributed pipeline. The components are the dim leading eigenvectors of
// Σ (backend.EigTop, the sign convention of PCA.Fit's covariance path), so
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
	m := &PCAModel{base: base{method: methodPCA, embedding: blas64.General{Rows: 1, Cols: dim, Stride: dim, Data: make([]float64, dim)}},
		mean: append([]float64(nil), mean...), components: vecs, variance: vals, total: total}
	info := backend.Info()
	m.report = Report{Method: methodPCA, Backend: info.Backend, BackendInfo: info, N: n, Features: d, Dim: dim,
		Params: map[string]any{"dim": dim, "solver": "covariance statistics"}}
	return m, nil
}
