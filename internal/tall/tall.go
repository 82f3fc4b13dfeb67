package tall

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// Chunk is the rows of one chunk; maxWidth the most columns
// (l·p) the loops take before a general product is faster.
const (
	Chunk    = 4096
	maxWidth = 64
)

// TN sets the l×p c = xᵀ·y for x n×l and y n×p.
func TN(x, y, c blas64.General) {
	n, l, p := x.Rows, x.Cols, y.Cols
	if l*p > maxWidth {
		backend.Active().Gemm(blas.Trans, blas.NoTrans, 1, x, y, 0, c)
		return
	}
	chunks := (n + Chunk - 1) / Chunk
	part := make([]float64, max(1, chunks)*l*p)
	backend.ParallelFor(chunks, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			acc := part[ch*l*p : (ch+1)*l*p]
			if p == 1 {
				tnVec(acc, x, y.Data, y.Stride, ch*Chunk, min(n, (ch+1)*Chunk))
				continue
			}
			if p == 2 && l <= 2 {
				tn2(acc, x, y, ch*Chunk, min(n, (ch+1)*Chunk))
				continue
			}
			for i := ch * Chunk; i < min(n, (ch+1)*Chunk); i++ {
				xi := x.Data[i*x.Stride : i*x.Stride+l]
				yi := y.Data[i*y.Stride : i*y.Stride+p]
				for a, xa := range xi {
					row := acc[a*p : (a+1)*p]
					for b, yb := range yi {
						row[b] += xa * yb
					}
				}
			}
		}
	})
	for a := range l {
		row := c.Data[a*c.Stride : a*c.Stride+p]
		clear(row)
		for ch := range chunks {
			for b, v := range part[ch*l*p+a*p : ch*l*p+(a+1)*p] {
				row[b] += v
			}
		}
	}
}

// NN sets the n×p y = alpha·x·t + beta·y for x n×l and t l×p (beta 0
// or 1; y must not share memory with x).
func NN(alpha float64, x, t blas64.General, beta float64, y blas64.General) {
	n, l, p := x.Rows, x.Cols, t.Cols
	if l*p > maxWidth || beta != 0 && beta != 1 {
		backend.Active().Gemm(blas.NoTrans, blas.NoTrans, alpha, x, t, beta, y)
		return
	}
	backend.ParallelFor((n+Chunk-1)/Chunk, 1, func(lo, hi int) {
		if p == 1 {
			nnVec(alpha, x, t, beta, y, lo*Chunk, min(n, hi*Chunk))
			return
		}
		if p == 2 && l <= 2 {
			nn2(alpha, x, t, beta, y, lo*Chunk, min(n, hi*Chunk))
			return
		}
		for i := lo * Chunk; i < min(n, hi*Chunk); i++ {
			xi := x.Data[i*x.Stride : i*x.Stride+l]
			yi := y.Data[i*y.Stride : i*y.Stride+p]
			if beta == 0 {
				clear(yi)
			}
			for a, xa := range xi {
				xa *= alpha
				for b, tb := range t.Data[a*t.Stride : a*t.Stride+p] {
					yi[b] += xa * tb
				}
			}
		}
	})
}

// tn2 adds xᵀ·y over rows [r0, r1) to acc (l×2) for x of one or two
// columns and y of two: the general loop's sums, in its order, in
// registers.
func tn2(acc []float64, x, y blas64.General, r0, r1 int) {
	var s00, s01, s10, s11 float64
	xs, ys := x.Stride, y.Stride
	if x.Cols == 1 {
		for i := r0; i < r1; i++ {
			x0, yi := x.Data[i*xs], y.Data[i*ys:i*ys+2]
			s00 += x0 * yi[0]
			s01 += x0 * yi[1]
		}
		acc[0] += s00
		acc[1] += s01
		return
	}
	for i := r0; i < r1; i++ {
		xi, yi := x.Data[i*xs:i*xs+2], y.Data[i*ys:i*ys+2]
		s00 += xi[0] * yi[0]
		s01 += xi[0] * yi[1]
		s10 += xi[1] * yi[0]
		s11 += xi[1] * yi[1]
	}
	acc[0] += s00
	acc[1] += s01
	acc[2] += s10
	acc[3] += s11
}

// nn2 sets y = alpha·x·t + beta·y over rows [r0, r1) for x of one or
// two columns and t, y of two: the general loop's operations, in its
// order.
func nn2(alpha float64, x, t blas64.General, beta float64, y blas64.General, r0, r1 int) {
	xs, ys := x.Stride, y.Stride
	t00, t01 := t.Data[0], t.Data[1]
	var t10, t11 float64
	if x.Cols == 2 {
		t10, t11 = t.Data[t.Stride], t.Data[t.Stride+1]
	}
	for i := r0; i < r1; i++ {
		yi := y.Data[i*ys : i*ys+2]
		var y0, y1 float64
		if beta != 0 {
			y0, y1 = yi[0], yi[1]
		}
		xa := x.Data[i*xs] * alpha
		y0 += xa * t00
		y1 += xa * t01
		if x.Cols == 2 {
			xa = x.Data[i*xs+1] * alpha
			y0 += xa * t10
			y1 += xa * t11
		}
		yi[0], yi[1] = y0, y1
	}
}

// tnVec adds xᵀ·y over rows [r0, r1) to acc (l entries), y a vector
// of stride sy.
func tnVec(acc []float64, x blas64.General, y []float64, sy, r0, r1 int) {
	l := x.Cols
	for a := 0; a < l; a += 4 {
		w := min(4, l-a)
		var s0, s1, s2, s3 float64
		xd := x.Data[r0*x.Stride+a:]
		switch w {
		case 4:
			for i := r0; i < r1; i++ {
				o := (i - r0) * x.Stride
				yi := y[i*sy]
				s0 += xd[o] * yi
				s1 += xd[o+1] * yi
				s2 += xd[o+2] * yi
				s3 += xd[o+3] * yi
			}
		default:
			for i := r0; i < r1; i++ {
				o := (i - r0) * x.Stride
				yi := y[i*sy]
				s0 += xd[o] * yi
				if w > 1 {
					s1 += xd[o+1] * yi
				}
				if w > 2 {
					s2 += xd[o+2] * yi
				}
			}
		}
		sums := [4]float64{s0, s1, s2, s3}
		for k := range w {
			acc[a+k] += sums[k]
		}
	}
}

// nnVec sets y = alpha·x·t + beta·y over rows [r0, r1) for a vector t
// (l entries, stride t.Stride) and a vector y.
func nnVec(alpha float64, x, t blas64.General, beta float64, y blas64.General, r0, r1 int) {
	l := x.Cols
	tv := make([]float64, l)
	for a := range tv {
		tv[a] = alpha * t.Data[a*t.Stride]
	}
	yd := y.Data
	if beta == 0 {
		for i := r0; i < r1; i++ {
			yd[i*y.Stride] = 0
		}
	}
	for a := 0; a < l; a += 4 {
		w := min(4, l-a)
		var t0, t1, t2, t3 float64
		t0 = tv[a]
		if w > 1 {
			t1 = tv[a+1]
		}
		if w > 2 {
			t2 = tv[a+2]
		}
		if w > 3 {
			t3 = tv[a+3]
		}
		xd := x.Data[r0*x.Stride+a:]
		switch w {
		case 4:
			for i := r0; i < r1; i++ {
				o := (i - r0) * x.Stride
				yd[i*y.Stride] += xd[o]*t0 + xd[o+1]*t1 + xd[o+2]*t2 + xd[o+3]*t3
			}
		case 3:
			for i := r0; i < r1; i++ {
				o := (i - r0) * x.Stride
				yd[i*y.Stride] += xd[o]*t0 + xd[o+1]*t1 + xd[o+2]*t2
			}
		case 2:
			for i := r0; i < r1; i++ {
				o := (i - r0) * x.Stride
				yd[i*y.Stride] += xd[o]*t0 + xd[o+1]*t1
			}
		default:
			for i := r0; i < r1; i++ {
				yd[i*y.Stride] += xd[(i-r0)*x.Stride] * t0
			}
		}
	}
}

// ColumnNorms returns the squared norms of q's columns, each summed in
// row order (two columns: in registers), serially.
func ColumnNorms(q blas64.General) []float64 {
	norms := make([]float64, q.Cols)
	if q.Cols == 2 {
		var s0, s1 float64
		for i := 0; i < q.Rows; i++ {
			row := q.Data[i*q.Stride : i*q.Stride+2]
			s0 += row[0] * row[0]
			s1 += row[1] * row[1]
		}
		norms[0], norms[1] = s0, s1
		return norms
	}
	for i := 0; i < q.Rows; i++ {
		for j, v := range q.Data[i*q.Stride : i*q.Stride+q.Cols] {
			norms[j] += v * v
		}
	}
	return norms
}

// ScaleColumns multiplies column j of q by s[j].
func ScaleColumns(q blas64.General, s []float64) {
	if q.Cols == 2 {
		s0, s1 := s[0], s[1]
		for i := 0; i < q.Rows; i++ {
			row := q.Data[i*q.Stride : i*q.Stride+2]
			row[0] *= s0
			row[1] *= s1
		}
		return
	}
	for i := 0; i < q.Rows; i++ {
		row := q.Data[i*q.Stride : i*q.Stride+q.Cols]
		for j := range row {
			row[j] *= s[j]
		}
	}
}

// UnitColumns scales each nonzero column of q to unit norm (ColumnNorms,
// then ScaleColumns).
func UnitColumns(q blas64.General) {
	norms := ColumnNorms(q)
	for j, v := range norms {
		if v > 0 {
			norms[j] = 1 / math.Sqrt(v)
		}
	}
	ScaleColumns(q, norms)
}
