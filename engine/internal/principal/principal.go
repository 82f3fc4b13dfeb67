// Package principal finds the leading principal axes of a set of rows from
// an evenly spaced sample, and projects every row on them in blocks: the
// step shared by the engine's filters that compare rows on a few principal
// coordinates before their exact distances (the neighbour index's walk,
// the max-min landmark choice's lower bounds). The rows come through a
// function, so that callers keep them in their own order and precision.
package principal

import (
	"context"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Sample is the number of evenly spaced rows whose covariance Axes
// estimates.
const Sample = 8192

// projectRows is the rows Project projects at a time (one matrix product,
// between two context checks): 4096 rows of 256 features took a loaded
// CI machine up to 130 ms; a row's coordinates are the same whatever
// the block (a product's entries are summed over the features in one
// order: TestProjectBlocks).
var projectRows = 1024

// Row returns row i of n rows of d values, in float64, using buf (d
// values) when it must convert.
type Row func(i int, buf []float64) []float64

// Axes returns the p leading eigenvectors (the columns of axes, d × p,
// largest first) of the covariance of up to Sample evenly spaced rows of
// the n given, and the sample's mean, with p the fewest that keep share of
// the covariance's trace, rounded up to a multiple of 4. It returns no
// axes (Rows 0) when p would exceed d/2 — the variance too spread out for
// coordinates on few axes to pay — or the covariance is zero.
// Deterministic: the same rows give the same axes on any number of
// goroutines.
func Axes(ctx context.Context, n, d int, row Row, share float64) (axes blas64.General, mean []float64, err error) {
	if n < 2 || d < 1 {
		return blas64.General{}, nil, nil
	}
	s := min(n, Sample)
	mean = make([]float64, d)
	c := blas64.General{Rows: s, Cols: d, Stride: d, Data: make([]float64, s*d)}
	buf := make([]float64, d)
	for r := 0; r < s; r++ {
		src := row(r*n/s, buf)
		copy(c.Data[r*d:(r+1)*d], src)
		for k, v := range src {
			mean[k] += v
		}
	}
	for k := range mean {
		mean[k] /= float64(s)
	}
	for r := 0; r < s; r++ {
		x := c.Data[r*d : (r+1)*d]
		for k := range x {
			x[k] -= mean[k]
		}
	}
	cov := blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: make([]float64, d*d)}
	// One product of up to Sample × d (a few hundred milliseconds at
	// d = 256) and the d × d eigendecomposition (tens of milliseconds):
	// they run on their own goroutine so that a cancelled ctx returns at
	// once (the work, unread, finishes in the background).
	var eig mat.EigenSym
	ok := false
	done := make(chan struct{})
	go func() {
		blas64.Syrk(blas.Trans, 1, c, 0, cov)
		ok = eig.Factorize(mat.NewSymDense(d, cov.Data), true)
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return blas64.General{}, nil, ctx.Err()
	}
	if !ok {
		return blas64.General{}, nil, nil
	}
	vals := eig.Values(nil) // ascending
	total := 0.0
	for _, e := range vals {
		total += max(e, 0)
	}
	if !(total > 0) {
		return blas64.General{}, nil, nil
	}
	p, kept := 0, 0.0
	for p < d && kept < share*total {
		kept += max(vals[d-1-p], 0)
		p++
	}
	p = (p + 3) &^ 3
	if p > d/2 {
		return blas64.General{}, nil, nil
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	axes = blas64.General{Rows: d, Cols: p, Stride: p, Data: make([]float64, d*p)}
	for a := 0; a < p; a++ {
		for k := 0; k < d; k++ {
			axes.Data[k*p+a] = vecs.At(k, d-1-a)
		}
	}
	return axes, mean, nil
}

// Project computes, for every row i of the n given, its coordinates
// z = axesᵀ·(x_i − mean) on the axes (d × p, from Axes) and calls
// each(i, centred, z) with the centred row and z (scratch, valid during
// the call), block by block (projectRows rows, one matrix product each), in
// order. It checks ctx before each block.
func Project(ctx context.Context, n int, row Row, axes blas64.General, mean []float64, each func(i int, centred, z []float64)) error {
	d, p := axes.Rows, axes.Cols
	blk := blas64.General{Cols: d, Stride: d, Data: make([]float64, min(n, projectRows)*d)}
	out := blas64.General{Cols: p, Stride: p, Data: make([]float64, min(n, projectRows)*p)}
	buf := make([]float64, d)
	for lo := 0; lo < n; lo += projectRows {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(n, lo+projectRows)
		blk.Rows, out.Rows = hi-lo, hi-lo
		for r := lo; r < hi; r++ {
			dst := blk.Data[(r-lo)*d : (r-lo+1)*d]
			for k, v := range row(r, buf) {
				dst[k] = v - mean[k]
			}
		}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, blk, axes, 0, out)
		for r := lo; r < hi; r++ {
			each(r, blk.Data[(r-lo)*d:(r-lo+1)*d], out.Data[(r-lo)*p:(r-lo+1)*p])
		}
	}
	return nil
}
