// Command isoproj times Isometric Projection on the reuters21578 corpus
// (all 8293 documents, 18933 terms, unit-length rows as
// Cai, He & Han, AAAI 2007 §"Clustering on Reuters-21578" prepares them)
// and prints the stage report: predicted flam against measured seconds.
//
//	go run ./bench/scale/isoproj [-data ../shared/data] [-k 7] [-dim 10]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/sparse"
)

func main() {
	data := flag.String("data", filepath.Join("..", "shared", "data"), "the shared data folder")
	k := flag.Int("k", 7, "neighbours")
	dim := flag.Int("dim", 10, "projections")
	flag.Parse()
	t0 := time.Now()
	x, err := sparse.ReadMatrixMarketFile(filepath.Join(*data, "reuters21578", "reuters21578_X.mtx.gz"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "isoproj:", err)
		os.Exit(1)
	}
	x = x.NormalizeRows(sparse.L2)
	r, c := x.Dims()
	fmt.Printf("reuters21578: %d documents × %d terms, %d non-zeros, read in %.2f s\n", r, c, x.NNZ(), time.Since(t0).Seconds())
	m, err := engine.IsoProjection{Dim: *dim, K: *k, Disconnected: engine.DisconnectedConnect}.Fit(context.Background(), x)
	if err != nil {
		fmt.Fprintln(os.Stderr, "isoproj:", err)
		os.Exit(1)
	}
	rep := m.Report()
	fmt.Print(rep.Table())
}
