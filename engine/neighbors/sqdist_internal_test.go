package neighbors

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// sqDistSums against the exact squared distance (big.Float sums of the
// float64 differences' squares): within a few ulps relative for every
// length, the one sum's value bit for bit for up to three coordinates (the
// k-d tree's 3-D rows keep their distances), and the same value whether b
// is held in float32 or as those float32 values in float64.
func TestSqDistSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 255, 256, 781, 784} {
		for trial := 0; trial < 20; trial++ {
			a := make([]float64, n)
			b32 := make([]float32, n)
			b := make([]float64, n)
			for c := range a {
				a[c] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
				b32[c] = float32(rng.NormFloat64())
				b[c] = float64(b32[c])
			}
			got := sqDistSums(a, b)
			exact := new(big.Float).SetPrec(2000)
			one := 0.0
			for c := range a {
				d := a[c] - b[c] // exact enough: the reference is of the rounded differences
				sq := new(big.Float).SetPrec(2000).SetFloat64(d)
				sq.Mul(sq, sq)
				exact.Add(exact, sq)
				one += d * d
			}
			want, _ := exact.Float64()
			if math.Abs(got-want) > 1e-15*float64(n)*want {
				t.Fatalf("n = %d: %v, exact %v", n, got, want)
			}
			if n <= 3 && math.Float64bits(got) != math.Float64bits(one) {
				t.Fatalf("n = %d: %v, one sum %v: short rows must keep their distances", n, got, one)
			}
			if g32 := sqDistSums(a, b32); math.Float64bits(g32) != math.Float64bits(got) {
				t.Fatalf("n = %d: float32 b %v, float64 b %v", n, g32, got)
			}
		}
	}
}
