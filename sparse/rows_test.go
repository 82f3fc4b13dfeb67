package sparse_test

import (
	"context"
	"errors"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// The all-pairs search, which starts each source from its earlier
// neighbours' rows, gives the distances of searches from scratch to the
// last bits (exactly where the sums are exact: integer weights), the same
// bits whatever the number of workers and whether the buckets or the heap
// run (the heap from the start, or after the buckets gave up), on directed
// graphs too; its squares and row sums are those of its distances; its
// float32 output is those distances rounded once, by the ring of rows.
func TestAllPairsFromRows(t *testing.T) {
	for _, c := range pathCases(t) {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			n, _ := c.g.Dims()
			skipLongUnderShort(t, c)
			run := func(opt sparse.PathOptions) []float64 {
				d := general(n, n)
				if err := sparse.AllPairsShortestPaths(ctx, c.g, d, opt); err != nil {
					t.Fatal(err)
				}
				return d.Data
			}
			prev := sparse.SetPlainAllPairs(true)
			plain := run(sparse.PathOptions{})
			sparse.SetPlainAllPairs(prev)
			got := run(sparse.PathOptions{})
			differ := 0
			for i, want := range plain {
				if got[i] == want {
					continue
				}
				differ++
				if c.exact || !(math.Abs(got[i]-want) <= 1e-13*want) {
					t.Fatalf("d(%d, %d) = %v, from scratch %v", i/n, i%n, got[i], want)
				}
			}
			t.Logf("%d of %d distances differ from the searches from scratch in the last bits", differ, n*n)

			same := func(what string, other []float64) {
				t.Helper()
				for i := range got {
					if math.Float64bits(other[i]) != math.Float64bits(got[i]) {
						t.Fatalf("%s: d(%d, %d) = %v, not %v", what, i/n, i%n, other[i], got[i])
					}
				}
			}
			for _, procs := range []int{1, 3} {
				old := runtime.GOMAXPROCS(procs)
				other := run(sparse.PathOptions{})
				runtime.GOMAXPROCS(old)
				same("GOMAXPROCS "+string(rune('0'+procs)), other)
			}
			prev = sparse.SetHeapOnlyPaths(true)
			heap := run(sparse.PathOptions{})
			sparse.SetHeapOnlyPaths(prev)
			same("heap only", heap)
			prev = sparse.SetGiveUpAlways(true)
			restarted := run(sparse.PathOptions{})
			sparse.SetGiveUpAlways(prev)
			same("buckets giving up", restarted)

			// Float32: distances from float64 rows rounded once, the same bits
			// whatever the number of workers.
			run32 := func(opt sparse.PathOptions) []float32 {
				d := make([]float32, n*n)
				if err := sparse.AllPairsShortestPaths32(ctx, c.g, d, n, opt); err != nil {
					t.Fatal(err)
				}
				return d
			}
			sums32 := make([]float64, n)
			d32 := run32(sparse.PathOptions{Squared: true, RowSums: sums32})
			for i := 0; i < n; i++ {
				sum := 0.0
				for j := 0; j < n; j++ {
					p := plain[i*n+j]
					if f := d32[i*n+j]; !roundedFrom(f, p*p) || (c.exact && f != float32(p*p)) {
						t.Fatalf("float32 squared d(%d, %d) = %v, from scratch %v", i, j, f, p*p)
					}
					sum += float64(d32[i*n+j])
				}
				if sums32[i] != sum {
					t.Fatalf("float32 row %d: sum %v, want %v", i, sums32[i], sum)
				}
			}
			for _, procs := range []int{1, 3} {
				old := runtime.GOMAXPROCS(procs)
				other := run32(sparse.PathOptions{Squared: true})
				runtime.GOMAXPROCS(old)
				for i := range other {
					if other[i] != d32[i] {
						t.Fatalf("float32, GOMAXPROCS %d: d(%d, %d) = %v, not %v", procs, i/n, i%n, other[i], d32[i])
					}
				}
			}

			sums, means := make([]float64, n), make([]float64, n)
			sq := run(sparse.PathOptions{Squared: true, RowSums: sums, RowMeans: means})
			for i := 0; i < n; i++ {
				sum := 0.0
				for j := 0; j < n; j++ {
					v := got[i*n+j] * got[i*n+j]
					if sq[i*n+j] != v {
						t.Fatalf("squared d(%d, %d) = %v, want %v", i, j, sq[i*n+j], v)
					}
					sum += v
				}
				if sums[i] != sum || means[i] != sum/float64(n) {
					t.Fatalf("row %d: sum %v mean %v, want %v %v", i, sums[i], means[i], sum, sum/float64(n))
				}
			}
		})
	}
}

// oneWay drops one direction of two edges in three and lengthens the
// rest by 10⁻³: a directed graph.
func oneWay(g *sparse.CSR) *sparse.CSR {
	n, _ := g.Dims()
	c := sparse.NewCOO(n, n, g.NNZ())
	for i := 0; i < n; i++ {
		cols, vals := g.Row(i)
		for p, j := range cols {
			if i > j || (i+j)%3 == 0 {
				c.Add(i, j, vals[p]+1e-3)
			}
		}
	}
	return c.ToCSR()
}

// hub joins every vertex to vertex 0 by an edge of weight 5.
func hub(g *sparse.CSR) *sparse.CSR {
	n, _ := g.Dims()
	c := sparse.NewCOO(n, n, g.NNZ()+2*n)
	for i := 0; i < n; i++ {
		cols, vals := g.Row(i)
		for p, j := range cols {
			c.Add(i, j, vals[p])
		}
		if i > 0 {
			c.Add(i, 0, 5)
			c.Add(0, i, 5)
		}
	}
	return c.ToCSR()
}

// A cancel lands within 100 ms wherever it comes in the all-pairs search
// from rows, float64 and float32, the ring of its own or in the output
// (workers waiting for rows, for the ring or at the barrier included), and
// the call then fails.
func TestAllPairsFromRowsCancel(t *testing.T) {
	r := 60 // 3600 vertices: 0.15–0.2 s
	if testmode.Quick() {
		r = 30 // -race
	}
	g := gridGraph(r, r, false)
	n, _ := g.Dims()
	d := general(n, n)
	d32 := make([]float32, n*n)
	order := make([]int, n)
	// mode 0: float64, 1: float32, 2: float32 in the searches' order with
	// the ring in the output (past its barrier, sources wait for all
	// earlier ones).
	run := func(ctx context.Context, mode int) error {
		switch mode {
		case 1:
			return sparse.AllPairsShortestPaths32(ctx, g, d32, n, sparse.PathOptions{Squared: true})
		case 2:
			return sparse.AllPairsShortestPaths32(ctx, g, d32, n, sparse.PathOptions{Squared: true, Order: order, RingInOutput: true})
		}
		return sparse.AllPairsShortestPaths(ctx, g, d, sparse.PathOptions{Squared: true})
	}
	for mode := range 3 {
		start := time.Now()
		if err := run(context.Background(), mode); err != nil {
			t.Fatal(err)
		}
		whole := time.Since(start)
		checkCancelLatency(t, whole, []float64{0.05, 0.5, 0.9}, func(ctx context.Context, _ time.Duration) bool {
			err := run(ctx, mode)
			if err == nil {
				return false
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("mode %d: error %v, want context.Canceled", mode, err)
			}
			return true
		})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := run(ctx, mode); !errors.Is(err, context.Canceled) {
			t.Fatalf("mode %d, cancelled before the start: error %v", mode, err)
		}
	}
}

// With Order the output is the original order's permuted, row and column:
// the same bits for float64 (the same searches from the same rows) and
// for float32 with a ring of its own; with the ring in the output, each
// float32 value the plain search's distance rounded once (the sources
// past the ring's barrier search from scratch), the same bits whatever the
// number of workers. The ring lies inside the output on the graphs wide
// enough for it, and in a slice of its own on the others.
func TestAllPairsInOrder(t *testing.T) {
	cases := pathCases(t)
	cases = append(cases, pathCase{name: "grid 70×70 (integer weights)", g: gridGraph(70, 70, false), exact: true})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			n, _ := c.g.Dims()
			skipLongUnderShort(t, c)
			sums := make([]float64, n)
			want := general(n, n)
			if err := sparse.AllPairsShortestPaths(ctx, c.g, want, sparse.PathOptions{Squared: true, RowSums: sums}); err != nil {
				t.Fatal(err)
			}
			prev := sparse.SetPlainAllPairs(true)
			plain := general(n, n)
			if err := sparse.AllPairsShortestPaths(ctx, c.g, plain, sparse.PathOptions{Squared: true}); err != nil {
				t.Fatal(err)
			}
			sparse.SetPlainAllPairs(prev)

			order, osums := make([]int, n), make([]float64, n)
			got := general(n, n)
			if err := sparse.AllPairsShortestPaths(ctx, c.g, got, sparse.PathOptions{Squared: true, RowSums: osums, Order: order}); err != nil {
				t.Fatal(err)
			}
			seen := make([]bool, n)
			for k, i := range order {
				if seen[i] {
					t.Fatalf("Order[%d] = %d twice", k, i)
				}
				seen[i] = true
				sum := 0.0
				for l, j := range order {
					g, w := got.Data[k*n+l], want.Data[i*n+j]
					if math.Float64bits(g) != math.Float64bits(w) {
						t.Fatalf("float64 in order: (%d, %d) = %v, vertices (%d, %d) %v", k, l, g, i, j, w)
					}
					sum += g
				}
				if osums[k] != sum || !(sum == sums[i] || math.Abs(sum-sums[i]) <= 1e-12*math.Abs(sums[i])) {
					t.Fatalf("row sum %d (vertex %d) = %v, want %v (%v in the original order)", k, i, osums[k], sum, sums[i])
				}
			}

			stride := n + 3 // a stride beyond n: the ring spans the gaps
			run32 := func(procs int, inOutput bool) ([]float32, []float64) {
				old := runtime.GOMAXPROCS(procs)
				defer runtime.GOMAXPROCS(old)
				d, s := make([]float32, (n-1)*stride+n), make([]float64, n)
				opt := sparse.PathOptions{Squared: true, RowSums: s, Order: make([]int, n), RingInOutput: inOutput}
				if err := sparse.AllPairsShortestPaths32(ctx, c.g, d, stride, opt); err != nil {
					t.Fatal(err)
				}
				return d, s
			}
			// A ring of its own: the original order's float32 values.
			own, _ := run32(2, false)
			orig := make([]float32, n*n)
			if err := sparse.AllPairsShortestPaths32(ctx, c.g, orig, n, sparse.PathOptions{Squared: true}); err != nil {
				t.Fatal(err)
			}
			for k, i := range order {
				for l, j := range order {
					if own[k*stride+l] != orig[i*n+j] {
						t.Fatalf("float32 in order, ring of its own (%d, %d) = %v, vertices (%d, %d) %v", k, l, own[k*stride+l], i, j, orig[i*n+j])
					}
				}
			}
			d32, s32 := run32(2, true)
			barrier := sparse.RingBarrier(c.g, d32, stride)
			t.Logf("n = %d, ring inside the output from row %d", n, barrier)
			for k, i := range order {
				sum := 0.0
				for l, j := range order {
					f, p := d32[k*stride+l], plain.Data[i*n+j]
					if !roundedFrom(f, p) || (c.exact && f != float32(p)) {
						t.Fatalf("float32 in order (%d, %d) = %v, plain search %v (ring from row %d)", k, l, f, p, barrier)
					}
					sum += float64(f)
				}
				if s32[k] != sum {
					t.Fatalf("float32 row %d: sum %v, want %v", k, s32[k], sum)
				}
			}
			for _, procs := range []int{1, 3} {
				other, _ := run32(procs, true)
				for k := 0; k < n; k++ {
					for l := 0; l < n; l++ {
						if other[k*stride+l] != d32[k*stride+l] {
							t.Fatalf("float32 in order, GOMAXPROCS %d: (%d, %d) = %v, not %v", procs, k, l, other[k*stride+l], d32[k*stride+l])
						}
					}
				}
			}
		})
	}
	// The ring lies inside on the large manifold graphs.
	for _, g := range []*sparse.CSR{cases[0].g, cases[len(cases)-1].g} {
		n, _ := g.Dims()
		if b := sparse.RingBarrier(g, make([]float32, n*n), n); b >= n || b < n-n/8 {
			t.Errorf("n = %d: ring from row %d, want inside the last eighth", n, b)
		}
	}
}
