package neighbors

import (
	"context"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// TestApproxBytes: the estimate of NN-descent's memory against the peak
// heap KNNApprox adds, sampled every 100 µs while it runs with GOGC = 10 (so that the
// heap holds little garbage, as the engine's memory budgets are measured):
// within [0.5, 1.3] × the estimate. The local joins' proposals depend on
// the data: a swiss roll in 60-D (a manifold, as the engine's inputs are)
// proposes about every pair of new candidates of the first iteration, the
// count the estimate takes; Gaussian rows propose fewer, hence the lower
// bound of 0.5 (the estimate before the joins were counted: 21.7 MiB for
// the roll, which peaked at 52.7).
func TestApproxBytes(t *testing.T) {
	testmode.Skip(t, "builds two 20,000-point graphs and a 4000-point one")
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	// The third case refines its lists by walks on principal coordinates,
	// whose axes come from the covariance of its 4000 rows of 512 features
	// (principal.SetupBytes: 21 MB, half the estimate).
	for _, c := range []struct {
		n, d, k, refine int
		roll            bool
	}{{20000, 64, 10, 0, false}, {20000, 128, 15, 0, false}, {4000, 512, 10, 16, false}, {20000, 60, 15, 0, true}} {
		rng := rand.New(rand.NewPCG(1, 2))
		x := mat.NewDense(c.n, c.d, nil)
		for i := range x.RawMatrix().Data {
			x.RawMatrix().Data[i] = rng.NormFloat64()
		}
		if c.roll {
			roll, _ := datasets.SwissRoll(c.n, 0, 1)
			var err error
			if x, err = datasets.Embed(roll, c.d, 0.01, 1); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		var m0 runtime.MemStats
		runtime.ReadMemStats(&m0)
		var peak uint64
		var wg sync.WaitGroup
		done := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapAlloc)
				select {
				case <-done:
					return
				default:
					time.Sleep(100 * time.Microsecond) // (ReadMemStats stops the world: not in a tight loop)
				}
			}
		}()
		opt := ApproxOptions{Refine: c.refine}
		_, _, err := KNNApprox(context.Background(), x, c.k, opt)
		close(done)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		grew := float64(peak) - float64(m0.HeapAlloc)
		est := float64(ApproxBytes(c.n, c.d, c.k, false, opt))
		t.Logf("%d×%d, k = %d, roll %v: peak heap growth %.1f MiB, ApproxBytes %.1f MiB", c.n, c.d, c.k, c.roll, grew/(1<<20), est/(1<<20))
		if grew < 0.5*est || grew > 1.3*est {
			t.Errorf("%d×%d, k = %d: the heap grew by %.1f MiB, the estimate is %.1f MiB", c.n, c.d, c.k, grew/(1<<20), est/(1<<20))
		}
	}
}
