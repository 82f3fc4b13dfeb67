package neighbors_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

var ctx = context.Background()

// points returns n points in dim dimensions. With grid, coordinates are
// small integers, so many distances tie exactly and some points repeat.
func points(n, dim int, grid bool, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n, dim, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < dim; j++ {
			if grid {
				x.Set(i, j, float64(rng.IntN(4)))
			} else {
				x.Set(i, j, rng.NormFloat64())
			}
		}
	}
	if !grid && n > 10 {
		// Exact duplicates.
		for _, p := range [][2]int{{3, 7}, {4, 7}, {n - 1, 0}} {
			x.SetRow(p[0], mat.Row(nil, p[1], x))
		}
	}
	return x
}

type pair struct {
	d float64
	j int
}

// reference is the naive search: every distance computed directly, a full
// sort by (distance, index).
func reference(data, queries mat.Matrix, self bool, dist func(a, b []float64) float64) [][]pair {
	n, _ := data.Dims()
	m, _ := queries.Dims()
	out := make([][]pair, m)
	for i := 0; i < m; i++ {
		q := mat.Row(nil, i, queries)
		for j := 0; j < n; j++ {
			if self && i == j {
				continue
			}
			out[i] = append(out[i], pair{dist(q, mat.Row(nil, j, data)), j})
		}
		sortPairsRef(out[i])
	}
	return out
}

func sortPairsRef(p []pair) {
	sort.Slice(p, func(a, b int) bool {
		return p[a].d < p[b].d || (p[a].d == p[b].d && p[a].j < p[b].j)
	})
}

func euclid(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		e := a[k] - b[k]
		s += e * e
	}
	return math.Sqrt(s)
}

func cosineDist(a, b []float64) float64 {
	var dot, na, nb float64
	for k := range a {
		dot += a[k] * b[k]
		na += a[k] * a[k]
		nb += b[k] * b[k]
	}
	if na == 0 || nb == 0 {
		return 1
	}
	return math.Max(0, 1-dot/math.Sqrt(na*nb))
}

func checkKNN(t *testing.T, name string, got *neighbors.Result, want [][]pair, k int, tol float64) {
	t.Helper()
	if got.Len() != len(want) {
		t.Fatalf("%s: %d rows, want %d", name, got.Len(), len(want))
	}
	for i := range want {
		js, ds := got.Row(i)
		if len(js) != k {
			t.Fatalf("%s: row %d has %d neighbours, want %d", name, i, len(js), k)
		}
		for c := 0; c < k; c++ {
			w := want[i][c]
			if js[c] != w.j || math.Abs(ds[c]-w.d) > tol*math.Max(1, w.d) {
				t.Fatalf("%s: row %d, neighbour %d: (%d, %v), want (%d, %v)", name, i, c, js[c], ds[c], w.j, w.d)
			}
		}
	}
}

func checkRadius(t *testing.T, name string, got *neighbors.Result, want [][]pair, eps, tol float64) {
	t.Helper()
	for i := range want {
		js, ds := got.Row(i)
		var w []pair
		for _, p := range want[i] {
			if p.d <= eps {
				w = append(w, p)
			}
		}
		if len(js) != len(w) {
			t.Fatalf("%s: row %d has %d within ε, want %d", name, i, len(js), len(w))
		}
		for c := range w {
			if js[c] != w[c].j || math.Abs(ds[c]-w[c].d) > tol*math.Max(1, w[c].d) {
				t.Fatalf("%s: row %d, #%d: (%d, %v), want (%d, %v)", name, i, c, js[c], ds[c], w[c].j, w[c].d)
			}
		}
	}
}

var algorithms = []neighbors.Algorithm{neighbors.Auto, neighbors.KDTree, neighbors.Brute}

// kNN and radius search equal the naive search, with ties and duplicates,
// for every method; query sets too.
func TestKNNMatchesBruteForce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, dim int
		grid   bool
	}{{1, 2, false}, {2, 1, false}, {50, 1, false}, {300, 2, true}, {400, 3, false}, {300, 5, true}, {200, 20, false}, {2600, 3, false}} {
		// n = 2600 spans two column blocks of the brute force: fewer cases.
		if tc.n > 2048 && testmode.Quick() {
			continue // -short (the OpenBLAS and race runs): the full pure-Go run has this case
		}
		ks, epss := []int{0, 1, 5, 12}, []float64{0, 1, 1.5, 2}
		if tc.n > 2048 {
			ks, epss = []int{12}, []float64{0.3}
		}
		x := points(tc.n, tc.dim, tc.grid, uint64(tc.n*tc.dim))
		want := reference(x, x, true, euclid)
		q := points(37, tc.dim, tc.grid, 99)
		wantQ := reference(x, q, false, euclid)
		for _, alg := range algorithms {
			opt := neighbors.Options{Algorithm: alg, LeafSize: 5}
			for _, k := range ks {
				if k >= tc.n {
					continue
				}
				res, err := neighbors.KNN(ctx, x, k, opt)
				if err != nil {
					t.Fatal(err)
				}
				checkKNN(t, alg.String()+" self", res, want, k, 1e-13)
				resQ, err := neighbors.KNNQuery(ctx, x, q, k, opt)
				if err != nil {
					t.Fatal(err)
				}
				checkKNN(t, alg.String()+" query", resQ, wantQ, k, 1e-13)
			}
			for _, eps := range epss {
				res, err := neighbors.Radius(ctx, x, eps, opt)
				if err != nil {
					t.Fatal(err)
				}
				checkRadius(t, alg.String()+" radius", res, want, eps, 1e-13)
				resQ, err := neighbors.RadiusQuery(ctx, x, q, eps, opt)
				if err != nil {
					t.Fatal(err)
				}
				checkRadius(t, alg.String()+" radius query", resQ, wantQ, eps, 1e-13)
			}
		}
	}
}

// Many identical points: a tree leaf that cannot be split, and every
// neighbour at distance 0, ties broken by index.
func TestAllDuplicates(t *testing.T) {
	x := mat.NewDense(100, 3, nil)
	for _, alg := range algorithms {
		res, err := neighbors.KNN(ctx, x, 4, neighbors.Options{Algorithm: alg})
		if err != nil {
			t.Fatal(err)
		}
		js, ds := res.Row(50)
		if js[0] != 0 || js[3] != 3 || ds[3] != 0 {
			t.Fatalf("%v: %v %v", alg, js, ds)
		}
		js, _ = res.Row(0)
		if js[0] != 1 {
			t.Fatalf("%v: self not excluded: %v", alg, js)
		}
	}
}

func TestCosine(t *testing.T) {
	t.Parallel()
	x := points(120, 6, false, 5)
	x.SetRow(10, make([]float64, 6)) // a zero row: distance 1 to all
	want := reference(x, x, true, cosineDist)
	res, err := neighbors.KNN(ctx, x, 7, neighbors.Options{Metric: neighbors.Cosine})
	if err != nil {
		t.Fatal(err)
	}
	checkKNN(t, "dense cosine", res, want, 7, 1e-12)
	// More points than a tile of the symmetric brute force.
	big := points(1300, 4, false, 6)
	big.SetRow(1200, make([]float64, 4))
	res, err = neighbors.KNN(ctx, big, 3, neighbors.Options{Metric: neighbors.Cosine})
	if err != nil {
		t.Fatal(err)
	}
	checkKNN(t, "dense cosine, n = 1300", res, reference(big, big, true, cosineDist), 3, 1e-12)
	// Sparse rows, both metrics.
	s := sparse.FromDense(sparsify(x))
	sd := s.ToDense()
	for _, m := range []neighbors.Metric{neighbors.Cosine, neighbors.Euclidean} {
		dist := euclid
		if m == neighbors.Cosine {
			dist = cosineDist
		}
		want := reference(sd, sd, true, dist)
		res, err := neighbors.KNNSparse(ctx, s, 7, neighbors.Options{Metric: m})
		if err != nil {
			t.Fatal(err)
		}
		checkKNN(t, "sparse "+m.String(), res, want, 7, 1e-12)
		rr, err := neighbors.RadiusSparse(ctx, s, 0.8, neighbors.Options{Metric: m})
		if err != nil {
			t.Fatal(err)
		}
		checkRadius(t, "sparse radius "+m.String(), rr, want, 0.8, 1e-12)
		q := sparse.FromDense(sparsify(points(9, 6, false, 6)))
		rq, err := neighbors.KNNQuerySparse(ctx, s, q, 3, neighbors.Options{Metric: m})
		if err != nil {
			t.Fatal(err)
		}
		checkKNN(t, "sparse query "+m.String(), rq, reference(sd, q.ToDense(), false, dist), 3, 1e-12)
	}
}

// sparsify zeroes the negative entries.
func sparsify(x *mat.Dense) *mat.Dense {
	r, c := x.Dims()
	y := mat.NewDense(r, c, nil)
	y.Apply(func(_, _ int, v float64) float64 { return math.Max(0, v) }, x)
	return y
}

func TestSearchErrors(t *testing.T) {
	x := points(10, 2, false, 1)
	bad := mat.DenseCopyOf(x)
	bad.Set(3, 1, math.NaN())
	for name, err := range map[string]error{
		"k = n":      second(neighbors.KNN(ctx, x, 10, neighbors.Options{})),
		"k < 0":      second(neighbors.KNN(ctx, x, -1, neighbors.Options{})),
		"NaN":        second(neighbors.KNN(ctx, bad, 2, neighbors.Options{})),
		"query NaN":  second(neighbors.KNNQuery(ctx, x, bad, 2, neighbors.Options{})),
		"query dims": second(neighbors.KNNQuery(ctx, x, points(3, 3, false, 1), 2, neighbors.Options{})),
		"ε < 0":      second(neighbors.Radius(ctx, x, -1, neighbors.Options{})),
		"ε NaN":      second(neighbors.Radius(ctx, x, math.NaN(), neighbors.Options{})),
	} {
		if !errors.Is(err, neighbors.ErrInput) {
			t.Errorf("%s: %v", name, err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	for _, alg := range algorithms[1:] {
		if _, err := neighbors.KNN(cctx, points(3000, 3, false, 1), 3, neighbors.Options{Algorithm: alg}); !errors.Is(err, context.Canceled) {
			t.Errorf("%v cancelled: %v", alg, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// Options.Flam prices the method choose picks: the k-d tree's queries and
// build in low dimension, brute force's m·n·D in high dimension.
func TestOptionsFlam(t *testing.T) {
	var o neighbors.Options
	n := 100000
	if got, want := o.Flam(n, n, 3, 10), flam.KNNTreeQueries(n, 3, 10, 16)+flam.KNNTreeBuild(n, 3); got != want {
		t.Errorf("3-D: Flam %g, want the tree's %g", got, want)
	}
	if got, want := o.Flam(n, n, 3, 10), flam.KNNBrute(n, n, 3); got >= want/100 {
		t.Errorf("3-D: Flam %g is not far below brute force's %g", got, want)
	}
	if got, want := o.Flam(5000, 5000, 784, 10), flam.KNNBrute(5000, 5000, 784); got != want {
		t.Errorf("784-D: Flam %g, want brute force's %g", got, want)
	}
	if got, want := (neighbors.Options{Algorithm: neighbors.Brute}).Flam(n, n, 3, 10), flam.KNNBrute(n, n, 3); got != want {
		t.Errorf("forced brute force: Flam %g, want %g", got, want)
	}
}

// TestKNNDuplicateTies: rows repeated three times (as duplicated images in
// a face set) are ties, which must be broken by the smaller index whatever
// the rounding of the fast Gemm keys (which an optimised BLAS gives
// differently to identical rows at different places of a tile). Checked
// against a direct reference, for the self search (both the blocked and
// the symmetric tiling) and for queries.
func TestKNNDuplicateTies(t *testing.T) {
	t.Parallel()
	for _, distinct := range []int{300, 400} { // 900 rows: blocked tiles; 1200: symmetric tiles
		base := gaussian(distinct, 40, 5)
		n := 3 * distinct
		x := mat.NewDense(n, 40, nil)
		for i := 0; i < n; i++ {
			x.SetRow(i, base.RawRowView((i*7)%distinct))
		}
		q := gaussian(50, 40, 6)
		for i := 0; i < 25; i++ {
			q.SetRow(i, base.RawRowView(i))
		}
		const k = 7
		ref := func(p []float64, skip int) []int {
			type pair struct {
				d float64
				j int
			}
			var ps []pair
			for j := 0; j < n; j++ {
				if j == skip {
					continue
				}
				s := 0.0
				for c, v := range x.RawRowView(j) {
					s += (p[c] - v) * (p[c] - v)
				}
				ps = append(ps, pair{s, j})
			}
			sort.Slice(ps, func(a, b int) bool { return ps[a].d < ps[b].d || (ps[a].d == ps[b].d && ps[a].j < ps[b].j) })
			js := make([]int, k)
			for c := range js {
				js[c] = ps[c].j
			}
			return js
		}
		self, err := neighbors.KNN(context.Background(), x, k, neighbors.Options{Algorithm: neighbors.Brute})
		if err != nil {
			t.Fatal(err)
		}
		step := 1
		if testmode.Quick() {
			step = 5 // -short (the race step): the search runs in full, the reference (a sort a row) on every fifth row
		}
		for i := 0; i < n; i += step {
			if got, want := self.Ind[i*k:(i+1)*k], ref(x.RawRowView(i), i); !equalInts(got, want) {
				t.Fatalf("n=%d self row %d: %v, want %v", n, i, got, want)
			}
		}
		nq, err := neighbors.KNNQuery(context.Background(), x, q, k, neighbors.Options{Algorithm: neighbors.Brute})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 50; i++ {
			if got, want := nq.Ind[i*k:(i+1)*k], ref(q.RawRowView(i), -1); !equalInts(got, want) {
				t.Fatalf("n=%d query %d: %v, want %v", n, i, got, want)
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
