package lanczos_test

import (
	"container/heap"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/lanczos"
)

// dataDir is the shared data folder, two levels above the repository root.
var dataDir = filepath.Join("..", "..", "shared", "data")

// readUSPS returns the first rows of the USPS digits (float64 .npy).
func readUSPS(t testing.TB, rows int) blas64.General {
	path := filepath.Join(dataDir, "usps9298", "usps9298_X.npy")
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			t.Skipf("real data not available (%s absent): skipping the τ(D_G) test on USPS digits", path)
		}
		t.Fatal(err)
	}
	defer f.Close()
	pre := make([]byte, 10)
	if _, err := io.ReadFull(f, pre); err != nil {
		t.Fatal(err)
	}
	hdr := make([]byte, binary.LittleEndian.Uint16(pre[8:]))
	if _, err := io.ReadFull(f, hdr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(hdr), "'<f8'") || !strings.Contains(string(hdr), "(9298, 256)") {
		t.Fatalf("unexpected header %s", hdr)
	}
	const d = 256
	buf := make([]byte, rows*d*8)
	if _, err := io.ReadFull(f, buf); err != nil {
		t.Fatal(err)
	}
	x := blas64.General{Rows: rows, Cols: d, Stride: d, Data: make([]float64, rows*d)}
	for i := range x.Data {
		x.Data[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
	}
	return x
}

// tauOfGeodesics builds τ(D_G) = −½·H·S·H for S the squared shortest-path
// distances on the k-nearest-neighbour graph (OR rule) of the rows of x,
// as Isomap and Isometric Projection do (Cai, He & Han, AAAI 2007 eq. 3):
// brute-force neighbours, Dijkstra from every vertex.
func tauOfGeodesics(t testing.TB, x blas64.General, k int) blas64.General {
	n := x.Rows
	d2 := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	if err := backend.SqDistCtx(context.Background(), backend.PureGo, d2, x, x, nil, nil); err != nil {
		t.Fatal(err)
	}
	// Neighbour lists, symmetrized (i ~ j if either is among the other's k).
	adj := make([]map[int]float64, n)
	for i := range adj {
		adj[i] = map[int]float64{}
	}
	idx := make([]int, n)
	for i := 0; i < n; i++ {
		for j := range idx {
			idx[j] = j
		}
		row := d2.Data[i*n : (i+1)*n]
		sort.Slice(idx, func(a, b int) bool { return row[idx[a]] < row[idx[b]] })
		taken := 0
		for _, j := range idx {
			if j == i {
				continue
			}
			w := math.Sqrt(row[j])
			adj[i][j], adj[j][i] = w, w
			if taken++; taken == k {
				break
			}
		}
	}
	// Dijkstra from every vertex; squared distances into s.
	s := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	for src := 0; src < n; src++ {
		dist := s.Data[src*n : (src+1)*n]
		for i := range dist {
			dist[i] = math.Inf(1)
		}
		dist[src] = 0
		pq := &vheap{{src, 0}}
		for pq.Len() > 0 {
			it := heap.Pop(pq).(vitem)
			if it.d > dist[it.v] {
				continue
			}
			for u, w := range adj[it.v] {
				if nd := it.d + w; nd < dist[u] {
					dist[u] = nd
					heap.Push(pq, vitem{u, nd})
				}
			}
		}
		for i, v := range dist {
			if math.IsInf(v, 1) {
				t.Fatalf("neighbour graph disconnected: no path from %d to %d", src, i)
			}
			dist[i] = v * v
		}
	}
	symmetrize(s) // Dijkstra's sums in two directions agree up to rounding
	_ = backend.DoubleCenterCtx(context.Background(), s, nil)
	return s
}

type vitem struct {
	v int
	d float64
}
type vheap []vitem

func (h vheap) Len() int           { return len(h) }
func (h vheap) Less(i, j int) bool { return h[i].d < h[j].d }
func (h vheap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *vheap) Push(x any)        { *h = append(*h, x.(vitem)) }
func (h *vheap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// τ(D_G) of 800 USPS digits is indefinite: its top eigenpairs (the Isomap
// embedding) and its bottom ones must match the dense solver, with
// residuals ≤ Tol·‖A‖, through the dense symmetric operators.
func TestTauUSPS(t *testing.T) {
	t.Parallel()
	n, knn := 800, 10
	if raceEnabled {
		n = 250
	}
	x := readUSPS(t, n)
	tau := tauOfGeodesics(t, x, knn)
	cp := func() blas64.Symmetric {
		return blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: append([]float64(nil), tau.Data...)}
	}
	const k = 10
	top, ztop, err := backend.EigTopCtx(context.Background(), backend.PureGo, cp(), k)
	if err != nil {
		t.Fatal(err)
	}
	bot, zbot, err := backend.EigBottomCtx(context.Background(), backend.PureGo, cp(), k)
	if err != nil {
		t.Fatal(err)
	}
	if bot[0] >= 0 {
		t.Fatalf("τ(D_G) is expected to be indefinite; smallest eigenvalue %v", bot[0])
	}
	anorm := math.Max(math.Abs(top[0]), math.Abs(bot[0]))
	ops := map[string]lanczos.Operator{
		"FullSymOp": backend.FullSymOp{A: tau},
		"SymOp":     backend.SymOp{A: blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: tau.Data}},
	}
	for opName, op := range ops {
		for _, which := range []lanczos.Which{lanczos.Largest, lanczos.Smallest} {
			for _, b := range []int{1, 4} {
				name := fmt.Sprintf("%s/%v/b=%d", opName, which, b)
				res, err := lanczos.Solve(context.Background(), op, lanczos.Settings{K: k, Which: which, BlockSize: b})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				ref, z := top, ztop
				if which == lanczos.Smallest {
					ref, z = bot, zbot
				}
				bound := res.Tol*anorm + float64(n)*0x1p-52*anorm
				tr := trueResiduals(tau, res.Values, res.Vectors)
				for i := 0; i < k; i++ {
					if d := math.Abs(res.Values[i] - ref[i]); d > bound {
						t.Errorf("%s: value %d = %.15g, dense %.15g", name, i, res.Values[i], ref[i])
					}
					if tr[i] > bound {
						t.Errorf("%s: residual %d = %.2e > Tol·‖A‖ = %.2e", name, i, tr[i], bound)
					}
				}
				// The top two (the 2-D Isomap embedding) are well
				// separated: their vectors agree with the dense ones.
				if which == lanczos.Largest {
					for i := 0; i < 2; i++ {
						gap := ref[i] - ref[i+1]
						if i > 0 {
							gap = math.Min(gap, ref[i-1]-ref[i])
						}
						e := 0.0
						for r := 0; r < n; r++ {
							d := res.Vectors.Data[r*k+i] - z.Data[r*k+i]
							e += d * d
						}
						if math.Sqrt(e) > 4*bound/gap+1e-10 {
							t.Errorf("%s: vector %d differs by %.2e", name, i, math.Sqrt(e))
						}
					}
				}
				t.Logf("%s: %d products, %d restarts, max residual/‖A‖ %.1e", name, res.Stats.MatVecs, res.Stats.Restarts, maxOf(tr)/anorm)
			}
		}
	}
}

func maxOf(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}
