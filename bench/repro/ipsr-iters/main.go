// Command ipsr-iters sweeps the LSQR iteration cap of Isometric Projection's
// spectral regression (engine.IsoProjection.RegressionIter) on OIP Table 1
// (Zheng, Tang, Fang & Zhang, ICPR 2012: usps9298, 20, 50 and 80 %
// training, 1-NN on the test rows), to choose the engine's default from
// evidence: the spectral-regression code the paper's IP+SR column ran stops
// LSQR after a few iterations (Cai, He & Han, AAAI 2007 eq. 12 prices it
// with fewer than 30), an implicit regularization, where a regression solved
// to tolerance is the one the paper writes down. Each fit: k = 10,
// α = 0.01, 40 projections scaled to unit length, the supervision-free
// graph with DisconnectedConnect (as oip-table1); the splits are the first
// -splits of oip-table1's at each ratio (its seed rule). An iteration cap
// of 0 means "to tolerance" (engine.RegressionToTolerance, RegressionTol
// 1e-6).
//
// It writes the section "ipsr-iters" of bench/RESULTS.md. Run from the
// repository root, under the timing lock:
//
//	flock /tmp/manifold-bench.lock go run ./bench/repro/ipsr-iters
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/bench/internal/repro"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/metrics"
)

const prog = "ipsr-iters"

// paperIPSR is OIP Table 1's IP+SR column (mean ± std over 25 splits).
var paperIPSR = map[string]string{"0.2": "93.90 ± 0.50", "0.5": "95.91 ± 0.34", "0.8": "96.74 ± 0.40"}

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

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			repro.Fatal(prog, fmt.Errorf("%q: %w", s, err))
		}
		out = append(out, v)
	}
	return out
}

func main() {
	ratios := flag.String("ratios", "0.2,0.5,0.8", "training ratios")
	splitsFlag := flag.String("splits", "3,2,1", "splits per ratio (the paper: 25)")
	itersFlag := flag.String("iters", "0,5,10,15,20,30,60", "LSQR iteration caps (0: to tolerance)")
	results := flag.String("results", repro.ResultsPath, "the results file to update (\"\": none)")
	flag.Parse()
	ctx := context.Background()
	start := time.Now()
	x, err := repro.LoadX("usps9298")
	if err != nil {
		repro.Fatal(prog, err)
	}
	y, err := repro.LoadY("usps9298")
	if err != nil {
		repro.Fatal(prog, err)
	}
	n, _ := x.Dims()
	iters := ints(*itersFlag)
	counts := ints(*splitsFlag)
	rs := strings.Split(*ratios, ",")
	if len(counts) != len(rs) {
		repro.Fatal(prog, fmt.Errorf("-splits has %d counts for %d ratios", len(counts), len(rs)))
	}
	var tab repro.Table
	tab.Header = []string{"ratio (splits)", "paper IP+SR"}
	for _, it := range iters {
		name := fmt.Sprintf("%d its", it)
		if it == 0 {
			name = "to tolerance"
		}
		tab.Header = append(tab.Header, name)
	}
	for ri, rstr := range rs {
		ratio, err := strconv.ParseFloat(rstr, 64)
		if err != nil {
			repro.Fatal(prog, err)
		}
		sp, err := metrics.RatioSplits(n, ratio, counts[ri], 1+uint64(1000*ratio))
		if err != nil {
			repro.Fatal(prog, err)
		}
		row := []string{fmt.Sprintf("%.0f %% (%d)", 100*ratio, len(sp)), paperIPSR[rstr]}
		for _, it := range iters {
			var accs []float64
			secs := 0.0
			for _, s := range sp {
				xtr, xte := metrics.Rows(x, s.Train), metrics.Rows(x, s.Test)
				ytr, yte := metrics.Labels(y, s.Train), metrics.Labels(y, s.Test)
				cap := it
				if it == 0 {
					cap = engine.RegressionToTolerance
				}
				m, err := engine.IsoProjection{Dim: 40, K: 10, Alpha: 0.01, RegressionIter: cap, Disconnected: engine.DisconnectedConnect}.Fit(ctx, xtr)
				if err != nil {
					repro.Fatal(prog, err)
				}
				for _, st := range m.Report().Stages {
					if st.Name == "regression" {
						secs += st.Seconds
					}
				}
				a := unit(m.Projection())
				var ya, yb mat.Dense
				ya.Mul(xtr, a)
				yb.Mul(xte, a)
				acc, err := metrics.OneNN(ctx, &ya, ytr, &yb, yte)
				if err != nil {
					repro.Fatal(prog, err)
				}
				accs = append(accs, 100*acc)
			}
			mean, sd := repro.MeanStd(accs)
			row = append(row, fmt.Sprintf("%.2f ± %.2f (%.2f s)", mean, sd, secs/float64(len(sp))))
			fmt.Fprintf(os.Stderr, "%s: ratio %s, %d its: %.2f %% (%.0f s so far)\n", prog, rstr, it, mean, time.Since(start).Seconds())
		}
		tab.Add(row...)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## IP+SR of OIP Table 1 against the LSQR iteration cap\n\n")
	fmt.Fprintf(&b, "Command: `flock /tmp/manifold-bench.lock go run ./bench/repro/ipsr-iters %s` (%s).  \n", strings.Join(os.Args[1:], " "), time.Since(start).Round(time.Second))
	fmt.Fprintf(&b, "Machine: %s.\n\n", repro.Machine())
	b.WriteString("Isometric Projection by spectral regression (k = 10, α = 0.01, 40 unit-length projections, 1-NN) on the first splits of " +
		"oip-table1 at each training ratio, with LSQR stopped after the given number of iterations or run to its tolerance (1e-6). Each cell: " +
		"mean ± standard deviation of the accuracy (%) over the splits, then the mean time of the regression stage (s). The paper: 25 splits.\n\n")
	b.WriteString(tab.Markdown())
	if *results != "" {
		if err := repro.UpdateSection(*results, prog, b.String()); err != nil {
			repro.Fatal(prog, err)
		}
	}
	fmt.Print(b.String())
}
