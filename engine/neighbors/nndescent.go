package neighbors

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine/internal/principal"
	"github.com/manifoldlab/manifold/sparse"
)

// ApproxOptions configure the approximate k-nearest-neighbour search
// (NN-descent initialised from a random-projection forest). The zero value
// is Euclidean distance and the defaults below, which reach a recall@k of
// 0.99 or more on inputs of up to 10⁵ points in the tests.
type ApproxOptions struct {
	// Metric is Euclidean (default) or Cosine.
	Metric Metric
	// Seed fixes the trees, the candidate samples and so the result,
	// whatever GOMAXPROCS is.
	Seed uint64
	// Trees in the random-projection forest (0: 4 + ⌊n^¼/2⌋, at most 12).
	Trees int
	// LeafSize of the trees (0: max(2k, 24)).
	LeafSize int
	// MaxIter bounds the NN-descent iterations (0: max(8, ⌈log₂ n⌉)).
	MaxIter int
	// Rho is the sample rate ρ of Dong et al.: at most ⌈ρ·k⌉ new and
	// ⌈ρ·k⌉ old candidates per point and iteration, forward and reverse
	// together (0: 1; at most 60 candidates).
	Rho float64
	// Delta is the early termination δ: stop when an iteration changes
	// fewer than δ·n·k neighbour entries (0: 0.001; negative: never stop
	// early).
	Delta float64
	// Refine, when positive, is the search width of one more pass after
	// the iterations: every row is searched for in the graph of the lists,
	// starting from itself and its neighbours, and keeps the k nearest of
	// its list and of what the search met (see Refine; at least k + 1;
	// dense rows only). It lifts the recall where more iterations no
	// longer do, at the cost of one search a row (width 40 on 10⁶ × 256
	// deformed digits, k = 15: recall@15 from 0.981 to 0.996, 121 → 198
	// s). 0: none.
	Refine int
}

func (o ApproxOptions) trees(n int) int {
	if o.Trees > 0 {
		return o.Trees
	}
	return min(12, 4+int(math.Pow(float64(n), 0.25)/2))
}

func (o ApproxOptions) leafSize(k int) int {
	if o.LeafSize > 0 {
		return max(2, o.LeafSize)
	}
	return max(2*k, 24)
}

func (o ApproxOptions) maxIter(n int) int {
	if o.MaxIter > 0 {
		return o.MaxIter
	}
	return max(8, bits.Len(uint(n)))
}

func (o ApproxOptions) candidates(k int) int {
	rho := o.Rho
	if rho <= 0 {
		rho = 1
	}
	return max(1, min(60, int(math.Ceil(rho*float64(k)))))
}

func (o ApproxOptions) delta() float64 {
	switch {
	case o.Delta == 0:
		return 0.001
	case o.Delta < 0:
		return -1
	}
	return o.Delta
}

// Check returns an error wrapping ErrInput if a setting is out of range.
func (o ApproxOptions) Check() error { return o.check() }

func (o ApproxOptions) check() error {
	if o.Metric != Euclidean && o.Metric != Cosine {
		return fmt.Errorf("%w: metric %v", ErrInput, o.Metric)
	}
	if o.Trees < 0 || o.LeafSize < 0 || o.MaxIter < 0 || o.Refine < 0 {
		return fmt.Errorf("%w: approximate search: trees = %d, leaf size = %d, iterations = %d, refine width = %d (need ≥ 0)", ErrInput, o.Trees, o.LeafSize, o.MaxIter, o.Refine)
	}
	if math.IsNaN(o.Rho) || o.Rho < 0 || math.IsInf(o.Rho, 0) || math.IsNaN(o.Delta) || math.IsInf(o.Delta, 0) {
		return fmt.Errorf("%w: approximate search: ρ = %v, δ = %v", ErrInput, o.Rho, o.Delta)
	}
	return nil
}

// ApproxInfo says what an approximate search did.
type ApproxInfo struct {
	Trees      int   // random-projection trees
	LeafSize   int   // their leaf size
	Iterations int   // NN-descent iterations run
	Updates    []int // neighbour entries changed by each iteration
	Distances  int64 // distance keys computed (trees' leaves and local joins)
	Refined    bool  // the lists were refined by a search a row (ApproxOptions.Refine)
}

// KNNApprox returns approximate k nearest neighbours of every row of x
// (itself excluded), in the form of KNN: every list sorted by distance,
// ties by index, with the distances recomputed in float64 exactly as KNN
// reports them. The lists come from NN-descent (Dong, Charikar and Li,
// WWW 2011) started from a forest of random-projection trees (Dasgupta
// and Freund, STOC 2008), as pynndescent does; see the package doc.
// Errors wrap ErrInput (k not in [1, n−1], NaN or Inf, bad options) or
// are ctx.Err().
func KNNApprox(ctx context.Context, x mat.Matrix, k int, opt ApproxOptions) (*Result, ApproxInfo, error) {
	g, err := rowMajor(ctx, "x", x)
	if err != nil {
		return nil, ApproxInfo{}, err
	}
	if err := checkApprox(g.Rows, k, opt); err != nil {
		return nil, ApproxInfo{}, err
	}
	v, err := newDense32(ctx, g, opt.Metric)
	if err != nil {
		return nil, ApproxInfo{}, err
	}
	return nnDescent(ctx, v, k, opt)
}

// KNNApprox32 is KNNApprox for Euclidean distances between rows held in
// float32 (x is rows × cols, row i at x[i·cols:(i+1)·cols]) without a
// copy of them: the search moves the rows of x into the first tree's
// order while it runs and puts them back before it returns, on every path
// (an error or a cancellation included), so x must not be read or written
// meanwhile. Putting them back is memory bound: a cancel is answered about
// 0.15–0.2 s a GB of rows after it on the 2-core reference machine (10⁶
// rows of 256), more than the 100 ms of the other searches. The reported
// distances are computed in float64 from the float32 values. The memory
// is ApproxBytes less the rows' copy. Errors as KNNApprox (ErrInput for a
// metric other than Euclidean).
func KNNApprox32(ctx context.Context, x []float32, cols, k int, opt ApproxOptions) (*Result, ApproxInfo, error) {
	if cols < 1 || len(x)%cols != 0 {
		return nil, ApproxInfo{}, fmt.Errorf("%w: %d values in rows of %d", ErrInput, len(x), cols)
	}
	if opt.Metric != Euclidean {
		return nil, ApproxInfo{}, fmt.Errorf("%w: KNNApprox32 computes Euclidean distances only", ErrInput)
	}
	n := len(x) / cols
	if err := checkApprox(n, k, opt); err != nil {
		return nil, ApproxInfo{}, err
	}
	d := &dense32{metric: Euclidean, rows: n, dim: cols, x: x, sq: make([]float32, n), inPlace: true, f: 1}
	// The rows' norms in parallel blocks (a GB of rows at 10⁶ × 256), ctx
	// checked between them; the first bad row of the first block that
	// has one is named, whatever the workers.
	grain := max(1, 1<<16/cols)
	bad := make([]error, (n+grain-1)/grain)
	err := backend.ParallelForCtx(ctx, n, grain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sq := 0.0
			for c, v := range d.row(i) {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					bad[lo/grain] = fmt.Errorf("%w: x[%d, %d] = %v", ErrInput, i, c, v)
					return
				}
				sq += float64(v) * float64(v)
			}
			// Rows searched in place are not scaled (see keyScale): keys
			// past float32's range would be +Inf or NaN.
			if sq > math.MaxFloat32/4 {
				bad[lo/grain] = fmt.Errorf("%w: row %d has a squared norm of %.3g, past the float32 keys of a search in place (about %.3g); rescale the rows or search them in float64",
					ErrInput, i, sq, math.MaxFloat32/4)
				return
			}
			d.sq[i] = float32(sq)
		}
	})
	if err != nil {
		return nil, ApproxInfo{}, err
	}
	for _, e := range bad {
		if e != nil {
			return nil, ApproxInfo{}, e
		}
	}
	defer d.restore()
	return nnDescent(ctx, d, k, opt)
}

// ApproxBytes estimates the memory KNNApprox (sparse: false) or
// KNNApproxSparse (sparse: true) allocates for n rows of d features and k
// neighbours, besides the input: the rows' float32 copy (dense: n·d·4
// bytes, with 2 MiB of huge-page alignment; sparse: two norms a row), the
// forest's permutations (two arrays of n indices while a tree grows, one a
// tree kept), the heaps of the iterations (9 bytes a neighbour), the new
// and old candidate lists (24 bytes a candidate), the local joins'
// proposals (for a block of joinBlock points, every pair of m new
// candidates, m(m−1)/2 a point, as the first iteration on manifold data
// proposes: 24 bytes a pair, both ways, and half as much again for the
// growth of the per-chunk buffers; a 20,000-point swiss roll in 60-D
// peaked at 52.7 MiB where the other terms add to 21.7; Gaussian rows
// propose fewer) and the result (16 bytes a neighbour).
func ApproxBytes(n, d, k int, sparse bool, opt ApproxOptions) int64 {
	n64, k64 := int64(n), int64(k)
	rows := 16 * n64
	if !sparse {
		rows = 4*n64*int64(d) + 4*n64
		if rows >= 4<<20 {
			rows += 2 << 20
		}
	}
	forest := 4 * n64 * int64(opt.trees(n)+2)
	heaps := 9 * n64 * k64
	m := int64(min(opt.candidates(k), max(n-1, 1)))
	cand := 24 * n64 * m
	join := 36 * int64(min(n, joinBlock)) * m * (m - 1) / 2
	result := 16*n64*k64 + 8*n64
	return rows + forest + heaps + cand + join + result + refineBytes(n, d, k, sparse, opt)
}

// refineBytes is what ApproxOptions.Refine adds: the lists twice more in
// the rows' order (before and after), the graph of the lists (forward and
// reverse edges), the principal coordinates the walk may use (at most
// half the features, rows of projectMinDim to principal.MaxDim features
// only) with what finding the axes allocates (principal.SetupBytes), and
// every worker's visited stamps.
func refineBytes(n, d, k int, sparse bool, opt ApproxOptions) int64 {
	if opt.Refine <= 0 || sparse {
		return 0
	}
	n64, k64 := int64(n), int64(k)
	lists := 2 * (16*n64*k64 + 8*n64)
	graph := 8*n64*k64 + 4*n64
	walk := int64(0)
	if d >= projectMinDim && d <= principal.MaxDim {
		walk = 4*n64*int64(d/2) + 4*n64 + principal.SetupBytes(n, d)
	}
	stamps := 4 * n64 * int64(runtime.GOMAXPROCS(0))
	return lists + graph + walk + stamps
}

// KNNApproxSparse is KNNApprox for sparse rows (text; usually Cosine).
func KNNApproxSparse(ctx context.Context, x *sparse.CSR, k int, opt ApproxOptions) (*Result, ApproxInfo, error) {
	n, _ := x.Dims()
	if err := checkApprox(n, k, opt); err != nil {
		return nil, ApproxInfo{}, err
	}
	if err := finiteCSR("x", x); err != nil {
		return nil, ApproxInfo{}, err
	}
	return nnDescent(ctx, newSparseVecs(x, opt.Metric), k, opt)
}

func checkApprox(n, k int, opt ApproxOptions) error {
	if k < 1 || k >= n {
		return fmt.Errorf("%w: k = %d neighbours asked of %d points (need 1 ≤ k < n)", ErrInput, k, n)
	}
	if n > math.MaxInt32 {
		return fmt.Errorf("%w: %d points (the approximate search holds at most 2³¹ − 1)", ErrInput, n)
	}
	return opt.check()
}

// heaps holds every point's k current neighbours as a max-heap on (key,
// index): the root is the worst kept pair. Empty slots hold (+Inf,
// MaxInt32), worse than any pair. flag marks the entries not yet joined
// ("new" in Dong et al.).
type heaps struct {
	k    int
	ind  []int32
	key  []float32
	flag []bool
}

func newHeaps(n, k int) *heaps {
	h := &heaps{k: k, ind: make([]int32, n*k), key: make([]float32, n*k), flag: make([]bool, n*k)}
	inf := float32(math.Inf(1))
	for p := range h.ind {
		h.ind[p] = math.MaxInt32
		h.key[p] = inf
	}
	return h
}

// worse reports whether (d1, j1) comes after (d2, j2).
func worse(d1 float32, j1 int32, d2 float32, j2 int32) bool {
	return d1 > d2 || (d1 == d2 && j1 > j2)
}

// bound is the key of point i's worst kept neighbour.
func (h *heaps) bound(i int) float32 { return h.key[i*h.k] }

// push offers j at key d to point i's heap and reports whether it entered
// (it must beat the worst kept pair and not be kept already). The heap
// kept after any sequence of offers is the k best distinct pairs offered,
// whatever their order.
func (h *heaps) push(i int, j int32, d float32, flag bool) bool {
	k := h.k
	ind, key, fl := h.ind[i*k:(i+1)*k], h.key[i*k:(i+1)*k], h.flag[i*k:(i+1)*k]
	if !worse(key[0], ind[0], d, j) {
		return false
	}
	for _, v := range ind {
		if v == j {
			return false
		}
	}
	p := 0
	for {
		c := 2*p + 1
		if c >= k {
			break
		}
		if c+1 < k && worse(key[c+1], ind[c+1], key[c], ind[c]) {
			c++
		}
		if !worse(key[c], ind[c], d, j) {
			break
		}
		ind[p], key[p], fl[p] = ind[c], key[c], fl[c]
		p = c
	}
	ind[p], key[p], fl[p] = j, d, flag
	return true
}

// mix is a 64-bit hash (splitmix64's finaliser) of its arguments: the
// random priorities of the candidate samples, the same whatever order or
// goroutine asks.
func mix(a, b, c uint64) uint64 {
	z := a*0x9e3779b97f4a7c15 ^ (b+0x632be59bd9b4e019)*0xbf58476d1ce4e5b9 ^ (c+0x94d049bb133111eb)*0x94d049bb133111eb
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	z ^= z >> 31
	return z
}

// nnDescent runs the forest and the NN-descent iterations and returns the
// sorted lists with exact distances.
func nnDescent(ctx context.Context, v vectors, k int, opt ApproxOptions) (*Result, ApproxInfo, error) {
	n := v.n()
	info := ApproxInfo{Trees: opt.trees(n), LeafSize: opt.leafSize(k)}
	dense, isDense := v.(*dense32)
	if opt.Refine > 0 {
		switch {
		case !isDense:
			return nil, info, fmt.Errorf("%w: the refining search (refine width %d) needs dense rows", ErrInput, opt.Refine)
		case opt.Refine < k+1:
			return nil, info, fmt.Errorf("%w: refine width %d below k + 1 = %d", ErrInput, opt.Refine, k+1)
		}
	}
	forest, err := buildForest(ctx, v, info.Trees, info.LeafSize, opt.Seed)
	if err != nil {
		return nil, info, err
	}
	// Dense rows are stored in the first tree's order, so that points near
	// each other (which the joins compare) are near in memory.
	var order []int32
	if isDense && n > 4096 {
		order = append([]int32(nil), forest.perm[0]...)
		dense.reorder(order, reorderSegment)
		inv := make([]int32, n)
		for p, i := range order {
			inv[i] = int32(p)
		}
		for _, perm := range forest.perm {
			for q, i := range perm {
				perm[q] = inv[i]
			}
		}
	}
	h := newHeaps(n, k)
	if info.Distances, err = initFromForest(ctx, v, h, forest, info.LeafSize, opt.Seed); err != nil {
		return nil, info, err
	}
	forest = nil
	maxCand := min(opt.candidates(k), n-1)
	delta := opt.delta()
	nc := newCandidates(n, maxCand)
	for it := 0; it < opt.maxIter(n); it++ {
		if err := ctx.Err(); err != nil {
			return nil, info, err
		}
		if err := nc.build(ctx, h, opt.Seed, uint64(it)); err != nil {
			return nil, info, err
		}
		upd, dist, err := localJoin(ctx, v, h, nc)
		addProgress(ctx, n)
		if err != nil {
			return nil, info, err
		}
		info.Iterations++
		info.Updates = append(info.Updates, upd)
		info.Distances += dist
		if float64(upd) <= delta*float64(n)*float64(k) {
			break
		}
	}
	var refined *Result // in positions
	if opt.Refine > 0 {
		if refined, err = refineDescent(ctx, dense, h, opt.Refine); err != nil {
			return nil, info, err
		}
		h, info.Refined = nil, true
	}
	res := &Result{Ptr: make([]int, n+1), Ind: make([]int, n*k), Dist: make([]float64, n*k)}
	for i := range res.Ptr {
		res.Ptr[i] = i * k
	}
	err = backend.ParallelForCtx(ctx, n, 1024, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			i := p
			if order != nil {
				i = int(order[p])
			}
			js, ds := res.Ind[i*k:(i+1)*k], res.Dist[i*k:(i+1)*k]
			if refined != nil {
				copy(ds, refined.Dist[p*k:(p+1)*k])
				for c, j := range refined.Ind[p*k : (p+1)*k] {
					js[c] = j
					if order != nil {
						js[c] = int(order[j])
					}
				}
			} else {
				for c, j := range h.ind[p*k : (p+1)*k] {
					js[c] = int(j)
					if order != nil {
						js[c] = int(order[j])
					}
					ds[c] = v.exactDist(p, int(j))
				}
			}
			sortPairs(ds, js)
		}
	})
	if err != nil {
		return nil, info, err
	}
	return res, info, nil
}

// forest is a set of random-projection trees, kept as their leaves: the
// points of leaf l of tree t are perm[t][start[t][l]:start[t][l+1]].
type forest struct {
	perm  [][]int32
	start [][]int32
}

// buildForest grows the trees in parallel, each on one goroutine from its
// own seeded generator: a node of more than leaf points is split by the
// hyperplane halfway between two of its points drawn at random (Dasgupta
// and Freund's random-projection tree as pynndescent makes it); a point on
// the plane goes to a random side, and a split that leaves one side empty
// (duplicates) cuts the node in two halves instead, so identical points
// cannot make a tree deeper than log₂(n/leaf).
func buildForest(ctx context.Context, v vectors, trees, leaf int, seed uint64) (*forest, error) {
	f := &forest{perm: make([][]int32, trees), start: make([][]int32, trees)}
	err := backend.ParallelForCtx(ctx, trees, 1, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			f.perm[t], f.start[t] = growTree(ctx, v, leaf, rand.New(rand.NewPCG(seed, 0x7ee5+uint64(t))))
		}
	})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

func growTree(ctx context.Context, v vectors, leaf int, rng *rand.Rand) (perm, start []int32) {
	return growTreeNodes(ctx, v, leaf, rng, nil)
}

// rpNode is a node of a random-projection tree kept for queries: an inner
// node's hyperplane (points with normal·x + off < 0 went left; degenerate:
// the node was halved by position) and children, or a leaf's positions
// [lo, hi) in the tree's permutation.
type rpNode struct {
	normal      []float32
	off         float32
	left, right int32
	lo, hi      int32
	degenerate  bool
}

// growTreeNodes is growTree that also records the nodes (dense rows only:
// their hyperplanes are copied) when nodes is not nil.
func growTreeNodes(ctx context.Context, v vectors, leaf int, rng *rand.Rand, nodes *[]rpNode) (perm, start []int32) {
	n := v.n()
	perm = make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	side := make([]float32, n)
	tmp := make([]int32, n)
	var p hyperplane
	type span struct{ lo, hi, node int }
	stack := []span{{0, n, 0}}
	if nodes != nil {
		*nodes = append((*nodes)[:0], rpNode{left: -1, right: -1})
	}
	var leaves []span
	work := 0
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		size := s.hi - s.lo
		if size <= leaf {
			leaves = append(leaves, s)
			if nodes != nil {
				nd := &(*nodes)[s.node]
				nd.lo, nd.hi = int32(s.lo), int32(s.hi)
			}
			continue
		}
		if work += size; work > 1<<16 {
			work = 0
			if ctx.Err() != nil {
				return perm, []int32{0, int32(n)}
			}
		}
		a := rng.IntN(size)
		b := rng.IntN(size - 1)
		if b >= a {
			b++
		}
		v.plane(&p, int(perm[s.lo+a]), int(perm[s.lo+b]))
		v.sides(&p, perm[s.lo:s.hi], side[s.lo:s.hi])
		// Stable partition: left (margin < 0, or a coin for 0) first.
		l, r := s.lo, s.hi
		for q := s.lo; q < s.hi; q++ {
			m := side[q]
			if m < 0 || (m == 0 && rng.IntN(2) == 0) {
				tmp[l] = perm[q]
				l++
			} else {
				r--
				tmp[r] = perm[q]
			}
		}
		mid := l
		degenerate := mid == s.lo || mid == s.hi
		if degenerate {
			mid = s.lo + size/2 // all on one side
		} else {
			copy(perm[s.lo:s.hi], tmp[s.lo:s.hi])
		}
		var left, right int
		if nodes != nil {
			left, right = len(*nodes), len(*nodes)+1
			*nodes = append(*nodes, rpNode{left: -1, right: -1}, rpNode{left: -1, right: -1})
			nd := &(*nodes)[s.node]
			nd.left, nd.right, nd.degenerate = int32(left), int32(right), degenerate
			nd.normal, nd.off = append([]float32(nil), p.normal...), p.off
			nd.lo, nd.hi = int32(s.lo), int32(s.hi)
		}
		stack = append(stack, span{mid, s.hi, right}, span{s.lo, mid, left})
	}
	start = make([]int32, len(leaves)+1)
	// The stack pops the left half first, so the leaves come in the order
	// of their positions.
	for l, s := range leaves {
		start[l] = int32(s.lo)
	}
	start[len(leaves)] = int32(n)
	return perm, start
}

// initFromForest joins the leaves of the trees, one tree after the
// other: every pair of points sharing a leaf is compared once and offered
// to both heaps (from the second tree on, only when it beats a current
// neighbour), as pynndescent's leaf join. A point left with fewer than k
// neighbours (small leaves) gets points drawn by a hash of (seed, point,
// attempt). It returns the keys computed.
func initFromForest(ctx context.Context, v vectors, h *heaps, f *forest, leaf int, seed uint64) (int64, error) {
	n, k := v.n(), h.k
	var total int64
	for t := range f.perm {
		perm, start := f.perm[t], f.start[t]
		_, keys, err := join(ctx, v, h, len(start)-1, max(1, joinBlock/leaf), max(1, 64/leaf), func(l int) (nw, old []int32) {
			return perm[start[l]:start[l+1]], nil
		})
		if err != nil {
			return 0, err
		}
		total += keys
	}
	counts := make([]int64, (n+1023)/1024)
	var unfilled atomic.Int64 // a point whose list a scan of every other point did not fill, plus 1
	err := backend.ParallelForCtx(ctx, n, 1024, func(lo, hi int) {
		var c int64
		for i := lo; i < hi; i++ {
			for a := uint64(0); h.ind[i*k] == math.MaxInt32; a++ {
				j := int32(mix(seed, uint64(i), a) % uint64(n))
				if a > uint64(8*n) { // a safeguard only: scan in order
					j = int32(a % uint64(n))
				}
				if a > uint64(9*n) { // every point offered: a key is NaN
					unfilled.Store(int64(i) + 1)
					break
				}
				if int(j) != i && !h.has(i, j) {
					c++
					var key [1]float32
					v.keys32(i, []int32{j}, key[:])
					h.push(i, j, key[0], true)
				}
			}
		}
		counts[lo/1024] = c
	})
	for _, c := range counts {
		total += c
	}
	if i := unfilled.Load(); err == nil && i > 0 {
		err = fmt.Errorf("%w: the distance keys of point %d are not numbers (rows past float32's range?)", ErrInput, i-1)
	}
	return total, err
}

// has reports whether j is among point i's kept neighbours.
func (h *heaps) has(i int, j int32) bool {
	for _, v := range h.ind[i*h.k : (i+1)*h.k] {
		if v == j {
			return true
		}
	}
	return false
}

// candidates holds, per point, up to m new and m old candidates (forward
// and reverse neighbours together), chosen by the smallest random
// priorities: a bounded max-heap on (priority, index) per point, so the
// choice does not depend on the order of the offers.
type candidates struct {
	m          int
	newI, oldI []int32
	newP, oldP []uint64
	newN, oldN []int32 // filled counts
}

func newCandidates(n, m int) *candidates {
	return &candidates{m: m,
		newI: make([]int32, n*m), oldI: make([]int32, n*m),
		newP: make([]uint64, n*m), oldP: make([]uint64, n*m),
		newN: make([]int32, n), oldN: make([]int32, n)}
}

// offer puts j with priority p into the bounded heap (ind, pri) of count
// *cnt, if it is better than the worst and not there already.
func offer(ind []int32, pri []uint64, cnt *int32, j int32, p uint64) {
	c := int(*cnt)
	for _, v := range ind[:c] {
		if v == j {
			return
		}
	}
	m := len(ind)
	after := func(p1 uint64, j1 int32, p2 uint64, j2 int32) bool { return p1 > p2 || (p1 == p2 && j1 > j2) }
	if c < m {
		q := c
		for q > 0 {
			par := (q - 1) / 2
			if !after(p, j, pri[par], ind[par]) {
				break
			}
			ind[q], pri[q] = ind[par], pri[par]
			q = par
		}
		ind[q], pri[q] = j, p
		*cnt = int32(c + 1)
		return
	}
	if !after(pri[0], ind[0], p, j) {
		return
	}
	q := 0
	for {
		ch := 2*q + 1
		if ch >= m {
			break
		}
		if ch+1 < m && after(pri[ch+1], ind[ch+1], pri[ch], ind[ch]) {
			ch++
		}
		if !after(pri[ch], ind[ch], p, j) {
			break
		}
		ind[q], pri[q] = ind[ch], pri[ch]
		q = ch
	}
	ind[q], pri[q] = j, p
}

// build samples the candidates of iteration it from the heaps: every kept
// pair (i, j) offers j to i and i to j, as new or old by its flag, with
// the priority mix(seed, it, {i, j}); then the entries of i chosen as new
// candidates of i are flagged old (they are joined this iteration). The
// points are split among the goroutines by owner, each scanning every
// pair and writing only its own points' lists: no locks, and the result is
// the same for any number of goroutines. Every owner scans all the pairs
// (10⁷ at 10⁶ points), looking at ctx every buildCheckRows points; it
// returns ctx's error once ctx is done.
func (c *candidates) build(ctx context.Context, h *heaps, seed, it uint64) error {
	n, k, m := len(c.newN), h.k, c.m
	clear(c.newN)
	clear(c.oldN)
	owners := max(1, backend.Workers())
	per := (n + owners - 1) / owners
	err := backend.ParallelForCtx(ctx, owners, 1, func(wlo, whi int) {
		for w := wlo; w < whi; w++ {
			lo, hi := w*per, min(n, (w+1)*per)
			if lo >= hi {
				continue
			}
			add := func(i int, j int32, p uint64, isNew bool) {
				if isNew {
					offer(c.newI[i*m:(i+1)*m], c.newP[i*m:(i+1)*m], &c.newN[i], j, p)
				} else {
					offer(c.oldI[i*m:(i+1)*m], c.oldP[i*m:(i+1)*m], &c.oldN[i], j, p)
				}
			}
			for i := 0; i < n; i++ {
				if i%buildCheckRows == 0 && ctx.Err() != nil {
					return
				}
				own := i >= lo && i < hi
				for s := i * k; s < (i+1)*k; s++ {
					j := h.ind[s]
					if j == math.MaxInt32 {
						continue
					}
					jo := int(j) >= lo && int(j) < hi
					if !own && !jo {
						continue
					}
					a, b := uint64(i), uint64(j)
					if a > b {
						a, b = b, a
					}
					p := mix(seed^0xca4d, it, a<<32|b)
					if own {
						add(i, j, p, h.flag[s])
					}
					if jo {
						add(int(j), int32(i), p, h.flag[s])
					}
				}
			}
		}
	})
	if err != nil {
		return err
	}
	return backend.ParallelForCtx(ctx, n, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			nw := c.newI[i*m : i*m+int(c.newN[i])]
			for s := i * k; s < (i+1)*k; s++ {
				if !h.flag[s] {
					continue
				}
				for _, j := range nw {
					if j == h.ind[s] {
						h.flag[s] = false
						break
					}
				}
			}
		}
	})
}

// buildCheckRows is how many points an owner of candidates.build scans
// between two looks at the context (a few milliseconds).
const buildCheckRows = 1 << 15

// update is a pair found by a local join, for the heap of its target.
type update struct {
	target, other int32
	key           float32
}

// joinBlock is the number of points whose local joins run between two
// applications of their updates: a fixed number, so that the result does
// not depend on the number of goroutines.
const joinBlock = 8192

// joinStripes split the points among the goroutines that apply updates.
const joinStripes = 32

// localJoin runs one iteration's local joins (Dong et al. Algorithm 2):
// for every point u, every pair of its new candidates and every pair of a
// new and an old candidate is compared, and the pair is proposed to both
// heaps when it beats either's current worst.
func localJoin(ctx context.Context, v vectors, h *heaps, c *candidates) (int, int64, error) {
	m := c.m
	return join(ctx, v, h, v.n(), joinBlock, 64, func(u int) (nw, old []int32) {
		return c.newI[u*m : u*m+int(c.newN[u])], c.oldI[u*m : u*m+int(c.oldN[u])]
	})
}

// join compares, for every unit u of [0, units), every pair of lists(u)'s
// new points and every new–old pair, and proposes each pair closer than
// either point's current worst neighbour to both heaps. Blocks of block
// units run in two phases: the joins, in parallel chunks of grain units,
// read the heaps and write proposals into per-chunk, per-stripe buffers;
// then each stripe of points, in parallel, applies the proposals for its
// points, chunk by chunk. Every heap keeps the k best of what it was
// offered whatever the order, and the order within a stripe is fixed by
// the chunks, so the result (and the count of changed entries) is fixed
// by the seed, not by the number of goroutines. It returns the entries
// changed and the keys computed.
func join(ctx context.Context, v vectors, h *heaps, units, block, grain int, lists func(u int) (nw, old []int32)) (int, int64, error) {
	n := v.n()
	chunks := (block + grain - 1) / grain
	bufs := make([][joinStripes][]update, chunks)
	stripe := func(t int32) int { return int(int64(t) * joinStripes / int64(n)) }
	dists := make([]int64, chunks)
	var total int64
	changed := 0
	for b0 := 0; b0 < units; b0 += block {
		b1 := min(units, b0+block)
		err := backend.ParallelForCtx(ctx, b1-b0, grain, func(lo, hi int) {
			ch := lo / grain
			out := &bufs[ch]
			for s := range out {
				out[s] = out[s][:0]
			}
			var cnt int64
			var others []int32
			var keys []float32
			for u := b0 + lo; u < b0+hi; u++ {
				nw, old := lists(u)
				for x, a := range nw {
					// a's partners: the new entries after it and the old ones.
					others = append(others[:0], nw[x+1:]...)
					for _, b := range old {
						if a != b {
							others = append(others, b)
						}
					}
					keys = slices.Grow(keys[:0], len(others))[:len(others)]
					v.keys32(int(a), others, keys)
					cnt += int64(len(others))
					ba := h.bound(int(a))
					for t, b := range others {
						if d := keys[t]; d <= ba || d <= h.bound(int(b)) {
							out[stripe(a)] = append(out[stripe(a)], update{a, b, d})
							out[stripe(b)] = append(out[stripe(b)], update{b, a, d})
						}
					}
				}
			}
			dists[ch] = cnt
		})
		if err != nil {
			return 0, 0, err
		}
		used := (b1 - b0 + grain - 1) / grain
		var got [joinStripes]int
		// The updates of a block are many in the first iterations (at 10⁶
		// points a cancel during the candidates' build or the updates was
		// heard up to 0.3 s late): ctx is looked at every 16 chunks of a
		// stripe (a cancelled join leaves the heaps partly updated; nothing
		// reads them after the error).
		err = backend.ParallelForCtx(ctx, joinStripes, 1, func(lo, hi int) {
			for s := lo; s < hi; s++ {
				pushed := 0 // counted here: got[s] shares a cache line with other stripes
				for ch := 0; ch < used; ch++ {
					if ch%16 == 0 && ctx.Err() != nil {
						return
					}
					for _, up := range bufs[ch][s] {
						if h.push(int(up.target), up.other, up.key, true) {
							pushed++
						}
					}
				}
				got[s] = pushed
			}
		})
		if err != nil {
			return 0, 0, err
		}
		for ch := 0; ch < used; ch++ {
			total += dists[ch]
			dists[ch] = 0
		}
		for _, g := range got {
			changed += g
		}
	}
	return changed, total, nil
}
