package sparse

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/manifoldlab/manifold/backend"
)

// All pairs from the neighbours' rows: the all-pairs search.
//
// A shortest path from s to any other vertex v leaves s by one of its
// edges (s, t) and goes on by a shortest path from t, so d(s, v) is the
// least of w_st + d(t, v) over s's edges (Bellman, Quart. Appl. Math.
// 1958). Once the rows of some of s's neighbours are written, the search
// from s starts from the labels L(v) = min over those neighbours t of
// w_st + d(t, v) — a min-plus pass over a few rows of the output, read in
// sequence — and has only to correct the labels that the paths through
// s's other edges improve. The labels are lengths of walks from s, and
// they are consistent, L(x) ≤ L(v) + w_vx for every edge (v, x), because
// each row d(t, ·) is; so a vertex whose label nothing improves need not
// be scanned, and the label-correcting search (buckets or heap) ends at
// the shortest distances: it is the search from a virtual source joined to
// every vertex v by an edge of length L(v). On the 10,000-point swiss-roll
// kNN graph the searches then scan about a third of the vertices, and the
// whole takes a third of the plain searches' time.
//
// Which rows a source starts from is fixed by the graph: those of its
// out-neighbours numbered before it in the breadth-first order of
// pathGraph (about half of them, and rows written shortly before, still
// in the cache). A source is handed out when all of those are written,
// least number first; so the distances are the same bit for bit whatever
// the number of workers. In floating point the consistency above holds
// only to rounding — (w_st + d(t, v)) + w_vx and w_st + (d(t, v) + w_vx)
// may differ in the last bit — so a distance may differ from a plain
// search's in its last bits (by at most 2.1e-15 relative on that graph);
// with integer weights (exact sums) the two are equal.
//
// With opt.Squared a float64 row is squared (and summed) only once the
// sources that read it have read it: by the worker that finishes its last
// reader, or when it is written if no later source reads it. A float32
// output cannot be read back (its rounding would pass from row to row):
// its searches read float64 rows kept in a ring of window + slack rows,
// only those of earlier neighbours at most window positions back (the
// farthest earlier neighbour of any vertex, at most max(n/32, 256)), and
// no source starts slack or more positions ahead of the least unfinished
// one, so a row stays in the ring until all its readers have read it.
// Each float32 value is the float64 distance rounded once.
//
// With opt.Order (the output in the searches' order, row k for source k)
// a float32 output's last rows are written last, so the ring can live
// there until then (opt.RingInOutput): the window + slack float64 rows
// take the place of twice as many float32 rows at the end of the output.
// The sources whose rows overlay the ring (the barrier on) start once
// every earlier source is done and search from scratch — at 40,000
// swiss-roll points the last 2.3 % of the sources, and no memory besides
// the output.

// Switches for tests and benchmarks. plainAllPairs makes the all-pairs
// search run every source from scratch, as the landmark searches do;
// heapOnlyPaths makes every search use the heap; giveUpAlways makes every
// bucket search give up at once without switching the graph to the heap
// (so that each search restarts from its labels).
var plainAllPairs, heapOnlyPaths, giveUpAlways = false, false, false

// rowQueue hands out the sources (positions in the graph's order) whose
// earlier neighbours' rows are written, least position first, and none
// ahead of the least unfinished source by slack or more.
type rowQueue struct {
	rowReads
	mu     sync.Mutex
	more   sync.Cond
	ready  []int32 // a binary min-heap
	wait   []int32 // per source: earlier out-neighbours not yet done
	left   int     // sources not yet handed out
	closed bool
	// finished marks the sources done; every source below prefix is.
	finished []bool
	prefix   int
	slack    int
	// The later sources that read each row: rptr/readers index them.
	rptr    []int32
	readers []int32
}

// rowReads says which rows a search starts from.
type rowReads struct {
	window  int   // how far back an earlier neighbour's row may lie
	barrier int32 // the sources from here on read none
}

// reads says whether the search from s starts from the row of its
// neighbour t: t is numbered before s, at most window positions, and s is
// before the barrier.
func (r rowReads) reads(s, t int32) bool {
	return t < s && int(s-t) <= r.window && s < r.barrier
}

// newRowQueue builds the queue of g's sources: what each waits for and
// who reads each row, for searches that read rows as rd says. No source
// from rd.barrier on is handed out before every source before it is done.
func newRowQueue(g *pathGraph, rd rowReads, slack int) *rowQueue {
	n := g.n
	q := &rowQueue{rowReads: rd, wait: make([]int32, n), left: n, rptr: make([]int32, n+1),
		finished: make([]bool, n), slack: slack}
	q.more.L = &q.mu
	for s := range int32(n) {
		for _, t := range g.adj[g.ptr[s]:g.ptr[s+1]] {
			if q.reads(s, t) {
				q.wait[s]++
				q.rptr[t+1]++
			}
		}
	}
	for t := range n {
		q.rptr[t+1] += q.rptr[t]
	}
	q.readers = make([]int32, q.rptr[n])
	fill := append([]int32(nil), q.rptr[:n]...)
	for s := range int32(n) {
		if q.wait[s] == 0 {
			q.push(s)
		}
		for _, t := range g.adj[g.ptr[s]:g.ptr[s+1]] {
			if q.reads(s, t) {
				q.readers[fill[t]] = s
				fill[t]++
			}
		}
	}
	return q
}

// next records that source done (-1: none) is written, releasing the
// sources that waited only for it, and returns the next source to search,
// waiting for one if none may start; false when every source is handed
// out or the queue is closed.
func (q *rowQueue) next(done int32) (int32, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if done >= 0 {
		for _, s := range q.readers[q.rptr[done]:q.rptr[done+1]] {
			if q.wait[s]--; q.wait[s] == 0 {
				q.push(s)
				q.more.Signal()
			}
		}
		q.finished[done] = true
		if int(done) == q.prefix {
			for q.prefix < len(q.finished) && q.finished[q.prefix] {
				q.prefix++
			}
			q.more.Broadcast() // sources held back by the slack may start
		}
	}
	for !q.closed && q.left > 0 && (len(q.ready) == 0 || int(q.ready[0]) >= q.prefix+q.slack ||
		q.ready[0] >= q.barrier && q.prefix < int(q.barrier)) {
		q.more.Wait()
	}
	if q.closed || q.left == 0 {
		q.more.Broadcast() // wake the others to end
		return 0, false
	}
	q.left--
	return q.pop(), true
}

// close ends the hand-out (cancellation).
func (q *rowQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.more.Broadcast()
	q.mu.Unlock()
}

func (q *rowQueue) push(v int32) {
	h := append(q.ready, v)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p] <= v {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = v
	q.ready = h
}

func (q *rowQueue) pop() int32 {
	h := q.ready
	top, last := h[0], h[len(h)-1]
	h = h[:len(h)-1]
	if len(h) > 0 {
		i := 0
		for {
			c := 2*i + 1
			if c >= len(h) {
				break
			}
			if c+1 < len(h) && h[c+1] < h[c] {
				c++
			}
			if h[c] >= last {
				break
			}
			h[i] = h[c]
			i = c
		}
		h[i] = last
	}
	q.ready = h
	return top
}

// ringWindow is the window of a float32 output's searches: how far back
// (in the graph's order) the earlier neighbours whose rows they read may
// lie — the farthest earlier neighbour of any vertex (breadth-first order
// keeps it small on manifold graphs: 242 at 10,000 swiss-roll points,
// 445 at 40,000), at most max(n/32, 256).
func ringWindow(g *pathGraph) int {
	far := int32(0)
	for s := range int32(g.n) {
		for _, t := range g.adj[g.ptr[s]:g.ptr[s+1]] {
			if t < s {
				far = max(far, s-t)
			}
		}
	}
	return min(int(far), max(g.n/32, 256))
}

// ringSlack is how many sources a float32 output's searches may run ahead
// of the least unfinished one: the ring holds window + ringSlack rows.
func ringSlack() int { return 4 * backend.Workers() }

// AllPairs32ScratchBytes is the most memory AllPairsShortestPaths32 takes
// for an n-vertex graph besides its output and O(n + e): the ring of
// float64 rows its searches start from, or none when inOutput
// (PathOptions.RingInOutput) and the ring fits the output's last eighth
// (n ≥ 4,224 or so: always past n = 8,192, where the window is at most
// n/32).
func AllPairs32ScratchBytes(n int, inOutput bool) int64 {
	rows := min(n, max(n/32, 256)) + ringSlack()
	if inOutput && 2*rows <= n/8-1 {
		return 0
	}
	return 8 * int64(n) * int64(rows)
}

// ringInside returns the ring of rows float64 rows of n laid over the end
// of the float32 output dst (n rows of the given stride), and the first
// output row it overlays: nil when those rows would be more than the last
// eighth.
func ringInside(dst []float32, n, stride, rows int) ([]float64, int32) {
	end := (n-1)*stride + n
	start := end - 2*rows*n
	if start < 1 {
		return nil, int32(n)
	}
	if uintptr(unsafe.Pointer(&dst[start]))%8 != 0 {
		start-- // a float64 needs 8-byte alignment
	}
	first := start / stride
	if start%stride >= n { // start lies in the gap after row first
		first++
	}
	if first < n-n/8 {
		return nil, int32(n)
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&dst[start])), rows*n), int32(first)
}

// allPairsFromRows writes the n×n distances of g into dst (the given
// stride; row r for original vertex r and column j for position cols[j],
// or, with opt.Order, row and column k for position k) as described
// above. A float64 output holds the rows the searches read; for a float32
// one they are kept in float64 in a ring of window + slack rows, and a
// search reads only the rows of earlier neighbours within the window.
func allPairsFromRows[T float](ctx context.Context, what string, g *pathGraph, cols []int32, dst []T, stride int, opt PathOptions) error {
	n := g.n
	d64, direct := any(dst).([]float64)
	at := func(t int32) int { // the output row of source t
		if opt.Order != nil {
			return int(t)
		}
		return int(g.perm[t])
	}
	rd := rowReads{window: n, barrier: int32(n)} // float64: every earlier neighbour,
	slack := n                                   // no holding back
	var ring []float64
	ringRows := 0
	if !direct {
		rd.window, slack = ringWindow(g), ringSlack()
		ringRows = rd.window + slack
		if d32, ok := any(dst).([]float32); ok && opt.Order != nil && opt.RingInOutput {
			ring, rd.barrier = ringInside(d32, n, stride, ringRows)
		}
		if ring == nil {
			ring = make([]float64, ringRows*n)
		}
	}
	q := newRowQueue(g, rd, slack)
	var unread []atomic.Int32 // float64 squared: readers of each row still to read it
	if direct && opt.Squared {
		unread = make([]atomic.Int32, n)
		for t := range n {
			unread[t].Store(q.rptr[t+1] - q.rptr[t])
		}
	}
	rowOf := func(t int32) []float64 {
		if direct {
			r := at(t)
			return d64[r*stride : r*stride+n]
		}
		k := int(t) % ringRows
		return ring[k*n : k*n+n]
	}
	setSum := func(t int32, sum float64) {
		r := at(t)
		if opt.RowSums != nil {
			opt.RowSums[r] = sum
		}
		if opt.RowMeans != nil {
			opt.RowMeans[r] = sum / float64(n)
		}
	}
	stopWatch := context.AfterFunc(ctx, q.close)
	defer stopWatch()
	var stopped atomic.Bool
	workers := min(backend.Workers(), n)
	err := backend.ParallelForCtx(ctx, workers, 1, func(int, int) {
		s := newDijkstra(n)
		s.stop = stopper{ctx: ctx}
		lab := make([]float64, n)
		var rows [][]float64
		var ws []float64
		labels := func() {
			for j, k := range cols {
				s.vs[k].d = lab[j]
			}
		}
		done := int32(-1)
		for {
			src, ok := q.next(done)
			if !ok {
				return
			}
			rows, ws = rows[:0], ws[:0]
			lo, hi := g.ptr[src], g.ptr[src+1]
			for e, t := range g.adj[lo:hi] {
				if rd.reads(src, t) {
					rows = append(rows, rowOf(t))
					ws = append(ws, g.w[int(lo)+e])
				}
			}
			var restart func() // nil: no labels, the states are all +Inf
			if len(rows) > 0 {
				minPlusRows(lab, rows, ws)
				labels()
				restart = labels
			}
			if unread != nil {
				for _, t := range g.adj[lo:hi] {
					if rd.reads(src, t) && unread[t].Add(-1) == 0 {
						sum := square(rowOf(t))
						setSum(t, sum)
					}
				}
			}
			s.src, s.dist = append(s.src[:0], src), append(s.dist[:0], 0)
			s.search(g, s.src, s.dist, restart)
			if s.stop.err != nil {
				stopped.Store(true)
				q.close()
				return
			}
			// later: a float64 row that later sources read is squared by
			// the last of them.
			later := unread != nil && unread[src].Load() > 0
			var sum float64
			switch r := at(src); {
			case direct:
				sum = emit(rowOf(src), s, cols, opt.Squared && !later)
			case src >= rd.barrier: // its row overlays the ring, which no one reads now
				sum = emit(dst[r*stride:r*stride+n], s, cols, opt.Squared)
			default:
				row := rowOf(src)
				emit(row, s, cols, false)
				sum = convert(dst[r*stride:r*stride+n], row, opt.Squared)
			}
			if !later {
				setSum(src, sum)
			}
			if opt.Done != nil {
				opt.Done.Add(1)
			}
			done = src
		}
	})
	if err == nil && stopped.Load() {
		err = fmt.Errorf("sparse: %s: %w", what, ctx.Err())
	}
	return err
}

// square squares row in place and returns the sum of the squares.
func square(row []float64) float64 {
	sum := 0.0
	for j, d := range row {
		v := d * d
		row[j] = v
		sum += v
	}
	return sum
}

// convert writes the distances of row into out, squared if asked, as
// emit writes them, and returns the sum of the values written.
func convert[T float](out []T, row []float64, squared bool) float64 {
	out = out[:len(row)]
	sum := 0.0
	for j, d := range row {
		if squared {
			d *= d
		}
		v := T(d)
		out[j] = v
		sum += float64(v)
	}
	return sum
}

// minPlusRows sets lab[j] = min over k of ws[k] + rows[k][j] (len(rows) ≥
// 1; no NaN), four rows to a pass, without branches (which of the rows
// gives the least is as good as random).
func minPlusRows(lab []float64, rows [][]float64, ws []float64) {
	k := 0
	first := true
	for ; k+4 <= len(rows); k += 4 {
		r0, r1, r2, r3 := rows[k], rows[k+1], rows[k+2], rows[k+3]
		w0, w1, w2, w3 := ws[k], ws[k+1], ws[k+2], ws[k+3]
		r1, r2, r3, lab := r1[:len(r0)], r2[:len(r0)], r3[:len(r0)], lab[:len(r0)]
		if first {
			for j, x := range r0 {
				lab[j] = min(min(w0+x, w1+r1[j]), min(w2+r2[j], w3+r3[j]))
			}
		} else {
			for j, x := range r0 {
				lab[j] = min(lab[j], min(min(w0+x, w1+r1[j]), min(w2+r2[j], w3+r3[j])))
			}
		}
		first = false
	}
	for ; k < len(rows); k++ {
		r, w := rows[k], ws[k]
		lab := lab[:len(r)]
		if first {
			for j, x := range r {
				lab[j] = w + x
			}
		} else {
			for j, x := range r {
				lab[j] = min(lab[j], w+x)
			}
		}
		first = false
	}
}
