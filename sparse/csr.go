package sparse

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// ErrInvalid is wrapped by every error that reports malformed raw arrays or
// user data handed to this package (row pointers, column indices, weights).
var ErrInvalid = errors.New("sparse: invalid matrix")

// CSR is an r×c sparse matrix in compressed sparse row form: the entries of
// row i are Values()[RowPtr()[i]:RowPtr()[i+1]] in the columns
// ColIdx()[RowPtr()[i]:RowPtr()[i+1]], strictly increasing. Stored entries may
// be zero (an explicit zero is an edge in the graph algorithms).
//
// A CSR is immutable once built, so it is safe for concurrent use; the raw
// arrays returned by RowPtr, ColIdx and Values are the matrix's own and must
// not be modified. Build one with NewCSR (validated raw arrays), a COO
// builder, FromDense, or the package's operations.
type CSR struct {
	r, c   int
	indptr []int
	ind    []int
	data   []float64
}

var _ mat.Matrix = (*CSR)(nil)

// NewCSR returns the r×c matrix with the given raw arrays, which it keeps
// (no copy). It returns an error wrapping ErrInvalid unless len(indptr) is
// r+1, indptr[0] is 0, indptr is non-decreasing, len(ind) and len(data)
// equal indptr[r], and the column indices of every row are strictly
// increasing and in [0, c).
func NewCSR(r, c int, indptr, ind []int, data []float64) (*CSR, error) {
	if err := Validate(r, c, indptr, ind, data); err != nil {
		return nil, err
	}
	return &CSR{r: r, c: c, indptr: indptr, ind: ind, data: data}, nil
}

// Validate checks raw CSR arrays as NewCSR does, without building a matrix.
func Validate(r, c int, indptr, ind []int, data []float64) error {
	if r < 0 || c < 0 {
		return fmt.Errorf("%w: negative shape %d×%d", ErrInvalid, r, c)
	}
	if len(indptr) != r+1 {
		return fmt.Errorf("%w: %d row pointers for %d rows (need %d)", ErrInvalid, len(indptr), r, r+1)
	}
	if indptr[0] != 0 {
		return fmt.Errorf("%w: row pointer[0] = %d, not 0", ErrInvalid, indptr[0])
	}
	nnz := indptr[r]
	if len(ind) != nnz || len(data) != nnz {
		return fmt.Errorf("%w: row pointer[%d] = %d but %d column indices and %d values", ErrInvalid, r, nnz, len(ind), len(data))
	}
	for i := 0; i < r; i++ {
		lo, hi := indptr[i], indptr[i+1]
		if hi < lo {
			return fmt.Errorf("%w: row pointers decrease at row %d (%d > %d)", ErrInvalid, i, lo, hi)
		}
		if hi > nnz {
			return fmt.Errorf("%w: row pointer[%d] = %d exceeds the %d entries", ErrInvalid, i+1, hi, nnz)
		}
		prev := -1
		for p := lo; p < hi; p++ {
			j := ind[p]
			if j < 0 || j >= c {
				return fmt.Errorf("%w: row %d: column index %d out of range [0, %d)", ErrInvalid, i, j, c)
			}
			if j <= prev {
				return fmt.Errorf("%w: row %d: column indices not strictly increasing (%d after %d)", ErrInvalid, i, j, prev)
			}
			prev = j
		}
	}
	return nil
}

// newCSR builds without validation; for arrays this package made itself.
func newCSR(r, c int, indptr, ind []int, data []float64) *CSR {
	return &CSR{r: r, c: c, indptr: indptr, ind: ind, data: data}
}

// Zero returns the r×c matrix with no stored entries.
func Zero(r, c int) *CSR { return newCSR(r, c, make([]int, r+1), nil, nil) }

// Identity returns the n×n identity.
func Identity(n int) *CSR {
	indptr := make([]int, n+1)
	ind := make([]int, n)
	data := make([]float64, n)
	for i := 0; i < n; i++ {
		indptr[i+1] = i + 1
		ind[i] = i
		data[i] = 1
	}
	return newCSR(n, n, indptr, ind, data)
}

// Dims returns the shape.
func (a *CSR) Dims() (r, c int) { return a.r, a.c }

// NNZ returns the number of stored entries.
func (a *CSR) NNZ() int { return a.indptr[a.r] }

// RowPtr returns the row pointers (length r+1). Read-only.
func (a *CSR) RowPtr() []int { return a.indptr }

// ColIdx returns the column indices of the stored entries, row by row.
// Read-only.
func (a *CSR) ColIdx() []int { return a.ind }

// Values returns the stored values, row by row. Read-only.
func (a *CSR) Values() []float64 { return a.data }

// Row returns the column indices and values of row i (views, read-only).
func (a *CSR) Row(i int) (cols []int, vals []float64) {
	if i < 0 || i >= a.r {
		panic(fmt.Sprintf("sparse: row %d out of range [0, %d)", i, a.r))
	}
	lo, hi := a.indptr[i], a.indptr[i+1]
	return a.ind[lo:hi:hi], a.data[lo:hi:hi]
}

// At returns the element (i, j): the stored value, or 0. O(log nnz(row)).
func (a *CSR) At(i, j int) float64 {
	if i < 0 || i >= a.r || j < 0 || j >= a.c {
		panic(mat.ErrIndexOutOfRange)
	}
	lo, hi := a.indptr[i], a.indptr[i+1]
	p := lo + sort.SearchInts(a.ind[lo:hi], j)
	if p < hi && a.ind[p] == j {
		return a.data[p]
	}
	return 0
}

// T returns the transpose as an implicit mat.Matrix; Transpose builds it.
func (a *CSR) T() mat.Matrix { return mat.Transpose{Matrix: a} }

// Transpose returns Aᵀ as a new CSR (a counting sort, O(nnz + r + c)).
func (a *CSR) Transpose() *CSR { return a.transpose(&stopper{}) }

// transpose is Transpose, looking at stop between rows; nil once stop says
// the context is done.
func (a *CSR) transpose(stop *stopper) *CSR {
	nnz := a.NNZ()
	indptr := make([]int, a.c+1)
	for p, j := range a.ind[:nnz] {
		if p%stopEvery == 0 && stop.tick(stopEvery) {
			return nil
		}
		indptr[j+1]++
	}
	for j := 0; j < a.c; j++ {
		indptr[j+1] += indptr[j]
	}
	next := make([]int, a.c)
	copy(next, indptr[:a.c])
	ind := make([]int, nnz)
	data := make([]float64, nnz)
	for i := 0; i < a.r; i++ {
		if stop.tick(a.indptr[i+1] - a.indptr[i] + 1) {
			return nil
		}
		for p := a.indptr[i]; p < a.indptr[i+1]; p++ {
			j := a.ind[p]
			q := next[j]
			next[j]++
			ind[q] = i
			data[q] = a.data[p]
		}
	}
	return newCSR(a.c, a.r, indptr, ind, data)
}

// Clone returns a deep copy.
func (a *CSR) Clone() *CSR {
	return newCSR(a.r, a.c, append([]int(nil), a.indptr...), append([]int(nil), a.ind...), append([]float64(nil), a.data...))
}

// ToDense returns A as a dense matrix.
func (a *CSR) ToDense() *mat.Dense {
	if a.r == 0 || a.c == 0 {
		return &mat.Dense{}
	}
	d := mat.NewDense(a.r, a.c, nil)
	raw := d.RawMatrix()
	for i := 0; i < a.r; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+a.c]
		for p := a.indptr[i]; p < a.indptr[i+1]; p++ {
			row[a.ind[p]] = a.data[p]
		}
	}
	return d
}

// FromDense returns the CSR holding the non-zero elements of m (any
// mat.Matrix; a *mat.Dense is read through its raw storage).
func FromDense(m mat.Matrix) *CSR {
	r, c := m.Dims()
	indptr := make([]int, r+1)
	var ind []int
	var data []float64
	if d, ok := m.(*mat.Dense); ok && !d.IsEmpty() {
		raw := d.RawMatrix()
		for i := 0; i < r; i++ {
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
				if v != 0 {
					ind = append(ind, j)
					data = append(data, v)
				}
			}
			indptr[i+1] = len(ind)
		}
	} else {
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if v := m.At(i, j); v != 0 {
					ind = append(ind, j)
					data = append(data, v)
				}
			}
			indptr[i+1] = len(ind)
		}
	}
	return newCSR(r, c, indptr, ind, data)
}

// ToCOO returns the entries as a COO (row-major order).
func (a *CSR) ToCOO() *COO {
	nnz := a.NNZ()
	t := &COO{r: a.r, c: a.c, rows: make([]int, nnz), cols: append([]int(nil), a.ind...), vals: append([]float64(nil), a.data...)}
	for i := 0; i < a.r; i++ {
		for p := a.indptr[i]; p < a.indptr[i+1]; p++ {
			t.rows[p] = i
		}
	}
	return t
}

// IsSymmetric reports whether A is square and equal to its transpose, with
// the same stored pattern (an entry stored on one side only counts as a
// mismatch even if it is zero) and values within tol·max(|a_ij|, |a_ji|).
func (a *CSR) IsSymmetric(tol float64) bool {
	if a.r != a.c {
		return false
	}
	t := a.Transpose()
	for i := 0; i < a.r; i++ {
		lo, hi := a.indptr[i], a.indptr[i+1]
		if t.indptr[i+1]-t.indptr[i] != hi-lo {
			return false
		}
		for p, q := lo, t.indptr[i]; p < hi; p, q = p+1, q+1 {
			if a.ind[p] != t.ind[q] {
				return false
			}
			x, y := a.data[p], t.data[q]
			if x != y && math.Abs(x-y) > tol*math.Max(math.Abs(x), math.Abs(y)) {
				return false
			}
		}
	}
	return true
}

// checkFinite returns an error wrapping ErrInvalid if a stored value is NaN
// or ±Inf.
func (a *CSR) checkFinite(what string) error {
	for i := 0; i < a.r; i++ {
		for p := a.indptr[i]; p < a.indptr[i+1]; p++ {
			if v := a.data[p]; v-v != 0 {
				return fmt.Errorf("%w: %s: entry (%d, %d) = %v is not finite", ErrInvalid, what, i, a.ind[p], v)
			}
		}
	}
	return nil
}
