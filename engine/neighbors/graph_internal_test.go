package neighbors

import (
	"context"
	"errors"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// The directed graph of kNN lists built straight into CSR rows equals the
// one the lists' triplets give through a COO (indices, order and values),
// on points with ties and duplicates, exact and approximate lists; a list
// that names a point twice is left to the COO.
func TestListsCSRMatchesCOO(t *testing.T) {
	ctx := context.Background()
	n := 600
	x := mat.NewDense(n, 3, nil)
	for i := range n {
		x.Set(i, 0, float64(i%7))     // ties on a grid
		x.Set(i, 1, float64((i/7)%9)) // and duplicates: 63 distinct points
		x.Set(i, 2, float64(i%2)*0.5+1e-3*float64(i%5))
	}
	exact, err := KNN(ctx, x, 12, Options{})
	if err != nil {
		t.Fatal(err)
	}
	approx, _, err := KNNApprox(ctx, x, 12, ApproxOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	viaCOO := func(res *Result) *sparse.CSR {
		coo := sparse.NewCOO(res.Len(), res.Len(), 0)
		for i := range res.Len() {
			js, ds := res.Row(i)
			for c, j := range js {
				coo.Add(i, j, ds[c])
			}
		}
		return coo.ToCSR()
	}
	for name, res := range map[string]*Result{"exact": exact, "approximate": approx} {
		got, err := listsCSR(ctx, res)
		want := viaCOO(res)
		if err != nil || got == nil {
			t.Fatalf("%s: no CSR", name)
		}
		if !slices.Equal(got.RowPtr(), want.RowPtr()) || !slices.Equal(got.ColIdx(), want.ColIdx()) || !slices.Equal(got.Values(), want.Values()) {
			t.Errorf("%s: the lists' CSR differs from the COO's", name)
		}
	}
	twice := &Result{Ptr: []int{0, 2, 3, 4}, Ind: []int{1, 1, 0, 1}, Dist: []float64{1, 1, 1, 2}}
	if a, err := listsCSR(ctx, twice); a != nil || err != nil {
		t.Errorf("a list naming a point twice: got a CSR or %v, want nil", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := listsCSR(cancelled, exact); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}
