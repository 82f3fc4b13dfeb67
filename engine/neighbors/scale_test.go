package neighbors_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// The approximate search of 600 USPS digits scaled by 2^±70 (past the
// float32 keys' range: squared norms of 1e42 overflow it, of 1e−42 sink
// into its subnormals) and 2^±460 finds the lists it finds for the
// unscaled digits, with the distances scaled (exact: a power of two) — for
// dense rows, sparse rows, and an index's queries (its random-projection
// tree and principal walk). Before, the dense search at 2^70 never ended
// (NaN keys: the first lists could not be filled) and ignored its context.
// Rows searched in place in float32 are not scaled: past the keys' range
// they are refused.
func TestApproxScale(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "dense, sparse and indexed searches at four scales (numerics, not concurrency)")
	x := usps(t, 600)
	const k = 10
	opt := neighbors.ApproxOptions{Seed: 3}
	base, _, err := neighbors.KNNApprox(ctx, x, k, opt)
	if err != nil {
		t.Fatal(err)
	}
	baseSparse, _, err := neighbors.KNNApproxSparse(ctx, sparse.FromDense(x), k, opt)
	if err != nil {
		t.Fatal(err)
	}
	ix, _, err := neighbors.NewIndex(ctx, x, k, opt)
	if err != nil {
		t.Fatal(err)
	}
	q := mat.DenseCopyOf(x.Slice(0, 50, 0, 256))
	baseQ, err := ix.Query(ctx, q, k, 0)
	if err != nil {
		t.Fatal(err)
	}
	same := func(name string, e int, got, want *neighbors.Result) {
		t.Helper()
		if !slices.Equal(got.Ind, want.Ind) {
			t.Errorf("%s at 2^%d: other neighbours than unscaled", name, e)
			return
		}
		for p, d := range got.Dist {
			if w := math.Ldexp(want.Dist[p], e); d != w {
				t.Errorf("%s at 2^%d: distance %d is %g, want %g", name, e, p, d, w)
				return
			}
		}
	}
	for _, e := range []int{70, -70, 460, -460} {
		var xs, qs mat.Dense
		xs.Scale(math.Ldexp(1, e), x)
		qs.Scale(math.Ldexp(1, e), q)
		got, _, err := neighbors.KNNApprox(ctx, &xs, k, opt)
		if err != nil {
			t.Fatalf("dense at 2^%d: %v", e, err)
		}
		same("dense", e, got, base)
		got, _, err = neighbors.KNNApproxSparse(ctx, sparse.FromDense(&xs), k, opt)
		if err != nil {
			t.Fatalf("sparse at 2^%d: %v", e, err)
		}
		same("sparse", e, got, baseSparse)
		ixs, _, err := neighbors.NewIndex(ctx, &xs, k, opt)
		if err != nil {
			t.Fatalf("index at 2^%d: %v", e, err)
		}
		got, err = ixs.Query(ctx, &qs, k, 0)
		if err != nil {
			t.Fatalf("query at 2^%d: %v", e, err)
		}
		same("index query", e, got, baseQ)
	}
	big := make([]float32, 600*256)
	for i := range big {
		big[i] = float32(math.Ldexp(x.RawMatrix().Data[i], 70))
	}
	if _, _, err := neighbors.KNNApprox32(ctx, big, 256, k, opt); !errors.Is(err, neighbors.ErrInput) {
		t.Errorf("float32 rows in place at 2^70: error %v, want ErrInput", err)
	}
}

// Rows and queries whose squared distances would overflow (values past
// √(MaxFloat64/(4·D))) are refused with ErrInput by every search, exact
// and approximate, dense and sparse, and by an index's queries; before,
// the exact searches returned +Inf distances with lists decided by ties,
// or panicked on a worker goroutine (killing the process) when no key was
// below +Inf. Rows within the limit — the digits times the largest power
// of two it allows — give the unscaled digits' lists and exactly scaled,
// finite distances.
func TestExactValueLimit(t *testing.T) {
	t.Parallel()
	x := usps(t, 300)
	_, d := x.Dims()
	const k = 10
	limit := math.Sqrt(math.MaxFloat64 / (4 * float64(d)))
	_, e := math.Frexp(limit)
	within := math.Ldexp(1, e-1) // the digits are in [−1, 1]
	base, err := neighbors.KNN(ctx, x, k, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var big mat.Dense
	big.Scale(within, x)
	got, err := neighbors.KNN(ctx, &big, k, neighbors.Options{})
	if err != nil {
		t.Fatalf("rows within the limit (×2^%d): %v", e-1, err)
	}
	if !slices.Equal(got.Ind, base.Ind) {
		t.Errorf("rows ×2^%d: lists differ from the unscaled rows'", e-1)
	}
	for i, v := range got.Dist {
		if v != base.Dist[i]*within {
			t.Fatalf("rows ×2^%d: distance %d is %v, want %v", e-1, i, v, base.Dist[i]*within)
		}
	}
	for _, s := range []float64{2 * within * 1.01, 1e200, 1.7e308} {
		var far mat.Dense
		far.Scale(s, x)
		q := far.Slice(0, 5, 0, d)
		sq := sparse.FromDense(mat.DenseCopyOf(q))
		index, _, err := neighbors.NewIndex(ctx, x, k, neighbors.ApproxOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		searcher, err := neighbors.NewSearcher(x, neighbors.Options{})
		if err != nil {
			t.Fatal(err)
		}
		calls := map[string]func() error{
			"KNN":         func() error { _, err := neighbors.KNN(ctx, &far, k, neighbors.Options{}); return err },
			"KNNQuery":    func() error { _, err := neighbors.KNNQuery(ctx, x, q, k, neighbors.Options{}); return err },
			"Radius":      func() error { _, err := neighbors.Radius(ctx, &far, s, neighbors.Options{}); return err },
			"RadiusQuery": func() error { _, err := neighbors.RadiusQuery(ctx, x, q, 1, neighbors.Options{}); return err },
			"KNNSparse": func() error {
				_, err := neighbors.KNNSparse(ctx, sparse.FromDense(&far), k, neighbors.Options{})
				return err
			},
			"KNNQuerySparse": func() error {
				_, err := neighbors.KNNQuerySparse(ctx, sparse.FromDense(x), sq, k, neighbors.Options{})
				return err
			},
			"Searcher.KNN": func() error { _, err := searcher.KNN(ctx, q, k); return err },
			"KNNApprox":    func() error { _, _, err := neighbors.KNNApprox(ctx, &far, k, neighbors.ApproxOptions{}); return err },
			"Index.Query":  func() error { _, err := index.Query(ctx, q, k, 0); return err },
			"Index.QueryRow": func() error {
				return index.QueryRow(ctx, far.RawRowView(0), make([]int, k), make([]float64, k), 0)
			},
			"Graph": func() error {
				_, err := neighbors.Graph(ctx, &far, neighbors.GraphOptions{K: k})
				return err
			},
		}
		for name, call := range calls {
			if err := call(); !errors.Is(err, neighbors.ErrInput) {
				t.Errorf("%s of values ×%g: %v, want ErrInput", name, s, err)
			}
		}
	}
}
