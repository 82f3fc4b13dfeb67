package datasets

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// UpsampledFaces returns 200 face images of 64 × 64 = 4096 pixels made
// from the 400 × 1024 orl32 images (40 people, 10 images each, 32 × 32
// pixels stored column by column): the first 5 images of each person,
// each pixel replicated 2 × 2, plus a texture of −2 … 2 grey levels that
// is pseudo-random by pixel and image, so that the four copies of a pixel
// differ and no pixel's texture over the images is a linear function of
// another's. It is the wide input SOIP's speed is measured on (engine's
// BenchmarkSOIPFaces4096, bench/tables/flamaudit), since no 64 × 64 face
// set is in the shared data.
func UpsampledFaces(orl mat.Matrix) (*mat.Dense, error) {
	n, d := orl.Dims()
	if n != 400 || d != 1024 {
		return nil, fmt.Errorf("datasets: UpsampledFaces wants the 400×1024 orl32 images, got %d×%d", n, d)
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
				t := float64(splitMix(uint64(r)<<12|uint64(c*64+a))%5) - 2
				row[c*64+a] = orl.At(i, (c/2)*32+a/2) + t
			}
		}
		r++
	}
	return out, nil
}

// splitMix hashes k to a pseudo-random integer: the finalizer of SplitMix64
// (Steele, Lea & Flood, OOPSLA 2014).
func splitMix(k uint64) uint64 {
	k += 0x9e3779b97f4a7c15
	k = (k ^ k>>30) * 0xbf58476d1ce4e5b9
	k = (k ^ k>>27) * 0x94d049bb133111eb
	return k ^ k>>31
}
