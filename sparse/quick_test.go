package sparse

import (
	"context"
	"math"
	"sort"
	"testing"
	"time"
	"runtime"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/engine/datasets"
)

func quickGraph(n, k int) *CSR {
	x, _ := datasets.SwissRoll(n, 0, 1)
	raw := x.RawMatrix()
	t := NewCOO(n, n, 2*n*k)
	type p struct{ d float64; j int }
	buf := make([]p, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for c := 0; c < 3; c++ {
				e := raw.Data[i*3+c] - raw.Data[j*3+c]
				s += e * e
			}
			buf[j] = p{s, j}
		}
		sort.Slice(buf, func(a, b int) bool { return buf[a].d < buf[b].d || buf[a].d == buf[b].d && buf[a].j < buf[b].j })
		for _, q := range buf[1 : k+1] {
			t.Add(i, q.j, math.Sqrt(q.d))
			t.Add(q.j, i, math.Sqrt(q.d))
		}
	}
	return buildCSR(n, n, t.rows, t.cols, t.vals, func(a, b float64) float64 { return a })
}

func TestQuickDijkstra(t *testing.T) {
	g := quickGraph(10000, 10)
	n := g.r
	out := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	for it := 0; it < 3; it++ {
		t0 := time.Now()
		if err := AllPairsShortestPaths(context.Background(), g, out, PathOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Logf("nnz %d: %v (GOMAXPROCS %d)", g.NNZ(), time.Since(t0), runtime.GOMAXPROCS(0))
	}
}

func TestQuickWrite(t *testing.T) {
	g := quickGraph(10000, 10)
	if err := WriteMatrixMarketFile("/tmp/dj/roll10k.mtx", g, MMOptions{}); err != nil {
		t.Fatal(err)
	}
}
