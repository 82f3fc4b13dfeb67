// Command approxquality compares embeddings made from approximate
// (NN-descent) and exact neighbour graphs on the same data: the
// trustworthiness (k = 10, engine/metrics) of each, and their Procrustes
// disparity, for Laplacian eigenmaps, LLE, LTSA and Isomap on a swiss roll
// embedded in -dim dimensions (or, with -dim 3, the roll itself).
//
//	go run ./bench/scale/approxquality -n 20000 -dim 50 -methods laplacian,lle
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/enginetest"
	"github.com/manifoldlab/manifold/engine/metrics"
)

func main() {
	n := flag.Int("n", 20000, "points")
	dim := flag.Int("dim", 50, "dimensions to embed the 3-D roll in (3: the roll itself)")
	k := flag.Int("k", 10, "neighbours")
	methods := flag.String("methods", "laplacian,lle,ltsa", "methods: laplacian, lle, ltsa, isomap")
	flag.Parse()
	if err := run(*n, *dim, *k, strings.Split(*methods, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "approxquality:", err)
		os.Exit(1)
	}
}

func run(n, dim, k int, methods []string) error {
	ctx := context.Background()
	roll, _ := datasets.SwissRoll(n, 0.05, 1)
	x := roll
	if dim != 3 {
		var err error
		if x, err = datasets.Embed(roll, dim, 0.01, 1); err != nil {
			return err
		}
	}
	fmt.Printf("| method | N | D | search | neighbours (s) | fit (s) | recall (200 pts) | trustworthiness | Procrustes vs exact |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range methods {
		name := m
		if m == "isomap" {
			name = "isomap-float32" // half the memory of the N×N geodesics
		}
		method, ok := enginetest.Lookup(name)
		if !ok || !method.K {
			return fmt.Errorf("method %q: not a graph method of engine/enginetest", m)
		}
		var ys [2]*mat.Dense
		for c, mode := range []engine.NeighborSearch{engine.NeighborsExact, engine.NeighborsApprox} {
			opts := engine.Options{Neighbors: engine.Neighbors{Search: mode}}
			t0 := time.Now()
			model, err := method.Fit(ctx, x, enginetest.Settings{K: k, Options: opts})
			if err != nil {
				return fmt.Errorf("%s %v: %w", m, mode, err)
			}
			secs := time.Since(t0).Seconds()
			ys[c] = model.Embedding()
			tw, err := metrics.Trustworthiness(ctx, x, ys[c], 10)
			if err != nil {
				return err
			}
			rep := model.Report()
			var nbs float64
			search, recall := "", "–"
			for _, s := range rep.Stages {
				if s.Name == "neighbors" {
					nbs, search = s.Seconds, s.Search
					if s.Recall != nil {
						recall = fmt.Sprintf("%.4f ± %.4f", s.Recall.Recall, s.Recall.StdErr)
					}
				}
			}
			pro := "–"
			if c == 1 {
				d, err := metrics.Procrustes(ys[0], ys[1])
				if err != nil {
					return err
				}
				pro = fmt.Sprintf("%.2g", d)
			}
			fmt.Printf("| %s | %d | %d | %s | %.2f | %.2f | %s | %.4f | %s |\n", m, n, dim, search, nbs, secs, recall, tw, pro)
		}
	}
	return nil
}
