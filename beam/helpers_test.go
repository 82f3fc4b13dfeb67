package manifoldbeam

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/admm"
	"github.com/manifoldlab/manifold/engine"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

// collected gathers a test pipeline's outputs in this process (prism runs
// the SDK harness in-process in tests).
var collected struct {
	sync.Mutex
	emb  map[string][]Embedded
	dead map[string][]DeadLetter
}

type collectEmbFn struct{ Key string }

func (f *collectEmbFn) ProcessElement(e Embedded) {
	collected.Lock()
	defer collected.Unlock()
	if collected.emb == nil {
		collected.emb = map[string][]Embedded{}
	}
	collected.emb[f.Key] = append(collected.emb[f.Key], e)
}

type collectDeadFn struct{ Key string }

func (f *collectDeadFn) ProcessElement(e DeadLetter) {
	collected.Lock()
	defer collected.Unlock()
	if collected.dead == nil {
		collected.dead = map[string][]DeadLetter{}
	}
	collected.dead[f.Key] = append(collected.dead[f.Key], e)
}

func init() {
	register.DoFn1x0[Embedded](&collectEmbFn{})
	register.DoFn1x0[DeadLetter](&collectDeadFn{})
}

func takeCollected(key string) ([]Embedded, []DeadLetter) {
	collected.Lock()
	defer collected.Unlock()
	e, d := collected.emb[key], collected.dead[key]
	delete(collected.emb, key)
	delete(collected.dead, key)
	return e, d
}

// counters returns the pipeline's manifold counters by name.
func counters(t *testing.T, res beam.PipelineResult) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Namespace() == MetricNamespace {
			out[c.Name()] += c.Result()
		}
	}
	return out
}

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

var _ = reflect.TypeOf

// runFit runs the fit pipeline build(s, rows, path) over the shards (one
// PCollection each, flattened), checks that the counters and the dead
// letters account for every row (wantDead of them dead), and returns the
// model file it wrote, loaded.
func runFit(t *testing.T, shards [][]Row, wantDead int, build func(s beam.Scope, rows beam.PCollection, path string) beam.PCollection) engine.Model {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.bin")
	p, s := beam.NewPipelineWithRoot()
	var cols []beam.PCollection
	rows := 0
	for _, sh := range shards {
		cols = append(cols, beam.CreateList(s, sh))
		rows += len(sh)
	}
	key := t.Name() + path
	beam.ParDo0(s, &collectDeadFn{Key: key}, build(s, beam.Flatten(s, cols...), path))
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		t.Fatal(err)
	}
	if c := counters(t, res); c[MetricRowsIn] != int64(rows) || c[MetricRowsOut] != int64(rows-wantDead) || c[MetricDeadLetter] != int64(wantDead) {
		t.Errorf("counters %v for %d rows, %d dead", c, rows, wantDead)
	}
	if _, dl := takeCollected(key); len(dl) != wantDead {
		t.Errorf("dead letters %v, want %d", dl, wantDead)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := engine.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
