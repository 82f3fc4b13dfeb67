package tangent

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
)

// Block is the number of tangent spaces of t dimensions whose projections
// Distances forms by one matrix product: about 512 columns.
func Block(t int) int { return max(1, 512/t) }

// Distances fills dst (rows of the tangent spaces × points of y)
// with TD(i, j) = ‖(I − P_iP_iᵀ)(y_j − x_i)‖ for the tangent spaces of the
// rows of x (columns i·t… of p, anchors P_iᵀx_i: Anchors), as
// √max(0, ‖y_j − x_i‖² − ‖P_iᵀy_j − P_iᵀx_i‖²): per block of tangent spaces
// (Block), one distance kernel and one product Y·[P_s … P_e]. ctx is
// checked and progress (when not nil) told the tangent spaces done
// between blocks.
func Distances(ctx context.Context, dst, x, y, p, anchor blas64.General, t int, progress func(done, total int64)) error {
	n, m, d := x.Rows, y.Rows, x.Cols
	impl := backend.Active()
	nb := Block(t)
	q := dense.New(m, min(nb, n)*t)
	yn := backend.RowSqNorms(y)
	xn := backend.RowSqNorms(x)
	for s := 0; s < n; s += nb {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := min(n, s+nb)
		b := e - s
		rows := blas64.General{Rows: b, Cols: m, Stride: dst.Stride, Data: dst.Data[s*dst.Stride:]}
		xb := blas64.General{Rows: b, Cols: d, Stride: x.Stride, Data: x.Data[s*x.Stride:]}
		if err := backend.SqDistCtx(ctx, impl, rows, xb, y, xn[s:e], yn); err != nil {
			return err
		}
		pb := blas64.General{Rows: d, Cols: b * t, Stride: p.Stride, Data: p.Data[s*t:]}
		qb := blas64.General{Rows: m, Cols: b * t, Stride: q.Stride, Data: q.Data}
		impl.Gemm(blas.NoTrans, blas.NoTrans, 1, y, pb, 0, qb)
		backend.ParallelFor(b, 4, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				row := rows.Data[i*rows.Stride : i*rows.Stride+m]
				an := anchor.Data[(s+i)*anchor.Stride : (s+i)*anchor.Stride+t]
				for j := range row {
					qj := qb.Data[j*qb.Stride+i*t : j*qb.Stride+i*t+t]
					pr := 0.0
					for c, v := range qj {
						u := v - an[c]
						pr += u * u
					}
					row[j] = math.Sqrt(max(0, row[j]-pr))
				}
			}
		})
		if progress != nil {
			progress(int64(e), int64(n))
		}
	}
	return nil
}

// DistancesGram fills the n×n dst with TD(i, j) from the n×n Gram
// matrix g = XXᵀ of the points and the coefficients A_i that Spaces wrote
// into coef for their neighbours nb: P_iᵀ(x_j − x_i) = A_i·(g[l, j] −
// g[l, i])_{l ∈ N(i)}, so TD(i,j)² = g_ii + g_jj − 2g_ij −
// ‖A_i(g[N(i), j] − g[N(i), i])‖², one t×k times k×n product per row
// (n²·t·k flam in all instead of n²·D·t). Rows in parallel, ctx checked
// and progress (when not nil) told the rows done every 256 rows.
func DistancesGram(ctx context.Context, dst, g blas64.General, nb *neighbors.Result, coef blas64.General, t int, progress func(done, total int64)) error {
	n := g.Rows
	const rowsPer = 256
	for r0 := 0; r0 < n; r0 += rowsPer {
		r1 := min(n, r0+rowsPer)
		err := backend.ParallelForCtx(ctx, r1-r0, 4, func(lo, hi int) {
			const tile = 256
			acc := make([]float64, t*tile)
			anchor := make([]float64, t)
			for i := r0 + lo; i < r0+hi; i++ {
				ind, _ := nb.Row(i)
				k := len(ind)
				a := coef.Data[i*coef.Stride : i*coef.Stride+t*k]
				gi := g.Data[i*g.Stride : i*g.Stride+n]
				for c := 0; c < t; c++ {
					s := 0.0
					for l, j := range ind {
						s += a[c*k+l] * g.Data[j*g.Stride+i]
					}
					anchor[c] = s
				}
				out := dst.Data[i*dst.Stride : i*dst.Stride+n]
				for j0 := 0; j0 < n; j0 += tile {
					j1 := min(n, j0+tile)
					w := j1 - j0
					for c := 0; c < t; c++ {
						ac := acc[c*tile : c*tile+w]
						clear(ac)
						for l, jl := range ind {
							f := a[c*k+l]
							if f == 0 {
								continue
							}
							row := g.Data[jl*g.Stride+j0 : jl*g.Stride+j1]
							for j, v := range row {
								ac[j] += f * v
							}
						}
					}
					gii := gi[i]
					for j := j0; j < j1; j++ {
						pr := 0.0
						for c := 0; c < t; c++ {
							u := acc[c*tile+j-j0] - anchor[c]
							pr += u * u
						}
						sq := gii + g.Data[j*g.Stride+j] - 2*gi[j]
						out[j] = math.Sqrt(max(0, sq-pr))
					}
				}
				out[i] = 0
			}
		})
		if err != nil {
			return err
		}
		if progress != nil {
			progress(int64(r1), int64(n))
		}
	}
	return nil
}

// DistancesFlam is Distances between the n points that gave the tangent
// spaces (eq. 5) as products: the squared Euclidean distances (SqDist,
// symmetric) and, per point i, the projections P_iᵀx_j of all n points on
// its t-dimensional tangent space (n·d·t each): n²·d·t.
func DistancesFlam(n, d, t int) float64 {
	return flam.SqDist(n, n, d, true) + float64(n)*float64(n)*float64(d)*float64(t)
}

// DistancesGramFlam is DistancesGram's n×n tangent distances from the Gram
// matrix G = XXᵀ (counted apart, flam.Syrk): P_iᵀx_j = A_i·G[N(i), j] with
// A_i the t×k coefficients of the local PCA, n·t·k per row, n²·t·k in all
// (less than DistancesFlam's n²·d·t when k < d).
func DistancesGramFlam(n, k, t int) float64 {
	fn := float64(n)
	return fn * fn * float64(t*k)
}

// Radius is the largest Euclidean norm of a row of x: for centred points
// the radius of the data, the scale of Distances' rounding (about
// √ε·Radius where TD is 0).
func Radius(x blas64.General) float64 {
	m := 0.0
	for _, v := range backend.RowSqNorms(x) {
		m = max(m, v)
	}
	return math.Sqrt(m)
}
