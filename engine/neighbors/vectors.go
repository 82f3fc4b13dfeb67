package neighbors

import (
	"context"
	"math"
	"slices"

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
	// keys32 sets out[t] to the fast key of points i and js[t]; a key is
	// symmetric to the bit and the same whatever the other js.
	keys32(i int, js []int32, out []float32)
	// plane sets p to the hyperplane halfway between points a and b,
	// normal to their difference (Euclidean) or to the difference of
	// their unit vectors (cosine).
	plane(p *hyperplane, a, b int)
	// sides sets out[t] to the signed margin of point pts[t] against p.
	sides(p *hyperplane, pts []int32, out []float32)
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
	// f is the scale of the rows held (Euclidean, not in place): x is
	// the caller's rows times f (see keyScale), 1 or a power of two.
	f float64
}

// invNorm is 1/‖row‖ (0 for a zero row), by backend.Nrm2 where the sum
// of squares leaves float64's range.
func invNorm(row []float64) float64 {
	s := 0.0
	for _, v := range row {
		s += v * v
	}
	nrm := math.Sqrt(s)
	if s > 1e300 || s < 1e-300 {
		nrm = backend.Nrm2(row)
	}
	if nrm > 0 {
		return 1 / nrm
	}
	return 0
}

// keyScale is the power of two by which the approximate search holds
// Euclidean rows whose largest norm is big (1 for 0 or +Inf): 2^−e, with
// big = m·2^e, m in [½, 1). The rows are held so only when keysInRange
// says their squares leave its range: there their squared norms and keys
// overflow float32 (|x| ≳ 1e18 at 256 features) or sink into its
// subnormals (|x| ≲ 1e−19), where every key ties or is NaN; scaled, they
// are the keys of the caller's rows times f² (exact), in the same order.
// The reported distances are the caller's.
func keyScale(big float64) float64 {
	if big == 0 || math.IsInf(big, 0) {
		return 1
	}
	_, e := math.Frexp(big)
	return math.Ldexp(1, -e)
}

// keysInRange reports whether Euclidean rows whose largest squared norm is
// maxSq (+Inf or 0 when the squares leave float64's or float32's range)
// are held as they are: maxSq within [2^−80, 2^80].
func keysInRange(maxSq float64) bool { return maxSq >= 0x1p-80 && maxSq <= 0x1p80 }

// reorder moves row order[p] of x to row p, in place (following the
// permutation's cycles); exactDist then maps back to the caller's rows.
// The cycles move in parallel: short ones whole, long ones (a random
// permutation has one holding most points) cut into segments of seg
// positions (reorderSegment), each segment's first row saved before any
// moves, so that its predecessor's last move reads it from there. 10⁶
// rows of 256 float32 in a random order take 150 ms each way on the
// 2-core reference machine (270 ms in one thread): memory bound, and
// time the in-place search spends after a cancel, putting the caller's
// rows back.
func (d *dense32) reorder(order []int32, seg int) {
	whole, segs := cycleUnits(order, seg)
	saved := make([]float32, len(segs)*d.dim) // first row of each segment
	savedSq := make([]float32, len(segs))
	backend.ParallelFor(len(segs), 1, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			copy(saved[s*d.dim:(s+1)*d.dim], d.row(int(segs[s].first)))
			savedSq[s] = d.sq[segs[s].first]
		}
	})
	// move walks a unit, its last position receiving last.
	move := func(u cycleUnit, last []float32, lastSq float32) {
		p := int(u.first)
		for range u.steps - 1 {
			q := int(order[p])
			copy(d.row(p), d.row(q))
			d.sq[p] = d.sq[q]
			p = q
		}
		copy(d.row(p), last)
		d.sq[p] = lastSq
	}
	backend.ParallelFor(len(whole), 256, func(lo, hi int) {
		first := make([]float32, d.dim)
		for _, u := range whole[lo:hi] {
			copy(first, d.row(int(u.first)))
			move(u, first, d.sq[u.first])
		}
	})
	backend.ParallelFor(len(segs), 1, func(lo, hi int) {
		for _, u := range segs[lo:hi] {
			move(u, saved[int(u.next)*d.dim:(int(u.next)+1)*d.dim], savedSq[u.next])
		}
	})
	d.order = order
}

// reorderSegment is the longest run of a cycle that reorder moves in one
// piece.
const reorderSegment = 1 << 14

// cycleUnit is a run of steps positions of one cycle of a permutation,
// from first along p → order[p]: a whole cycle, or a segment of a long
// one, whose last position receives the saved first row of segment next.
type cycleUnit struct {
	first, steps, next int32
}

// cycleUnits lists the cycles of order (fixed points left out) of at most
// seg positions whole, and cuts the longer ones into segments of seg
// positions (the last shorter), next naming each one's successor in segs.
// One walk of each cycle: its runs of seg positions are segments until it
// closes within its first.
func cycleUnits(order []int32, seg int) (whole, segs []cycleUnit) {
	done := make([]bool, len(order))
	for start := range order {
		if done[start] || int(order[start]) == start {
			continue
		}
		head := len(segs)
		p, run := start, cycleUnit{first: int32(start)}
		for !done[p] {
			done[p] = true
			if int(run.steps) == seg {
				run.next = int32(len(segs) + 1)
				segs = append(segs, run)
				run = cycleUnit{first: int32(p)}
			}
			run.steps++
			p = int(order[p])
		}
		if len(segs) == head {
			whole = append(whole, run)
			continue
		}
		run.next = int32(head)
		segs = append(segs, run)
	}
	return whole, segs
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
	d.reorder(inv, reorderSegment) // row inv[i] (where the caller's row i went) back to i
	d.order = nil
}

func newDense32(ctx context.Context, g blas64.General, metric Metric) (*dense32, error) {
	d := &dense32{metric: metric, rows: g.Rows, dim: g.Cols, orig: g, x: float32sOnHugePages(g.Rows * g.Cols), sq: make([]float32, g.Rows), f: 1}
	// Rows in parallel blocks, ctx checked between them (10⁶ × 256 rows
	// take seconds, much of it the first touch of fresh memory); each row
	// is converted alone, so the result does not depend on the workers.
	// Euclidean rows out of keyScale's range are converted again, scaled.
	grain := max(1, 1<<16/max(1, g.Cols))
	bigs := make([]float64, (g.Rows+grain-1)/grain) // the largest squared norm of each block
	convert := func(lo, hi int) {
		big := 0.0
		for i := lo; i < hi; i++ {
			src := g.Data[i*g.Stride : i*g.Stride+g.Cols]
			dst := d.x[i*g.Cols : (i+1)*g.Cols]
			scale := d.f
			if metric == Cosine {
				if inv := invNorm(src); inv > 0 {
					scale = inv
				}
			}
			sq := 0.0
			for c, v := range src {
				dst[c] = float32(v * scale)
				sq += float64(dst[c]) * float64(dst[c])
			}
			d.sq[i] = float32(sq)
			if !(sq <= big) { // NaN-proof: +Inf rows win
				big = sq
			}
		}
		bigs[lo/grain] = big
	}
	if err := backend.ParallelForCtx(ctx, g.Rows, grain, convert); err != nil {
		return nil, err
	}
	if metric == Euclidean && len(bigs) > 0 && !keysInRange(slices.Max(bigs)) {
		err := backend.ParallelForCtx(ctx, g.Rows, grain, func(lo, hi int) {
			big := 0.0
			for i := lo; i < hi; i++ {
				big = max(big, backend.Nrm2(g.Data[i*g.Stride:i*g.Stride+g.Cols]))
			}
			bigs[lo/grain] = big
		})
		if err != nil {
			return nil, err
		}
		if d.f = keyScale(slices.Max(bigs)); d.f != 1 {
			if err := backend.ParallelForCtx(ctx, g.Rows, grain, convert); err != nil {
				return nil, err
			}
		}
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

// keys32 computes 1 − x̂ᵢ·x̂ⱼ or ‖xᵢ‖² + ‖xⱼ‖² − 2xᵢ·xⱼ (clamped at 0)
// for four rows j at a time (dots4: their cache misses overlap, and row i
// is loaded once for four; a short last group repeats its last row). A
// dot product is summed in dots4's four lanes whichever of the two rows
// is the query, so a key is symmetric to the bit. The cancellation of the
// second form costs about 1e-7 of ‖x‖² in absolute error: it can swap two
// neighbours whose distances agree to that, never the reported distances,
// which are recomputed in float64.
func (d *dense32) keys32(i int, js []int32, out []float32) {
	q := d.row(i)
	var off [4]int
	var dot [4]float32
	for t := 0; t < len(js); t += 4 {
		for r := range off {
			off[r] = int(js[min(t+r, len(js)-1)]) * d.dim
		}
		dots4(q, d.x, &off, &dot)
		for r := 0; r < 4 && t+r < len(js); r++ {
			if d.metric == Cosine {
				out[t+r] = max(0, 1-dot[r])
			} else {
				out[t+r] = max(0, d.sq[i]+d.sq[js[t+r]]-2*dot[r])
			}
		}
	}
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

// sides takes the rows four at a time (dots4: their cache misses overlap,
// where a tree level is otherwise a pass over all the rows one at a
// time); a short last group repeats its last row, whose margin is the same
// in any of the four places.
func (d *dense32) sides(p *hyperplane, pts []int32, out []float32) {
	var off [4]int
	var dot [4]float32
	for t := 0; t < len(pts); t += 4 {
		for r := range off {
			off[r] = int(pts[min(t+r, len(pts)-1)]) * d.dim
		}
		dots4(p.normal, d.x, &off, &dot)
		for r := 0; r < 4 && t+r < len(pts); r++ {
			out[t+r] = dot[r] + p.off
		}
	}
}

func (d *dense32) exactDist(i, j int) float64 {
	if d.inPlace { // positions in x, whatever its order
		return math.Sqrt(sqDistSums(d.row(i), d.x[j*d.dim:(j+1)*d.dim]))
	}
	if d.order != nil {
		i, j = int(d.order[i]), int(d.order[j])
	}
	a := d.orig.Data[i*d.orig.Stride : i*d.orig.Stride+d.dim]
	b := d.orig.Data[j*d.orig.Stride : j*d.orig.Stride+d.dim]
	return rowDist(d.metric, a, b)
}

// sqDistSums is the squared distance of a row a from a row b (of at
// least len(a) values), in float64: the reported distance of every dense
// search, float64 rows (sqDist) and rows searched in place in float32
// (dense32.exactDist, Index.exactQuery, which must agree for the same
// pair). Four partial sums, over the coordinates c ≡ 0, 1, 2, 3 mod 4,
// added as (s0 + s1) + (s2 + s3): independent chains, where one sum would
// wait on each addition's latency (a quarter of the time at 784 features
// in float32, 25–30 % of a refined float64 search there). Rows of up to
// three coordinates get the one sum's value bit for bit.
func sqDistSums[A, B float32 | float64](a []A, b []B) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	c := 0
	for ; c+4 <= len(a); c += 4 {
		t0 := float64(a[c]) - float64(b[c])
		t1 := float64(a[c+1]) - float64(b[c+1])
		t2 := float64(a[c+2]) - float64(b[c+2])
		t3 := float64(a[c+3]) - float64(b[c+3])
		s0 += t0 * t0
		s1 += t1 * t1
		s2 += t2 * t2
		s3 += t3 * t3
	}
	for ; c < len(a); c++ {
		t := float64(a[c]) - float64(b[c])
		switch c & 3 {
		case 0:
			s0 += t * t
		case 1:
			s1 += t * t
		default:
			s2 += t * t
		}
	}
	return (s0 + s1) + (s2 + s3)
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
		p := na * nb
		den := math.Sqrt(p)
		if p > 1e300 || p < 1e-300 { // past the product's range
			den = math.Sqrt(na) * math.Sqrt(nb)
		}
		return math.Max(0, 1-dot/den)
	}
	return math.Sqrt(sqDist(a, b))
}

// sparseVecs holds sparse rows (Euclidean or cosine); keys are computed in
// float64 by merging the two patterns, then rounded to float32 — Euclidean
// ones scaled by f² (f = keyScale of the rows, exact).
type sparseVecs struct {
	metric Metric
	a      *sparse.CSR
	sq     []float64 // squared row norms
	inv    []float64 // 1/‖row‖ (0 for a zero row)
	ex     *sparseSpace
	f2     float64 // the keys' and margins' scale: 1, or keyScale² (Euclidean)
}

func newSparseVecs(a *sparse.CSR, metric Metric) *sparseVecs {
	s := &sparseVecs{metric: metric, a: a, sq: sqNorms(a), f2: 1}
	if n := len(s.sq); metric == Euclidean && n > 0 && !keysInRange(slices.Max(s.sq)) {
		ptr, val := a.RowPtr(), a.Values()
		big := 0.0
		for i := 0; i < n; i++ {
			big = max(big, backend.Nrm2(val[ptr[i]:ptr[i+1]]))
		}
		f := keyScale(big)
		s.f2 = f * f
	}
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

func (s *sparseVecs) keys32(i int, js []int32, out []float32) {
	for t, j := range js {
		out[t] = float32(s.exactKey(i, int(j)) * s.f2)
	}
}

func (s *sparseVecs) plane(p *hyperplane, a, b int) {
	p.a, p.b = a, b
	if s.metric == Cosine {
		p.off = 0
		return
	}
	p.off = float32(-(s.sq[a] - s.sq[b]) / 2 * s.f2)
}

func (s *sparseVecs) sides(p *hyperplane, pts []int32, out []float32) {
	for t, i := range pts {
		if s.metric == Cosine {
			out[t] = float32(s.dot(p.a, int(i))*s.inv[p.a] - s.dot(p.b, int(i))*s.inv[p.b])
		} else {
			out[t] = float32((s.dot(p.a, int(i))-s.dot(p.b, int(i)))*s.f2) + p.off
		}
	}
}

func (s *sparseVecs) exactDist(i, j int) float64 {
	return s.ex.report(s.ex.exact(i, j))
}
