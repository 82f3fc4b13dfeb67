package admm_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/admm"
	"github.com/manifoldlab/manifold/backend"
)

// The lasso on an orthogonal design has a closed form, soft thresholding:
// with A = I and λ = 1, x_j = sign(b_j)·max(|b_j| − 1, 0).
func ExampleElasticNet_Solve() {
	a := blas64.General{Rows: 4, Cols: 4, Stride: 4, Data: []float64{
		1, 0, 0, 0,
		0, 1, 0, 0,
		0, 0, 1, 0,
		0, 0, 0, 1,
	}}
	b := []float64{3, -0.5, -2, 1.25}
	net, err := admm.NewElasticNet(backend.GeneralOp{A: a}, b)
	if err != nil {
		panic(err)
	}
	fit, err := net.Solve(context.Background(), 1, admm.NetSettings{}, nil)
	if err != nil {
		panic(err)
	}
	for _, x := range fit.X {
		fmt.Printf("%.4f\n", x)
	}
	fmt.Printf("objective %.4f\n", fit.Stats.Objective)
	// Output:
	// 2.0000
	// 0.0000
	// -1.0000
	// 0.2500
	// objective 4.8750
}

// A regularization path from λ_max down, warm-started.
func ExampleElasticNet_Path() {
	a := blas64.General{Rows: 6, Cols: 3, Stride: 3, Data: []float64{
		1, 0, 1,
		0, 1, 1,
		1, 1, 0,
		1, 0, 0,
		0, 1, 0,
		0, 0, 1,
	}}
	b := []float64{2, 1, 3, 2, 1, 1}
	net, err := admm.NewElasticNet(backend.GeneralOp{A: a}, b)
	if err != nil {
		panic(err)
	}
	lambdas := admm.LambdaGrid(net.LambdaMax(1), 0.001, 5)
	fits, err := net.Path(context.Background(), lambdas, admm.NetSettings{})
	if err != nil {
		panic(err)
	}
	// Least squares gives x = (1.9, 0.9, 0.4); once all three are active
	// the lasso subtracts λ·(AᵀA)⁻¹·1 = 0.2·λ from each.
	for _, f := range fits {
		fmt.Printf("λ = %6.3f: x = [%6.3f %6.3f %6.3f]\n", f.Lambda, f.X[0], f.X[1], f.X[2])
	}
	// Output:
	// λ =  7.000: x = [ 0.000  0.000  0.000]
	// λ =  1.245: x = [ 1.651  0.651  0.151]
	// λ =  0.221: x = [ 1.856  0.856  0.356]
	// λ =  0.039: x = [ 1.892  0.892  0.392]
	// λ =  0.007: x = [ 1.899  0.899  0.399]
}

// Low-rank representation of points on two rays from the origin in R³:
// Z links each point only to points of its own ray.
func ExampleLRR() {
	// Columns 0–2 lie on the ray through (1, 2, 0), columns 3–5 on the
	// ray through (0, 1, 3) (Z ≥ 0 combines points with positive weights),
	// at a scale where representing S through Z is cheaper than through E.
	s := blas64.General{Rows: 3, Cols: 6, Stride: 6, Data: []float64{
		100, 200, 150, 0, 0, 0,
		200, 400, 300, 100, 200, 50,
		0, 0, 0, 300, 600, 150,
	}}
	res, err := admm.LRR(context.Background(), s, admm.LRRSettings{})
	if err != nil {
		panic(err)
	}
	within, across := 0.0, 0.0
	for i := 0; i < 6; i++ {
		for j := 0; j < 6; j++ {
			if (i < 3) == (j < 3) {
				within += res.J.Data[i*6+j]
			} else {
				across += res.J.Data[i*6+j]
			}
		}
	}
	fmt.Println("converged:", res.Stats.Converged)
	fmt.Printf("share of Z within the lines: %.3f\n", within/(within+across))
	// Output:
	// converged: true
	// share of Z within the lines: 1.000
}

// boxProjection is min ½‖x − a‖² subject to 0 ≤ x ≤ 1, split for the
// driver as f(x) = ½‖x − a‖², g(z) = indicator of the box, x − z = 0.
type boxProjection struct{ a []float64 }

func (p boxProjection) Dims() (n, m, q int) { return len(p.a), len(p.a), len(p.a) }

// UpdateX: argmin ½‖x − a‖² + ρ/2‖x + v‖² = (a − ρv)/(1 + ρ).
func (p boxProjection) UpdateX(x, ax, v []float64, rho float64) error {
	for i := range x {
		x[i] = (p.a[i] - rho*v[i]) / (1 + rho)
		ax[i] = x[i]
	}
	return nil
}

// UpdateZ: argmin over the box of ρ/2‖−z + w‖²: w clipped to [0, 1].
func (p boxProjection) UpdateZ(z, bz, w []float64, rho float64) error {
	for i, v := range w {
		z[i] = min(1, max(0, v))
		bz[i] = -z[i]
	}
	return nil
}

func (p boxProjection) MulATTo(dst, y []float64) { copy(dst, y) }
func (p boxProjection) C() []float64             { return nil }

// The driver on a problem of one's own: projecting onto a box, whose
// answer is clipping.
func ExampleSolve() {
	p := boxProjection{a: []float64{-0.5, 0.25, 3}}
	var st admm.State
	stats, err := admm.Solve(context.Background(), p, &st, admm.Settings{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("z = [%.4f %.4f %.4f], converged %v\n", st.Z[0], st.Z[1], st.Z[2], stats.Converged)
	// Output:
	// z = [0.0000 0.2500 1.0000], converged true
}
