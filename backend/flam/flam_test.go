package flam_test

import (
	"fmt"
	"testing"

	"github.com/manifoldlab/manifold/backend/flam"
)

// The counts must match closed forms counted by hand for small sizes.
func TestCounts(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
	}{
		{"Gemm 2×3×4", flam.Gemm(2, 3, 4), 24},
		{"Syrk n=3 k=2", flam.Syrk(3, 2), 12}, // 6 entries of the triangle × 2
		{"Gemv 3×5", flam.Gemv(3, 5), 15},
		{"Potrf 6", flam.Potrf(6), 36},
		{"Geqrf 6×3", flam.Geqrf(6, 3), 6*9 - 9},
		{"Geqrf wide equals tall", flam.Geqrf(3, 6), flam.Geqrf(6, 3)},
		{"SVD 10×4", flam.SVD(10, 4), 1.5*16*10 + 4.5*64},
		{"SqDist self", flam.SqDist(4, 4, 3, true), 10*3 + 16},
		{"BytesDoubleCenter", flam.BytesDoubleCenter(10, 8), 1600},
		{"Syevr ≥ Tridiag", flam.Syevr(10, 0), flam.Tridiag(10)},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func ExampleGemm() {
	// C(2000×2000) = A·B with inner dimension 2000: 8·10⁹ flam.
	fmt.Printf("%.0e flam\n", flam.Gemm(2000, 2000, 2000))
	// Output: 8e+09 flam
}

func TestGraphCounts(t *testing.T) {
	cases := []struct {
		name      string
		got, want float64
	}{
		{"SpMV", flam.SpMV(17), 17},
		{"KNNBrute", flam.KNNBrute(10, 20, 3), 600},
		{"Dijkstra n=8 e=20", flam.Dijkstra(8, 20), 28 * 3},
		{"Dijkstra n=1", flam.Dijkstra(1, 0), 0},
		{"AllPairsDijkstra", flam.AllPairsDijkstra(8, 8, 20), 8 * 28 * 3},
		{"FloydWarshall", flam.FloydWarshall(4), 64},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestGramSparse(t *testing.T) {
	if got := flam.GramSparse(10, 4); got != 80 {
		t.Errorf("GramSparse(10, 4) = %v, want 80", got)
	}
}
