package admm

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

func randGeneral(rnd *rand.Rand, r, c int) blas64.General {
	g := blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
	for i := range g.Data {
		g.Data[i] = rnd.NormFloat64()
	}
	return g
}

// regression makes b = A·x0 + noise with a sparse x0.
func regression(seed uint64, m, n, nnz int, noise float64) (blas64.General, []float64) {
	rnd := rand.New(rand.NewPCG(seed, 7))
	a := randGeneral(rnd, m, n)
	x0 := make([]float64, n)
	for _, j := range rnd.Perm(n)[:nnz] {
		x0[j] = 3 * rnd.NormFloat64()
	}
	b := make([]float64, m)
	for i := range b {
		s := 0.0
		for j, v := range x0 {
			s += a.Data[i*n+j] * v
		}
		b[i] = s + noise*rnd.NormFloat64()
	}
	return a, b
}

// cdElasticNet is an independent reference: cyclic coordinate descent on
// ½‖Ax − b‖² + λ(α‖x‖₁ + (1−α)/2‖x‖²), run until no coordinate moves by
// more than 1e-14 relative.
func cdElasticNet(a blas64.General, b []float64, lambda, alpha float64) []float64 {
	m, n := a.Rows, a.Cols
	x := make([]float64, n)
	r := append([]float64(nil), b...) // r = b − A·x
	colSq := make([]float64, n)
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			colSq[j] += a.Data[i*n+j] * a.Data[i*n+j]
		}
	}
	for sweep := 0; sweep < 200000; sweep++ {
		maxMove, maxX := 0.0, 0.0
		for j := 0; j < n; j++ {
			rho := 0.0
			for i := 0; i < m; i++ {
				rho += a.Data[i*n+j] * r[i]
			}
			rho += colSq[j] * x[j]
			var nx float64
			switch k := lambda * alpha; {
			case rho > k:
				nx = (rho - k) / (colSq[j] + lambda*(1-alpha))
			case rho < -k:
				nx = (rho + k) / (colSq[j] + lambda*(1-alpha))
			}
			if d := nx - x[j]; d != 0 {
				for i := 0; i < m; i++ {
					r[i] -= a.Data[i*n+j] * d
				}
				maxMove = max(maxMove, math.Abs(d))
			}
			x[j] = nx
			maxX = max(maxX, math.Abs(nx))
		}
		if maxMove <= 1e-14*max(1, maxX) {
			break
		}
	}
	return x
}

// kktViolation returns the largest violation of the optimality conditions
// of the elastic net at x, relative to λα: g = Aᵀ(Ax − b) + λ(1−α)x must be
// −λα·sign(x_j) where x_j ≠ 0 and within [−λα, λα] where x_j = 0.
func kktViolation(a blas64.General, b, x []float64, lambda, alpha float64) float64 {
	m, n := a.Rows, a.Cols
	r := make([]float64, m)
	for i := 0; i < m; i++ {
		s := -b[i]
		for j := 0; j < n; j++ {
			s += a.Data[i*n+j] * x[j]
		}
		r[i] = s
	}
	worst := 0.0
	k := lambda * alpha
	for j := 0; j < n; j++ {
		g := lambda * (1 - alpha) * x[j]
		for i := 0; i < m; i++ {
			g += a.Data[i*n+j] * r[i]
		}
		var v float64
		switch {
		case x[j] > 0:
			v = math.Abs(g + k)
		case x[j] < 0:
			v = math.Abs(g - k)
		default:
			v = max(0, math.Abs(g)-k)
		}
		worst = max(worst, v/k)
	}
	return worst
}

func maxAbsDiff(x, y []float64) float64 {
	d := 0.0
	for i := range x {
		d = max(d, math.Abs(x[i]-y[i]))
	}
	return d
}

func norm(x []float64) float64 { return math.Sqrt(dot(x, x)) }

func TestElasticNetAgainstCoordinateDescent(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		m, n    int
		alpha   float64
		lfactor []float64
	}{
		{"lasso tall", 60, 20, 1, []float64{0.5, 0.1, 0.01}},
		{"lasso wide", 25, 70, 1, []float64{0.5, 0.1, 0.02}},
		{"enet tall", 60, 20, 0.5, []float64{0.3, 0.05}},
		{"enet wide", 25, 70, 0.3, []float64{0.3, 0.05}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := regression(uint64(c.m*1000+c.n), c.m, c.n, 5, 0.1)
			net, err := NewElasticNet(backend.GeneralOp{A: a}, b)
			if err != nil {
				t.Fatal(err)
			}
			lmax := net.LambdaMax(c.alpha)
			for _, f := range c.lfactor {
				lambda := f * lmax
				fit, err := net.Solve(ctx, lambda, NetSettings{L1Ratio: c.alpha, ADMM: Settings{AbsTol: 1e-10, RelTol: 1e-10}}, nil)
				if err != nil {
					t.Fatalf("λ = %g: %v", lambda, err)
				}
				ref := cdElasticNet(a, b, lambda, c.alpha)
				scale := max(1, norm(ref))
				if d := maxAbsDiff(fit.X, ref); d > 1e-7*scale {
					t.Errorf("λ = %.4g: max |x − x_cd| = %.3g (‖x_cd‖ = %.3g)", lambda, d, norm(ref))
				}
				if v := kktViolation(a, b, fit.X, lambda, c.alpha); v > 1e-6 {
					t.Errorf("λ = %.4g: KKT violation %.3g (relative to λα)", lambda, v)
				}
				if o, oref := fit.Stats.Objective, net.Objective(ref, lambda, c.alpha); o > oref*(1+1e-10)+1e-12 {
					t.Errorf("λ = %.4g: objective %.12g above the reference's %.12g", lambda, o, oref)
				}
				t.Logf("λ/λmax = %g: %d iterations, ρ = %.3g (%d changes), nnz = %d", f, fit.Stats.Iterations, fit.Stats.Rho, fit.Stats.RhoChanges, nnz(fit.X))
			}
		})
	}
}

func nnz(x []float64) int {
	k := 0
	for _, v := range x {
		if v != 0 {
			k++
		}
	}
	return k
}

type enetFixture struct {
	Name string    `json:"name"`
	M    int       `json:"m"`
	N    int       `json:"n"`
	A    []float64 `json:"A"`
	B    []float64 `json:"b"`
	Fits []struct {
		Lambda  float64   `json:"lambda"`
		L1Ratio float64   `json:"l1_ratio"`
		X       []float64 `json:"x"`
	} `json:"fits"`
}

// The solutions must match scikit-learn's ElasticNet (coordinate descent)
// on the fixtures of testdata/make_fixtures.py.
func TestElasticNetAgainstScikitLearn(t *testing.T) {
	raw, err := os.ReadFile("testdata/enet.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Cases []enetFixture `json:"cases"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range fx.Cases {
		a := blas64.General{Rows: c.M, Cols: c.N, Stride: c.N, Data: c.A}
		net, err := NewElasticNet(backend.GeneralOp{A: a}, c.B)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range c.Fits {
			fit, err := net.Solve(ctx, f.Lambda, NetSettings{L1Ratio: f.L1Ratio, ADMM: Settings{AbsTol: 1e-10, RelTol: 1e-10}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			scale := max(1, norm(f.X))
			d := maxAbsDiff(fit.X, f.X)
			t.Logf("%s λ = %.4g α = %g: %d iterations, max |x − x_sklearn| = %.2e, nnz %d / %d",
				c.Name, f.Lambda, f.L1Ratio, fit.Stats.Iterations, d, nnz(fit.X), nnz(f.X))
			if d > 1e-7*scale {
				t.Errorf("%s λ = %.4g α = %g: max |x − x_sklearn| = %.3g", c.Name, f.Lambda, f.L1Ratio, d)
			}
			if nnz(fit.X) != nnz(f.X) {
				t.Errorf("%s λ = %.4g α = %g: %d non-zeros, scikit-learn %d", c.Name, f.Lambda, f.L1Ratio, nnz(fit.X), nnz(f.X))
			}
		}
	}
}

// A path warm-started from λ_max down takes fewer iterations in all than
// cold starts, and every point is the solution (KKT).
func TestPathWarmStart(t *testing.T) {
	ctx := context.Background()
	a, b := regression(5, 80, 30, 6, 0.1)
	net, _ := NewElasticNet(backend.GeneralOp{A: a}, b)
	lambdas := LambdaGrid(net.LambdaMax(1), 1e-2, 12)
	s := NetSettings{ADMM: Settings{AbsTol: 1e-9, RelTol: 1e-9}}
	fits, err := net.Path(ctx, lambdas, s)
	if err != nil {
		t.Fatal(err)
	}
	warm, cold := 0, 0
	for i, f := range fits {
		if v := kktViolation(a, b, f.X, lambdas[i], 1); v > 1e-5 {
			t.Errorf("λ = %.4g: KKT violation %.3g", lambdas[i], v)
		}
		c, err := net.Solve(ctx, lambdas[i], s, nil)
		if err != nil {
			t.Fatal(err)
		}
		warm += f.Stats.Iterations
		cold += c.Stats.Iterations
	}
	t.Logf("12-point path: %d iterations warm-started, %d cold", warm, cold)
	if warm >= cold {
		t.Errorf("warm starts took %d iterations, cold starts %d", warm, cold)
	}
	if nnz(fits[0].X) != 0 {
		t.Errorf("at λ_max: %d non-zeros", nnz(fits[0].X))
	}
}

// opOnly hides the dense matrix: the Gram matrix is then formed from
// operator products (vector form); opBlock adds the block form.
type opOnly struct{ a backend.GeneralOp }

func (o opOnly) Dims() (int, int)               { return o.a.Dims() }
func (o opOnly) MulVecTo(dst, x []float64)      { o.a.MulVecTo(dst, x) }
func (o opOnly) MulTransVecTo(dst, x []float64) { o.a.MulTransVecTo(dst, x) }

type opBlock struct{ opOnly }

func (o opBlock) MulBlockTo(dst, x blas64.General)      { o.a.MulBlockTo(dst, x) }
func (o opBlock) MulTransBlockTo(dst, x blas64.General) { o.a.MulTransBlockTo(dst, x) }

func TestElasticNetOperator(t *testing.T) {
	ctx := context.Background()
	for _, sh := range [][2]int{{70, 20}, {15, 90}, {100, 70}} {
		a, b := regression(uint64(sh[0]), sh[0], sh[1], 4, 0.1)
		dense, _ := NewElasticNet(backend.GeneralOp{A: a}, b)
		lambda := 0.1 * dense.LambdaMax(1)
		s := NetSettings{ADMM: Settings{AbsTol: 1e-10, RelTol: 1e-10}}
		ref, err := dense.Solve(ctx, lambda, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range []Operator{opOnly{backend.GeneralOp{A: a}}, opBlock{opOnly{backend.GeneralOp{A: a}}}} {
			net, err := NewElasticNet(op, b)
			if err != nil {
				t.Fatal(err)
			}
			fit, err := net.Solve(ctx, lambda, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := maxAbsDiff(fit.X, ref.X); d > 1e-8*max(1, norm(ref.X)) {
				t.Errorf("%v %T: differs from the dense solve by %.3g", sh, op, d)
			}
		}
	}
}

func TestElasticNetInput(t *testing.T) {
	ctx := context.Background()
	a, b := regression(1, 10, 4, 2, 0)
	an := blas64.General{Rows: 10, Cols: 4, Stride: 4, Data: append([]float64(nil), a.Data...)}
	an.Data[3] = math.NaN()
	bn := append([]float64(nil), b...)
	bn[0] = math.Inf(-1)
	for _, c := range []struct {
		name   string
		a      blas64.General
		b      []float64
		alsoIs error
	}{
		{"empty", blas64.General{Stride: 1}, nil, nil},
		{"short b", a, b[:9], nil},
		{"NaN in A", an, b, backend.ErrNotFinite},
		{"Inf in b", a, bn, backend.ErrNotFinite},
	} {
		_, err := NewElasticNet(backend.GeneralOp{A: c.a}, c.b)
		if !errors.Is(err, ErrInput) || (c.alsoIs != nil && !errors.Is(err, c.alsoIs)) {
			t.Errorf("%s: err = %v", c.name, err)
		}
	}
	net, _ := NewElasticNet(backend.GeneralOp{A: a}, b)
	for _, c := range []struct {
		name   string
		lambda float64
		s      NetSettings
	}{
		{"negative λ", -1, NetSettings{}},
		{"NaN λ", math.NaN(), NetSettings{}},
		{"L1Ratio > 1", 1, NetSettings{L1Ratio: 1.5}},
		{"negative L1Ratio", 1, NetSettings{L1Ratio: -0.5}},
		{"negative ρ", 1, NetSettings{ADMM: Settings{Rho: -1}}},
		{"relax 2", 1, NetSettings{ADMM: Settings{Relax: 2}}},
		{"balance 1", 1, NetSettings{ADMM: Settings{Balance: 1}}},
	} {
		if _, err := net.Solve(ctx, c.lambda, c.s, nil); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", c.name, err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := net.Solve(cctx, 1, NetSettings{}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	// The iteration limit: ErrNotConverged with a usable fit.
	fit, err := net.Solve(ctx, 0.1, NetSettings{ADMM: Settings{MaxIter: 3}}, nil)
	if !errors.Is(err, ErrNotConverged) || fit.Stats.Iterations != 3 || len(fit.X) != 4 {
		t.Errorf("MaxIter 3: err = %v, %d iterations", err, fit.Stats.Iterations)
	}
}

// Over-relaxation and a poor initial ρ reach the same solution; residual
// balancing recovers from the poor ρ, where a fixed ρ = 1e-3 does not
// converge within 20 times the iterations.
func TestDriverVariants(t *testing.T) {
	ctx := context.Background()
	a, b := regression(9, 60, 25, 5, 0.1)
	net, _ := NewElasticNet(backend.GeneralOp{A: a}, b)
	lambda := 0.05 * net.LambdaMax(1)
	ref := cdElasticNet(a, b, lambda, 1)
	var adaptive int
	for _, c := range []struct {
		name string
		s    Settings
	}{
		{"plain", Settings{}},
		{"relax 1.6", Settings{Relax: 1.6}},
		{"ρ = 1e-3 adaptive", Settings{Rho: 1e-3}},
	} {
		c.s.AbsTol, c.s.RelTol = 1e-10, 1e-10
		fit, err := net.Solve(ctx, lambda, NetSettings{ADMM: c.s}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d := maxAbsDiff(fit.X, ref); d > 1e-7*max(1, norm(ref)) {
			t.Errorf("%s: max |x − x_cd| = %.3g", c.name, d)
		}
		adaptive = fit.Stats.Iterations
		t.Logf("%s: %d iterations, final ρ = %.3g (%d changes), %.3g flam", c.name, fit.Stats.Iterations, fit.Stats.Rho, fit.Stats.RhoChanges, fit.Stats.Flam)
	}
	fit, err := net.Solve(ctx, lambda, NetSettings{ADMM: Settings{Rho: 1e-3, FixedRho: true, MaxIter: 20 * adaptive, AbsTol: 1e-10, RelTol: 1e-10}}, nil)
	t.Logf("ρ = 1e-3 fixed: %v", err)
	if !errors.Is(err, ErrNotConverged) || fit.Stats.RhoChanges != 0 {
		t.Errorf("fixed ρ = 1e-3: err = %v, %d ρ changes; expected no convergence within %d iterations", err, fit.Stats.RhoChanges, 20*adaptive)
	}
}

// nnls is a second Problem for the driver: nonnegative least squares,
// min ½‖Ax − b‖² s.t. x ≥ 0, split as f(x) = ½‖Ax − b‖², g(z) = I(z ≥ 0),
// x − z = 0 (Boyd et al. §5.2), with the x-update by normal equations
// solved densely (small test sizes).
type nnls struct {
	a    blas64.General
	atb  []float64
	chol blas64.Symmetric
	rho  float64
}

func (p *nnls) Dims() (n, m, q int) { return p.a.Cols, p.a.Cols, p.a.Cols }
func (p *nnls) UpdateX(x, ax, v []float64, rho float64) error {
	n := p.a.Cols
	if rho != p.rho {
		p.chol = blas64.Symmetric{N: n, Stride: n, Data: make([]float64, n*n), Uplo: blas.Lower}
		backend.Active().Syrk(blas.Trans, 1, p.a, 0, p.chol)
		for i := 0; i < n; i++ {
			p.chol.Data[i*n+i] += rho
		}
		if err := backend.Active().Potrf(p.chol); err != nil {
			return err
		}
		p.rho = rho
	}
	for i := range x {
		x[i] = p.atb[i] - rho*v[i]
	}
	backend.Active().Potrs(p.chol, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: x})
	copy(ax, x)
	return nil
}
func (p *nnls) UpdateZ(z, bz, w []float64, rho float64) error {
	for i, v := range w {
		z[i] = max(0, v)
		bz[i] = -z[i]
	}
	return nil
}
func (p *nnls) MulATTo(dst, y []float64) { copy(dst, y) }
func (p *nnls) C() []float64             { return nil }

func TestDriverNNLS(t *testing.T) {
	a, b := regression(12, 40, 10, 10, 1)
	p := &nnls{a: a, atb: make([]float64, 10)}
	backend.Active().Gemv(blas.Trans, 1, a, blas64.Vector{N: 40, Inc: 1, Data: b}, 0, blas64.Vector{N: 10, Inc: 1, Data: p.atb})
	var st State
	stats, err := Solve(context.Background(), p, &st, Settings{AbsTol: 1e-10, RelTol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	// KKT of NNLS: x ≥ 0, g = Aᵀ(Ax − b) ≥ 0, x_j·g_j = 0.
	x := st.Z
	worst := 0.0
	for j := 0; j < 10; j++ {
		g := -p.atb[j]
		for i := 0; i < 40; i++ {
			s := 0.0
			for k := 0; k < 10; k++ {
				s += a.Data[i*10+k] * x[k]
			}
			g += a.Data[i*10+j] * s
		}
		if x[j] < 0 {
			t.Errorf("x[%d] = %g < 0", j, x[j])
		}
		if x[j] > 0 {
			worst = max(worst, math.Abs(g))
		} else {
			worst = max(worst, -g)
		}
	}
	t.Logf("NNLS: %d iterations, %d active bounds, KKT violation %.2e", stats.Iterations, 10-nnz(x), worst)
	if worst > 1e-6 || nnz(x) == 10 {
		t.Errorf("KKT violation %.3g with %d free variables", worst, nnz(x))
	}
}
