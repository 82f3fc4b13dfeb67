package engine

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// faces4096 returns 200 face images of 64 × 64 = 4096 pixels built
// deterministically from orl32 (skipping when the shared data are absent):
// the first 5 images of each of the 40 people, each 32 × 32 image
// upsampled 2 × 2 (pixel replication) and a small deterministic texture
// (−2 … 2 grey levels, pseudo-random by pixel and image) added so that
// the four copies of a pixel differ.
// It stands in for the 200 × 4096 face images of the SOIP speed report
// (no 64 × 64 face set is in the shared data).
func faces4096(b testing.TB) *mat.Dense {
	x := loadShared(b, "orl32")
	n, d := x.Dims()
	if n != 400 || d != 1024 {
		b.Fatalf("orl32 is %d×%d, want 400×1024", n, d)
	}
	out := mat.NewDense(200, 4096, nil)
	r := 0
	for i := 0; i < n; i++ {
		if i%10 >= 5 {
			continue
		}
		row := out.RawRowView(r)
		// Column-major 64 × 64: pixel (a, c) (row a, column c) at c·64 + a,
		// from the 32 × 32 source pixel (a/2, c/2) at (c/2)·32 + a/2.
		for c := 0; c < 64; c++ {
			for a := 0; a < 64; a++ {
				t := float64(texture(uint64(r)<<12|uint64(c*64+a))%5) - 2
				row[c*64+a] = x.At(i, (c/2)*32+a/2) + t
			}
		}
		r++
	}
	return out
}

// texture hashes k to a pseudo-random integer (the finalizer of
// SplitMix64, Steele, Lea & Flood, OOPSLA 2014), so that no two pixels'
// textures over the images are linearly related.
func texture(k uint64) uint64 {
	k += 0x9e3779b97f4a7c15
	k = (k ^ k>>30) * 0xbf58476d1ce4e5b9
	k = (k ^ k>>27) * 0x94d049bb133111eb
	return k ^ k>>31
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
