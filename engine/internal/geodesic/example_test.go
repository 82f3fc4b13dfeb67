package geodesic_test

import (
	"context"
	"fmt"

	"github.com/manifoldlab/manifold/engine/internal/geodesic"
)

// Ten points 0, 1, …, 9 on a line, joined to their neighbours, embedded by
// classical MDS (centred on 4.5): a new point at 3.5 lies between 3 and 4,
// its geodesics are its distances along the line, and it lands at −1.
func Example() {
	gi, err := geodesic.New(chain(10, nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	y := make([]float64, 1)
	if err := gi.Row(context.Background(), y, []float64{3.5}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.3f\n", y[0])
	// Output: -1.000
}
