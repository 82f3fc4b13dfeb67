//go:build !beam_unit

package manifoldbeam

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
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

// countFn counts the elements of a bundle and emits the count once, at the
// end of the bundle: the benchmark's pipelines end in a sum of these counts,
// checked against the rows generated. (A pipeline whose last stage has no
// output costs the prism runner a busy core while the stage runs: see
// docs/scale-out.md. A real run ends in the commit of its output files.)
type countFn struct{ n int }

func (f *countFn) StartBundle(func(int))              { f.n = 0 }
func (f *countFn) ProcessElement(Embedded, func(int)) { f.n++ }
func (f *countFn) FinishBundle(emit func(int))        { emit(f.n) }

type countRowsFn struct{ n int }

func (f *countRowsFn) StartBundle(func(int))         { f.n = 0 }
func (f *countRowsFn) ProcessElement(Row, func(int)) { f.n++ }
func (f *countRowsFn) FinishBundle(emit func(int))   { emit(f.n) }

func sumInts(a, b int) int { return a + b }

// totalFn records the pipeline's total count (prism runs the workers in
// the benchmark's process).
type totalFn struct{}

var benchTotal atomic.Int64

func (*totalFn) ProcessElement(n int) { benchTotal.Store(int64(n)) }

func init() {
	register.DoFn2x0[int, func(Row)](&genRowsFn{})
	register.DoFn2x0[Embedded, func(int)](&countFn{})
	register.DoFn2x0[Row, func(int)](&countRowsFn{})
	register.Function2x1(sumInts)
	register.DoFn1x0[int](&totalFn{})
	register.Emitter1[int]()
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
// (blocks of DefaultBlock rows, as Project forms them: "inprocess" one
// block after the other, each Transform parallel inside as the engine makes
// it; "inprocess-par" besides one goroutine per GOMAXPROCS taking blocks)
// with the prism pipeline that generates the same rows on the workers and
// projects them, and with the same pipeline without Project (gen), whose
// time is the pipeline's own overhead. Both pipelines end in the sum of
// their per-bundle row counts (beam.Combine), checked against n. Each runs
// at n and at benchScale·n rows (the sub-benchmark's rows= part): the
// difference of the two times over (benchScale − 1)·n rows is the cost of a
// row in the steady state, without the runner's cost of a job (80–160 ms on
// prism, paid once however many rows a job maps), which is what a
// throughput is; docs/scale-out.md derives the rates so. Run with -cpu 1,2.
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
		for _, n := range []int{c.n, benchScale * c.n} {
			benchProjectRows(b, c, m, path, n)
		}
	}
}

// benchScale is the ratio of BenchmarkProject's two row counts.
const benchScale = 5

// benchProjectRows is BenchmarkProject's four sub-benchmarks for one model
// and n rows.
func benchProjectRows(b *testing.B, c benchCase, m engine.Model, path string, n int) {
	ctx := context.Background()
	c.n = n
	sub := "/rows=" + strconv.Itoa(n)
	x := benchData(c.n, c.d, 12)
	b.Run(c.name+"/inprocess"+sub, func(b *testing.B) {
		for b.Loop() {
			for lo := 0; lo < c.n; lo += DefaultBlock {
				hi := min(c.n, lo+DefaultBlock)
				if _, err := m.Transform(ctx, x.Slice(lo, hi, 0, c.d)); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run(c.name+"/inprocess-par"+sub, func(b *testing.B) {
		for b.Loop() {
			var next atomic.Int64
			var wg sync.WaitGroup
			errs := make(chan error, runtime.GOMAXPROCS(0))
			for range runtime.GOMAXPROCS(0) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						lo := int(next.Add(DefaultBlock)) - DefaultBlock
						if lo >= c.n {
							return
						}
						hi := min(c.n, lo+DefaultBlock)
						if _, err := m.Transform(ctx, x.Slice(lo, hi, 0, c.d)); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
		}
	})
	for _, project := range []bool{false, true} {
		name := c.name + "/gen" + sub
		if project {
			name = c.name + "/pipeline" + sub
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				p, s := beam.NewPipelineWithRoot()
				shards := []int{0, 1, 2, 3, 4, 5, 6, 7}
				rows := beam.ParDo(s, &genRowsFn{N: c.n, D: c.d, Shards: len(shards), Seed: 12}, beam.CreateList(s, shards))
				var counts beam.PCollection
				if project {
					emb, _ := Project(s, path, rows, benchProjectOptions())
					counts = beam.ParDo(s, &countFn{}, emb)
				} else {
					counts = beam.ParDo(s, &countRowsFn{}, rows)
				}
				beam.ParDo0(s, &totalFn{}, beam.Combine(s, sumInts, counts))
				benchTotal.Store(-1)
				if err := ptest.Run(p); err != nil {
					b.Fatal(err)
				}
				if got := benchTotal.Load(); got != int64(c.n) {
					b.Fatalf("%d rows counted, want %d", got, c.n)
				}
			}
		})
	}
}

// benchProjectOptions are the options BenchmarkProject's pipeline passes.
// Parallel as manifold-beam project sets it on prism (one block a CPU), or
// MANIFOLD_BENCH_PARALLEL (1: one block at a time, as before Parallel).
func benchProjectOptions() ProjectOptions {
	if p, err := strconv.Atoi(os.Getenv("MANIFOLD_BENCH_PARALLEL")); err == nil && p > 0 {
		return ProjectOptions{Parallel: p}
	}
	return ProjectOptions{Parallel: runtime.GOMAXPROCS(0)}
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
