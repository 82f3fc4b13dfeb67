package neighbors

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/sparse"
)

// vectors is what the approximate search needs of a set of rows: a fast
// float32 distance key for a pair (squared Euclidean, or cosine distance
// 1 − x̂·ŷ), the signed side of a point against a random-projection
// hyperplane through two others, and the exact distance of a pair in
// float64 (the reported one, equal to what the exact search reports).
type vectors interface {
	n() int
	// key32 is the fast key of points i and j; it is symmetric to the bit.
	key32(i, j int) float32
	// plane sets p to the hyperplane halfway between points a and b,
	// normal to their difference (Euclidean) or to the difference of
	// their unit vectors (cosine).
	plane(p *hyperplane, a, b int)
	// side is the signed margin of point i against p.
	side(p *hyperplane, i int) float32
	// exactDist is the reported distance of points i and j in float64.
	exactDist(i, j int) float64
	// keyCost is the flam of one key.
	keyCost() float64
}

// hyperplane is a random-projection split: normal·x + off (dense rows),
// or the two defining rows (sparse rows, whose normal is never formed).
type hyperplane struct {
	normal []float32
	off    float32
	a, b   int
}

// dense32 holds dense rows in float32 (unit rows for cosine) for the fast
// keys, and the caller's float64 rows for the exact distances — or, in
// place (KNNApprox32), the caller's float32 rows, which give both.
type dense32 struct {
	metric  Metric
	rows    int
	dim     int
	x       []float32 // rows × dim
	sq      []float32 // squared norms of the rows of x
	orig    blas64.General
	order   []int32 // after reorder: row p of x is row order[p] of orig (of the caller's x, in place)
	inPlace bool    // x is the caller's: restore puts its rows back
}

// reorder moves row order[p] of x to row p, in place (following the
// permutation's cycles); exactDist then maps back to the caller's rows.
func (d *dense32) reorder(order []int32) {
	n, dim := d.rows, d.dim
	done := make([]bool, n)
	tmp := make([]float32, dim)
	for start := 0; start < n; start++ {
		if done[start] {
			continue
		}
		// Row start receives row order[start], which receives
		// row order[order[start]], … until the cycle closes.
		copy(tmp, d.row(start))
		tsq := d.sq[start]
		p := start
		for {
			done[p] = true
			q := int(order[p])
			if q == start {
				copy(d.row(p), tmp)
				d.sq[p] = tsq
				break
			}
			copy(d.row(p), d.row(q))
			d.sq[p] = d.sq[q]
			p = q
		}
	}
	d.order = order
}

// restore puts the rows of an in-place x back in the caller's order.
func (d *dense32) restore() {
	if !d.inPlace || d.order == nil {
		return
	}
	inv := make([]int32, len(d.order))
	for p, i := range d.order {
		inv[i] = int32(p)
	}
	d.reorder(inv) // row inv[i] (where the caller's row i went) back to i
	d.order = nil
}

func newDense32(ctx context.Context, g blas64.General, metric Metric) (*dense32, error) {
	d := &dense32{metric: metric, rows: g.Rows, dim: g.Cols, orig: g, x: float32sOnHugePages(g.Rows * g.Cols), sq: make([]float32, g.Rows)}
	// Rows in parallel blocks, ctx checked between them (10⁶ × 256 rows
	// take seconds, much of it the first touch of fresh memory); each row
	// is converted alone, so the result does not depend on the workers.
	err := backend.ParallelForCtx(ctx, g.Rows, max(1, 1<<16/max(1, g.Cols)), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			src := g.Data[i*g.Stride : i*g.Stride+g.Cols]
			dst := d.x[i*g.Cols : (i+1)*g.Cols]
			scale := 1.0
			if metric == Cosine {
				s := 0.0
				for _, v := range src {
					s += v * v
				}
				if s > 0 {
					scale = 1 / math.Sqrt(s)
				}
			}
			sq := 0.0
			for c, v := range src {
				dst[c] = float32(v * scale)
				sq += float64(dst[c]) * float64(dst[c])
			}
			d.sq[i] = float32(sq)
		}
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// queryRow returns row p of d (a position, after reorder) in float64 as
// an index query reads it: the caller's float64 row, or the float32 row
// widened into buf when the rows are held in place.
func (d *dense32) queryRow(p int, buf []float64) []float64 {
	if d.inPlace {
		for c, v := range d.row(p) {
			buf[c] = float64(v)
		}
		return buf
	}
	i := p
	if d.order != nil {
		i = int(d.order[p])
	}
	return d.orig.Data[i*d.orig.Stride : i*d.orig.Stride+d.dim]
}

func (d *dense32) n() int              { return d.rows }
func (d *dense32) keyCost() float64    { return float64(max(1, d.dim)) }
func (d *dense32) row(i int) []float32 { return d.x[i*d.dim : (i+1)*d.dim] }

// key32 is 1 − x̂ᵢ·x̂ⱼ or ‖xᵢ‖² + ‖xⱼ‖² − 2xᵢ·xⱼ (clamped at 0), the dot
// product by gonum's float32 Sdot (SIMD assembly on amd64, four times
// the plain loop sqDist32 on 256 features). The cancellation of the second
// form costs about 1e-7 of ‖x‖² in absolute error: it can swap two
// neighbours whose distances agree to that, never the reported distances,
// which are recomputed in float64.
func (d *dense32) key32(i, j int) float32 {
	dot := sdot.Sdot(d.dim, d.x[i*d.dim:], 1, d.x[j*d.dim:], 1)
	if d.metric == Cosine {
		return max(0, 1-dot)
	}
	return max(0, d.sq[i]+d.sq[j]-2*dot)
}

// sdot is gonum's BLAS, for its float32 dot product.
var sdot gonum.Implementation

func (d *dense32) plane(p *hyperplane, a, b int) {
	if cap(p.normal) < d.dim {
		p.normal = make([]float32, d.dim)
	}
	p.normal = p.normal[:d.dim]
	ra, rb := d.row(a), d.row(b)
	var off float64
	for c := range p.normal {
		w := ra[c] - rb[c]
		p.normal[c] = w
		off -= float64(w) * 0.5 * (float64(ra[c]) + float64(rb[c]))
	}
	if d.metric == Cosine {
		off = 0 // unit rows: the plane through the origin
	}
	p.off = float32(off)
}

func (d *dense32) side(p *hyperplane, i int) float32 {
	return sdot.Sdot(d.dim, p.normal, 1, d.x[i*d.dim:], 1) + p.off
}

func (d *dense32) exactDist(i, j int) float64 {
	if d.inPlace { // positions in x, whatever its order
		var s float64
		for c, v := range d.row(i) {
			t := float64(v) - float64(d.x[j*d.dim+c])
			s += t * t
		}
		return math.Sqrt(s)
	}
	if d.order != nil {
		i, j = int(d.order[i]), int(d.order[j])
	}
	a := d.orig.Data[i*d.orig.Stride : i*d.orig.Stride+d.dim]
	b := d.orig.Data[j*d.orig.Stride : j*d.orig.Stride+d.dim]
	return rowDist(d.metric, a, b)
}

// rowDist is the reported distance of two dense rows in float64: Euclidean,
// or the cosine distance 1 − cos (1 when either row is zero).
func rowDist(metric Metric, a, b []float64) float64 {
	if metric == Cosine {
		var dot, na, nb float64
		for c, v := range a {
			dot += v * b[c]
			na += v * v
			nb += b[c] * b[c]
		}
		if na == 0 || nb == 0 {
			return 1
		}
		return math.Max(0, 1-dot/math.Sqrt(na*nb))
	}
	return math.Sqrt(sqDist(a, b))
}

// sparseVecs holds sparse rows (Euclidean or cosine); keys are computed in
// float64 by merging the two patterns, then rounded to float32.
type sparseVecs struct {
	metric Metric
	a      *sparse.CSR
	sq     []float64 // squared row norms
	inv    []float64 // 1/‖row‖ (0 for a zero row)
	ex     *sparseSpace
}

func newSparseVecs(a *sparse.CSR, metric Metric) *sparseVecs {
	s := &sparseVecs{metric: metric, a: a, sq: sqNorms(a)}
	s.ex = &sparseSpace{metric: metric, x: a, q: a, xn: s.sq, qn: s.sq}
	s.inv = make([]float64, len(s.sq))
	for i, v := range s.sq {
		if v > 0 {
			s.inv[i] = 1 / math.Sqrt(v)
		}
	}
	return s
}

func (s *sparseVecs) n() int { return len(s.sq) }

func (s *sparseVecs) keyCost() float64 {
	return max(1, float64(s.a.NNZ())/float64(max(1, s.n())))
}

func (s *sparseVecs) dot(i, j int) float64 {
	ac, av := s.a.Row(i)
	bc, bv := s.a.Row(j)
	return sparse.Dot(ac, av, bc, bv)
}

func (s *sparseVecs) exactKey(i, j int) float64 {
	if s.metric == Cosine {
		if s.sq[i] == 0 || s.sq[j] == 0 {
			return 1
		}
		return math.Max(0, 1-s.dot(i, j)*s.inv[i]*s.inv[j])
	}
	return math.Max(0, s.sq[i]+s.sq[j]-2*s.dot(i, j))
}

func (s *sparseVecs) key32(i, j int) float32 { return float32(s.exactKey(i, j)) }

func (s *sparseVecs) plane(p *hyperplane, a, b int) {
	p.a, p.b = a, b
	if s.metric == Cosine {
		p.off = 0
		return
	}
	p.off = float32(-(s.sq[a] - s.sq[b]) / 2)
}

func (s *sparseVecs) side(p *hyperplane, i int) float32 {
	if s.metric == Cosine {
		return float32(s.dot(p.a, i)*s.inv[p.a] - s.dot(p.b, i)*s.inv[p.b])
	}
	return float32(s.dot(p.a, i)-s.dot(p.b, i)) + p.off
}

func (s *sparseVecs) exactDist(i, j int) float64 {
	return s.ex.report(s.ex.exact(i, j))
}
