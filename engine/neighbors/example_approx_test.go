package neighbors_test

import (
	"context"
	"fmt"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/neighbors"
)

// Approximate neighbours of 2000 points of a swiss roll embedded in 100
// dimensions, and their recall measured on a sample of 200 points.
func ExampleKNNApprox() {
	roll, _ := datasets.SwissRoll(2000, 0.05, 1)
	x, _ := datasets.Embed(roll, 100, 0.01, 1)
	res, _, err := neighbors.KNNApprox(context.Background(), x, 10, neighbors.ApproxOptions{Seed: 1})
	if err != nil {
		panic(err)
	}
	est, err := neighbors.SampledRecall(context.Background(), x, res, 200, 1, neighbors.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d lists of %d; sampled recall@10 ≥ 0.99: %v (%d points)\n", res.Len(), len(res.Ind)/res.Len(), est.Recall >= 0.99, est.Sample)
	// Output:
	// 2000 lists of 10; sampled recall@10 ≥ 0.99: true (200 points)
}
