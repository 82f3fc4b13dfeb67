package engine

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
)

// faces4096 is datasets.UpsampledFaces of orl32 (200 × 4096), skipping
// when the shared data are absent.
func faces4096(b testing.TB) *mat.Dense {
	x, err := datasets.UpsampledFaces(loadShared(b, "orl32"))
	if err != nil {
		b.Fatal(err)
	}
	return x
}

// BenchmarkSOIPFaces4096 is SOIP on faces4096 (200 × 4096) at 60
// projections, k = 8, the default cardinality (⌈D/4⌉ = 1024, more than the
// 200 samples: every lasso path runs to an exact fit). Profile with
//
//	go test -run XXX -bench SOIPFaces4096 -benchtime 1x -cpuprofile soip.pprof ./engine/
func BenchmarkSOIPFaces4096(b *testing.B) {
	x := faces4096(b)
	benchTarget(b, SOIP{Dim: 60, K: 8}.Fit, x)
}

// BenchmarkOIPFaces4096 is OIP on the same input and settings, the
// baseline SOIP's time is compared with.
func BenchmarkOIPFaces4096(b *testing.B) {
	x := faces4096(b)
	benchTarget(b, OIP{Dim: 60, K: 8}.Fit, x)
}
