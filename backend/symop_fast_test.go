package backend_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// FullSymOp must agree with a naïve product for every block width (the
// kernel works on pairs of rows and groups of four vectors, with tails),
// for odd n and padded strides, on every backend.
func TestFullSymOp(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 7, 65, 130} {
		stride := n + 3
		a := blas64.General{Rows: n, Cols: n, Stride: stride, Data: make([]float64, n*stride)}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := rnd.NormFloat64()
				a.Data[i*stride+j], a.Data[j*stride+i] = v, v
			}
			for j := n; j < stride; j++ {
				a.Data[i*stride+j] = math.NaN() // padding must not be read
			}
		}
		naive := func(i int, x func(j int) float64) float64 {
			s := 0.0
			for j := 0; j < n; j++ {
				s += a.Data[i*stride+j] * x(j)
			}
			return s
		}
		for _, impl := range backend.Impls() {
			op := backend.FullSymOp{A: a, Impl: impl}
			if r, c := op.Dims(); r != n || c != n {
				t.Fatalf("Dims = %d×%d", r, c)
			}
			x := make([]float64, n)
			for i := range x {
				x[i] = rnd.NormFloat64()
			}
			y := make([]float64, n)
			op.MulVecTo(y, x)
			for i := 0; i < n; i++ {
				if want := naive(i, func(j int) float64 { return x[j] }); math.Abs(y[i]-want) > 1e-12*float64(n) {
					t.Fatalf("%s n=%d MulVecTo[%d] = %v, want %v", impl.Name(), n, i, y[i], want)
				}
			}
			for _, b := range []int{1, 2, 3, 4, 5, 8, 9} {
				xs, ds := b+1, b+2
				xb := blas64.General{Rows: n, Cols: b, Stride: xs, Data: make([]float64, n*xs)}
				for i := range xb.Data {
					xb.Data[i] = rnd.NormFloat64()
				}
				db := blas64.General{Rows: n, Cols: b, Stride: ds, Data: make([]float64, n*ds)}
				for i := range db.Data {
					db.Data[i] = math.Inf(1) // overwritten, padding untouched
				}
				op.MulBlockTo(db, xb)
				for i := 0; i < n; i++ {
					for c := 0; c < b; c++ {
						want := naive(i, func(j int) float64 { return xb.Data[j*xs+c] })
						if got := db.Data[i*ds+c]; math.Abs(got-want) > 1e-12*float64(n) {
							t.Fatalf("%s n=%d b=%d MulBlockTo[%d,%d] = %v, want %v", impl.Name(), n, b, i, c, got, want)
						}
					}
					for c := b; c < ds; c++ {
						if !math.IsInf(db.Data[i*ds+c], 1) {
							t.Fatalf("%s n=%d b=%d: padding of dst written", impl.Name(), n, b)
						}
					}
				}
			}
		}
	}
}

// FullSymOp32 agrees with a float64 product of its float32 entries (above
// and below the 64 rows where it switches to the triangle kernel, padded
// strides), gives the same bits whatever GOMAXPROCS, and its MulBlockTo
// agrees with its MulVecTo column by column.
func TestFullSymOp32(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 3, 63, 64, 65, 130, 1001} {
		stride := n + 3
		a := make([]float32, n*stride)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := float32(rnd.NormFloat64())
				a[i*stride+j], a[j*stride+i] = v, v
			}
			for j := n; j < stride; j++ {
				a[i*stride+j] = float32(math.NaN()) // padding must not be read
			}
		}
		op := backend.FullSymOp32{A: a, N: n, Stride: stride}
		x := make([]float64, n)
		for i := range x {
			x[i] = rnd.NormFloat64()
		}
		y := make([]float64, n)
		op.MulVecTo(y, x)
		for i := 0; i < n; i++ {
			want, norm := 0.0, 0.0
			for j := 0; j < n; j++ {
				want += float64(a[i*stride+j]) * x[j]
				norm += math.Abs(float64(a[i*stride+j]) * x[j])
			}
			if math.Abs(y[i]-want) > 1e-14*norm {
				t.Fatalf("n=%d MulVecTo[%d] = %v, want %v", n, i, y[i], want)
			}
		}
		old := runtime.GOMAXPROCS(1)
		y1 := make([]float64, n)
		op.MulVecTo(y1, x)
		runtime.GOMAXPROCS(old)
		for i := range y {
			if y1[i] != y[i] {
				t.Fatalf("n=%d: GOMAXPROCS 1 gives %v at %d, not %v", n, y1[i], i, y[i])
			}
		}
		const b = 3
		xb := blas64.General{Rows: n, Cols: b, Stride: b, Data: make([]float64, n*b)}
		for i := 0; i < n; i++ {
			for c := 0; c < b; c++ {
				xb.Data[i*b+c] = x[i] * float64(c+1)
			}
		}
		db := blas64.General{Rows: n, Cols: b, Stride: b, Data: make([]float64, n*b)}
		op.MulBlockTo(db, xb)
		for i := 0; i < n; i++ {
			for c := 0; c < b; c++ {
				want := y[i] * float64(c+1)
				if got := db.Data[i*b+c]; math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("n=%d MulBlockTo[%d,%d] = %v, want %v", n, i, c, got, want)
				}
			}
		}
	}
}

// BenchmarkFullSymOp times one product of a dense 5000×5000 symmetric
// matrix with a block of b vectors (b = 1: MulVecTo), against the backend's
// SymOp (Symv / Symm) and GeneralOp (Gemv / Gemm) on the same matrix.
func BenchmarkFullSymOp(bm *testing.B) {
	const n = 5000
	rnd := rand.New(rand.NewPCG(1, 2))
	a := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := rnd.NormFloat64()
			a.Data[i*n+j], a.Data[j*n+i] = v, v
		}
	}
	a32 := make([]float32, n*n)
	for i, v := range a.Data {
		a32[i] = float32(v)
	}
	ops := []struct {
		name string
		op   interface {
			MulVecTo(dst, x []float64)
			MulBlockTo(dst, x blas64.General)
		}
	}{
		{"full", backend.FullSymOp{A: a}},
		{"full32", backend.FullSymOp32{A: a32, N: n, Stride: n}},
		{"sym", backend.SymOp{A: blas64.Symmetric{N: n, Stride: n, Uplo: 'U', Data: a.Data}}},
		{"general", backend.GeneralOp{A: a}},
	}
	for _, o := range ops {
		for _, b := range []int{1, 4, 8, 16} {
			if o.name != "full" && o.name != "full32" && b > 8 {
				continue
			}
			x := blas64.General{Rows: n, Cols: b, Stride: b, Data: make([]float64, n*b)}
			for i := range x.Data {
				x.Data[i] = rnd.NormFloat64()
			}
			y := blas64.General{Rows: n, Cols: b, Stride: b, Data: make([]float64, n*b)}
			bm.Run(fmt.Sprintf("%s/b=%d", o.name, b), func(bm *testing.B) {
				for bm.Loop() {
					if b == 1 {
						o.op.MulVecTo(y.Data, x.Data)
					} else {
						o.op.MulBlockTo(y, x)
					}
				}
			})
		}
	}
}
