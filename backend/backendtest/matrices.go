package backendtest

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

const eps = 0x1p-53

// sentinel fills the padding columns of strided test matrices. A kernel
// that reads padding turns its result NaN; one that writes padding changes it.
var sentinel = math.NaN()

// general returns an r×c matrix with the given stride (≥ c), random normal
// entries and NaN padding.
func general(rnd *rand.Rand, r, c, stride int) blas64.General {
	stride = max(1, stride, c)
	g := blas64.General{Rows: r, Cols: c, Stride: stride, Data: make([]float64, r*stride)}
	for i := 0; i < r; i++ {
		for j := 0; j < stride; j++ {
			if j < c {
				g.Data[i*stride+j] = rnd.NormFloat64()
			} else {
				g.Data[i*stride+j] = sentinel
			}
		}
	}
	return g
}

func cloneGeneral(g blas64.General) blas64.General {
	c := g
	c.Data = append([]float64(nil), g.Data...)
	return c
}

// at reads element (i, j).
func at(g blas64.General, i, j int) float64 { return g.Data[i*g.Stride+j] }

// symFromEig returns the n×n symmetric Q·diag(ev)·Qᵀ with a random orthogonal
// Q, stored fully (both triangles), stride ≥ n with NaN padding.
func symFromEig(rnd *rand.Rand, ev []float64, stride int) blas64.Symmetric {
	n := len(ev)
	q := randomOrthogonal(rnd, n)
	stride = max(1, stride, n)
	a := blas64.Symmetric{N: n, Stride: stride, Uplo: blas.Lower, Data: make([]float64, n*stride)}
	for i := 0; i < n; i++ {
		for j := n; j < stride; j++ {
			a.Data[i*stride+j] = sentinel
		}
		for j := 0; j <= i; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += q[i*n+k] * ev[k] * q[j*n+k]
			}
			a.Data[i*stride+j] = s
			a.Data[j*stride+i] = s
		}
	}
	return a
}

// randomOrthogonal returns a random n×n orthogonal matrix (row-major, stride
// n) by modified Gram–Schmidt on a Gaussian matrix, twice.
func randomOrthogonal(rnd *rand.Rand, n int) []float64 {
	q := make([]float64, n*n)
	for i := range q {
		q[i] = rnd.NormFloat64()
	}
	for pass := 0; pass < 2; pass++ {
		for j := 0; j < n; j++ {
			for k := 0; k < j; k++ {
				d := 0.0
				for i := 0; i < n; i++ {
					d += q[i*n+j] * q[i*n+k]
				}
				for i := 0; i < n; i++ {
					q[i*n+j] -= d * q[i*n+k]
				}
			}
			nrm := 0.0
			for i := 0; i < n; i++ {
				nrm += q[i*n+j] * q[i*n+j]
			}
			nrm = math.Sqrt(nrm)
			for i := 0; i < n; i++ {
				q[i*n+j] /= nrm
			}
		}
	}
	return q
}

// randomSym returns a random symmetric n×n matrix with normal entries, both
// triangles stored.
func randomSym(rnd *rand.Rand, n, stride int) blas64.Symmetric {
	stride = max(1, stride, n)
	a := blas64.Symmetric{N: n, Stride: stride, Uplo: blas.Lower, Data: make([]float64, n*stride)}
	for i := 0; i < n; i++ {
		for j := n; j < stride; j++ {
			a.Data[i*stride+j] = sentinel
		}
		for j := 0; j <= i; j++ {
			v := rnd.NormFloat64()
			a.Data[i*stride+j] = v
			a.Data[j*stride+i] = v
		}
	}
	return a
}

func cloneSym(a blas64.Symmetric) blas64.Symmetric {
	c := a
	c.Data = append([]float64(nil), a.Data...)
	return c
}

// symFull returns the full n×n matrix (stride n) of a symmetric one, read
// from its triangle a.Uplo only.
func symFull(a blas64.Symmetric) []float64 {
	n := a.N
	f := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			r, c := i, j
			if (a.Uplo == blas.Lower) != (r >= c) {
				r, c = c, r
			}
			f[i*n+j] = a.Data[r*a.Stride+c]
		}
	}
	return f
}

// spoilOtherTriangle writes NaN into the triangle a kernel must not read.
func spoilOtherTriangle(a blas64.Symmetric) {
	for i := 0; i < a.N; i++ {
		for j := 0; j < a.N; j++ {
			if (a.Uplo == blas.Lower && j > i) || (a.Uplo == blas.Upper && j < i) {
				a.Data[i*a.Stride+j] = sentinel
			}
		}
	}
}

// normFrob returns the Frobenius norm of an n×n dense slice.
func normFrob(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// paddingIntact reports whether the padding columns still hold the sentinel.
func paddingIntact(g blas64.General) bool {
	for i := 0; i < g.Rows; i++ {
		for j := g.Cols; j < g.Stride; j++ {
			if !math.IsNaN(g.Data[i*g.Stride+j]) {
				return false
			}
		}
	}
	return true
}

// orthoError returns max |ZᵀZ − I| over the columns of z. ZᵀZ is summed a
// row of z at a time (each entry over the rows in order, as a column-by-column
// dot product would), so the reads run along z's rows.
func orthoError(z blas64.General) float64 {
	c := z.Cols
	g := make([]float64, c*c)
	for i := 0; i < z.Rows; i++ {
		row := z.Data[i*z.Stride : i*z.Stride+c]
		for a, za := range row {
			ga := g[a*c : a*c+a+1]
			for b := range ga {
				ga[b] += za * row[b]
			}
		}
	}
	e := 0.0
	for a := 0; a < c; a++ {
		for b := 0; b <= a; b++ {
			s := g[a*c+b]
			if a == b {
				s--
			}
			e = max(e, math.Abs(s))
		}
	}
	return e
}

// eigResidual returns max_j ‖A z_j − w_j z_j‖₂ for full A (n×n, stride n).
// A·Z is formed a row at a time (A's row i against Z's rows), so the reads
// run along rows.
func eigResidual(full []float64, n int, w []float64, z blas64.General) float64 {
	c := z.Cols
	r := make([]float64, c)  // per column, Σᵢ (A z_j − w_j z_j)ᵢ²
	az := make([]float64, c) // row i of A·Z − Z·diag(w)
	for i := 0; i < n; i++ {
		zi := z.Data[i*z.Stride : i*z.Stride+c]
		for j := range az {
			az[j] = -w[j] * zi[j]
		}
		for k, aik := range full[i*n : i*n+n] {
			zk := z.Data[k*z.Stride : k*z.Stride+c]
			for j := range az {
				az[j] += aik * zk[j]
			}
		}
		for j, v := range az {
			r[j] += v * v
		}
	}
	worst := 0.0
	for _, v := range r {
		worst = max(worst, math.Sqrt(v))
	}
	return worst
}

// referenceEigenvalues returns all eigenvalues of the full symmetric matrix,
// ascending, by the cyclic Jacobi method: slow, simple and independent of
// both backends.
func referenceEigenvalues(full []float64, n int) []float64 {
	a := append([]float64(nil), full...)
	for sweep := 0; sweep < 100; sweep++ {
		off := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i != j {
					off += a[i*n+j] * a[i*n+j]
				}
			}
		}
		if off == 0 || off < 1e-30*normFrob(a)*normFrob(a) {
			break
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if apq == 0 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < n; k++ {
					akp, akq := a[k*n+p], a[k*n+q]
					a[k*n+p] = c*akp - s*akq
					a[k*n+q] = s*akp + c*akq
				}
				for k := 0; k < n; k++ {
					apk, aqk := a[p*n+k], a[q*n+k]
					a[p*n+k] = c*apk - s*aqk
					a[q*n+k] = s*apk + c*aqk
				}
			}
		}
	}
	w := make([]float64, n)
	for i := range w {
		w[i] = a[i*n+i]
	}
	sortFloats(w)
	return w
}

func sortFloats(w []float64) {
	for i := 1; i < len(w); i++ {
		for j := i; j > 0 && w[j] < w[j-1]; j-- {
			w[j], w[j-1] = w[j-1], w[j]
		}
	}
}

// bandedColumns returns an m×n matrix of integers 1–3 in about 30 % of
// the rows of a random band of each column (from row 0 in every third
// matrix): sparse, structured data, whose Householder reflectors end at
// rows that step up and down. gonum v0.17's Dlarft (Forward) forms a wrong
// block reflector for such reflectors; its blocked QR and SVD factors were
// off by up to 0.16 on these 400×200 matrices.
func bandedColumns(rnd *rand.Rand, m, n, trial int) blas64.General {
	a := blas64.General{Rows: m, Cols: n, Stride: n, Data: make([]float64, m*n)}
	for j := 0; j < n; j++ {
		lo := rnd.IntN(m)
		hi := lo + 1 + rnd.IntN(m-lo)
		if trial%3 == 0 {
			lo = 0
		}
		for i := lo; i < hi; i++ {
			if rnd.Float64() < 0.3 {
				a.Data[i*n+j] = float64(1 + rnd.IntN(3))
			}
		}
	}
	return a
}

// transposed returns a copy of gᵀ.
func transposed(g blas64.General) blas64.General {
	t := blas64.General{Rows: g.Cols, Cols: g.Rows, Stride: g.Rows, Data: make([]float64, g.Rows*g.Cols)}
	for i := 0; i < g.Rows; i++ {
		for j := 0; j < g.Cols; j++ {
			t.Data[j*t.Stride+i] = g.Data[i*g.Stride+j]
		}
	}
	return t
}
