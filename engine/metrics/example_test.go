package metrics_test

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/metrics"
)

// Clustering accuracy maps clusters onto classes one to one (Kuhn–Munkres),
// so renamed clusters score the same.
func ExampleClusteringAccuracy() {
	truth := []int{0, 0, 0, 1, 1, 2}
	clusters := []int{5, 5, 7, 7, 7, 9}
	ac, _ := metrics.ClusteringAccuracy(truth, clusters)
	nmi, _ := metrics.NMI(truth, clusters)
	fmt.Printf("AC %.4f NMI %.4f\n", ac, nmi)
	// Output: AC 0.8333 NMI 0.6853
}

// Assign solves the assignment problem: here the workers 0, 1, 2 take jobs
// 1, 0, 2 at a total cost of 5.
func ExampleAssign() {
	cost := [][]float64{
		{4, 1, 3},
		{2, 0, 5},
		{3, 2, 2},
	}
	assign, total, _ := metrics.Assign(cost)
	fmt.Println(assign, total)
	// Output: [1 0 2] 5
}

// Trustworthiness and continuity of an Isomap embedding of a swiss roll,
// and the residual variance of its graph geodesics.
func ExampleTrustworthiness() {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(800, 0, 1)
	m, err := engine.Isomap{Dim: 2, K: 10}.Fit(ctx, x)
	if err != nil {
		fmt.Println(err)
		return
	}
	y := m.Embedding()
	t, _ := metrics.Trustworthiness(ctx, x, y, 10)
	c, _ := metrics.Continuity(ctx, x, y, 10)
	dg, _ := metrics.Geodesics(ctx, x, 10)
	rv, _ := metrics.ResidualVariance(dg, y)
	fmt.Printf("trustworthiness %.2f, continuity %.2f, residual variance %.3f\n", t, c, rv)
	// Output: trustworthiness 1.00, continuity 1.00, residual variance 0.001
}

// The residual variance of a hand-sized case: 1 − R² between the entries
// of the geodesic and the embedded distance matrices.
func ExampleResidualVariance() {
	dg := mat.NewDense(3, 3, []float64{
		0, 1, 2,
		1, 0, 1,
		2, 1, 0,
	})
	y := mat.NewDense(3, 1, []float64{0, 1, 3})
	rv, _ := metrics.ResidualVariance(dg, y)
	fmt.Printf("%.6f (1/12)\n", rv)
	// Output: 0.083333 (1/12)
}

// 1-NN accuracy over ten random 30 % / 70 % splits of an S-curve labelled
// by its two halves, on the raw features (fit nil) and after PCA to one
// dimension.
func ExampleOneNNSplits() {
	ctx := context.Background()
	x, _ := datasets.SCurve(300, 0.05, 2)
	labels := make([]int, 300)
	for i := range labels {
		if x.At(i, 2) > 1 { // the two halves of the S along its length
			labels[i] = 1
		}
	}
	splits, _ := metrics.RatioSplits(300, 0.3, 10, 1)
	raw, _ := metrics.OneNNSplits(ctx, x, labels, splits, nil)
	pca := func(ctx context.Context, train mat.Matrix, _ []int) (metrics.Mapper, error) {
		return engine.PCA{Dim: 1}.Fit(ctx, train)
	}
	one, _ := metrics.OneNNSplits(ctx, x, labels, splits, pca)
	fmt.Printf("raw %.3f ± %.3f, PCA-1 %.3f ± %.3f\n", raw.Mean, raw.Std, one.Mean, one.Std)
	// Output: raw 0.981 ± 0.007, PCA-1 0.971 ± 0.024
}
