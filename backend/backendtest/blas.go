package backendtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// closeTo reports |got − want| ≤ tol·(1 + |want|).
func closeTo(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*(1+math.Abs(want))
}

// blasSizes are the (m, n, k) shapes every level-3 test runs: empty, one,
// non-square and large enough to cross the C backend's dispatch threshold.
var blasSizes = [][3]int{
	{0, 0, 0}, {0, 3, 2}, {3, 0, 2}, {3, 2, 0}, {1, 1, 1}, {1, 7, 3}, {7, 1, 3},
	{5, 4, 3}, {17, 9, 33}, {64, 65, 66}, {130, 97, 120},
}

// strides are the extra columns of padding tried for every operand.
var strides = []int{0, 3}

func opShape(t blas.Transpose, r, c int) (int, int) {
	if t == blas.NoTrans {
		return r, c
	}
	return c, r
}

// TestGemm checks Gemm against naïve loops for all transposes, shapes,
// padding, alpha and beta, and that beta = 0 ignores NaN already in C.
func TestGemm(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(1, 1))
	for _, sz := range blasSizes {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				for _, pad := range strides {
					for _, ab := range [][2]float64{{1, 0}, {-0.5, 1.5}} {
						alpha, beta := ab[0], ab[1]
						ar, ac := opShape(tA, m, k)
						br, bc := opShape(tB, k, n)
						a := general(rnd, ar, ac, ac+pad)
						b := general(rnd, br, bc, bc+pad)
						c := general(rnd, m, n, n+pad)
						if beta == 0 {
							for i := 0; i < m; i++ {
								for j := 0; j < n; j++ {
									c.Data[i*c.Stride+j] = math.NaN()
								}
							}
						}
						want := cloneGeneral(c)
						for i := 0; i < m; i++ {
							for j := 0; j < n; j++ {
								s := 0.0
								for l := 0; l < k; l++ {
									var x, y float64
									if tA == blas.NoTrans {
										x = at(a, i, l)
									} else {
										x = at(a, l, i)
									}
									if tB == blas.NoTrans {
										y = at(b, l, j)
									} else {
										y = at(b, j, l)
									}
									s += x * y
								}
								old := 0.0
								if beta != 0 {
									old = beta * at(want, i, j)
								}
								want.Data[i*want.Stride+j] = alpha*s + old
							}
						}
						impl.Gemm(tA, tB, alpha, a, b, beta, c)
						name := fmt.Sprintf("Gemm %c%c m=%d n=%d k=%d pad=%d alpha=%g beta=%g", tA, tB, m, n, k, pad, alpha, beta)
						compareGeneral(t, name, c, want, float64(k+2)*4*eps)
					}
				}
			}
		}
	}
}

func compareGeneral(t *testing.T, name string, got, want blas64.General, tol float64) {
	t.Helper()
	for i := 0; i < got.Rows; i++ {
		for j := 0; j < got.Cols; j++ {
			g, w := at(got, i, j), at(want, i, j)
			if !closeTo(g, w, tol*10) {
				t.Errorf("%s: [%d,%d] = %v, want %v", name, i, j, g, w)
				return
			}
		}
	}
	if !paddingIntact(got) {
		t.Errorf("%s: padding of the output was written", name)
	}
}

// TestSyrk checks Syrk against naïve loops; only the triangle c.Uplo may change.
func TestSyrk(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(2, 1))
	for _, sz := range blasSizes {
		n, k := sz[0], sz[2]
		for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, uplo := range []blas.Uplo{blas.Lower, blas.Upper} {
				for _, pad := range strides {
					ar, ac := opShape(tr, n, k)
					a := general(rnd, ar, ac, ac+pad)
					cg := general(rnd, n, n, n+pad)
					c := blas64.Symmetric{N: n, Stride: cg.Stride, Data: cg.Data, Uplo: uplo}
					want := cloneGeneral(cg)
					alpha, beta := 0.7, -1.3
					for i := 0; i < n; i++ {
						for j := 0; j < n; j++ {
							if (uplo == blas.Lower && j > i) || (uplo == blas.Upper && j < i) {
								continue
							}
							s := 0.0
							for l := 0; l < k; l++ {
								if tr == blas.NoTrans {
									s += at(a, i, l) * at(a, j, l)
								} else {
									s += at(a, l, i) * at(a, l, j)
								}
							}
							want.Data[i*want.Stride+j] = alpha*s + beta*at(want, i, j)
						}
					}
					impl.Syrk(tr, alpha, a, beta, c)
					compareGeneral(t, fmt.Sprintf("Syrk %c %c n=%d k=%d pad=%d", tr, uplo, n, k, pad), cg, want, float64(k+2)*4*eps)
				}
			}
		}
	}
}

// TestSymm checks Symm against naïve loops, reading A from its triangle only.
func TestSymm(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(3, 1))
	for _, sz := range blasSizes {
		m, n := sz[0], sz[1]
		for _, side := range []blas.Side{blas.Left, blas.Right} {
			for _, uplo := range []blas.Uplo{blas.Lower, blas.Upper} {
				for _, pad := range strides {
					na := m
					if side == blas.Right {
						na = n
					}
					a := randomSym(rnd, na, na+pad)
					a.Uplo = uplo
					full := symFull(a)
					spoilOtherTriangle(a)
					b := general(rnd, m, n, n+pad)
					c := general(rnd, m, n, n+pad)
					want := cloneGeneral(c)
					alpha, beta := -1.1, 0.4
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							s := 0.0
							if side == blas.Left {
								for l := 0; l < m; l++ {
									s += full[i*m+l] * at(b, l, j)
								}
							} else {
								for l := 0; l < n; l++ {
									s += at(b, i, l) * full[l*n+j]
								}
							}
							want.Data[i*want.Stride+j] = alpha*s + beta*at(want, i, j)
						}
					}
					impl.Symm(side, alpha, a, b, beta, c)
					compareGeneral(t, fmt.Sprintf("Symm %c %c m=%d n=%d pad=%d", side, uplo, m, n, pad), c, want, float64(na+2)*4*eps)
				}
			}
		}
	}
}

// vector returns a random vector of length n with increment inc (padding NaN).
func vector(rnd *rand.Rand, n, inc int) blas64.Vector {
	d := make([]float64, max(1, (n-1)*inc+1))
	for i := range d {
		d[i] = math.NaN()
	}
	for i := 0; i < n; i++ {
		d[i*inc] = rnd.NormFloat64()
	}
	if n == 0 {
		d = nil
	}
	return blas64.Vector{N: n, Inc: inc, Data: d}
}

// TestGemv checks Gemv against naïve loops, with unit and non-unit increments.
func TestGemv(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(4, 1))
	for _, sz := range blasSizes {
		m, n := sz[0], sz[1]
		for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, pad := range strides {
				for _, inc := range []int{1, 2} {
					a := general(rnd, m, n, n+pad)
					lx, ly := n, m
					if tr == blas.Trans {
						lx, ly = m, n
					}
					x := vector(rnd, lx, inc)
					y := vector(rnd, ly, inc)
					alpha, beta := 1.3, -0.2
					want := make([]float64, ly)
					for i := 0; i < ly; i++ {
						s := 0.0
						for l := 0; l < lx; l++ {
							if tr == blas.NoTrans {
								s += at(a, i, l) * x.Data[l*inc]
							} else {
								s += at(a, l, i) * x.Data[l*inc]
							}
						}
						want[i] = alpha*s + beta*y.Data[i*inc]
					}
					impl.Gemv(tr, alpha, a, x, beta, y)
					for i := 0; i < ly; i++ {
						if !closeTo(y.Data[i*inc], want[i], float64(lx+2)*40*eps) {
							t.Errorf("Gemv %c m=%d n=%d pad=%d inc=%d: y[%d] = %v, want %v", tr, m, n, pad, inc, i, y.Data[i*inc], want[i])
							break
						}
					}
				}
			}
		}
	}
}

// TestSymv checks Symv against naïve loops, reading A from its triangle only.
func TestSymv(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(5, 1))
	for _, sz := range blasSizes {
		n := sz[0]
		for _, uplo := range []blas.Uplo{blas.Lower, blas.Upper} {
			for _, pad := range strides {
				a := randomSym(rnd, n, n+pad)
				a.Uplo = uplo
				full := symFull(a)
				spoilOtherTriangle(a)
				x := vector(rnd, n, 1)
				y := vector(rnd, n, 1)
				alpha, beta := -0.9, 2.0
				want := make([]float64, n)
				for i := 0; i < n; i++ {
					s := 0.0
					for l := 0; l < n; l++ {
						s += full[i*n+l] * x.Data[l]
					}
					want[i] = alpha*s + beta*y.Data[i]
				}
				impl.Symv(alpha, a, x, beta, y)
				for i := 0; i < n; i++ {
					if !closeTo(y.Data[i], want[i], float64(n+2)*40*eps) {
						t.Errorf("Symv %c n=%d pad=%d: y[%d] = %v, want %v", uplo, n, pad, i, y.Data[i], want[i])
						break
					}
				}
			}
		}
	}
}
