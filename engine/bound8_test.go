package engine

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

// TestMinPlus2MatchesGo checks the geodesic table's kernel against its Go
// form bit for bit, on odd and even lengths, with +Inf (unreachable) and
// zero entries.
func TestMinPlus2MatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, n := range []int{0, 1, 2, 5, 64, 1001} {
		ref, r0, r1 := make([]float64, n), make([]float64, n+3), make([]float64, n+3)
		for i := range r0 {
			r0[i], r1[i] = rng.ExpFloat64(), rng.ExpFloat64()
			switch rng.IntN(8) {
			case 0:
				r0[i] = math.Inf(1)
			case 1:
				r1[i] = 0
			}
		}
		for i := range ref {
			ref[i] = 2 * rng.ExpFloat64()
		}
		if n > 0 {
			ref[0] = math.Inf(1)
		}
		want := append([]float64(nil), ref...)
		minPlus2(ref, r0, r1, 0.5, 0)
		minPlus2Go(want, r0, r1, 0.5, 0)
		for i := range ref {
			if ref[i] != want[i] || math.Signbit(ref[i]) || ref[i] > 0.5+r0[i] || ref[i] > r1[i] {
				t.Fatalf("n=%d entry %d: %v, Go %v (r0 %v, r1 %v)", n, i, ref[i], want[i], r0[i], r1[i])
			}
		}
	}
}
