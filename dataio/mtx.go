package dataio

import (
	"errors"
	"io"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// ReadMatrixMarket reads a sparse matrix from a MatrixMarket file (plain or
// gzip) as a *sparse.CSR; see sparse.ReadMatrixMarket for the variants
// read. Errors about the content wrap ErrFormat (and sparse.ErrMatrixMarket)
// and name the line.
func ReadMatrixMarket(r io.Reader) (mat.Matrix, error) {
	a, err := sparse.ReadMatrixMarket(r)
	if err != nil {
		if errors.Is(err, sparse.ErrMatrixMarket) {
			return nil, &mmError{err}
		}
		return nil, err
	}
	if rows, cols := a.Dims(); rows == 0 || cols == 0 {
		return nil, emptyErr("MatrixMarket matrix is %d×%d", rows, cols)
	}
	return a, nil
}

// mmError is a MatrixMarket error that is also ErrFormat.
type mmError struct{ err error }

func (e *mmError) Error() string   { return e.err.Error() }
func (e *mmError) Unwrap() []error { return []error{e.err, ErrFormat} }
