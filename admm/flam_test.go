package admm

import (
	"math"
	"testing"

	"github.com/manifoldlab/manifold/backend/flam"
)

// The ADMM and SVT counts against hand counts for small sizes.
func TestFlamCounts(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
	}{
		// 10×4 design: Syrk(4, 10) = 4·5/2·10 = 100, Potrf(4) = 64/6, Aᵀb = 40.
		{"lassoFactorFlam tall", lassoFactorFlam(10, 4), 100 + 64.0/6 + 40},
		{"lassoFactorFlam wide = tall", lassoFactorFlam(4, 10), lassoFactorFlam(10, 4)},
		// Tall: two triangular solves n² + 8n; wide: 2mn + m² + 8n.
		{"lassoIterFlam tall", lassoIterFlam(10, 4), 16 + 32},
		{"lassoIterFlam wide", lassoIterFlam(4, 10), 80 + 16 + 80},
		{"lassoRefactorFlam", lassoRefactorFlam(10, 4), 64.0/6 + 10},
		// m = 6, n = 4, dense: SᵀR 4·4·6 = 96, SZ 6·4·4 = 96, 12·(24 + 16).
		{"LRRIterFlam dense", LRRIterFlam(6, 4, -1), 96 + 96 + 480},
		// rank 1 < n/2: SZ through the factors, 2·6·4·1 = 48.
		{"LRRIterFlam rank 1", LRRIterFlam(6, 4, 1), 96 + 48 + 480},
		{"svtFullFlam", svtFullFlam(4, 4), flam.SVD(4, 4) + 16},
		{"svtSweepFlam", svtSweepFlam(8, 2), 2*128 + 2*flam.Geqrf(8, 2) + flam.SVD(2, 8) + 32},
		{"svtRebuildFlam", svtRebuildFlam(5, 2), 50 + 10},
	}
	for _, c := range cases {
		if math.Abs(c.got-c.want) > 1e-12*c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
