package metrics

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Procrustes is the Procrustes disparity between two configurations of the
// same n points (rows) in the same dimension: both are centred and scaled
// to unit Frobenius norm, b is rotated (reflections allowed) and scaled to
// fit a best in the least-squares sense, and the disparity is the remaining
// sum of squared differences — scipy.spatial.procrustes' disparity, the
// standard way to compare two embeddings that are each defined up to a
// similarity transform (Gower, "Generalized Procrustes analysis",
// Psychometrika 40, 1975; the rotation from the SVD of AᵀB, Schönemann,
// Psychometrika 31, 1966). With A and B normalized and σ the singular
// values of AᵀB, the disparity is 1 − (Σσ)²: 0 for configurations equal up
// to translation, rotation, reflection and scale, at most 1.
func Procrustes(a, b mat.Matrix) (float64, error) {
	ga, err := denseRows(a)
	if err != nil {
		return 0, err
	}
	gb, err := denseRows(b)
	if err != nil {
		return 0, err
	}
	if ga.Rows != gb.Rows || ga.Cols != gb.Cols {
		return 0, fmt.Errorf("%w: %d×%d and %d×%d configurations", ErrInput, ga.Rows, ga.Cols, gb.Rows, gb.Cols)
	}
	ca, err := centredUnit(ga.Rows, ga.Cols, func(i, j int) float64 { return ga.Data[i*ga.Stride+j] })
	if err != nil {
		return 0, err
	}
	cb, err := centredUnit(gb.Rows, gb.Cols, func(i, j int) float64 { return gb.Data[i*gb.Stride+j] })
	if err != nil {
		return 0, err
	}
	var m mat.Dense
	m.Mul(ca.T(), cb)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDNone) {
		return 0, fmt.Errorf("%w: SVD of the cross product failed", ErrInput)
	}
	s := 0.0
	for _, v := range svd.Values(nil) {
		s += v
	}
	return max(0, 1-s*s), nil
}

// centredUnit returns the n×d matrix with column means removed and unit
// Frobenius norm.
func centredUnit(n, d int, at func(i, j int) float64) (*mat.Dense, error) {
	out := mat.NewDense(n, d, nil)
	norm := 0.0
	for j := 0; j < d; j++ {
		mean := 0.0
		for i := 0; i < n; i++ {
			mean += at(i, j)
		}
		mean /= float64(n)
		for i := 0; i < n; i++ {
			v := at(i, j) - mean
			out.Set(i, j, v)
			norm += v * v
		}
	}
	if norm == 0 {
		return nil, fmt.Errorf("%w: a configuration with a single distinct point", ErrInput)
	}
	out.Scale(1/math.Sqrt(norm), out)
	return out, nil
}
