package dataio

import (
	"io"

	"gonum.org/v1/gonum/mat"
)

// ReadMatrixMarket reads a sparse matrix from a MatrixMarket file. This
// build has no sparse matrix package yet, so it always returns an error
// wrapping ErrUnsupported.
func ReadMatrixMarket(r io.Reader) (mat.Matrix, error) {
	return nil, unsupported("MatrixMarket input (.mtx) is not available in this build: it needs the sparse package")
}
