package sparse_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// landmarkPair returns a random N×N W with no diagonal (k entries a row)
// and a random N×L Z (1 to kz entries a row, some rows a single 1: a
// landmark), with small integer values when integer is set (then every
// sum is exact, whatever its order) or normal ones.
func landmarkPair(n, l, k, kz int, integer bool, seed uint64) (w, z *sparse.CSR) {
	rng := rand.New(rand.NewPCG(seed, 3))
	value := func() float64 {
		if integer {
			return float64(rng.IntN(7) - 3)
		}
		return rng.NormFloat64()
	}
	wc := sparse.NewCOO(n, n, n*k)
	zc := sparse.NewCOO(n, l, n*kz)
	for i := 0; i < n; i++ {
		seen := map[int]bool{i: true} // no diagonal
		for len(seen) <= k {
			if j := rng.IntN(n); !seen[j] {
				seen[j] = true
				wc.Add(i, j, value())
			}
		}
		if rng.IntN(5) == 0 {
			zc.Add(i, rng.IntN(l), 1)
			continue
		}
		for _, a := range rng.Perm(l)[:1+rng.IntN(kz)] {
			zc.Add(i, a, value())
		}
	}
	return wc.ToCSR(), zc.ToCSR()
}

// compareDense reports the entries of got (L×L) that differ from want:
// by more than tol·max|want| (exact: tol = 0), on the upper triangle when
// upper is set (and the strict lower triangle must be zero).
func compareDense(t *testing.T, what string, got blas64.General, want mat.Matrix, tol float64, upper bool) {
	t.Helper()
	l, _ := want.Dims()
	if got.Rows != l || got.Cols != l {
		t.Fatalf("%s: %d×%d, want %d×%d", what, got.Rows, got.Cols, l, l)
	}
	scale := mat.Norm(want, math.Inf(1))
	for i := 0; i < l; i++ {
		for j := 0; j < l; j++ {
			g := got.Data[i*got.Stride+j]
			w := want.At(i, j)
			if upper && j < i {
				w = 0
			}
			if d := math.Abs(g - w); d > tol*scale || tol == 0 && g != w {
				t.Errorf("%s: (%d, %d) = %v, dense %v", what, i, j, g, w)
				return
			}
		}
	}
}

// Reduction's Zᵀ·Z, Zᵀ·M·Z (M = (I − W)ᵀ(I − W)) and Zᵀ·B·Z against the
// dense products of gonum, M and B formed explicitly: bit for bit with
// integer values, to rounding with normal ones.
func TestReductionAgainstDense(t *testing.T) {
	ctx := context.Background()
	const n, l = 70, 12
	for _, integer := range []bool{true, false} {
		tol := 1e-13
		if integer {
			tol = 0
		}
		name := fmt.Sprintf("integer %v", integer)
		w, z := landmarkPair(n, l, 5, 4, integer, 1)
		wd, zd := w.ToDense(), z.ToDense()
		var a, m, zm, want mat.Dense
		a.Sub(sparse.Identity(n).ToDense(), wd)
		m.Mul(a.T(), &a) // M = (I − W)ᵀ(I − W)
		r := sparse.NewReduction(z)

		gram, err := r.Gram(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want.Mul(zd.T(), zd)
		compareDense(t, name+": Zᵀ·Z", gram, &want, tol, true)

		lle, err := r.LLE(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		zm.Mul(zd.T(), &m)
		want.Mul(&zm, zd)
		compareDense(t, name+": Zᵀ·M·Z", lle, &want, tol, true)

		// A formed B, not symmetric: Of does not need it to be.
		b := randomCSR(n, n, 0.1, 4)
		if integer {
			b = b.Map(func(_, _ int, v float64) float64 { return math.Round(3 * v) })
		}
		of, err := r.Of(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		zm.Reset()
		want.Reset()
		zm.Mul(zd.T(), b.ToDense())
		want.Mul(&zm, zd)
		compareDense(t, name+": Zᵀ·B·Z", of, &want, tol, false)
	}
}

// Reduction's matrices are the same bits at GOMAXPROCS 1, 2 and 8, with
// enough rows for several parallel chunks of (I − W)·Z.
func TestReductionSameAtEveryProcs(t *testing.T) {
	ctx := context.Background()
	n := 9000
	if raceEnabled {
		n = 4500
	}
	w, z := landmarkPair(n, 40, 6, 3, false, 2)
	b := w.Transpose()
	var first [][]float64
	for _, procs := range []int{1, 2, 8} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			r := sparse.NewReduction(z)
			var got [][]float64
			for _, f := range []func() (blas64.General, error){
				func() (blas64.General, error) { return r.Gram(ctx) },
				func() (blas64.General, error) { return r.LLE(ctx, w) },
				func() (blas64.General, error) { return r.Of(ctx, b) },
			} {
				g, err := f()
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, g.Data)
			}
			if first == nil {
				first = got
				return
			}
			for k, g := range got {
				for i, v := range g {
					if math.Float64bits(v) != math.Float64bits(first[k][i]) {
						t.Fatalf("GOMAXPROCS %d: product %d, entry %d = %v, at 1: %v", procs, k, i, v, first[k][i])
					}
				}
			}
		}()
	}
}

// Cancelled, Reduction's products return an error wrapping
// context.Canceled.
func TestReductionCancel(t *testing.T) {
	w, z := landmarkPair(5000, 30, 5, 3, false, 5)
	r := sparse.NewReduction(z)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Gram(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Gram: %v, want context.Canceled", err)
	}
	if _, err := r.LLE(ctx, w); !errors.Is(err, context.Canceled) {
		t.Errorf("LLE: %v, want context.Canceled", err)
	}
	if _, err := r.Of(ctx, w); !errors.Is(err, context.Canceled) {
		t.Errorf("Of: %v, want context.Canceled", err)
	}
}

// Five points on a line, each reconstructed by LLE's weights from its
// neighbours (x₀ = 2·x₁ − x₂, xᵢ = (xᵢ₋₁ + xᵢ₊₁)/2, x₄ = 2·x₃ − x₂), and
// two landmarks at the ends, Z interpolating linearly between them: M
// vanishes on the linear functions Z spans, and the path's Laplacian B
// reduces to that of one edge of weight 1/4 (four edges in series).
func ExampleReduction() {
	w := sparse.NewCOO(5, 5, 10)
	w.Add(0, 1, 2)
	w.Add(0, 2, -1)
	for i := 1; i < 4; i++ {
		w.Add(i, i-1, 0.5)
		w.Add(i, i+1, 0.5)
	}
	w.Add(4, 3, 2)
	w.Add(4, 2, -1)
	z := sparse.NewCOO(5, 2, 8)
	b := sparse.NewCOO(5, 5, 13)
	for i := 0; i < 5; i++ {
		if t := float64(i) / 4; t < 1 {
			z.Add(i, 0, 1-t)
		}
		if i > 0 {
			z.Add(i, 1, float64(i)/4)
			b.Add(i, i, 1)
			b.Add(i-1, i-1, 1)
			b.Add(i, i-1, -1)
			b.Add(i-1, i, -1)
		}
	}
	ctx := context.Background()
	r := sparse.NewReduction(z.ToCSR())
	gram, _ := r.Gram(ctx)
	lle, _ := r.LLE(ctx, w.ToCSR())
	lap, _ := r.Of(ctx, b.ToCSR())
	fmt.Println("Zᵀ·Z (upper):", gram.Data)
	fmt.Println("Zᵀ·M·Z (upper):", lle.Data)
	fmt.Println("Zᵀ·B·Z:", lap.Data)
	// Output:
	// Zᵀ·Z (upper): [1.875 0.625 0 1.875]
	// Zᵀ·M·Z (upper): [0 0 0 0]
	// Zᵀ·B·Z: [0.25 -0.25 -0.25 0.25]
}
