package engine

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/internal/dense"
)

// MDS is classical multidimensional scaling (Gering 2002
// §2.2; Torgerson 1952): squared distances S,
// double centring B = −½·H·S·H (the τ operator of Cai, He & Han, AAAI 2007
// eq. 3), the top Dim eigenpairs of B, coordinates y_i = √λ_k·v_ik.
// Fit works from data (Euclidean distances between rows), FitDistances from
// a distance matrix. scikit-learn's MDS is SMACOF, a different method; the
// classical MDS here equals scikit-learn's KernelPCA of the precomputed
// kernel −½·S. New points are placed by the distance-based triangulation
// of landmark MDS (de Silva & Tenenbaum 2003, eq. of §3.2), which maps the
// training points onto their own embedding exactly.
type MDS struct {
	Dim         int // output dimension; default 2
	Eigensolver Eigensolver
	Seed        uint64 // Lanczos start vector
	Options
}

// MDSModel is a fitted classical MDS.
type MDSModel struct {
	base[mdsParams]
	tri   triangulation
	train blas64.General // training data (Fit only; empty after FitDistances)
	eig   []float64      // the Dim eigenvalues of B, descending
}

// mdsParams are MDS's parameters.
type mdsParams struct {
	Input string `param:"input,report"` // "data" (Fit) or "distances" (FitDistances)
}

const methodMDS = "mds"

func (s MDS) dim() int { return cmp.Or(s.Dim, 2) }

// Fit embeds the rows of x by classical MDS of their Euclidean distances.
func (s MDS) Fit(ctx context.Context, x mat.Matrix) (*MDSModel, error) {
	return fitter[*MDSModel]{method: methodMDS, opts: s.Options, input: denseRows,
		plan: func(in samples) (fitPlan, error) {
			n, _ := in.dims()
			return fitPlan{dim: s.dim(), bytes: 8 * int64(n) * int64(n), what: "classical MDS (one N×N matrix)", cheaper: "landmark-isomap or PCA"}, s.check(n)
		},
		stages: func(r *run, in samples) (*MDSModel, error) {
			g := in.dense
			n := g.Rows
			sq := dense.New(n, n)
			err := r.stage("distances", flam.SqDist(n, n, g.Cols, true), func(ctx context.Context, st *stageCtx) error {
				return backend.SqDistCtx(ctx, backend.Active(), sq, g, g, nil, nil)
			})
			if err != nil {
				return nil, err
			}
			m, err := s.embed(r, sq, "data")
			if err != nil {
				return nil, err
			}
			m.train = dense.Copy(g)
			return m, nil
		},
	}.fit(ctx, x)
}

// FitDistances embeds N points given their N×N matrix of Euclidean (not
// squared) distances: symmetric, non-negative, zero diagonal, finite.
func (s MDS) FitDistances(ctx context.Context, dist mat.Matrix) (*MDSModel, error) {
	return fitter[*MDSModel]{method: methodMDS, opts: s.Options, input: distanceMatrix,
		plan: func(in samples) (fitPlan, error) {
			n := in.dense.Rows
			return fitPlan{dim: s.dim(), bytes: 8 * int64(n) * int64(n), what: "classical MDS (one N×N matrix)", cheaper: "landmark-isomap"}, s.checkDistances(ctx, in.dense)
		},
		stages: func(r *run, in samples) (*MDSModel, error) {
			g := in.dense
			n := g.Rows
			sq := dense.New(n, n)
			err := dense.UpperTiles(r.ctx, n, func(_, i0, i1, j0, j1 int) {
				for i := i0; i < i1; i++ {
					for j := max(j0, i); j < j1; j++ {
						v, w := g.Data[i*g.Stride+j], g.Data[j*g.Stride+i]
						sq.Data[i*n+j] = 0.25 * (v + w) * (v + w)
						sq.Data[j*n+i] = sq.Data[i*n+j]
					}
				}
			})
			if err != nil {
				return nil, err
			}
			return s.embed(r, sq, "distances")
		},
	}.fit(ctx, dist)
}

// checkDistances checks an N×N matrix of distances: square, symmetric,
// non-negative with a zero diagonal, not all 0, and small enough that
// squared distances and their row sums stay finite. The pairs i ≤ j are
// checked tile by tile in parallel, ctx between tile rows (a 20,000-point
// matrix is 4·10⁸ entries); the pair named is the first in row order
// that fails, whatever the workers.
func (s MDS) checkDistances(ctx context.Context, g blas64.General) error {
	n := g.Rows
	if g.Cols != n {
		return fmt.Errorf("mds: %w: distance matrix is %d×%d, not square", ErrShape, n, g.Cols)
	}
	if err := s.check(n); err != nil {
		return err
	}
	limit := math.Sqrt(math.MaxFloat64 / (8 * float64(n)))
	tiles := (n + dense.Tile - 1) / dense.Tile
	largest := make([]float64, tiles)
	// The first failing pair of each tile row (found: false for none),
	// and whether it fails only by its size.
	type bad struct {
		i, j       int
		found, big bool
	}
	first := make([]bad, tiles)
	err := dense.UpperTiles(ctx, n, func(row, i0, i1, j0, j1 int) {
		top := largest[row]
		for i := i0; i < i1; i++ {
			for j := max(j0, i); j < j1; j++ {
				v, w := g.Data[i*g.Stride+j], g.Data[j*g.Stride+i]
				shape := !(v >= 0 && w >= 0) || (i == j && v != 0) || math.Abs(v-w) > 1e-9*max(math.Abs(v), 1)
				if big := max(v, w) > limit; shape || big {
					if f := first[row]; !f.found || i < f.i || i == f.i && j < f.j {
						first[row] = bad{i, j, true, !shape}
					}
				}
				top = max(top, v)
			}
		}
		largest[row] = top
	})
	if err != nil {
		return fmt.Errorf("mds: checking the distances: %w", err)
	}
	for row, f := range first {
		if !f.found {
			largest[0] = max(largest[0], largest[row])
			continue
		}
		v, w := g.Data[f.i*g.Stride+f.j], g.Data[f.j*g.Stride+f.i]
		if f.big {
			return fmt.Errorf("mds: %w: distance d[%d,%d] = %.3g makes squared distances overflow (limit about %.3g for %d points); rescale",
				ErrNotFinite, f.i, f.j, max(v, w), limit, n)
		}
		return fmt.Errorf("mds: %w: distances must be symmetric, non-negative with a zero diagonal: d[%d,%d] = %v, d[%d,%d] = %v",
			ErrBadSetting, f.i, f.j, v, f.j, f.i, w)
	}
	if largest[0] == 0 {
		return fmt.Errorf("mds: %w: every distance is 0: all %d points are the same", ErrDimension, n)
	}
	return nil
}

func (s MDS) check(n int) error {
	if n < 2 {
		return fmt.Errorf("mds: %w: %d sample(s), need at least 2", ErrTooFewSamples, n)
	}
	if _, err := chooseEigensolver(methodMDS, s.Eigensolver, eigenproblem{n: n, dim: s.dim()}); err != nil {
		return err
	}
	return checkDim(methodMDS, s.dim(), n-1, "samples−1")
}

// embed runs the centring and eigensolve stages on the squared distances
// sq (overwritten) of the input named.
func (s MDS) embed(r *run, sq blas64.General, input string) (*MDSModel, error) {
	dim := s.dim()
	m := &MDSModel{base: newBase(methodMDS, mdsParams{Input: input})}
	vals, vecs, means, err := centreAndEig(r, sq, dim, s.Eigensolver, s.Seed)
	if err != nil {
		return nil, err
	}
	m.embedding, m.tri, err = embedFromEig(methodMDS, vals, vecs, means)
	if err != nil {
		return nil, err
	}
	m.eig = vals
	return m, nil
}

// centreAndEig double-centres the n×n squared distances sq in place
// (stage "centering") and returns the top dim eigenpairs of B (stage
// "eigensolve", by solver; EigenAuto as chooseEigensolver resolves it) and
// the row means of sq.
func centreAndEig(r *run, sq blas64.General, dim int, solver Eigensolver, seed uint64) ([]float64, blas64.General, []float64, error) {
	n := sq.Rows
	var means []float64
	err := r.stage("centering", flam.DoubleCenter(n), func(ctx context.Context, st *stageCtx) error {
		means = backend.RowMeans(sq)
		return backend.DoubleCenterCtx(ctx, sq, means)
	})
	if err != nil {
		return nil, blas64.General{}, nil, err
	}
	solver, err = chooseEigensolver(r.method, solver, eigenproblem{n: n, dim: dim})
	if err != nil {
		return nil, blas64.General{}, nil, err
	}
	vals, vecs, err := topEigen(r, sq, nil, n, dim, solver, seed)
	return vals, vecs, means, err
}

// embedFromEig turns the top eigenpairs of B into coordinates √λ·v and the
// triangulation that places new points. Non-positive eigenvalues mean the
// requested dimension is not supported by the distances.
func embedFromEig(method string, vals []float64, vecs blas64.General, meanSq []float64) (blas64.General, triangulation, error) {
	dim := vecs.Cols
	for j, v := range vals {
		if v <= 1e-12*max(vals[0], 0) || vals[0] <= 0 {
			return blas64.General{}, triangulation{}, fmt.Errorf("%s: %w: only %d of the %d requested dimensions have a positive eigenvalue", method, ErrDimension, j, dim)
		}
	}
	emb, pinv := sqrtScaled(vecs, vals, dim)
	return emb, triangulation{pinv: pinv, meanSq: meanSq}, nil
}

// sqrtScaled returns the first r columns of vecs with column j multiplied
// by √vals[j], and divided by it: an eigendecomposition's coordinates
// V·Λ^½ and the map back V·Λ^−½.
func sqrtScaled(vecs blas64.General, vals []float64, r int) (times, over blas64.General) {
	n := vecs.Rows
	times, over = dense.New(n, r), dense.New(n, r)
	for i := 0; i < n; i++ {
		for j := 0; j < r; j++ {
			v := vecs.Data[i*vecs.Stride+j]
			times.Data[i*r+j] = v * math.Sqrt(vals[j])
			over.Data[i*r+j] = v / math.Sqrt(vals[j])
		}
	}
	return times, over
}

// triangulation places a new point from its squared distances δ to the n
// reference points (landmark MDS, de Silva & Tenenbaum 2003 §3.2):
// y = −½·L#·(δ − δ̄), with L# the pseudo-inverse transpose of the reference
// embedding (columns v_k/√λ_k) and δ̄ the mean squared distance of each
// reference point to the others.
type triangulation struct {
	pinv   blas64.General // n×dim
	meanSq []float64      // n
}

// apply maps the m×n squared distances delta (overwritten) to m×dim.
func (t triangulation) apply(delta blas64.General) blas64.General {
	for i := 0; i < delta.Rows; i++ {
		row := delta.Data[i*delta.Stride : i*delta.Stride+delta.Cols]
		for j := range row {
			row[j] -= t.meanSq[j]
		}
	}
	y := dense.New(delta.Rows, t.pinv.Cols)
	backend.Active().Gemm(blas.NoTrans, blas.NoTrans, -0.5, delta, t.pinv, 0, y)
	return y
}

// triangulated carries what every MDS-based model keeps: the embedding,
// the triangulation that places new points and the eigenvalues, for a
// dim-dimensional embedding whose triangulation has nRef reference points
// (nRef < 0: one per embedded point).
func (c *codec) triangulated(emb *blas64.General, tri *triangulation, eig *[]float64, dim, nRef int) {
	c.matrix("embedding", emb, -1, dim)
	if nRef < 0 {
		nRef = emb.Rows
	}
	c.matrix("pinv", &tri.pinv, nRef, dim)
	c.vector("mean_sq", &tri.meanSq, nRef)
	c.vector("eigenvalues", eig, dim)
}

// Eigenvalues returns the Dim eigenvalues of B used, descending.
func (m *MDSModel) Eigenvalues() []float64 { return append([]float64(nil), m.eig...) }

// Transform places new points by triangulation from their Euclidean
// distances to the training points. Models fitted from distances cannot:
// use TransformDistances.
func (m *MDSModel) Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	if m.train.Rows == 0 {
		return nil, fmt.Errorf("mds transform: %w: the model was fitted from distances; use TransformDistances", ErrNoTransform)
	}
	g, err := denseTransformInput("mds transform", x, m.train.Cols)
	if err != nil {
		return nil, err
	}
	if err := checkTransformRange(methodMDS, samples{dense: g}, m.train.Rows); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sq := dense.New(g.Rows, m.train.Rows)
	if err := backend.SqDistCtx(ctx, backend.Active(), sq, g, m.train, nil, nil); err != nil {
		return nil, err
	}
	return transformResult(methodMDS, m.tri.apply(sq))
}

// TransformDistances places new points given their m×N Euclidean distances
// to the N training points.
func (m *MDSModel) TransformDistances(ctx context.Context, dist mat.Matrix) (*mat.Dense, error) {
	g, err := denseInput("mds transform distances", dist)
	if err != nil {
		return nil, err
	}
	if g.Cols != m.tri.pinv.Rows {
		return nil, fmt.Errorf("mds transform: %w: %d distances per point, the model has %d training points", ErrShape, g.Cols, m.tri.pinv.Rows)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sq := dense.New(g.Rows, g.Cols)
	for i := 0; i < g.Rows; i++ {
		for j, v := range g.Data[i*g.Stride : i*g.Stride+g.Cols] {
			sq.Data[i*g.Cols+j] = v * v
		}
	}
	return transformResult(methodMDS, m.tri.apply(sq))
}

// Save writes the model (see Load for the format).
func (m *MDSModel) Save(w io.Writer) error { return saveModel(w, m) }

func (m *MDSModel) fields(c *codec) {
	dim := c.dim(m.Dim())
	c.triangulated(&m.embedding, &m.tri, &m.eig, dim, -1)
	if m.train.Rows > 0 || (c.load && c.has("train")) { // absent: fitted from distances
		c.matrix("train", &m.train, m.embedding.Rows, -1)
	}
}
