package engine

import (
	"testing"

	"github.com/manifoldlab/manifold/backend/flam"
)

// The method-level counts (kept beside their methods) against hand counts
// for small sizes and closed forms.
func TestMethodFlamCounts(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
	}{
		// m = 2, n = 3, l = 1, p = 4: 1.5·4·3 + 6.5·8 + 4·1·4 = 18 + 52 + 16.
		{"lgeFlam 2×3", lgeFlam(2, 3, 1, 4), 86},
		// eq. (8) is eq. (12)'s competitor: the SVD plus 2m³ plus Lanczos.
		{"lgeFlam = SVD + 2m³ + Lanczos", lgeFlam(50, 80, 3, 20),
			flam.SVD(50, 80) + 2*50*50*50 + flam.Lanczos(50, 3, 20)},
		{"ltsaAlignmentFlam", ltsaAlignmentFlam(5, 3, 2), 5 * 9 * 3},
		// n=4, d=2: Syrk 2·3/2·4 = 12, n²d/2 = 16, d²n = 16, d³ = 8.
		{"oipFormFlam 4×2", oipFormFlam(4, 2), 12 + 16 + 16 + 8},
		{"oipProductFlam 4×2", oipProductFlam(4, 2), 4*4*2 + 16},
	}
	for _, c := range cases {
		if d := c.got - c.want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
