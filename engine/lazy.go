package engine

import (
	"context"
	"sync"
)

// lazy is a value a model builds on first use (a Transform's index),
// with the context of the call that builds it: the build honours that
// call's cancellation, a build ended by its context is not kept (the next
// call builds again), any other result is kept for good, and a call that
// waits for another's build returns when its own context ends.
type lazy[T any] struct {
	mu      sync.Mutex
	running chan struct{} // closed when the build under way ends; nil: none
	done    bool          // val and err are final
	val     T
	err     error
}

// get returns the value, building it with build(ctx) when no call has yet
// built it for good.
func (l *lazy[T]) get(ctx context.Context, build func(context.Context) (T, error)) (T, error) {
	for {
		l.mu.Lock()
		if l.done {
			l.mu.Unlock()
			return l.val, l.err
		}
		if wait := l.running; wait != nil {
			l.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				var zero T
				return zero, ctx.Err()
			}
		}
		if err := ctx.Err(); err != nil {
			l.mu.Unlock()
			var zero T
			return zero, err
		}
		ch := make(chan struct{})
		l.running = ch
		l.mu.Unlock()
		return l.build(ctx, ch, build)
	}
}

// build runs one build and ends it (the waiters released even when build
// panics).
func (l *lazy[T]) build(ctx context.Context, ch chan struct{}, build func(context.Context) (T, error)) (v T, err error) {
	defer func() {
		l.mu.Lock()
		l.running = nil
		close(ch)
		l.mu.Unlock()
	}()
	v, err = build(ctx)
	if err == nil || ctx.Err() == nil {
		l.mu.Lock()
		l.val, l.err, l.done = v, err, true
		l.mu.Unlock()
	}
	return v, err
}

// set makes v the value, as if a call had built it (a fit that builds it
// itself).
func (l *lazy[T]) set(v T) {
	l.mu.Lock()
	l.val, l.err, l.done = v, nil, true
	l.mu.Unlock()
}
