package engine

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
)

// uspsHalf returns the training half of a random 50/50 split of USPS
// (4649 × 256), the setting of the OIP and TDPM targets.
func uspsHalf(b *testing.B) *mat.Dense {
	x := loadShared(b, "usps9298")
	y := make([]int, x.RawMatrix().Rows)
	xtr, _, _, _ := randomSplit(x, y, 0.5, 1)
	return xtr
}

// BenchmarkOIPUSPS is the OIP target: usps9298 with 50 % training
// (4649 × 256), k = 10, 40 projections.
func BenchmarkOIPUSPS(b *testing.B) {
	x := uspsHalf(b)
	benchTarget(b, OIP{Dim: 40, K: 10}.Fit, x)
}

// BenchmarkTDPMSwissRoll is the TDPM target on a 2000-point swiss roll
// (k = 12, §4.1; tangent dimension 2, 2-D output).
func BenchmarkTDPMSwissRoll(b *testing.B) {
	x, _ := datasets.SwissRoll(2000, 0.05, 1)
	benchTarget(b, TDPM{Dim: 2, K: 12}.Fit, x)
}

// BenchmarkTDPMUSPS is the TDPM target on the usps9298 training half
// (4649 × 256, k = 12, tangent dimension 5, 2-D output).
func BenchmarkTDPMUSPS(b *testing.B) {
	x := uspsHalf(b)
	benchTarget(b, TDPM{Dim: 2, TangentDim: 5, K: 12}.Fit, x)
}

// benchTarget fits x by fit b.N times and logs the first fit's report.
func benchTarget[M Model](b *testing.B, fit func(context.Context, mat.Matrix) (M, error), x mat.Matrix) {
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := fit(context.Background(), x)
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			rep := m.Report()
			b.Logf("\n%s", rep.Table())
		}
	}
}
