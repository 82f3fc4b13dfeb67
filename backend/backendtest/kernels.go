package backendtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// TestSqDist checks the distance kernel against Σ(x−y)² on shapes that
// cross the tile size, with padding, duplicated rows (exactly 0), the
// symmetric self case (exact zero diagonal, symmetric result) and NaN input.
func TestSqDist(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(20, 1))
	for _, sh := range [][3]int{{0, 0, 3}, {1, 1, 1}, {3, 5, 0}, {7, 4, 3}, {600, 530, 9}, {520, 1030, 2}} {
		m, n, dim := sh[0], sh[1], sh[2]
		for _, self := range []bool{false, true} {
			if self {
				n = m
			}
			x := general(rnd, m, dim, dim+1)
			// Offset the data so the Gram formula would cancel badly.
			for i := 0; i < m; i++ {
				for j := 0; j < dim; j++ {
					x.Data[i*x.Stride+j] += 100
				}
			}
			y := x
			if !self {
				y = general(rnd, n, dim, dim+2)
				for i := 0; i < n; i++ {
					for j := 0; j < dim; j++ {
						y.Data[i*y.Stride+j] += 100
					}
				}
				// Rows of y that duplicate rows of x.
				for i := 0; i < min(m, n); i += 3 {
					copy(y.Data[i*y.Stride:i*y.Stride+dim], x.Data[i*x.Stride:i*x.Stride+dim])
				}
			} else if m > 4 {
				copy(x.Data[4*x.Stride:4*x.Stride+dim], x.Data[1*x.Stride:1*x.Stride+dim])
			}
			dst := general(rnd, m, n, n+1)
			name := fmt.Sprintf("SqDist %d×%d D=%d self=%v", m, n, dim, self)
			if err := backend.SqDistCtx(context.Background(), impl, dst, x, y, nil, nil); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					want := 0.0
					for l := 0; l < dim; l++ {
						d := at(x, i, l) - at(y, j, l)
						want += d * d
					}
					got := at(dst, i, j)
					if got < 0 || math.Abs(got-want) > 1e-9*(want+1e-3) {
						t.Fatalf("%s: d[%d,%d] = %v, want %v", name, i, j, got, want)
					}
					if want == 0 && got != 0 {
						t.Fatalf("%s: identical rows %d,%d give %v, not exactly 0", name, i, j, got)
					}
					if self && got != at(dst, j, i) {
						t.Fatalf("%s: not symmetric at %d,%d", name, i, j)
					}
				}
			}
			if !paddingIntact(dst) {
				t.Errorf("%s: padding written", name)
			}
		}
	}
	x := general(rnd, 3, 2, 2)
	x.Data[3] = math.NaN()
	if err := backend.SqDistCtx(context.Background(), impl, general(rnd, 3, 3, 3), x, x, nil, nil); !errors.Is(err, backend.ErrNotFinite) {
		t.Errorf("SqDist with NaN: error %v, want ErrNotFinite", err)
	}
}

// TestDoubleCenter checks B = −½·H·S·H against the explicit product, with
// and without precomputed row means, and the float32 variant.
func TestDoubleCenter(t *testing.T, impl backend.Impl) {
	_ = impl // the kernel is pure Go in every backend
	rnd := rand.New(rand.NewPCG(21, 1))
	for _, n := range []int{0, 1, 2, 7, 150} {
		pts := general(rnd, n, 3, 3)
		s := blas64.General{Rows: n, Cols: n, Stride: n + 1, Data: make([]float64, n*(n+1))}
		for i := 0; i < n; i++ {
			s.Data[i*s.Stride+n] = sentinel
			for j := 0; j < n; j++ {
				d := 0.0
				for l := 0; l < 3; l++ {
					v := at(pts, i, l) - at(pts, j, l)
					d += v * v
				}
				s.Data[i*s.Stride+j] = d
			}
		}
		// want = −½·H·S·H explicitly.
		want := make([]float64, n*n)
		h := func(i, j int) float64 {
			v := -1 / float64(n)
			if i == j {
				v++
			}
			return v
		}
		tmp := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				for l := 0; l < n; l++ {
					tmp[i*n+j] += h(i, l) * at(s, l, j)
				}
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				for l := 0; l < n; l++ {
					want[i*n+j] += -0.5 * tmp[i*n+l] * h(l, j)
				}
			}
		}
		s32 := make([]float32, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				s32[i*n+j] = float32(at(s, i, j))
			}
		}
		for _, pre := range []bool{false, true} {
			c := cloneGeneral(s)
			var means []float64
			if pre {
				means = backend.RowMeans(c)
			}
			_ = backend.DoubleCenterCtx(context.Background(), c, means)
			for i := 0; i < n*n; i++ {
				if got := at(c, i/n, i%n); math.Abs(got-want[i]) > 1e-12*float64(n+1)*10 {
					t.Fatalf("DoubleCenter n=%d pre=%v: b[%d,%d] = %v, want %v", n, pre, i/n, i%n, got, want[i])
				}
			}
			if !paddingIntact(c) {
				t.Errorf("DoubleCenter n=%d: padding written", n)
			}
		}
		c32 := append([]float32(nil), s32...)
		_ = backend.DoubleCenter32Ctx(context.Background(), c32, n, n, nil)
		for i := 0; i < n*n; i++ {
			if math.Abs(float64(c32[i])-want[i]) > 1e-5*(1+math.Abs(want[i])) {
				t.Fatalf("DoubleCenter32 n=%d: b[%d] = %v, want %v", n, i, c32[i], want[i])
			}
		}
	}
}

// TestEigTopBottom checks the index-range helpers: order, agreement with the
// reference spectrum, residuals and the sign convention.
func TestEigTopBottom(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(22, 1))
	for _, n := range []int{1, 6, 60, 230} {
		k := min(n, 5)
		a := randomSym(rnd, n, n)
		full := symFull(a)
		var ref []float64
		if n <= 100 {
			ref = referenceEigenvalues(full, n)
		}
		for _, top := range []bool{true, false} {
			c := cloneSym(a)
			var w []float64
			var z blas64.General
			var err error
			if top {
				w, z, err = backend.EigTopCtx(context.Background(), impl, c, k)
			} else {
				w, z, err = backend.EigBottomCtx(context.Background(), impl, c, k)
			}
			if err != nil {
				t.Fatalf("EigTop/Bottom n=%d: %v", n, err)
			}
			name := fmt.Sprintf("Eig top=%v n=%d", top, n)
			for j := 1; j < k; j++ {
				if (top && w[j] > w[j-1]) || (!top && w[j] < w[j-1]) {
					t.Errorf("%s: order wrong: %v", name, w)
				}
			}
			if ref != nil {
				for j := 0; j < k; j++ {
					want := ref[j]
					if top {
						want = ref[n-1-j]
					}
					if math.Abs(w[j]-want) > 1e-10*math.Sqrt(float64(n)) {
						t.Errorf("%s: λ%d = %v, want %v", name, j, w[j], want)
					}
				}
			}
			if r := eigResidual(full, n, w, z); r > 1e-11*float64(n) {
				t.Errorf("%s: residual %g", name, r)
			}
			checkSigns(t, name, z)
		}
	}
}

// checkSigns checks the sign convention: every column's largest-magnitude
// component is positive.
func checkSigns(t *testing.T, name string, z blas64.General) {
	t.Helper()
	for j := 0; j < z.Cols; j++ {
		best, arg := -1.0, 0
		for i := 0; i < z.Rows; i++ {
			if a := math.Abs(at(z, i, j)); a > best {
				best, arg = a, i
			}
		}
		if at(z, arg, j) < 0 {
			t.Errorf("%s: column %d breaks the sign convention", name, j)
		}
	}
}

// TestSymUpperLower is a regression guard: results must not depend on which
// triangle holds the matrix.
func TestSymUpperLower(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(23, 1))
	n := 40
	a := randomSym(rnd, n, n)
	lo, up := cloneSym(a), cloneSym(a)
	up.Uplo = blas.Upper
	spoilOtherTriangle(lo)
	spoilOtherTriangle(up)
	w1, w2 := make([]float64, 3), make([]float64, 3)
	z1 := blas64.General{Rows: n, Cols: 3, Stride: 3, Data: make([]float64, 3*n)}
	z2 := blas64.General{Rows: n, Cols: 3, Stride: 3, Data: make([]float64, 3*n)}
	if err := impl.Syevr(lo, n-3, n, w1, z1); err != nil {
		t.Fatal(err)
	}
	if err := impl.Syevr(up, n-3, n, w2, z2); err != nil {
		t.Fatal(err)
	}
	for i := range w1 {
		if math.Abs(w1[i]-w2[i]) > 1e-12*float64(n) {
			t.Errorf("Syevr lower %v vs upper %v", w1, w2)
			break
		}
	}
	for i := range z1.Data {
		if math.Abs(z1.Data[i]-z2.Data[i]) > 1e-9 {
			t.Errorf("Syevr vectors differ between triangles (sign convention not applied?)")
			break
		}
	}
}
