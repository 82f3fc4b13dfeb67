package neighbors

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
)

// Index answers approximate k-nearest-neighbour queries against the rows
// it was built on, as pynndescent's query does: a random-projection tree
// leads a query to a leaf, whose points start a best-first search of the
// rows' neighbour graph (each row's NN-descent neighbours and the rows
// that have it as a neighbour), which keeps the Width closest rows seen and
// expands the closest unexpanded one until none is closer than the
// farthest kept. Dense rows, Euclidean or cosine distance. Wide Euclidean
// rows whose variance lies mostly in few directions (digits, image
// features) are walked on their principal coordinates and the kept rows
// reranked by their exact distances (walkSpace). An Index is safe for
// concurrent queries.
type Index struct {
	v     *dense32
	walk  walkSpace // where queries walk the graph: v's rows, or their principal coordinates
	adjP  []int32   // adjacency: row i's graph neighbours are adj[adjP[i]:adjP[i+1]]
	adj   []int32
	nodes []rpNode
	perm  []int32
	// searchers keeps the query scratch (*searcher) between Query calls:
	// its visited stamps are n words, which one-row queries (a request
	// path's Transform) must not allocate and clear every time.
	searchers sync.Pool
}

// NewIndex builds the index of the rows of x: their k-nearest-neighbour
// graph by KNNApprox (returned too) and one random-projection tree. It
// keeps a float32 copy of the rows (n·D·4 bytes, and 2 MiB of huge-page
// alignment when that is 4 MiB or more; n·p·4 bytes when the rows are
// walked on p ≤ D/2 principal coordinates) and the graph (about 8·n·k
// bytes). Errors as KNNApprox.
func NewIndex(ctx context.Context, x mat.Matrix, k int, opt ApproxOptions) (*Index, *Result, error) {
	g, err := rowMajor(ctx, "x", x)
	if err != nil {
		return nil, nil, err
	}
	if err := checkApprox(g.Rows, k, opt); err != nil {
		return nil, nil, err
	}
	v, err := newDense32(ctx, g, opt.Metric)
	if err != nil {
		return nil, nil, err
	}
	res, _, err := nnDescent(ctx, v, k, opt)
	if err != nil {
		return nil, nil, err
	}
	ix, err := IndexFromLists(ctx, x, res, opt)
	return ix, res, err
}

// IndexFromLists builds the index of the rows of x from neighbour lists
// already found for them (by KNN or KNNApprox; any number per row).
// opt gives the metric, the seed and the leaf size of the tree.
func IndexFromLists(ctx context.Context, x mat.Matrix, lists *Result, opt ApproxOptions) (*Index, error) {
	return IndexWithTree(ctx, x, lists, nil, opt)
}

// IndexWithTree is IndexFromLists with the tree of an index built before
// (Index.Tree, kept in a model file), which it checks instead of growing
// one: a tree that does not fit the rows' count or dimension, or is not a
// tree, is an error wrapping ErrInput. A nil tree grows one as
// IndexFromLists does.
func IndexWithTree(ctx context.Context, x mat.Matrix, lists *Result, tree *Tree, opt ApproxOptions) (*Index, error) {
	g, err := rowMajor(ctx, "x", x)
	if err != nil {
		return nil, err
	}
	if err := opt.check(); err != nil {
		return nil, err
	}
	n := g.Rows
	if lists.Len() != n {
		return nil, fmt.Errorf("%w: %d neighbour lists for %d rows", ErrInput, lists.Len(), n)
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: an index of no rows", ErrInput)
	}
	for _, j := range lists.Ind {
		if j < 0 || j >= n {
			return nil, fmt.Errorf("%w: neighbour %d of %d rows", ErrInput, j, n)
		}
	}
	v, err := newDense32(ctx, g, opt.Metric)
	if err != nil {
		return nil, err
	}
	ix := &Index{v: v}
	ix.setGraph(lists)
	k := 1
	if n > 0 {
		k = max(1, len(lists.Ind)/n)
	}
	if tree != nil {
		if err := ix.setTree(tree); err != nil {
			return nil, err
		}
		return ix, ix.setWalk(ctx)
	}
	leaf := opt.leafSize(k)
	ix.perm, _ = growTreeNodes(ctx, ix.v, leaf, rand.New(rand.NewPCG(opt.Seed, 0x9e7e)), &ix.nodes)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ix, ix.setWalk(ctx)
}

// setGraph sets the graph the searches walk: every row's list of lists
// (indices of the index's rows, checked) and the rows that list it, self
// loops dropped.
func (ix *Index) setGraph(lists *Result) {
	n := lists.Len()
	// The graph: forward and reverse edges, each row's list deduplicated.
	deg := make([]int32, n+1)
	for i := 0; i < n; i++ {
		js, _ := lists.Row(i)
		for _, j := range js {
			if j != i {
				deg[i+1]++
				deg[j+1]++
			}
		}
	}
	for i := 0; i < n; i++ {
		deg[i+1] += deg[i]
	}
	adj := make([]int32, deg[n])
	fill := append([]int32(nil), deg[:n]...)
	for i := 0; i < n; i++ {
		js, _ := lists.Row(i)
		for _, j := range js {
			if j != i {
				adj[fill[i]] = int32(j)
				fill[i]++
				adj[fill[j]] = int32(i)
				fill[j]++
			}
		}
	}
	ix.adjP, ix.adj = deg, adj
}

// setWalk chooses the space queries walk the graph in: the rows' principal
// coordinates when principalSpace finds them worth it (the float32 copy
// of the rows is then dropped: the tree routes queries by its own
// hyperplanes, and the kept rows are reranked on the float64 rows), else
// the rows themselves.
func (ix *Index) setWalk(ctx context.Context) error {
	w, ok, err := principalSpace(ctx, ix.v)
	if err != nil {
		return err
	}
	if !ok {
		ix.walk = rowSpace(ix.v)
		return nil
	}
	ix.walk = w
	if !ix.v.inPlace { // the caller's rows stay
		ix.v.x, ix.v.sq = nil, nil
	}
	return nil
}

// Len returns the number of rows indexed.
func (ix *Index) Len() int { return ix.v.n() }

// Query returns approximate k nearest rows of the index for every row of q
// (nothing excluded: a query equal to an indexed row finds it at distance
// 0), sorted by distance then index, with distances computed in float64
// as KNNQuery reports them. width ≥ k is the number of candidates the
// search keeps (larger: slower and closer to exact; 0: max(2k, 30)).
// Errors wrap ErrInput (k not in [1, Len()], q's width, NaN or Inf).
func (ix *Index) Query(ctx context.Context, q mat.Matrix, k, width int) (*Result, error) {
	g, err := rowMajor(ctx, "queries", q)
	if err != nil {
		return nil, err
	}
	n, dim := ix.v.n(), ix.v.dim
	if g.Rows > 0 && g.Cols != dim {
		return nil, fmt.Errorf("%w: queries have %d columns, the index %d", ErrInput, g.Cols, dim)
	}
	if k < 1 || k > n {
		return nil, fmt.Errorf("%w: k = %d neighbours asked of %d indexed rows", ErrInput, k, n)
	}
	width = queryWidth(width, k, n)
	m := g.Rows
	res := &Result{Ptr: make([]int, m+1), Ind: make([]int, m*k), Dist: make([]float64, m*k)}
	for i := range res.Ptr {
		res.Ptr[i] = i * k
	}
	err = backend.ParallelForCtx(ctx, m, 64, func(lo, hi int) {
		s := ix.searcher(width)
		defer ix.searchers.Put(s)
		qv := s.query(dim)
		for i := lo; i < hi; i++ {
			row := g.Data[i*g.Stride : i*g.Stride+dim]
			s.search(ix, row, qv, nil)
			s.answer(ix, row, res.Ind[i*k:(i+1)*k], res.Dist[i*k:(i+1)*k])
		}
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// QueryRow is Query of the one row q into js and ds (its len(js) nearest
// rows and their distances; len(ds) = len(js)), for a request path: no
// allocation once a query has run (the search scratch is pooled). Errors
// wrap ErrInput (q's length, NaN or Inf, len(js) not in [1, Len()] or
// len(ds) ≠ len(js)) or are ctx.Err().
func (ix *Index) QueryRow(ctx context.Context, q []float64, js []int, ds []float64, width int) error {
	n, dim := ix.v.n(), ix.v.dim
	k := len(js)
	if len(q) != dim {
		return fmt.Errorf("%w: a query of %d values, the index's rows have %d", ErrInput, len(q), dim)
	}
	if k < 1 || k > n || len(ds) != k {
		return fmt.Errorf("%w: %d neighbours (%d distances) asked of %d indexed rows", ErrInput, k, len(ds), n)
	}
	limit := valueLimit(dim)
	for c, v := range q {
		if err := checkValue(v, limit, dim); err != nil {
			return fmt.Errorf("%w: query[%d] = %v %s", ErrInput, c, v, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s := ix.searcher(queryWidth(width, k, n))
	defer ix.searchers.Put(s)
	s.search(ix, q, s.query(dim), nil)
	s.answer(ix, q, js, ds)
	return nil
}

// queryWidth is the search width of a query of k among n rows asked at
// width (0: max(2k, 30)), at least k and at most n.
func queryWidth(width, k, n int) int {
	if width <= 0 {
		width = max(2*k, 30)
	}
	return min(max(width, k), n)
}

// answer writes the len(js) nearest of the kept candidates of the search
// just run for row into js and ds, sorted by distance then index, the
// distances in float64 as KNNQuery reports them.
func (s *searcher) answer(ix *Index, row []float64, js []int, ds []float64) {
	k := len(js)
	// The kept candidates, best first by the float32 key.
	sortKept(s.keyD, s.keyJ)
	if ix.walk.axes == nil {
		for c := 0; c < k; c++ {
			j := int(s.keyJ[c])
			js[c] = j
			ds[c] = ix.exactQuery(row, j)
		}
		sortPairs(ds, js)
		return
	}
	// A projected walk: every kept row reranked exactly.
	s.exD, s.exJ = s.exD[:0], s.exJ[:0]
	for _, j := range s.keyJ {
		s.exJ = append(s.exJ, int(j))
		s.exD = append(s.exD, ix.exactQuery(row, int(j)))
	}
	sortPairs(s.exD, s.exJ)
	copy(js, s.exJ[:k])
	copy(ds, s.exD[:k])
}

// exactQuery is the reported distance of a query row to indexed row j
// (a position in the rows' order when they were reordered; the float32
// row, widened, when they are held in place, as dense32.exactDist).
func (ix *Index) exactQuery(row []float64, j int) float64 {
	v := ix.v
	if v.inPlace {
		return math.Sqrt(sqDistSums(row, v.x[j*v.dim:(j+1)*v.dim]))
	}
	if v.order != nil {
		j = int(v.order[j])
	}
	o := v.orig
	return rowDist(v.metric, row, o.Data[j*o.Stride:j*o.Stride+v.dim])
}

// searcher is one goroutine's scratch for queries: the visited stamps, the
// kept candidates (a max-heap on (key, index) of at most width) and the
// frontier (a min-heap, kept negated: pushFront).
type searcher struct {
	qv         []float32
	stamp      []uint32
	gen        uint32
	keyD       []float32
	keyJ       []int32
	width      int
	frontD     []float32
	frontJ     []int32
	qsq        float32
	normalized bool
	// batch and batchD: the rows of one visitAll not visited before, and
	// their keys; one: a single row's list.
	batch  []int32
	batchD []float32
	one    [1]int32
	// qw: the query in the walk's coordinates; exD, exJ: the kept rows'
	// exact distances, for the rerank of a projected walk.
	qw  []float32
	exD []float64
	exJ []int
}

// searcher returns a query scratch of the given width, reused from an
// earlier Query when one is free.
func (ix *Index) searcher(width int) *searcher {
	s, _ := ix.searchers.Get().(*searcher)
	if s == nil {
		s = &searcher{stamp: make([]uint32, ix.v.n())}
	}
	s.width = width
	return s
}

// query returns the scratch's float32 copy of a query row of dim values.
func (s *searcher) query(dim int) []float32 {
	if cap(s.qv) < dim {
		s.qv = make([]float32, dim)
	}
	return s.qv[:dim]
}

// search runs one query: the tree's leaf (or, when start is not nil, the
// indexed rows start: Refine's query of an indexed row starts from the
// row and its neighbours), then the best-first walk.
func (s *searcher) search(ix *Index, row []float64, qv []float32, start []int32) {
	scale := ix.v.f // the rows' scale (Euclidean), see keyScale
	if ix.v.metric == Cosine {
		if inv := invNorm(row); inv > 0 {
			scale = inv
		}
	}
	for c, v := range row {
		qv[c] = float32(v * scale)
	}
	qw := qv
	if ix.walk.axes != nil {
		if cap(s.qw) < ix.walk.dim {
			s.qw = make([]float32, ix.walk.dim)
		}
		qw = s.qw[:ix.walk.dim]
		ix.walk.project(qv, qw)
	}
	var sq float64
	for _, v := range qw {
		sq += float64(v) * float64(v)
	}
	s.qsq = float32(sq)
	s.gen++
	if s.gen == 0 { // wrapped: clear the stamps
		clear(s.stamp)
		s.gen = 1
	}
	s.keyD, s.keyJ = s.keyD[:0], s.keyJ[:0]
	s.frontD, s.frontJ = s.frontD[:0], s.frontJ[:0]
	if start == nil {
		// Down the tree, one margin a level by gonum's Sdot (the tree was
		// grown with dots4's sums, which can differ from Sdot's in the last
		// bit: a query on a hyperplane may take the other side, which only
		// changes where the walk starts).
		nd := &ix.nodes[0]
		for nd.left >= 0 {
			next := nd.right
			if !nd.degenerate && sdot.Sdot(ix.v.dim, nd.normal, 1, qv, 1)+nd.off < 0 {
				next = nd.left
			}
			nd = &ix.nodes[next]
		}
		start = ix.perm[nd.lo:nd.hi]
	}
	s.visitAll(&ix.walk, qw, start)
	// Best first.
	for len(s.frontD) > 0 {
		d, c := s.popFront()
		if len(s.keyD) == s.width && d > s.keyD[0] {
			break
		}
		s.visitAll(&ix.walk, qw, ix.adj[ix.adjP[c]:ix.adjP[c+1]])
	}
	// A graph component smaller than the width: fill from the other rows.
	for j := 0; len(s.keyD) < s.width && j < len(s.stamp); j++ {
		s.one[0] = int32(j)
		s.visitAll(&ix.walk, qw, s.one[:])
	}
}

// visitAll visits the rows js in order: each row's key is computed once
// per query, and kept (and added to the frontier) when it beats the
// farthest kept candidate. The rows not yet visited are asked of the
// cache at once (prefetchRows) and their keys computed four at a time
// (dots4), so that their cache misses overlap, before any is kept, which
// gives the same choices as visiting the rows one by one.
func (s *searcher) visitAll(w *walkSpace, qv []float32, js []int32) {
	b := s.batch[:0]
	for _, j := range js {
		if s.stamp[j] != s.gen {
			s.stamp[j] = s.gen
			b = append(b, j)
		}
	}
	s.batch = b
	if len(b) == 0 {
		return
	}
	if cap(s.batchD) < len(b) {
		s.batchD = make([]float32, len(b), 2*len(b))
	}
	keys := s.batchD[:len(b)]
	dim := w.dim
	prefetchRows(w.x, b, dim)
	for i := 0; i < len(b); i += 4 {
		var off [4]int
		var dot [4]float32
		for r := range off {
			off[r] = int(b[min(i+r, len(b)-1)]) * dim // a short last group repeats its last row
		}
		dots4(qv, w.x, &off, &dot)
		for r := 0; r < 4 && i+r < len(b); r++ {
			keys[i+r] = w.key(s.qsq, dot[r], b[i+r])
		}
	}
	for i, j := range b {
		d := keys[i]
		if len(s.keyD) == s.width && !worse(s.keyD[0], s.keyJ[0], d, j) {
			continue
		}
		s.keep(d, j)
		s.pushFront(d, j)
	}
}

// keep inserts (d, j) into the max-heap of kept candidates, dropping the
// worst when full.
func (s *searcher) keep(d float32, j int32) {
	if len(s.keyD) < s.width {
		s.keyD = append(s.keyD, d)
		s.keyJ = append(s.keyJ, j)
		heapUp(s.keyD, s.keyJ, len(s.keyD)-1, d, j)
		return
	}
	heapDown(s.keyD, s.keyJ, len(s.keyD), d, j)
}

// pushFront and popFront are the frontier's min-heap on (key, index): a
// max-heap of the negated pairs (heap.go).
func (s *searcher) pushFront(d float32, j int32) {
	s.frontD = append(s.frontD, -d)
	s.frontJ = append(s.frontJ, -j)
	heapUp(s.frontD, s.frontJ, len(s.frontD)-1, -d, -j)
}

func (s *searcher) popFront() (float32, int32) {
	d, j := -s.frontD[0], -s.frontJ[0]
	n := len(s.frontD) - 1
	ld, lj := s.frontD[n], s.frontJ[n]
	s.frontD, s.frontJ = s.frontD[:n], s.frontJ[:n]
	if n > 0 {
		heapDown(s.frontD, s.frontJ, n, ld, lj)
	}
	return d, j
}

// sortKept sorts the kept candidates by (key, index), best first.
func sortKept(d []float32, j []int32) {
	for a := 1; a < len(d); a++ {
		dv, jv := d[a], j[a]
		b := a
		for b > 0 && worse(d[b-1], j[b-1], dv, jv) {
			d[b], j[b] = d[b-1], j[b-1]
			b--
		}
		d[b], j[b] = dv, jv
	}
}

// Tree is an index's random-projection tree as a model file keeps it.
// Node 0 is the root and children are numbered after their parent: node
// i's children are Child[2i] and Child[2i+1], both 0 at a leaf (no node's
// child is the root). Node i covers the rows Perm[Span[2i]:Span[2i+1]]:
// the root all of them, an inner node's left child the first part of its
// span and its right child the rest, a leaf at least one row. An inner node
// sends a query q (scaled to unit length under Cosine) left when its
// hyperplane's normal·q + offset < 0, else right; the normals and offsets
// of the inner nodes are Normals (D a node) and Offsets, in node order. A
// node whose split put every row on one side has a zero normal and offset:
// it sends every query right, as the index it came from did.
type Tree struct {
	Child   []int32
	Span    []int32
	Normals []float32
	Offsets []float32
	Perm    []int32
}

// Tree returns the index's tree (a copy).
func (ix *Index) Tree() *Tree {
	d, m := ix.v.dim, len(ix.nodes)
	t := &Tree{Child: make([]int32, 2*m), Span: make([]int32, 2*m), Perm: append([]int32(nil), ix.perm...)}
	for i := m - 1; i >= 0; i-- { // children before parents: the spans of inner nodes
		nd := ix.nodes[i]
		if nd.left < 0 {
			t.Span[2*i], t.Span[2*i+1] = nd.lo, nd.hi
			continue
		}
		t.Child[2*i], t.Child[2*i+1] = nd.left, nd.right
		t.Span[2*i], t.Span[2*i+1] = t.Span[2*nd.left], t.Span[2*nd.right+1]
	}
	for _, nd := range ix.nodes {
		if nd.left < 0 {
			continue
		}
		if nd.degenerate {
			t.Normals = append(t.Normals, make([]float32, d)...)
			t.Offsets = append(t.Offsets, 0)
		} else {
			t.Normals = append(t.Normals, nd.normal...)
			t.Offsets = append(t.Offsets, nd.off)
		}
	}
	return t
}

// Check returns an error wrapping ErrInput unless t is the tree of an
// index of n rows of d features: a permutation of the rows; spans that
// start at the root with all rows and split at every inner node into its
// children's, down to non-empty leaves; children numbered after their
// parent; a finite hyperplane for every inner node.
func (t *Tree) Check(n, d int) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: index tree: "+format, append([]any{ErrInput}, a...)...)
	}
	nodes := len(t.Child) / 2
	if nodes == 0 || len(t.Child) != 2*nodes || len(t.Span) != 2*nodes || nodes > 2*n {
		return bad("%d child and %d span entries for %d rows", len(t.Child), len(t.Span), n)
	}
	if len(t.Perm) != n {
		return bad("a permutation of %d rows for %d", len(t.Perm), n)
	}
	seen := make([]bool, n)
	for _, j := range t.Perm {
		if j < 0 || int(j) >= n || seen[j] {
			return bad("row %d out of range or repeated in the permutation", j)
		}
		seen[j] = true
	}
	if t.Span[0] != 0 || int(t.Span[1]) != n {
		return bad("the root spans [%d, %d) of %d rows", t.Span[0], t.Span[1], n)
	}
	inner := 0
	for i := 0; i < nodes; i++ {
		l, r := t.Child[2*i], t.Child[2*i+1]
		lo, hi := t.Span[2*i], t.Span[2*i+1]
		if l == 0 && r == 0 {
			if lo < 0 || lo >= hi || int(hi) > n {
				return bad("leaf %d spans [%d, %d) of %d rows", i, lo, hi, n)
			}
			continue
		}
		if int(l) <= i || int(r) <= i || int(l) >= nodes || int(r) >= nodes || l == r {
			return bad("node %d's children %d and %d are not two later nodes", i, l, r)
		}
		if t.Span[2*l] != lo || t.Span[2*l+1] != t.Span[2*r] || t.Span[2*r+1] != hi {
			return bad("node %d's span [%d, %d) is not its children's [%d, %d) and [%d, %d)", i, lo, hi, t.Span[2*l], t.Span[2*l+1], t.Span[2*r], t.Span[2*r+1])
		}
		inner++
	}
	if len(t.Normals) != inner*d || len(t.Offsets) != inner {
		return bad("%d normal entries and %d offsets for %d inner nodes of dimension %d", len(t.Normals), len(t.Offsets), inner, d)
	}
	for _, vs := range [][]float32{t.Normals, t.Offsets} {
		for _, v := range vs {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return bad("hyperplane entry %v", v)
			}
		}
	}
	return nil
}

// setTree takes t, checked, as the index's tree.
func (ix *Index) setTree(t *Tree) error {
	d := ix.v.dim
	if err := t.Check(ix.v.n(), d); err != nil {
		return err
	}
	ix.nodes = make([]rpNode, len(t.Child)/2)
	p := 0
	for i := range ix.nodes {
		nd := &ix.nodes[i]
		nd.left, nd.right, nd.lo, nd.hi = -1, -1, t.Span[2*i], t.Span[2*i+1]
		if t.Child[2*i] == 0 {
			continue
		}
		nd.left, nd.right = t.Child[2*i], t.Child[2*i+1]
		nd.normal, nd.off = append([]float32(nil), t.Normals[p*d:(p+1)*d]...), t.Offsets[p]
		nd.degenerate = nd.off == 0 && allZero(nd.normal)
		p++
	}
	ix.perm = append([]int32(nil), t.Perm...)
	return nil
}

func allZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
