package neighbors_test

import (
	"context"
	"errors"
	"math"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

const uspsNPY = "../../../shared/data/usps9298/usps9298_X.npy"

// usps returns the first n rows of the USPS digits, or skips.
func usps(t testing.TB, n int) *mat.Dense {
	t.Helper()
	if _, err := os.Stat(uspsNPY); err != nil {
		t.Skipf("USPS data not found at %s (shared/data is absent): %v", uspsNPY, err)
	}
	m, err := dataio.ReadMatrixFile(uspsNPY)
	if err != nil {
		t.Fatal(err)
	}
	d := mat.DenseCopyOf(m)
	return mat.DenseCopyOf(d.Slice(0, n, 0, 256))
}

func exactKNN(t testing.TB, x mat.Matrix, k int, metric neighbors.Metric) *neighbors.Result {
	t.Helper()
	res, err := neighbors.KNN(ctx, x, k, neighbors.Options{Metric: metric, Algorithm: neighbors.Brute})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkLists checks that every list has k distinct neighbours, never the
// point itself, sorted, with the distances the exact search reports.
func checkLists(t *testing.T, name string, x *mat.Dense, res *neighbors.Result, k int, dist func(a, b []float64) float64) {
	t.Helper()
	n, _ := x.Dims()
	for i := 0; i < n; i++ {
		js, ds := res.Row(i)
		if len(js) != k {
			t.Fatalf("%s: point %d has %d neighbours, want %d", name, i, len(js), k)
		}
		seen := map[int]bool{}
		for c, j := range js {
			if j == i || j < 0 || j >= n || seen[j] {
				t.Fatalf("%s: point %d: bad neighbour list %v", name, i, js)
			}
			seen[j] = true
			if c > 0 && (ds[c] < ds[c-1] || (ds[c] == ds[c-1] && j < js[c-1])) {
				t.Fatalf("%s: point %d: list not sorted: %v %v", name, i, js, ds)
			}
			if i%97 == 0 {
				if want := dist(mat.Row(nil, i, x), mat.Row(nil, j, x)); math.Abs(ds[c]-want) > 1e-9*(1+want) {
					t.Fatalf("%s: d(%d, %d) = %v, direct %v", name, i, j, ds[c], want)
				}
			}
		}
	}
}

// roll is a noisy swiss roll embedded in dim dimensions by a random
// orthogonal map, with exact duplicates: data of many features and a low
// intrinsic dimension, as images are.
func roll(n, dim int, seed uint64) *mat.Dense {
	x, _ := datasets.SwissRoll(n, 0.05, seed)
	y, err := datasets.Embed(x, dim, 0.02, seed)
	if err != nil {
		panic(err)
	}
	for _, p := range [][2]int{{3, 7}, {4, 7}, {n - 1, 0}} {
		y.SetRow(p[0], y.RawRowView(p[1]))
	}
	return y
}

// Recall@k of NN-descent at its defaults against brute force: Gaussian
// data in 3 dimensions and swiss rolls embedded in 50, 256 and 784 (both
// with exact duplicates), integer grids (many ties and repeated points),
// and the USPS digits.
func TestKNNApproxRecall(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		x    *mat.Dense
		k    int
	}{
		{"gauss-3", points(3000, 3, false, 1), 10},
		{"roll-50", roll(3000, 50, 2), 15},
		{"roll-256", roll(2000, 256, 3), 15},
		{"roll-784", roll(1500, 784, 4), 10},
		{"grid-3", points(1500, 3, true, 5), 10},
		{"grid-8", points(1500, 8, true, 6), 15},
	}
	if !testmode.Quick() {
		if _, err := os.Stat(uspsNPY); err == nil {
			cases = append(cases, struct {
				name string
				x    *mat.Dense
				k    int
			}{"usps-256", usps(t, 4000), 15})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if raceOn && c.name != "gauss-3" && c.name != "grid-8" {
				t.Skip("large case: skipped under the race detector")
			}
			res, info, err := neighbors.KNNApprox(ctx, c.x, c.k, neighbors.ApproxOptions{Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			checkLists(t, c.name, c.x, res, c.k, euclid)
			r := neighbors.Recall(res, exactKNN(t, c.x, c.k, neighbors.Euclidean))
			t.Logf("%s: recall@%d = %.5f after %d iterations, updates %v, %d keys", c.name, c.k, r, info.Iterations, info.Updates, info.Distances)
			if r < 0.99 {
				t.Errorf("%s: recall@%d = %.5f < 0.99", c.name, c.k, r)
			}
		})
	}
}

// Independent Gaussian coordinates in 50 and 256 dimensions have no
// low-dimensional structure (every point is nearly equidistant from all
// others), the hard case of NN-descent: its recall there is lower, and
// more candidates (ρ) raise it.
func TestKNNApproxHighIntrinsicDimension(t *testing.T) {
	t.Parallel()
	if raceOn {
		t.Skip("skipped under the race detector (no goroutine the other tests do not start)")
	}
	for _, c := range []struct {
		dim       int
		rho, want float64
	}{{50, 0, 0.85}, {50, 4, 0.97}, {256, 4, 0.9}} {
		x := points(1500, c.dim, false, uint64(c.dim))
		res, info, err := neighbors.KNNApprox(ctx, x, 15, neighbors.ApproxOptions{Rho: c.rho, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		r := neighbors.Recall(res, exactKNN(t, x, 15, neighbors.Euclidean))
		t.Logf("Gaussian %d-D, ρ = %v: recall@15 = %.4f after %d iterations", c.dim, c.rho, r, info.Iterations)
		if r < c.want {
			t.Errorf("Gaussian %d-D, ρ = %v: recall@15 = %.4f < %v", c.dim, c.rho, r, c.want)
		}
	}
}

// The recall of a poor graph is measured as poor: a test that cannot fail
// is a defect, so Recall itself is checked on a known case.
func TestRecallKnown(t *testing.T) {
	x := mat.NewDense(5, 1, []float64{0, 1, 2, 3, 10})
	exact := exactKNN(t, x, 2, neighbors.Euclidean)
	// Point 0's lists {1, 4}: one of two right; the others right.
	bad := &neighbors.Result{Ptr: slices.Clone(exact.Ptr), Ind: slices.Clone(exact.Ind), Dist: slices.Clone(exact.Dist)}
	bad.Ind[1], bad.Dist[1] = 4, 10
	if r := neighbors.Recall(bad, exact); math.Abs(r-0.9) > 1e-15 {
		t.Fatalf("recall %v, want 0.9", r)
	}
	// A tie at the k-th distance counts: point 2's neighbours are 1 and
	// 3 (distance 1); point 1's exact list is {0, 2}, and {2, 0} is the same.
	if r := neighbors.Recall(exact, exact); r != 1 {
		t.Fatalf("recall of the exact lists %v", r)
	}
}

// With a weak start (one tree, leaves of 2 points, no early stop) and
// enough iterations, NN-descent finds the exact graph of small
// 2-D inputs. (It is not exact in general: it stops at a
// fixed point of the local join, TestKNNApproxFixedPoint, whose recall on
// tiny Gaussian inputs in 3 to 8 dimensions measured 0.977–0.999.)
func TestKNNApproxExactOnTiny(t *testing.T) {
	for _, c := range []struct{ n, dim int }{{300, 2}, {100, 2}} {
		x := points(c.n, c.dim, false, uint64(10+c.dim))
		// No duplicates: the exact lists are unique.
		for _, i := range []int{3, 4, c.n - 1} {
			for j := 0; j < c.dim; j++ {
				x.Set(i, j, float64(i+3*j)+0.5)
			}
		}
		const k = 6
		res, info, err := neighbors.KNNApprox(ctx, x, k, neighbors.ApproxOptions{Seed: 3, Trees: 1, LeafSize: 2, MaxIter: 60, Delta: -1, Rho: 10})
		if err != nil {
			t.Fatal(err)
		}
		want := exactKNN(t, x, k, neighbors.Euclidean)
		if !slices.Equal(res.Ind, want.Ind) {
			t.Fatalf("%d×%d: after %d iterations (updates %v) the lists differ from the exact ones (recall %v)", c.n, c.dim, info.Iterations, info.Updates, neighbors.Recall(res, want))
		}
		for p := range res.Dist {
			if res.Dist[p] != want.Dist[p] {
				t.Fatalf("%d×%d: distance #%d = %v, exact search %v", c.n, c.dim, p, res.Dist[p], want.Dist[p])
			}
		}
		if last := info.Updates[len(info.Updates)-1]; last != 0 {
			t.Fatalf("%d×%d: the last of %d iterations still changed %d entries", c.n, c.dim, info.Iterations, last)
		}
	}
}

// After convergence the graph is a fixed point of the local join (Dong et
// al. §3): for every point u, no two points of u's neighbourhood (its
// neighbours and the points that have u as a neighbour) are closer than
// the farther of the first one's kept neighbours without being kept.
func TestKNNApproxFixedPoint(t *testing.T) {
	x := points(400, 6, false, 77)
	const k = 6
	res, info, err := neighbors.KNNApprox(ctx, x, k, neighbors.ApproxOptions{MaxIter: 100, Delta: -1, Rho: 10})
	if err != nil {
		t.Fatal(err)
	}
	if last := info.Updates[len(info.Updates)-1]; last != 0 {
		t.Fatalf("no fixed point after %d iterations: %v", info.Iterations, info.Updates)
	}
	n := 400
	nb := make([]map[int]bool, n)
	kept := make([]map[int]bool, n)
	for i := range nb {
		nb[i], kept[i] = map[int]bool{}, map[int]bool{}
	}
	for i := 0; i < n; i++ {
		js, _ := res.Row(i)
		for _, j := range js {
			nb[i][j], nb[j][i], kept[i][j] = true, true, true
		}
	}
	for u := 0; u < n; u++ {
		for a := range nb[u] {
			_, ds := res.Row(a)
			for b := range nb[u] {
				if a != b && !kept[a][b] && euclid(x.RawRowView(a), x.RawRowView(b)) < ds[k-1]*(1-1e-6) {
					t.Fatalf("points %d and %d, both near %d, are closer than %d's farthest kept neighbour", a, b, u, a)
				}
			}
		}
	}
	r := neighbors.Recall(res, exactKNN(t, x, k, neighbors.Euclidean))
	t.Logf("fixed point after %d iterations, recall %.4f", info.Iterations, r)
	if r < 0.97 {
		t.Errorf("recall at the fixed point %.4f", r)
	}
}

// The same seed gives the same lists with 1 and 2 goroutines (and a
// different seed gives a different forest).
func TestKNNApproxDeterministic(t *testing.T) {
	x := points(5000, 20, false, 21)
	run := func(procs int, seed uint64) (*neighbors.Result, neighbors.ApproxInfo) {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		res, info, err := neighbors.KNNApprox(ctx, x, 10, neighbors.ApproxOptions{Seed: seed, Trees: 2})
		if err != nil {
			t.Fatal(err)
		}
		return res, info
	}
	a, ia := run(1, 5)
	b, ib := run(2, 5)
	c, ic := run(3, 5)
	if !slices.Equal(a.Ind, b.Ind) || !slices.Equal(a.Dist, b.Dist) || !slices.Equal(a.Ind, c.Ind) {
		t.Fatal("lists differ between GOMAXPROCS 1, 2 and 3")
	}
	if !slices.Equal(ia.Updates, ib.Updates) || !slices.Equal(ia.Updates, ic.Updates) || ia.Distances != ib.Distances {
		t.Fatalf("iterations differ: %v / %v / %v, %d / %d keys", ia.Updates, ib.Updates, ic.Updates, ia.Distances, ib.Distances)
	}
	_, id := run(2, 6)
	if id.Distances == ia.Distances && slices.Equal(id.Updates, ia.Updates) {
		t.Fatal("seeds 5 and 6 ran the same search")
	}
}

// Bad input: k out of range, one point, NaN; all points identical must
// terminate (every pair ties) with every distance 0.
func TestKNNApproxBadInput(t *testing.T) {
	x := points(50, 3, false, 1)
	for _, k := range []int{0, -1, 50, 51} {
		if _, _, err := neighbors.KNNApprox(ctx, x, k, neighbors.ApproxOptions{}); !errors.Is(err, neighbors.ErrInput) {
			t.Errorf("k = %d of 50 points: err = %v", k, err)
		}
	}
	if _, _, err := neighbors.KNNApprox(ctx, mat.NewDense(1, 3, nil), 1, neighbors.ApproxOptions{}); !errors.Is(err, neighbors.ErrInput) {
		t.Errorf("one point: err = %v", err)
	}
	y := mat.DenseCopyOf(x)
	y.Set(17, 2, math.NaN())
	if _, _, err := neighbors.KNNApprox(ctx, y, 5, neighbors.ApproxOptions{}); !errors.Is(err, neighbors.ErrInput) {
		t.Errorf("NaN: err = %v", err)
	}
	for _, o := range []neighbors.ApproxOptions{{Trees: -1}, {Rho: math.NaN()}, {Delta: math.Inf(1)}, {Metric: 7}} {
		if _, _, err := neighbors.KNNApprox(ctx, x, 5, o); !errors.Is(err, neighbors.ErrInput) {
			t.Errorf("options %+v: err = %v", o, err)
		}
	}
	same := mat.NewDense(3000, 4, nil)
	for i := 0; i < 3000; i++ {
		same.SetRow(i, []float64{1, 2, 3, 4})
	}
	done := make(chan struct{})
	var res *neighbors.Result
	var info neighbors.ApproxInfo
	var err error
	go func() {
		defer close(done)
		res, info, err = neighbors.KNNApprox(ctx, same, 15, neighbors.ApproxOptions{})
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("identical points: no answer in 60 s")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Dist {
		if d != 0 {
			t.Fatalf("identical points: distance %v", d)
		}
	}
	checkLists(t, "identical", same, res, 15, euclid)
	t.Logf("identical points: %d iterations, updates %v", info.Iterations, info.Updates)
}

// Cosine distances on dense rows and on sparse rows (with zero rows)
// against the exact cosine search.
func TestKNNApproxCosine(t *testing.T) {
	t.Parallel()
	x := points(2000, 40, false, 31)
	for i := 0; i < 2000; i++ {
		for j := 0; j < 40; j++ {
			if (i*7+j*3)%5 != 0 {
				x.Set(i, j, 0) // sparse: about a fifth of the entries stored
			}
		}
	}
	for j := 0; j < 40; j++ {
		x.Set(11, j, 0) // a zero row: distance 1 to everything
	}
	const k = 10
	want := exactKNN(t, x, k, neighbors.Cosine)
	dense, _, err := neighbors.KNNApprox(ctx, x, k, neighbors.ApproxOptions{Metric: neighbors.Cosine, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkLists(t, "dense cosine", x, dense, k, cosineDist)
	if r := neighbors.Recall(dense, want); r < 0.99 {
		t.Errorf("dense cosine: recall %v", r)
	}
	sp, _, err := neighbors.KNNApproxSparse(ctx, sparse.FromDense(x), k, neighbors.ApproxOptions{Metric: neighbors.Cosine, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkLists(t, "sparse cosine", x, sp, k, cosineDist)
	if r := neighbors.Recall(sp, want); r < 0.99 {
		t.Errorf("sparse cosine: recall %v", r)
	}
	spE, _, err := neighbors.KNNApproxSparse(ctx, sparse.FromDense(x), k, neighbors.ApproxOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkLists(t, "sparse euclidean", x, spE, k, euclid)
	if r := neighbors.Recall(spE, exactKNN(t, x, k, neighbors.Euclidean)); r < 0.99 {
		t.Errorf("sparse Euclidean: recall %v", r)
	}
}

// The sampled recall agrees with the full recall within its sampling
// error, on a graph whose recall is well below 1 (a single iteration).
func TestSampledRecall(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "ten sampled recalls against the full one (statistics, not concurrency)")
	x := points(4000, 30, false, 41)
	const k = 10
	res, _, err := neighbors.KNNApprox(ctx, x, k, neighbors.ApproxOptions{Seed: 2, Trees: 1, MaxIter: 1})
	if err != nil {
		t.Fatal(err)
	}
	full := neighbors.Recall(res, exactKNN(t, x, k, neighbors.Euclidean))
	if full > 0.97 {
		t.Fatalf("full recall %v: the test needs a poorer graph", full)
	}
	within := 0
	for seed := uint64(0); seed < 10; seed++ {
		est, err := neighbors.SampledRecall(ctx, x, res, 200, seed, neighbors.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if est.Sample != 200 || est.StdErr <= 0 {
			t.Fatalf("estimate %+v", est)
		}
		z := math.Abs(est.Recall-full) / est.StdErr
		t.Logf("seed %d: sampled %.4f ± %.4f, full %.4f (z = %.2f)", seed, est.Recall, est.StdErr, full, z)
		if z > 4 {
			t.Errorf("seed %d: sampled recall %.4f ± %.4f, full %.4f: %.1f standard errors apart", seed, est.Recall, est.StdErr, full, z)
		}
		if z <= 2 {
			within++
		}
	}
	if within < 7 {
		t.Errorf("only %d of 10 estimates within 2 standard errors", within)
	}
	all, err := neighbors.SampledRecall(ctx, x, res, 10000, 0, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(all.Recall-full) > 1e-12 || all.StdErr != 0 {
		t.Fatalf("a sample of every point: %+v, full recall %v", all, full)
	}
}

// A cancelled context stops the search with ctx's error.
func TestKNNApproxCancel(t *testing.T) {
	x := points(20000, 64, false, 51)
	c, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	start := time.Now()
	_, _, err := neighbors.KNNApprox(c, x, 15, neighbors.ApproxOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("cancelled after %v", el)
	}
}
