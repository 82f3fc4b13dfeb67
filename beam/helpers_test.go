package manifoldbeam

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"testing"

	parquetwriter "github.com/xitongsys/parquet-go/writer"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/admm"
	"github.com/manifoldlab/manifold/engine"
)

// rollData returns n points of a noisy swiss roll in d ≥ 3 features and
// three class labels along it.
func rollData(n, d int, seed uint64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, d, nil)
	labels := make([]int, n)
	for i := range n {
		t := 1.5 * math.Pi * (1 + 2*float64(i)/float64(n))
		h := 10 * rng.Float64()
		x.Set(i, 0, t*math.Cos(t)+0.05*rng.NormFloat64())
		x.Set(i, 1, h)
		x.Set(i, 2, t*math.Sin(t)+0.05*rng.NormFloat64())
		for j := 3; j < d; j++ {
			x.Set(i, j, 0.1*rng.NormFloat64())
		}
		labels[i] = 3 * i / n
	}
	return x, labels
}

type fitCase struct {
	name string
	fit  func(ctx context.Context, x mat.Matrix, labels []int) (engine.Model, error)
}

func asModel[M engine.Model](m M, err error) (engine.Model, error) {
	if err != nil {
		return nil, err
	}
	return m, nil
}

// fitCases fit every method of the engine on small data.
var fitCases = []fitCase{
	{"pca", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.PCA{Dim: 2}.Fit(ctx, x))
	}},
	{"mds", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.MDS{Dim: 2, Seed: 1}.Fit(ctx, x))
	}},
	{"isomap", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.Isomap{Dim: 2, K: 10, Seed: 1}.Fit(ctx, x))
	}},
	{"landmark-isomap", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.LandmarkIsomap{Dim: 2, K: 10, Seed: 1}.Fit(ctx, x))
	}},
	{"lle", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.LLE{Dim: 2, K: 10, Seed: 1}.Fit(ctx, x))
	}},
	{"isoprojection", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.IsoProjection{Dim: 2, K: 10, Seed: 1}.Fit(ctx, x))
	}},
	{"oip", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.OIP{Dim: 2, K: 10, Seed: 1}.Fit(ctx, x))
	}},
	{"soip", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.SOIP{Dim: 2, K: 10, Seed: 1}.Fit(ctx, x))
	}},
	{"tdpm", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.TDPM{Dim: 2, K: 12, Seed: 1}.Fit(ctx, x))
	}},
	{"lowrank-isomap", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.LowRankIsomap{Dim: 2, Landmarks: 6, UnitScale: true, LRR: admm.LRRSettings{Lambda: 10}, Seed: 1}.Fit(ctx, x))
	}},
	{"lpp", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.LPP{Dim: 2, K: 10, Seed: 1}.Fit(ctx, x))
	}},
	{"npe", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.NPE{Dim: 2, K: 10, Seed: 1}.Fit(ctx, x))
	}},
	{"lda", func(ctx context.Context, x mat.Matrix, labels []int) (engine.Model, error) {
		return asModel(engine.LDA{Dim: 2, Labels: labels}.Fit(ctx, x))
	}},
	{"lsi", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.LSI{Dim: 2, Seed: 1}.Fit(ctx, x))
	}},
	{"ltsa", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.LTSA{Dim: 2, K: 10, Seed: 1}.Fit(ctx, x))
	}},
	{"laplacian", func(ctx context.Context, x mat.Matrix, _ []int) (engine.Model, error) {
		return asModel(engine.LaplacianEigenmaps{Dim: 2, K: 10, Seed: 1}.Fit(ctx, x))
	}},
}

// saveModel writes m to dir/name.bin and returns the path.
func saveModel(t *testing.T, m engine.Model, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name+".bin")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// relDiff is ‖a−b‖∞ / max(1, ‖b‖∞).
func relDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var d, s float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		s = math.Max(s, math.Abs(b[i]))
	}
	return d / math.Max(1, s)
}

func sortEmb(e []Embedded) {
	sort.SliceStable(e, func(i, j int) bool {
		if e[i].ID != e[j].ID {
			return e[i].ID < e[j].ID
		}
		return lessFloats(e[i].Y, e[j].Y)
	})
}

func lessFloats(a, b []float64) bool {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// maxPrincipalAngle returns the largest principal angle (degrees) between
// the column spaces of the orthonormal a and b: asin ‖b − a(aᵀb)‖₂, which
// stays accurate for tiny angles (acos of the cosines would not).
func maxPrincipalAngle(a, b mat.Matrix) float64 {
	var p, r mat.Dense
	p.Mul(a.T(), b)
	r.Mul(a, &p)
	r.Sub(b, &r)
	var sv mat.SVD
	sv.Factorize(&r, mat.SVDNone)
	s := sv.Values(nil)
	return math.Asin(math.Min(1, s[0])) * 180 / math.Pi
}

func floatsClose(a, b []float64, tol float64) bool {
	return relDiff(a, b) <= tol
}

// lsiDocs returns n sparse "documents" over d terms (about one entry in
// eight non-zero, counts 1–6, a few terms more frequent than others) and
// n dense rows of d features (positive, uneven scales).
func lsiDocs(n, d int, seed uint64) (docs, dense *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 3))
	docs = mat.NewDense(n, d, nil)
	dense = mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			if rng.IntN(8*(1+j%3)) < 2 {
				docs.Set(i, j, float64(1+rng.IntN(6)))
			}
			dense.Set(i, j, 5+float64(d-j)*rng.NormFloat64())
		}
	}
	return docs, dense
}

// mixedDocs returns n rows of d terms from lsiDocs(n, d, seed): the dense
// row where i is a multiple of every, the sparse document otherwise.
func mixedDocs(n, d int, seed uint64, every int) *mat.Dense {
	docs, dense := lsiDocs(n, d, seed)
	x := mat.NewDense(n, d, nil)
	for i := range n {
		src := docs
		if i%every == 0 {
			src = dense
		}
		x.SetRow(i, src.RawRowView(i))
	}
	return x
}

// alignSigns flips the columns of y to the signs of want's (the largest-
// magnitude entry of each column of want decides).
func alignSigns(y, want *mat.Dense) {
	r, c := want.Dims()
	for j := range c {
		k := 0
		for i := range r {
			if math.Abs(want.At(i, j)) > math.Abs(want.At(k, j)) {
				k = i
			}
		}
		if y.At(k, j)*want.At(k, j) < 0 {
			for i := range r {
				y.Set(i, j, -y.At(i, j))
			}
		}
	}
}

// labeledData returns rows of 5 features in four classes of 500, 150, 40
// and 3 rows (labels 10, 20, 30, 40; the class shifts the mean), shuffled.
func labeledData() (*mat.Dense, []int) {
	sizes := []int{500, 150, 40, 3}
	rng := rand.New(rand.NewPCG(12, 12))
	var flat []float64
	var labels []int
	for k, sz := range sizes {
		for range sz {
			for j := range 5 {
				flat = append(flat, float64((k+1)*(j%3))+float64(j+1)*rng.NormFloat64())
			}
			labels = append(labels, 10*(k+1))
		}
	}
	n := len(labels)
	perm := rng.Perm(n)
	x := mat.NewDense(n, 5, nil)
	y := make([]int, n)
	for i, p := range perm {
		x.SetRow(i, flat[p*5:(p+1)*5])
		y[i] = labels[p]
	}
	return x, y
}

// referenceSample draws, directly from the keys, the sample FitSample
// should draw from the rows of x with classes y: per class (stratified)
// or over all rows (uniform), the rows of least (key, values), then all
// of them in (key, values, class) order.
func referenceSample(t *testing.T, x *mat.Dense, y []int, fit SampleFit) (*mat.Dense, []int) {
	t.Helper()
	type row struct {
		key   uint64
		x     []float64
		label int
	}
	byKey := func(a, b row) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		if c := slices.Compare(a.x, b.x); c != 0 {
			return c
		}
		return cmp.Compare(a.label, b.label)
	}
	groups := map[string][]row{}
	n, d := x.Dims()
	for i := range n {
		g := ""
		if fit.Stratify {
			g = strconv.Itoa(y[i])
		}
		groups[g] = append(groups[g], row{sampleKey(fit.Seed, x.RawRowView(i)), x.RawRowView(i), y[i]})
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	slices.Sort(names) // the strata in byte order, as StratifiedSample's
	counts := make([]int64, len(names))
	for k, g := range names {
		counts[k] = int64(len(groups[g]))
	}
	alloc := []int{min(fit.Size, n)}
	if fit.Stratify {
		var err error
		if alloc, err = Allocate(counts, fit.Size); err != nil {
			t.Fatal(err)
		}
	}
	var picked []row
	for k, g := range names {
		rs := groups[g]
		slices.SortFunc(rs, byKey)
		picked = append(picked, rs[:alloc[k]]...)
	}
	slices.SortFunc(picked, byKey)
	xs := mat.NewDense(len(picked), d, nil)
	ys := make([]int, len(picked))
	for i, r := range picked {
		xs.SetRow(i, r.x)
		ys[i] = r.label
	}
	return xs, ys
}

// stratData returns 400 rows of 3 features in strata "a" (300 rows), "b"
// (80), "c" (19) and "rare" (1); feature 0 is the stratum's index, so a
// sampled row tells its stratum.
func stratData() ([]Stratified, []string) {
	names := []string{"a", "b", "c", "rare"}
	sizes := []int{300, 80, 19, 1}
	rng := rand.New(rand.NewPCG(6, 6))
	var rows []Stratified
	for k, sz := range sizes {
		for range sz {
			rows = append(rows, Stratified{Stratum: names[k], X: []float64{float64(k), rng.NormFloat64(), rng.NormFloat64()}})
		}
	}
	rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	return rows, names
}

// loadModelFile reads the model file at path (LoadModel), failing the
// test on an error.
func loadModelFile(t *testing.T, path string) engine.Model {
	t.Helper()
	m, err := LoadModel(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// writeParquetAny writes rows (a slice of the struct schema points to)
// to the Parquet file p with parquet-go.
func writeParquetAny[T any](t *testing.T, p string, schema *T, rows []T) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := parquetwriter.NewParquetWriterFromWriter(f, schema, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := pw.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.WriteStop(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
