package flam_test

import (
	"testing"

	"github.com/manifoldlab/manifold/backend/flam"
)

// The solver counts must match the paper's formulas evaluated by hand.
func TestSolverCounts(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
	}{
		// Cai, He & Han, AAAI 2007 eq. 12, second term: p·l·m².
		{"Lanczos n=10 l=2 p=3", flam.Lanczos(10, 2, 3), 3 * 2 * 100},
		// First term: s·(2mn + 3m + 5n).
		{"LSQR 4×3 s=2", flam.LSQR(4, 3, 2), 2 * (24 + 12 + 15)},
		{"LSQRSparse equals dense at nnz=mn", flam.LSQRSparse(4, 3, 12, 2), flam.LSQR(4, 3, 2)},
		{"LanczosStep n=5 j=2 b=3", flam.LanczosStep(5, 2, 3), 4*2*3*5 + 2*9*5},
		{"LanczosRestart n=5 j=4 keep=2", flam.LanczosRestart(5, 4, 2), 40 + 4.5*64},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
