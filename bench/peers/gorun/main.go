// Command gorun is manifold's side of the peer comparison (bench/peers):
// one fit, or one stage, per process, so that the driver can measure each
// process's peak memory. It reads the n×D input from a .npy file, writes
// the embedding (or nothing, for stages) and prints one JSON line with the
// measured seconds of the fit (or stage) and the backend.
//
//	gorun -method isomap -in X.npy -out Y.npy [-k 10] [-dim 2]
//	gorun -stage knn -in X.npy [-k 10]          # neighbour search alone
//	gorun -stage paths -graph G.mtx             # all-pairs Dijkstra alone
//	gorun -quality -in X.npy -y Y.npy [-ref R.npy] [-k 10]
//
// -method is any method of engine/enginetest, fitted with -dim and -k.
// Those with a scikit-learn peer, and the settings that match
// scikit-learn's (bench/peers/sk_run.py):
// isomap (K), lle (K, reg 1e-3), ltsa (K), laplacian (K, connectivity
// weights: SpectralEmbedding's n_neighbors = K + 1 counts the point
// itself), pca, mds (classical; scikit-learn's KernelPCA of −½·D²).
// -quality prints the trustworthiness (k = -k) of -y (and -ref) with
// respect to -in and the Procrustes disparity between -y and -ref
// (engine/metrics).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/enginetest"
	"github.com/manifoldlab/manifold/engine/metrics"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

func main() {
	method := flag.String("method", "", "a method of engine/enginetest: isomap, lle, ltsa, laplacian, pca, mds, …")
	stage := flag.String("stage", "", "knn or paths: time one stage alone")
	quality := flag.Bool("quality", false, "print trustworthiness and Procrustes disparity")
	in := flag.String("in", "", "input .npy (rows = samples)")
	out := flag.String("out", "", "embedding .npy to write")
	yPath := flag.String("y", "", "-quality: the embedding")
	ref := flag.String("ref", "", "-quality: the reference embedding")
	graph := flag.String("graph", "", "-stage paths: the graph (.mtx)")
	k := flag.Int("k", 10, "neighbours")
	dim := flag.Int("dim", 2, "output dimension")
	flag.Parse()
	ctx := context.Background()
	res := map[string]any{"backend": backend.Info().Backend, "gomaxprocs": runtime.GOMAXPROCS(0)}

	switch {
	case *quality:
		x, y := read(*in), read(*yPath)
		tw, err := metrics.Trustworthiness(ctx, x, y, *k)
		check(err)
		res["trustworthiness"] = tw
		if *ref != "" {
			r := read(*ref)
			tr, err := metrics.Trustworthiness(ctx, x, r, *k)
			check(err)
			res["trustworthiness_ref"] = tr
			d, err := metrics.Procrustes(y, r)
			check(err)
			res["procrustes"] = d
		}
	case *stage == "knn":
		x := read(*in)
		t0 := time.Now()
		_, err := neighbors.KNN(ctx, x, *k, neighbors.Options{})
		check(err)
		res["seconds"] = time.Since(t0).Seconds()
	case *stage == "paths":
		g, err := sparse.ReadMatrixMarketFile(*graph)
		check(err)
		n, _ := g.Dims()
		dst := mat.NewDense(n, n, nil)
		t0 := time.Now()
		check(sparse.AllPairsShortestPaths(ctx, g, dst.RawMatrix(), sparse.PathOptions{}))
		res["seconds"] = time.Since(t0).Seconds()
	default:
		x := read(*in)
		t0 := time.Now()
		m, err := fit(ctx, *method, x, *k, *dim)
		check(err)
		res["seconds"] = time.Since(t0).Seconds()
		rep := m.Report()
		res["stages"] = rep.Stages
		res["peak_heap_bytes"] = rep.PeakHeapBytes
		if *out != "" {
			f, err := os.Create(*out)
			check(err)
			w := bufio.NewWriter(f)
			check(dataio.WriteNPY(w, m.Embedding()))
			check(w.Flush())
			check(f.Close())
		}
	}
	b, err := json.Marshal(res)
	check(err)
	fmt.Println(string(b))
}

// fit fits the engine/enginetest method of that name with Dim and K;
// Laplacian eigenmaps with connectivity (0/1) weights, as scikit-learn's
// SpectralEmbedding.
func fit(ctx context.Context, method string, x *mat.Dense, k, dim int) (engine.Model, error) {
	m, ok := enginetest.Lookup(method)
	if !ok {
		return nil, fmt.Errorf("unknown method %q", method)
	}
	s := enginetest.Settings{Dim: dim, K: k}
	if method == "laplacian" {
		s.Tune = func(p any) { p.(*engine.LaplacianEigenmaps).Weight = engine.WeightConnectivity }
	}
	return m.Fit(ctx, x, s)
}

func read(path string) *mat.Dense {
	f, err := os.Open(path)
	check(err)
	defer f.Close()
	m, err := dataio.ReadNPY(bufio.NewReader(f))
	check(err)
	return m
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gorun:", err)
		os.Exit(1)
	}
}
