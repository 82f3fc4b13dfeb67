package backend

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The hot kernels of the methods, written once on top of an Impl so both
// backends share them.

// distTile is the tile edge of the distance kernel: a tile of the output
// (512×512 float64 = 2 MiB) is produced by one Gemm and finished while it is
// still in cache.
const distTile = 512

// closeRel: pairs whose computed squared distance is below closeRel·(‖x‖²+‖y‖²)
// are recomputed as Σ(x−y)², so identical rows give exactly 0 and
// near-duplicates keep their relative accuracy (the Gram formula loses it to
// cancellation). Elsewhere the formula's relative error is at most about
// D·ε/closeRel.
const closeRel = 1e-5

// RowSqNorms returns ‖x_i‖² for every row of x, computed in parallel.
func RowSqNorms(x blas64.General) []float64 {
	nrm := make([]float64, x.Rows)
	ParallelFor(x.Rows, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := 0.0
			for _, v := range x.Data[i*x.Stride : i*x.Stride+x.Cols] {
				s += v * v
			}
			nrm[i] = s
		}
	})
	return nrm
}

// SqDistCtx fills the m×n dst with the squared Euclidean distances
// ‖x_i − y_j‖² between the rows of x (m×D) and y (n×D), as
// ‖x_i‖² + ‖y_j‖² − 2·x_i·y_j: one Gemm per 512×512 tile of dst (m·n·D flam
// in all), finished in cache, clamped at 0, with close pairs recomputed
// directly so that identical rows give exactly 0. When x and y are the same
// matrix (same backing array, shape and stride) only the upper tiles are
// computed and mirrored, halving the flam, and the diagonal is exactly 0.
//
// xn and yn may hold the precomputed RowSqNorms of x and y (nil: computed
// here). It returns an error wrapping ErrNotFinite if x or y holds NaN or
// Inf. It checks ctx before each tile (tiles are lower than 512 rows when
// the features are many, at most about panelWork flam each) and returns an
// error wrapping ctx.Err() when cancelled.
func SqDistCtx(ctx context.Context, impl Impl, dst, x, y blas64.General, xn, yn []float64) error {
	m, n, dim := x.Rows, y.Rows, x.Cols
	if y.Cols != dim || dst.Rows != m || dst.Cols != n {
		panic(fmt.Sprintf("backend: SqDist: x %d×%d, y %d×%d, dst %d×%d", m, dim, n, y.Cols, dst.Rows, dst.Cols))
	}
	if m == 0 || n == 0 {
		return nil
	}
	if dim == 0 {
		for i := 0; i < m; i++ {
			clear(dst.Data[i*dst.Stride : i*dst.Stride+n])
		}
		return nil
	}
	self := m == n && x.Stride == y.Stride && &x.Data[0] == &y.Data[0]
	if err := checkFinite("SqDist: x", x.Data, m, dim, x.Stride); err != nil {
		return err
	}
	if !self {
		if err := checkFinite("SqDist: y", y.Data, n, dim, y.Stride); err != nil {
			return err
		}
	}
	if xn == nil {
		xn = RowSqNorms(x)
	}
	if yn == nil {
		if self {
			yn = xn
		} else {
			yn = RowSqNorms(y)
		}
	}
	th := max(16, min(distTile, int(panelWork(impl)/float64(distTile*dim))))
	for i0 := 0; i0 < m; i0 += th {
		i1 := min(m, i0+th)
		j0 := 0
		if self {
			j0 = i0
		}
		for ; j0 < n; j0 += distTile {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("backend: distances cancelled: %w", err)
			}
			j1 := min(n, j0+distTile)
			tile := sub(dst, i0, i1, j0, j1)
			impl.Gemm(blas.NoTrans, blas.Trans, -2, sub(x, i0, i1, 0, dim), sub(y, j0, j1, 0, dim), 0, tile)
			finishTile(tile, x, y, xn[i0:i1], yn[j0:j1], i0, j0, self)
			if self {
				// Mirror the tile's part above the diagonal below it.
				for i := i0; i < i1; i++ {
					for j := max(j0, i+1); j < j1; j++ {
						dst.Data[j*dst.Stride+i] = dst.Data[i*dst.Stride+j]
					}
				}
			}
		}
	}
	return nil
}

// finishTile turns −2·XYᵀ in tile into squared distances.
func finishTile(tile, x, y blas64.General, xn, yn []float64, i0, j0 int, self bool) {
	ParallelFor(tile.Rows, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := tile.Data[i*tile.Stride : i*tile.Stride+tile.Cols]
			xi := xn[i]
			for j, g := range row {
				s := xi + yn[j]
				d := s + g
				if d <= closeRel*s {
					if self && i0+i == j0+j {
						d = 0
					} else {
						d = sqDistDirect(x.Data[(i0+i)*x.Stride:(i0+i)*x.Stride+x.Cols], y.Data[(j0+j)*y.Stride:])
					}
				}
				row[j] = d
			}
		}
	})
}

func sqDistDirect(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for k, v := range a {
		t := v - b[k]
		s += t * t
	}
	return s
}

// sub returns the view [r0, r1) × [c0, c1) of g.
func sub(g blas64.General, r0, r1, c0, c1 int) blas64.General {
	if r1 == r0 || c1 == c0 {
		return blas64.General{Rows: r1 - r0, Cols: c1 - c0, Stride: max(1, g.Stride)}
	}
	return blas64.General{Rows: r1 - r0, Cols: c1 - c0, Stride: g.Stride, Data: g.Data[r0*g.Stride+c0:]}
}

// RowMeans returns the mean of every row of the n×n s, in parallel.
func RowMeans(s blas64.General) []float64 {
	r := make([]float64, s.Rows)
	ParallelFor(s.Rows, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sum := 0.0
			for _, v := range s.Data[i*s.Stride : i*s.Stride+s.Cols] {
				sum += v
			}
			r[i] = sum / float64(s.Cols)
		}
	})
	return r
}

// DoubleCenterCtx overwrites the symmetric n×n matrix of squared distances s
// with B = −½·H·S·H, H = I − 11ᵀ/n (classical MDS; the τ operator of
// Cai, He & Han, AAAI 2007 eq. 3), in place: b_ij = −½(s_ij − r_i − r_j + g)
// with r the row means (which equal the column means of a symmetric S) and
// g their mean. rowMeans may hold r precomputed (for instance accumulated
// by the shortest-path pass that wrote S); nil computes it, one more read of
// S. One read and one write of S, parallel over rows, no second n×n buffer.
// It checks ctx between blocks of 64 rows and returns an error wrapping
// ctx.Err() when cancelled (S is then partly centred).
func DoubleCenterCtx(ctx context.Context, s blas64.General, rowMeans []float64) error {
	n := s.Rows
	if s.Cols != n {
		panic(fmt.Sprintf("backend: DoubleCenter: S is %d×%d, not square", s.Rows, s.Cols))
	}
	if rowMeans == nil {
		rowMeans = RowMeans(s)
	}
	checkLen("DoubleCenter: rowMeans", rowMeans, n)
	g := 0.0
	for _, v := range rowMeans[:n] {
		g += v
	}
	g /= float64(max(1, n))
	return ParallelForCtx(ctx, n, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ri := rowMeans[i] - g
			row := s.Data[i*s.Stride : i*s.Stride+n]
			rm := rowMeans[:n]
			for j, v := range row {
				row[j] = -0.5 * (v - ri - rm[j])
			}
		}
	})
}

// DoubleCenter32Ctx is DoubleCenterCtx for a float32 n×n matrix with the
// given row stride (float32 geodesics halve the memory of large Isomap
// problems). The arithmetic is in float64; the results are rounded to
// float32. It checks ctx between blocks of 64 rows.
func DoubleCenter32Ctx(ctx context.Context, s []float32, n, stride int, rowMeans []float64) error {
	if n > 0 && (stride < n || len(s) < (n-1)*stride+n) {
		panic(fmt.Sprintf("backend: DoubleCenter32Ctx: %d elements cannot hold %d×%d with stride %d", len(s), n, n, stride))
	}
	if rowMeans == nil {
		rowMeans = make([]float64, n)
		ParallelFor(n, 64, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				sum := 0.0
				for _, v := range s[i*stride : i*stride+n] {
					sum += float64(v)
				}
				rowMeans[i] = sum / float64(n)
			}
		})
	}
	checkLen("DoubleCenter32: rowMeans", rowMeans, n)
	g := 0.0
	for _, v := range rowMeans[:n] {
		g += v
	}
	g /= float64(max(1, n))
	return ParallelForCtx(ctx, n, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ri := rowMeans[i] - g
			row := s[i*stride : i*stride+n]
			rm := rowMeans[:n]
			for j, v := range row {
				row[j] = float32(-0.5 * (float64(v) - ri - rm[j]))
			}
		}
	})
}

// reversePairs reverses the order of the eigenvalues w and of the columns
// of z with them (ascending to descending).
func reversePairs(w []float64, z blas64.General) {
	for i, j := 0, len(w)-1; i < j; i, j = i+1, j-1 {
		w[i], w[j] = w[j], w[i]
		for r := 0; r < z.Rows; r++ {
			row := z.Data[r*z.Stride:]
			row[i], row[j] = row[j], row[i]
		}
	}
}

// FixSigns applies the project's eigenvector sign convention to the columns
// of z: each column's largest-magnitude component (the first, on ties) is
// made positive. Results are then reproducible across backends and runs.
func FixSigns(z blas64.General) {
	for j := 0; j < z.Cols; j++ {
		best, arg := -1.0, 0
		for i := 0; i < z.Rows; i++ {
			if a := math.Abs(z.Data[i*z.Stride+j]); a > best {
				best, arg = a, i
			}
		}
		if z.Rows > 0 && z.Data[arg*z.Stride+j] < 0 {
			for i := 0; i < z.Rows; i++ {
				z.Data[i*z.Stride+j] = -z.Data[i*z.Stride+j]
			}
		}
	}
}
