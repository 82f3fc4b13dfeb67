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

// NN-descent stopped after one iteration, then every list refined by a
// search of the graph from the row itself: recall against the exact lists before and after.
func ExampleRefine() {
	ctx := context.Background()
	roll, _ := datasets.SwissRoll(3000, 0.05, 1)
	x, _ := datasets.Embed(roll, 50, 0.01, 1)
	opt := neighbors.ApproxOptions{Seed: 1, MaxIter: 1}
	lists, _, err := neighbors.KNNApprox(ctx, x, 10, opt)
	if err != nil {
		panic(err)
	}
	ix, err := neighbors.IndexFromLists(ctx, x, lists, opt)
	if err != nil {
		panic(err)
	}
	refined, err := neighbors.Refine(ctx, ix, lists, 30)
	if err != nil {
		panic(err)
	}
	exact, err := neighbors.KNN(ctx, x, 10, neighbors.Options{})
	if err != nil {
		panic(err)
	}
	before, after := neighbors.Recall(lists, exact), neighbors.Recall(refined, exact)
	fmt.Printf("recall@10 higher after refining: %v; at least 0.99: %v\n", after > before, after >= 0.99)
	// Output:
	// recall@10 higher after refining: true; at least 0.99: true
}

func ExampleIndex_Widen() {
	ctx := context.Background()
	roll, _ := datasets.SwissRoll(3000, 0.05, 2)
	x, _ := datasets.Embed(roll, 50, 0.01, 2)
	opt := neighbors.ApproxOptions{Seed: 2}
	lists, _, err := neighbors.KNNApprox(ctx, x, 5, opt)
	if err != nil {
		panic(err)
	}
	ix, err := neighbors.IndexFromLists(ctx, x, lists, opt)
	if err != nil {
		panic(err)
	}
	// The index's graph: each row's 12 nearest, found by one search a row.
	wide, err := ix.Widen(ctx, lists, 12, 26)
	if err != nil {
		panic(err)
	}
	exact, err := neighbors.KNN(ctx, x, 12, neighbors.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("12 a row: %v; recall@12 at least 0.99: %v\n", len(wide.Ind) == 12*3000, neighbors.Recall(wide, exact) >= 0.99)
	// Output:
	// 12 a row: true; recall@12 at least 0.99: true
}

func ExampleIndex_QueryRow() {
	ctx := context.Background()
	roll, _ := datasets.SwissRoll(2000, 0.05, 3)
	x, _ := datasets.Embed(roll, 40, 0.01, 3)
	ix, _, err := neighbors.NewIndex(ctx, x, 10, neighbors.ApproxOptions{Seed: 3})
	if err != nil {
		panic(err)
	}
	// One row into the caller's slices (a request path: no allocation).
	js, ds := make([]int, 5), make([]float64, 5)
	if err := ix.QueryRow(ctx, x.RawRowView(7), js, ds, 0); err != nil {
		panic(err)
	}
	fmt.Println(js[0], ds[0]) // an indexed row finds itself first
	// Output: 7 0
}
