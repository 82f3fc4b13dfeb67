package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/manifoldlab/manifold/engine/datasets"
)

// Fits of PCA, MDS, Isomap (float64 and float32), Landmark Isomap, LLE and
// Isometric Projection on swiss rolls (noise 0), reporting the
// predicted flam per second and the peak heap of the fit (peakMiB: the heap
// sampled during the fit minus the heap before it). Exact Isomap holds one
// N×N matrix: 763 MiB at N = 10,000 (float64), 381 MiB with Float32.
//
//	flock /tmp/manifold-bench.lock go test -run '^$' -bench 'SwissRollFits' -benchtime 1x -count 3 ./engine/
func BenchmarkSwissRollFits(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{2000, 5000, 10000} {
		x, _ := datasets.SwissRoll(n, 0, 0)
		fits := []struct {
			name string
			fit  func() (Model, error)
		}{
			{"isomap", func() (Model, error) { return asModelT(Isomap{Dim: 2, K: 10}.Fit(ctx, x)) }},
			{"isomap-float32", func() (Model, error) { return asModelT(Isomap{Dim: 2, K: 10, Float32: true}.Fit(ctx, x)) }},
			{"landmark-isomap", func() (Model, error) { return asModelT(LandmarkIsomap{Dim: 2, K: 10}.Fit(ctx, x)) }},
			{"lle", func() (Model, error) { return asModelT(LLE{Dim: 2, K: 10}.Fit(ctx, x)) }},
			{"mds", func() (Model, error) { return asModelT(MDS{Dim: 2}.Fit(ctx, x)) }},
			{"pca", func() (Model, error) { return asModelT(PCA{Dim: 2}.Fit(ctx, x)) }},
			{"isoprojection", func() (Model, error) { return asModelT(IsoProjection{Dim: 2, K: 10}.Fit(ctx, x)) }},
		}
		for _, f := range fits {
			b.Run(fmt.Sprintf("method=%s/n=%d", f.name, n), func(b *testing.B) { benchFit(b, f.fit) })
		}
	}
}
