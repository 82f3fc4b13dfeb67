package admm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

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
