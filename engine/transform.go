package engine

import (
	"context"
	"fmt"
	"math"
	"runtime/pprof"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
)

// This file is the request path of Transform: calls that map one row, or
// write into a caller's buffer, for a service that holds a fitted model
// and maps points one request at a time.
//
// Everything that depends only on the model (the prepared graph of the
// geodesic methods, the training rows' projections and norms used by the
// exact neighbour search) is computed once, when the model is fitted or
// loaded, and only read afterwards, so these calls are safe for concurrent
// use; per-call scratch comes from pools.

// rowTransformer is implemented by the models with a per-row fast path:
// transformRow maps one finite row x (of the model's features) into dst
// (of the model's Dim), which it overwrites.
type rowTransformer interface {
	transformRow(ctx context.Context, dst, x []float64) error
}

// TransformTo maps the rows of x into dst, which must be x's rows × m.Dim()
// (a shape mismatch of dst panics; x is the user's data and gets errors).
// Models with a per-row path (PCA, LPP, NPE, Isomap, Landmark Isomap) map
// each row without allocating in the steady state; the others run
// m.Transform and copy. The result equals m.Transform's up to rounding.
func TransformTo(ctx context.Context, m Model, dst *mat.Dense, x mat.Matrix) error {
	what := m.Method() + " transform"
	if x == nil {
		return fmt.Errorf("%s: %w: nil matrix", what, ErrEmpty)
	}
	r, c := x.Dims()
	if dr, dc := dst.Dims(); dr != r || dc != m.Dim() {
		panic(fmt.Sprintf("engine: TransformTo: %d rows into %s, dst is %d×%d, want %d×%d", r, m.Method(), dr, dc, r, m.Dim()))
	}
	rt, ok := m.(rowTransformer)
	if !ok {
		y, err := m.Transform(ctx, x)
		if err != nil {
			return err
		}
		dst.Copy(y)
		return nil
	}
	if r == 0 || c == 0 {
		return fmt.Errorf("%s: %w: %d samples × %d features", what, ErrEmpty, r, c)
	}
	g := rawRows(x)
	out := dst.RawMatrix()
	return labelled(ctx, m, func() error {
		var firstErr error
		var mu sync.Mutex
		err := backend.ParallelForCtx(ctx, r, 16, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				row := g.Data[i*g.Stride : i*g.Stride+c]
				if err := checkRow(m.Method(), i, row); err == nil {
					err = rt.transformRow(ctx, out.Data[i*out.Stride:i*out.Stride+out.Cols], row)
					if err == nil {
						continue
					}
					mu.Lock()
					if firstErr == nil {
						firstErr = rowErr(what, i, r, err)
					}
					mu.Unlock()
				} else {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
				return
			}
		})
		if firstErr != nil {
			return firstErr
		}
		return err
	})
}

// transformRows is Transform of the models with a per-row path: the
// input checked as every Transform checks it, then TransformTo.
func transformRows(ctx context.Context, m Model, x mat.Matrix, features int) (*mat.Dense, error) {
	g, err := denseTransformInput(m.Method()+" transform", x, features)
	if err != nil {
		return nil, err
	}
	out := mat.NewDense(g.Rows, m.Dim(), nil)
	if err := TransformTo(ctx, m, out, toDense(g)); err != nil {
		return nil, err
	}
	return out, nil
}

// preparer is implemented by the models whose request path needs more
// than their neighbour index built from the model (geodesic models: the
// prepared graph, the neighbour search and the table); the other models
// that keep lists of an approximate fit (nearLister) have only their index
// to build.
type preparer interface {
	prepare(ctx context.Context) error
}

// Prepare builds now what the model's Transform would build on its first
// call (Isomap's and Landmark Isomap's prepared graph and neighbour index),
// so that a service's first request is as fast as the others, and, for
// those two, what only Prepare builds: the table of training geodesics
// (N×N for Isomap, N×L for Landmark Isomap, when it takes at most 1 GiB and
// a quarter of the available memory)
// that maps a new point with k·N additions instead of a Dijkstra search of
// the whole graph — an Isomap model of the 7291 USPS training digits then
// holds 425 MB more and maps a row in about a tenth of the time. Building
// it costs about what the fit's geodesic stage cost. For LLE, LTSA and
// Laplacian eigenmaps models fitted with approximate neighbours it builds
// their neighbour index; for the other models it does nothing.
func Prepare(m Model) error { return PrepareCtx(context.Background(), m) }

// PrepareCtx is Prepare under ctx: cancelled, it returns ctx's error within
// about 100 ms (the geodesic table is built one shortest-path search at a
// time between checks) and keeps nothing half-built — a later Prepare or
// Transform builds it again; the model maps as before meanwhile.
func PrepareCtx(ctx context.Context, m Model) error {
	if p, ok := m.(preparer); ok {
		return p.prepare(ctx)
	}
	if nl, ok := m.(nearLister); ok {
		if t, train := nl.nearLists(); t != nil {
			_, err := t.index(ctx, train)
			return err
		}
	}
	return nil
}

// rowErr names the row of a batch an error came from (one-row calls need
// no index).
func rowErr(what string, i, n int, err error) error {
	if n == 1 {
		return err
	}
	return fmt.Errorf("%s: row %d: %w", what, i, err)
}

// TransformRow maps the single point x into dst (length m.Dim()), the
// request path of a service: no allocation in the steady state for the
// models with a per-row path (see TransformTo). x must have the model's
// features and be finite (else a typed error); dst of another length
// panics.
func TransformRow(ctx context.Context, m Model, dst, x []float64) error {
	if len(dst) != m.Dim() {
		panic(fmt.Sprintf("engine: TransformRow: dst has length %d, the %s model's dimension is %d", len(dst), m.Method(), m.Dim()))
	}
	rt, ok := m.(rowTransformer)
	if !ok {
		return TransformTo(ctx, m, mat.NewDense(1, len(dst), dst), mat.NewDense(1, max(1, len(x)), padRow(x)))
	}
	if len(x) == 0 {
		return fmt.Errorf("%s transform: %w: a row of 0 features", m.Method(), ErrEmpty)
	}
	if err := checkRow(m.Method(), 0, x); err != nil {
		return err
	}
	pprof.SetGoroutineLabels(transformLabelCtx(m))
	err := rt.transformRow(ctx, dst, x)
	pprof.SetGoroutineLabels(ctx)
	return err
}

// padRow keeps an empty row an error of the model rather than of mat.
func padRow(x []float64) []float64 {
	if len(x) == 0 {
		return []float64{math.NaN()}
	}
	return x
}

// rowPool holds float64 copies of float32 rows.
var rowPool = sync.Pool{New: func() any { return new([]float64) }}

// TransformRow32 is TransformRow for a float32 row (as services often hold
// features): converted exactly to float64, then mapped.
func TransformRow32(ctx context.Context, m Model, dst []float64, x []float32) error {
	p := rowPool.Get().(*[]float64)
	if cap(*p) < len(x) {
		*p = make([]float64, len(x))
	}
	row := (*p)[:len(x)]
	for i, v := range x {
		row[i] = float64(v)
	}
	err := TransformRow(ctx, m, dst, row)
	rowPool.Put(p)
	return err
}

// checkRow returns an ErrNotFinite error naming the first NaN or Inf.
func checkRow(method string, i int, x []float64) error {
	for j, v := range x {
		if v-v != 0 {
			return fmt.Errorf("%s transform: %w: row %d, column %d is %v", method, ErrNotFinite, i, j, v)
		}
	}
	return nil
}

// transformLabels caches one labelled context per method, so that a call
// runs under the pprof labels method=NAME, stage=transform without
// allocating.
var transformLabels sync.Map // method → context.Context

// labelled runs f under the pprof labels method and stage=transform
// (go tool pprof -tagfocus method=isomap). The goroutine's labels are the
// ones of ctx again afterwards (as with pprof.Do); labels of ctx are not
// combined with these during f, which keeps the call free of allocation.
func labelled(ctx context.Context, m Model, f func() error) error {
	pprof.SetGoroutineLabels(transformLabelCtx(m))
	defer pprof.SetGoroutineLabels(ctx)
	return f()
}

func transformLabelCtx(m Model) context.Context {
	lc, ok := transformLabels.Load(m.Method())
	if !ok {
		lc, _ = transformLabels.LoadOrStore(m.Method(), pprof.WithLabels(context.Background(), pprof.Labels("method", m.Method(), "stage", "transform")))
	}
	return lc.(context.Context)
}

// affineRow writes y = Aᵀ·(x − mean) for a D×dim row-major A: the linear
// methods' map of one row, without scratch.
func affineRow(y, x, mean []float64, a blas64.General) {
	for t := range y {
		y[t] = 0
	}
	mean = mean[:len(x)]
	for i, v := range x {
		c := v - mean[i]
		row := a.Data[i*a.Stride : i*a.Stride+len(y)]
		for t, p := range row {
			y[t] += c * p
		}
	}
}

func (m *PCAModel) transformRow(ctx context.Context, dst, x []float64) error {
	if len(x) != len(m.mean) {
		return fmt.Errorf("pca transform: %w: %d features, the model has %d", ErrShape, len(x), len(m.mean))
	}
	affineRow(dst, x, m.mean, m.components)
	return checkRowOutput(methodPCA, dst)
}

func (m *linearModel[P]) transformRow(ctx context.Context, dst, x []float64) error {
	if len(x) != len(m.mean) {
		return fmt.Errorf("%s transform: %w: %d features, the model has %d", m.method, ErrShape, len(x), len(m.mean))
	}
	affineRow(dst, x, m.mean, m.proj)
	return checkRowOutput(m.method, dst)
}
