package lobpcg_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/lobpcg"
)

// pathLaplacian is dst = L·src for the Laplacian of the path graph on n
// vertices (degree on the diagonal, −1 beside it): eigenvalues
// 2 − 2·cos(jπ/n), j = 0..n−1, eigenvectors cos((i + ½)·jπ/n), the
// constant one null.
func pathLaplacian(n int) func(ctx context.Context, dst, src blas64.General) error {
	return func(ctx context.Context, dst, src blas64.General) error {
		b := src.Cols
		for i := 0; i < n; i++ {
			d := dst.Data[i*dst.Stride : i*dst.Stride+b]
			s := src.Data[i*src.Stride : i*src.Stride+b]
			deg := 0.0
			clear(d)
			for j := i - 1; j <= i+1; j += 2 {
				if j < 0 || j >= n {
					continue
				}
				deg++
				for c, v := range src.Data[j*src.Stride : j*src.Stride+b] {
					d[c] -= v
				}
			}
			for c, v := range s {
				d[c] += deg * v
			}
		}
		return ctx.Err()
	}
}

func randomBlock(n, b int, seed uint64) blas64.General {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := blas64.General{Rows: n, Cols: b, Stride: b, Data: make([]float64, n*b)}
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	return x
}

// The smallest nonzero eigenvalues of a path graph's Laplacian, on the
// complement of its constant null vector, against the closed form, with
// and without a (Jacobi) preconditioner; the vectors are orthonormal,
// orthogonal to the constant, and eigenvectors to the tolerance.
func TestBottomPathLaplacian(t *testing.T) {
	const n, want, b = 200, 3, 5
	mul := pathLaplacian(n)
	u := make([]float64, n)
	for i := range u {
		u[i] = 1 / math.Sqrt(n)
	}
	norm, err := lobpcg.EstimateNorm(context.Background(), mul, n)
	if err != nil {
		t.Fatal(err)
	}
	if top := 2 - 2*math.Cos(float64(n-1)*math.Pi/n); norm > top || norm < 0.9*top {
		t.Fatalf("EstimateNorm = %v, want a lower bound within 10 %% of ‖L‖ = %v", norm, top)
	}
	jacobi := func(ctx context.Context, dst, src blas64.General) error {
		for i := 0; i < n; i++ {
			deg := 2.0
			if i == 0 || i == n-1 {
				deg = 1
			}
			for c := 0; c < src.Cols; c++ {
				dst.Data[i*dst.Stride+c] = src.Data[i*src.Stride+c] / deg
			}
		}
		return nil
	}
	for name, prec := range map[string]func(context.Context, blas64.General, blas64.General) error{"none": nil, "jacobi": jacobi} {
		res, err := lobpcg.Bottom(context.Background(), lobpcg.Problem{Mul: mul, Prec: prec, Null: u, Norm: norm, Want: want, Tol: 1e-10}, randomBlock(n, b, 7))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for j, v := range res.Values {
			exact := 2 - 2*math.Cos(float64(j+1)*math.Pi/n)
			if math.Abs(v-exact) > 1e-12 {
				t.Errorf("%s: value %d = %.15g, exact %.15g", name, j, v, exact)
			}
		}
		if !(res.Worst <= 1e-10) || res.Iterations < 1 {
			t.Errorf("%s: worst residual %v after %d iterations", name, res.Worst, res.Iterations)
		}
		v := res.Vectors
		lv := blas64.General{Rows: n, Cols: want, Stride: want, Data: make([]float64, n*want)}
		if err := mul(context.Background(), lv, v); err != nil {
			t.Fatal(err)
		}
		for a := 0; a < want; a++ {
			var su, res2 float64
			for i := 0; i < n; i++ {
				su += v.Data[i*want+a] * u[i]
				r := lv.Data[i*want+a] - res.Values[a]*v.Data[i*want+a]
				res2 += r * r
			}
			if math.Abs(su) > 1e-12 {
				t.Errorf("%s: vector %d has %v along the null vector", name, a, su)
			}
			if math.Sqrt(res2) > 1e-10*norm*1.0001 {
				t.Errorf("%s: vector %d residual %v", name, a, math.Sqrt(res2))
			}
			for c := 0; c <= a; c++ {
				var d float64
				for i := 0; i < n; i++ {
					d += v.Data[i*want+a] * v.Data[i*want+c]
				}
				if w := map[bool]float64{true: 1, false: 0}[a == c]; math.Abs(d-w) > 1e-12 {
					t.Errorf("%s: vᵀv[%d,%d] = %v", name, a, c, d)
				}
			}
		}
	}
}

// A solve that cannot converge in MaxIter, bad settings, a zero operator
// and a cancelled context give their errors.
func TestBottomErrors(t *testing.T) {
	const n = 100
	mul := pathLaplacian(n)
	ctx := context.Background()
	x := randomBlock(n, 4, 1)
	if _, err := lobpcg.Bottom(ctx, lobpcg.Problem{Mul: mul, Norm: 4, Want: 2, MaxIter: 2}, x); !errors.Is(err, lobpcg.ErrNotConverged) {
		t.Errorf("two iterations: %v, want ErrNotConverged", err)
	}
	for name, p := range map[string]lobpcg.Problem{
		"no product":      {Norm: 4, Want: 2},
		"want > block":    {Mul: mul, Norm: 4, Want: 5},
		"zero norm":       {Mul: mul, Want: 2},
		"null vector len": {Mul: mul, Norm: 4, Want: 2, Null: make([]float64, n-1)},
	} {
		if _, err := lobpcg.Bottom(ctx, p, x); !errors.Is(err, lobpcg.ErrSettings) {
			t.Errorf("%s: %v, want ErrSettings", name, err)
		}
	}
	zero := func(ctx context.Context, dst, src blas64.General) error { clear(dst.Data); return nil }
	if _, err := lobpcg.EstimateNorm(ctx, zero, n); !errors.Is(err, lobpcg.ErrBreakdown) {
		t.Errorf("zero operator: %v, want ErrBreakdown", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := lobpcg.Bottom(cctx, lobpcg.Problem{Mul: mul, Norm: 4, Want: 2}, x); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// The result is the same bit for bit whatever the number of goroutines.
func TestBottomDeterministic(t *testing.T) {
	const n = 3*4096 + 17 // several row chunks
	mul := pathLaplacian(n)
	solve := func(procs int) *lobpcg.Result {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res, err := lobpcg.Bottom(context.Background(), lobpcg.Problem{Mul: mul, Norm: 4, Want: 2, Tol: 1e-2, MaxIter: 200}, randomBlock(n, 4, 3))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := solve(1), solve(4)
	t.Logf("%d iterations", a.Iterations)
	if a.Iterations != b.Iterations {
		t.Fatalf("iterations %d at GOMAXPROCS 1, %d at 4", a.Iterations, b.Iterations)
	}
	av, bv := append(a.Values, a.Vectors.Data...), append(b.Values, b.Vectors.Data...)
	for i, v := range av {
		w := bv[i]
		if math.Float64bits(v) != math.Float64bits(w) {
			t.Fatalf("GOMAXPROCS 1 and 4 differ at %d: %v and %v", i, v, w)
		}
	}
}
