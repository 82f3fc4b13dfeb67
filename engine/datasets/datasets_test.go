package datasets_test

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
)

func TestSwissRoll(t *testing.T) {
	x, tt := datasets.SwissRoll(500, 0, 7)
	y, _ := datasets.SwissRoll(500, 0, 7)
	if r, c := x.Dims(); r != 500 || c != 3 {
		t.Fatalf("shape %d×%d", r, c)
	}
	for i := 0; i < 500; i++ {
		ti := tt[i]
		if ti < 1.5*math.Pi || ti > 4.5*math.Pi {
			t.Fatalf("t[%d] = %v outside [1.5π, 4.5π]", i, ti)
		}
		if math.Abs(x.At(i, 0)-ti*math.Cos(ti)) > 1e-12 || math.Abs(x.At(i, 2)-ti*math.Sin(ti)) > 1e-12 {
			t.Fatalf("row %d off the roll", i)
		}
		if v := x.At(i, 1); v < 0 || v > 21 {
			t.Fatalf("height %v outside [0, 21]", v)
		}
		for j := 0; j < 3; j++ {
			if x.At(i, j) != y.At(i, j) {
				t.Fatal("same seed, different points")
			}
		}
	}
	z, _ := datasets.SwissRoll(500, 0, 8)
	if z.At(0, 0) == x.At(0, 0) {
		t.Error("different seeds gave the same first point")
	}
	// Noise has the requested standard deviation.
	xn, _ := datasets.SwissRoll(20000, 0.5, 7)
	x0, _ := datasets.SwissRoll(20000, 0, 7)
	var s, s2 float64
	for i := 0; i < 20000; i++ {
		for j := 0; j < 3; j++ {
			e := xn.At(i, j) - x0.At(i, j)
			s += e
			s2 += e * e
		}
	}
	m := s / 60000
	sd := math.Sqrt(s2/60000 - m*m)
	if math.Abs(m) > 0.01 || math.Abs(sd-0.5) > 0.01 {
		t.Errorf("noise mean %v sd %v, want 0 and 0.5", m, sd)
	}
}

func TestSCurve(t *testing.T) {
	x, tt := datasets.SCurve(300, 0, 1)
	for i := range tt {
		ti := tt[i]
		if math.Abs(ti) > 1.5*math.Pi {
			t.Fatalf("t = %v", ti)
		}
		if math.Abs(x.At(i, 0)-math.Sin(ti)) > 1e-12 {
			t.Fatal("x ≠ sin t")
		}
		want := math.Copysign(1, ti) * (math.Cos(ti) - 1)
		if math.Abs(x.At(i, 2)-want) > 1e-12 {
			t.Fatal("z ≠ sign(t)(cos t − 1)")
		}
		if v := x.At(i, 1); v < 0 || v > 2 {
			t.Fatal("y outside [0, 2]")
		}
	}
}

func ExampleSwissRoll() {
	x, t := datasets.SwissRoll(1000, 0.05, 42)
	r, c := x.Dims()
	fmt.Println(r, c, len(t))
	// Output: 1000 3 1000
}

// UpsampledFaces: 200 × 4096, each output pixel its source pixel plus a
// texture in −2 … 2, the four copies of a source pixel not all equal, the
// same images on every call; a wrong shape is an error.
func TestUpsampledFaces(t *testing.T) {
	orl := mat.NewDense(400, 1024, nil)
	for i := 0; i < 400; i++ {
		for j := 0; j < 1024; j++ {
			orl.Set(i, j, float64((i*7+j*13)%256))
		}
	}
	x, err := datasets.UpsampledFaces(orl)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != 200 || c != 4096 {
		t.Fatalf("%d×%d", r, c)
	}
	same := 0
	for r := 0; r < 200; r++ {
		src := (r/5)*10 + r%5 // the first 5 images of each person
		for c := 0; c < 64; c++ {
			for a := 0; a < 64; a++ {
				d := x.At(r, c*64+a) - orl.At(src, (c/2)*32+a/2)
				if d < -2 || d > 2 || d != math.Round(d) {
					t.Fatalf("image %d pixel (%d, %d): texture %v", r, a, c, d)
				}
			}
		}
		if x.At(r, 0) == x.At(r, 1) && x.At(r, 1) == x.At(r, 64) && x.At(r, 64) == x.At(r, 65) {
			same++
		}
	}
	if same > 20 {
		t.Errorf("the four copies of the first pixel are equal in %d of 200 images", same)
	}
	y, _ := datasets.UpsampledFaces(orl)
	if !mat.Equal(x, y) {
		t.Error("two calls differ")
	}
	if _, err := datasets.UpsampledFaces(mat.NewDense(10, 1024, nil)); err == nil {
		t.Error("a 10×1024 input was accepted")
	}
}
