package lars_test

import (
	"context"
	"fmt"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/lars"
)

// BenchmarkLARS50of256: the lasso path to 50 non-zeros on 5000 samples ×
// 256 features (the size of USPS in Sparse OIP), with the Gram matrix
// computed per fit (gram), without it (x), and with a shared Design whose
// Gram matrix is already computed (shared; what FitMany amortizes).
func BenchmarkLARS50of256(b *testing.B) {
	ctx := context.Background()
	x, y := randDesign(1, 5000, 256)
	s := lars.Settings{MaxNonZero: 50}
	for _, mode := range []lars.GramMode{lars.GramAlways, lars.GramNever} {
		name := map[lars.GramMode]string{lars.GramAlways: "gram", lars.GramNever: "x"}[mode]
		b.Run(name, func(b *testing.B) {
			var fl float64
			for i := 0; i < b.N; i++ {
				d, err := lars.NewDesign(x, mode)
				if err != nil {
					b.Fatal(err)
				}
				p, err := d.Fit(ctx, y, s)
				if err != nil {
					b.Fatal(err)
				}
				fl = p.Stats.Flam + d.SetupFlam()
			}
			b.ReportMetric(fl/1e6, "Mflam/op")
		})
	}
	d, _ := lars.NewDesign(x, lars.GramAlways)
	b.Run("shared", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := d.Fit(ctx, y, s); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFitMany: 16 responses on the same 5000 × 256 design, to 50
// non-zeros each, in parallel over responses.
func BenchmarkFitMany(b *testing.B) {
	ctx := context.Background()
	x, _ := randDesign(1, 5000, 256)
	const r = 16
	y := blas64.General{Rows: 5000, Cols: r, Stride: r, Data: make([]float64, 5000*r)}
	for c := 0; c < r; c++ {
		_, yc := randDesign(uint64(c+2), 5000, 256)
		for i := range yc {
			y.Data[i*r+c] = yc[i]
		}
	}
	for _, mode := range []lars.GramMode{lars.GramAlways, lars.GramNever} {
		b.Run(fmt.Sprintf("gram=%v", mode == lars.GramAlways), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				d, _ := lars.NewDesign(x, mode)
				if _, err := d.FitMany(ctx, y, lars.Settings{MaxNonZero: 50}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGram: the Gram matrix of the 5000 × 256 design.
func BenchmarkGram(b *testing.B) {
	x, _ := randDesign(1, 5000, 256)
	for i := 0; i < b.N; i++ {
		if _, err := lars.NewDesign(x, lars.GramAlways); err != nil {
			b.Fatal(err)
		}
	}
}
