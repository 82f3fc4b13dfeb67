package lanczos_test

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lanczos"
	"github.com/manifoldlab/manifold/sparse"
)

// gridLaplacian returns the 5-point Laplacian (4 on the diagonal, −1 to
// the grid neighbours) of a g×g grid as a *sparse.CSR. Its eigenvalues
// are μ_i + μ_j, μ_i = 2 − 2cos(iπ/(g+1)), i, j = 1…g.
func gridLaplacian(t *testing.T, g int) *sparse.CSR {
	n := g * g
	indptr := []int{0}
	var ind []int
	var data []float64
	for i := 0; i < g; i++ {
		for j := 0; j < g; j++ {
			p := i*g + j
			add := func(q int, v float64) { ind = append(ind, q); data = append(data, v) }
			if i > 0 {
				add(p-g, -1)
			}
			if j > 0 {
				add(p-1, -1)
			}
			add(p, 4)
			if j < g-1 {
				add(p+1, -1)
			}
			if i < g-1 {
				add(p+g, -1)
			}
			indptr = append(indptr, len(ind))
		}
	}
	a, err := sparse.NewCSR(n, n, indptr, ind, data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A *sparse.CSR is an operator (vector and block products) and its
// NNZ() feeds the flam count. The smallest eigenvalues of the grid
// Laplacian are known in closed form, the second one twice (i, j = 1, 2
// and 2, 1): a block of two finds both copies.
func TestSparseCSR(t *testing.T) {
	const g = 30
	a := gridLaplacian(t, g)
	var want []float64
	mu := func(i int) float64 { return 2 - 2*math.Cos(float64(i)*math.Pi/float64(g+1)) }
	for i := 1; i <= g; i++ {
		for j := 1; j <= g; j++ {
			want = append(want, mu(i)+mu(j))
		}
	}
	sort.Float64s(want)
	for _, b := range []int{2, 3} {
		res, err := lanczos.Solve(context.Background(), a, lanczos.Settings{K: 4, Which: lanczos.Smallest, BlockSize: b, Tol: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range res.Values {
			if math.Abs(v-want[i]) > 8e-10 {
				t.Errorf("b=%d: value %d = %.15g, exact %.15g", b, i, v, want[i])
			}
		}
		nnz := float64(a.NNZ())
		if res.Stats.Flam < float64(res.Stats.MatVecs)*nnz || res.Stats.Flam > float64(res.Stats.MatVecs)*(nnz+float64(20*g*g*res.Stats.BasisSize)) {
			t.Errorf("b=%d: flam %.3g for %d products of nnz %d", b, res.Stats.Flam, res.Stats.MatVecs, a.NNZ())
		}
	}
}

// Results do not depend on the number of cores: the kernels split work in
// a fixed way and sum in order.
func TestGOMAXPROCS(t *testing.T) {
	n := 1100 // two column chunks in the orthogonalization kernels
	if raceEnabled {
		n = 300
	}
	// A random symmetric matrix with two spikes well above its spectrum's
	// edge (2·√(n/2)): few products.
	a := randomSymmetric(n, 5)
	rnd := rand.New(rand.NewPCG(6, 6))
	u, w := make([]float64, n), make([]float64, n)
	for i := range u {
		u[i], w[i] = rnd.NormFloat64()/math.Sqrt(float64(n)), rnd.NormFloat64()/math.Sqrt(float64(n))
	}
	spike := 4 * math.Sqrt(float64(n))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a.Data[i*n+j] += spike * (u[i]*u[j] + 1.5*w[i]*w[j])
		}
	}
	s := lanczos.Settings{K: 2, Seed: 1}
	r1, err := lanczos.Solve(context.Background(), backend.FullSymOp{A: a, Impl: backend.PureGo}, s)
	if err != nil {
		t.Fatal(err)
	}
	prev := runtime.GOMAXPROCS(1)
	r2, err := lanczos.Solve(context.Background(), backend.FullSymOp{A: a, Impl: backend.PureGo}, s)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r1.Vectors.Data {
		if r1.Vectors.Data[i] != r2.Vectors.Data[i] {
			t.Fatalf("vectors differ between GOMAXPROCS %d and 1", prev)
		}
	}
}
