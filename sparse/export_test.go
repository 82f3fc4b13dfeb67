package sparse

import (
	"context"
	"math"
)

// SetUpLookingOnly makes Factor use the row-by-row algorithm whatever the
// cost (true) or choose by cost (false), and returns the previous setting.
func SetUpLookingOnly(on bool) bool {
	prev := upLookingOnly
	upLookingOnly = on
	return prev
}

// SetPlainAllPairs makes the all-pairs search (float64 and float32) start
// every source from scratch (true) or from its earlier neighbours' rows
// (false), and returns the previous setting.
func SetPlainAllPairs(on bool) bool {
	prev := plainAllPairs
	plainAllPairs = on
	return prev
}

// SetHeapOnlyPaths makes every shortest-path search use Dijkstra's heap
// (true) or try the distance buckets first (false), and returns the
// previous setting.
func SetHeapOnlyPaths(on bool) bool {
	prev := heapOnlyPaths
	heapOnlyPaths = on
	return prev
}

// SetGiveUpAlways makes every bucket search give up at once, the graph
// staying with the buckets (true), or not (false), and returns the
// previous setting.
func SetGiveUpAlways(on bool) bool {
	prev := giveUpAlways
	giveUpAlways = on
	return prev
}

// PeakUpdateEntries is the most update-matrix entries f's multifrontal
// factorization held at once.
func (f *LDL) PeakUpdateEntries() int64 { return f.peakUpdate.Load() }

// PostorderPeakUpdate is the most update-matrix entries alive at once when
// the fronts are factored one at a time in postorder, and the largest
// front's rows.
func (s *LDLAnalysis) PostorderPeakUpdate() (peak, maxFront int) {
	sn, _ := s.partition()
	return sn.peakUpdate, sn.maxFront
}

// Entries returns f's factor values by column and its pivots.
func (f *LDL) Entries() (l, d []float64) { return f.val, f.d }

// SetSerialSolves makes the solves run column by column on one goroutine
// (true) or by the plan on all cores when the factor is large (false), and
// returns the previous setting.
func SetSerialSolves(on bool) bool {
	prev := serialSolves
	serialSolves = on
	return prev
}

// SolvePlanParts returns the number of subtrees and top columns of the
// analysis's solve plan (0, 0 without one).
func (s *LDLAnalysis) SolvePlanParts() (subtrees, top int) {
	if s.solvePlan == nil {
		return 0, 0
	}
	return len(s.solvePlan.root), len(s.solvePlan.top)
}

// Parents returns the elimination tree (parent of each column, −1 at
// roots) in the factor's numbering.
func (s *LDLAnalysis) Parents() []int32 { return s.parent }

// RowCutParts returns the number of subtrees and top columns of the cut
// the row-by-row factorization runs on all cores (0, 0 without one).
func (s *LDLAnalysis) RowCutParts() (subtrees, top int) {
	c := s.rowCut()
	if c == nil {
		return 0, 0
	}
	return len(c.root), len(c.top)
}

// AMDCount is the factor's entries below the diagonal as AMD counts them
// while it orders a (the dense rows' left out), and the symbolic
// analysis' count for that order.
func AMDCount(a *CSR) (amd int64, symbolic int) {
	stop := &stopper{}
	perm, inv := approximateMinimumDegree(stop, a)
	an, _ := symbolicLDL(&stopper{}, a, perm, inv)
	return stop.fill, an.NNZ()
}

// HeapShortestPaths returns the distances from each source by Dijkstra's
// heap alone (the reference of the bucket search), and whether the bucket
// search, run first from each source, gave up on any.
func HeapShortestPaths(g *CSR, sources []int) (rows [][]float64, gaveUp bool) {
	pg, err := newPathGraph(context.Background(), "HeapShortestPaths", g)
	if err != nil {
		panic(err)
	}
	s := newDijkstra(pg.n)
	s.hk, s.hv = make([]uint64, pg.n), make([]int32, pg.n)
	for _, v := range sources {
		src := []int32{pg.inv[v]}
		if pg.delta > 0 {
			if !s.buckets(pg, src, []float64{0}) {
				gaveUp = true
			}
			emit(make([]float64, pg.n), s, pg.inv, false) // reset
		}
		s.settle(pg, s.push(src[0], 0, 0))
		row := make([]float64, pg.n)
		emit(row, s, pg.inv, false)
		rows = append(rows, row)
	}
	return rows, gaveUp
}

// StoppedSearchReach runs one search from src under ctx (by the heap alone
// when heap is set) and returns whether it stopped for ctx and the share
// of the vertices it had reached.
func StoppedSearchReach(ctx context.Context, g *CSR, src int, heap bool) (stopped bool, reach float64) {
	pg, err := newPathGraph(context.Background(), "StoppedSearchReach", g)
	if err != nil {
		panic(err)
	}
	if heap {
		pg.heapOnly.Store(true)
	}
	s := newDijkstra(pg.n)
	s.stop = stopper{ctx: ctx}
	s.run(pg, pg.inv[src])
	hit := 0
	for _, v := range s.vs {
		if v.d < math.Inf(1) {
			hit++
		}
	}
	return s.stop.err != nil, float64(hit) / float64(pg.n)
}

// SortByHash is AMD's sort of a pivot's variables by (hash, index).
func SortByHash(v []int32, hash []uint64) { sortByHash(v, hash) }

// RingBarrier is the first output row that the float32 all-pairs search
// in the searches' order lays its ring over in dst (n rows of the given
// stride), n when the ring is a slice of its own.
func RingBarrier(g *CSR, dst []float32, stride int) int {
	pg, err := newPathGraph(context.Background(), "RingBarrier", g)
	if err != nil {
		panic(err)
	}
	_, barrier := ringInside(dst, pg.n, stride, ringWindow(pg)+ringSlack())
	return int(barrier)
}
