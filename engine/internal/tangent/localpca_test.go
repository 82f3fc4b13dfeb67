package tangent

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// LocalPCA's eigenvalues are the squared singular values of the centred
// neighbourhood and its vectors the left singular vectors (up to sign), by
// the covariance path (D < k), the Gram path (D ≥ k) and from dot products
// alone; with means, RowMeans are the Gram matrix's row means about the
// first neighbour.
func TestLocalPCAAgainstSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, k, dim = 30, 8, 2
	for _, d := range []int{3, 12} {
		x := blas64.General{Rows: n, Cols: d, Stride: d, Data: make([]float64, n*d)}
		for i := range x.Data {
			x.Data[i] = rng.NormFloat64()
		}
		js := []int{17, 3, 9, 25, 0, 11, 6, 29}
		dot := func(a, b, o int) float64 {
			s := 0.0
			for c := range d {
				s += (x.Data[a*d+c] - x.Data[o*d+c]) * (x.Data[b*d+c] - x.Data[o*d+c])
			}
			return s
		}
		// The reference: the SVD of the centred neighbourhood (k×d).
		cen := mat.NewDense(k, d, nil)
		for c := range d {
			m := 0.0
			for _, j := range js {
				m += x.Data[j*d+c]
			}
			m /= k
			for a, j := range js {
				cen.Set(a, c, x.Data[j*d+c]-m)
			}
		}
		var svd mat.SVD
		if !svd.Factorize(cen, mat.SVDThin) {
			t.Fatal("SVD failed")
		}
		sv := svd.Values(nil)
		var u mat.Dense
		svd.UTo(&u)
		for _, c := range []struct {
			name  string
			dense blas64.General
			means bool
		}{{"rows", x, false}, {"rows, means", x, true}, {"dot products", blas64.General{}, false}} {
			l := NewLocalPCA(k, dim)
			if err := l.Fit(dot, c.dense, js, c.means); err != nil {
				t.Fatal(err)
			}
			for tt := range dim {
				if math.Abs(l.W[tt]-sv[tt]*sv[tt]) > 1e-10*sv[0]*sv[0] {
					t.Errorf("D=%d %s: eigenvalue %d = %v, want σ² = %v", d, c.name, tt, l.W[tt], sv[tt]*sv[tt])
				}
				cos := 0.0
				for a := range k {
					cos += l.Q[a*dim+tt] * u.At(a, tt)
				}
				if math.Abs(math.Abs(cos)-1) > 1e-9 {
					t.Errorf("D=%d %s: vector %d at |cos| %v from the singular vector", d, c.name, tt, math.Abs(cos))
				}
			}
			if c.means {
				for a, ja := range js {
					s := 0.0
					for _, jb := range js {
						s += dot(ja, jb, js[0])
					}
					if math.Abs(l.RowMeans[a]-s/k) > 1e-12*(1+math.Abs(s)) {
						t.Errorf("D=%d: row mean %d = %v, want %v", d, a, l.RowMeans[a], s/k)
					}
				}
			}
		}
	}
}
