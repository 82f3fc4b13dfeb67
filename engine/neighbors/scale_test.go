package neighbors_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/neighbors"
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
