package backend

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// FullSymOp is a symmetric n×n matrix stored in full (both triangles, as
// DoubleCenter leaves τ(D_G)) as an operator with fast products for the
// iterative eigensolvers (package lanczos).
//
// MulVecTo reads one triangle only: for large n the product is bound by
// memory, and half the traffic of a Gemv is half the time. On the pure-Go
// backend it is a parallel Go kernel (gonum's Dsymv runs on one core); on a
// C backend, the library's Symv. MulBlockTo computes A·X as rows of A
// against rows of Xᵀ, so that each row of A is read once and serves all b
// vectors while it is in cache: a parallel Go kernel on the pure-Go backend
// (gonum's Dsymm and Dgemm are slow for thin blocks), the Gemm Xᵀ·A on a C
// backend (the orientation in which a BLAS handles a thin block well).
// Measured at n = 5000 on the 2-core reference machine: see
// BenchmarkFullSymOp. Symmetry is not checked; the triangles must agree.
type FullSymOp struct {
	A    blas64.General // n×n, both triangles stored
	Impl Impl           // nil: Active()
}

func (o FullSymOp) impl() Impl {
	if o.Impl == nil {
		return Active()
	}
	return o.Impl
}

// Dims returns (n, n).
func (o FullSymOp) Dims() (r, c int) {
	if o.A.Rows != o.A.Cols {
		panic(fmt.Sprintf("backend: FullSymOp: A is %d×%d, not square", o.A.Rows, o.A.Cols))
	}
	return o.A.Rows, o.A.Cols
}

// symRowGrain is the number of rows of A per parallel chunk.
const symRowGrain = 32

// MulVecTo sets dst = A·x (n² flam), reading the upper triangle only.
func (o FullSymOp) MulVecTo(dst, x []float64) {
	n := o.A.Rows
	checkVecs("FullSymOp.MulVecTo", dst, n, x, n)
	if impl := o.impl(); impl != PureGo {
		// An optimized Symv reads one triangle too, with SIMD and its own
		// threads: 3.6 ms against 5.8 ms for the Go kernel and 7.6 ms for
		// Gemv at n = 5000 (OpenBLAS 0.3.21, 2 cores).
		impl.Symv(1, blas64.Symmetric{N: n, Stride: o.A.Stride, Uplo: blas.Upper, Data: o.A.Data}, vec(x), 0, vec(dst))
		return
	}
	if n < symHalfMin {
		for i := 0; i < n; i++ {
			dst[i] = goBLAS.Ddot(n, o.A.Data[i*o.A.Stride:], 1, x, 1)
		}
		return
	}
	symvUpper(dst, o.A, x)
}

// symHalfMin is the order below which the products run serially.
const symHalfMin = 64

// symParts is the number of parts of the upper triangle, each with its own
// accumulator: fixed (not the core count), so results do not depend on
// GOMAXPROCS.
const symParts = 8

// symvUpper sets y = A·x from the upper triangle of the symmetric A: row i
// contributes a_ii·x_i + Σ_{j>i} a_ij·x_j to y_i and a_ij·x_i to y_j. The
// rows are split into symParts parts of equal area; each part accumulates
// into its own vector, and the parts are summed in order.
func symvUpper(y []float64, a blas64.General, x []float64) {
	n := a.Rows
	symvByParts(y, n, triangleParts(n, symParts), func(acc []float64, lo, hi int) {
		symvRows(acc, a.Data, a.Stride, n, x, lo, hi)
	})
}

// symvByParts runs rows (symvRows or symvLowerRows on a matrix of order
// n) on the parts [bounds[p], bounds[p+1]) in parallel, each into its own
// accumulator, and sums the accumulators into y in order.
func symvByParts(y []float64, n int, bounds []int, rows func(acc []float64, lo, hi int)) {
	buf, _ := accPool.Get().(*[]float64)
	if buf == nil || cap(*buf) < symParts*n {
		buf = new([]float64)
		*buf = make([]float64, symParts*n)
	}
	defer accPool.Put(buf)
	acc := (*buf)[:symParts*n]
	clear(acc)
	ParallelFor(symParts, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			rows(acc[p*n:(p+1)*n], bounds[p], bounds[p+1])
		}
	})
	copy(y, acc[:n])
	for p := 1; p < symParts; p++ {
		part := acc[p*n : (p+1)*n]
		for i, v := range part {
			y[i] += v
		}
	}
}

// accPool keeps symvByParts' accumulators from one product to the next:
// an eigensolve's products would otherwise leave symParts·n floats each
// behind them (2.6 MB a product at n = 40,000: a 40,000-point Isomap's
// eigensolve allocated 41 MB, 26 MB with the pool, where the n×n matrix
// keeps the collector from running).
var accPool sync.Pool

// triangleParts splits rows [0, n) of an upper triangle into parts of about
// equal area: row i holds n − i elements.
func triangleParts(n, parts int) []int {
	b := make([]int, parts+1)
	total := float64(n) * float64(n+1) / 2
	row := 0
	acc := 0.0
	for p := 1; p < parts; p++ {
		target := total * float64(p) / float64(parts)
		for row < n && acc+float64(n-row) <= target {
			acc += float64(n - row)
			row++
		}
		b[p] = row
	}
	b[parts] = n
	return b
}

// symvRows adds the contributions of rows [lo, hi) of the upper triangle of
// the order-n matrix data (row stride given; float64, or float32 read into
// float64) to y. Four rows at a time share the loads of x and y: per
// element of A one load, two flam.
func symvRows[E element](y []float64, data []E, stride, n int, x []float64, lo, hi int) {
	i := lo
	for ; i+4 <= hi; i += 4 {
		r0 := data[i*stride : i*stride+n]
		r1 := data[(i+1)*stride : (i+1)*stride+n]
		r2 := data[(i+2)*stride : (i+2)*stride+n]
		r3 := data[(i+3)*stride : (i+3)*stride+n]
		x0, x1, x2, x3 := x[i], x[i+1], x[i+2], x[i+3]
		// The 4×4 diagonal block, from its upper triangle.
		s0 := float64(r0[i])*x0 + float64(r0[i+1])*x1 + float64(r0[i+2])*x2 + float64(r0[i+3])*x3
		s1 := float64(r0[i+1])*x0 + float64(r1[i+1])*x1 + float64(r1[i+2])*x2 + float64(r1[i+3])*x3
		s2 := float64(r0[i+2])*x0 + float64(r1[i+2])*x1 + float64(r2[i+2])*x2 + float64(r2[i+3])*x3
		s3 := float64(r0[i+3])*x0 + float64(r1[i+3])*x1 + float64(r2[i+3])*x2 + float64(r3[i+3])*x3
		t0 := r0[i+4:]
		t1, t2, t3 := r1[i+4:n], r2[i+4:n], r3[i+4:n]
		xs, ys := x[i+4:n], y[i+4:n]
		s0, s1, s2, s3 = symv4(t0, t1, t2, t3, xs, ys, x0, x1, x2, x3, s0, s1, s2, s3)
		y[i] += s0
		y[i+1] += s1
		y[i+2] += s2
		y[i+3] += s3
	}
	for ; i < hi; i++ {
		r0 := data[i*stride : i*stride+n]
		x0 := x[i]
		s0 := float64(r0[i]) * x0
		t0 := r0[i+1:]
		xs := x[i+1 : n]
		xs = xs[:len(t0)]
		ys := y[i+1 : n]
		ys = ys[:len(t0)]
		for k, v := range t0 {
			u := float64(v)
			s0 += u * xs[k]
			ys[k] += u * x0
		}
		y[i] += s0
	}
}

// element is the type of a stored matrix entry of the symmetric products.
type element interface{ float32 | float64 }

// symvLower sets y = A·x from the lower triangle of the symmetric A (a.Rows
// rows): row i contributes Σ_{j<i} a_ij·x_j + a_ii·x_i to y_i and a_ij·x_i
// to y_j. Parts, accumulators and their order as symvUpper.
func symvLower(y []float64, a blas64.General, x []float64) {
	n := a.Rows
	// Row i of the lower triangle holds i + 1 elements: the parts of the
	// upper triangle's split, mirrored.
	up := triangleParts(n, symParts)
	bounds := make([]int, symParts+1)
	for p := range bounds {
		bounds[p] = n - up[symParts-p]
	}
	symvByParts(y, n, bounds, func(acc []float64, lo, hi int) { symvLowerRows(acc, a, x, lo, hi) })
}

// symv4 is the inner loop of symvRows and symvLowerRows: four rows t0…t3
// of a triangle against xs, their dot products added in order to the sums
// s0…s3 (returned), and by symmetry their columns' contributions
// x0·t0 + … + x3·t3 added to ys. Per element of the triangle one load and
// two flam.
func symv4[E element](t0, t1, t2, t3 []E, xs, ys []float64, x0, x1, x2, x3, s0, s1, s2, s3 float64) (float64, float64, float64, float64) {
	t1, t2, t3 = t1[:len(t0)], t2[:len(t0)], t3[:len(t0)]
	xs, ys = xs[:len(t0)], ys[:len(t0)]
	for k, v := range t0 {
		u0, u1, u2, u3 := float64(v), float64(t1[k]), float64(t2[k]), float64(t3[k])
		xk := xs[k]
		s0 += u0 * xk
		s1 += u1 * xk
		s2 += u2 * xk
		s3 += u3 * xk
		ys[k] += (u0*x0 + u1*x1) + (u2*x2 + u3*x3)
	}
	return s0, s1, s2, s3
}

// symvLowerRows adds the contributions of rows [lo, hi) of the lower
// triangle to y, four rows at a time as symvRows.
func symvLowerRows(y []float64, a blas64.General, x []float64, lo, hi int) {
	i := lo
	for ; i+4 <= hi; i += 4 {
		r0 := a.Data[i*a.Stride : i*a.Stride+i+1]
		r1 := a.Data[(i+1)*a.Stride : (i+1)*a.Stride+i+2]
		r2 := a.Data[(i+2)*a.Stride : (i+2)*a.Stride+i+3]
		r3 := a.Data[(i+3)*a.Stride : (i+3)*a.Stride+i+4]
		x0, x1, x2, x3 := x[i], x[i+1], x[i+2], x[i+3]
		// The 4×4 diagonal block, from its lower triangle.
		s0 := r0[i]*x0 + r1[i]*x1 + r2[i]*x2 + r3[i]*x3
		s1 := r1[i]*x0 + r1[i+1]*x1 + r2[i+1]*x2 + r3[i+1]*x3
		s2 := r2[i]*x0 + r2[i+1]*x1 + r2[i+2]*x2 + r3[i+2]*x3
		s3 := r3[i]*x0 + r3[i+1]*x1 + r3[i+2]*x2 + r3[i+3]*x3
		t0 := r0[:i]
		t1, t2, t3 := r1[:i], r2[:i], r3[:i]
		xs, ys := x[:i], y[:i]
		s0, s1, s2, s3 = symv4(t0, t1, t2, t3, xs, ys, x0, x1, x2, x3, s0, s1, s2, s3)
		y[i] += s0
		y[i+1] += s1
		y[i+2] += s2
		y[i+3] += s3
	}
	for ; i < hi; i++ {
		r0 := a.Data[i*a.Stride : i*a.Stride+i+1]
		x0 := x[i]
		s0 := r0[i] * x0
		t0 := r0[:i]
		xs := x[:len(t0)]
		ys := y[:len(t0)]
		for k, u := range t0 {
			s0 += u * xs[k]
			ys[k] += u * x0
		}
		y[i] += s0
	}
}

// MulTransVecTo is MulVecTo (A is symmetric).
func (o FullSymOp) MulTransVecTo(dst, x []float64) { o.MulVecTo(dst, x) }

// MulBlockTo sets the n×b dst = A·X for the n×b X (n²·b flam, one pass
// over A).
func (o FullSymOp) MulBlockTo(dst, x blas64.General) {
	n := o.A.Rows
	if x.Rows != n || dst.Rows != n || dst.Cols != x.Cols {
		panic(fmt.Sprintf("backend: FullSymOp.MulBlockTo: A is %d×%d, X %d×%d, dst %d×%d", n, n, x.Rows, x.Cols, dst.Rows, dst.Cols))
	}
	b := x.Cols
	if n == 0 || b == 0 {
		return
	}
	if b == 1 {
		xc, yc := make([]float64, n), make([]float64, n)
		for i := 0; i < n; i++ {
			xc[i] = x.Data[i*x.Stride]
		}
		o.MulVecTo(yc, xc)
		for i := 0; i < n; i++ {
			dst.Data[i*dst.Stride] = yc[i]
		}
		return
	}
	// Xᵀ as b contiguous rows.
	xt := make([]float64, b*n)
	for i := 0; i < n; i++ {
		for c, v := range x.Data[i*x.Stride : i*x.Stride+b] {
			xt[c*n+i] = v
		}
	}
	if impl := o.impl(); impl != PureGo {
		// Yᵀ = Xᵀ·A (A = Aᵀ), then transpose back.
		yt := make([]float64, b*n)
		impl.Gemm(blas.NoTrans, blas.NoTrans, 1, blas64.General{Rows: b, Cols: n, Stride: n, Data: xt}, o.A,
			0, blas64.General{Rows: b, Cols: n, Stride: n, Data: yt})
		for i := 0; i < n; i++ {
			row := dst.Data[i*dst.Stride : i*dst.Stride+b]
			for c := range row {
				row[c] = yt[c*n+i]
			}
		}
		return
	}
	a := o.A
	ParallelFor(n, symRowGrain, func(lo, hi int) {
		symRows(dst, a, xt, n, b, lo, hi)
	})
}

// MulTransBlockTo is MulBlockTo (A is symmetric).
func (o FullSymOp) MulTransBlockTo(dst, x blas64.General) { o.MulBlockTo(dst, x) }

// symRows sets dst[i, c] = A[i,:]·xt[c,:] for rows lo ≤ i < hi: two rows of
// A against four vectors at a time, eight independent sums in registers.
func symRows(dst, a blas64.General, xt []float64, n, b, lo, hi int) {
	i := lo
	for ; i+2 <= hi; i += 2 {
		a0 := a.Data[i*a.Stride : i*a.Stride+n]
		a1 := a.Data[(i+1)*a.Stride : (i+1)*a.Stride+n]
		a1 = a1[:len(a0)]
		d0 := dst.Data[i*dst.Stride : i*dst.Stride+b]
		d1 := dst.Data[(i+1)*dst.Stride : (i+1)*dst.Stride+b]
		c := 0
		for ; c+4 <= b; c += 4 {
			x0 := xt[c*n : c*n+n]
			x1 := xt[(c+1)*n : (c+1)*n+n]
			x2 := xt[(c+2)*n : (c+2)*n+n]
			x3 := xt[(c+3)*n : (c+3)*n+n]
			x0, x1, x2, x3 = x0[:len(a0)], x1[:len(a0)], x2[:len(a0)], x3[:len(a0)]
			var s00, s01, s02, s03, s10, s11, s12, s13 float64
			for k, u := range a0 {
				v := a1[k]
				p0, p1, p2, p3 := x0[k], x1[k], x2[k], x3[k]
				s00 += u * p0
				s01 += u * p1
				s02 += u * p2
				s03 += u * p3
				s10 += v * p0
				s11 += v * p1
				s12 += v * p2
				s13 += v * p3
			}
			d0[c], d0[c+1], d0[c+2], d0[c+3] = s00, s01, s02, s03
			d1[c], d1[c+1], d1[c+2], d1[c+3] = s10, s11, s12, s13
		}
		for ; c < b; c++ {
			x0 := xt[c*n : c*n+n]
			x0 = x0[:len(a0)]
			var s0, s1 float64
			for k, u := range a0 {
				s0 += u * x0[k]
				s1 += a1[k] * x0[k]
			}
			d0[c], d1[c] = s0, s1
		}
	}
	for ; i < hi; i++ {
		ar := a.Data[i*a.Stride : i*a.Stride+n]
		d := dst.Data[i*dst.Stride : i*dst.Stride+b]
		for c := 0; c < b; c++ {
			d[c] = goBLAS.Ddot(n, ar, 1, xt[c*n:], 1)
		}
	}
}
