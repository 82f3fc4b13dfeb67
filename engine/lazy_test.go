package engine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// lazy: a build ended by its context is not kept (the next call builds
// again), any other result is; a call waiting for another's build returns
// when its own context ends; a build that panics leaves the next call to
// build; set stands for a build.
func TestLazy(t *testing.T) {
	var builds atomic.Int32
	slow := func(ctx context.Context) (int, error) {
		builds.Add(1)
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(200 * time.Millisecond):
			return 7, nil
		}
	}
	var l lazy[int]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := l.get(ctx, slow); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled build: %v", err)
	}
	// A build under way; a second caller whose context ends returns then.
	started := make(chan struct{})
	go func() {
		close(started)
		l.get(context.Background(), slow)
	}()
	<-started
	time.Sleep(20 * time.Millisecond)
	short, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel2()
	t0 := time.Now()
	if _, err := l.get(short, slow); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting caller: %v", err)
	}
	if d := time.Since(t0); d > 100*time.Millisecond {
		t.Errorf("the waiting caller returned %v after its 30 ms deadline", d)
	}
	v, err := l.get(context.Background(), slow)
	if v != 7 || err != nil || builds.Load() != 2 {
		t.Fatalf("after the builds: %v, %v, %d builds (want 7, nil, 2)", v, err, builds.Load())
	}
	bad := errors.New("corrupt")
	var l2 lazy[int]
	fail := func(context.Context) (int, error) { builds.Add(1); return 0, bad }
	l2.get(context.Background(), fail)
	if _, err := l2.get(context.Background(), fail); err != bad || builds.Load() != 3 {
		t.Errorf("a failed build is not kept: %v, %d builds", err, builds.Load())
	}
	// A build that panics releases its waiters and is not kept.
	var l4 lazy[int]
	func() {
		defer func() { recover() }()
		l4.get(context.Background(), func(context.Context) (int, error) { panic("build") })
	}()
	if v, err := l4.get(context.Background(), slow); v != 7 || err != nil {
		t.Errorf("after a panicking build: %v, %v", v, err)
	}
	var l3 lazy[int]
	l3.set(5)
	if v, err := l3.get(context.Background(), fail); v != 5 || err != nil {
		t.Errorf("set: %v, %v", v, err)
	}
}

// A model's neighbour index, built on its first Transform, honours that
// call's context: 100,000 rows × 256 features near a 20-dimensional
// subspace (walked on principal coordinates, as digits are), random lists;
// first queries under deadlines of 20–450 ms return within 100 ms of them,
// and the next call builds the index (which takes longer than the first
// of them at least). At 60,000 rows the OpenBLAS build's index took
// 136–149 ms in half of the runs, under the 150 ms the test asks for to
// show cancellation in more than one phase: now 0.5–0.8 s.
func TestTrainingIndexCancel(t *testing.T) {
	testmode.Skip(t, "an index of 100,000 × 256 rows")
	const n, d, r = 100000, 256, 20
	rng := rand.New(rand.NewPCG(4, 4))
	basis := make([]float64, r*d)
	for i := range basis {
		basis[i] = rng.NormFloat64()
	}
	x := dense.New(n, d)
	for i := 0; i < n; i++ {
		row := x.Data[i*d : (i+1)*d]
		for a := 0; a < r; a++ {
			z := rng.NormFloat64()
			for c := range row {
				row[c] += z * basis[a*d+c]
			}
		}
		for c := range row {
			row[c] += 0.01 * rng.NormFloat64()
		}
	}
	const k = 10
	lists := &neighbors.Result{Ptr: make([]int, n+1), Ind: make([]int, n*k), Dist: make([]float64, n*k)}
	for i := 0; i < n; i++ {
		lists.Ptr[i+1] = (i + 1) * k
		for c := 0; c < k; c++ {
			lists.Ind[i*k+c] = (i + 1 + rng.IntN(n-1)) % n
			lists.Dist[i*k+c] = 1
		}
	}
	tl := &trainingLists{lists: lists}
	// Deadlines that end the build in its successive phases (the float32
	// copy, the covariance, the projection, the tree); a cancelled build
	// is not kept, so each try starts again.
	// The best of three tries a deadline: a loaded machine (CI runs two
	// test packages and a compile at once) can stall any one of them.
	built := false
	for _, ms := range []int{20, 150, 300, 450} {
		deadline := time.Duration(ms) * time.Millisecond
		best := time.Duration(math.MaxInt64)
		for try := 0; try < 3 && !built && best > 100*time.Millisecond; try++ {
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			t0 := time.Now()
			_, err := tl.index(ctx, x)
			late := time.Since(t0) - deadline
			cancel()
			if err == nil {
				built = true // built within the deadline
				break
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("index under a %v deadline: %v", deadline, err)
			}
			best = min(best, late)
		}
		if built {
			break
		}
		t.Logf("deadline %v: returned %v after it (best of up to three tries)", deadline, best)
		if best > 100*time.Millisecond {
			t.Errorf("deadline %v: the cancelled build returned %v after it (limit 100 ms)", deadline, best)
		}
	}
	// The whole build, timed on lists of their own (tl may hold the index
	// already, when a try finished within its deadline).
	t0 := time.Now()
	if _, err := (&trainingLists{lists: lists}).index(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	if cold := time.Since(t0); cold < 150*time.Millisecond {
		t.Errorf("the build took only %v: too quick for this test to show cancellation; enlarge it", cold)
	} else {
		t.Logf("the build takes %v", cold)
	}
}
