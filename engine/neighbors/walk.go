package neighbors

import (
	"context"

	"github.com/manifoldlab/manifold/engine/internal/principal"
)

// walkSpace is the space an Index's queries walk its graph in: float32
// rows (rows × dim, row j at x[j·dim:(j+1)·dim]) and their squared norms,
// where a query's key to row j is its squared distance (Euclidean) or
// 1 − its dot product (cosine, unit rows).
//
// For wide Euclidean rows it is their coordinates on the top principal
// axes of the rows (axes != nil): p ≤ D/2 values a row in place of the
// rows' D, so the walk reads at most half the memory and computes as few
// products, and the rows the search keeps are then reranked by their
// exact distances. Ranking candidates by a projection
// onto the leading principal subspace and reranking a short list exactly
// is the classical filter-and-refine of similarity search (Faloutsos,
// Ranganathan & Manolopoulos, SIGMOD 1994: distances in a projection
// bound the true ones from below); the Index keeps Width candidates, so
// a true neighbour is lost only when the projection ranks it below
// Width others.
type walkSpace struct {
	x      []float32
	sq     []float32
	dim    int
	cosine bool
	// axes (dim × the rows' dimension, row-major) and shift (dim) map a
	// query to the walk's coordinates (project); nil when the walk is in
	// the rows' own space.
	axes, shift []float32
}

// key is a query's key to row j, the query's dot product with it being
// dot and its squared norm qsq.
func (w *walkSpace) key(qsq, dot float32, j int32) float32 {
	if w.cosine {
		return max(0, 1-dot)
	}
	return max(0, qsq+w.sq[j]-2*dot)
}

// rowSpace is the walk in the rows' own float32 values.
func rowSpace(v *dense32) walkSpace {
	return walkSpace{x: v.x, sq: v.sq, dim: v.dim, cosine: v.metric == Cosine}
}

const (
	// projectMinDim: rows of fewer features are walked as they are.
	projectMinDim = 64
	// projectVariance is the share of the rows' variance the walk's
	// principal axes keep; when that takes more than half the features,
	// the rows are walked as they are.
	projectVariance = 0.97
)

// principalSpace returns the walk on the top principal axes of v's rows
// (Euclidean only), or ok = false when the rows are too narrow, or their
// variance too spread out, for a projection to pay: the p leading
// eigenvectors of the covariance of up to principal.Sample evenly spaced rows
// that keep projectVariance of its trace (p rounded up to a multiple of 4,
// at most dim/2). Deterministic: the same rows give the same space on any
// number of goroutines. The rows are v's in its order (dense32.queryRow).
func principalSpace(ctx context.Context, v *dense32) (walkSpace, bool, error) {
	n, d := v.rows, v.dim
	if v.metric != Euclidean || d < projectMinDim || n < 2 {
		return walkSpace{}, false, nil
	}
	row := principal.Row(v.queryRow)
	if v.f != 1 { // the rows as held (keyScale), so the walk's keys are theirs
		row = func(p int, buf []float64) []float64 {
			for c, x := range v.queryRow(p, buf) {
				buf[c] = x * v.f
			}
			return buf
		}
	}
	axes, mean, err := principal.Axes(ctx, n, d, row, projectVariance)
	if err != nil || axes.Rows == 0 {
		return walkSpace{}, false, err
	}
	p := axes.Cols
	axes32 := make([]float32, p*d) // p × d, for the queries
	for a := 0; a < p; a++ {
		for k := 0; k < d; k++ {
			axes32[a*d+k] = float32(axes.Data[k*p+a])
		}
	}
	w := walkSpace{x: float32sOnHugePages(n * p), sq: make([]float32, n), dim: p}
	err = principal.Project(ctx, n, row, axes, mean, func(r int, _, z []float64) {
		dst := w.x[r*p : (r+1)*p]
		sq := 0.0
		for a, x := range z {
			dst[a] = float32(x)
			sq += float64(dst[a]) * float64(dst[a])
		}
		w.sq[r] = float32(sq)
	})
	if err != nil {
		return walkSpace{}, false, err
	}
	// The walk's coordinates of a query q are axes·q − axes·mean.
	w.axes, w.shift = axes32, make([]float32, p)
	for a := 0; a < p; a++ {
		t := 0.0
		for k := 0; k < d; k++ {
			t += float64(axes32[a*d+k]) * mean[k]
		}
		w.shift[a] = float32(t)
	}
	return w, true, nil
}

// project sets dst (w.dim values) to the walk's coordinates of the query
// q (the rows' dimension); w must be a principal space.
func (w *walkSpace) project(q, dst []float32) {
	d := len(q)
	var off [4]int
	var dot [4]float32
	for a := 0; a < w.dim; a += 4 { // w.dim is a multiple of 4
		for r := range off {
			off[r] = (a + r) * d
		}
		dots4(q, w.axes, &off, &dot)
		for r := range dot {
			dst[a+r] = dot[r] - w.shift[a+r]
		}
	}
}
