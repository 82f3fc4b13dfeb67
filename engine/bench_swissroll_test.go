package engine_test

import (
	"fmt"
	"testing"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/enginetest"
)

// Fits of PCA, MDS, Isomap (float64 and float32), Landmark Isomap, LLE and
// Isometric Projection on swiss rolls (noise 0), reporting the
// predicted flam per second and the peak heap of the fit (peakMiB: the heap
// sampled during the fit minus the heap before it). Exact Isomap holds one
// N×N matrix: 763 MiB at N = 10,000 (float64), 381 MiB with Float32.
//
//	flock /tmp/manifold-bench.lock go test -run '^$' -bench 'SwissRollFits' -benchtime 1x -count 3 ./engine/
func BenchmarkSwissRollFits(b *testing.B) {
	s := enginetest.Settings{Dim: 2, K: 10} // K: the methods that take it
	var cases []benchCase
	for _, name := range []string{"isomap", "isomap-float32", "landmark-isomap", "lle", "mds", "pca", "isoprojection"} {
		cases = append(cases, benchCase{name, name, s})
	}
	for _, n := range []int{2000, 5000, 10000} {
		x, _ := datasets.SwissRoll(n, 0, 0)
		benchMethods(b, x, fmt.Sprintf("/n=%d", n), cases)
	}
}
