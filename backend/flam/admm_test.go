package flam_test

import (
	"math"
	"testing"

	"github.com/manifoldlab/manifold/backend/flam"
)

// The ADMM, SVT and LARS counts against hand counts for small sizes.
func TestADMMCounts(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
	}{
		// 10×4 design: Syrk(4, 10) = 4·5/2·10 = 100, Potrf(4) = 64/6, Aᵀb = 40.
		{"LassoFactor tall", flam.LassoFactor(10, 4), 100 + 64.0/6 + 40},
		{"LassoFactor wide = tall", flam.LassoFactor(4, 10), flam.LassoFactor(10, 4)},
		// Tall: two triangular solves n² + 8n; wide: 2mn + m² + 8n.
		{"LassoIter tall", flam.LassoIter(10, 4), 16 + 32},
		{"LassoIter wide", flam.LassoIter(4, 10), 80 + 16 + 80},
		{"LassoRefactor", flam.LassoRefactor(10, 4), 64.0/6 + 10},
		// m = 6, n = 4, dense: SᵀR 4·4·6 = 96, SZ 6·4·4 = 96, 12·(24 + 16).
		{"LRRIter dense", flam.LRRIter(6, 4, -1), 96 + 96 + 480},
		// rank 1 < n/2: SZ through the factors, 2·6·4·1 = 48.
		{"LRRIter rank 1", flam.LRRIter(6, 4, 1), 96 + 48 + 480},
		{"SVTFull", flam.SVTFull(4, 4), flam.SVD(4, 4) + 16},
		{"SVTSweep", flam.SVTSweep(8, 2), 2*128 + 2*flam.Geqrf(8, 2) + flam.SVD(2, 8) + 32},
		{"SVTRebuild", flam.SVTRebuild(5, 2), 50 + 10},
		{"LARSGram", flam.LARSGram(10, 3), 60 + 30},
		// k = 2 of p = 5, n = 10, with the Gram matrix: 4 + 10 + 2 + 20.
		{"LARSStep gram", flam.LARSStep(10, 5, 2, true), 4 + 10 + 2 + 20},
		// without: 4 + 20 + 50 + 2 + 20 + 20 + 20.
		{"LARSStep x", flam.LARSStep(10, 5, 2, false), 4 + 20 + 50 + 2 + 20 + 20 + 20},
	}
	for _, c := range cases {
		if math.Abs(c.got-c.want) > 1e-12*c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
