package neighbors

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDots4MatchesGo checks the four-row dot products this platform runs
// (SSE2 assembly on amd64) against their Go form bit for bit, with the
// same row in every position of the four, and against float64 sums to
// float32 rounding, for lengths with and without a tail of 1–3.
func TestDots4MatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, dim := range []int{0, 1, 3, 4, 7, 16, 255, 256} {
		rows := 9
		x := make([]float32, rows*dim+2)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		q := make([]float32, dim)
		for i := range q {
			q[i] = float32(rng.NormFloat64())
		}
		for trial := 0; trial < 20; trial++ {
			var off [4]int
			for r := range off {
				off[r] = rng.IntN(rows) * dim
			}
			var got, want [4]float32
			dots4(q, x, &off, &got)
			dots4LanesGo(q, x, &off, &want)
			dots4Tail(q, x, &off, &want)
			for r := range got {
				exact := 0.0
				for c := 0; c < dim; c++ {
					exact += float64(q[c]) * float64(x[off[r]+c])
				}
				if got[r] != want[r] || math.Abs(float64(got[r])-exact) > 1e-5*(1+math.Sqrt(float64(dim))) {
					t.Fatalf("dim %d row at %d: %v, Go %v, float64 %v", dim, off[r], got[r], want[r], exact)
				}
				for s := range off { // a row gives the same product in every position
					if off[s] == off[r] && got[s] != got[r] {
						t.Fatalf("dim %d: row at %d gives %v and %v", dim, off[r], got[r], got[s])
					}
				}
			}
		}
	}
}
