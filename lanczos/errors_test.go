package lanczos_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lanczos"
)

func diagOp(n int) lanczos.Func {
	return lanczos.Func{N: n, Mul: func(dst, x []float64) {
		for i := range dst {
			dst[i] = float64(i+1) * x[i]
		}
	}}
}

// Bad user input returns typed errors naming the problem, never a panic.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	op := diagOp(10)
	zero := make([]float64, 10)
	nan := make([]float64, 10)
	nan[3] = math.NaN()
	cases := []struct {
		name string
		op   lanczos.Operator
		s    lanczos.Settings
		want error
		text string
	}{
		{"empty", diagOp(0), lanczos.Settings{K: 1}, lanczos.ErrK, "empty"},
		{"K = n", op, lanczos.Settings{K: 10}, lanczos.ErrK, "K = 10"},
		{"K > n", op, lanczos.Settings{K: 11}, lanczos.ErrK, "K = 11"},
		{"K < 0", op, lanczos.Settings{K: -1}, lanczos.ErrK, "K = -1"},
		{"default K ≥ n", diagOp(6), lanczos.Settings{}, lanczos.ErrK, "K = 6"},
		{"Which", op, lanczos.Settings{Which: 7}, lanczos.ErrSettings, "Which"},
		{"BlockSize", op, lanczos.Settings{BlockSize: -2}, lanczos.ErrSettings, "BlockSize"},
		{"BasisSize < 0", op, lanczos.Settings{BasisSize: -1}, lanczos.ErrSettings, "BasisSize"},
		{"BasisSize small", op, lanczos.Settings{K: 3, BlockSize: 2, BasisSize: 4}, lanczos.ErrSettings, "BasisSize"},
		{"MaxRestarts", op, lanczos.Settings{MaxRestarts: -1}, lanczos.ErrSettings, "MaxRestarts"},
		{"Tol NaN", op, lanczos.Settings{Tol: math.NaN()}, lanczos.ErrSettings, "Tol"},
		{"Tol < 0", op, lanczos.Settings{Tol: -1}, lanczos.ErrSettings, "Tol"},
		{"Tol Inf", op, lanczos.Settings{Tol: math.Inf(1)}, lanczos.ErrSettings, "Tol"},
		{"Start zero", op, lanczos.Settings{Start: zero}, lanczos.ErrSettings, "zero"},
		{"Start NaN", op, lanczos.Settings{Start: nan}, lanczos.ErrNotFinite, "Start[3]"},
		{"operator NaN", lanczos.Func{N: 50, Mul: func(dst, x []float64) {
			for i := range dst {
				dst[i] = x[i]
			}
			dst[7] = math.NaN()
		}}, lanczos.Settings{K: 2}, lanczos.ErrNotFinite, "NaN"},
		{"operator Inf, dense path", lanczos.Func{N: 2, Mul: func(dst, x []float64) {
			for i := range dst {
				dst[i] = math.Inf(1)
			}
		}}, lanczos.Settings{K: 1}, lanczos.ErrNotFinite, "Inf"},
	}
	for _, c := range cases {
		res, err := lanczos.Solve(ctx, c.op, c.s)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: error %q does not name %q", c.name, err, c.text)
		}
		if res != nil {
			t.Errorf("%s: a Result with the error", c.name)
		}
	}
	if !errors.Is(lanczos.ErrNotFinite, backend.ErrNotFinite) {
		t.Error("ErrNotFinite is not backend.ErrNotFinite")
	}
}

// Programmer errors panic with a clear message.
func TestPanics(t *testing.T) {
	mustPanic := func(name, text string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			if r == nil {
				t.Errorf("%s: no panic", name)
				return
			}
			if !strings.Contains(r.(string), text) {
				t.Errorf("%s: panic %q does not say %q", name, r, text)
			}
		}()
		f()
	}
	mustPanic("non-square", "not square", func() {
		lanczos.Solve(context.Background(), rect{}, lanczos.Settings{K: 1})
	})
	mustPanic("Start length", "Start has length", func() {
		lanczos.Solve(context.Background(), diagOp(10), lanczos.Settings{K: 1, Start: make([]float64, 9)})
	})
	mustPanic("Func lengths", "length", func() {
		diagOp(10).MulVecTo(make([]float64, 9), make([]float64, 10))
	})
}

type rect struct{}

func (rect) Dims() (int, int)          { return 3, 4 }
func (rect) MulVecTo(dst, x []float64) {}

// MaxRestarts reached: Status NotConverged, an error wrapping
// ErrNotConverged, and the best approximations so far.
func TestNotConverged(t *testing.T) {
	rnd := rand.New(rand.NewPCG(21, 22))
	const n = 400
	// A hard spectrum: the top eigenvalues are packed at the edge.
	lam := make([]float64, n)
	for i := range lam {
		lam[i] = math.Sqrt(float64(i) / n)
	}
	a := withSpectrum(rnd, lam)
	res, err := lanczos.Solve(context.Background(), backend.FullSymOp{A: a}, lanczos.Settings{K: 6, BlockSize: 1, BasisSize: 14, MaxRestarts: 2})
	if !errors.Is(err, lanczos.ErrNotConverged) {
		t.Fatalf("error %v, want ErrNotConverged", err)
	}
	if res == nil || res.Status != lanczos.NotConverged || res.Converged >= 6 || res.Stats.Restarts != 2 {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(err.Error(), "of 6 eigenpairs") {
		t.Errorf("error %q does not say how many converged", err)
	}
	if len(res.Values) != 6 || res.Vectors.Rows != n || res.Vectors.Cols != 6 {
		t.Fatalf("no approximations returned")
	}
	// Approximations are still Ritz pairs: values within the spectrum, in
	// order.
	for i, v := range res.Values {
		if v > 1+1e-12 || (i > 0 && v > res.Values[i-1]) {
			t.Errorf("value %d = %v", i, v)
		}
	}
}

// Cancellation before and during the iteration returns promptly with
// Status Canceled and an error wrapping the context's error.
func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := lanczos.Solve(ctx, diagOp(100), lanczos.Settings{K: 2})
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != lanczos.Canceled {
		t.Fatalf("canceled before: %v, %+v", err, res)
	}

	// Cancel from inside the 10th product; the solver must stop after the
	// step in progress.
	const n = 300
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	slow := lanczos.Func{N: n, Mul: func(dst, x []float64) {
		calls++
		if calls == 10 {
			cancel()
		}
		for i := range dst {
			dst[i] = math.Sqrt(float64(i)) * x[i]
		}
	}}
	res, err = lanczos.Solve(ctx, slow, lanczos.Settings{K: 5, BlockSize: 2, Tol: 1e-10})
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != lanczos.Canceled {
		t.Fatalf("canceled during: %v, %+v", err, res)
	}
	if calls > 10 || res.Stats.MatVecs != 10 {
		t.Errorf("%d products after cancelling at the 10th (stats %d)", calls, res.Stats.MatVecs)
	}

	// A deadline. Each product takes 2 ms, longer than the deadline, so the
	// solve (3 products to converge on this spectrum) cannot end first.
	// The return must come within 100 ms; on a loaded machine a sleeping
	// goroutine can wake late, so the case runs up to three times and
	// fails when none returns in time (a solver that ignored the deadline
	// would run its 1000 restarts every time).
	slowest := lanczos.Func{N: n, Mul: func(dst, x []float64) {
		time.Sleep(2 * time.Millisecond)
		copy(dst, x)
		dst[0] *= 2
	}}
	var times []time.Duration
	for try := 0; try < 3; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		start := time.Now()
		res, err = lanczos.Solve(ctx, slowest, lanczos.Settings{K: 3, MaxRestarts: 1000})
		el := time.Since(start)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || res.Status != lanczos.Canceled {
			t.Fatalf("deadline: %v, %+v", err, res)
		}
		if times = append(times, el); el <= 100*time.Millisecond {
			return
		}
	}
	t.Errorf("returned %v after a 1 ms deadline (three tries)", times)
}

func TestStrings(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{lanczos.Largest.String(), "largest"},
		{lanczos.Smallest.String(), "smallest"},
		{lanczos.Which(5).String(), "Which(5)"},
		{lanczos.Converged.String(), "converged"},
		{lanczos.NotConverged.String(), "not converged"},
		{lanczos.Canceled.String(), "canceled"},
		{lanczos.Status(9).String(), "Status(9)"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}
