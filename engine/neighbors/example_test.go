package neighbors_test

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// Points on a line: 0, 1, 3, 6, and a duplicate of 1.
func ExampleKNN() {
	x := mat.NewDense(5, 1, []float64{0, 1, 3, 6, 1})
	res, err := neighbors.KNN(context.Background(), x, 2, neighbors.Options{})
	if err != nil {
		panic(err)
	}
	for i := 0; i < res.Len(); i++ {
		ind, dist := res.Row(i)
		fmt.Println(i, ind, dist)
	}
	// Output:
	// 0 [1 4] [1 1]
	// 1 [4 0] [0 1]
	// 2 [1 4] [2 2]
	// 3 [2 1] [3 5]
	// 4 [1 0] [0 1]
}

// One query row at a time against fixed training rows (points on a
// plane), the nearest two and those within distance 1.5: what KNNQuery and
// RadiusQuery give, with the scratch reused from row to row.
func ExampleExact() {
	train := mat.NewDense(5, 2, []float64{0, 0, 1, 0, 0, 1, 3, 3, 1, 1})
	s := neighbors.NewExact(train.RawMatrix())
	var sc neighbors.ExactScratch
	for _, q := range [][]float64{{0.9, 0.2}, {3, 2}} {
		js, ds := s.KNN(&sc, q, 2)
		fmt.Printf("%v nearest %v at %.3f\n", q, js, ds)
		js, _ = s.Radius(&sc, q, 1.5)
		slices.Sort(js)
		fmt.Printf("%v within 1.5: %v\n", q, js)
	}
	// Output:
	// [0.9 0.2] nearest [1 4] at [0.224 0.806]
	// [0.9 0.2] within 1.5: [0 1 2 4]
	// [3 2] nearest [3 4] at [1.000 2.236]
	// [3 2] within 1.5: [3]
}

// Three landmarks among points on a line, starting from the point at 0:
// next the farthest, 9; then 4 and 5 are both 4 from their nearest
// choice, and the tie goes to the lower index (the point at 4).
func ExampleMaxMin() {
	x := mat.NewDense(6, 1, []float64{0, 1, 4, 5, 8, 9})
	idx, err := neighbors.MaxMin(context.Background(), x.RawMatrix(), nil, 3, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(idx)
	// Output:
	// [0 5 2]
}

// The Isomap graph of two clusters, and the three disconnected policies.
func ExampleFixDisconnected() {
	x := mat.NewDense(6, 1, []float64{0, 1, 2, 10, 11, 13})
	ctx := context.Background()
	g, err := neighbors.Graph(ctx, x, neighbors.GraphOptions{K: 1})
	if err != nil {
		panic(err)
	}
	_, err = neighbors.FixDisconnected(ctx, x, g, neighbors.DisconnectedError, neighbors.Options{})
	fmt.Println(errors.Is(err, neighbors.ErrDisconnected))
	f, _ := neighbors.FixDisconnected(ctx, x, g, neighbors.DisconnectedConnect, neighbors.Options{})
	fmt.Println(f.Components, f.Added, f.Graph.At(2, 3), sparse.CheckConnected(f.Graph) == nil)
	f, _ = neighbors.FixDisconnected(ctx, x, g, neighbors.DisconnectedLargest, neighbors.Options{})
	fmt.Println(f.Kept, f.Dropped)
	// Output:
	// true
	// 2 1 8 true
	// [0 1 2] [3 4 5]
}

// Repeated queries against the same rows: the Searcher answers as
// KNNQuery does, with its k-d tree built once for all the batches.
func ExampleSearcher() {
	data := mat.NewDense(5, 2, []float64{0, 0, 1, 0, 0, 1, 5, 5, 6, 5})
	s, err := neighbors.NewSearcher(data, neighbors.Options{})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for _, q := range []*mat.Dense{
		mat.NewDense(1, 2, []float64{0.9, 0.1}),
		mat.NewDense(2, 2, []float64{5, 4, 0, 0}),
	} {
		res, err := s.KNN(ctx, q, 2)
		if err != nil {
			panic(err)
		}
		for i := 0; i < res.Len(); i++ {
			ind, dist := res.Row(i)
			fmt.Printf("%v %.3f\n", ind, dist)
		}
	}
	// Output:
	// [1 0] [0.141 0.906]
	// [3 4] [1.000 1.414]
	// [0 1] [0.000 1.000]
}
