// Command transformrate measures Transform throughput of models fitted
// with approximate neighbours (NN-descent) on N deformed USPS digits (256
// features): the fit, Prepare (the geodesic table where it fits), then M
// new deformed digits mapped in blocks of 256 rows on all cores, and the
// recall@k of the new rows' neighbours (the approximate index against
// brute force) on 1000 of them.
//
//	go run ./bench/scale/transformrate -n 100000 -m 20000 -methods landmark-isomap [-width W] [-index-k K] [-repeat R]
//
// It needs ../shared/data/usps9298 (the digits DeformDigits distorts).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/enginetest"
	"github.com/manifoldlab/manifold/engine/neighbors"
)

func main() {
	n := flag.Int("n", 100000, "training rows")
	m := flag.Int("m", 20000, "new rows to map")
	k := flag.Int("k", 10, "neighbours")
	landmarks := flag.Int("landmarks", 1000, "landmark-isomap's landmarks")
	width := flag.Int("width", 0, "search width of the approximate Transform queries (0: max(2k, 30))")
	indexK := flag.Int("index-k", 0, "widen the models' search graphs to K neighbours a row (engine.Neighbors.IndexK; 0: the fit's lists)")
	repeat := flag.Int("repeat", 1, "times to run the Transform loop (each time is printed)")
	methods := flag.String("methods", "landmark-isomap,lle", "landmark-isomap, lle, ltsa, laplacian")
	data := flag.String("data", filepath.Join("..", "shared", "data", "usps9298", "usps9298_X.npy"), "USPS rows")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the Transform loops to this file")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "transformrate:", err)
			os.Exit(1)
		}
		defer f.Close()
		cpuProfile = f
	}
	if err := run(*data, *n, *m, *k, *landmarks, *width, *indexK, *repeat, strings.Split(*methods, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "transformrate:", err)
		os.Exit(1)
	}
}

func run(data string, n, m, k, landmarks, width, indexK, repeat int, methods []string) error {
	ctx := context.Background()
	base, err := dataio.ReadMatrixFile(data)
	if err != nil {
		return err
	}
	all, _, err := datasets.DeformDigits(base, nil, n+m, datasets.Deform{}, 1)
	if err != nil {
		return err
	}
	x := mat.DenseCopyOf(all.Slice(0, n, 0, 256))
	q := mat.DenseCopyOf(all.Slice(n, n+m, 0, 256))
	fmt.Printf("%d training and %d new deformed digits, k = %d, GOMAXPROCS %d\n", n, m, k, runtime.GOMAXPROCS(0))
	approx := engine.Options{Neighbors: engine.Neighbors{Search: engine.NeighborsApprox, Width: width, IndexK: indexK}}
	for _, name := range methods {
		start := time.Now()
		method, ok := enginetest.Lookup(name)
		if !ok || !method.K {
			return fmt.Errorf("unknown method %q (a graph method of engine/enginetest)", name)
		}
		model, err := method.Fit(ctx, x, enginetest.Settings{K: k, Options: approx, Tune: func(p any) {
			if s, ok := p.(*engine.LandmarkIsomap); ok {
				s.Landmarks = landmarks
			}
		}})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fit := time.Since(start)
		start = time.Now()
		if err := engine.Prepare(model); err != nil {
			return err
		}
		prep := time.Since(start)
		if cpuProfile != nil {
			pprof.StartCPUProfile(cpuProfile)
		}
		var times []string
		var tr time.Duration
		for r := 0; r < max(1, repeat); r++ {
			start = time.Now()
			for lo := 0; lo < m; lo += 256 {
				if _, err := model.Transform(ctx, q.Slice(lo, min(m, lo+256), 0, 256)); err != nil {
					return fmt.Errorf("%s transform: %w", name, err)
				}
			}
			t := time.Since(start)
			times = append(times, fmt.Sprintf("%.0f", float64(m)/t.Seconds()))
			if r == 0 || t < tr {
				tr = t
			}
		}
		if cpuProfile != nil {
			pprof.StopCPUProfile()
			cpuProfile = nil // the first method's loop only
		}
		fmt.Printf("%-16s fit %6.1f s  prepare %5.1f s  transform %d rows %6.2f s = %7.0f rows/s (best of %d: %s)\n",
			name, fit.Seconds(), prep.Seconds(), m, tr.Seconds(), float64(m)/tr.Seconds(), len(times), strings.Join(times, " "))
	}
	return recall(ctx, x, q, k, width, indexK)
}

// recall prints recall@k of the approximate index (built as the models
// build theirs, from the training rows' NN-descent lists, widened to
// indexK a row when that is positive) on 1000 new rows.
func recall(ctx context.Context, x, q *mat.Dense, k, width, indexK int) error {
	lists, err := neighbors.KNN(ctx, x, k, neighbors.Options{Algorithm: neighbors.NNDescent})
	if err != nil {
		return err
	}
	ix, err := neighbors.IndexFromLists(ctx, x, lists, neighbors.ApproxOptions{})
	if err != nil {
		return err
	}
	if indexK > 0 {
		if _, err := ix.Widen(ctx, lists, indexK, 2*indexK+2); err != nil {
			return err
		}
	}
	s := q.Slice(0, 1000, 0, 256)
	got, err := ix.Query(ctx, s, k, width)
	if err != nil {
		return err
	}
	want, err := neighbors.KNNQuery(ctx, x, s, k, neighbors.Options{})
	if err != nil {
		return err
	}
	hit := 0
	for i := 0; i < 1000; i++ {
		gj, _ := got.Row(i)
		wj, _ := want.Row(i)
		set := map[int]bool{}
		for _, j := range wj {
			set[j] = true
		}
		for _, j := range gj {
			if set[j] {
				hit++
			}
		}
	}
	fmt.Printf("recall@%d of the new rows' neighbours (1000 rows, search width %d, index k %d): %.4f\n", k, width, indexK, float64(hit)/float64(1000*k))
	return nil
}

var cpuProfile *os.File
