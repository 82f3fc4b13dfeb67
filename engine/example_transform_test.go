package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// A small data set: 3-D points on a tilted plane.
func planeRows(n int) *mat.Dense {
	x := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		u, v := float64(i%7), float64(i/7)
		x.SetRow(i, []float64{u + v, u - v, 0.5*u + 0.1*v})
	}
	return x
}

// A model saved by one process and loaded by another maps new points as
// the fitted one does.
func ExampleLoad() {
	ctx := context.Background()
	m, err := engine.PCA{Dim: 2}.Fit(ctx, planeRows(49))
	if err != nil {
		panic(err)
	}
	var file bytes.Buffer // a file, in a service
	if err := m.Save(&file); err != nil {
		panic(err)
	}
	loaded, err := engine.Load(&file)
	if err != nil {
		panic(err)
	}
	q := mat.NewDense(1, 3, []float64{2, 1, 1.1})
	a, _ := m.Transform(ctx, q)
	b, _ := loaded.Transform(ctx, q)
	fmt.Println(loaded.Method(), loaded.Dim(), mat.EqualApprox(a, b, 1e-12))
	// Output: pca 2 true
}

// TransformRow maps one point into a caller's buffer: the request path of
// a service (no allocation for the linear methods; Isomap's prepared
// graph and neighbour index are built once, by Prepare or the first call).
func ExampleTransformRow() {
	ctx := context.Background()
	x := planeRows(49)
	m, err := engine.Isomap{K: 6}.Fit(ctx, x)
	if err != nil {
		panic(err)
	}
	if err := engine.Prepare(m); err != nil {
		panic(err)
	}
	dst := make([]float64, m.Dim())
	if err := engine.TransformRow(ctx, m, dst, x.RawRowView(10)); err != nil {
		panic(err)
	}
	// A training point maps onto its embedding.
	emb := m.Embedding()
	fmt.Println(math.Abs(dst[0]-emb.At(10, 0)) < 1e-9, math.Abs(dst[1]-emb.At(10, 1)) < 1e-9)
	// Output: true true
}

// PrepareCtx builds what a model's Transform needs (here Isomap's table
// of training geodesics) under a context: a service that must start
// within a deadline gets the context's error, and the model still maps
// (a later Prepare builds what was left).
func ExamplePrepareCtx() {
	ctx := context.Background()
	x := planeRows(49)
	m, err := engine.Isomap{K: 6}.Fit(ctx, x)
	if err != nil {
		panic(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	fmt.Println(errors.Is(engine.PrepareCtx(cancelled, m), context.Canceled))
	fmt.Println(engine.PrepareCtx(ctx, m))
	// Output:
	// true
	// <nil>
}

// The report of a fit renders as a table of its stages.
func ExampleReport_Table() {
	m, err := engine.PCA{Dim: 2}.Fit(context.Background(), planeRows(49))
	if err != nil {
		panic(err)
	}
	header, _, _ := strings.Cut(m.Report().Table(), "\n")
	fmt.Println(strings.Fields(header))
	// Output: [stage flam seconds GFLAM/s iters detail]
}
