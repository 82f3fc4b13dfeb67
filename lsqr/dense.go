package lsqr

import (
	"gonum.org/v1/gonum/blas/blas64"
	gonumblas "gonum.org/v1/gonum/blas/gonum"

	"github.com/manifoldlab/manifold/backend"
)

// The fused step for a dense row-major A (backend.GeneralOp).
//
// One LSQR iteration needs A·v and then Aᵀ·u of the u that A·v produced.
// Row i of A gives p_i = a_i·v, hence ũ_i = p_i − α·u_i, and Aᵀ·ũ is the sum
// of ũ_i·a_i over the rows: both products need one pass over A, the row
// a_i serving the dot product and the update while it is in cache. Then
// β = ‖ũ‖, u = ũ/β and Aᵀu = (Aᵀũ)/β exactly as in the two-pass algorithm
// (no recurrence: only the order of the sums differs). For a matrix larger
// than the caches this halves the memory traffic of an iteration.
//
// The rows are split into a fixed number of parts (a function of m only),
// each accumulating Aᵀũ into its own vector; the parts are summed in order,
// so results do not depend on the number of cores.

var goBLAS gonumblas.Implementation

// denseParts is the number of row parts of the fused kernel for m rows.
func denseParts(m int) int { return max(1, min(8, m/64)) }

// fusedStep sets, for every right-hand side j = act[t], u_j ← A·v_j −
// alpha[t]·u_j and row t of z to Aᵀ·u_j (the new u_j). u is k×m and v k×n
// (rows); acc is scratch (grown as needed) and returned.
func fusedStep(a blas64.General, act []int, u, v, alpha, z []float64, m, n int, acc []float64) []float64 {
	parts := denseParts(m)
	na := len(act)
	acc = grow(acc, parts*na*n)
	clear(acc)
	backend.ParallelFor(parts, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			r0, r1 := p*m/parts, (p+1)*m/parts
			zp := acc[p*na*n : (p+1)*na*n]
			for i := r0; i < r1; i++ {
				row := a.Data[i*a.Stride : i*a.Stride+n]
				for t, j := range act {
					ut := goBLAS.Ddot(n, row, 1, v[j*n:(j+1)*n], 1) - alpha[t]*u[j*m+i]
					u[j*m+i] = ut
					goBLAS.Daxpy(n, ut, row, 1, zp[t*n:(t+1)*n], 1)
				}
			}
		}
	})
	sumParts(z[:na*n], acc, parts)
	return acc
}

// transDense sets z = Aᵀ·u in one parallel pass over the rows of A.
func transDense(a blas64.General, u, z []float64, acc []float64) []float64 {
	m, n := a.Rows, a.Cols
	parts := denseParts(m)
	acc = grow(acc, parts*n)
	clear(acc)
	backend.ParallelFor(parts, 1, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			zp := acc[p*n : (p+1)*n]
			for i := p * m / parts; i < (p+1)*m/parts; i++ {
				goBLAS.Daxpy(n, u[i], a.Data[i*a.Stride:i*a.Stride+n], 1, zp, 1)
			}
		}
	})
	sumParts(z[:n], acc, parts)
	return acc
}

// sumParts sets z to the sum of the parts blocks of acc, in order.
func sumParts(z, acc []float64, parts int) {
	l := len(z)
	copy(z, acc[:l])
	for p := 1; p < parts; p++ {
		for i, val := range acc[p*l : (p+1)*l] {
			z[i] += val
		}
	}
}
