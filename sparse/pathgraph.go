package sparse

import (
	"context"
	"fmt"
	"math"
	"sync"
)

// PathGraph is a graph prepared once for many single-source searches: the
// graph validated (finite, non-negative weights), renumbered and indexed
// as AllPairsShortestPaths does it for each call, plus a pool of search
// scratch. A service that maps new points through a fixed neighbour graph
// (Isomap's out-of-sample extension) builds it once and pays per query
// only the search itself, O((n + e)·log n), with no allocation in the
// steady state. It is safe for concurrent use.
type PathGraph struct {
	g    *pathGraph
	pool sync.Pool // *dijkstra
}

// NewPathGraph prepares g (square, weights finite and ≥ 0: edge i→j for
// every stored entry) for SeededPathsTo. It returns an error wrapping
// ErrInvalid otherwise.
func NewPathGraph(g *CSR) (*PathGraph, error) {
	pg, err := newPathGraph(context.Background(), "NewPathGraph", g)
	if err != nil {
		return nil, err
	}
	return &PathGraph{g: pg}, nil
}

// Len returns the number of vertices.
func (p *PathGraph) Len() int { return p.g.n }

// SeededPathsTo writes into dst (length Len()) the shortest-path lengths
// from a new vertex joined to the vertices seeds[i] by edges of lengths
// lengths[i] (the first occurrence of a repeated seed with its least
// length counts): dst[j] is the least lengths[i] + d(seeds[i], j), +Inf
// where no seed reaches j, squared when squared is set. It is the search
// of MultiSourceShortestPaths from a vertex added to the graph, without
// copying the graph. It returns the sum of the values written.
//
// It returns an error wrapping ErrInvalid if a length is negative, NaN or
// infinite; it panics if dst has the wrong length, the slices of seeds and
// lengths differ in length, or a seed is out of range.
func (p *PathGraph) SeededPathsTo(dst []float64, seeds []int, lengths []float64, squared bool) (float64, error) {
	n := p.g.n
	if len(dst) != n || len(seeds) != len(lengths) {
		panic(fmt.Sprintf("sparse: SeededPathsTo: %d vertices, dst of %d, %d seeds, %d lengths", n, len(dst), len(seeds), len(lengths)))
	}
	for i, v := range seeds {
		if v < 0 || v >= n {
			panic(fmt.Sprintf("sparse: SeededPathsTo: seed %d out of range [0, %d)", v, n))
		}
		if d := lengths[i]; !(d >= 0) || math.IsInf(d, 1) {
			return 0, fmt.Errorf("%w: SeededPathsTo: seed %d has length %v; lengths must be finite and non-negative", ErrInvalid, v, d)
		}
	}
	s, _ := p.pool.Get().(*dijkstra)
	if s == nil {
		s = newDijkstra(n)
	}
	s.src, s.dist = s.src[:0], s.dist[:0]
	for i, v := range seeds {
		s.src = append(s.src, p.g.inv[v])
		s.dist = append(s.dist, lengths[i]+0) // +0: −0 to +0 for the heap's bit-pattern keys
	}
	s.search(p.g, s.src, s.dist, nil)
	sum := emit(dst, s, p.g.inv, squared)
	p.pool.Put(s)
	return sum, nil
}

// push lowers vertex v's distance to d if that is less, inserting it into
// the heap of the given size or moving it up; it returns the new size.
func (s *dijkstra) push(v int32, d float64, size int) int {
	x := &s.vs[v]
	if d >= x.d {
		return size
	}
	x.d = d
	key := math.Float64bits(d)
	i := int(x.p)
	if i < 0 {
		i = size
		size++
	}
	hk, hv, vs := s.hk, s.hv, s.vs
	for i > 0 {
		q := (i - 1) >> 2
		pk := hk[q]
		if pk <= key {
			break
		}
		pv := hv[q]
		hk[i], hv[i] = pk, pv
		vs[pv].p = int32(i)
		i = q
	}
	hk[i], hv[i] = key, v
	vs[v].p = int32(i)
	return size
}
