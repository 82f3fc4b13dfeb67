package sparse_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// rollGraph is the k = 10 OR graph of an n-point swiss roll (seed 1, no
// noise), Euclidean weights: the graph of the Isomap targets.
func rollGraph(b testing.TB, n int) *sparse.CSR {
	x, _ := datasets.SwissRoll(n, 0, 1)
	g, err := neighbors.Graph(context.Background(), x, neighbors.GraphOptions{K: 10})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// All-pairs geodesics into one reused n×n buffer, float64 or float32,
// each source started from its earlier neighbours' rows (rows) or from
// scratch (scratch). The target, against
// scipy.sparse.csgraph.shortest_path(method='D') on the same graph, is
// measured side by side by bench/scale/geodesic/run.sh.
func BenchmarkAllPairs(b *testing.B) {
	for _, n := range []int{2000, 10000} {
		g := rollGraph(b, n)
		for _, f32 := range []bool{false, true} {
			for _, scratch := range []bool{false, true} {
				name := fmt.Sprintf("n=%d/float64/rows", n)
				if f32 {
					name = fmt.Sprintf("n=%d/float32/rows", n)
				}
				if scratch {
					name = name[:len(name)-len("rows")] + "scratch"
				}
				b.Run(name, func(b *testing.B) {
					defer sparse.SetPlainAllPairs(sparse.SetPlainAllPairs(scratch))
					benchAllPairs(b, g, f32)
				})
			}
		}
	}
}

func benchAllPairs(b *testing.B, g *sparse.CSR, f32 bool) {
	n, _ := g.Dims()
	var out blas64.General
	var out32 []float32
	if f32 {
		out32 = make([]float32, n*n)
	} else {
		out = blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	}
	means := make([]float64, n)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		opt := sparse.PathOptions{Squared: true, RowMeans: means}
		var err error
		if f32 {
			err = sparse.AllPairsShortestPaths32(context.Background(), g, out32, n, opt)
		} else {
			err = sparse.AllPairsShortestPaths(context.Background(), g, out, opt)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(flam.AllPairsDijkstra(n, n, g.NNZ())*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gops/s")
}

// Landmark geodesics, float32 output: L = 30 sources on a 200,000-point
// roll (the 10⁶-point, L = 300 target runs in bench/scale/geodesic).
func BenchmarkLandmarks(b *testing.B) {
	const n, l = 200_000, 30
	g := rollGraph(b, n)
	src := make([]int, l)
	for i := range src {
		src[i] = i * (n / l)
	}
	out := make([]float32, l*n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := sparse.MultiSourceShortestPaths32(context.Background(), g, src, out, n, sparse.PathOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(flam.AllPairsDijkstra(l, n, g.NNZ())*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gops/s")
}

// Sparse products: the SpMV of a Laplacian-sized matrix.
func BenchmarkMulVec(b *testing.B) {
	g := rollGraph(b, 100_000)
	n, _ := g.Dims()
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = float64(i % 17)
	}
	b.Run("MulVecTo", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			g.MulVecTo(y, x)
		}
	})
	b.Run("MulTransVecTo", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			g.MulTransVecTo(y, x)
		}
	})
	for _, w := range []int{6, 8} { // 6: LLE's LOBPCG block
		xb := blas64.General{Rows: n, Cols: w, Stride: w, Data: make([]float64, w*n)}
		yb := blas64.General{Rows: n, Cols: w, Stride: w, Data: make([]float64, w*n)}
		for i := range xb.Data {
			xb.Data[i] = float64(i % 13)
		}
		b.Run(fmt.Sprintf("MulBlockTo%d", w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				g.MulBlockTo(yb, xb)
			}
		})
	}
}

// Floyd–Warshall, the oracle, n = 1000.
func BenchmarkFloydWarshall(b *testing.B) {
	g := rollGraph(b, 1000)
	out := blas64.General{Rows: 1000, Cols: 1000, Stride: 1000, Data: make([]float64, 1e6)}
	for i := 0; i < b.N; i++ {
		if err := sparse.FloydWarshall(g, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(flam.FloydWarshall(1000)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gops/s")
}

// BenchmarkLDLFactorFronts factors LLE's pattern on a 220×220 lattice (AMD
// order) row by row and on dense fronts.
func BenchmarkLDLFactorFronts(b *testing.B) {
	a := latticeCliques(220, 220)
	an, err := sparse.AnalyzeLDL(context.Background(), a, sparse.OrderAMD)
	if err != nil {
		b.Fatal(err)
	}
	for _, fronts := range []bool{false, true} {
		b.Run(fmt.Sprintf("fronts=%v", fronts), func(b *testing.B) {
			defer sparse.SetUpLookingOnly(sparse.SetUpLookingOnly(!fronts))
			for b.Loop() {
				if _, err := an.Factor(context.Background(), a, -1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(an.Flam(), "flam/op")
		})
	}
}

// BenchmarkLDLFile orders, analyses (AMD, and the automatic choice, alone
// and with its first factorization), factors (row by row and on fronts)
// and solves (column by column and by the plan) with the matrix of a MatrixMarket file named by
// MANIFOLD_LDL_MTX (as `go run ./bench/scale/ldlorder -write DIR` writes
// them); skipped without it.
//
//	MANIFOLD_LDL_MTX=/tmp/mtx/roll-50000-kNN.mtx go test ./sparse -run X -bench LDLFile -benchtime 20x
func BenchmarkLDLFile(b *testing.B) {
	path := os.Getenv("MANIFOLD_LDL_MTX")
	if path == "" {
		b.Skip("MANIFOLD_LDL_MTX names no matrix")
	}
	a, err := sparse.ReadMatrixMarketFile(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("analyze", func(b *testing.B) {
		for b.Loop() {
			if _, err := sparse.AnalyzeLDL(ctx, a, sparse.OrderAMD); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("analyze-auto", func(b *testing.B) {
		for b.Loop() {
			if _, err := sparse.AnalyzeLDL(ctx, a, sparse.OrderAuto); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The analysis and its first factorization, as a certified eigensolve
	// pays them once (on fronts, the first also builds the supernodes'
	// pattern of L).
	b.Run("analyze-auto+factor", func(b *testing.B) {
		for b.Loop() {
			an, err := sparse.AnalyzeLDL(ctx, a, sparse.OrderAuto)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := an.Factor(ctx, a, -1); err != nil {
				b.Fatal(err)
			}
		}
	})
	an, err := sparse.AnalyzeLDL(ctx, a, sparse.OrderAMD)
	if err != nil {
		b.Fatal(err)
	}
	for _, fronts := range []bool{false, true} {
		b.Run(fmt.Sprintf("factor/fronts=%v", fronts), func(b *testing.B) {
			defer sparse.SetUpLookingOnly(sparse.SetUpLookingOnly(!fronts))
			for b.Loop() {
				if _, err := an.Factor(ctx, a, -1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(an.Flam(), "flam/op")
		})
	}
	f, err := an.Factor(ctx, a, -1)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := a.Dims()
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i%7) - 3
	}
	for _, serial := range []bool{true, false} {
		b.Run(fmt.Sprintf("solve/serial=%v", serial), func(b *testing.B) {
			defer sparse.SetSerialSolves(sparse.SetSerialSolves(serial))
			for b.Loop() {
				f.SolveTo(x, x)
			}
		})
	}
}

// Landmark geodesics on the graph of a MatrixMarket file named by
// MANIFOLD_GRAPH_MTX (a kNN graph as `manifold neighbors` writes it,
// symmetrized by the larger weight as the graph methods do it), from
// MANIFOLD_GRAPH_SOURCES sources (16 by default) spread over the vertices;
// skipped without it. The metric is the wall time per source and vertex
// (the graph's preparation included: use enough sources).
//
//	manifold neighbors -k 10 -in digits.npy -out /tmp/g.mtx
//	MANIFOLD_GRAPH_MTX=/tmp/g.mtx go test ./sparse -run X -bench LandmarksFile -benchtime 3x
func BenchmarkLandmarksFile(b *testing.B) {
	path := os.Getenv("MANIFOLD_GRAPH_MTX")
	if path == "" {
		b.Skip("MANIFOLD_GRAPH_MTX names no graph")
	}
	a, err := sparse.ReadMatrixMarketFile(path)
	if err != nil {
		b.Fatal(err)
	}
	g := sparse.Union(a, a.Transpose(), func(x, y float64) float64 { return max(x, y) })
	n, _ := g.Dims()
	l := 16
	if s := os.Getenv("MANIFOLD_GRAPH_SOURCES"); s != "" {
		if _, err := fmt.Sscan(s, &l); err != nil || l < 1 || l > n {
			b.Fatalf("MANIFOLD_GRAPH_SOURCES=%q: want a count of sources in [1, %d]", s, n)
		}
	}
	src := make([]int, l)
	for i := range src {
		src[i] = i * (n / l)
	}
	out := make([]float32, l*n)
	for b.Loop() {
		if err := sparse.MultiSourceShortestPaths32(context.Background(), g, src, out, n, sparse.PathOptions{Squared: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(l)/float64(n), "ns/source/vertex")
}
