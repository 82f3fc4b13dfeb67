//go:build !beam_unit

package manifoldbeam

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// genRowsFn emits the rows of one shard of benchData, generated on the
// worker (nothing large is shipped through the pipeline's creation).
type genRowsFn struct {
	N, D, Shards int
	Seed         uint64
}

func (f *genRowsFn) ProcessElement(shard int, emit func(Row)) {
	x := cachedBenchData(f.N, f.D, f.Seed)
	for i := shard; i < f.N; i += f.Shards {
		emit(Row{ID: "r", X: x.RawRowView(i)})
	}
}

type discardFn struct{}

func (*discardFn) ProcessElement(Embedded) {}

func init() {
	register.DoFn2x0[int, func(Row)](&genRowsFn{})
	register.DoFn1x0[Embedded](&discardFn{})
}

var benchCache struct {
	sync.Mutex
	m map[[3]uint64]*mat.Dense
}

// cachedBenchData is benchData generated once per process.
func cachedBenchData(n, d int, seed uint64) *mat.Dense {
	benchCache.Lock()
	defer benchCache.Unlock()
	k := [3]uint64{uint64(n), uint64(d), seed}
	if benchCache.m == nil {
		benchCache.m = map[[3]uint64]*mat.Dense{}
	}
	if benchCache.m[k] == nil {
		benchCache.m[k] = benchData(n, d, seed)
	}
	return benchCache.m[k]
}

// benchData is n rows of a swiss roll in d features (d ≥ 3).
func benchData(n, d int, seed uint64) *mat.Dense {
	x, _ := rollData(n, d, seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	if d > 3 {
		for i := range n {
			for j := 3; j < d; j++ {
				x.Set(i, j, rng.NormFloat64())
			}
		}
	}
	return x
}

type benchCase struct {
	name      string
	n, d      int // rows projected, features
	trainN    int
	fit       func(ctx context.Context, x mat.Matrix) (engine.Model, error)
	shardRows int
}

var benchCases = []benchCase{
	{"pca784", 10000, 784, 1000, func(ctx context.Context, x mat.Matrix) (engine.Model, error) {
		return asModel(engine.PCA{Dim: 10}.Fit(ctx, x))
	}, 0},
	{"landmark-isomap", 20000, 5, 1000, func(ctx context.Context, x mat.Matrix) (engine.Model, error) {
		return asModel(engine.LandmarkIsomap{Dim: 2, K: 10, Seed: 1}.Fit(ctx, x))
	}, 0},
	{"lle", 20000, 5, 1000, func(ctx context.Context, x mat.Matrix) (engine.Model, error) {
		return asModel(engine.LLE{Dim: 2, K: 10, Seed: 1}.Fit(ctx, x))
	}, 0},
}

// BenchmarkProject compares, per model, the in-process Transform of n rows
// (blocks of DefaultBlock rows, as Project forms them, one goroutine per
// GOMAXPROCS) with the prism pipeline that generates the same rows on the
// workers and projects them, and with the same pipeline without Project
// (gen), whose time is the pipeline's own overhead. Run with -cpu 1,2
// -benchtime 1x.
func BenchmarkProject(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	for _, c := range benchCases {
		m, err := c.fit(ctx, benchData(c.trainN, c.d, 11))
		if err != nil {
			b.Fatal(err)
		}
		path := saveModelB(b, m, dir, c.name)
		if err := engine.Prepare(m); err != nil { // as Project's workers do
			b.Fatal(err)
		}
		x := benchData(c.n, c.d, 12)
		b.Run(c.name+"/inprocess", func(b *testing.B) {
			for b.Loop() {
				for lo := 0; lo < c.n; lo += DefaultBlock {
					hi := min(c.n, lo+DefaultBlock)
					if _, err := m.Transform(ctx, x.Slice(lo, hi, 0, c.d)); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		for _, project := range []bool{false, true} {
			name := c.name + "/gen"
			if project {
				name = c.name + "/pipeline"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					p, s := beam.NewPipelineWithRoot()
					shards := []int{0, 1, 2, 3, 4, 5, 6, 7}
					rows := beam.ParDo(s, &genRowsFn{N: c.n, D: c.d, Shards: len(shards), Seed: 12}, beam.CreateList(s, shards))
					if project {
						emb, _ := Project(s, path, rows, ProjectOptions{})
						beam.ParDo0(s, &discardFn{}, emb)
					}
					if err := ptest.Run(p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func saveModelB(b *testing.B, m engine.Model, dir, name string) string {
	p := filepath.Join(dir, name+".bin")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := m.Save(f); err != nil {
		b.Fatal(err)
	}
	return p
}
