package flam_test

import (
	"testing"

	"github.com/manifoldlab/manifold/backend/flam"
)

// The counts of the projection methods (OIP, TDPM, Low-Rank Isomap, LDA) against hand counts for small sizes.
func TestProjectionCounts(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
	}{
		// n=4, d=2: Syrk 2·3/2·4 = 12, n²d/2 = 16, d²n = 16, d³ = 8.
		{"OIPForm 4×2", flam.OIPForm(4, 2), 12 + 16 + 16 + 8},
		{"OIPProduct 4×2", flam.OIPProduct(4, 2), 4*4*2 + 16},
		// n=2 points, d=3, k=4, t=1: per point 3·4·5/2 = 30, Syevd(4) = 4.5·64 = 288, 3·4·1 = 12.
		{"TangentSpaces", flam.TangentSpaces(2, 3, 4, 1), 2 * (30 + 288 + 12)},
		// SqDist(3,3,2,self) = 3·4/2·2 + 9 = 21, plus 9·2·1.
		{"TangentDistances", flam.TangentDistances(3, 2, 1), 21 + 18},
		{"TangentDistancesGram", flam.TangentDistancesGram(3, 4, 2), 9 * 8},
		// n=5, d=2, c=3: 10 + Syrk(2,5) = 15 + Syrk(2,3) = 9.
		{"ClassScatter", flam.ClassScatter(5, 2, 3), 10 + 15 + 9},
		// d=2, c=1, m=1: Potrf 8/6, 4·1, SVD(2,1) = 1.5·2 + 4.5, 4·1.
		{"FisherReduction", flam.FisherReduction(2, 1, 1), 8.0/6 + 4 + 7.5 + 4},
	}
	for _, c := range cases {
		if d := c.got - c.want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// The Gram path of TDPM is cheaper exactly when k·t + d/2 < d·t.
	if flam.TangentDistancesGram(4649, 12, 5)+flam.Syrk(4649, 256) >= flam.TangentDistances(4649, 256, 5) {
		t.Error("USPS: the Gram path is not predicted cheaper")
	}
}
