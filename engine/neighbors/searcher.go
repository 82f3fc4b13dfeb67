package neighbors

import (
	"context"
	"fmt"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Searcher answers repeated exact queries against fixed rows: KNN and
// Radius return what KNNQuery and RadiusQuery return for the same data
// and Options, bit for bit, but the k-d tree that the cost model picks
// for a batch of queries is built once, on the first such batch, instead
// of at every call. A model's Transform, called block after block or row
// after row, then pays for the tree once. The rows must not change while
// the Searcher is in use; it is safe for concurrent use.
type Searcher struct {
	x    blas64.General
	opt  Options
	mu   sync.Mutex
	tree *kdTree
}

// NewSearcher returns a Searcher of the rows of data (read in place, not
// copied) with opt. It returns an error wrapping ErrInput when data holds
// NaN or Inf.
func NewSearcher(data mat.Matrix, opt Options) (*Searcher, error) {
	x, err := rowMajor(context.Background(), "data", data) // no context to honour here
	if err != nil {
		return nil, err
	}
	return &Searcher{x: x, opt: opt}, nil
}

// kdTree returns the tree, built on first use (by the first query the
// cost model sends to a tree: the searches decide as KNNQuery's do).
func (s *Searcher) kdTree() *kdTree {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tree == nil {
		s.tree = buildKDTree(s.x, s.opt.leafSize())
	}
	return s.tree
}

// KNN is KNNQuery of the Searcher's rows.
func (s *Searcher) KNN(ctx context.Context, queries mat.Matrix, k int) (*Result, error) {
	q, err := queriesOf(ctx, s.x, queries)
	if err != nil {
		return nil, err
	}
	if k < 0 || k > s.x.Rows {
		return nil, fmt.Errorf("%w: k = %d neighbours asked of %d points", ErrInput, k, s.x.Rows)
	}
	return knnDenseTree(ctx, s.x, q, k, false, s.opt, s.kdTree)
}

// Radius is RadiusQuery of the Searcher's rows.
func (s *Searcher) Radius(ctx context.Context, queries mat.Matrix, eps float64) (*Result, error) {
	q, err := queriesOf(ctx, s.x, queries)
	if err != nil {
		return nil, err
	}
	if err := checkEps(eps); err != nil {
		return nil, err
	}
	return radiusDenseTree(ctx, s.x, q, eps, false, s.opt, s.kdTree)
}
