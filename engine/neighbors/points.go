package neighbors

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
)

func (d *denseData) n() int { return d.g.Rows }

func (d *denseData) knn(ctx context.Context, k int, opt Options) (*Result, error) {
	return knnDense(ctx, d.g, d.g, k, true, opt)
}

func (d *denseData) radius(ctx context.Context, eps float64, opt Options) (*Result, error) {
	return radiusDense(ctx, d.g, d.g, eps, true, opt)
}

func (d *denseData) subset(idx []int) points {
	c := d.g.Cols
	g := blas64.General{Rows: len(idx), Cols: c, Stride: max(1, c), Data: make([]float64, len(idx)*c)}
	for r, i := range idx {
		copy(g.Data[r*c:(r+1)*c], d.g.Data[i*d.g.Stride:i*d.g.Stride+c])
	}
	return &denseData{g: g}
}

func (d *denseData) row(i int) []float64 { return d.g.Data[i*d.g.Stride : i*d.g.Stride+d.g.Cols] }

func (d *denseData) cosine(i, j int) float64 {
	a, b := d.row(i), d.row(j)
	b = b[:len(a)]
	var dot, na, nb float64
	for c, v := range a {
		dot += v * b[c]
		na += v * v
		nb += b[c] * b[c]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func (d *denseData) nearestBetween(ctx context.Context, as, bs []int, opt Options) (int, int, float64, error) {
	// The smaller set is the index, the larger one the queries, queried in
	// place when they are most of the rows (every row is queried and the
	// others' answers ignored: no copy of 2 GB of rows at 10⁶ × 256).
	swapped := len(as) > len(bs)
	index, queries := as, bs
	if swapped {
		index, queries = bs, as
	}
	di := d.subset(index).(*denseData)
	q, rows := d.g, queries
	if 2*len(queries) < d.g.Rows {
		q, rows = d.subset(queries).(*denseData).g, nil
	}
	res, err := knnDense(ctx, di.g, q, 1, false, opt)
	if err != nil {
		return 0, 0, 0, err
	}
	return closestPair(res, index, queries, rows, swapped)
}

// closestPair picks the pair (a, b) of least (distance, a, b) from the
// nearest index point of every query (res's row rows[q] for queries[q],
// or row q when rows is nil), a the index point unless swapped: the same
// pair whichever of the two sets is the index, since the nearest of a
// query is the least by (distance, index point).
func closestPair(res *Result, index, queries, rows []int, swapped bool) (int, int, float64, error) {
	ba, bb, bd := -1, -1, math.Inf(1)
	for q, b := range queries {
		r := q
		if rows != nil {
			r = rows[q]
		}
		js, ds := res.Row(r)
		a, dist := index[js[0]], ds[0]
		if swapped {
			a, b = b, a
		}
		if dist < bd || (dist == bd && (a < ba || (a == ba && b < bb))) {
			ba, bb, bd = a, b, dist
		}
	}
	return ba, bb, bd, nil
}

func (s *sparseData) n() int { r, _ := s.a.Dims(); return r }

func (s *sparseData) knn(ctx context.Context, k int, opt Options) (*Result, error) {
	return sparseKNN(ctx, s.a, k, opt)
}

func (s *sparseData) radius(ctx context.Context, eps float64, opt Options) (*Result, error) {
	return bruteRadius(ctx, newSparseSpace(opt.Metric, s.a, s.a), key(opt.Metric, eps), true)
}

func (s *sparseData) subset(idx []int) points {
	_, c := s.a.Dims()
	all := make([]int, c)
	for j := range all {
		all[j] = j
	}
	return &sparseData{a: s.a.Submatrix(idx, all)}
}

func (s *sparseData) cosine(i, j int) float64 {
	if s.norms == nil {
		s.norms = newSparseSpaceNoIndex(Cosine, s.a)
	}
	return 1 - s.norms.exact(i, j)
}

func (s *sparseData) nearestBetween(ctx context.Context, as, bs []int, opt Options) (int, int, float64, error) {
	sa, sb := s.subset(as).(*sparseData), s.subset(bs).(*sparseData)
	res, err := bruteKNN(ctx, newSparseSpace(opt.Metric, sa.a, sb.a), 1, false)
	if err != nil {
		return 0, 0, 0, err
	}
	return closestPair(res, as, bs, nil, false)
}
