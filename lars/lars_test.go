package lars_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/admm"
	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lars"
)

type skPath struct {
	Alphas []float64   `json:"alphas"`
	Coefs  [][]float64 `json:"coefs"`
	Active []int       `json:"active"`
}

type fixture struct {
	Name  string    `json:"name"`
	N     int       `json:"n"`
	P     int       `json:"p"`
	X     []float64 `json:"X"`
	Y     []float64 `json:"y"`
	Lasso skPath    `json:"lasso"`
	LAR   skPath    `json:"lar"`
}

func loadFixtures(t *testing.T) []fixture {
	t.Helper()
	b, err := os.ReadFile("testdata/lars_path.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []fixture `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Cases
}

func (f fixture) design() blas64.General {
	return blas64.General{Rows: f.N, Cols: f.P, Stride: f.P, Data: f.X}
}

// kkt returns the largest violation of the lasso optimality conditions at
// β for λ, relative to λ: |x_jᵀr| ≤ λ, with x_jᵀr = λ·sign(β_j) where β_j ≠ 0.
func kkt(x blas64.General, y, beta []float64, lambda float64) float64 {
	n, p := x.Rows, x.Cols
	r := append([]float64(nil), y...)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			r[i] -= x.Data[i*x.Stride+j] * beta[j]
		}
	}
	worst := 0.0
	for j := 0; j < p; j++ {
		c := 0.0
		for i := 0; i < n; i++ {
			c += x.Data[i*x.Stride+j] * r[i]
		}
		var v float64
		if beta[j] != 0 {
			v = math.Abs(c - math.Copysign(lambda, beta[j]))
		} else {
			v = max(0, math.Abs(c)-lambda)
		}
		worst = max(worst, v/lambda)
	}
	return worst
}

// invariant returns the largest violation, relative to λ_max, of what
// defines a LAR/lasso breakpoint at λ: every variable with β_j ≠ 0 has
// |x_jᵀr| = λ, every variable has |x_jᵀr| ≤ λ.
func invariant(x blas64.General, y, beta []float64, lambda, lmax float64) float64 {
	n, p := x.Rows, x.Cols
	r := append([]float64(nil), y...)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			r[i] -= x.Data[i*x.Stride+j] * beta[j]
		}
	}
	worst := 0.0
	for j := 0; j < p; j++ {
		c := 0.0
		for i := 0; i < n; i++ {
			c += x.Data[i*x.Stride+j] * r[i]
		}
		if beta[j] != 0 {
			worst = max(worst, math.Abs(math.Abs(c)-lambda))
		}
		worst = max(worst, math.Abs(c)-lambda)
	}
	return worst / lmax
}

// The path must match scikit-learn's lars_path breakpoint by breakpoint:
// λ = n·alpha and the coefficients, for the lasso and for plain LAR, with
// and without the precomputed Gram matrix, and every breakpoint of ours
// must satisfy the defining invariant. Comparison stops where the active
// set saturates (k = n), where scikit-learn continues with degenerate
// regressors, and where scikit-learn's own LAR breakpoints stop
// satisfying the invariant (its "drops" and "wide" LAR paths do, after a
// coefficient crosses zero: the active correlations there differ, and some
// exceed alpha·n).
func TestPathMatchesScikitLearn(t *testing.T) {
	ctx := context.Background()
	for _, f := range loadFixtures(t) {
		for _, method := range []string{"lasso", "lar"} {
			ref := f.Lasso
			if method == "lar" {
				ref = f.LAR
			}
			for _, mode := range []lars.GramMode{lars.GramAlways, lars.GramNever} {
				d, err := lars.NewDesign(f.design(), mode)
				if err != nil {
					t.Fatal(err)
				}
				path, err := d.Fit(ctx, f.Y, lars.Settings{LAR: method == "lar"})
				if err != nil {
					t.Fatal(err)
				}
				name := f.Name + "/" + method
				if mode == lars.GramAlways {
					name += "/gram"
				}
				compared := 0
				lmax := path.Steps[0].Lambda
				for i := range ref.Alphas {
					if i >= len(path.Steps) {
						t.Errorf("%s: %d breakpoints, scikit-learn has %d", name, len(path.Steps), len(ref.Alphas))
						break
					}
					if len(path.Steps[i].Active) >= f.N {
						break
					}
					if v := invariant(f.design(), f.Y, ref.Coefs[i], ref.Alphas[i]*float64(f.N), lmax); v > 1e-9 {
						t.Logf("%s: scikit-learn's breakpoint %d violates the invariant by %.3g·λ_max; comparison stops", name, i, v)
						break
					}
					want := ref.Alphas[i] * float64(f.N)
					got := path.Steps[i].Lambda
					if math.Abs(got-want) > 1e-9*lmax {
						t.Errorf("%s: breakpoint %d: λ = %.12g, scikit-learn %.12g", name, i, got, want)
					}
					b := path.Coef(i)
					scale := 0.0
					for _, v := range ref.Coefs[i] {
						scale = max(scale, math.Abs(v))
					}
					for j := range b {
						if math.Abs(b[j]-ref.Coefs[i][j]) > 1e-8*max(1, scale) {
							t.Errorf("%s: breakpoint %d: β[%d] = %.12g, scikit-learn %.12g", name, i, j, b[j], ref.Coefs[i][j])
							break
						}
					}
					compared++
				}
				for i, st := range path.Steps {
					if v := invariant(f.design(), f.Y, path.Coef(i), st.Lambda, lmax); v > 1e-10 {
						t.Errorf("%s: breakpoint %d violates the invariant by %.3g·λ_max", name, i, v)
					}
				}
				if len(path.Steps) < len(ref.Alphas) && path.Steps[len(path.Steps)-1].Lambda > 1e-9*lmax {
					t.Errorf("%s: path ended at λ = %g after %d breakpoints (scikit-learn: %d)", name, path.Steps[len(path.Steps)-1].Lambda, len(path.Steps), len(ref.Alphas))
				}
				t.Logf("%s: %d breakpoints compared (ours %d, scikit-learn %d), %d drops, stop: %v",
					name, compared, len(path.Steps), len(ref.Alphas), path.Stats.Drops, path.Stats.Reason)
				if f.Name == "drops" && method == "lasso" && path.Stats.Drops == 0 {
					t.Errorf("%s: the fixture was chosen for a lasso drop, the path has none", name)
				}
			}
		}
	}
}

// At every breakpoint of the lasso path the coefficients are the lasso
// solution for that λ: the KKT conditions hold, and an independent solver
// (ADMM, package admm) finds the same coefficients.
func TestBreakpointsAreLassoSolutions(t *testing.T) {
	ctx := context.Background()
	for _, f := range loadFixtures(t) {
		x := f.design()
		path, err := lars.Fit(ctx, x, f.Y, lars.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		net, err := admm.NewElasticNet(backend.GeneralOp{A: x}, f.Y)
		if err != nil {
			t.Fatal(err)
		}
		var st admm.State
		worstKKT, worstADMM := 0.0, 0.0
		for i, s := range path.Steps {
			if s.Lambda < 1e-6*path.Steps[0].Lambda {
				break
			}
			b := path.Coef(i)
			worstKKT = max(worstKKT, kkt(x, f.Y, b, s.Lambda))
			fit, err := net.Solve(ctx, s.Lambda, admm.NetSettings{ADMM: admm.Settings{AbsTol: 1e-11, RelTol: 1e-11, MaxIter: 200000}}, &st)
			if err != nil {
				t.Fatalf("%s: ADMM at λ = %g: %v", f.Name, s.Lambda, err)
			}
			scale := 0.0
			for _, v := range b {
				scale = max(scale, math.Abs(v))
			}
			for j := range b {
				worstADMM = max(worstADMM, math.Abs(b[j]-fit.X[j])/max(1, scale))
			}
		}
		t.Logf("%s: %d breakpoints: worst KKT violation %.2e, worst |β_lars − β_admm| %.2e", f.Name, len(path.Steps), worstKKT, worstADMM)
		if worstKKT > 1e-9 {
			t.Errorf("%s: KKT violation %.3g at a breakpoint", f.Name, worstKKT)
		}
		if worstADMM > 1e-6 {
			t.Errorf("%s: LARS and ADMM differ by %.3g at a breakpoint", f.Name, worstADMM)
		}
		// Between breakpoints the path is linear: the midpoint too.
		if len(path.Steps) > 3 {
			l := (path.Steps[2].Lambda + path.Steps[3].Lambda) / 2
			if v := kkt(x, f.Y, path.At(l), l); v > 1e-9 {
				t.Errorf("%s: KKT violation %.3g between breakpoints", f.Name, v)
			}
		}
	}
}

func randDesign(seed uint64, n, p int) (blas64.General, []float64) {
	rnd := rand.New(rand.NewPCG(seed, 1))
	x := blas64.General{Rows: n, Cols: p, Stride: p, Data: make([]float64, n*p)}
	for i := range x.Data {
		x.Data[i] = rnd.NormFloat64()
	}
	y := make([]float64, n)
	for i := range y {
		for j := 0; j < 5; j++ {
			y[i] += float64(j+1) * x.Data[i*p+(3*j)%p]
		}
		y[i] += rnd.NormFloat64()
	}
	return x, y
}

func nnz(b []float64) int {
	k := 0
	for _, v := range b {
		if v != 0 {
			k++
		}
	}
	return k
}

// MaxNonZero stops where the next variable would enter: exactly K
// non-zeros, and the same coefficients as the unlimited path at that
// breakpoint.
func TestCardinality(t *testing.T) {
	ctx := context.Background()
	x, y := randDesign(3, 200, 40)
	full, err := lars.Fit(ctx, x, y, lars.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 5, 12, 30} {
		p, err := lars.Fit(ctx, x, y, lars.Settings{MaxNonZero: k})
		if err != nil {
			t.Fatal(err)
		}
		b := p.Final()
		if got := nnz(b); got != k || p.Stats.Reason != lars.StopCardinality {
			t.Errorf("K = %d: %d non-zeros, stop %v", k, got, p.Stats.Reason)
		}
		i := len(p.Steps) - 1
		ref := full.Coef(i)
		// (Fit may choose the Gram matrix for one and not the other: equal
		// to rounding.)
		for j := range b {
			if math.Abs(b[j]-ref[j]) > 1e-10*max(1, math.Abs(ref[j])) {
				t.Errorf("K = %d: β[%d] = %.15g differs from the full path's %.15g at breakpoint %d", k, j, b[j], ref[j], i)
				break
			}
		}
		// At that breakpoint the full path adds the (K+1)-th variable.
		if full.Steps[i].Added < 0 || len(full.Steps[i].Active) != k+1 {
			t.Errorf("K = %d: breakpoint %d of the full path: added %d, %d active", k, i, full.Steps[i].Added, len(full.Steps[i].Active))
		}
	}
}

// LambdaMin stops on λ_min exactly, with the lasso solution there.
func TestLambdaMin(t *testing.T) {
	ctx := context.Background()
	x, y := randDesign(4, 60, 15)
	full, _ := lars.Fit(ctx, x, y, lars.Settings{})
	lmin := 0.1 * full.Steps[0].Lambda
	p, err := lars.Fit(ctx, x, y, lars.Settings{LambdaMin: lmin})
	if err != nil {
		t.Fatal(err)
	}
	last := p.Steps[len(p.Steps)-1]
	if last.Lambda != lmin || p.Stats.Reason != lars.StopLambda {
		t.Errorf("last λ = %g (want %g), stop %v", last.Lambda, lmin, p.Stats.Reason)
	}
	if v := kkt(x, y, p.Final(), lmin); v > 1e-9 {
		t.Errorf("KKT violation %.3g at λ_min", v)
	}
	want := full.At(lmin)
	for j, v := range p.Final() {
		if math.Abs(v-want[j]) > 1e-10*max(1, math.Abs(want[j])) {
			t.Errorf("β[%d] = %g, full path at λ_min %g", j, v, want[j])
		}
	}
}

// Degenerate designs: a duplicated column, a nearly duplicated one and a
// zero column never enter together with their twin (the path equals the
// path without them); more features than samples end at an exact fit with
// at most n active; exact ties in the correlations are handled.
func TestDegenerate(t *testing.T) {
	ctx := context.Background()
	x0, y := randDesign(5, 50, 8)
	ref, err := lars.Fit(ctx, x0, y, lars.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(9, 9))
	for _, twin := range []float64{0, 1e-9} {
		// x has columns x0[0..7], a copy of column 6 (plus twin·noise) and
		// a zero column.
		x := blas64.General{Rows: 50, Cols: 10, Stride: 10, Data: make([]float64, 500)}
		for i := 0; i < 50; i++ {
			copy(x.Data[i*10:i*10+8], x0.Data[i*8:i*8+8])
			x.Data[i*10+8] = x0.Data[i*8+6] + twin*rnd.NormFloat64()
		}
		for _, mode := range []lars.GramMode{lars.GramAlways, lars.GramNever} {
			d, _ := lars.NewDesign(x, mode)
			p, err := d.Fit(ctx, y, lars.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			b, want := p.Final(), ref.Final()
			// Columns 6 and 8 are (nearly) the same variable: their sum
			// is β₆ of the reference; 9 is zero.
			for j := 0; j < 8; j++ {
				got := b[j]
				if j == 6 {
					got += b[8]
				}
				if math.Abs(got-want[j]) > 1e-6*max(1, math.Abs(want[j])) {
					t.Errorf("twin %g gram=%v: β[%d] = %g, reference %g", twin, mode == lars.GramAlways, j, got, want[j])
				}
			}
			if b[9] != 0 || (b[6] != 0 && b[8] != 0) {
				t.Errorf("twin %g gram=%v: β = %v: both twins or the zero column entered", twin, mode == lars.GramAlways, b)
			}
			t.Logf("twin %g gram=%v: %d steps, %d refused as degenerate", twin, mode == lars.GramAlways, p.Stats.Steps, p.Stats.Degenerate)
		}
	}
	// Wide: 6 samples, 10 features: an exact fit with at most 6 active.
	xw, yw := randDesign(10, 6, 10)
	p, err := lars.Fit(ctx, xw, yw, lars.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	b := p.Final()
	res := 0.0
	for i := 0; i < 6; i++ {
		r := yw[i]
		for j := 0; j < 10; j++ {
			r -= xw.Data[i*10+j] * b[j]
		}
		res = max(res, math.Abs(r))
	}
	if nnz(b) > 6 || res > 1e-9 || p.Steps[len(p.Steps)-1].Lambda != 0 {
		t.Errorf("wide: %d non-zeros, residual %.3g, last λ %g", nnz(b), res, p.Steps[len(p.Steps)-1].Lambda)
	}
	// Orthogonal design with equal correlations: ties at every step.
	xt := blas64.General{Rows: 4, Cols: 4, Stride: 4, Data: []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}}
	p, err = lars.Fit(ctx, xt, []float64{2, -2, 2, 1}, lars.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{2, -2, 2, 1}
	for j, v := range p.Final() {
		if math.Abs(v-want[j]) > 1e-12 {
			t.Errorf("ties: β = %v, want %v", p.Final(), want)
			break
		}
	}
	if l := p.Lambdas(); l[0] != 2 || l[1] != 2 || l[2] != 2 {
		t.Errorf("ties: λ = %v, want three breakpoints at 2", l)
	}
}

// FitMany equals one Fit per column.
func TestFitMany(t *testing.T) {
	ctx := context.Background()
	x, y0 := randDesign(6, 80, 12)
	_, y1 := randDesign(7, 80, 12)
	y := blas64.General{Rows: 80, Cols: 2, Stride: 2, Data: make([]float64, 160)}
	for i := 0; i < 80; i++ {
		y.Data[2*i], y.Data[2*i+1] = y0[i], y1[i]
	}
	d, _ := lars.NewDesign(x, lars.GramAuto)
	ps, err := d.FitMany(ctx, y, lars.Settings{MaxNonZero: 6})
	if err != nil {
		t.Fatal(err)
	}
	for c, yc := range [][]float64{y0, y1} {
		p, _ := d.Fit(ctx, yc, lars.Settings{MaxNonZero: 6})
		a, b := p.Final(), ps[c].Final()
		for j := range a {
			if a[j] != b[j] {
				t.Errorf("column %d: FitMany differs from Fit", c)
				break
			}
		}
	}
}

func TestInput(t *testing.T) {
	ctx := context.Background()
	x, y := randDesign(8, 10, 4)
	bad := append([]float64(nil), y...)
	bad[3] = math.Inf(1)
	xn := blas64.General{Rows: 10, Cols: 4, Stride: 4, Data: append([]float64(nil), x.Data...)}
	xn.Data[7] = math.NaN()
	for _, c := range []struct {
		name   string
		x      blas64.General
		y      []float64
		s      lars.Settings
		alsoIs error
	}{
		{"empty", blas64.General{Stride: 1}, nil, lars.Settings{}, nil},
		{"short y", x, y[:9], lars.Settings{}, nil},
		{"Inf in y", x, bad, lars.Settings{}, backend.ErrNotFinite},
		{"NaN in X", xn, y, lars.Settings{}, backend.ErrNotFinite},
		{"negative λ_min", x, y, lars.Settings{LambdaMin: -1}, nil},
		{"negative K", x, y, lars.Settings{MaxNonZero: -2}, nil},
	} {
		_, err := lars.Fit(ctx, c.x, c.y, c.s)
		if !errors.Is(err, lars.ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", c.name, err)
		}
		if c.alsoIs != nil && !errors.Is(err, c.alsoIs) {
			t.Errorf("%s: err = %v, want it to wrap %v", c.name, err, c.alsoIs)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := lars.Fit(cctx, x, y, lars.Settings{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}
