package geodesic

import (
	"math"
	"math/rand/v2"
	"testing"
)

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
