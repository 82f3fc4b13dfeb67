package sparse

import (
	"math"
	"slices"
	"unsafe"
)

// Distance buckets: the search the shortest-path routines run first.
//
// A label-correcting search over buckets of distances of width Δ (Dial,
// CACM 1969, with the buckets of Δ-stepping: Meyer & Sanders, J.
// Algorithms 2003; approximate buckets in Cherkassky, Goldberg & Radzik,
// Math. Programming 1996): bucket i holds the vertices whose tentative
// distance d has ⌊d/Δ⌋ = i, the buckets are emptied in increasing order,
// each vertex taken out has all its edges relaxed, and a vertex whose
// distance falls again, within the bucket being emptied, goes back into
// it. There is no heap: a relaxation appends to a bucket, a bucket is read
// in order. Past the caches (a million vertices) the heap's sift-down was
// a third of Dijkstra's time; the buckets take 30–45 % off a landmark
// search there and 15 % at 10,000 vertices.
//
// The distances are those of Dijkstra's heap bit for bit: both algorithms
// stop at the same fixed point, d(v) = min over edges (u, v) of
// fl(d(u) + w), which is the least over all walks from the sources of the
// walk's length summed in floating point from the source on (by induction
// along a least walk, since fl(a + w) is monotone in a); the order in
// which the edges were relaxed does not enter.
//
// Δ is a low quantile of the weights (bucketQuantile), raised where the
// heaviest edge would span more than maxBuckets buckets. A search that
// does much more work than Dijkstra would (many light edges relaxed again,
// long runs of empty buckets, distances past the bucket indices) gives up
// at a budget of a few passes over the graph; the heap then runs from the
// start, and the graph's later searches use the heap alone.

const (
	// bucketQuantile is the quantile of the positive edge weights used as
	// the bucket width: below the typical edge, so that few vertices are
	// relaxed twice. The times hardly depend on it (0.05–0.5 within 10 %
	// at 10⁶ vertices of a digits kNN graph, within 2 % at 10,000 points of
	// a swiss roll).
	bucketQuantile = 0.1
	// maxBuckets bounds the buckets in one worker's ring: the heaviest
	// edge spans at most this many.
	maxBuckets = 1 << 16
	// farBytes is the size of the vertex states past which the search
	// prefetches (past a 1 MiB L2 cache; at 10,000 vertices the prefetch
	// calls drew 6 % of a profile's samples and made no difference in
	// alternating runs; at 200,000 and 10⁶ the four-ahead ones gain 3–8 %).
	farBytes = 1 << 20
	// maxBucketIndex bounds the bucket indices (int32 with room).
	maxBucketIndex = 1 << 30
)

// chooseBuckets sets g.delta and g.ring, or leaves g.delta 0 when the
// graph has no positive weights.
func (g *pathGraph) chooseBuckets() {
	e := int(g.ptr[g.n])
	wmax := 0.0
	for _, w := range g.w[:e] {
		wmax = max(wmax, w)
	}
	// A deterministic sample of the weights: every step-th edge.
	step := max(1, e/65536)
	var sample []float64
	for p := 0; p < e; p += step {
		if w := g.w[p]; w > 0 {
			sample = append(sample, w)
		}
	}
	if len(sample) == 0 {
		return
	}
	slices.Sort(sample)
	delta := max(sample[int(bucketQuantile*float64(len(sample)-1))], wmax/(maxBuckets-3))
	ring := 1
	for float64(ring) < wmax/delta+3 {
		ring <<= 1
	}
	g.delta, g.ring = delta, ring
}

// buckets runs the bucket search from the given sources (positions in g's
// order) and their distances into s.vs, and reports whether it finished.
// When it returns false it has given up: s.vs is reset (every distance
// +Inf, every mark -1) for the heap to run instead.
//
// s.vs[v].p is v's bucket while v is waiting in one, -1 otherwise.
func (s *dijkstra) buckets(g *pathGraph, src []int32, dist []float64) bool {
	if giveUpAlways {
		return s.giveUp()
	}
	if len(s.bk) != g.ring {
		s.bk = make([][]int32, g.ring)
	}
	mask := g.ring - 1
	inv := 1 / g.delta
	vs := s.vs
	ptr, adj, w := g.ptr, g.adj, g.w
	far := g.n*int(unsafe.Sizeof(vert{})) > farBytes
	// Work allowed before giving up: a few passes over the graph, in
	// units of one bucket looked at, one entry taken out or one edge.
	budget := 4*(g.n+len(adj)) + 4*g.ring
	pending := 0
	first := maxBucketIndex
	for k, v := range src {
		d := dist[k]
		x := &vs[v]
		if !(d < x.d) {
			continue
		}
		f := d * inv
		if !(f < maxBucketIndex) {
			return s.giveUp()
		}
		x.d = d
		j := int32(f)
		first = min(first, int(j))
		if x.p == j {
			continue
		}
		x.p = j
		s.bk[int(j)&mask] = append(s.bk[int(j)&mask], v)
		pending++
	}
	for _, v := range src {
		if int(vs[v].p)-first >= g.ring {
			return s.giveUp() // the sources' buckets do not fit the ring
		}
	}
	for i := first; pending > 0; i++ {
		budget--
		bk := s.bk[i&mask]
		for h := 0; h < len(bk); h++ {
			u := bk[h]
			if far && h+1 < len(bk) {
				// Past the caches: the next vertex's adjacency, while
				// this one's edges are relaxed (as in settle), and the
				// state and list start of the vertex four ahead.
				q := ptr[bk[h+1]]
				prefetch2(unsafe.Pointer(&adj[q]), unsafe.Pointer(&w[q]))
				if h+4 < len(bk) {
					z := bk[h+4]
					prefetch2(unsafe.Pointer(&ptr[z]), unsafe.Pointer(&vs[z]))
				}
			}
			pending--
			x := &vs[u]
			if x.p != int32(i) {
				continue // a stale entry: u has moved to a lower bucket
			}
			x.p = -1
			du := x.d
			lo, hi := ptr[u], ptr[u+1]
			budget -= int(hi-lo) + 1
			nbr := adj[lo:hi]
			wts := w[lo:hi]
			wts = wts[:len(nbr)]
			for e, v := range nbr {
				nd := du + wts[e]
				y := &vs[v]
				if nd >= y.d {
					continue // also every vertex done: weights are ≥ 0
				}
				f := nd * inv
				if !(f < maxBucketIndex) {
					s.bk[i&mask] = bk
					return s.giveUp()
				}
				y.d = nd
				j := int32(f)
				if y.p == j {
					continue
				}
				y.p = j
				if int(j) == i {
					bk = append(bk, v) // back into the bucket being emptied
				} else {
					s.bk[int(j)&mask] = append(s.bk[int(j)&mask], v)
				}
				pending++
			}
		}
		s.bk[i&mask] = bk[:0]
		if budget < 0 && pending > 0 {
			return s.giveUp()
		}
		// About eight edges an entry: the check of the context comes
		// every 10⁴ or so entries, a millisecond.
		if s.stop.tick(8*len(bk) + 1) {
			return true // cancelled: s is dropped
		}
	}
	return true
}

// giveUp resets the vertex states and empties the buckets.
func (s *dijkstra) giveUp() bool {
	inf := math.Inf(1)
	for i := range s.vs {
		s.vs[i] = vert{d: inf, p: -1}
	}
	for i := range s.bk {
		s.bk[i] = s.bk[i][:0]
	}
	return false
}
