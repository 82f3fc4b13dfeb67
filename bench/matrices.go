package bench

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// RandGeneral returns an r×c matrix of standard normal entries.
func RandGeneral(seed uint64, r, c int) blas64.General {
	rnd := rand.New(rand.NewPCG(seed, 99))
	g := blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
	for i := range g.Data {
		g.Data[i] = rnd.NormFloat64()
	}
	return g
}

// RandSym returns a random symmetric n×n matrix, both triangles stored.
func RandSym(seed uint64, n int) blas64.Symmetric {
	rnd := rand.New(rand.NewPCG(seed, 98))
	a := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Lower, Data: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			v := rnd.NormFloat64()
			a.Data[i*n+j], a.Data[j*n+i] = v, v
		}
	}
	return a
}

// SPD returns a symmetric positive definite n×n matrix (AᵀA/n + I).
func SPD(seed uint64, n int) blas64.Symmetric {
	g := RandGeneral(seed, n, n)
	s := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Lower, Data: make([]float64, n*n)}
	blas64.Syrk(blas.Trans, 1/float64(n), g, 0, s)
	for i := 0; i < n; i++ {
		s.Data[i*n+i]++
		for j := 0; j < i; j++ {
			s.Data[j*n+i] = s.Data[i*n+j]
		}
	}
	return s
}
