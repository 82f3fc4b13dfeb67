package datasets_test

import (
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine/datasets"
)

// Embed keeps every distance (noise 0), its map has orthonormal columns,
// and the noise has the requested standard deviation.
func TestEmbed(t *testing.T) {
	x, _ := datasets.SwissRoll(300, 0, 1)
	y, err := datasets.Embed(x, 50, 0, 9)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := y.Dims(); r != 300 || c != 50 {
		t.Fatalf("shape %d×%d", r, c)
	}
	for _, p := range [][2]int{{0, 1}, {5, 200}, {17, 299}} {
		dx := floats.Distance(x.RawRowView(p[0]), x.RawRowView(p[1]), 2)
		dy := floats.Distance(y.RawRowView(p[0]), y.RawRowView(p[1]), 2)
		if math.Abs(dx-dy) > 1e-12*dx {
			t.Fatalf("d(%d, %d) = %v in 3-D, %v embedded", p[0], p[1], dx, dy)
		}
	}
	q := mat.NewDense(50, 3, datasets.Orthonormal(50, 3, 9))
	var g mat.Dense
	g.Mul(q.T(), q)
	if !mat.EqualApprox(&g, mat.NewDiagDense(3, []float64{1, 1, 1}), 1e-14) {
		t.Fatalf("QᵀQ = %v", mat.Formatted(&g))
	}
	// The map is not a coordinate embedding: every output column is used.
	for c := 0; c < 50; c++ {
		if floats.Norm(mat.Col(nil, c, y), 2) == 0 {
			t.Fatalf("column %d is zero", c)
		}
	}
	yn, err := datasets.Embed(x, 50, 0.3, 9)
	if err != nil {
		t.Fatal(err)
	}
	var diff mat.Dense
	diff.Sub(yn, y)
	sd := math.Sqrt(mat.Sum(mulElem(&diff)) / float64(300*50))
	if math.Abs(sd-0.3) > 0.01 {
		t.Fatalf("noise standard deviation %v, want 0.3", sd)
	}
	if _, err := datasets.Embed(x, 2, 0, 1); err == nil {
		t.Error("embedding 3 columns in 2 dimensions: no error")
	}
	if _, err := datasets.Embed(x, 5, math.NaN(), 1); err == nil {
		t.Error("NaN noise: no error")
	}
}

func mulElem(a *mat.Dense) *mat.Dense {
	var s mat.Dense
	s.MulElem(a, a)
	return &s
}

const usps = "../../../shared/data/usps9298/usps9298_X.npy"

// Deformed digits: deterministic per (seed, i), labels kept, near the
// identity for tiny deformations, and still recognisable: the nearest
// base image of a deformed digit has its label far more often than
// chance (on the USPS digits when present, else on synthetic strokes).
func TestDeformDigits(t *testing.T) {
	var base *mat.Dense
	var labels []int
	if _, err := os.Stat(usps); err == nil {
		m, err := dataio.ReadMatrixFile(usps)
		if err != nil {
			t.Fatal(err)
		}
		base = mat.DenseCopyOf(mat.DenseCopyOf(m).Slice(0, 500, 0, 256))
		lab, err := dataio.ReadLabelsFile("../../../shared/data/usps9298/usps9298_y.txt")
		if err != nil {
			t.Fatal(err)
		}
		labels = lab.Class[:500]
	} else {
		t.Logf("USPS data absent (%v): synthetic strokes", err)
		base, labels = strokes(200)
	}
	m, _ := base.Dims()
	x, lab, err := datasets.DeformDigits(base, labels, 3*m, datasets.Deform{}, 4)
	if err != nil {
		t.Fatal(err)
	}
	x2, _, _ := datasets.DeformDigits(base, labels, m+7, datasets.Deform{}, 4)
	for i := 0; i < m+7; i++ {
		if !floats.Equal(x.RawRowView(i), x2.RawRowView(i)) {
			t.Fatalf("row %d depends on n", i)
		}
		if lab[i] != labels[i%m] {
			t.Fatalf("label %d = %d, source %d", i, lab[i], labels[i%m])
		}
	}
	x3, _, _ := datasets.DeformDigits(base, labels, 1, datasets.Deform{}, 5)
	if floats.Equal(x3.RawRowView(0), x.RawRowView(0)) {
		t.Fatal("seeds 4 and 5 gave the same image")
	}
	// Tiny deformations: the image itself.
	tiny := datasets.Deform{Rotate: 1e-12, Scale: 1e-12, Shear: 1e-12, Shift: 1e-12, Alpha: 1e-12, Sigma: 1}
	xi, _, _ := datasets.DeformDigits(base, nil, m, tiny, 1)
	var d mat.Dense
	d.Sub(xi, base)
	if e := mat.Norm(&d, math.Inf(1)); e > 1e-9 {
		t.Fatalf("tiny deformation moved a pixel by %v", e)
	}
	// Deformed copies of images m..3m−1 against the base: the nearest
	// base image has the same label, and differs from the image itself.
	right, moved := 0, 0
	for i := m; i < 3*m; i++ {
		best, bj := math.Inf(1), -1
		for j := 0; j < m; j++ {
			if dd := floats.Distance(x.RawRowView(i), base.RawRowView(j), 2); dd < best {
				best, bj = dd, j
			}
		}
		if labels[bj] == lab[i] {
			right++
		}
		if floats.Distance(x.RawRowView(i), base.RawRowView(i%m), 2) > 1e-3 {
			moved++
		}
	}
	t.Logf("1-NN label agreement %d/%d, moved %d", right, 2*m, moved)
	if float64(right) < 0.85*float64(2*m) {
		t.Errorf("deformed digits keep their label under 1-NN in %d of %d", right, 2*m)
	}
	if moved != 2*m {
		t.Errorf("%d of %d images were not deformed", 2*m-moved, 2*m)
	}
	if _, _, err := datasets.DeformDigits(mat.NewDense(3, 10, nil), nil, 5, datasets.Deform{}, 1); err == nil {
		t.Error("rows of 10 pixels: no error")
	}
	if _, _, err := datasets.DeformDigits(base, labels[:3], 5, datasets.Deform{}, 1); err == nil {
		t.Error("3 labels: no error")
	}
}

// strokes returns n 16×16 images of a horizontal (label 0) or vertical
// (label 1) bar at a random place.
func strokes(n int) (*mat.Dense, []int) {
	x := mat.NewDense(n, 256, nil)
	lab := make([]int, n)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for p := range row {
			row[p] = -1
		}
		lab[i] = i % 2
		at := 4 + (i*7)%8
		for s := 2; s < 14; s++ {
			for w := 0; w < 3; w++ {
				if lab[i] == 0 {
					row[(at+w)*16+s] = 1
				} else {
					row[s*16+at+w] = 1
				}
			}
		}
	}
	return x, lab
}
