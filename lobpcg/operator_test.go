package lobpcg_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/lobpcg"
	"github.com/manifoldlab/manifold/sparse"
)

// randomWeights returns an n×n W with at most k entries in each row
// (duplicates summed), none on the diagonal, small integers when integer is set (every sum then exact,
// whatever its order), normal values otherwise.
func randomWeights(n, k int, integer bool, seed uint64) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, 11))
	c := sparse.NewCOO(n, n, n*k)
	for i := 0; i < n; i++ {
		for p := 1; p <= k; p++ {
			v := rng.NormFloat64()
			if integer {
				v = float64(rng.IntN(9) - 4)
			}
			c.Add(i, (i+p*(1+rng.IntN(n/k-1)))%n, v) // an offset in [1, n − k]: not i
		}
	}
	return c.ToCSR()
}

// checkOperator compares op's product, on a block of 3 columns inside
// rows of stride 5 (column views, as Bottom passes them), and its
// diagonal with those of the dense b: bit for bit when exact, else to
// 1e-13 of the largest entry.
func checkOperator(t *testing.T, what string, op lobpcg.Operator, b *mat.Dense, exact bool) {
	t.Helper()
	n, _ := b.Dims()
	rng := rand.New(rand.NewPCG(7, 1))
	src := blas64.General{Rows: n, Cols: 3, Stride: 5, Data: make([]float64, 5*n)}
	dst := blas64.General{Rows: n, Cols: 3, Stride: 5, Data: make([]float64, 5*n)}
	x := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < 3; j++ {
			v := float64(rng.IntN(11) - 5)
			if !exact {
				v = rng.NormFloat64()
			}
			src.Data[i*5+j] = v
			x.Set(i, j, v)
		}
		dst.Data[i*5+3] = 42 // outside the view: left alone
	}
	if err := op.Mul(context.Background(), dst, src); err != nil {
		t.Fatal(err)
	}
	var want mat.Dense
	want.Mul(b, x)
	same := func(got, want, scale float64) bool {
		if exact {
			return got == want
		}
		return math.Abs(got-want) <= 1e-13*scale
	}
	scale := mat.Norm(&want, math.Inf(1))
	for i := 0; i < n; i++ {
		for j := 0; j < 3; j++ {
			if g, w := dst.Data[i*5+j], want.At(i, j); !same(g, w, scale) {
				t.Fatalf("%s: (B·x)[%d, %d] = %v, dense %v", what, i, j, g, w)
			}
		}
		if dst.Data[i*5+3] != 42 {
			t.Fatalf("%s: the product wrote outside its block in row %d", what, i)
		}
	}
	d := op.Diagonal()
	if len(d) != n {
		t.Fatalf("%s: %d diagonal entries, want %d", what, len(d), n)
	}
	scale = mat.Norm(b, math.Inf(1))
	for i, v := range d {
		if !same(v, b.At(i, i), scale) {
			t.Fatalf("%s: diagonal %d = %v, dense %v", what, i, v, b.At(i, i))
		}
	}
}

// LLEOperator against M = (I − W)ᵀ(I − W) formed densely, and
// CSROperator against the dense matrix it holds: products and diagonals,
// bit for bit on integer values.
func TestOperatorsAgainstDense(t *testing.T) {
	const n = 60
	for _, exact := range []bool{true, false} {
		w := randomWeights(n, 4, exact, 3)
		var a, m mat.Dense
		a.Sub(sparse.Identity(n).ToDense(), w.ToDense())
		m.Mul(a.T(), &a)
		checkOperator(t, fmt.Sprintf("LLEOperator, integer %v", exact), lobpcg.NewLLEOperator(w, 3), &m, exact)
		b := sparse.FromDense(&m)
		checkOperator(t, fmt.Sprintf("CSROperator, integer %v", exact), lobpcg.NewCSROperator(b), &m, exact)
	}
}

// Cancelled, the operators' products return an error wrapping
// context.Canceled.
func TestOperatorsCancel(t *testing.T) {
	const n, b = 20000, 4
	w := randomWeights(n, 8, false, 5)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := blas64.General{Rows: n, Cols: b, Stride: b, Data: make([]float64, n*b)}
	dst := blas64.General{Rows: n, Cols: b, Stride: b, Data: make([]float64, n*b)}
	for _, op := range []lobpcg.Operator{lobpcg.NewLLEOperator(w, b), lobpcg.NewCSROperator(w)} {
		if err := op.Mul(ctx, dst, src); !errors.Is(err, context.Canceled) {
			t.Errorf("%T: %v, want context.Canceled", op, err)
		}
	}
}

// LLE's M for six points on a line, each rebuilt from its neighbours by
// weights summing to one (x₀ = 2·x₁ − x₂, xᵢ = (xᵢ₋₁ + xᵢ₊₁)/2, and
// x₅ = 2·x₄ − x₃), never formed: it vanishes on the constant and the
// linear functions (the points' coordinate), not on a quadratic.
func ExampleLLEOperator() {
	const n = 6
	w := sparse.NewCOO(n, n, 2*n)
	w.Add(0, 1, 2)
	w.Add(0, 2, -1)
	for i := 1; i < n-1; i++ {
		w.Add(i, i-1, 0.5)
		w.Add(i, i+1, 0.5)
	}
	w.Add(n-1, n-2, 2)
	w.Add(n-1, n-3, -1)
	m := lobpcg.NewLLEOperator(w.ToCSR(), 3)
	ctx := context.Background()
	x := blas64.General{Rows: n, Cols: 3, Stride: 3, Data: make([]float64, 3*n)}
	for i := 0; i < n; i++ {
		x.Data[3*i], x.Data[3*i+1], x.Data[3*i+2] = 1, float64(i), float64(i*i)
	}
	mx := blas64.General{Rows: n, Cols: 3, Stride: 3, Data: make([]float64, 3*n)}
	if err := m.Mul(ctx, mx, x); err != nil {
		panic(err)
	}
	fmt.Println("diag(M):", m.Diagonal())
	for c, name := range []string{"1", "i", "i²"} {
		col := make([]float64, n)
		for i := range col {
			col[i] = mx.Data[3*i+c]
		}
		fmt.Printf("M·%s: %v\n", name, col)
	}
	// Output:
	// diag(M): [1.25 5.25 2.5 2.5 5.25 1.25]
	// M·1: [0 0 0 0 0 0]
	// M·i: [0 0 0 0 0 0]
	// M·i²: [2.5 -4.5 2 2 -4.5 2.5]
}
