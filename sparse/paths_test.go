package sparse_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

func general(n, m int) blas64.General {
	return blas64.General{Rows: n, Cols: m, Stride: m, Data: make([]float64, max(1, n*m))}
}

// geometricGraph returns a symmetric kNN-like graph of n random points in
// the plane (each joined to its k nearest by brute force, OR rule),
// weights the Euclidean distances, and the points.
func geometricGraph(n, k int, seed uint64) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, 3))
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = rng.Float64(), rng.Float64()
	}
	c := sparse.NewCOO(n, n, 2*n*k)
	d := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := range d {
			d[j] = math.Hypot(xs[i]-xs[j], ys[i]-ys[j])
		}
		d[i] = math.Inf(1)
		for r := 0; r < k; r++ {
			best := 0
			for j := range d {
				if d[j] < d[best] {
					best = j
				}
			}
			c.Add(i, best, d[best])
			c.Add(best, i, d[best])
			d[best] = math.Inf(1)
		}
	}
	// Mutual pairs were added twice (summed): recompute every weight.
	return c.ToCSR().Map(func(i, j int, _ float64) float64 {
		return math.Hypot(xs[i]-xs[j], ys[i]-ys[j])
	})
}

// Dijkstra against scipy.sparse.csgraph.shortest_path(method='D') on the
// fixture graph: weights are halves of integers, so the sums are exact.
func TestShortestPathsScipy(t *testing.T) {
	g, err := sparse.ReadMatrixMarketFile("testdata/graph_directed.mtx")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := g.Dims()
	for _, tc := range []struct {
		name string
		g    *sparse.CSR
		file string
	}{
		{"directed", g, "testdata/sp_directed.txt"},
		// scipy's directed=False follows every edge both ways: the
		// undirected graph with the smaller weight of i→j and j→i.
		{"undirected", sparse.Union(g, g.Transpose(), math.Min), "testdata/sp_undirected.txt"},
	} {
		want := readDense(t, tc.file)
		got := general(n, n)
		if err := sparse.AllPairsShortestPaths(context.Background(), tc.g, got, sparse.PathOptions{}); err != nil {
			t.Fatal(err)
		}
		fw := general(n, n)
		if err := sparse.FloydWarshall(tc.g, fw); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				w := want.At(i, j)
				if got.Data[i*n+j] != w || fw.Data[i*n+j] != w {
					t.Fatalf("%s: d(%d, %d): Dijkstra %v, Floyd–Warshall %v, scipy %v", tc.name, i, j, got.Data[i*n+j], fw.Data[i*n+j], w)
				}
			}
		}
	}
}

// Dijkstra against Floyd–Warshall on random geometric graphs (sizes that
// span several Floyd–Warshall blocks, some disconnected), every output
// variant.
func TestShortestPathsFloyd(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ n, k int }{{1, 1}, {2, 1}, {10, 2}, {150, 3}, {300, 5}} {
		k := min(tc.k, tc.n-1)
		var g *sparse.CSR
		if k == 0 {
			g = sparse.Zero(tc.n, tc.n)
		} else {
			g = geometricGraph(tc.n, k, uint64(tc.n))
		}
		n := tc.n
		fw := general(n, n)
		if err := sparse.FloydWarshall(g, fw); err != nil {
			t.Fatal(err)
		}
		d := general(n, n)
		sums, means := make([]float64, n), make([]float64, n)
		if err := sparse.AllPairsShortestPaths(ctx, g, d, sparse.PathOptions{RowSums: sums, RowMeans: means}); err != nil {
			t.Fatal(err)
		}
		sq := general(n, n)
		sqSums := make([]float64, n)
		if err := sparse.AllPairsShortestPaths(ctx, g, sq, sparse.PathOptions{Squared: true, RowSums: sqSums}); err != nil {
			t.Fatal(err)
		}
		stride := n + 3
		d32 := make([]float32, (n-1)*stride+n)
		sums32 := make([]float64, n)
		if err := sparse.AllPairsShortestPaths32(ctx, g, d32, stride, sparse.PathOptions{RowSums: sums32}); err != nil {
			t.Fatal(err)
		}
		// Every source searched from scratch: the landmark routine's rows.
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		plain := general(n, n)
		if err := sparse.MultiSourceShortestPaths(ctx, g, all, plain, sparse.PathOptions{}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			var s, s2, s32 float64
			for j := 0; j < n; j++ {
				want := fw.Data[i*n+j]
				got := d.Data[i*n+j]
				if !close(got, want) || !close(got, plain.Data[i*n+j]) {
					t.Fatalf("n=%d: d(%d, %d) = %v, Floyd–Warshall %v, from scratch %v", n, i, j, got, want, plain.Data[i*n+j])
				}
				if sq.Data[i*n+j] != got*got {
					t.Fatalf("squared: %v vs %v", sq.Data[i*n+j], got*got)
				}
				if p := plain.Data[i*n+j]; !roundedFrom(d32[i*stride+j], p) {
					t.Fatalf("float32: %v vs %v", d32[i*stride+j], p)
				}
				s += got
				s2 += got * got
				s32 += float64(float32(got))
			}
			if !close(sums[i], s) || !close(means[i], s/float64(n)) || !close(sqSums[i], s2) || math.Abs(sums32[i]-s32) > 1e-6*s32 {
				t.Fatalf("row %d sums: %v %v %v %v, want %v %v %v %v", i, sums[i], means[i], sqSums[i], sums32[i], s, s/float64(n), s2, s32)
			}
		}
		// Landmarks: the same rows, in the order given, repeats allowed.
		src := []int{n - 1, 0, n / 2, 0}
		l := general(len(src), n)
		lsums := make([]float64, len(src))
		if err := sparse.MultiSourceShortestPaths(ctx, g, src, l, sparse.PathOptions{RowSums: lsums}); err != nil {
			t.Fatal(err)
		}
		l32 := make([]float32, len(src)*n)
		if err := sparse.MultiSourceShortestPaths32(ctx, g, src, l32, n, sparse.PathOptions{Squared: true}); err != nil {
			t.Fatal(err)
		}
		for r, s := range src {
			sum := 0.0
			for j := 0; j < n; j++ {
				v := plain.Data[s*n+j]
				if l.Data[r*n+j] != v {
					t.Fatalf("landmark row %d (source %d) differs at %d", r, s, j)
				}
				if l32[r*n+j] != float32(v*v) {
					t.Fatalf("landmark float32 squared row %d differs at %d", r, j)
				}
				sum += v
			}
			if lsums[r] != sum {
				t.Fatalf("landmark sums")
			}
		}
	}
}

// roundedFrom says whether f is x rounded to float32, up to the last bits
// in which the all-pairs rows may differ from a search from scratch: within
// half a float32 unit of x, and the 1e-13 relative of those bits.
func roundedFrom(f float32, x float64) bool {
	if math.IsInf(x, 1) {
		return math.IsInf(float64(f), 1)
	}
	return math.Abs(float64(f)-x) <= (0x1p-24+1e-13)*math.Abs(x)
}

func close(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

// Unreachable pairs are +Inf; a graph split in two.
func TestShortestPathsUnreachable(t *testing.T) {
	c := sparse.NewCOO(4, 4, 0)
	c.Add(0, 1, 2)
	c.Add(1, 0, 2)
	c.Add(2, 3, 1)
	c.Add(3, 2, 1)
	c.Add(3, 3, 5) // a self loop changes nothing
	d := general(4, 4)
	if err := sparse.AllPairsShortestPaths(context.Background(), c.ToCSR(), d, sparse.PathOptions{}); err != nil {
		t.Fatal(err)
	}
	inf := math.Inf(1)
	want := []float64{0, 2, inf, inf, 2, 0, inf, inf, inf, inf, 0, 1, inf, inf, 1, 0}
	for k, w := range want {
		if d.Data[k] != w {
			t.Fatalf("%v, want %v", d.Data, want)
		}
	}
	// Zero-weight edges (duplicate points) are edges.
	z := sparse.NewCOO(3, 3, 0)
	z.Add(0, 1, 0)
	z.Add(1, 0, 0)
	z.Add(1, 2, 3)
	z.Add(2, 1, 3)
	d3 := general(3, 3)
	if err := sparse.AllPairsShortestPaths(context.Background(), z.ToCSR(), d3, sparse.PathOptions{}); err != nil {
		t.Fatal(err)
	}
	if d3.Data[2] != 3 || d3.Data[1] != 0 {
		t.Fatalf("zero-weight edge: %v", d3.Data)
	}
}

func TestShortestPathsErrors(t *testing.T) {
	ctx := context.Background()
	for _, w := range []float64{-1, math.NaN(), math.Inf(1)} {
		c := sparse.NewCOO(2, 2, 0)
		c.Add(0, 1, w)
		err := sparse.AllPairsShortestPaths(ctx, c.ToCSR(), general(2, 2), sparse.PathOptions{})
		if !errors.Is(err, sparse.ErrInvalid) {
			t.Errorf("weight %v: %v", w, err)
		}
		if err := sparse.FloydWarshall(c.ToCSR(), general(2, 2)); !errors.Is(err, sparse.ErrInvalid) {
			t.Errorf("Floyd–Warshall, weight %v: %v", w, err)
		}
	}
	if err := sparse.MultiSourceShortestPaths(ctx, sparse.Zero(2, 3), []int{0}, general(1, 3), sparse.PathOptions{}); !errors.Is(err, sparse.ErrInvalid) {
		t.Errorf("non-square graph: %v", err)
	}
	// Cancellation: a cancelled context stops the loop with its error.
	g := geometricGraph(200, 4, 1)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := sparse.AllPairsShortestPaths(cctx, g, general(200, 200), sparse.PathOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	for name, f := range map[string]func(){
		"dst shape": func() { sparse.AllPairsShortestPaths(ctx, g, general(200, 199), sparse.PathOptions{}) },
		"source":    func() { sparse.MultiSourceShortestPaths(ctx, g, []int{200}, general(1, 200), sparse.PathOptions{}) },
		"row sums": func() {
			sparse.AllPairsShortestPaths(ctx, g, general(200, 200), sparse.PathOptions{RowSums: make([]float64, 3)})
		},
		"float32 len": func() { sparse.AllPairsShortestPaths32(ctx, g, make([]float32, 100), 200, sparse.PathOptions{}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// The oracle itself against a hand-computed case.
func TestFloydWarshallSmall(t *testing.T) {
	// 0 →(4) 1, 0 →(1) 2, 2 →(1) 1, 1 →(1) 3.
	c := sparse.NewCOO(4, 4, 0)
	c.Add(0, 1, 4)
	c.Add(0, 2, 1)
	c.Add(2, 1, 1)
	c.Add(1, 3, 1)
	d := general(4, 4)
	if err := sparse.FloydWarshall(c.ToCSR(), d); err != nil {
		t.Fatal(err)
	}
	inf := math.Inf(1)
	want := mat.NewDense(4, 4, []float64{0, 2, 1, 3, inf, 0, inf, 1, inf, 1, 0, 2, inf, inf, inf, 0})
	if !mat.Equal(mat.NewDense(4, 4, d.Data), want) {
		t.Fatalf("%v", d.Data)
	}
}
