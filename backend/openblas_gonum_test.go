//go:build openblas && cgo

package backend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"
)

// The BLAS registered with gonum agrees with gonum's Go BLAS below and
// above the dispatch thresholds.
func TestGonumDispatch(t *testing.T) {
	d := blas64.Implementation()
	if _, ok := d.(gonumDispatch); !ok {
		t.Fatalf("blas64 is %T, want gonumDispatch", d)
	}
	var ref gonumblas.Implementation
	rnd := rand.New(rand.NewPCG(1, 2))
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rnd.NormFloat64()
		}
		return v
	}
	same := func(name string, n int, a, b []float64) {
		t.Helper()
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-11*float64(n)*(1+math.Abs(b[i])) {
				t.Fatalf("%s n=%d: [%d] = %v, Go BLAS %v", name, n, i, a[i], b[i])
			}
		}
	}
	for _, n := range []int{3, 10, 90} { // 3 and 10 below the thresholds, 90 above
		a, b := vec(n*n), vec(n*n)
		// A well-conditioned lower triangle for the solves.
		tri := append([]float64(nil), a...)
		for i := 0; i < n; i++ {
			tri[i*n+i] = float64(n) + math.Abs(tri[i*n+i])
		}
		c1, c2 := vec(n*n), make([]float64, n*n)
		copy(c2, c1)
		d.Dgemm(blas.NoTrans, blas.Trans, n, n, n, 1.5, a, n, b, n, 0.5, c1, n)
		ref.Dgemm(blas.NoTrans, blas.Trans, n, n, n, 1.5, a, n, b, n, 0.5, c2, n)
		same("Dgemm", n, c1, c2)
		d.Dsyrk(blas.Lower, blas.NoTrans, n, n, 1, a, n, 0, c1, n)
		ref.Dsyrk(blas.Lower, blas.NoTrans, n, n, 1, a, n, 0, c2, n)
		same("Dsyrk", n, c1, c2)
		copy(c1, b)
		copy(c2, b)
		d.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, n, n, 1, tri, n, c1, n)
		ref.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, n, n, 1, tri, n, c2, n)
		same("Dtrsm", n, c1, c2)
		x := vec(n)
		y1, y2 := vec(n), make([]float64, n)
		copy(y2, y1)
		d.Dgemv(blas.Trans, n, n, 2, a, n, x, 1, 1, y1, 1)
		ref.Dgemv(blas.Trans, n, n, 2, a, n, x, 1, 1, y2, 1)
		same("Dgemv", n, y1, y2)
		d.Dsymv(blas.Upper, n, 1, a, n, x, 1, 0, y1, 1)
		ref.Dsymv(blas.Upper, n, 1, a, n, x, 1, 0, y2, 1)
		same("Dsymv", n, y1, y2)
		copy(c1, a)
		copy(c2, a)
		d.Dsyr2(blas.Lower, n, 0.5, x, 1, y1, 1, c1, n)
		ref.Dsyr2(blas.Lower, n, 0.5, x, 1, y2, 1, c2, n)
		same("Dsyr2", n, c1, c2)
		d.Dger(n, n, 0.5, x, 1, y1, 1, c1, n)
		ref.Dger(n, n, 0.5, x, 1, y2, 1, c2, n)
		same("Dger", n, c1, c2)
	}
}

// Unless the environment sets it, OpenBLAS's idle workers spin 2^idleSpinExp
// cycles (the report's configuration says so), and threaded calls still
// run after the thread pool's restart.
func TestIdleSpin(t *testing.T) {
	if os.Getenv("OPENBLAS_THREAD_TIMEOUT") != "" || os.Getenv("GOTO_THREAD_TIMEOUT") != "" {
		if idleSpin != 0 {
			t.Errorf("the environment sets the spin, but idleSpin = %d", idleSpin)
		}
		t.Skip("the environment sets OpenBLAS's spin")
	}
	if idleSpin != idleSpinExp {
		t.Fatalf("idleSpin = %d, want %d", idleSpin, idleSpinExp)
	}
	if c := Info().Config; !strings.Contains(c, fmt.Sprintf("idle threads spin 2^%d cycles", idleSpinExp)) {
		t.Errorf("config %q does not say the spin", c)
	}
	n := 700 // large enough to run threaded (threaded3)
	a, b, c := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	for i := range a {
		a[i], b[i] = float64(i%7), float64(i%5)
	}
	blas64.Implementation().Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, c, n)
	want := 0.0
	for k := range n {
		want += a[k] * b[k*n]
	}
	if c[0] != want {
		t.Errorf("C[0,0] = %v, want %v", c[0], want)
	}
}

// The pure-Go backend's factorizations of small systems — LLE's, NPE's and
// landmark LLE's k×k reconstruction weights, one per point — make no cgo
// call in the openblas build: gonum's LAPACK reaches the C library only
// through gonumDispatch, whose level-3 threshold once sent a 10×10
// Cholesky solve (100 flam) there, two C calls a point, and the OpenBLAS
// worker it woke took the second core from the fit's goroutines (LLE's
// weights stage of 10⁵ digits 0.42 s → 0.80 s in the openblas build).
func TestSmallSolvesStayInGo(t *testing.T) {
	for _, k := range []int{5, 10, 25} {
		g := make([]float64, k*k)
		for i := 0; i < k; i++ {
			for j := 0; j <= i; j++ {
				v := 1 / float64(1+i+j)
				if i == j {
					v += float64(k)
				}
				g[i*k+j], g[j*k+i] = v, v
			}
		}
		a := blas64.Symmetric{N: k, Stride: k, Uplo: blas.Lower, Data: g}
		b := blas64.General{Rows: k, Cols: 1, Stride: 1, Data: make([]float64, k)}
		for i := range b.Data {
			b.Data[i] = 1
		}
		before := runtime.NumCgoCall()
		if err := PureGo.Potrf(a); err != nil {
			t.Fatal(err)
		}
		PureGo.Potrs(a, b)
		if calls := runtime.NumCgoCall() - before; calls != 0 {
			t.Errorf("k = %d: %d cgo calls in a pure-Go Cholesky solve", k, calls)
		}
	}
}

// Calls run threaded only from the sizes of threaded3, threaded2 and
// threadedLAPACK; the C library's setting follows each call, and
// OpenBLASDirect threads every call.
func TestThreadsBySize(t *testing.T) {
	defer SetThreads(0)
	SetThreads(0)
	many := Threads()
	gen := func(r, c int) blas64.General {
		return blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
	}
	sym := func(n int) blas64.Symmetric {
		a := make([]float64, n*n)
		for i := range n {
			a[i*n+i] = float64(i + 1)
		}
		return blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: a}
	}
	cases := []struct {
		name string
		call func()
		want int
	}{
		{"Gemm 100³", func() { Active().Gemm(blas.NoTrans, blas.NoTrans, 1, gen(100, 100), gen(100, 100), 0, gen(100, 100)) }, 1},
		{"Gemm 700³", func() { Active().Gemm(blas.NoTrans, blas.NoTrans, 1, gen(700, 700), gen(700, 700), 0, gen(700, 700)) }, many},
		{"Gemv 300×300", func() {
			Active().Gemv(blas.NoTrans, 1, gen(300, 300), blas64.Vector{N: 300, Inc: 1, Data: make([]float64, 300)}, 0, blas64.Vector{N: 300, Inc: 1, Data: make([]float64, 300)})
		}, 1},
		{"Gemv 2048×2048", func() {
			Active().Gemv(blas.NoTrans, 1, gen(2048, 2048), blas64.Vector{N: 2048, Inc: 1, Data: make([]float64, 2048)}, 0, blas64.Vector{N: 2048, Inc: 1, Data: make([]float64, 2048)})
		}, many},
		{"Syevr 300", func() {
			if err := Active().Syevr(sym(300), 298, 300, make([]float64, 2), gen(300, 2)); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"gonum's Dgemm 700³", func() {
			blas64.Implementation().Dgemm(blas.NoTrans, blas.NoTrans, 700, 700, 700, 1, make([]float64, 700*700), 700, make([]float64, 700*700), 700, 0, make([]float64, 700*700), 700)
		}, many},
		{"direct Syevr 300", func() {
			if err := OpenBLASDirect.Syevr(sym(300), 298, 300, make([]float64, 2), gen(300, 2)); err != nil {
				t.Fatal(err)
			}
		}, many},
	}
	for _, c := range cases {
		c.call()
		if got := blasThreadsNow(); got != c.want {
			t.Errorf("%s: the C library ran with %d threads, want %d", c.name, got, c.want)
		}
	}
	if c := Info().Config; !strings.Contains(c, fmt.Sprintf("%d threads for large calls, 1 for the others", many)) {
		t.Errorf("config %q does not state the rule", c)
	}
}
