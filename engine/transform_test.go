package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/internal/geodesic"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// referenceGeodesicTransform is the out-of-sample map of the geodesic
// models as it was computed before the request path existed, kept as the
// test oracle: brute-force kNN (engine/neighbors), the graph augmented
// with the new points as explicit vertices, multi-source Dijkstra on it,
// and the triangulation by Gemm.
func referenceGeodesicTransform(t *testing.T, x *mat.Dense, train blas64.General, graph *sparse.CSR, k int, eps float64, cols []int, f32 bool, tri triangulation) *mat.Dense {
	t.Helper()
	ctx := context.Background()
	var nb *neighbors.Result
	var err error
	if eps > 0 {
		nb, err = neighbors.RadiusQuery(ctx, toDense(train), x, eps, neighbors.Options{})
	} else {
		nb, err = neighbors.KNNQuery(ctx, toDense(train), x, k, neighbors.Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	sq, err := geodesicsFromNew(ctx, graph, nb, cols)
	if err != nil {
		t.Fatal(err)
	}
	if f32 {
		for i := range sq.Data {
			sq.Data[i] = float64(float32(sq.Data[i]))
		}
	}
	return toDense(tri.apply(sq))
}

// geodesicsFromNew computes, for every new point (row of q), the squared
// geodesic distances to the training points (columns of the m×n result):
// the new point is joined to its training neighbours (nb: index lists and
// distances, as a neighbour search returns them) by directed edges, and one
// Dijkstra runs from it on the training graph. This is scikit-learn's
// Isomap.transform, min_j (d(x, x_j) + D_G(j, ·)), without keeping D_G.
func geodesicsFromNew(ctx context.Context, graph *sparse.CSR, nb *neighbors.Result, cols []int) (blas64.General, error) {
	n, _ := graph.Dims()
	m := nb.Len()
	ptr, ind, val := graph.RowPtr(), graph.ColIdx(), graph.Values()
	total := n + m
	indptr := make([]int, total+1)
	copy(indptr, ptr[:n+1])
	nnz := ptr[n]
	ind2 := make([]int, nnz, nnz+len(nb.Ind))
	val2 := make([]float64, nnz, nnz+len(nb.Ind))
	copy(ind2, ind[:nnz])
	copy(val2, val[:nnz])
	type edge struct {
		j int
		d float64
	}
	var row []edge
	for i := 0; i < m; i++ {
		js, ds := nb.Row(i)
		if len(js) == 0 {
			return blas64.General{}, fmt.Errorf("%w: new point %d has no training point within the graph's neighbourhood", ErrNoTransform, i)
		}
		row = row[:0]
		for c, j := range js {
			row = append(row, edge{j, ds[c]})
		}
		sort.Slice(row, func(a, b int) bool { return row[a].j < row[b].j })
		for c, e := range row {
			if c > 0 && e.j == row[c-1].j {
				continue
			}
			ind2 = append(ind2, e.j)
			val2 = append(val2, e.d)
		}
		indptr[n+i+1] = len(ind2)
	}
	aug, err := sparse.NewCSR(total, total, indptr, ind2, val2)
	if err != nil {
		return blas64.General{}, err
	}
	sources := make([]int, m)
	for i := range sources {
		sources[i] = n + i
	}
	full := dense.New(m, total)
	if err := sparse.MultiSourceShortestPaths(ctx, aug, sources, full, sparse.PathOptions{Squared: true}); err != nil {
		return blas64.General{}, err
	}
	if cols == nil {
		return blas64.General{Rows: m, Cols: n, Stride: full.Stride, Data: full.Data}, nil
	}
	out := dense.New(m, len(cols))
	for i := 0; i < m; i++ {
		for c, j := range cols {
			out.Data[i*out.Stride+c] = full.Data[i*full.Stride+j]
		}
	}
	return out, nil
}

func swissRows(n int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		t := 1.5 * math.Pi * (1 + 2*rng.Float64())
		x.Set(i, 0, t*math.Cos(t))
		x.Set(i, 1, 21*rng.Float64())
		x.Set(i, 2, t*math.Sin(t))
	}
	return x
}

// gaussRows: n points in d dimensions near a low-dimensional subspace, so
// the pruned search has both easy and hard queries.
func gaussRows(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 9))
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			s := 0.05
			if j < 4 {
				s = 1
			}
			x.Set(i, j, s*rng.NormFloat64())
		}
	}
	return x
}

// TestGeodesicTransformMatchesReference checks the request path (exact
// pruned search, prepared graph, seeded Dijkstra, per-row triangulation)
// against the reference construction, for Isomap by kNN and by ε, Landmark
// Isomap, and through TransformRow and TransformRow32.
func TestGeodesicTransformMatchesReference(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		x, q *mat.Dense
		fit  func(x *mat.Dense) (Model, error)
	}{
		{"isomap-knn-3d", swissRows(400, 1), swissRows(60, 2), func(x *mat.Dense) (Model, error) { return Isomap{K: 8}.Fit(ctx, x) }},
		{"isomap-knn-40d", gaussRows(300, 40, 3), gaussRows(50, 40, 4), func(x *mat.Dense) (Model, error) { return Isomap{K: 6, Dim: 3}.Fit(ctx, x) }},
		{"isomap-eps", swissRows(400, 5), swissRows(40, 6), func(x *mat.Dense) (Model, error) { return Isomap{Eps: 6}.Fit(ctx, x) }},
		{"isomap-float32", swissRows(300, 7), swissRows(30, 8), func(x *mat.Dense) (Model, error) { return Isomap{K: 10, Float32: true}.Fit(ctx, x) }},
		{"landmark", swissRows(500, 9), swissRows(50, 10), func(x *mat.Dense) (Model, error) {
			return LandmarkIsomap{K: 8, Landmarks: 40}.Fit(ctx, x)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := tc.fit(tc.x)
			if err != nil {
				t.Fatal(err)
			}
			var want *mat.Dense
			switch mm := m.(type) {
			case *IsomapModel:
				want = referenceGeodesicTransform(t, tc.q, mm.train, mm.graph, max(mm.p.K, 0), mm.p.Eps, nil, mm.p.Float32, mm.tri)
			case *LandmarkIsomapModel:
				want = referenceGeodesicTransform(t, tc.q, mm.train, mm.graph, mm.p.K, mm.p.Eps, mm.landmarks, true, mm.tri)
			}
			got, err := m.Transform(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			scale := mat.Norm(want, math.Inf(1))
			if d := maxAbsDiff(got, want); d > 1e-10*scale {
				t.Fatalf("Transform differs from the reference by %g (scale %g)", d, scale)
			}
			r, c := tc.q.Dims()
			row := make([]float64, m.Dim())
			row32 := make([]float32, c)
			for i := 0; i < r; i++ {
				if err := TransformRow(ctx, m, row, tc.q.RawRowView(i)); err != nil {
					t.Fatal(err)
				}
				for j, v := range row {
					if math.Abs(v-want.At(i, j)) > 1e-10*scale {
						t.Fatalf("TransformRow row %d: %v, reference %v", i, row, mat.Row(nil, i, want))
					}
				}
				for j, v := range tc.q.RawRowView(i) {
					row32[j] = float32(v)
				}
				if err := TransformRow32(ctx, m, row, row32); err != nil {
					t.Fatal(err)
				}
				// float32 features move the point by ~1e-7 relative.
				for j, v := range row {
					if math.Abs(v-want.At(i, j)) > 1e-4*scale {
						t.Fatalf("TransformRow32 row %d: %v, reference %v", i, row, mat.Row(nil, i, want))
					}
				}
			}
			// Prepared: the geodesic table replaces the Dijkstra search,
			// with the same result.
			if err := Prepare(m); err != nil {
				t.Fatal(err)
			}
			if gi := geoOf(t, m); !gi.TableReady() {
				t.Fatal("Prepare built no geodesic table")
			}
			got, err = m.Transform(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if d := maxAbsDiff(got, want); d > 1e-10*scale {
				t.Fatalf("prepared Transform differs from the reference by %g (scale %g)", d, scale)
			}
		})
	}
}

// geoOf returns a geodesic model's index.
func geoOf(t *testing.T, m Model) *geodesic.Index {
	t.Helper()
	var gi *geodesic.Index
	var err error
	switch mm := m.(type) {
	case *IsomapModel:
		gi, err = mm.geo.get(context.Background())
	case *LandmarkIsomapModel:
		gi, err = mm.geo.get(context.Background())
	default:
		t.Fatalf("%T is not a geodesic model", m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return gi
}

// A supervised Isomap model (classes joined by the constant between-class
// geodesic) and a model loaded from a file map new points alike with and
// without the prepared table; the table is bounded by geodesic.TableMax.
func TestGeodesicTablePaths(t *testing.T) {
	ctx := context.Background()
	x, q := swissRows(400, 21), swissRows(40, 22)
	labels := make([]int, 400)
	for i := range labels {
		labels[i] = i * 3 / 400
	}
	for _, fit := range []func() (Model, error){
		func() (Model, error) { return Isomap{Labels: labels}.Fit(ctx, x) },
		func() (Model, error) { return Isomap{K: 7}.Fit(ctx, x) },
		func() (Model, error) { return LandmarkIsomap{K: 7, Landmarks: 30}.Fit(ctx, x) },
	} {
		m, err := fit()
		if err != nil {
			t.Fatal(err)
		}
		loaded := reloaded(t, m)
		plain, err := loaded.Transform(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if geoOf(t, loaded).TableReady() {
			t.Fatal("a table without Prepare")
		}
		if err := Prepare(loaded); err != nil {
			t.Fatal(err)
		}
		tabled, err := loaded.Transform(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		scale := mat.Norm(plain, math.Inf(1))
		if d := maxAbsDiff(plain, tabled); d > 1e-12*scale || !geoOf(t, loaded).TableReady() {
			t.Fatalf("%s: table and Dijkstra differ by %g (scale %g)", m.Method(), d, scale)
		}
	}
	// Past the bound no table is built, and Transform still works.
	m := mustFit(t, ctx, Isomap{K: 7}.Fit, x)
	gi := geoOf(t, m)
	gi.LimitTable(0) // as if the table had not fitted
	want, _ := m.Transform(ctx, q)
	if err := Prepare(m); err != nil || gi.TableReady() {
		t.Fatalf("Prepare: %v, table %v", err, gi.TableReady())
	}
	got, err := m.Transform(ctx, q)
	if err != nil || maxAbsDiff(got, want) != 0 {
		t.Fatalf("without a table: %v", err)
	}
}

// TestTransformToLinear checks the per-row path of the linear methods
// against their Transform, the zero-allocation claim, and the errors.
func TestTransformToLinear(t *testing.T) {
	ctx := context.Background()
	x := gaussRows(200, 12, 1)
	q := gaussRows(30, 12, 2)
	pca := mustFit(t, ctx, PCA{Dim: 3}.Fit, x)
	lpp := mustFit(t, ctx, LPP{Dim: 2, K: 6}.Fit, x)
	for _, m := range []Model{pca, lpp} {
		want, err := m.Transform(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got := mat.NewDense(30, m.Dim(), nil)
		if err := TransformTo(ctx, m, got, q); err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(got, want); d > 1e-12 {
			t.Fatalf("%s: TransformTo differs from Transform by %g", m.Method(), d)
		}
		row := make([]float64, m.Dim())
		in := q.RawRowView(3)
		allocs := testing.AllocsPerRun(100, func() {
			if err := TransformRow(ctx, m, row, in); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: TransformRow allocates %v times per call", m.Method(), allocs)
		}
		bad := append([]float64(nil), in...)
		bad[5] = math.NaN()
		if err := TransformRow(ctx, m, row, bad); !errors.Is(err, ErrNotFinite) {
			t.Errorf("%s: NaN row: %v, want ErrNotFinite", m.Method(), err)
		}
		if err := TransformRow(ctx, m, row, in[:4]); !errors.Is(err, ErrShape) {
			t.Errorf("%s: short row: %v, want ErrShape", m.Method(), err)
		}
	}
}

// TestGeodesicTransformConcurrent maps rows from many goroutines at once
// (run under -race in CI) and checks every result.
func TestGeodesicTransformConcurrent(t *testing.T) {
	ctx := context.Background()
	x := swissRows(300, 11)
	q := swissRows(64, 12)
	m := mustFit(t, ctx, Isomap{K: 8}.Fit, x)
	want, err := m.Transform(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			row := make([]float64, 2)
			for i := 0; i < 64; i++ {
				if err := TransformRow(ctx, m, row, q.RawRowView(i)); err != nil {
					errs <- err
					return
				}
				if row[0] != want.At(i, 0) || row[1] != want.At(i, 1) {
					errs <- fmt.Errorf("row %d: %v, want %v", i, row, mat.Row(nil, i, want))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestGeodesicsReportProgress: Isomap's and Landmark Isomap's geodesics
// stages report Done/Total (sources finished of all), ending at Total, on
// the goroutine running Fit.
func TestGeodesicsReportProgress(t *testing.T) {
	x := swissRows(1500, 3)
	for _, fit := range []func(o Options) error{
		func(o Options) error { _, err := Isomap{K: 8, Options: o}.Fit(context.Background(), x); return err },
		func(o Options) error {
			_, err := LandmarkIsomap{K: 8, Landmarks: 300, Options: o}.Fit(context.Background(), x)
			return err
		},
	} {
		var last Progress
		var seen int
		err := fit(Options{Progress: func(p Progress) {
			if p.Stage == "geodesics" && p.Total > 0 {
				if p.Done < last.Done {
					t.Errorf("progress went back: %+v after %+v", p, last)
				}
				last = p
				seen++
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if seen == 0 || last.Done != last.Total || last.Total == 0 {
			t.Fatalf("geodesics progress: %d reports, last %+v", seen, last)
		}
	}
}

// TestApproxTransformRow: a Landmark Isomap model fitted with approximate
// neighbours (its index widened: Neighbors.IndexK) maps rows one at a time
// (TransformRow: the index's QueryRow) exactly as its batch Transform does,
// and, prepared, with no allocation a call; the race run (-short) skips
// the allocation count (its sync.Pool drops items on purpose).
func TestApproxTransformRow(t *testing.T) {
	ctx := context.Background()
	roll, _ := datasets.SwissRoll(1300, 0.05, 23)
	all, err := datasets.Embed(roll, 30, 0.01, 23)
	if err != nil {
		t.Fatal(err)
	}
	x := mat.DenseCopyOf(all.Slice(0, 1200, 0, 30))
	q := mat.DenseCopyOf(all.Slice(1200, 1300, 0, 30))
	m, err := LandmarkIsomap{K: 10, Landmarks: 100, Options: Options{Neighbors: Neighbors{Search: NeighborsApprox, IndexK: 14}}}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	if err := Prepare(m); err != nil {
		t.Fatal(err)
	}
	want, err := m.Transform(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	row := make([]float64, 2)
	for i := 0; i < 100; i++ {
		if err := TransformRow(ctx, m, row, q.RawRowView(i)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(row, want.RawRowView(i)) {
			t.Fatalf("row %d: TransformRow %v, Transform %v", i, row, want.RawRowView(i))
		}
	}
	if testmode.Quick() {
		return
	}
	in := q.RawRowView(7)
	if allocs := testing.AllocsPerRun(100, func() {
		if err := TransformRow(ctx, m, row, in); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("TransformRow of the approximate model allocates %v times a call", allocs)
	}
}

// PrepareCtx: cancelled while it builds a Landmark Isomap model's table
// (20,000 roll points, 500 landmarks), it returns within 100 ms of the
// deadline with no table kept and the model mapping as before; a later
// call builds the table. For an LLE model fitted with approximate
// neighbours it builds the neighbour index its first Transform would.
func TestPrepareCtx(t *testing.T) {
	testmode.Skip(t, "a Landmark Isomap fit of 20,000 points")
	ctx := context.Background()
	x := swissRows(20000, 31)
	q := swissRows(50, 32)
	m := mustFit(t, ctx, LandmarkIsomap{K: 10, Landmarks: 500}.Fit, x)
	want, err := m.Transform(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	// The best of three tries: a loaded machine (CI runs two test
	// packages and a compile at once) can stall any one of them.
	const deadline = 50 * time.Millisecond
	late := time.Duration(math.MaxInt64)
	for try := 0; try < 3 && late > 100*time.Millisecond; try++ {
		dctx, cancel := context.WithTimeout(ctx, deadline)
		t0 := time.Now()
		err := PrepareCtx(dctx, m)
		late = min(late, time.Since(t0)-deadline)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("PrepareCtx under a %v deadline: %v", deadline, err)
		}
	}
	t.Logf("PrepareCtx returned %v after its deadline (best of up to three tries)", late)
	if late > 100*time.Millisecond {
		t.Errorf("PrepareCtx returned %v after its deadline (limit 100 ms)", late)
	}
	gi := geoOf(t, m)
	if gi.TableReady() {
		t.Fatal("a cancelled PrepareCtx left a table")
	}
	got, err := m.Transform(ctx, q)
	if err != nil || !mat.Equal(got, want) {
		t.Fatalf("Transform after a cancelled PrepareCtx: %v", err)
	}
	t0 := time.Now()
	if err := PrepareCtx(ctx, m); err != nil || !gi.TableReady() {
		t.Fatalf("PrepareCtx: %v, table %v", err, gi.TableReady())
	}
	if d := time.Since(t0); d < deadline+100*time.Millisecond {
		t.Errorf("the table took only %v: too quick for this test to show cancellation; enlarge it", d)
	} else {
		t.Logf("the table takes %v", d)
	}
	roll, _ := datasets.SwissRoll(1000, 0.05, 33)
	emb, err := datasets.Embed(roll, 30, 0.01, 33)
	if err != nil {
		t.Fatal(err)
	}
	lle := mustFit(t, ctx, LLE{K: 10, Options: Options{Neighbors: Neighbors{Search: NeighborsApprox}}}.Fit, emb)
	if lle.near == nil || lle.near.ix.done {
		t.Fatal("the approximate LLE model has no lists, or its index was built before Prepare")
	}
	if err := PrepareCtx(ctx, lle); err != nil || !lle.near.ix.done {
		t.Fatalf("PrepareCtx of the approximate LLE model: %v, index built %v", err, lle.near.ix.done)
	}
}
