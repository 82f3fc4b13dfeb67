package centred_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/engine/internal/centred"
	"github.com/manifoldlab/manifold/sparse"
)

// Two sparse rows, (1, 0) and (3, 2), centred on their mean (2, 1)
// without densifying: X̂ = [[−1, −1], [1, 1]], whose feature-side Gram
// matrix X̂ᵀ·X̂ is [[2, 2], [2, 2]].
func Example() {
	coo := sparse.NewCOO(2, 2, 3)
	coo.Add(0, 0, 1)
	coo.Add(1, 0, 3)
	coo.Add(1, 1, 2)
	a := coo.ToCSR()
	mu := centred.WeightedMean(blas64.General{}, a, nil)
	g := centred.Gram{H: &centred.Hat{N: 2, D: 2, A: a, Mu: mu}}
	sym, err := g.Form(context.Background(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(mu, sym.Data)
	// Output: [2 1] [2 2 2 2]
}
