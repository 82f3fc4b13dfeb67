package engine

import (
	"context"
	"errors"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/engine/internal/geodesic"
	"github.com/manifoldlab/manifold/sparse"
)

// The geodesic models (Isomap, Landmark Isomap) map one new point through
// a geodesic.Index of the training rows, graph and triangulation, prepared
// once per model (lazyGeo); this file checks the row and its output and
// names the errors.

// lazyGeo builds a model's geodesic.Index once, on first use (or
// Prepare), so that fitting pays nothing for it and every Transform after
// the first finds it ready; a Transform cancelled while it builds returns within
// the context's bounds and leaves the build to the next call (lazy).
type lazyGeo struct {
	l     lazy[*geodesic.Index]
	build func(context.Context) (*geodesic.Index, error)
}

func newLazyGeo(build func(context.Context) (*geodesic.Index, error)) *lazyGeo {
	return &lazyGeo{build: build}
}

func (l *lazyGeo) get(ctx context.Context) (*geodesic.Index, error) { return l.l.get(ctx, l.build) }

// prepare builds the index and its geodesic table (the model's Prepare).
func (l *lazyGeo) prepare(ctx context.Context) error {
	gi, err := l.get(ctx)
	if err != nil {
		return err
	}
	return gi.PrepareTable(ctx)
}

// transformRow maps one finite row x of the method's model into dst
// through the index, after checking its width and range, and checks the
// coordinates.
func (l *lazyGeo) transformRow(ctx context.Context, method string, dst, x []float64) error {
	gi, err := l.get(ctx)
	if err != nil {
		return err
	}
	if cols := gi.Cols(); len(x) != cols {
		return fmt.Errorf("%s transform: %w: %d features, the model has %d", method, ErrShape, len(x), cols)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkTransformRange(method, samples{dense: blas64.General{Rows: 1, Cols: len(x), Stride: len(x), Data: x}}, gi.Rows()); err != nil {
		return err
	}
	switch err := gi.Row(ctx, dst, x); {
	case err == nil:
	case errors.Is(err, geodesic.ErrNoNeighbour):
		return fmt.Errorf("%s transform: %w: %w", method, ErrNoTransform, err)
	case errors.Is(err, geodesic.ErrDistance):
		return fmt.Errorf("%s transform: %w: %w", method, ErrNumerical, err)
	default:
		return fmt.Errorf("%s transform: %w", method, err)
	}
	return checkRowOutput(method, dst)
}

// newGeoIndex prepares the index; with near (the fit's graph came from
// NN-descent: graphLists) the neighbour queries go through its
// neighbors.Index of the training rows and the stored graph. It fails only
// on a graph the shortest paths cannot use (a corrupt model file).
func newGeoIndex(ctx context.Context, method string, train blas64.General, graph *sparse.CSR, k int, eps float64, cols []int, f32 bool, between float64, near *trainingLists, tri triangulation) (*geodesic.Index, error) {
	c := geodesic.Config{Train: train, Graph: graph, K: k, Eps: eps, Cols: cols, Float32: f32, Between: between, Pinv: tri.pinv, MeanSq: tri.meanSq}
	if f32 {
		c.Exp32 = float32Exp(graph)
	}
	if near != nil {
		c.Width = near.width
		var err error
		if c.Approx, err = near.index(ctx, train); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%s model: neighbour index: %w", method, err)
		}
	}
	gi, err := geodesic.New(c)
	if err != nil {
		return nil, modelErr("%s model: graph: %v", method, err)
	}
	return gi, nil
}
