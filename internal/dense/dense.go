package dense

import (
	"context"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// New allocates a zeroed r×c row-major matrix.
func New(r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: max(1, c), Data: make([]float64, r*c)}
}

// Copy returns a compact copy of g.
func Copy(g blas64.General) blas64.General {
	c := New(g.Rows, g.Cols)
	CopyRows(c, g)
	return c
}

// CopyRows copies the r×c src into the r×c dst: in pieces of Piece values
// when both hold their rows contiguously (a copy call a row of a column or
// two costs more than the data it moves), row by row otherwise.
func CopyRows(dst, src blas64.General) {
	_ = CopyRowsCtx(context.Background(), dst, src, nil) // never cancelled
}

// Piece is the most values one copy call moves: a copy is one memmove,
// which neither the scheduler nor the collector's stop-the-world can
// interrupt, and the training rows of 10⁶ × 256 points (2 GB, its pages
// touched for the first time) took 0.5–1.3 s in one call, during which a
// cancel waited and so did every goroutine stopped for the collector.
// 4 MB pieces take about 1 ms (10 ms on fresh pages).
const Piece = 1 << 19

// CopyRowsCtx copies src's rows into dst as CopyRows does, or, with rows,
// src's rows rows[i] into dst's row i (dst has len(rows) rows); it checks
// ctx after every Piece values and returns its error, dst then partly
// written.
func CopyRowsCtx(ctx context.Context, dst, src blas64.General, rows []int) error {
	r, c := src.Rows, src.Cols
	if rows != nil {
		r = len(rows)
	}
	if r == 0 || c == 0 {
		return nil
	}
	if rows == nil && (r == 1 || src.Stride == c && dst.Stride == c) {
		n := (r-1)*src.Stride + c
		for lo := 0; lo < n; lo += Piece {
			hi := min(n, lo+Piece)
			copy(dst.Data[lo:hi], src.Data[lo:hi])
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return nil
	}
	moved := 0
	for i := range r {
		k := i
		if rows != nil {
			k = rows[i]
		}
		copy(dst.Data[i*dst.Stride:i*dst.Stride+c], src.Data[k*src.Stride:k*src.Stride+c])
		if moved += c; moved >= Piece {
			moved = 0
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// Symmetrize replaces the square a by (a + aᵀ)/2.
func Symmetrize(a blas64.General) {
	for i := 0; i < a.Rows; i++ {
		for j := i + 1; j < a.Cols; j++ {
			v := 0.5 * (a.Data[i*a.Stride+j] + a.Data[j*a.Stride+i])
			a.Data[i*a.Stride+j], a.Data[j*a.Stride+i] = v, v
		}
	}
}

// MirrorUpper copies the upper triangle of the square g into its lower
// one.
func MirrorUpper(g blas64.General) {
	for i := 0; i < g.Rows; i++ {
		for j := i + 1; j < g.Cols; j++ {
			g.Data[j*g.Stride+i] = g.Data[i*g.Stride+j]
		}
	}
}

// Tile is the side of the tiles of UpperTiles: two tiles of float64 fit in
// a core's L2 cache.
const Tile = 64

// UpperTiles runs fn on the tiles (rows i0:i1, columns j0:j1) of an n×n
// matrix's upper triangle, diagonal tiles included (j0 = i0), in parallel
// by tile rows (row = i0/Tile), ctx checked between them. A loop that
// reads a[i, j] and writes a[j, i] (mirroring a triangle) tile by tile
// reads and writes within two tiles, where a loop over whole rows writes a
// column: at 20,000 points TDPM's two mirrors took 0.5 and 2 s, on one
// core each, not cancellable.
func UpperTiles(ctx context.Context, n int, fn func(row, i0, i1, j0, j1 int)) error {
	rows := (n + Tile - 1) / Tile
	return backend.ParallelForCtx(ctx, rows, 1, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			i0, i1 := r*Tile, min(n, (r+1)*Tile)
			for j0 := i0; j0 < n; j0 += Tile {
				fn(r, i0, i1, j0, min(n, j0+Tile))
			}
		}
	})
}

// GramUpper sets the n×n g = XXᵀ (both triangles): the upper triangle by
// row blocks, one Gemm each (n²D/2 flam), then mirrored. A block holds
// 256 rows, fewer when that would pass about 4·10⁸ flam (≈ 60 ms here)
// between two looks at ctx: 20,000 points of 256 features made blocks of
// 1.3·10⁹. (GemmCtx's thin panels cost 40 % more on the whole product.)
func GramUpper(ctx context.Context, x, g blas64.General) error {
	n, d := x.Rows, x.Cols
	impl := backend.Active()
	nb := max(16, min(256, int(4e8/max(1, float64(n)*float64(d)))))
	for s := 0; s < n; s += nb {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := min(n, s+nb)
		xb := blas64.General{Rows: e - s, Cols: d, Stride: x.Stride, Data: x.Data[s*x.Stride:]}
		rest := blas64.General{Rows: n - s, Cols: d, Stride: x.Stride, Data: x.Data[s*x.Stride:]}
		gb := blas64.General{Rows: e - s, Cols: n - s, Stride: g.Stride, Data: g.Data[s*g.Stride+s:]}
		impl.Gemm(blas.NoTrans, blas.Trans, 1, xb, rest, 0, gb)
	}
	return UpperTiles(ctx, n, func(_, i0, i1, j0, j1 int) {
		for i := i0; i < i1; i++ {
			for j := max(j0, i+1); j < j1; j++ {
				g.Data[j*g.Stride+i] = g.Data[i*g.Stride+j]
			}
		}
	})
}

// SymQuadForm sets dst = alpha·AᵀτA for the symmetric n×n τ (both
// triangles stored) and the n×d A, in n²d/2 + nd² flam instead of the
// n²d + nd² of Aᵀ(τA): with τ = L + Lᵀ, L the lower triangle with half the
// diagonal, AᵀτA = P + Pᵀ for P = Aᵀ(LA), and LA is formed by row blocks
// of τ, each a Gemm with the rows of A above it. ctx is checked between
// blocks.
func SymQuadForm(ctx context.Context, alpha float64, tau, a, dst blas64.General) error {
	n, d := a.Rows, a.Cols
	impl := backend.Active()
	const nb = 256
	p := New(d, d)
	w := New(min(nb, n), d)
	diag := New(min(nb, n), min(nb, n))
	for s := 0; s < n; s += nb {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := min(n, s+nb)
		b := e - s
		wb := blas64.General{Rows: b, Cols: d, Stride: w.Stride, Data: w.Data}
		// The diagonal block's lower triangle, its diagonal halved.
		db := blas64.General{Rows: b, Cols: b, Stride: diag.Stride, Data: diag.Data}
		for i := 0; i < b; i++ {
			row := db.Data[i*db.Stride : i*db.Stride+b]
			src := tau.Data[(s+i)*tau.Stride+s : (s+i)*tau.Stride+e]
			for j := range row {
				switch {
				case j < i:
					row[j] = src[j]
				case j == i:
					row[j] = 0.5 * src[j]
				default:
					row[j] = 0
				}
			}
		}
		ab := blas64.General{Rows: b, Cols: d, Stride: a.Stride, Data: a.Data[s*a.Stride:]}
		impl.Gemm(blas.NoTrans, blas.NoTrans, 1, db, ab, 0, wb)
		if s > 0 {
			left := blas64.General{Rows: b, Cols: s, Stride: tau.Stride, Data: tau.Data[s*tau.Stride:]}
			// The rows above, s of them (n at the last block: 256·n·d
			// flam), in passes that look at ctx.
			if err := backend.GemmCtx(ctx, impl, blas.NoTrans, blas.NoTrans, 1, left, blas64.General{Rows: s, Cols: d, Stride: a.Stride, Data: a.Data}, 1, wb); err != nil {
				return err
			}
		}
		impl.Gemm(blas.Trans, blas.NoTrans, 1, ab, wb, 1, p)
	}
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			dst.Data[i*dst.Stride+j] = alpha * (p.Data[i*d+j] + p.Data[j*d+i])
		}
	}
	return nil
}

// Rank is the number of leading values of sq (squared singular values,
// or eigenvalues of a covariance or Gram matrix, descending) above
// tolSq·sq[0], and 0 when sq[0] is not positive: the numerical rank with
// the singular values' tolerance √tolSq relative to the largest. It is
// the one rank rule of the engine and its kernels; each caller says why
// its tolerance (engine's pca.go for PCA, LSI and the linear graph
// embeddings; engine/internal/discriminant for the whitening).
func Rank(sq []float64, tolSq float64) int {
	rk := 0
	for rk < len(sq) && sq[0] > 0 && sq[rk] > tolSq*sq[0] {
		rk++
	}
	return rk
}
