package neighbors

import (
	"context"
	"sync/atomic"
)

type progressKey struct{}

// WithProgress returns a context carrying rows: the searches of this
// package that receive it add to rows the query rows they have finished
// (an NN-descent search adds the n rows of each iteration), so that a
// caller can show a search's progress from another goroutine. ProgressTotal
// is what a whole search adds.
func WithProgress(ctx context.Context, rows *atomic.Int64) context.Context {
	return context.WithValue(ctx, progressKey{}, rows)
}

// ProgressTotal is what a search of n query rows with opt adds to the
// counter of WithProgress when it runs to the end: n, or n per iteration
// of the budget for NN-descent (which may stop earlier, when converged).
func ProgressTotal(opt Options, n int) int64 {
	if opt.Algorithm == NNDescent {
		return int64(n) * int64(opt.Approx.maxIter(n))
	}
	return int64(n)
}

// addProgress adds done rows to ctx's counter, if it carries one.
func addProgress(ctx context.Context, done int) {
	if c, _ := ctx.Value(progressKey{}).(*atomic.Int64); c != nil {
		c.Add(int64(done))
	}
}
