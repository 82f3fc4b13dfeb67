// Command isomap times exact Isomap and Landmark Isomap on a swiss roll and
// prints the stage reports and the process's peak heap.
//
//	go run ./bench/scale/isomap -n 10000                       # exact, float64
//	go run ./bench/scale/isomap -n 40000 -float32              # exact, float32 geodesics
//	go run ./bench/scale/isomap -n 1000000 -landmarks 300      # Landmark Isomap
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
)

func main() {
	n := flag.Int("n", 10000, "points")
	k := flag.Int("k", 10, "neighbours")
	f32 := flag.Bool("float32", false, "float32 geodesics (exact Isomap)")
	landmarks := flag.Int("landmarks", 0, "> 0: Landmark Isomap with this many landmarks")
	noise := flag.Float64("noise", 0, "swiss-roll noise")
	flag.Parse()
	x, _ := datasets.SwissRoll(*n, *noise, 0)
	fmt.Printf("swiss roll: %d points, k = %d; %s; GOMAXPROCS %d\n", *n, *k, backend.Info(), runtime.GOMAXPROCS(0))
	t0 := time.Now()
	var m engine.Model
	var err error
	if *landmarks > 0 {
		m, err = asModel(engine.LandmarkIsomap{Dim: 2, K: *k, Landmarks: *landmarks}.Fit(context.Background(), x))
	} else {
		m, err = asModel(engine.Isomap{Dim: 2, K: *k, Float32: *f32}.Fit(context.Background(), x))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "isomap:", err)
		os.Exit(1)
	}
	wall := time.Since(t0)
	rep := m.Report()
	fmt.Print(rep.Table())
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("wall %.2f s; peak heap during the fit %.0f MiB (of which %.0f MiB before it); Go heap system memory %.0f MiB\n",
		wall.Seconds(), float64(rep.PeakHeapBytes)/(1<<20), float64(rep.BaseHeapBytes)/(1<<20), float64(ms.HeapSys)/(1<<20))
}

func asModel[M engine.Model](m M, err error) (engine.Model, error) {
	if err != nil {
		return nil, err
	}
	return m, nil
}
