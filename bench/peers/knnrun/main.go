// Command knnrun is the Go side of bench/peers/knn_peers.py: it reads a
// .npy file, builds its k-nearest-neighbour graph with engine/neighbors
// (NN-descent, or the exact search), times the build alone, and writes the
// neighbour indices (n×k, self excluded, float64 .npy) and a JSON line with
// the seconds, the iterations and the sampled recall the engine reports.
//
//	go run ./bench/peers/knnrun -in x.npy -k 15 -out ind.npy
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/neighbors"
)

func main() {
	in := flag.String("in", "", "input .npy")
	gen := flag.Int("gen-digits", 0, "instead of -in: generate this many deformed USPS digits in memory (engine/datasets, seed 1; no file written)")
	k := flag.Int("k", 15, "neighbours")
	mode := flag.String("mode", "approx", "approx or exact")
	out := flag.String("out", "", "output indices .npy (optional)")
	seed := flag.Uint64("seed", 1, "seed")
	trees := flag.Int("trees", 0, "trees (0: default)")
	rho := flag.Float64("rho", 0, "ρ (0: default)")
	delta := flag.Float64("delta", 0, "δ (0: default)")
	leaf := flag.Int("leaf", 0, "leaf size (0: default)")
	sample := flag.Int("sample", 200, "points of the sampled recall")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the build")
	refine := flag.Int("refine", 0, "approx: end NN-descent with a refining search of its graph a row at this width (neighbors.ApproxOptions.Refine; 0: none)")
	f32 := flag.Bool("float32", false, "read -in as float32 and search it in place (neighbors.KNNApprox32: no float64 copy of the data, no float32 copy either); no sampled recall")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err == nil {
			_ = pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	var err error
	if *f32 {
		err = run32(*in, *k, *out, neighbors.ApproxOptions{Seed: *seed, Trees: *trees, Rho: *rho, Delta: *delta, LeafSize: *leaf, Refine: *refine})
	} else {
		err = run(*in, *gen, *k, *mode, *out, *seed, *trees, *rho, *delta, *leaf, *sample, *refine)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "knnrun:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(in string, gen, k int, mode, out string, seed uint64, trees int, rho, delta float64, leaf, sample, refine int) error {
	var x *mat.Dense
	var err error
	if gen > 0 {
		base, err := dataio.ReadMatrixFile(filepath.Join("..", "shared", "data", "usps9298", "usps9298_X.npy"))
		if err != nil {
			return err
		}
		if x, _, err = datasets.DeformDigits(base, nil, gen, datasets.Deform{}, 1); err != nil {
			return err
		}
	} else {
		m, err := dataio.ReadMatrixFile(in)
		if err != nil {
			return err
		}
		var ok bool
		if x, ok = m.(*mat.Dense); !ok {
			x = mat.DenseCopyOf(m)
		}
	}
	ctx := context.Background()
	start := time.Now()
	var res *neighbors.Result
	var info neighbors.ApproxInfo
	switch mode {
	case "approx":
		opt := neighbors.ApproxOptions{Seed: seed, Trees: trees, Rho: rho, Delta: delta, LeafSize: leaf, Refine: refine}
		res, info, err = neighbors.KNNApprox(ctx, x, k, opt)
	case "exact":
		res, err = neighbors.KNN(ctx, x, k, neighbors.Options{})
	default:
		err = fmt.Errorf("-mode %q", mode)
	}
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	est, err := neighbors.SampledRecall(ctx, x, res, sample, seed, neighbors.Options{})
	if err != nil {
		return err
	}
	n, _ := x.Dims()
	if err := writeIndices(out, res, n, k); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"tool": "manifold", "mode": mode, "n": n, "k": k, "seconds": secs, "refine_width": refine,
		"iterations": info.Iterations, "updates": info.Updates, "trees": info.Trees, "leaf": info.LeafSize,
		"distances": info.Distances, "sampled_recall": est.Recall, "sampled_recall_se": est.StdErr,
	})
}

// run32 is the -float32 path: the rows read as float32 and searched in
// place, so the process holds one float32 copy of the data.
func run32(in string, k int, out string, opt neighbors.ApproxOptions) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	x, n, d, err := dataio.ReadNPY32Ctx(context.Background(), f, dataio.Limits{})
	f.Close()
	if err != nil {
		return err
	}
	start := time.Now()
	res, info, err := neighbors.KNNApprox32(context.Background(), x, d, k, opt)
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	if err := writeIndices(out, res, n, k); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"tool": "manifold", "mode": "approx-float32", "n": n, "k": k, "seconds": secs, "refine_width": opt.Refine,
		"iterations": info.Iterations, "updates": info.Updates, "trees": info.Trees, "leaf": info.LeafSize,
		"distances": info.Distances,
	})
}

// writeIndices writes the neighbour indices of res (n rows of k) to out as
// .npy, for the side-by-side script's recall; out "" writes nothing.
func writeIndices(out string, res *neighbors.Result, n, k int) error {
	if out == "" {
		return nil
	}
	ind := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		js, _ := res.Row(i)
		for c, j := range js {
			ind.Set(i, c, float64(j))
		}
	}
	return dataio.WriteMatrixFile(out, ind)
}
