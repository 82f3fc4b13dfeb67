package backendtest

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// The reference checks read their matrices along rows; each must give the
// value of its definition, entry by entry summed in the same order, to the
// bit — and a spoiled factor must show.
func TestRowWiseChecks(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, sh := range [][2]int{{1, 1}, {7, 3}, {40, 40}, {90, 17}} {
		m, n := sh[0], sh[1]
		z := general(rnd, m, n, n+2)
		// orthoError by its definition: max |Σᵢ z_ia z_ib − δ_ab|.
		want := 0.0
		for a := 0; a < n; a++ {
			for b := 0; b <= a; b++ {
				s := 0.0
				for i := 0; i < m; i++ {
					s += at(z, i, a) * at(z, i, b)
				}
				if a == b {
					s--
				}
				want = max(want, math.Abs(s))
			}
		}
		if got := orthoError(z); got != want {
			t.Errorf("%d×%d: orthoError %v, by its definition %v", m, n, got, want)
		}
		if m != n {
			continue
		}
		// eigResidual by its definition, for a symmetric A and any w, Z.
		full := symFull(randomSym(rnd, n, n))
		w := make([]float64, n)
		for j := range w {
			w[j] = rnd.NormFloat64()
		}
		worst := 0.0
		for j := 0; j < n; j++ {
			r := 0.0
			for i := 0; i < n; i++ {
				s := -w[j] * at(z, i, j)
				for k := 0; k < n; k++ {
					s += full[i*n+k] * at(z, k, j)
				}
				r += s * s
			}
			worst = max(worst, math.Sqrt(r))
		}
		if got := eigResidual(full, n, w, z); got != worst {
			t.Errorf("%d×%d: eigResidual %v, by its definition %v", m, n, got, worst)
		}
	}
	// An exact orthonormal Z and an exact eigenpair give 0; one spoiled entry does not.
	id := blas64.General{Rows: 3, Cols: 3, Stride: 3, Data: []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}}
	diag := []float64{2, 0, 0, 0, 3, 0, 0, 0, 5}
	if e, r := orthoError(id), eigResidual(diag, 3, []float64{2, 3, 5}, id); e != 0 || r != 0 {
		t.Errorf("identity: orthoError %v, eigResidual %v; want 0 and 0", e, r)
	}
	id.Data[1] = 1e-9 // z₁ leans towards e₀: no longer orthogonal to z₀, nor an eigenvector
	if e, r := orthoError(id), eigResidual(diag, 3, []float64{2, 3, 5}, id); !(e >= 1e-9) || !(r >= 1e-9) {
		t.Errorf("spoiled identity: orthoError %v, eigResidual %v; want both ≥ 1e-9", e, r)
	}
}
