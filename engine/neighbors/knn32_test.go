package neighbors

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/internal/testmode"
)

// TestKNNApprox32: on rows that float32 holds exactly, KNNApprox32 gives
// KNNApprox's lists and distances (the same search on the same keys) and
// leaves the caller's rows as they were, also when it is cancelled; bad
// input is refused.
func TestKNNApprox32(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	n, d, k := 6000, 12, 10 // above the 4096 rows from which the rows are reordered
	x32 := make([]float32, n*d)
	for i := range x32 {
		x32[i] = float32(math.Round(rng.NormFloat64()*64) / 64)
	}
	copy(x32[100*d:101*d], x32[7*d:8*d]) // a duplicate row
	orig := slices.Clone(x32)
	x := mat.NewDense(n, d, nil)
	for i, v := range x32 {
		x.RawMatrix().Data[i] = float64(v)
	}
	opt := ApproxOptions{Seed: 3}
	want, _, err := KNNApprox(ctx, x, k, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := KNNApprox32(ctx, x32, d, k, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Ind, want.Ind) || !slices.Equal(got.Ptr, want.Ptr) {
		t.Fatal("KNNApprox32's lists differ from KNNApprox's")
	}
	for i, v := range got.Dist {
		if math.Abs(v-want.Dist[i]) > 1e-12*max(1, v) {
			t.Fatalf("distance %d: %v, KNNApprox %v", i, v, want.Dist[i])
		}
	}
	if !slices.Equal(x32, orig) {
		t.Fatal("the rows were not put back")
	}
	// Cancelled at once, and (usually) in the middle of the iterations.
	for _, after := range []time.Duration{0, 30 * time.Millisecond} {
		cctx, cancel := context.WithTimeout(ctx, after)
		_, _, err := KNNApprox32(cctx, x32, d, k, opt)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("cancelled after %v: %v", after, err)
		}
		if !slices.Equal(x32, orig) {
			t.Fatalf("the rows were not put back after a cancellation after %v", after)
		}
	}
	for name, call := range map[string]func() error{
		"ragged": func() error { _, _, err := KNNApprox32(ctx, x32[:d*10+1], d, 3, opt); return err },
		"cosine": func() error {
			_, _, err := KNNApprox32(ctx, x32, d, 3, ApproxOptions{Metric: Cosine})
			return err
		},
		"k ≥ n": func() error { _, _, err := KNNApprox32(ctx, x32[:5*d], d, 5, opt); return err },
		"NaN": func() error {
			y := slices.Clone(x32[:50*d])
			y[17] = float32(math.NaN())
			_, _, err := KNNApprox32(ctx, y, d, 3, opt)
			return err
		},
	} {
		if err := call(); !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v, want ErrInput", name, err)
		}
	}
}

// TestSampledRecall32: over rows that float32 holds exactly (duplicates
// among them, and more rows than one block of the widened search), the
// float32 measure gives SampledRecall's estimate, and its exact lists
// equal a float64 brute-force search's, ties by index across the blocks.
func TestSampledRecall32(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "float32 sampled recall against float64 brute force over three blocks (numerics; engine's TestKNNGraphSearch32 runs the float32 search under -race)")
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	n, d, k := 2*recallBlock+500, 8, 10
	x32 := make([]float32, n*d)
	for i := range x32 {
		x32[i] = float32(math.Round(rng.NormFloat64()*8) / 8)
	}
	for _, p := range [][2]int{{3, recallBlock + 3}, {5, 2*recallBlock + 7}, {11, 12}} {
		copy(x32[p[1]*d:(p[1]+1)*d], x32[p[0]*d:(p[0]+1)*d])
	}
	x := mat.NewDense(n, d, nil)
	for i, v := range x32 {
		x.RawMatrix().Data[i] = float64(v)
	}
	res, _, err := KNNApprox(ctx, x, k, ApproxOptions{Seed: 1, Trees: 1, MaxIter: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, sample := range []int{300, 2000} {
		want, err := SampledRecall(ctx, x, res, sample, 9, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := SampledRecall32(ctx, x32, d, res, sample, 9, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("sample %d: %+v (float64 rows: %+v)", sample, got, want)
		if got != want || got.Recall >= 1 {
			t.Fatalf("sample %d: SampledRecall32 %+v, SampledRecall %+v", sample, got, want)
		}
	}
	// The merged lists themselves, against one search over all rows.
	idx := []int{3, 5, 11, recallBlock + 3, n - 1}
	q := mat.NewDense(len(idx), d, nil)
	for r, i := range idx {
		q.SetRow(r, x.RawRowView(i))
	}
	want, err := KNNQuery(ctx, x, q, k+1, Options{Algorithm: Brute})
	if err != nil {
		t.Fatal(err)
	}
	got := &Result{Ptr: make([]int, len(idx)+1)}
	blk := blas64.General{Cols: d, Stride: d, Data: make([]float64, recallBlock*d)}
	for lo := 0; lo < n; lo += recallBlock {
		blk.Rows = min(n, lo+recallBlock) - lo
		widen32(blk, func(r int) []float32 { return x32[(lo+r)*d : (lo+r+1)*d] })
		part, err := knnDense(ctx, blk, q.RawMatrix(), k+1, false, Options{Algorithm: Brute})
		if err != nil {
			t.Fatal(err)
		}
		got = mergeLists(got, part, lo, k+1)
	}
	if !slices.Equal(got.Ind, want.Ind) || !slices.Equal(got.Dist, want.Dist) {
		t.Fatalf("merged lists %v\nwant %v", got.Ind, want.Ind)
	}
	if _, err := SampledRecall32(ctx, x32[:len(x32)-1], d, res, 10, 0, Options{}); !errors.Is(err, ErrInput) {
		t.Fatalf("ragged rows: %v", err)
	}
	if _, err := SampledRecall32(ctx, x32, d, res, 10, 0, Options{Metric: Cosine}); !errors.Is(err, ErrInput) {
		t.Fatalf("cosine: %v", err)
	}
}
