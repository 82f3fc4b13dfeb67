package principal

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/internal/testmode"
)

// Axes against a dense reference: the covariance formed entry by entry
// and gonum's full symmetric eigendecomposition. Rows near a 6-dimensional
// subspace of 300 features (panels of 64 columns: five of them, the last
// narrower), so that the axes kept are separated from the rest and
// determined up to sign. The axes must span the reference's leading
// eigenvectors (each |cos| ≥ 1 − 1e-9), p must be the reference's count,
// and the result must not depend on GOMAXPROCS.
func TestAxesMatchDense(t *testing.T) {
	n, d, r := 3000, 300, 6
	if testmode.Quick() {
		n = 1000 // -race: fewer rows, the same panels and GOMAXPROCS check
	}
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, n*d)
	basis := make([]float64, r*d)
	for i := range basis {
		basis[i] = rng.NormFloat64()
	}
	for i := 0; i < n; i++ {
		for a := 0; a < r; a++ {
			z := rng.NormFloat64() * float64(r-a)
			for c := 0; c < d; c++ {
				x[i*d+c] += z * basis[a*d+c]
			}
		}
		for c := 0; c < d; c++ {
			x[i*d+c] += 0.01*rng.NormFloat64() + 5 // an offset: the mean matters
		}
	}
	row := func(i int, _ []float64) []float64 { return x[i*d : (i+1)*d] }
	axes, mean, err := Axes(context.Background(), n, d, row, 0.99)
	if err != nil {
		t.Fatal(err)
	}
	// The reference: the sample is every row here (n < Sample).
	mu := make([]float64, d)
	for i := 0; i < n; i++ {
		for c := 0; c < d; c++ {
			mu[c] += x[i*d+c]
		}
	}
	for c := range mu {
		mu[c] /= float64(n)
		if math.Abs(mu[c]-mean[c]) > 1e-12*math.Abs(mu[c]) {
			t.Fatalf("mean[%d] = %v, want %v", c, mean[c], mu[c])
		}
	}
	cov := mat.NewSymDense(d, nil)
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			s := 0.0
			for i := 0; i < n; i++ {
				s += (x[i*d+a] - mu[a]) * (x[i*d+b] - mu[b])
			}
			cov.SetSym(a, b, s)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		t.Fatal("reference eigendecomposition failed")
	}
	vals := eig.Values(nil)
	want := keep(vals, 0.99)
	if axes.Cols != want || want == 0 {
		t.Fatalf("%d axes, the reference keeps %d", axes.Cols, want)
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	for a := 0; a < axes.Cols; a++ {
		dot := 0.0
		for c := 0; c < d; c++ {
			dot += axes.Data[c*axes.Cols+a] * vecs.At(c, d-1-a)
		}
		// Axes beyond the r separated ones lie in the noise's eigenspace,
		// whose vectors are not determined: compare the separated ones.
		if a < r && math.Abs(math.Abs(dot)-1) > 1e-9 {
			t.Errorf("axis %d: |cos| to the reference %v", a, math.Abs(dot))
		}
	}
	old := runtime.GOMAXPROCS(1)
	one, _, err := Axes(context.Background(), n, d, row, 0.99)
	runtime.GOMAXPROCS(old)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range axes.Data {
		if one.Data[i] != v {
			t.Fatalf("axes differ on one goroutine: element %d %v against %v", i, one.Data[i], v)
		}
	}
}

// keep counts the leading eigenvalues that hold a share of the positive
// sum, rounded up to a multiple of 4, and refuses more than half.
func TestKeep(t *testing.T) {
	for _, c := range []struct {
		vals  []float64
		share float64
		want  int
	}{
		{[]float64{0, 0, 0, 0, 0, 0, 0, 1}, 0.97, 4},                      // one axis, rounded up
		{[]float64{-1e-12, 0, 0, 0, 0, 0, 0.02, 0.98}, 0.97, 4},           // negative rounding ignored
		{[]float64{1, 1, 1, 1, 1, 1, 1, 1}, 0.97, 0},                      // all 8 needed: more than half
		{[]float64{0, 0, 0, 0, 0, 0, 0, 0}, 0.97, 0},                      // zero covariance
		{[]float64{0, 0, 0, 0, 1, 1, 1, 1}, 0.5, 4},                       // half of 8 is allowed
		{[]float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}, 1, 4}, // the whole share
	} {
		if got := keep(c.vals, c.share); got != c.want {
			t.Errorf("keep(%v, %v) = %d, want %d", c.vals, c.share, got, c.want)
		}
	}
}

// Rows wider than MaxDim get no axes, and no row is read (the covariance
// is never formed: 18,933-term documents once made Axes allocate 5.7 GB);
// narrow rows are read.
func TestAxesTooWide(t *testing.T) {
	reads := 0
	row := func(i int, buf []float64) []float64 {
		reads++
		for k := range buf {
			buf[k] = float64((i*7 + k) % 5)
		}
		return buf
	}
	axes, mean, err := Axes(context.Background(), 3, MaxDim+1, row, 0.9)
	if err != nil || axes.Rows != 0 || mean != nil || reads != 0 {
		t.Fatalf("%d features: axes %d×%d, mean %d, %v, %d rows read; want no axes, no reads", MaxDim+1, axes.Rows, axes.Cols, len(mean), err, reads)
	}
	if _, _, err := Axes(context.Background(), 3, 64, row, 0.9); err != nil || reads == 0 {
		t.Fatalf("64 features: %v, %d rows read", err, reads)
	}
	if got, want := SetupBytes(3, MaxDim), int64(8*(3*MaxDim+2*MaxDim*MaxDim)); got != want {
		t.Errorf("SetupBytes %d, want %d", got, want)
	}
}
