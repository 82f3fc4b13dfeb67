package principal

import (
	"context"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
)

// Sample is the number of evenly spaced rows whose covariance Axes
// estimates.
const Sample = 8192

// MaxDim is the widest rows Axes takes: the d × d covariance (twice, 8·d²
// bytes each: 268 MB at 4096 features) and its dense eigenvalues (about
// 4/3·d³ flam: 78 s here at 4096) cost more than the coordinates they give
// can spare. Wider rows get no axes. (Before, rows
// of 18,933 terms made Axes allocate 5.7 GB and run for hours.)
const MaxDim = 4096

// SetupFlam is the flam of Axes on n rows of d features: the covariance of
// the sample (s·d²/2) and its dense eigenproblem (about 4/3·d³).
func SetupFlam(n, d int) float64 {
	s := float64(min(n, Sample))
	return s*float64(d)*float64(d)/2 + 4.0/3*float64(d)*float64(d)*float64(d)
}

// SetupBytes is the memory Axes allocates for n rows of d features: the
// sample and two copies of the covariance.
func SetupBytes(n, d int) int64 {
	return 8 * (int64(min(n, Sample))*int64(d) + 2*int64(d)*int64(d))
}

// projectRows is the rows Project projects at a time (one matrix product,
// between two context checks): 4096 rows of 256 features took a loaded
// CI machine up to 130 ms; with the pure-Go backend a row's coordinates
// are the same whatever the block (a product's entries are summed over
// the features in one order), with OpenBLAS the same to rounding (its
// kernels split a product by its shape): TestProjectBlocks.
var projectRows = 1024

// Row returns row i of n rows of d values, in float64, using buf (d
// values) when it must convert.
type Row func(i int, buf []float64) []float64

// Axes returns the p leading eigenvectors (the columns of axes, d × p,
// largest first) of the covariance of up to Sample evenly spaced rows of
// the n given, and the sample's mean, with p the fewest that keep share of
// the covariance's trace, rounded up to a multiple of 4. It returns no
// axes (Rows 0) when p would exceed d/2 — the variance too spread out for
// coordinates on few axes to pay —, when the covariance is zero, or when d
// exceeds MaxDim (before it allocates anything).
// Deterministic: the same rows give the same axes on any number of
// goroutines.
func Axes(ctx context.Context, n, d int, row Row, share float64) (axes blas64.General, mean []float64, err error) {
	if n < 2 || d < 1 || d > MaxDim {
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
	// The covariance's upper triangle by column panels, and its
	// eigenvalues alone to choose p: then only the p leading eigenvectors.
	// They run on their own goroutine so that a cancelled ctx returns at
	// once (the work, unread, finishes in the background); at s × d =
	// 8192 × 784 the product takes about 0.8 s and the eigenproblem 0.3 s.
	var (
		vecs blas64.General
		p    int
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		cov := covariance(c)
		var eig mat.EigenSym
		if !eig.Factorize(mat.NewSymDense(d, append([]float64(nil), cov.Data...)), false) {
			return
		}
		p = keep(eig.Values(nil), share)
		if p == 0 {
			return
		}
		var err error
		if _, vecs, err = backend.EigTopCtx(context.Background(), backend.Active(), cov, p); err != nil {
			p = 0
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return blas64.General{}, nil, ctx.Err()
	}
	if p == 0 {
		return blas64.General{}, nil, nil
	}
	return vecs, mean, nil
}

// keep returns the fewest leading eigenvalues (of vals, ascending) that
// keep share of their positive sum, rounded up to a multiple of 4, or 0
// when that exceeds half of them or the sum is not positive.
func keep(vals []float64, share float64) int {
	d := len(vals)
	total := 0.0
	for _, e := range vals {
		total += max(e, 0)
	}
	if !(total > 0) {
		return 0
	}
	p, kept := 0, 0.0
	for p < d && kept < share*total {
		kept += max(vals[d-1-p], 0)
		p++
	}
	p = (p + 3) &^ 3
	if p > d/2 {
		return 0
	}
	return p
}

// covariance returns cᵀc (upper triangle) by column panels of at least
// 64 columns, a matrix product each: panel j is the block above and on
// the diagonal, c[:, :end]ᵀ·c[:, panel]. Products are blocked and run on
// every core where Syrk is neither (gonum's: 3.0 s against 0.8 s at 8192
// × 784); each entry is summed over the rows in one order, the same on any
// number of goroutines.
func covariance(c blas64.General) blas64.Symmetric {
	s, d := c.Rows, c.Cols
	cov := blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: make([]float64, d*d)}
	w := max(64, (d+7)/8)
	for j0 := 0; j0 < d; j0 += w {
		j1 := min(d, j0+w)
		a := blas64.General{Rows: s, Cols: j1, Stride: c.Stride, Data: c.Data}
		b := blas64.General{Rows: s, Cols: j1 - j0, Stride: c.Stride, Data: c.Data[j0:]}
		out := blas64.General{Rows: j1, Cols: j1 - j0, Stride: d, Data: cov.Data[j0:]}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, a, b, 0, out)
	}
	return cov
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
