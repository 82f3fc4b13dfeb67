package principal

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/manifoldlab/manifold/backend"
)

// A row's coordinates are the same whatever the block Project puts it in
// (4096, 1024 or 333 rows a matrix product) with the pure-Go backend, and
// the same to rounding with OpenBLAS: 9000 rows of 256 features near a
// 20-dimensional subspace.
func TestProjectBlocks(t *testing.T) {
	n, d := 9000, 256
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, n*d)
	basis := make([]float64, 20*d)
	for i := range basis {
		basis[i] = rng.NormFloat64()
	}
	for i := 0; i < n; i++ {
		for a := 0; a < 20; a++ {
			z := rng.NormFloat64()
			for c := 0; c < d; c++ {
				x[i*d+c] += z * basis[a*d+c]
			}
		}
		for c := 0; c < d; c++ {
			x[i*d+c] += 0.01 * rng.NormFloat64()
		}
	}
	row := func(i int, _ []float64) []float64 { return x[i*d : (i+1)*d] }
	axes, mean, err := Axes(context.Background(), n, d, row, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	run := func() []float64 {
		out := make([]float64, n*axes.Cols)
		Project(context.Background(), n, row, axes, mean, func(r int, _, z []float64) { copy(out[r*axes.Cols:], z) })
		return out
	}
	a := run()
	old := projectRows
	projectRows = 4096
	b := run()
	projectRows = 333
	c := run()
	projectRows = old
	if axes.Cols == 0 {
		t.Fatal("no axes")
	}
	if backend.Active() != backend.PureGo {
		// OpenBLAS's kernels split a product by its shape: a row's
		// entries can differ in the last bits from one blocking to
		// another (the blocking is fixed, so a run is still
		// deterministic); they must agree to rounding.
		for i := range a {
			for _, o := range []float64{b[i], c[i]} {
				if math.Abs(o-a[i]) > 1e-12*(1+math.Abs(a[i])) {
					t.Fatalf("%d axes: coordinate %d is %v with blocks of 1024 rows and %v with another blocking", axes.Cols, i, a[i], o)
				}
			}
		}
		return
	}
	if !slices.Equal(a, b) || !slices.Equal(a, c) {
		t.Errorf("%d axes: the coordinates differ with the block (4096 rows: %v, 333 rows: %v)", axes.Cols, slices.Equal(a, b), slices.Equal(a, c))
	}
}
