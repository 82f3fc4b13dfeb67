package sparse

import (
	"testing"
	"time"
	"unsafe"
)

// No source past the ring's barrier is handed out while a source before
// it is unfinished, even when it reads no rows and the slack would let it
// start: its output row overlays the ring those sources use.
func TestRowQueueBarrier(t *testing.T) {
	// A path 0 – 1 – … – 9: each source before the barrier reads the row of
	// the one before it.
	const n = 10
	g := &pathGraph{n: n, ptr: make([]int32, n+1)}
	for s := range int32(n) {
		if s > 0 {
			g.adj = append(g.adj, s-1)
		}
		if s < n-1 {
			g.adj = append(g.adj, s+1)
		}
		g.ptr[s+1] = int32(len(g.adj))
	}
	q := newRowQueue(g, rowReads{window: 1, barrier: 6}, n)
	first, _ := q.next(-1)
	if first != 0 {
		t.Fatalf("first source %d, want 0", first)
	}
	other := make(chan int32)
	go func() {
		s, _ := q.next(-1)
		other <- s
	}()
	done := first
	for want := int32(1); want < 6; want++ {
		select {
		case s := <-other:
			t.Fatalf("source %d handed out while source %d is unfinished", s, done)
		case <-time.After(20 * time.Millisecond):
		}
		s, _ := q.next(done)
		if s != want {
			t.Fatalf("after %d: source %d, want %d", done, s, want)
		}
		done = s
	}
	next, _ := q.next(done) // source 5 done: the barrier is passed
	if s := <-other; min(s, next) != 6 || max(s, next) != 7 {
		t.Fatalf("past the barrier: sources %d and %d, want 6 and 7", s, next)
	}
}

// The ring laid over a float32 output lies after every row before the
// barrier, within the output, 8-byte aligned, and overlays the barrier's
// row; a ring wider than the last eighth is not laid over it.
func TestRingInside(t *testing.T) {
	for _, c := range []struct {
		n, stride, rows int
		inside          bool
	}{
		{1000, 1000, 50, true}, {1001, 1001, 50, true}, {1000, 1003, 50, true},
		{1001, 1004, 60, true}, {1001, 1001, 62, true}, {1000, 1000, 63, false}, {100, 100, 8, false},
	} {
		dst := make([]float32, (c.n-1)*c.stride+c.n+1)[1:] // not 8-byte aligned at its start
		ring, barrier := ringInside(dst, c.n, c.stride, c.rows)
		if (ring != nil) != c.inside {
			t.Fatalf("%+v: ring inside %v", c, ring != nil)
		}
		if ring == nil {
			if barrier != int32(c.n) {
				t.Fatalf("%+v: no ring inside, but barrier %d", c, barrier)
			}
			continue
		}
		base := uintptr(unsafe.Pointer(&dst[0]))
		at := uintptr(unsafe.Pointer(&ring[0]))
		start, end := int(at-base)/4, int(at-base)/4+2*len(ring)
		b := int(barrier)
		switch {
		case len(ring) != c.rows*c.n || at%8 != 0 || end > (c.n-1)*c.stride+c.n:
			t.Fatalf("%+v: ring of %d at element %d (address %% 8 = %d)", c, len(ring), start, at%8)
		case b < c.n-c.n/8 || start < (b-1)*c.stride+c.n || b*c.stride+c.n <= start:
			t.Fatalf("%+v: barrier %d, ring from element %d", c, b, start)
		}
	}
}
