// Package modelcache is the per-process cache of loaded models that
// manifold-beam's Project shares between the DoFn instances of a worker:
// a model is loaded once per key however many instances ask for it at
// once, and a failed load is forgotten so that a later call retries it (a
// transient storage error). It imports nothing of Apache Beam, so its
// concurrency is tested under the race detector in CI without compiling
// the Beam SDK with -race (build/ci-beam.sh).
package modelcache

import "sync"

// Cache maps keys (model paths) to values loaded once.
type Cache[T any] struct {
	mu sync.Mutex
	m  map[string]*entry[T]
}

type entry[T any] struct {
	once sync.Once
	v    T
	err  error
}

// Get returns the value of key, calling load for it if no call has
// succeeded or is in flight: concurrent callers of one key wait for the
// one load. When load fails, every caller waiting for it gets its error
// and the key is forgotten, so the next Get loads again.
func (c *Cache[T]) Get(key string, load func() (T, error)) (T, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*entry[T]{}
	}
	e := c.m[key]
	if e == nil {
		e = &entry[T]{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v, e.err = load() })
	if e.err != nil {
		c.mu.Lock()
		if c.m[key] == e {
			delete(c.m, key)
		}
		c.mu.Unlock()
	}
	return e.v, e.err
}
