package neighbors

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSqDist8MatchesGo checks the kernels the search's bounds run on this
// platform (SSE2 assembly on amd64) against their Go form, bit for bit,
// and against a plain sum to rounding, on leaves of 0 to 64 rows, every
// row and a scattered subset of them.
func TestSqDist8MatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, m := range []int{0, 1, 2, 3, 7, 64} {
		var q [8]float64
		for i := range q {
			q[i] = rng.NormFloat64()
		}
		rows := make([]float64, 8*m+5) // longer than needed, as a leaf's chunk is
		for i := range rows {
			rows[i] = rng.NormFloat64() * math.Exp(4*rng.NormFloat64())
		}
		got, want := make([]float64, m), make([]float64, m)
		sqDist8Rows(got, &q, rows)
		sqDist8RowsGo(want, &q, rows)
		for r := range got {
			plain := 0.0
			for i := range q {
				plain += (q[i] - rows[8*r+i]) * (q[i] - rows[8*r+i])
			}
			if got[r] != want[r] || math.Abs(got[r]-plain) > 1e-15*plain {
				t.Fatalf("m=%d row %d: %v, Go %v, plain sum %v", m, r, got[r], want[r], plain)
			}
		}
		var subset []int
		for r := 0; r < m; r += 1 + rng.IntN(3) {
			subset = append(subset, r)
		}
		sqDist8Add(got, &q, rows, subset)
		sqDist8AddGo(want, &q, rows, subset)
		for r := range got {
			if got[r] != want[r] {
				t.Fatalf("m=%d row %d after adding: %v, Go %v", m, r, got[r], want[r])
			}
		}
	}
}
