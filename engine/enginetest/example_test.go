package enginetest_test

import (
	"context"
	"fmt"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/enginetest"
)

// Every method of the table fits the same data through one loop; the
// labels go to the method that needs them.
func Example() {
	x, t := datasets.SwissRoll(300, 0.05, 1)
	labels := make([]int, len(t))
	for i, v := range t {
		labels[i] = int(v) % 3
	}
	ctx := context.Background()
	for _, m := range enginetest.Methods {
		s := enginetest.Settings{Dim: 2}
		if m.NeedsLabels {
			s.Labels = labels
		}
		model, err := m.Fit(ctx, x, s)
		if err != nil {
			fmt.Println(m.Name, err)
			continue
		}
		fmt.Printf("%-16s %d-D, linear %t\n", model.Method(), model.Dim(), m.Linear)
	}
	// Output:
	// pca              2-D, linear true
	// mds              2-D, linear false
	// isomap           2-D, linear false
	// landmark-isomap  2-D, linear false
	// lle              2-D, linear false
	// landmark-lle     2-D, linear false
	// isoprojection    2-D, linear true
	// oip              2-D, linear true
	// soip             2-D, linear true
	// tdpm             2-D, linear false
	// lowrank-isomap   2-D, linear true
	// lpp              2-D, linear true
	// npe              2-D, linear true
	// lda              2-D, linear true
	// ltsa             2-D, linear false
	// laplacian        2-D, linear false
	// lsi              2-D, linear true
}

// A method's own settings are set through Tune.
func ExampleSettings_Tune() {
	x, _ := datasets.SwissRoll(500, 0.05, 1)
	m, _ := enginetest.Lookup("landmark-isomap")
	model, err := m.Fit(context.Background(), x, enginetest.Settings{Dim: 2, K: 8, Tune: func(p any) {
		p.(*engine.LandmarkIsomap).Landmarks = 50
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(model.Method(), model.Dim())
	// Output: landmark-isomap 2
}
