package flam_test

import (
	"testing"

	"github.com/manifoldlab/manifold/backend/flam"
)

// The baseline counts against closed forms counted by hand.
func TestBaselineCounts(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
	}{
		// m = 2, n = 3, l = 1, p = 4: 1.5·4·3 + 6.5·8 + 4·1·4 = 18 + 52 + 16.
		{"LinearGraphEmbedding 2×3", flam.LinearGraphEmbedding(2, 3, 1, 4), 86},
		// eq. (8) is eq. (12)'s competitor: the SVD plus 2m³ plus Lanczos.
		{"LinearGraphEmbedding = SVD + 2m³ + Lanczos", flam.LinearGraphEmbedding(50, 80, 3, 20),
			flam.SVD(50, 80) + 2*50*50*50 + flam.Lanczos(50, 3, 20)},
		{"GramSparse", flam.GramSparse(10, 4), 80},
		// k = 3 points of 2 entries: 6 products of 2, 9 for the centring.
		{"LocalPCA k=3", flam.LocalPCA(3, 2, 1), 12 + 9 + flam.Syevr(3, 1)},
		{"LTSAAlignment", flam.LTSAAlignment(5, 3, 2), 5 * 9 * 3},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
