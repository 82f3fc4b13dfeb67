package engine

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"
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
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := OIP{Dim: 40, K: 10}.Fit(context.Background(), x)
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			rep := m.Report()
			b.Logf("\n%s", rep.Table())
		}
	}
}
