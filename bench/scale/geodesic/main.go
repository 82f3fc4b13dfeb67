// Command geodesic times the geodesic stage of Isomap on a swiss roll: the
// k-nearest-neighbour graph (OR rule, Euclidean weights) and the shortest
// paths over it, all pairs into one reused n×n buffer or from L landmarks,
// and reports the time of each stage and the memory the shortest-path call
// allocated (runtime.MemStats), to show that nothing n×n is allocated
// besides the caller's output.
//
//	go run ./bench/scale/geodesic -n 10000 -k 10 -reps 3 -mtx /tmp/roll.mtx
//	go run ./bench/scale/geodesic -n 1000000 -k 10 -landmarks 300
//
// With -mtx the graph is also written as MatrixMarket, for the scipy run
// of scipy_shortest_path.py on the very same graph (run.sh does both under
// the timing lock).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

func main() {
	n := flag.Int("n", 10000, "points on the swiss roll")
	k := flag.Int("k", 10, "neighbours (OR rule)")
	landmarks := flag.Int("landmarks", 0, "sources: 0 for all pairs, else L random landmarks")
	reps := flag.Int("reps", 3, "repetitions of the shortest-path call (same output buffer)")
	f32 := flag.Bool("f32", false, "float32 output")
	squared := flag.Bool("squared", false, "write squared distances and row means (the MDS input)")
	mtx := flag.String("mtx", "", "write the graph to this MatrixMarket file")
	in := flag.String("graph", "", "read the graph from this MatrixMarket file instead of building it")
	cpuprofile := flag.String("cpuprofile", "", "CPU profile of the shortest-path calls")
	flag.Parse()
	ctx := context.Background()
	fmt.Println(backend.Info())

	var g *sparse.CSR
	if *in != "" {
		var err error
		if g, err = sparse.ReadMatrixMarketFile(*in); err != nil {
			log.Fatal(err)
		}
		*n, _ = g.Dims()
	} else {
		t0 := time.Now()
		x, _ := datasets.SwissRoll(*n, 0, 1)
		t1 := time.Now()
		var err error
		g, err = neighbors.Graph(ctx, x, neighbors.GraphOptions{K: *k})
		if err != nil {
			log.Fatal(err)
		}
		t2 := time.Now()
		fmt.Printf("swiss roll n=%d: %.3f s; kNN graph k=%d (OR): %.3f s, %d stored edges\n", *n, t1.Sub(t0).Seconds(), *k, t2.Sub(t1).Seconds(), g.NNZ())
	}
	if *mtx != "" {
		if err := sparse.WriteMatrixMarketFile(*mtx, g, sparse.MMOptions{}); err != nil {
			log.Fatal(err)
		}
	}
	_, sizes := sparse.ConnectedComponents(g)
	fmt.Printf("components: %d\n", len(sizes))

	rows := *n
	var sources []int
	if *landmarks > 0 {
		rng := rand.New(rand.NewPCG(7, 7))
		sources = rng.Perm(*n)[:*landmarks]
		rows = *landmarks
	}
	var d64 blas64.General
	var d32 []float32
	if *f32 {
		d32 = make([]float32, rows**n)
	} else {
		d64 = blas64.General{Rows: rows, Cols: *n, Stride: *n, Data: make([]float64, rows**n)}
	}
	means, sums := make([]float64, rows), make([]float64, rows)
	opt := sparse.PathOptions{Squared: *squared, RowSums: sums}
	if *squared {
		opt.RowMeans = means
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	ops := flam.AllPairsDijkstra(rows, *n, g.NNZ())
	best := 0.0
	for r := 0; r < *reps; r++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		c0 := cpuSeconds()
		t0 := time.Now()
		var err error
		switch {
		case sources == nil && *f32:
			err = sparse.AllPairsShortestPaths32(ctx, g, d32, *n, opt)
		case sources == nil:
			err = sparse.AllPairsShortestPaths(ctx, g, d64, opt)
		case *f32:
			err = sparse.MultiSourceShortestPaths32(ctx, g, sources, d32, *n, opt)
		default:
			err = sparse.MultiSourceShortestPaths(ctx, g, sources, d64, opt)
		}
		sec := time.Since(t0).Seconds()
		cpu := cpuSeconds() - c0
		if err != nil {
			log.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if r == 0 || sec < best {
			best = sec
		}
		fmt.Printf("shortest paths %d×%d: %.3f s wall, %.3f s CPU (%.2f G ops/s by flam.AllPairsDijkstra); allocated in the call: %.1f MiB (output %.1f MiB, held by the caller)\n",
			rows, *n, sec, cpu, ops/sec/1e9, float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), float64(outBytes(rows, *n, *f32))/(1<<20))
	}
	total := 0.0
	for _, v := range sums {
		total += v
	}
	what := "distances"
	if *squared {
		what = "squared distances"
	}
	fmt.Printf("sum of all %s written: %.6e\n", what, total)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("best: %.3f s; peak RSS %.1f MiB, Go heap obtained from the OS %.1f MiB, output %.1f MiB\n",
		best, float64(ru.Maxrss)/1024, float64(ms.HeapSys)/(1<<20), float64(outBytes(rows, *n, *f32))/(1<<20))
}

func outBytes(rows, n int, f32 bool) int {
	if f32 {
		return 4 * rows * n
	}
	return 8 * rows * n
}

// cpuSeconds is the user + system time of the process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
