package engine

import (
	"fmt"
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/sparse"
)

// samples are the rows of the data, dense or sparse (text corpora): exactly
// one of dense and csr is set.
type samples struct {
	dense blas64.General
	csr   *sparse.CSR
}

// rows and cols return the shape.
func (s samples) rows() int {
	if s.csr != nil {
		r, _ := s.csr.Dims()
		return r
	}
	return s.dense.Rows
}

func (s samples) cols() int {
	if s.csr != nil {
		_, c := s.csr.Dims()
		return c
	}
	return s.dense.Cols
}

// nnz is the number of stored entries (rows·cols when dense).
func (s samples) nnz() int {
	if s.csr != nil {
		return s.csr.NNZ()
	}
	return s.dense.Rows * s.dense.Cols
}

// mulBlock sets dst = X·b (rows×b.Cols).
func (s samples) mulBlock(dst, b blas64.General) {
	if s.csr != nil {
		s.csr.MulBlockTo(dst, b)
		return
	}
	backend.Active().Gemm(blas.NoTrans, blas.NoTrans, 1, s.dense, b, 0, dst)
}

// samplesInput accepts a *sparse.CSR as it is (checking it is not empty and
// holds finite values) and any other matrix as denseInput does.
func samplesInput(what string, x mat.Matrix) (samples, error) {
	c, ok := x.(*sparse.CSR)
	if !ok {
		g, err := denseInput(what, x)
		return samples{dense: g}, err
	}
	r, cols := c.Dims()
	if r == 0 || cols == 0 {
		return samples{}, fmt.Errorf("%s: %w: %d samples × %d features", what, ErrEmpty, r, cols)
	}
	ptr, ind, val := c.RowPtr(), c.ColIdx(), c.Values()
	for i := 0; i < r; i++ {
		for p := ptr[i]; p < ptr[i+1]; p++ {
			if v := val[p]; v-v != 0 {
				return samples{}, fmt.Errorf("%s: %w: row %d, column %d is %v", what, ErrNotFinite, i, ind[p], v)
			}
		}
	}
	return samples{csr: c}, nil
}

// denseInput returns X as a row-major matrix. A *mat.Dense is used in place
// (never modified); any other mat.Matrix is copied. It checks that X is not
// empty and holds no NaN or Inf.
func denseInput(what string, x mat.Matrix) (blas64.General, error) {
	if x == nil {
		return blas64.General{}, fmt.Errorf("%s: %w: nil matrix", what, ErrEmpty)
	}
	r, c := x.Dims()
	if r == 0 || c == 0 {
		return blas64.General{}, fmt.Errorf("%s: %w: %d samples × %d features", what, ErrEmpty, r, c)
	}
	var g blas64.General
	if d, ok := x.(*mat.Dense); ok {
		g = d.RawMatrix()
	} else {
		g = mat.DenseCopyOf(x).RawMatrix()
	}
	if i, j, v, bad := firstNonFinite(g); bad {
		return blas64.General{}, fmt.Errorf("%s: %w: row %d, column %d is %v", what, ErrNotFinite, i, j, v)
	}
	return g, nil
}

// firstNonFinite scans g in parallel and returns the first NaN or Inf in row
// order.
func firstNonFinite(g blas64.General) (int, int, float64, bool) {
	var first atomic.Int64
	first.Store(math.MaxInt64)
	backend.ParallelFor(g.Rows, 256, func(lo, hi int) {
		for i := lo; i < hi && int64(i) < first.Load(); i++ {
			for _, v := range g.Data[i*g.Stride : i*g.Stride+g.Cols] {
				if v-v != 0 {
					for {
						cur := first.Load()
						if int64(i) >= cur || first.CompareAndSwap(cur, int64(i)) {
							break
						}
					}
					break
				}
			}
		}
	})
	i := first.Load()
	if i == math.MaxInt64 {
		return 0, 0, 0, false
	}
	row := g.Data[int(i)*g.Stride : int(i)*g.Stride+g.Cols]
	for j, v := range row {
		if v-v != 0 {
			return int(i), j, v, true
		}
	}
	return 0, 0, 0, false
}

// newGeneral allocates an r×c row-major matrix.
func newGeneral(r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: max(1, c), Data: make([]float64, r*c)}
}

// toDense wraps a row-major matrix as a *mat.Dense sharing its data.
func toDense(g blas64.General) *mat.Dense {
	var d mat.Dense
	if g.Rows > 0 && g.Cols > 0 {
		d.SetRawMatrix(g)
	}
	return &d
}

// copyDense returns a compact copy of g as a *mat.Dense.
func copyDense(g blas64.General) *mat.Dense {
	out := mat.NewDense(g.Rows, g.Cols, nil)
	for i := 0; i < g.Rows; i++ {
		copy(out.RawRowView(i), g.Data[i*g.Stride:i*g.Stride+g.Cols])
	}
	return out
}

// checkDim validates an output dimension against what the input allows.
func checkDim(method string, dim, limit int, limitWhat string) error {
	if dim < 1 {
		return fmt.Errorf("%s: %w: dim = %d, need ≥ 1", method, ErrBadSetting, dim)
	}
	if dim > limit {
		return fmt.Errorf("%s: %w: dim = %d exceeds %s (%d)", method, ErrDimension, dim, limitWhat, limit)
	}
	return nil
}
