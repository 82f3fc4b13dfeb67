package errs_test

import (
	"errors"
	"fmt"

	"github.com/manifoldlab/manifold/engine/internal/errs"
)

// An internal package wraps a sentinel with its details; the caller of
// engine tests it with errors.Is against engine.ErrNumerical, the same
// value.
func Example() {
	err := fmt.Errorf("point %d: %w: the local Gram matrix is not positive definite", 7, errs.Numerical)
	fmt.Println(errors.Is(err, errs.Numerical))
	fmt.Println(err)
	// Output:
	// true
	// point 7: engine: numerical failure: the local Gram matrix is not positive definite
}
