package modelcache

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// TestGetConcurrent: 16 goroutines ask for 4 keys at once, 50 times each:
// every key is loaded exactly once and every caller gets its value.
func TestGetConcurrent(t *testing.T) {
	var c Cache[string]
	var loads [4]atomic.Int32
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				k := (g + i) % 4
				v, err := c.Get(fmt.Sprint("m", k), func() (string, error) {
					loads[k].Add(1)
					return fmt.Sprint("model ", k), nil
				})
				if err != nil || v != fmt.Sprint("model ", k) {
					t.Errorf("key %d: %q, %v", k, v, err)
				}
			}
		}()
	}
	wg.Wait()
	for k := range loads {
		if n := loads[k].Load(); n != 1 {
			t.Errorf("key %d loaded %d times", k, n)
		}
	}
}

// TestGetRetriesAfterFailure: callers of a failing load all get its
// error, the next Get loads again and its success is kept.
func TestGetRetriesAfterFailure(t *testing.T) {
	var c Cache[int]
	boom := errors.New("transient")
	var calls atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[g] = c.Get("m", func() (int, error) {
				calls.Add(1)
				<-release
				return 0, boom
			})
		}()
	}
	close(release)
	wg.Wait()
	for g, err := range errs {
		if !errors.Is(err, boom) {
			t.Errorf("caller %d: %v, want the load's error", g, err)
		}
	}
	first := calls.Load()
	v, err := c.Get("m", func() (int, error) { calls.Add(1); return 7, nil })
	if err != nil || v != 7 {
		t.Fatalf("retry: %d, %v", v, err)
	}
	v, err = c.Get("m", func() (int, error) { calls.Add(1); return 8, nil })
	if err != nil || v != 7 || calls.Load() != first+1 {
		t.Errorf("after a success: %d, %v, %d loads (want 7 and one more load than %d)", v, err, calls.Load(), first)
	}
}
