package engine

import "math"

// jacobiEigen computes all eigenpairs of the symmetric k×k matrix a
// (row-major, both triangles; destroyed) by the cyclic Jacobi method with
// a threshold (Golub & Van Loan, "Matrix Computations", 4th ed., §8.5.2–8.5.3;
// the rotation of Rutishauser, Numer. Math. 9, 1966): eigenvalues into w
// (unordered), orthonormal eigenvectors into the columns of the k×k v.
//
// It serves the many tiny eigenproblems of LTSA's local tangent spaces (k
// about 10): plain Go without BLAS calls, because in an OpenBLAS build
// gonum's LAPACK routes even a 10×10 reduction through cgo BLAS calls whose
// overhead then dominates (measured: 60 % of an LTSA fit). Jacobi is also
// accurate to working precision for every eigenvalue. Cost: about 6–10
// sweeps of k²/2 rotations, 3k³ flam per sweep.
func jacobiEigen(a []float64, k int, w, v []float64) {
	for i := range v[:k*k] {
		v[i] = 0
	}
	for i := 0; i < k; i++ {
		v[i*k+i] = 1
	}
	for sweep := 0; sweep < 60; sweep++ {
		off, diag := 0.0, 0.0
		for p := 0; p < k; p++ {
			diag += a[p*k+p] * a[p*k+p]
			for q := p + 1; q < k; q++ {
				off += a[p*k+q] * a[p*k+q]
			}
		}
		if off <= 1e-30*diag || off == 0 {
			break
		}
		for p := 0; p < k-1; p++ {
			for q := p + 1; q < k; q++ {
				apq := a[p*k+q]
				if apq == 0 {
					continue
				}
				app, aqq := a[p*k+p], a[q*k+q]
				// Skip rotations that cannot change the diagonal in floating point.
				if math.Abs(apq) < 1e-300 || (sweep > 3 && math.Abs(apq) < 1e-18*math.Sqrt(math.Abs(app*aqq))) {
					a[p*k+q], a[q*k+p] = 0, 0
					continue
				}
				theta := (aqq - app) / (2 * apq)
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				// A ← Jᵀ·A·J for the rotation J in the (p, q) plane.
				for r := 0; r < k; r++ {
					arp, arq := a[r*k+p], a[r*k+q]
					a[r*k+p] = c*arp - s*arq
					a[r*k+q] = s*arp + c*arq
				}
				for r := 0; r < k; r++ {
					apr, aqr := a[p*k+r], a[q*k+r]
					a[p*k+r] = c*apr - s*aqr
					a[q*k+r] = s*apr + c*aqr
				}
				a[p*k+q], a[q*k+p] = 0, 0
				for r := 0; r < k; r++ {
					vrp, vrq := v[r*k+p], v[r*k+q]
					v[r*k+p] = c*vrp - s*vrq
					v[r*k+q] = s*vrp + c*vrq
				}
			}
		}
	}
	for i := 0; i < k; i++ {
		w[i] = a[i*k+i]
	}
}
