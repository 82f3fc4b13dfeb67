// Command ipsr-iters tests one explanation of the gap between our IP+SR
// and the paper's at 20 % training in OIP Table 1 (bench/RESULTS.md,
// "discrepancies"): the spectral-regression code stops LSQR after a few
// iterations, an implicit regularization, where the engine solves each
// ridge regression to its tolerance. It fits Isometric Projection by
// spectral regression (k = 10, α = 0.01, 40 projections scaled to unit
// length, as oip-table1 does) on 3 of oip-table1's 20 % splits of
// usps9298 with LSQR limited to 10, 20, 30 and 60 iterations and without a
// limit (0), and prints the mean 1-NN accuracy on the test rows.
//
//	go run ./bench/repro/ipsr-iters
package main

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/bench/internal/repro"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/metrics"
)

// unit returns a copy of a with every column scaled to norm 1.
func unit(a *mat.Dense) *mat.Dense {
	r, c := a.Dims()
	out := mat.DenseCopyOf(a)
	for j := 0; j < c; j++ {
		nrm := mat.Norm(out.ColView(j), 2)
		for i := 0; i < r; i++ {
			out.Set(i, j, out.At(i, j)/nrm)
		}
	}
	return out
}

func main() {
	ctx := context.Background()
	x, err := repro.LoadX("usps9298")
	if err != nil {
		repro.Fatal("ipsr-iters", err)
	}
	y, err := repro.LoadY("usps9298")
	if err != nil {
		repro.Fatal("ipsr-iters", err)
	}
	n, _ := x.Dims()
	// The first three splits of oip-table1 at ratio 0.2 (its seed rule).
	sp, err := metrics.RatioSplits(n, 0.2, 3, 1+uint64(1000*0.2))
	if err != nil {
		repro.Fatal("ipsr-iters", err)
	}
	for _, iters := range []int{0, 10, 20, 30, 60} {
		sum := 0.0
		for _, s := range sp {
			xtr, xte := metrics.Rows(x, s.Train), metrics.Rows(x, s.Test)
			ytr, yte := metrics.Labels(y, s.Train), metrics.Labels(y, s.Test)
			m, err := engine.IsoProjection{Dim: 40, K: 10, Alpha: 0.01, RegressionIter: iters, Disconnected: engine.DisconnectedConnect}.Fit(ctx, xtr)
			if err != nil {
				repro.Fatal("ipsr-iters", err)
			}
			a := unit(m.Projection())
			var ya, yb mat.Dense
			ya.Mul(xtr, a)
			yb.Mul(xte, a)
			acc, err := metrics.OneNN(ctx, &ya, ytr, &yb, yte)
			if err != nil {
				repro.Fatal("ipsr-iters", err)
			}
			sum += acc
		}
		fmt.Printf("RegressionIter %d: mean 1-NN %.2f%% over %d splits (dim 40)\n", iters, 100*sum/float64(len(sp)), len(sp))
	}
}
