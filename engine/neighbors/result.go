package neighbors

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
)

// ErrInput is wrapped by the errors about user data: NaN or Inf in the
// points, k or ε out of range, mismatched dimensions, bad labels or graphs.
var ErrInput = errors.New("neighbors: invalid input")

// Result holds neighbour lists in compressed form: the neighbours of query
// i are Ind[Ptr[i]:Ptr[i+1]] at distances Dist[Ptr[i]:Ptr[i+1]], sorted by
// increasing distance, ties by increasing index. For a k-nearest search
// every list has k entries (Ptr[i] = i·k).
type Result struct {
	Ptr  []int
	Ind  []int
	Dist []float64
}

// Len returns the number of queries.
func (r *Result) Len() int { return len(r.Ptr) - 1 }

// Row returns the neighbours of query i and their distances (views).
func (r *Result) Row(i int) (ind []int, dist []float64) {
	lo, hi := r.Ptr[i], r.Ptr[i+1]
	return r.Ind[lo:hi:hi], r.Dist[lo:hi:hi]
}

// Metric is the distance between points.
type Metric int

const (
	// Euclidean is ‖x − y‖₂ (the default).
	Euclidean Metric = iota
	// Cosine is 1 − x·y/(‖x‖‖y‖), 1 when either vector is zero (as
	// scikit-learn's cosine_distances). The search is brute force.
	Cosine
)

func (m Metric) String() string {
	switch m {
	case Euclidean:
		return "euclidean"
	case Cosine:
		return "cosine"
	}
	return fmt.Sprintf("Metric(%d)", int(m))
}

// Algorithm chooses the search method.
type Algorithm int

const (
	// Auto picks the k-d tree or brute force by a cost model (the default).
	Auto Algorithm = iota
	// KDTree forces the k-d tree (Euclidean only).
	KDTree
	// Brute forces blocked brute force on the backend's distance kernel.
	Brute
	// NNDescent makes KNN and KNNSparse approximate (KNNApprox with
	// Options.Approx); searches of other queries (KNNQuery, Radius) stay
	// exact with the automatic choice.
	NNDescent
)

func (a Algorithm) String() string {
	switch a {
	case Auto:
		return "auto"
	case KDTree:
		return "kd-tree"
	case Brute:
		return "brute"
	case NNDescent:
		return "nn-descent"
	}
	return fmt.Sprintf("Algorithm(%d)", int(a))
}

// Options configure a search. The zero value is Euclidean distance, the
// automatic choice of method and the active backend.
type Options struct {
	Metric    Metric
	Algorithm Algorithm
	// LeafSize of the k-d tree (0: 16).
	LeafSize int
	// Impl is the backend for brute force (nil: backend.Active()).
	Impl backend.Impl
	// Approx configures the approximate search of Algorithm NNDescent
	// (its Metric is Options.Metric).
	Approx ApproxOptions
}

func (o Options) impl() backend.Impl {
	if o.Impl == nil {
		return backend.Active()
	}
	return o.Impl
}

func (o Options) leafSize() int {
	if o.LeafSize <= 0 {
		return 16
	}
	return o.LeafSize
}

// bruteCostPerPair is what brute force spends on a pair beyond its dim
// flam, in flam equivalents at the Gemm rate: the norms, the clamp and the
// offer to a bounded heap. Measured: 12 ns a pair at n = 1000, dim = 3 on
// the 2-core reference machine (5 GFLAM/s pure-Go Gemm), about 60 flam.
const bruteCostPerPair = 64

// choose returns the method for m queries against n points in dim
// dimensions, wanting about k neighbours each. The cost model, in flam
// equivalents: brute force costs flam.KNNBrute = m·n·dim at the Gemm rate
// plus bruteCostPerPair for each of the m·n pairs; a k-d tree query visits
// about (leaf + k)·2^dim points (the cells a ball around the query meets
// grow as 2^dim), each dim flam at about a tenth of the Gemm rate, so
// 10·flam.KNNTreeQueries plus the build. The tree wins below roughly
// dim = log₂(n·(dim + 64) / (10·dim·(leaf + k))): dim ≤ 11 at n = 10⁵,
// k = 10, and for 3-D data from about 100 points.
func (o Options) choose(m, n, dim, k int) Algorithm {
	if o.Algorithm == NNDescent {
		return NNDescent
	}
	if o.Metric == Cosine {
		return Brute
	}
	if o.Algorithm != Auto {
		return o.Algorithm
	}
	if dim > 40 {
		return Brute
	}
	tree := 10*flam.KNNTreeQueries(m, dim, k, o.leafSize()) + flam.KNNTreeBuild(n, dim)
	if tree < flam.KNNBrute(m, n, dim)+bruteCostPerPair*float64(m)*float64(n) {
		return KDTree
	}
	return Brute
}

// Method returns the search that KNN or KNNQuery runs for m queries
// against n points in dim dimensions, k neighbours each: Algorithm when set,
// else the cost model's choice (KDTree or Brute).
func (o Options) Method(m, n, dim, k int) Algorithm { return o.choose(m, n, dim, k) }

// Flam is the predicted flam of a search of m queries against n points
// in dim dimensions for about k neighbours each by the method choose
// picks: flam.KNNBrute, or the k-d tree's queries and build (which run at
// about a tenth of the Gemm rate).
func (o Options) Flam(m, n, dim, k int) float64 {
	switch o.choose(m, n, dim, k) {
	case NNDescent:
		f := flam.KNNDescent(n, dim, k)
		if o.Approx.Refine > 0 {
			f += flam.KNNRefine(n, dim, k, o.Approx.Refine)
		}
		return f
	case KDTree:
		return flam.KNNTreeQueries(m, dim, k, o.leafSize()) + flam.KNNTreeBuild(n, dim)
	}
	return flam.KNNBrute(m, n, dim)
}

// rowMajorCheck is how many rows rowMajor checks between looks at ctx.
const rowMajorCheck = 1024

// rowMajor returns the rows of m as a blas64.General: the raw storage of a
// *mat.Dense, a copy otherwise. It checks that every element is finite,
// and ctx between blocks of rows.
func rowMajor(ctx context.Context, what string, m mat.Matrix) (blas64.General, error) {
	r, c := m.Dims()
	var g blas64.General
	if d, ok := m.(*mat.Dense); ok {
		if d.IsEmpty() {
			return blas64.General{Stride: 1}, nil
		}
		g = d.RawMatrix()
	} else {
		g = blas64.General{Rows: r, Cols: c, Stride: max(1, c), Data: make([]float64, r*c)}
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				g.Data[i*c+j] = m.At(i, j)
			}
		}
	}
	limit := valueLimit(c)
	for i := 0; i < r; i++ {
		if i%rowMajorCheck == 0 && ctx.Err() != nil { // 10⁵ × 256 values take 0.1 s
			return g, ctx.Err()
		}
		for j, v := range g.Data[i*g.Stride : i*g.Stride+c] {
			if err := checkValue(v, limit, c); err != nil {
				return g, fmt.Errorf("%w: %s[%d, %d] = %v %s", ErrInput, what, i, j, v, err)
			}
		}
	}
	return g, nil
}

// valueLimit is the largest |value| of rows of d columns whose squared
// distances (at most 4·d·value²) and squared norms stay finite: the
// searches compare squared distances, so past it they are +Inf, and ties
// among them would decide the lists.
func valueLimit(d int) float64 { return math.Sqrt(math.MaxFloat64 / (4 * float64(max(d, 1)))) }

// checkValue says what is wrong with a value of rows of d columns: not
// finite, or past valueLimit (the limit given).
func checkValue(v, limit float64, d int) error {
	if v-v != 0 {
		return errors.New("is not finite")
	}
	if math.Abs(v) > limit {
		return fmt.Errorf("is too large: squared distances of rows of %d columns overflow past |value| %.3g; rescale the data", d, limit)
	}
	return nil
}

// topK keeps the k smallest (d, j) pairs seen, ordered by d then j, in a
// max-heap: the root is the worst kept pair.
type topK struct {
	d []float64
	j []int
	k int
}

func newTopK(k int) *topK {
	return &topK{d: make([]float64, 0, k), j: make([]int, 0, k), k: k}
}

func (h *topK) reset() { h.d, h.j = h.d[:0], h.j[:0] }

// full reports whether k pairs are kept; worst returns the root.
func (h *topK) full() bool { return len(h.d) == h.k }

// bound is the distance a candidate must not exceed to be considered: the
// worst kept distance once full, +Inf before.
func (h *topK) bound() float64 {
	if len(h.d) < h.k {
		return math.Inf(1)
	}
	return h.d[0]
}

// push offers (d, j).
func (h *topK) push(d float64, j int) {
	if h.k == 0 {
		return
	}
	if len(h.d) < h.k {
		h.d = append(h.d, d)
		h.j = append(h.j, j)
		heapUp(h.d, h.j, len(h.d)-1, d, j)
		return
	}
	if !pairBefore(d, j, h.d[0], h.j[0]) {
		return
	}
	heapDown(h.d, h.j, len(h.d), d, j)
}

// sort orders the kept pairs by (d, j) in place (heapsort: the pairs are
// a heap already); h is no longer a heap until reset.
func (h *topK) sort() {
	for end := len(h.d) - 1; end > 0; end-- {
		d, j := h.d[end], h.j[end]
		h.d[end], h.j[end] = h.d[0], h.j[0]
		heapDown(h.d, h.j, end, d, j)
	}
}

// sortPairs sorts d and j together by (d, j), insertion sort for short
// lists.
func sortPairs(d []float64, j []int) {
	j = j[:len(d)]
	if len(d) > 32 {
		sortPairsLong(d, j)
		return
	}
	for a := 1; a < len(d); a++ {
		dv, jv := d[a], j[a]
		b := a
		for b > 0 && pairBefore(dv, jv, d[b-1], j[b-1]) {
			d[b], j[b] = d[b-1], j[b-1]
			b--
		}
		d[b], j[b] = dv, jv
	}
}
