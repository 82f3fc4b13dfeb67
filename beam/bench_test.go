//go:build !beam_unit

package manifoldbeam

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
// the benchmark's process) and passes it on, keyed, to a GroupByKey that
// ends the pipeline: a stage without outputs costs prism a busy core while
// its bundle runs (docs/scale-out.md), up to 150 ms a job at 1 proc and
// varying, where the GroupByKey is the runner's own step and ends at once.
type totalFn struct{}

var benchTotal atomic.Int64

func (*totalFn) ProcessElement(n int) (int, int) {
	benchTotal.Store(int64(n))
	return 0, n
}

func init() {
	register.DoFn2x0[int, func(Row)](&genRowsFn{})
	register.DoFn2x0[Embedded, func(int)](&countFn{})
	register.DoFn2x0[Row, func(int)](&countRowsFn{})
	register.Function2x1(sumInts)
	register.DoFn1x2[int, int, int](&totalFn{})
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

// benchData is n rows of a swiss roll in d features (d ≥ 3), in a random
// order. rollData's rows follow the roll, so 256 consecutive rows lie close
// together, which favours a block's neighbour searches (one part of the
// tree, warm in the caches); real rows arrive in no such order, and the
// pipeline's shards (every eighth row) would see less of it than the
// in-process blocks of consecutive rows.
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
	out := mat.NewDense(n, d, nil)
	for i, p := range rng.Perm(n) {
		out.SetRow(i, x.RawRowView(p))
	}
	return out
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
	x := cachedBenchData(n, c.d, 12) // the pipeline's workers generate these rows too
	variants := []struct {
		name string
		run  func() error
	}{
		{"inprocess", func() error { return transformBlocks(m, x, n) }},
		{"inprocess-par", func() error { return transformBlocksPar(m, x, n) }},
		{"gen", func() error { return runPipeline(c.d, path, n, false) }},
		{"pipeline", func() error { return runPipeline(c.d, path, n, true) }},
	}
	for _, v := range variants {
		b.Run(c.name+"/"+v.name+"/rows="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				if err := v.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// transformBlocks is the in-process Transform of the first n rows of x in
// blocks of DefaultBlock rows, as Project forms them, one block after the
// other (each Transform parallel inside as the engine makes it).
func transformBlocks(m engine.Model, x *mat.Dense, n int) error {
	_, d := x.Dims()
	for lo := 0; lo < n; lo += DefaultBlock {
		if _, err := m.Transform(context.Background(), x.Slice(lo, min(n, lo+DefaultBlock), 0, d)); err != nil {
			return err
		}
	}
	return nil
}

// transformBlocksPar is transformBlocks with one goroutine per GOMAXPROCS
// taking blocks.
func transformBlocksPar(m engine.Model, x *mat.Dense, n int) error {
	_, d := x.Dims()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, runtime.GOMAXPROCS(0))
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				lo := int(next.Add(DefaultBlock)) - DefaultBlock
				if lo >= n {
					return
				}
				if _, err := m.Transform(context.Background(), x.Slice(lo, min(n, lo+DefaultBlock), 0, d)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs // nil when no worker failed
}

// runPipeline runs on prism the pipeline that generates n rows of d
// features on the workers (benchData's, seed 12) and, with project, maps
// them with the model at path (else only counts them: the pipeline's own
// cost), ending in the sum of the per-bundle counts, checked against n.
func runPipeline(d int, path string, n int, project bool) error {
	p, s := beam.NewPipelineWithRoot()
	shards := []int{0, 1, 2, 3, 4, 5, 6, 7}
	rows := beam.ParDo(s, &genRowsFn{N: n, D: d, Shards: len(shards), Seed: 12}, beam.CreateList(s, shards))
	var counts beam.PCollection
	if project {
		emb, _ := Project(s, path, rows, benchProjectOptions())
		counts = beam.ParDo(s, &countFn{}, emb)
	} else {
		counts = beam.ParDo(s, &countRowsFn{}, rows)
	}
	beam.GroupByKey(s, beam.ParDo(s, &totalFn{}, beam.Combine(s, sumInts, counts)))
	benchTotal.Store(-1)
	if err := ptest.Run(p); err != nil {
		return err
	}
	if got := benchTotal.Load(); got != int64(n) {
		return fmt.Errorf("%d rows counted, want %d", got, n)
	}
	return nil
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

// rateRows are BenchmarkProjectRates' smaller row counts, by model: a run
// of a few hundred milliseconds, so that the fixed cost of a prism job
// (80–160 ms at 1 proc) is a small part of the larger run's time.
var rateRows = map[string]int{"pca784": 20000, "landmark-isomap": 50000, "lle": 50000}

// BenchmarkProjectRates measures the throughput of Project against the
// in-process Transform of the same model on the same rows with the runs
// paired: each repetition runs the in-process Transform (blocks one after
// the other, and a goroutine per core taking blocks) and the pipeline at n
// and at benchScale·n rows, in an order rotated from one repetition to the
// next, and takes the marginal cost of a row of each, (T(5n) − T(n)) / 4n,
// and their ratios within the repetition. It reports the medians over the
// repetitions (MANIFOLD_RATE_REPS, default 16) and logs each repetition.
// A machine whose speed drifts moves both sides of a ratio together, which
// the ratio of medians over separate runs (BenchmarkProject with
// bench_rates.py) does not cancel. Run it once per -cpu value:
//
//	go test -c -o /tmp/beambench . && /tmp/beambench -test.run XXX -test.bench BenchmarkProjectRates -test.benchtime 1x -test.cpu 1,2 -test.v
func BenchmarkProjectRates(b *testing.B) {
	reps := 16
	if r, err := strconv.Atoi(os.Getenv("MANIFOLD_RATE_REPS")); err == nil && r > 0 {
		reps = r
	}
	dir := b.TempDir()
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			m, err := c.fit(context.Background(), benchData(c.trainN, c.d, 11))
			if err != nil {
				b.Fatal(err)
			}
			path := saveModelB(b, m, dir, c.name)
			if err := engine.Prepare(m); err != nil {
				b.Fatal(err)
			}
			n := rateRows[c.name]
			sizes := []int{n, benchScale * n}
			// The rows the pipeline's workers generate, the same matrices.
			xs := []*mat.Dense{cachedBenchData(sizes[0], c.d, 12), cachedBenchData(sizes[1], c.d, 12)}
			variants := []string{"inprocess", "inprocess-par", "pipeline"}
			run := func(v string, s int) error {
				switch v {
				case "inprocess":
					return transformBlocks(m, xs[s], sizes[s])
				case "inprocess-par":
					return transformBlocksPar(m, xs[s], sizes[s])
				}
				return runPipeline(c.d, path, sizes[s], true)
			}
			// perRow[v][r]: the marginal µs a row of variant v in repetition r.
			perRow := make([][]float64, len(variants))
			for b.Loop() {
				for r := range reps {
					var t [3][2]float64
					for k := range 2 * len(variants) {
						j := (k + r) % (2 * len(variants)) // rotate the order
						v, s := j%len(variants), j/len(variants)
						start := time.Now()
						if err := run(variants[v], s); err != nil {
							b.Fatal(err)
						}
						t[v][s] = time.Since(start).Seconds()
					}
					for v := range variants {
						perRow[v] = append(perRow[v], (t[v][1]-t[v][0])/float64(sizes[1]-sizes[0])*1e6)
					}
					b.Logf("rep %d: µs a row inprocess %.3f, inprocess-par %.3f, pipeline %.3f; pipeline / inprocess %.3f, / inprocess-par %.3f",
						r, perRow[0][r], perRow[1][r], perRow[2][r], perRow[2][r]/perRow[0][r], perRow[2][r]/perRow[1][r])
				}
			}
			ratio := func(v int) []float64 {
				q := make([]float64, reps)
				for r := range reps {
					q[r] = perRow[2][r] / perRow[v][r]
				}
				return q
			}
			for v, name := range variants {
				b.ReportMetric(median(perRow[v]), "µs/row-"+name)
			}
			r0, r1 := ratio(0), ratio(1)
			b.ReportMetric(median(r0), "pipeline/inprocess")
			b.ReportMetric(median(r1), "pipeline/inprocess-par")
			b.Logf("%s at %d procs, %d repetitions of %d and %d rows: pipeline / inprocess median %.3f (%.3f–%.3f), pipeline / inprocess-par median %.3f (%.3f–%.3f)",
				c.name, runtime.GOMAXPROCS(0), reps, sizes[0], sizes[1],
				median(r0), slices.Min(r0), slices.Max(r0), median(r1), slices.Min(r1), slices.Max(r1))
		})
	}
}

// median is the median of v (v is not changed).
func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
