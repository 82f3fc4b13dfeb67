package lsqr_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/lsqr"
)

// Paige and Saunders' test problems against scipy's lsqr on the same
// matrices (testdata/make_fixtures.py): the same stopping reason, iteration
// counts within 10 % (or one), the same estimates, and solutions at the
// accuracy the tolerances promise against the exact one.
func TestPaigeSaunders(t *testing.T) {
	for _, f := range loadFixtures(t) {
		a, b, exact := psProblem(f.M, f.N, f.Ndup, f.Npow, f.Compatible, f.Damp)
		s := lsqr.Settings{Damp: f.Damp, ATol: f.Atol, BTol: f.Btol, ConLim: f.Conlim, IterLim: f.IterLim}
		ops := map[string]lsqr.Operator{
			"dense":      backend.GeneralOp{A: a},
			"dense-pure": backend.GeneralOp{A: a, Impl: backend.PureGo},
			"func":       funcOp{a},
		}
		for opName, op := range ops {
			name := f.Name + "/" + opName
			res, err := lsqr.Solve(context.Background(), op, b, s)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if int(res.Status) != f.Istop {
				t.Errorf("%s: istop %d (%v), scipy %d", name, res.Status, res.Status, f.Istop)
			}
			if d := res.Iterations - f.Itn; math.Abs(float64(d)) > math.Max(1, 0.1*float64(f.Itn)) {
				t.Errorf("%s: %d iterations, scipy %d", name, res.Iterations, f.Itn)
			}
			if res.Iterations == f.Itn {
				// The same iterations in other rounding: the estimates
				// agree to the accuracy the bidiagonalization keeps in
				// floating point (its α, β drift once orthogonality is
				// lost), the small norms relative to ‖b‖.
				bn := nrm(b)
				// Past as many iterations as there are distinct singular
				// values the bidiagonalization has exhausted the Krylov
				// space and goes on with rounding noise, which ‖B_k‖_F
				// accumulates differently.
				anormTol := 1e-3
				if f.Itn > min(f.M, f.N)/f.Ndup {
					anormTol = 2e-2
				}
				for _, e := range []struct {
					what      string
					got, want float64
					tol       float64
				}{
					{"anorm", res.ANorm, f.Anorm, anormTol * f.Anorm},
					{"acond", res.ACond, f.Acond, anormTol * f.Acond},
					{"xnorm", res.XNorm, f.Xnorm, 1e-6 * f.Xnorm},
					{"r1norm", res.RNorm, f.R1norm, 1e-6*bn + 1e-3*math.Abs(f.R1norm)},
					{"r2norm", res.R2Norm, f.R2norm, 1e-6*bn + 1e-3*f.R2norm},
					{"arnorm", res.ArNorm, f.Arnorm, 1e-6 * res.ANorm * bn},
				} {
					if math.Abs(e.got-e.want) > e.tol {
						t.Errorf("%s: %s = %.10g, scipy %.10g", name, e.what, e.got, e.want)
					}
				}
				if d := relDiff(res.X, f.X); d > math.Max(1e-6, f.Atol*f.Acond) {
					t.Errorf("%s: x differs from scipy's by %.2e", name, d)
				}
			}
			if res.Status.Converged() {
				// Backward-error tolerances bound the forward error by
				// about tol·cond.
				tol := math.Max(f.Atol, 1e-15) * res.ACond * 10
				if d := relDiff(res.X, exact); d > math.Max(tol, 1e-12) {
					t.Errorf("%s: x is %.2e from the exact solution (bound %.2e)", name, d, tol)
				}
			}
			if res.Flam != flam.LSQR(f.M, f.N, res.Iterations) {
				t.Errorf("%s: flam %v, want %v", name, res.Flam, flam.LSQR(f.M, f.N, res.Iterations))
			}
		}
	}
}

// The estimates agree with the quantities computed from x.
func TestEstimates(t *testing.T) {
	for _, damp := range []float64{0, 0.3} {
		a, b, _ := psProblem(60, 40, 2, 1, false, damp)
		res, err := lsqr.Solve(context.Background(), backend.GeneralOp{A: a}, b, lsqr.Settings{Damp: damp, ATol: 1e-10, BTol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		r, atr := residuals(a, b, res.X, damp)
		name := fmt.Sprintf("damp=%g", damp)
		if got, want := res.RNorm, nrm(r); math.Abs(got-want) > 1e-8*want {
			t.Errorf("%s: RNorm %v, ‖b − Ax‖ = %v", name, got, want)
		}
		want2 := math.Sqrt(nrm(r)*nrm(r) + damp*damp*nrm(res.X)*nrm(res.X))
		if math.Abs(res.R2Norm-want2) > 1e-8*want2 {
			t.Errorf("%s: R2Norm %v, want %v", name, res.R2Norm, want2)
		}
		if got, want := res.XNorm, nrm(res.X); math.Abs(got-want) > 1e-10*want {
			t.Errorf("%s: XNorm %v, ‖x‖ = %v", name, got, want)
		}
		// ‖Āᵀr̄‖ is what stopped the iteration (Status LeastSquares):
		// at most ATol·‖Ā‖·‖r̄‖, and equal to the computed one.
		if res.Status != lsqr.LeastSquares || res.ArNorm > 1e-10*res.ANorm*res.R2Norm {
			t.Errorf("%s: %v with ArNorm %v", name, res.Status, res.ArNorm)
		}
		if got, want := res.ArNorm, nrm(atr); math.Abs(got-want) > 1e-3*want {
			t.Errorf("%s: ArNorm %v, ‖Aᵀr − damp²x‖ = %v", name, got, want)
		}
		// ANorm = ‖B_k‖_F grows towards ‖Ā‖_F from below while the
		// bidiagonalization keeps its orthogonality (k < n here).
		if res.Iterations >= 40 {
			t.Fatalf("%s: %d iterations", name, res.Iterations)
		}
		fro := 0.0
		for _, v := range a.Data {
			fro += v * v
		}
		fro = math.Sqrt(fro + damp*damp*40)
		if res.ANorm > fro*(1+1e-12) || res.ANorm < 0.5*fro {
			t.Errorf("%s: ANorm %v, ‖Ā‖_F = %v", name, res.ANorm, fro)
		}
	}
}
