package tangent

import (
	"context"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
)

// Spaces against a dense reference: per point, mat.SVD of its centred
// neighbours (D×k) and the projector UUᵀ on its t leading left singular
// vectors. The columns must be orthonormal and span the same space
// (‖PPᵀ − UUᵀ‖ ≤ 1e-10), on both of Spaces' branches: D ≤ k (the D×D
// covariance) and D > k (the k×k Gram matrix).
func TestSpacesMatchSVD(t *testing.T) {
	for _, c := range []struct{ n, d, k, t int }{{60, 4, 9, 2}, {60, 12, 6, 3}} {
		x := curved(c.n, c.d, 1)
		nb := randomNeighbours(c.n, c.k, 2)
		p, err := Spaces(context.Background(), x, nb, c.t, blas64.General{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.Rows != c.d || p.Cols != c.n*c.t {
			t.Fatalf("D=%d k=%d: %d×%d, want %d×%d", c.d, c.k, p.Rows, p.Cols, c.d, c.n*c.t)
		}
		for i := 0; i < c.n; i++ {
			ind, _ := nb.Row(i)
			cen := mat.NewDense(c.d, c.k, nil)
			for a := 0; a < c.d; a++ {
				m := 0.0
				for _, j := range ind {
					m += x.Data[j*c.d+a]
				}
				m /= float64(c.k)
				for r, j := range ind {
					cen.Set(a, r, x.Data[j*c.d+a]-m)
				}
			}
			var svd mat.SVD
			if !svd.Factorize(cen, mat.SVDThin) {
				t.Fatal("reference SVD failed")
			}
			var u mat.Dense
			svd.UTo(&u)
			var want, got mat.Dense
			ut := u.Slice(0, c.d, 0, c.t)
			want.Mul(ut, ut.T())
			pi := mat.NewDense(c.d, c.t, nil)
			for a := 0; a < c.d; a++ {
				for b := 0; b < c.t; b++ {
					pi.Set(a, b, p.Data[a*p.Stride+i*c.t+b])
				}
			}
			var ptp mat.Dense
			ptp.Mul(pi.T(), pi)
			if !mat.EqualApprox(&ptp, mat.NewDiagDense(c.t, slices.Repeat([]float64{1}, c.t)), 1e-12) {
				t.Fatalf("D=%d k=%d point %d: PᵀP = %v, want I", c.d, c.k, i, mat.Formatted(&ptp))
			}
			got.Mul(pi, pi.T())
			if !mat.EqualApprox(&got, &want, 1e-10) {
				t.Fatalf("D=%d k=%d point %d: PPᵀ differs from the SVD's projector", c.d, c.k, i)
			}
		}
	}
}

// The coefficients A_i that Spaces writes when k < D give P_i = CᵀA_iᵀ
// (C the centred neighbours), and asking for them leaves the tangent
// spaces the same bit for bit.
func TestSpacesCoefficients(t *testing.T) {
	const n, d, k, tt = 50, 10, 5, 2
	x := curved(n, d, 3)
	nb := randomNeighbours(n, k, 4)
	plain, err := Spaces(context.Background(), x, nb, tt, blas64.General{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	coef := dense.New(n, tt*k)
	p, err := Spaces(context.Background(), x, nb, tt, coef, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain.Data, p.Data) {
		t.Fatal("the tangent spaces differ when the coefficients are asked for")
	}
	for i := 0; i < n; i++ {
		ind, _ := nb.Row(i)
		for a := 0; a < d; a++ {
			m := 0.0
			for _, j := range ind {
				m += x.Data[j*d+a]
			}
			m /= k
			for c := 0; c < tt; c++ {
				s := 0.0
				for r, j := range ind {
					s += (x.Data[j*d+a] - m) * coef.Data[i*coef.Stride+c*k+r]
				}
				if got := p.Data[a*p.Stride+i*tt+c]; math.Abs(s-got) > 1e-12 {
					t.Fatalf("point %d, direction %d, feature %d: CᵀAᵀ = %v, P = %v", i, c, a, s, got)
				}
			}
		}
	}
}

// Directions the neighbours do not span are left 0: neighbours on a line
// give one direction (±u) of two, a point without neighbours none, and
// its coefficients are cleared.
func TestSpacesDegenerate(t *testing.T) {
	u := []float64{2.0 / 3, 1.0 / 3, 2.0 / 3} // unit
	x := dense.New(7, 3)
	for r, s := range []float64{0, -2, -1, 1, 2, 0.5} {
		for a := range u {
			x.Data[r*3+a] = 1 + s*u[a]
		}
	}
	copy(x.Data[18:], []float64{5, 5, 5})
	nb := &neighbors.Result{Ptr: []int{0, 5, 5}, Ind: []int{1, 2, 3, 4, 5}, Dist: make([]float64, 5)}
	// Both rows of the coefficients start dirty: they must be written or cleared.
	coef := blas64.General{Rows: 2, Cols: 2 * 5, Stride: 10, Data: slices.Repeat([]float64{7}, 20)}
	for _, c := range []blas64.General{{}, coef} {
		p, err := Spaces(context.Background(), x, nb, 2, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		col := func(j int) []float64 { return []float64{p.Data[j], p.Data[p.Stride+j], p.Data[2*p.Stride+j]} }
		dot := 0.0
		for a := range u {
			dot += col(0)[a] * u[a]
		}
		if math.Abs(math.Abs(dot)-1) > 1e-12 {
			t.Errorf("first direction %v, want ±%v", col(0), u)
		}
		for j := 1; j < 4; j++ {
			if v := col(j); slices.ContainsFunc(v, func(f float64) bool { return f != 0 }) {
				t.Errorf("column %d is %v, want 0", j, v)
			}
		}
	}
	// k = 5 ≥ D = 3: the covariance branch writes no coefficients; row 0
	// is cleared all the same, as row 1 (no neighbours).
	if slices.ContainsFunc(coef.Data, func(f float64) bool { return f != 0 }) {
		t.Errorf("coefficients %v, want 0", coef.Data)
	}
}

// Anchors are P_iᵀx_i.
func TestAnchors(t *testing.T) {
	const n, d, tt = 20, 5, 2
	x := curved(n, d, 5)
	p, err := Spaces(context.Background(), x, randomNeighbours(n, 6, 6), tt, blas64.General{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := Anchors(x, p, tt)
	for i := 0; i < n; i++ {
		for c := 0; c < tt; c++ {
			s := 0.0
			for r := 0; r < d; r++ {
				s += x.Data[i*d+r] * p.Data[r*p.Stride+i*tt+c]
			}
			if a.Data[i*a.Stride+c] != s {
				t.Fatalf("anchor (%d, %d) = %v, want %v", i, c, a.Data[i*a.Stride+c], s)
			}
		}
	}
}
