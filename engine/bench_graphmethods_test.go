package engine_test

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/enginetest"
)

// Fits of LPP, NPE, LSI, LTSA and Laplacian eigenmaps on the 2000-point swiss roll (noise 0.05) and on the
// Reuters-21578 documents (unit length, sparse, 8293 × 18933; skipped when
// ../shared/data is absent), with the default settings but Dim. Each
// reports the fit's predicted flam per second (GFLAM/s) beside ns/op.
//
//	flock /tmp/manifold-bench.lock go test -run '^$' -bench Baselines -count 3 ./engine/
//	flock /tmp/manifold-bench.lock go test -tags openblas -run '^$' -bench Baselines -count 3 ./engine/
func BenchmarkGraphMethodsSwiss(b *testing.B) {
	x, _ := datasets.SwissRoll(2000, 0.05, 1)
	dense := enginetest.Settings{Tune: func(p any) { p.(*engine.LTSA).Eigensolver = engine.EigenDense }}
	benchMethods(b, x, "", []benchCase{{"lpp", "lpp", enginetest.Settings{}}, {"npe", "npe", enginetest.Settings{}},
		{"lsi", "lsi", enginetest.Settings{}}, {"ltsa", "ltsa", enginetest.Settings{}}, {"ltsa-dense", "ltsa", dense},
		{"laplacian", "laplacian", enginetest.Settings{}}})
}

func BenchmarkGraphMethodsReuters(b *testing.B) {
	a := loadReuters(b)
	s := enginetest.Settings{Dim: 10}
	benchMethods(b, a, "", []benchCase{{"lsi", "lsi", s}, {"lpp", "lpp", s}, {"npe", "npe", s}})
}

// benchCase is one benchmark: a method of enginetest and its settings.
type benchCase struct {
	name, method string
	s            enginetest.Settings
}

// benchMethods runs benchFit for each case on x, named method=NAME and
// suffix.
func benchMethods(b *testing.B, x mat.Matrix, suffix string, cases []benchCase) {
	ctx := context.Background()
	for _, c := range cases {
		m, ok := enginetest.Lookup(c.method)
		if !ok {
			b.Fatalf("no method %q", c.method)
		}
		b.Run("method="+c.name+suffix, func(b *testing.B) {
			benchFit(b, func() (engine.Model, error) { return m.Fit(ctx, x, c.s) })
		})
	}
}

func benchFit(b *testing.B, fit func() (engine.Model, error)) {
	var rep engine.Report
	for i := 0; i < b.N; i++ {
		m, err := fit()
		if err != nil {
			b.Fatal(err)
		}
		rep = m.Report()
	}
	fl := 0.0
	for _, s := range rep.Stages {
		fl += s.FlamPredicted
	}
	b.ReportMetric(fl/rep.Seconds/1e9, "GFLAM/s")
	b.ReportMetric(float64(rep.PeakHeapBytes-rep.BaseHeapBytes)/(1<<20), "peakMiB")
}
