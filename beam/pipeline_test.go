//go:build !beam_unit

package manifoldbeam

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/manifoldlab/manifold/beam/internal/testtmp"
	"github.com/manifoldlab/manifold/engine"
)

// The helpers of the tests that run pipelines on prism. Those tests'
// files carry the build constraint !beam_unit: with -tags beam_unit only
// the tests that call the package's functions, CombineFns and DoFns
// directly are built, without prism (build/ci-beam.sh runs them under
// -race; see the README's Tests).

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

// TestMain runs the tests on prism, in a temporary directory of their own
// (testtmp: prism leaves a file there for every pipeline).
func TestMain(m *testing.M) {
	testtmp.Main(func() int { return ptest.MainRetWithDefault(m, "prism") })
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
	return loadModelFile(t, path)
}
