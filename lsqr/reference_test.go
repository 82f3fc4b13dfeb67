package lsqr_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lsqr"
)

// qrSolve returns the least-squares solution of the full-rank m×n A
// (m ≥ n) by Householder QR: x = R⁻¹·Qᵀ·b.
func qrSolve(t *testing.T, a blas64.General, b []float64) []float64 {
	m, n := a.Rows, a.Cols
	f := blas64.General{Rows: m, Cols: n, Stride: n, Data: append([]float64(nil), a.Data...)}
	tau := make([]float64, n)
	backend.PureGo.Geqrf(f, tau)
	r := append([]float64(nil), f.Data...)
	backend.PureGo.Orgqr(f, tau)
	qtb := make([]float64, n)
	backend.PureGo.Gemv(blas.Trans, 1, f, vec(b), 0, vec(qtb))
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := qtb[i]
		for j := i + 1; j < n; j++ {
			s -= r[i*n+j] * x[j]
		}
		x[i] = s / r[i*n+i]
	}
	return x
}

// minNormSolve returns the minimum-norm solution of the full-row-rank
// m×n A·x = b (m < n) by QR of Aᵀ = Q·R: x = Q·R⁻ᵀ·b.
func minNormSolve(t *testing.T, a blas64.General, b []float64) []float64 {
	m, n := a.Rows, a.Cols
	at := blas64.General{Rows: n, Cols: m, Stride: m, Data: make([]float64, n*m)}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			at.Data[j*m+i] = a.Data[i*n+j]
		}
	}
	tau := make([]float64, m)
	backend.PureGo.Geqrf(at, tau)
	r := append([]float64(nil), at.Data...)
	backend.PureGo.Orgqr(at, tau)
	y := make([]float64, m) // Rᵀ·y = b
	for i := 0; i < m; i++ {
		s := b[i]
		for j := 0; j < i; j++ {
			s -= r[j*m+i] * y[j]
		}
		y[i] = s / r[i*m+i]
	}
	x := make([]float64, n)
	backend.PureGo.Gemv(blas.NoTrans, 1, at, vec(y), 0, vec(x))
	return x
}

// pinvSolve returns the minimum-norm least-squares solution A⁺·b by the
// SVD, singular values below 1e-10·σ₁ taken as zero.
func pinvSolve(t *testing.T, a blas64.General, b []float64) []float64 {
	m, n := a.Rows, a.Cols
	k := min(m, n)
	c := blas64.General{Rows: m, Cols: n, Stride: n, Data: append([]float64(nil), a.Data...)}
	sv := make([]float64, k)
	u := blas64.General{Rows: m, Cols: k, Stride: k, Data: make([]float64, m*k)}
	vt := blas64.General{Rows: k, Cols: n, Stride: n, Data: make([]float64, k*n)}
	if err := backend.PureGo.Gesdd(c, sv, u, vt); err != nil {
		t.Fatal(err)
	}
	utb := make([]float64, k)
	backend.PureGo.Gemv(blas.Trans, 1, u, vec(b), 0, vec(utb))
	for i := range utb {
		if sv[i] > 1e-10*sv[0] {
			utb[i] /= sv[i]
		} else {
			utb[i] = 0
		}
	}
	x := make([]float64, n)
	backend.PureGo.Gemv(blas.Trans, 1, vt, vec(utb), 0, vec(x))
	return x
}

// ridgeSolve solves the normal equations (AᵀA + damp²I)·x = Aᵀb by
// Cholesky.
func ridgeSolve(t *testing.T, a blas64.General, b []float64, damp float64) []float64 {
	n := a.Cols
	g := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: make([]float64, n*n)}
	backend.PureGo.Syrk(blas.Trans, 1, a, 0, g)
	for i := 0; i < n; i++ {
		g.Data[i*n+i] += damp * damp
	}
	if err := backend.PureGo.Potrf(g); err != nil {
		t.Fatal(err)
	}
	x := blas64.General{Rows: n, Cols: 1, Stride: 1, Data: make([]float64, n)}
	backend.PureGo.Gemv(blas.Trans, 1, a, vec(b), 0, vec(x.Data))
	backend.PureGo.Potrs(g, x)
	return x.Data
}

// Over- and under-determined, rank-deficient and damped problems against
// direct solutions by QR, the SVD and Cholesky of the normal equations.
func TestAgainstDirect(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	type problem struct {
		name string
		a    blas64.General
		b    []float64
		damp float64
		want []float64
	}
	var ps []problem
	// Overdetermined, inconsistent.
	a := randGeneral(rnd, 80, 30)
	b := randVec(rnd, 80)
	ps = append(ps, problem{"overdetermined", a, b, 0, qrSolve(t, a, b)})
	// Square, consistent.
	a = randGeneral(rnd, 40, 40)
	x0 := randVec(rnd, 40)
	b = make([]float64, 40)
	backend.PureGo.Gemv(blas.NoTrans, 1, a, vec(x0), 0, vec(b))
	ps = append(ps, problem{"square", a, b, 0, x0})
	// Underdetermined: the minimum-norm solution.
	a = randGeneral(rnd, 30, 80)
	b = randVec(rnd, 30)
	ps = append(ps, problem{"underdetermined", a, b, 0, minNormSolve(t, a, b)})
	// Rank-deficient (rank 12 of 60×40): the minimum-norm least-squares
	// solution.
	l, r := randGeneral(rnd, 60, 12), randGeneral(rnd, 12, 40)
	a = blas64.General{Rows: 60, Cols: 40, Stride: 40, Data: make([]float64, 60*40)}
	backend.PureGo.Gemm(blas.NoTrans, blas.NoTrans, 1, l, r, 0, a)
	b = randVec(rnd, 60)
	ps = append(ps, problem{"rank-deficient", a, b, 0, pinvSolve(t, a, b)})
	// Damped (ridge), over- and underdetermined.
	a = randGeneral(rnd, 70, 50)
	b = randVec(rnd, 70)
	ps = append(ps, problem{"damped", a, b, 2.5, ridgeSolve(t, a, b, 2.5)})
	a = randGeneral(rnd, 20, 50)
	b = randVec(rnd, 20)
	ps = append(ps, problem{"damped-underdetermined", a, b, 0.7, ridgeSolve(t, a, b, 0.7)})

	for _, p := range ps {
		for opName, op := range map[string]lsqr.Operator{
			"dense": backend.GeneralOp{A: p.a}, "func": funcOp{p.a},
		} {
			name := p.name + "/" + opName
			res, err := lsqr.Solve(context.Background(), op, p.b, lsqr.Settings{Damp: p.damp, ATol: 1e-16, BTol: 1e-16, IterLim: 1000})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !res.Status.Converged() {
				t.Errorf("%s: %v after %d iterations", name, res.Status, res.Iterations)
			}
			if d := relDiff(res.X, p.want); d > 1e-9 {
				t.Errorf("%s: x is %.2e from the direct solution (%v, %d iterations)", name, d, res.Status, res.Iterations)
			}
			t.Logf("%s: %v in %d iterations, relative error %.1e", name, res.Status, res.Iterations, relDiff(res.X, p.want))
		}
	}
}

// Several right-hand sides at once give what each gives alone, with every
// kind of operator, including right-hand sides that stop at once (b = 0)
// or early (consistent).
func TestSolveMany(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	const m, n, k = 700, 90, 4 // m > 512: several row parts in the dense kernel
	a := randGeneral(rnd, m, n)
	bm := blas64.General{Rows: m, Cols: k, Stride: k + 1, Data: make([]float64, m*(k+1))}
	x0 := randVec(rnd, n)
	ax0 := make([]float64, m)
	backend.PureGo.Gemv(blas.NoTrans, 1, a, vec(x0), 0, vec(ax0))
	for i := 0; i < m; i++ {
		bm.Data[i*bm.Stride+0] = rnd.NormFloat64()
		bm.Data[i*bm.Stride+1] = 0
		bm.Data[i*bm.Stride+2] = ax0[i]
		bm.Data[i*bm.Stride+3] = ax0[i] + 0.1*rnd.NormFloat64()
		bm.Data[i*bm.Stride+4] = math.NaN() // padding, never read
	}
	s := lsqr.Settings{Damp: 0.1, ATol: 1e-12, BTol: 1e-12}
	ops := map[string]lsqr.Operator{
		"dense":      backend.GeneralOp{A: a},
		"dense-pure": backend.GeneralOp{A: a, Impl: backend.PureGo},
		"func":       funcOp{a},
		"block":      blockOp{funcOp{a}},
	}
	for opName, op := range ops {
		many, err := lsqr.SolveMany(context.Background(), op, bm, s)
		if err != nil {
			t.Fatalf("%s: %v", opName, err)
		}
		if many[1].Status != lsqr.ZeroSolution || many[1].Iterations != 0 || nrm(many[1].X) != 0 {
			t.Errorf("%s: b = 0 gave %v after %d iterations", opName, many[1].Status, many[1].Iterations)
		}
		for j := 0; j < k; j++ {
			b := make([]float64, m)
			for i := range b {
				b[i] = bm.Data[i*bm.Stride+j]
			}
			one, err := lsqr.Solve(context.Background(), op, b, s)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s/rhs %d", opName, j)
			if one.Status != many[j].Status || math.Abs(float64(one.Iterations-many[j].Iterations)) > 1 {
				t.Errorf("%s: alone %v in %d, together %v in %d", name, one.Status, one.Iterations, many[j].Status, many[j].Iterations)
			}
			if d := relDiff(many[j].X, one.X); d > 1e-10 && nrm(one.X) > 0 {
				t.Errorf("%s: x differs by %.2e", name, d)
			}
			if opName == "dense-pure" && one.Iterations == many[j].Iterations {
				// The same kernel, column by column: bit-identical.
				for i := range one.X {
					if one.X[i] != many[j].X[i] {
						t.Errorf("%s: not bit-identical", name)
						break
					}
				}
			}
		}
	}
}

// Results do not depend on the number of cores: the parallel kernel has a
// fixed split and sums in order.
func TestDeterministic(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	a := randGeneral(rnd, 1500, 120)
	b := randVec(rnd, 1500)
	op := backend.GeneralOp{A: a, Impl: backend.PureGo}
	solve := func() []float64 {
		res, err := lsqr.Solve(context.Background(), op, b, lsqr.Settings{ATol: 1e-10, BTol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		return res.X
	}
	x1 := solve()
	prev := runtime.GOMAXPROCS(1)
	x2 := solve()
	runtime.GOMAXPROCS(prev)
	for i := range x1 {
		if x1[i] != x2[i] {
			t.Fatalf("x[%d] differs between GOMAXPROCS %d and 1", i, prev)
		}
	}
}

// The paper's limits: ConLim, IterLim (default 2n).
func TestLimits(t *testing.T) {
	a, b, _ := psProblem(60, 30, 1, 3, false, 0) // cond 27000
	res, err := lsqr.Solve(context.Background(), backend.GeneralOp{A: a}, b, lsqr.Settings{ATol: 1e-16, BTol: 1e-16})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != lsqr.IterLimit || res.Iterations != 60 {
		t.Errorf("default IterLim: %v after %d iterations, want the limit 2n = 60", res.Status, res.Iterations)
	}
	res, err = lsqr.Solve(context.Background(), backend.GeneralOp{A: a}, b, lsqr.Settings{ATol: 1e-16, BTol: 1e-16, ConLim: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != lsqr.CondLimit || res.ACond <= 100 {
		t.Errorf("ConLim 100: %v with ACond %v", res.Status, res.ACond)
	}
	res, err = lsqr.Solve(context.Background(), backend.GeneralOp{A: a}, b, lsqr.Settings{ATol: 1e-16, BTol: 1e-16, ConLim: math.Inf(1), IterLim: 500})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status == lsqr.CondLimit {
		t.Errorf("ConLim +Inf stopped on the condition estimate")
	}
}

// Bad input returns typed errors naming the problem.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	a := randGeneral(rand.New(rand.NewPCG(7, 8)), 6, 4)
	op := backend.GeneralOp{A: a}
	b := make([]float64, 6)
	b[0] = 1
	nanB := append([]float64(nil), b...)
	nanB[4] = math.NaN()
	infB := append([]float64(nil), b...)
	infB[2] = math.Inf(-1)
	nanOp := lsqr.Func{Rows: 6, Cols: 4,
		Mul:      func(dst, x []float64) { op.MulVecTo(dst, x); dst[1] = math.NaN() },
		MulTrans: op.MulTransVecTo}
	nanOpT := lsqr.Func{Rows: 6, Cols: 4, Mul: op.MulVecTo,
		MulTrans: func(dst, x []float64) { op.MulTransVecTo(dst, x); dst[0] = math.Inf(1) }}
	cases := []struct {
		name string
		op   lsqr.Operator
		b    []float64
		s    lsqr.Settings
		want error
		text string
	}{
		{"no rows", lsqr.Func{Rows: 0, Cols: 3}, nil, lsqr.Settings{}, lsqr.ErrEmpty, "0×3"},
		{"no columns", lsqr.Func{Rows: 6, Cols: 0}, b, lsqr.Settings{}, lsqr.ErrEmpty, "6×0"},
		{"b NaN", op, nanB, lsqr.Settings{}, lsqr.ErrNotFinite, "b[4]"},
		{"b Inf", op, infB, lsqr.Settings{}, lsqr.ErrNotFinite, "b[2]"},
		{"Damp", op, b, lsqr.Settings{Damp: -1}, lsqr.ErrSettings, "Damp"},
		{"Damp NaN", op, b, lsqr.Settings{Damp: math.NaN()}, lsqr.ErrSettings, "Damp"},
		{"ATol", op, b, lsqr.Settings{ATol: math.NaN()}, lsqr.ErrSettings, "ATol"},
		{"BTol", op, b, lsqr.Settings{BTol: -1e-3}, lsqr.ErrSettings, "BTol"},
		{"ConLim", op, b, lsqr.Settings{ConLim: -5}, lsqr.ErrSettings, "ConLim"},
		{"IterLim", op, b, lsqr.Settings{IterLim: -1}, lsqr.ErrSettings, "IterLim"},
		{"A·v NaN", nanOp, b, lsqr.Settings{}, lsqr.ErrNotFinite, "A·v"},
		{"Aᵀ·b Inf", nanOpT, b, lsqr.Settings{}, lsqr.ErrNotFinite, "Aᵀ·b"},
	}
	for _, c := range cases {
		res, err := lsqr.Solve(ctx, c.op, c.b, c.s)
		if !errors.Is(err, c.want) || res != nil {
			t.Errorf("%s: %v (result %v), want %v", c.name, err, res, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %q does not name %q", c.name, err, c.text)
		}
	}
}

func TestPanics(t *testing.T) {
	op := backend.GeneralOp{A: randGeneral(rand.New(rand.NewPCG(9, 9)), 5, 3)}
	for _, c := range []struct {
		name, text string
		f          func()
	}{
		{"b length", "b has length 4", func() { lsqr.Solve(context.Background(), op, make([]float64, 4), lsqr.Settings{}) }},
		{"B rows", "B has 2 rows", func() {
			lsqr.SolveMany(context.Background(), op, blas64.General{Rows: 2, Cols: 1, Stride: 1, Data: make([]float64, 2)}, lsqr.Settings{})
		}},
		{"Func", "dst has length", func() {
			lsqr.Func{Rows: 2, Cols: 3, Mul: func(dst, x []float64) {}}.MulVecTo(make([]float64, 3), make([]float64, 3))
		}},
		{"Func trans", "dst has length", func() {
			lsqr.Func{Rows: 2, Cols: 3, MulTrans: func(dst, x []float64) {}}.MulTransVecTo(make([]float64, 2), make([]float64, 2))
		}},
	} {
		func() {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), c.text) {
					t.Errorf("%s: panic %v, want one saying %q", c.name, r, c.text)
				}
			}()
			c.f()
		}()
	}
}

// Cancellation before and during the iteration.
func TestCanceled(t *testing.T) {
	a, b, _ := psProblem(60, 30, 1, 2, false, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := lsqr.Solve(ctx, backend.GeneralOp{A: a}, b, lsqr.Settings{})
	if !errors.Is(err, context.Canceled) || res == nil || res.Status != lsqr.Canceled || res.Iterations != 0 {
		t.Fatalf("canceled before: %v, %+v", err, res)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	op := backend.GeneralOp{A: a}
	calls := 0
	f := lsqr.Func{Rows: 60, Cols: 30, MulTrans: op.MulTransVecTo, Mul: func(dst, x []float64) {
		calls++
		if calls == 5 {
			cancel()
		}
		op.MulVecTo(dst, x)
	}}
	res, err = lsqr.Solve(ctx, f, b, lsqr.Settings{ATol: 1e-14, BTol: 1e-14})
	if !errors.Is(err, context.Canceled) || res.Status != lsqr.Canceled {
		t.Fatalf("canceled during: %v, %+v", err, res)
	}
	if res.Iterations != 5 || calls != 5 || len(res.X) != 30 || nrm(res.X) == 0 {
		t.Errorf("canceled in iteration 5: %d iterations, %d products, ‖x‖ = %v", res.Iterations, calls, nrm(res.X))
	}
}

func TestStatus(t *testing.T) {
	conv := map[lsqr.Status]bool{lsqr.ZeroSolution: true, lsqr.Compatible: true, lsqr.LeastSquares: true,
		lsqr.CompatibleEps: true, lsqr.LeastSquaresEps: true}
	seen := map[string]bool{}
	for s := lsqr.ZeroSolution; s <= lsqr.Canceled; s++ {
		if s.Converged() != conv[s] {
			t.Errorf("%d.Converged() = %v", s, s.Converged())
		}
		str := s.String()
		if seen[str] || strings.HasPrefix(str, "Status(") {
			t.Errorf("%d: %q", s, str)
		}
		seen[str] = true
	}
	if lsqr.Status(42).String() != "Status(42)" {
		t.Error(lsqr.Status(42).String())
	}
	if int(lsqr.IterLimit) != 7 || int(lsqr.CondLimit) != 3 {
		t.Error("the paper's istop numbering is not kept")
	}
}
