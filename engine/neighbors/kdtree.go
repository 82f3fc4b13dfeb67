package neighbors

import (
	"math"
	"runtime"
	"sort"

	"gonum.org/v1/gonum/blas/blas64"
)

// kdTree is a k-d tree over n points in dim dimensions: the points are
// copied in tree order (each node's points contiguous), every node keeps
// its bounding box, and splits are at the median of the dimension of
// largest spread, so the depth is ⌈log₂(n/leaf)⌉. Build O(n log n).
type kdTree struct {
	dim   int
	pts   []float64 // n×dim, tree order
	idx   []int     // idx[k]: original index of tree position k
	nodes []kdNode
	box   []float64 // per node: dim minima then dim maxima
}

type kdNode struct {
	lo, hi      int   // tree positions [lo, hi)
	left, right int32 // children, -1 for a leaf
}

func buildKDTree(x blas64.General, leaf int) *kdTree {
	n, dim := x.Rows, x.Cols
	t := &kdTree{dim: dim, idx: make([]int, n)}
	for i := range t.idx {
		t.idx[i] = i
	}
	// Work on a private copy so the partitioning moves whole points.
	pts := make([]float64, n*dim)
	for i := 0; i < n; i++ {
		copy(pts[i*dim:(i+1)*dim], x.Data[i*x.Stride:i*x.Stride+dim])
	}
	t.pts = pts
	if n == 0 {
		return t
	}
	t.nodes = make([]kdNode, 0, 2*(n/leaf+1))
	t.box = make([]float64, 0, 2*dim*cap(t.nodes))
	t.build(0, n, leaf, runtime.GOMAXPROCS(0) > 1 && n >= 2*parallelBuildMin)
	return t
}

// parallelBuildMin is the fewest points of a half worth a goroutine of
// its own when the tree is built (a half of 4096 3-D points takes about
// half a millisecond).
const parallelBuildMin = 4096

// build makes the node for positions [lo, hi) and its subtrees, and
// returns its id; the nodes are in depth-first order, left before right.
// With split, the root's two halves are built at once on two goroutines
// (the same tree).
func (t *kdTree) build(lo, hi, leaf int, split bool) int32 {
	id := int32(len(t.nodes))
	t.nodes = append(t.nodes, kdNode{lo: lo, hi: hi, left: -1, right: -1})
	dim := t.dim
	b0 := len(t.box)
	for range dim {
		t.box = append(t.box, math.Inf(1))
	}
	for range dim {
		t.box = append(t.box, math.Inf(-1))
	}
	box := t.box[b0 : b0+2*dim]
	for p := lo; p < hi; p++ {
		pt := t.pts[p*dim : (p+1)*dim]
		for d, v := range pt { // finite: comparisons, not math.Min's calls
			if v < box[d] {
				box[d] = v
			}
			if v > box[dim+d] {
				box[dim+d] = v
			}
		}
	}
	if hi-lo <= leaf {
		return id
	}
	d, spread := 0, -1.0
	for c := 0; c < dim; c++ {
		if s := box[dim+c] - box[c]; s > spread {
			d, spread = c, s
		}
	}
	if spread == 0 {
		return id // all points equal: a leaf, however large
	}
	mid := (lo + hi) / 2
	t.selectNth(lo, hi, mid, d)
	if !split {
		l := t.build(lo, mid, leaf, false)
		r := t.build(mid, hi, leaf, false)
		t.nodes[id].left, t.nodes[id].right = l, r
		return id
	}
	// The right half on a tree of its own, then spliced after the left.
	right := &kdTree{dim: dim, pts: t.pts, idx: t.idx,
		nodes: make([]kdNode, 0, cap(t.nodes)/2), box: make([]float64, 0, cap(t.box)/2)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		right.build(mid, hi, leaf, false)
	}()
	l := t.build(lo, mid, leaf, false)
	<-done
	r := int32(len(t.nodes))
	for _, nd := range right.nodes {
		if nd.left >= 0 {
			nd.left += r
			nd.right += r
		}
		t.nodes = append(t.nodes, nd)
	}
	t.box = append(t.box, right.box...)
	t.nodes[id].left, t.nodes[id].right = l, r
	return id
}

// selectNth partially sorts positions [lo, hi) on dimension d so that
// position nth holds the element of its rank, smaller or equal ones before
// it and larger or equal after (quickselect: median-of-three pivot, Hoare's
// partition, which moves only the points on the wrong side).
func (t *kdTree) selectNth(lo, hi, nth, d int) {
	dim := t.dim
	pts, idx := t.pts, t.idx
	key := func(p int) float64 { return pts[p*dim+d] }
	swap := func(a, b int) {
		pa, pb := pts[a*dim:(a+1)*dim], pts[b*dim:(b+1)*dim]
		for c := range pa {
			pa[c], pb[c] = pb[c], pa[c]
		}
		idx[a], idx[b] = idx[b], idx[a]
	}
	hi--
	for hi > lo {
		mid := lo + (hi-lo)/2
		// Order lo, mid, hi: the pivot is their median, and the ends
		// stop the scans below.
		if key(mid) < key(lo) {
			swap(mid, lo)
		}
		if key(hi) < key(lo) {
			swap(hi, lo)
		}
		if key(hi) < key(mid) {
			swap(hi, mid)
		}
		pivot := key(mid)
		i, j := lo, hi
		for i <= j {
			for key(i) < pivot {
				i++
			}
			for key(j) > pivot {
				j--
			}
			if i <= j {
				if i != j {
					swap(i, j)
				}
				i++
				j--
			}
		}
		// [lo, j] ≤ pivot ≤ [i, hi], and between them (if i = j+2) the pivot.
		switch {
		case nth <= j:
			hi = j
		case nth >= i:
			lo = i
		default:
			return
		}
	}
}

// boxDist returns the squared distance from q to the box of node id.
func (t *kdTree) boxDist(id int32, q []float64) float64 {
	dim := t.dim
	b := t.box[int(id)*2*dim : int(id)*2*dim+2*dim]
	if dim == 3 { // the same sum in the same order as the loop below
		b = b[:6]
		return (boxGap(q[0], b[0], b[3]) + boxGap(q[1], b[1], b[4])) + boxGap(q[2], b[2], b[5])
	}
	lo, hi := b[:dim], b[dim:]
	q = q[:dim]
	s := 0.0
	for d, v := range q {
		if v < lo[d] {
			e := lo[d] - v
			s += e * e
		} else if v > hi[d] {
			e := v - hi[d]
			s += e * e
		}
	}
	return s
}

// boxGap is the squared distance from v to the interval [lo, hi].
func boxGap(v, lo, hi float64) float64 {
	if v < lo {
		e := lo - v
		return float64(e * e)
	}
	if v > hi {
		e := v - hi
		return float64(e * e)
	}
	return 0
}

// scanLeaf offers to h the points of tree positions [lo, hi) but the
// original index self. A point farther than the worst of a full h is not
// offered (push would refuse it); in three dimensions the squared
// distance is sqDist's sum, in the same order, written out.
func (t *kdTree) scanLeaf(lo, hi int, q []float64, self int, h *topK) {
	dim := t.dim
	if dim != 3 {
		q = q[:dim]
		for p := lo; p < hi; p++ {
			s := sqDist(q, t.pts[p*dim:(p+1)*dim])
			if j := t.idx[p]; j != self && !(h.full() && s > h.d[0]) {
				h.push(s, j)
			}
		}
		return
	}
	q0, q1, q2 := q[0], q[1], q[2]
	pts, idx := t.pts[3*lo:3*hi], t.idx[lo:hi]
	for i, j := range idx {
		pt := pts[3*i : 3*i+3]
		t0, t1, t2 := q0-pt[0], q1-pt[1], q2-pt[2]
		s := (float64(t0*t0) + float64(t1*t1)) + float64(t2*t2)
		if j != self && !(h.full() && s > h.d[0]) {
			h.push(s, j)
		}
	}
}

// knn offers to h the points nearest to q in squared distance, skipping
// the original index self (-1: none).
func (t *kdTree) knn(q []float64, self int, h *topK) {
	if len(t.nodes) == 0 {
		return
	}
	t.knnNode(0, t.boxDist(0, q), q, self, h)
}

func (t *kdTree) knnNode(id int32, bd float64, q []float64, self int, h *topK) {
	// A tie at the bound may still beat the worst kept pair by index.
	if bd > h.bound() {
		return
	}
	nd := &t.nodes[id]
	if nd.left < 0 {
		t.scanLeaf(nd.lo, nd.hi, q, self, h)
		return
	}
	l, r := nd.left, nd.right
	dl, dr := t.boxDist(l, q), t.boxDist(r, q)
	if dr < dl {
		l, r, dl, dr = r, l, dr, dl
	}
	t.knnNode(l, dl, q, self, h)
	t.knnNode(r, dr, q, self, h)
}

// radius appends to (ds, js) every point within squared distance r2 of q
// (inclusive), skipping self.
func (t *kdTree) radius(q []float64, self int, r2 float64, ds []float64, js []int) ([]float64, []int) {
	if len(t.nodes) == 0 {
		return ds, js
	}
	stack := []int32{0}
	dim := t.dim
	q = q[:dim]
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if t.boxDist(id, q) > r2 {
			continue
		}
		nd := &t.nodes[id]
		if nd.left >= 0 {
			stack = append(stack, nd.right, nd.left)
			continue
		}
		for p := nd.lo; p < nd.hi; p++ {
			s := sqDist(q, t.pts[p*dim:(p+1)*dim])
			if j := t.idx[p]; s <= r2 && j != self {
				ds = append(ds, s)
				js = append(js, j)
			}
		}
	}
	return ds, js
}

// sortPairsLong sorts long lists by (d, j).
func sortPairsLong(d []float64, j []int) {
	sort.Sort(pairs{d, j})
}

type pairs struct {
	d []float64
	j []int
}

func (p pairs) Len() int           { return len(p.d) }
func (p pairs) Less(a, b int) bool { return pairBefore(p.d[a], p.j[a], p.d[b], p.j[b]) }
func (p pairs) Swap(a, b int) {
	p.d[a], p.d[b] = p.d[b], p.d[a]
	p.j[a], p.j[b] = p.j[b], p.j[a]
}
