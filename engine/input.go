package engine

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine/internal/centred"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/sparse"
)

// samples are the rows of the data, dense or sparse (text corpora): exactly
// one of dense and csr is set.
type samples struct {
	dense blas64.General
	csr   *sparse.CSR
}

// rows and cols return the shape.
func (in samples) rows() int {
	if in.csr != nil {
		r, _ := in.csr.Dims()
		return r
	}
	return in.dense.Rows
}

func (in samples) cols() int {
	if in.csr != nil {
		_, c := in.csr.Dims()
		return c
	}
	return in.dense.Cols
}

// nnz is the number of stored entries (rows·cols when dense).
func (in samples) nnz() int {
	if in.csr != nil {
		return in.csr.NNZ()
	}
	return in.dense.Rows * in.dense.Cols
}

// mulBlock sets dst = X·b (rows×b.Cols), cancellable.
func (in samples) mulBlock(ctx context.Context, dst, b blas64.General) error {
	if in.csr != nil {
		return in.csr.MulBlockCtx(ctx, dst, b)
	}
	return backend.GemmCtx(ctx, backend.Active(), blas.NoTrans, blas.NoTrans, 1, in.dense, b, 0, dst)
}

// project runs the stage name that maps the rows of x (dense or sparse) by
// proj: x·proj.
func (r *run) project(name string, predicted float64, x samples, proj blas64.General) (blas64.General, error) {
	var y blas64.General
	err := r.stage(name, predicted, func(ctx context.Context, s *stageCtx) error {
		y = dense.New(x.rows(), proj.Cols)
		return x.mulBlock(ctx, y, proj)
	})
	return y, err
}

// samplesInput accepts a *sparse.CSR as it is (checking it is not empty and
// holds finite values) and any other matrix as denseInput does.
func samplesInput(what string, x mat.Matrix) (samples, error) {
	c, ok := x.(*sparse.CSR)
	if !ok {
		g, err := denseInput(what, x)
		return samples{dense: g}, err
	}
	r, cols := c.Dims()
	if r == 0 || cols == 0 {
		return samples{}, fmt.Errorf("%s: %w: %d samples × %d features", what, ErrEmpty, r, cols)
	}
	if err := checkSize(what, r, cols); err != nil {
		return samples{}, err
	}
	ptr, ind, val := c.RowPtr(), c.ColIdx(), c.Values()
	for i := 0; i < r; i++ {
		for p := ptr[i]; p < ptr[i+1]; p++ {
			if v := val[p]; v-v != 0 {
				return samples{}, fmt.Errorf("%s: %w: row %d, column %d is %v", what, ErrNotFinite, i, ind[p], v)
			}
		}
	}
	return samples{csr: c}, nil
}

// fitDenseInput is denseInput for the data a method learns from: a matrix
// that is not a *mat.Dense is copied only when the copy fits in the memory
// budget, and the values must pass checkFitData for forms of the given
// degree.
func fitDenseInput(method string, x mat.Matrix, opts Options, degree int) (blas64.General, error) {
	if err := checkCopy(method, x, opts); err != nil {
		return blas64.General{}, err
	}
	g, err := denseInput(method, x)
	if err != nil {
		return g, err
	}
	return g, checkFitData(method, samples{dense: g}, true, degree)
}

// fitSamplesInput is samplesInput for the data a method learns from (see
// fitDenseInput); a *sparse.CSR is kept as it is. spread says whether the
// method needs distinct samples (every method that centres the data or
// measures distances); see checkFitData.
func fitSamplesInput(method string, x mat.Matrix, opts Options, spread bool, degree int) (samples, error) {
	if _, ok := x.(*sparse.CSR); !ok {
		if err := checkCopy(method, x, opts); err != nil {
			return samples{}, err
		}
	}
	in, err := samplesInput(method, x)
	if err != nil {
		return in, err
	}
	return in, checkFitData(method, in, spread, degree)
}

// maxOffsetRatio bounds offsetRatio for rows kept sparse: past it the
// distances and centred products that the sparse paths compute from the
// rows' norms (‖a‖² + ‖b‖² − 2·a·b; X·B − 1·μᵀ·B) lose more than about 8
// of float64's 16 digits to cancellation.
const maxOffsetRatio = 1e8

// offsetRatio is Σ wᵢ‖xᵢ‖² / Σ wᵢ‖xᵢ − μ‖² for the sparse rows a, with
// weights w (nil: 1) and μ their weighted column means, each sum formed
// without cancellation: the factor by which a common offset (a column of
// timestamps, say) magnifies the rounding of products formed from norms.
// 1 for centred data, ∞ for identical rows.
func offsetRatio(a *sparse.CSR, w []float64) float64 {
	n, d := a.Dims()
	weight := func(i int) float64 {
		if w == nil {
			return 1
		}
		return w[i]
	}
	mean := centred.WeightedMean(blas64.General{}, a, w) // the centring's own mean
	total := 0.0
	for i := 0; i < n; i++ {
		total += weight(i)
	}
	if total <= 0 {
		return 1
	}
	absent := make([]float64, d) // the weight of the rows without column j
	for j := range absent {
		absent[j] = total
	}
	ptr, ind, val := a.RowPtr(), a.ColIdx(), a.Values()
	raw, aboutMean := 0.0, 0.0
	for i := 0; i < n; i++ {
		for p := ptr[i]; p < ptr[i+1]; p++ {
			e := val[p] - mean[ind[p]]
			raw += weight(i) * val[p] * val[p]
			aboutMean += weight(i) * e * e
			absent[ind[p]] -= weight(i)
		}
	}
	for j, m := range mean {
		aboutMean += max(absent[j], 0) * m * m
	}
	if aboutMean == 0 {
		return math.Inf(1)
	}
	return raw / aboutMean
}

// denseIfOffset returns in, its sparse rows made dense when their
// offsetRatio (with weights w, nil: 1) passes maxOffsetRatio, so that the
// method's dense path takes differences of the values themselves; or,
// when that copy does not fit the memory budget, an error wrapping
// ErrNumerical that says why.
func denseIfOffset(method string, in samples, w []float64, opts Options) (samples, error) {
	if in.csr == nil {
		return in, nil
	}
	ratio := offsetRatio(in.csr, w)
	if !(ratio > maxOffsetRatio) || math.IsInf(ratio, 1) {
		return in, nil
	}
	if err := checkCopy(method, in.csr, opts); err != nil {
		return in, fmt.Errorf("%s: %w: the sparse rows' squared norms are %.3g times their squared distances from the mean (a column with a large common offset?), so distances computed from norms would lose their digits; subtract the offset, or allow the dense copy (%v)",
			method, ErrNumerical, ratio, err)
	}
	return samples{dense: rawRows(in.csr.ToDense())}, nil
}

// copyBytes is what densifying x costs: 0 for a *mat.Dense (used in
// place), rows·cols·8 otherwise (-1 when that overflows).
func copyBytes(x mat.Matrix) int64 {
	if x == nil {
		return 0
	}
	if _, ok := x.(*mat.Dense); ok {
		return 0
	}
	r, c := x.Dims()
	if r <= 0 || c <= 0 {
		return 0
	}
	if int64(r) > math.MaxInt64/8/int64(c) || int64(r)*int64(c) > math.MaxInt {
		return -1
	}
	return 8 * int64(r) * int64(c)
}

// maxSide bounds the samples and the features (2³¹ − 1), so that the
// memory estimates, products of two sizes and small factors, stay within
// int64.
const maxSide = math.MaxInt32

func checkSize(what string, r, c int) error {
	if r > maxSide || c > maxSide {
		return fmt.Errorf("%s: %w: %d samples × %d features; the engine takes at most %d of either", what, ErrMemoryBudget, r, c, maxSide)
	}
	return nil
}

// fitCopyBytes is what a Fit spends densifying x: copyBytes, except for a
// *sparse.CSR that the method keeps sparse (keepSparse).
func fitCopyBytes(x mat.Matrix, keepSparse bool) int64 {
	if _, ok := x.(*sparse.CSR); ok && keepSparse {
		return 0
	}
	return max(copyBytes(x), 0)
}

// checkCopy refuses to densify x (a sparse or other non-Dense matrix) when
// the copy cannot exist or does not fit the memory budget.
func checkCopy(method string, x mat.Matrix, opts Options) error {
	b := copyBytes(x)
	if b == 0 {
		return nil
	}
	r, c := x.Dims()
	if b < 0 {
		return fmt.Errorf("%s: %w: a dense copy of the %d×%d input cannot be addressed; use a method that keeps sparse rows (lsi, lpp, npe, ltsa, laplacian, isoprojection)",
			method, ErrMemoryBudget, r, c)
	}
	if opts.MaxBytes > 0 && b > opts.MaxBytes {
		return fmt.Errorf("%s: %w: a dense copy of the %d×%d input needs about %s, budget %s; cheaper: a method that keeps sparse rows (lsi, lpp, npe, ltsa, laplacian, isoprojection), or a *mat.Dense input (used in place)",
			method, ErrMemoryBudget, r, c, fmtBytes(b), fmtBytes(opts.MaxBytes))
	}
	return nil
}

// Limits of the values a fit accepts. A method's largest forms are of
// some degree in the data's scale s: 2 for squared distances, Gram entries
// and their sums over N samples, which are at most 4·D·s² and N·D·s²; 4 for
// OIP's M = G² − 2·AᵀτA (G = AᵀA). They stay finite while
// s^degree · (8·max(N, D)·D)^(degree/2) is below MaxFloat64, and they do
// not underflow while the samples' spread is above minSpread^(2/degree):
// at a spread below minSpread every squared difference underflows to 0.
const minSpread = 1e-150

// valueLimit is the largest |x| the limits above allow in N samples of D
// features for forms of the given degree (2 or 4).
func valueLimit(n, d, degree int) float64 {
	return math.Pow(math.MaxFloat64/math.Pow(8*float64(max(n, d))*float64(d), float64(degree)/2), 1/float64(degree))
}

// spreadLimit is the smallest spread the limits above allow for forms of
// the given degree.
func spreadLimit(degree int) float64 {
	return math.Pow(minSpread, 2/float64(degree))
}

// checkFitData checks the range of the values a method learns from: values
// so large that squared distances or Gram sums overflow (ErrNotFinite),
// samples whose spread is so small that squared differences underflow to
// 0 (ErrNumerical), and, when spread is set, samples that are all the same
// point (ErrDimension: no direction or distance to embed); degree is that of
// the method's largest forms (see minSpread).
func checkFitData(method string, x samples, spread bool, degree int) error {
	n, d := x.rows(), x.cols()
	lo := make([]float64, d)
	hi := make([]float64, d)
	big := 0.0
	if x.csr != nil {
		count := make([]int, d)
		ptr, ind, val := x.csr.RowPtr(), x.csr.ColIdx(), x.csr.Values()
		for i := 0; i < n; i++ {
			for p := ptr[i]; p < ptr[i+1]; p++ {
				j, v := ind[p], val[p]
				if count[j] == 0 {
					lo[j], hi[j] = v, v
				} else {
					lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
				}
				count[j]++
				big = max(big, math.Abs(v))
			}
		}
		for j, c := range count {
			if c < n { // implicit zeros
				lo[j], hi[j] = min(lo[j], 0), max(hi[j], 0)
			}
		}
	} else {
		g := x.dense
		copy(lo, g.Data[:d])
		copy(hi, g.Data[:d])
		for i := 0; i < n; i++ {
			for j, v := range g.Data[i*g.Stride : i*g.Stride+d] {
				lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
			}
		}
		for j := range lo {
			big = max(big, math.Abs(lo[j]), math.Abs(hi[j]))
		}
	}
	if limit := valueLimit(n, d, degree); big > limit {
		return fmt.Errorf("%s: %w: values as large as %.3g make %s overflow (the limit for %d×%d data is about %.3g); rescale the data",
			method, ErrNotFinite, big, formsOf(degree), n, d, limit)
	}
	width := 0.0
	for j := range lo {
		width = max(width, hi[j]-lo[j])
	}
	switch {
	case spread && width == 0 && n > 1:
		return fmt.Errorf("%s: %w: all %d samples are the same point: there is no distance or direction to embed", method, ErrDimension, n)
	case width > 0 && width < spreadLimit(degree):
		return fmt.Errorf("%s: %w: the samples differ by at most %.3g, so %s underflow to 0 (the limit is about %.3g); rescale the data",
			method, ErrNumerical, width, formsOf(degree), spreadLimit(degree))
	}
	return nil
}

// formsOf names the forms of the given degree for the errors of
// checkFitData.
func formsOf(degree int) string {
	if degree == 4 {
		return "the fourth-degree forms of OIP's M (G² − 2·AᵀτA)"
	}
	return "squared distances"
}

// checkTransformRange refuses new points (dense rows or a *sparse.CSR)
// whose values are so large that their squared distances to the n
// training points overflow (the bound of checkFitData), with an error
// wrapping ErrNotFinite, as Fit refuses such data.
func checkTransformRange(method string, q samples, n int) error {
	limit := valueLimit(n, q.cols(), 2)
	for i := 0; i < q.rows(); i++ {
		var cols []int
		var vals []float64
		if q.csr != nil {
			cols, vals = q.csr.Row(i)
		} else {
			vals = q.dense.Data[i*q.dense.Stride : i*q.dense.Stride+q.dense.Cols]
		}
		for p, v := range vals {
			if math.Abs(v) > limit {
				j := p
				if cols != nil {
					j = cols[p]
				}
				return fmt.Errorf("%s transform: %w: row %d, column %d is %.3g: squared distances to the training points overflow past about %.3g; rescale the data",
					method, ErrNotFinite, i, j, v, limit)
			}
		}
	}
	return nil
}

// checkTransformOutput returns an error wrapping ErrNotFinite when an
// output of Transform is NaN or Inf, naming the new point: a point so far
// from the training data that its coordinates overflow. Transform returns
// finite coordinates or an error, never NaN.
func checkTransformOutput(method string, y blas64.General) error {
	for i := 0; i < y.Rows; i++ {
		for j, v := range y.Data[i*y.Stride : i*y.Stride+y.Cols] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s transform: %w: new point %d maps to %v in coordinate %d: it is too far from the training data for the model's scale",
					method, ErrNotFinite, i, v, j)
			}
		}
	}
	return nil
}

// transformResult is the end of a Transform: y as its result, or
// checkTransformOutput's error.
func transformResult(method string, y blas64.General) (*mat.Dense, error) {
	if err := checkTransformOutput(method, y); err != nil {
		return nil, err
	}
	return toDense(y), nil
}

// checkRowOutput is checkTransformOutput for the one row y of a
// transformRow.
func checkRowOutput(method string, y []float64) error {
	return checkTransformOutput(method, blas64.General{Rows: 1, Cols: len(y), Stride: len(y), Data: y})
}

// denseInput returns X as a row-major matrix. A *mat.Dense is used in place
// (never modified); any other mat.Matrix is copied. It checks that X is not
// empty and holds no NaN or Inf.
func denseInput(what string, x mat.Matrix) (blas64.General, error) {
	if x == nil {
		return blas64.General{}, fmt.Errorf("%s: %w: nil matrix", what, ErrEmpty)
	}
	r, c := x.Dims()
	if r == 0 || c == 0 {
		return blas64.General{}, fmt.Errorf("%s: %w: %d samples × %d features", what, ErrEmpty, r, c)
	}
	if err := checkSize(what, r, c); err != nil {
		return blas64.General{}, err
	}
	g := rawRows(x)
	if i, j, v, bad := firstNonFinite(g); bad {
		return blas64.General{}, fmt.Errorf("%s: %w: row %d, column %d is %v", what, ErrNotFinite, i, j, v)
	}
	return g, nil
}

// rawRows returns the rows of x: a *mat.Dense's own storage, else a copy.
func rawRows(x mat.Matrix) blas64.General {
	if d, ok := x.(*mat.Dense); ok {
		return d.RawMatrix()
	}
	return mat.DenseCopyOf(x).RawMatrix()
}

// denseTransformInput checks the rows a model maps densely: d features.
func denseTransformInput(what string, x mat.Matrix, d int) (blas64.General, error) {
	g, err := denseInput(what, x)
	if err != nil {
		return g, err
	}
	if g.Cols != d {
		return g, fmt.Errorf("%s: %w: %d features, the model has %d", what, ErrShape, g.Cols, d)
	}
	return g, nil
}

// firstNonFinite scans g in parallel and returns the first NaN or Inf in row
// order.
func firstNonFinite(g blas64.General) (int, int, float64, bool) {
	var first atomic.Int64
	first.Store(math.MaxInt64)
	backend.ParallelFor(g.Rows, 256, func(lo, hi int) {
		for i := lo; i < hi && int64(i) < first.Load(); i++ {
			for _, v := range g.Data[i*g.Stride : i*g.Stride+g.Cols] {
				if v-v != 0 {
					for {
						cur := first.Load()
						if int64(i) >= cur || first.CompareAndSwap(cur, int64(i)) {
							break
						}
					}
					break
				}
			}
		}
	})
	i := first.Load()
	if i == math.MaxInt64 {
		return 0, 0, 0, false
	}
	row := g.Data[int(i)*g.Stride : int(i)*g.Stride+g.Cols]
	for j, v := range row {
		if v-v != 0 {
			return int(i), j, v, true
		}
	}
	return 0, 0, 0, false
}

// trainRows returns a compact copy of g's rows kept (all of them when kept
// is nil), the rows a model keeps for Transform, or ctx's error. The
// allocation itself cannot be interrupted: the runtime zeroes a reused
// block first (2 GB: 0.9 s here), in pieces that let the collector stop
// it, not a cancel.
func trainRows(ctx context.Context, g blas64.General, kept []int) (blas64.General, error) {
	if err := ctx.Err(); err != nil {
		return blas64.General{}, err
	}
	r := g.Rows
	if kept != nil {
		r = len(kept)
	}
	t := dense.New(r, g.Cols)
	if err := dense.CopyRowsCtx(ctx, t, g, kept); err != nil {
		return blas64.General{}, err
	}
	return t, nil
}

// trainSamples is trainRows for dense or sparse rows: sparse rows are
// written out dense (the rows a model that keeps dense training rows
// needs), with a ctx check after every dense.Piece values.
func trainSamples(ctx context.Context, in samples, kept []int) (blas64.General, error) {
	if !in.isSparse() {
		return trainRows(ctx, in.dense, kept)
	}
	if err := ctx.Err(); err != nil {
		return blas64.General{}, err
	}
	n, d := in.dims()
	if kept != nil {
		n = len(kept)
	}
	t := dense.New(n, d)
	moved := 0
	for i := range n {
		k := i
		if kept != nil {
			k = kept[i]
		}
		cols, vals := in.csr.Row(k)
		row := t.Data[i*t.Stride : i*t.Stride+d]
		for j, c := range cols {
			row[c] = vals[j]
		}
		if moved += d; moved >= dense.Piece {
			moved = 0
			if err := ctx.Err(); err != nil {
				return blas64.General{}, err
			}
		}
	}
	return t, ctx.Err()
}

// toDense wraps a row-major matrix as a *mat.Dense sharing its data.
func toDense(g blas64.General) *mat.Dense {
	var d mat.Dense
	if g.Rows > 0 && g.Cols > 0 {
		d.SetRawMatrix(g)
	}
	return &d
}

// copyDense returns a compact copy of g as a *mat.Dense.
func copyDense(g blas64.General) *mat.Dense {
	out := mat.NewDense(g.Rows, g.Cols, nil)
	for i := 0; i < g.Rows; i++ {
		copy(out.RawRowView(i), g.Data[i*g.Stride:i*g.Stride+g.Cols])
	}
	return out
}

// checkDim validates an output dimension against what the input allows.
func checkDim(method string, dim, limit int, limitWhat string) error {
	if dim < 1 {
		return fmt.Errorf("%s: %w: dim = %d, need ≥ 1", method, ErrBadSetting, dim)
	}
	if dim > limit {
		return fmt.Errorf("%s: %w: dim = %d exceeds %s (%d)", method, ErrDimension, dim, limitWhat, limit)
	}
	return nil
}
