package tangent

import (
	"testing"

	"github.com/manifoldlab/manifold/backend/flam"
)

// The flam counts against hand counts for small sizes.
func TestFlamCounts(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
	}{
		// n=2 points, d=3, k=4, t=1: per point 3·4·5/2 = 30, Syevd(4) = 4.5·64 = 288, 3·4·1 = 12.
		{"SpacesFlam", SpacesFlam(2, 3, 4, 1), 2 * (30 + 288 + 12)},
		// SqDist(3,3,2,self) = 3·4/2·2 + 9 = 21, plus 9·2·1.
		{"DistancesFlam", DistancesFlam(3, 2, 1), 21 + 18},
		{"DistancesGramFlam", DistancesGramFlam(3, 4, 2), 9 * 8},
		// k = 3 points of 2 entries: 6 products of 2, 9 for the centring.
		{"LocalPCAFlam k=3", LocalPCAFlam(3, 2, 1), 12 + 9 + flam.Syevr(3, 1)},
	}
	for _, c := range cases {
		if d := c.got - c.want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// The Gram path (with its Gram matrix) is cheaper exactly when
	// k·t + d/2 < d·t: so at USPS's size, k = 12, t = 5.
	if DistancesGramFlam(4649, 12, 5)+flam.Syrk(4649, 256) >= DistancesFlam(4649, 256, 5) {
		t.Error("USPS: the Gram path is not predicted cheaper")
	}
}
