package backend

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// The thread budget (see doc.go): goroutines × BLAS threads ≤ cores.
//
// BLAS threads are the threads one call into the C library may use
// (OpenBLAS's own pool). The semaphore caps how many cgo calls run at once at
// max(1, GOMAXPROCS / BLAS threads), so Go goroutines that each call into C
// never oversubscribe the cores. Pure-Go kernels use Workers() goroutines.
var threads struct {
	sync.Mutex
	blas int           // BLAS threads per call, at most
	sem  chan struct{} // capacity = concurrent cgo calls allowed
	inC  int           // the threads the C library is set to now (1 or blas)
}

func init() {
	setThreads(runtime.GOMAXPROCS(0))
}

// SetThreads sets the number of threads one BLAS/LAPACK call of the C backend
// may use (n ≤ 0 means GOMAXPROCS) and resizes the semaphore that caps
// concurrent C calls to max(1, GOMAXPROCS/n). Only large calls use them;
// the others run on one thread (openblas.go, "Threaded calls"). Use SetThreads(1) when a
// service runs many small fits concurrently and parallelism comes from its own
// goroutines; keep the default when one large fit runs at a time. It has no
// effect on the pure-Go backend's arithmetic, only on the semaphore.
// Calls in flight finish under the old setting.
func SetThreads(n int) {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	setThreads(n)
}

func setThreads(n int) {
	threads.Lock()
	defer threads.Unlock()
	threads.blas = n
	threads.sem = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/n))
	if setBLASThreads != nil {
		setBLASThreads(n)
	}
	threads.inC = n
}

// Threads returns the BLAS threads per call set by SetThreads.
func Threads() int {
	threads.Lock()
	defer threads.Unlock()
	return threads.blas
}

// acquire takes a slot of the cgo-call semaphore for one call into the C
// library and sets the threads that call may use: Threads() when threaded,
// one otherwise (the C backend decides by the call's size: openblas.go's
// threaded3, threaded2, threadedLAPACK). Pass the result to release.
func acquire(threaded bool) chan struct{} {
	threads.Lock()
	s := threads.sem
	threads.Unlock()
	s <- struct{}{}
	want := 1
	threads.Lock()
	if threaded {
		want = threads.blas
	}
	if threads.inC != want && setBLASThreads != nil {
		setBLASThreads(want)
		threads.inC = want
	}
	threads.Unlock()
	return s
}

func release(s chan struct{}) { <-s }

// setBLASThreads, blasThreadsNow (the C library's setting now) and
// blasConfig are set by the C backend's init.
var (
	setBLASThreads func(int)
	blasThreadsNow func() int
	blasConfig     func() string
)

// Description says which backend runs and how it is configured. Every stage
// report carries one.
type Description struct {
	Backend            string `json:"backend"`              // "purego" or "openblas"
	Config             string `json:"config"`               // the C library's configuration string; "gonum v0.17 (pure Go)" otherwise
	BLASThreads        int    `json:"blas_threads"`         // threads of a large C call (smaller ones use one: openblas.go)
	MaxConcurrentCalls int    `json:"max_concurrent_calls"` // cgo semaphore capacity
	GOMAXPROCS         int    `json:"gomaxprocs"`
	NumCPU             int    `json:"num_cpu"`
}

// Info describes the active backend and the thread budget.
func Info() Description {
	threads.Lock()
	d := Description{
		Backend:            active.Name(),
		Config:             "gonum v0.17 (pure Go)",
		BLASThreads:        threads.blas,
		MaxConcurrentCalls: cap(threads.sem),
		GOMAXPROCS:         runtime.GOMAXPROCS(0),
		NumCPU:             runtime.NumCPU(),
	}
	threads.Unlock()
	if blasConfig != nil {
		d.Config = blasConfig()
	}
	return d
}

// String renders the description on one line.
func (d Description) String() string {
	return fmt.Sprintf("backend=%s config=%q blas_threads=%d max_concurrent_calls=%d gomaxprocs=%d num_cpu=%d",
		d.Backend, d.Config, d.BLASThreads, d.MaxConcurrentCalls, d.GOMAXPROCS, d.NumCPU)
}

// Workers returns how many goroutines the pure-Go parallel kernels use:
// GOMAXPROCS.
func Workers() int { return runtime.GOMAXPROCS(0) }

// ParallelFor runs fn over [0, n) split into chunks of grain (≥ 1) indices,
// handed out dynamically to min(Workers(), chunks) goroutines, and returns
// when all are done. With one chunk or one worker it runs on the caller's
// goroutine.
func ParallelFor(n, grain int, fn func(lo, hi int)) {
	_ = ParallelForCtx(context.Background(), n, grain, fn)
}

// ParallelForCtx is ParallelFor that checks ctx before each chunk (never
// inside one) and returns an error wrapping ctx.Err() if it was cancelled;
// chunks already started finish. Keep chunks short enough (a few
// milliseconds) that cancellation lands within ~100 ms.
func ParallelForCtx(ctx context.Context, n, grain int, fn func(lo, hi int)) error {
	if n <= 0 {
		return ctx.Err()
	}
	grain = max(1, grain)
	chunks := (n + grain - 1) / grain
	w := min(Workers(), chunks)
	var next atomic.Int64
	var stop atomic.Bool
	work := func() {
		for !stop.Load() {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			if ctx.Err() != nil {
				stop.Store(true)
				return
			}
			lo := c * grain
			fn(lo, min(n, lo+grain))
		}
	}
	if w <= 1 {
		work()
	} else {
		var wg sync.WaitGroup
		wg.Add(w - 1)
		for i := 0; i < w-1; i++ {
			go func() { defer wg.Done(); work() }()
		}
		work()
		wg.Wait()
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("backend: parallel loop cancelled: %w", err)
	}
	return nil
}
