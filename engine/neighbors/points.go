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
	da, db := d.subset(as).(*denseData), d.subset(bs).(*denseData)
	res, err := knnDense(ctx, da.g, db.g, 1, false, opt)
	if err != nil {
		return 0, 0, 0, err
	}
	return closestPair(res, as, bs)
}

// closestPair picks, from the nearest a of every b, the pair of smallest
// distance, ties by a then b.
func closestPair(res *Result, as, bs []int) (int, int, float64, error) {
	ba, bb, bd := -1, -1, math.Inf(1)
	for q := range bs {
		js, ds := res.Row(q)
		a, b, dist := as[js[0]], bs[q], ds[0]
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
	return closestPair(res, as, bs)
}
