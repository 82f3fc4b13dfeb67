package sparsetest_test

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
	"github.com/manifoldlab/manifold/sparse/sparsetest"
)

// A test checks that an operator (here a CSR matrix) agrees with the
// dense matrix it stands for, in every product and in the adjoint
// identity ⟨Ax, y⟩ = ⟨x, Aᵀy⟩ (compiled, not run: it needs the
// *testing.T of a test).
func Example() {
	var check = func(t *testing.T) {
		dense := mat.NewDense(2, 3, []float64{1, 0, 2, 0, 3, 0})
		a := sparse.FromDense(dense)
		sparsetest.CheckOperator(t, a, dense)
	}
	_ = check
}
