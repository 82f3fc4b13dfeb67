package admm

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// Tiny shapes must work, never panic, and give the solution of the problem:
// for the lasso the KKT conditions (Aᵀ(b − Ax))_j = λ·sign(x_j) where x_j ≠ 0
// and |(Aᵀ(b − Ax))_j| ≤ λ where x_j = 0; for LRR a feasible Z ≥ 0 whose
// objective is no worse than that of the feasible points Z = 0, E = S and
// Z = I, E = 0, and on one column (n = 1) the closed form: with β + 1 >
// λ‖S‖₁ the objective (1 + β)z + λ(1 − z)‖S‖₁ is least at z = 0, E = S.
func TestTinyShapes(t *testing.T) {
	ctx := context.Background()
	for _, sh := range [][2]int{{1, 1}, {3, 1}, {1, 3}, {2, 2}} {
		m, n := sh[0], sh[1]
		s := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
		var l1 float64
		for i := range s.Data {
			s.Data[i] = float64(10 * (i + 1))
			l1 += s.Data[i]
		}
		res, err := LRR(ctx, s, LRRSettings{MaxIter: 2000})
		if err != nil && !errors.Is(err, ErrNotConverged) {
			t.Errorf("LRR %v: %v", sh, err)
		}
		if res == nil {
			t.Fatalf("LRR %v: no result", sh)
		}
		if res.Stats.PrimalResidual > 1e-3 {
			t.Errorf("LRR %v: ‖S − SZ − E‖/‖S‖ = %.3g, want a feasible point", sh, res.Stats.PrimalResidual)
		}
		for i, v := range res.J.Data {
			if v < 0 {
				t.Errorf("LRR %v: J[%d] = %g < 0", sh, i, v)
			}
		}
		// Objective at Z = 0, E = S is λ‖S‖₁; at Z = I, E = 0 it is n + β·n.
		best := math.Min(DefaultLRRLambda*l1, float64(n)*(1+DefaultLRRBeta))
		if got := res.Stats.Objective; got > best*(1+1e-3)+1e-6 {
			t.Errorf("LRR %v: objective %.6g above the feasible point's %.6g", sh, got, best)
		}
		if n == 1 {
			if z := res.Z.Data[0]; math.Abs(z) > 1e-3 {
				t.Errorf("LRR %v: z = %g, the closed form is 0", sh, z)
			}
		}

		b := s.Data[:m]
		net, err := NewElasticNet(backend.GeneralOp{A: s}, b)
		if err != nil {
			t.Fatalf("NewElasticNet %v: %v", sh, err)
		}
		lambda := 0.1 * net.LambdaMax(1)
		fit, err := net.Solve(ctx, lambda, NetSettings{ADMM: Settings{AbsTol: 1e-10, RelTol: 1e-10, MaxIter: 20000}}, nil)
		if err != nil {
			t.Errorf("ElasticNet %v: %v", sh, err)
			continue
		}
		// g = Aᵀ(b − Ax).
		r := make([]float64, m)
		for i := 0; i < m; i++ {
			r[i] = b[i]
			for j := 0; j < n; j++ {
				r[i] -= s.Data[i*n+j] * fit.X[j]
			}
		}
		for j := 0; j < n; j++ {
			var g float64
			for i := 0; i < m; i++ {
				g += s.Data[i*n+j] * r[i]
			}
			tol := 1e-4 * lambda
			switch x := fit.X[j]; {
			case x == 0 && math.Abs(g) > lambda+tol:
				t.Errorf("ElasticNet %v: x[%d] = 0 but |g| = %g > λ = %g", sh, j, math.Abs(g), lambda)
			case x != 0 && math.Abs(g-lambda*math.Copysign(1, x)) > tol:
				t.Errorf("ElasticNet %v: x[%d] = %g but g = %g, want λ·sign = %g", sh, j, x, g, lambda*math.Copysign(1, x))
			}
		}
	}
}
