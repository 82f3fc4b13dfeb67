package engine_test

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/enginetest"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// goroutinesSettle waits until no more goroutines run than before (those
// of a finished fit may take a moment to exit after it returned) and
// fails the test, listing them, if some are still there after a second.
func goroutinesSettle(t *testing.T, before int, what string) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= before {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:runtime.Stack(buf, true)]
			var ours []string
			for _, g := range strings.Split(string(buf), "\n\n") {
				if strings.Contains(g, "manifoldlab/manifold") && !strings.Contains(g, "testing.tRunner") {
					ours = append(ours, g)
				}
			}
			t.Errorf("%s: %d goroutines still running, %d before:\n%s", what, n, before, strings.Join(ours, "\n\n"))
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// One model of every method maps points from 16 goroutines at once, each
// getting exactly what a lone call gets (run it under -race); no
// goroutine outlives a Fit or a Transform.
func TestConcurrentTransform(t *testing.T) {
	ctx := context.Background()
	n := 200
	if testmode.Quick() {
		n = 120
	}
	x, labels := engine.RelData(n, 5, 8)
	q := mat.DenseCopyOf(x.Slice(0, 30, 0, 5))
	for i := 0; i < 30; i++ {
		for j := 0; j < 5; j++ {
			q.Set(i, j, q.At(i, j)+0.05*float64((i+j)%3-1))
		}
	}
	for _, m := range enginetest.Methods {
		before := runtime.NumGoroutine()
		mod, err := relFit(ctx, m, x, enginetest.Settings{}, labels)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		goroutinesSettle(t, before, m.Name+" fit")
		want, err := mod.Transform(ctx, q)
		if err != nil {
			t.Fatalf("%s transform: %v", m.Name, err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 16)
		got := make([]*mat.Dense, 16)
		for g := 0; g < 16; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[g], errs[g] = mod.Transform(ctx, q)
			}()
		}
		wg.Wait()
		for g := range got {
			if errs[g] != nil {
				t.Errorf("%s, goroutine %d: %v", m.Name, g, errs[g])
			} else if !mat.Equal(got[g], want) {
				t.Errorf("%s, goroutine %d: a concurrent transform differs from a lone one", m.Name, g)
			}
		}
		if !mat.Equal(mod.Embedding(), mod.Embedding()) {
			t.Errorf("%s: the embedding changed", m.Name)
		}
		goroutinesSettle(t, before, m.Name+" transforms")
	}
}
