package neighbors

import (
	"context"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestApproxBytes: the estimate of NN-descent's memory against the peak
// heap KNNApprox adds, sampled while it runs with GOGC = 10 (so that the
// heap holds little garbage, as the engine's memory budgets are measured):
// within [0.7, 1.3] × the estimate.
func TestApproxBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two 20,000-point graphs")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	for _, c := range []struct{ n, d, k int }{{20000, 64, 10}, {20000, 128, 15}} {
		rng := rand.New(rand.NewPCG(1, 2))
		x := mat.NewDense(c.n, c.d, nil)
		for i := range x.RawMatrix().Data {
			x.RawMatrix().Data[i] = rng.NormFloat64()
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
					runtime.Gosched()
				}
			}
		}()
		_, _, err := KNNApprox(context.Background(), x, c.k, ApproxOptions{})
		close(done)
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		grew := float64(peak) - float64(m0.HeapAlloc)
		est := float64(ApproxBytes(c.n, c.d, c.k, false, ApproxOptions{}))
		t.Logf("%d×%d, k = %d: peak heap growth %.1f MiB, ApproxBytes %.1f MiB", c.n, c.d, c.k, grew/(1<<20), est/(1<<20))
		if grew < 0.7*est || grew > 1.3*est {
			t.Errorf("%d×%d, k = %d: the heap grew by %.1f MiB, the estimate is %.1f MiB", c.n, c.d, c.k, grew/(1<<20), est/(1<<20))
		}
	}
}
