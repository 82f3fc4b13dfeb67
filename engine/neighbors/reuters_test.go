package neighbors_test

import (
	"math"
	"os"
	"testing"

	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

const reuters = "../../../shared/data/reuters21578/reuters21578_X.mtx.gz"

// The Reuters-21578 term-frequency matrix (shared/data): read, TF-IDF
// weighted, and the cosine neighbours of a sample of documents checked
// against the naive search over all documents.
func TestReutersCosine(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(reuters); err != nil {
		t.Skipf("Reuters data not found at %s (shared/data is absent): %v", reuters, err)
	}
	a, err := sparse.ReadMatrixMarketFile(reuters)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := a.Dims(); r != 8293 || c != 18933 || a.NNZ() != 389455 {
		t.Fatalf("read %d×%d with %d entries, meta.json says 8293×18933 with 389455", r, c, a.NNZ())
	}
	x, _ := a.TFIDF()
	rows := []int{0, 1, 17, 4000, 8292}
	all := make([]int, 18933)
	for j := range all {
		all[j] = j
	}
	q := x.Submatrix(rows, all)
	res, err := neighbors.KNNQuerySparse(ctx, x, q, 6, neighbors.Options{Metric: neighbors.Cosine})
	if err != nil {
		t.Fatal(err)
	}
	for r, i := range rows {
		// Naive: every document's cosine distance to document i, from the
		// rows merged term by term.
		best := make([]pair, 0, 8293)
		for j := 0; j < 8293; j++ {
			best = append(best, pair{sparseCosine(q, r, x, j), j})
		}
		sortPairsRef(best)
		js, ds := res.Row(r)
		for c := range js {
			if js[c] != best[c].j || abs(ds[c]-best[c].d) > 1e-12 {
				t.Fatalf("document %d, neighbour %d: (%d, %v), naive (%d, %v)", i, c, js[c], ds[c], best[c].j, best[c].d)
			}
		}
		if js[0] != i || ds[0] > 1e-12 {
			t.Fatalf("document %d is not its own nearest (a query is not excluded)", i)
		}
	}
}

func sparseCosine(a *sparse.CSR, i int, b *sparse.CSR, j int) float64 {
	ac, av := a.Row(i)
	bc, bv := b.Row(j)
	var dot, na, nb float64
	for _, v := range av {
		na += v * v
	}
	for _, v := range bv {
		nb += v * v
	}
	for p, q := 0, 0; p < len(ac) && q < len(bc); {
		switch {
		case ac[p] < bc[q]:
			p++
		case ac[p] > bc[q]:
			q++
		default:
			dot += av[p] * bv[q]
			p++
			q++
		}
	}
	if na == 0 || nb == 0 {
		return 1
	}
	return max(0, 1-dot/math.Sqrt(na*nb))
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
