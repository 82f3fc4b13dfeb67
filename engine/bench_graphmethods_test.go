package engine

import (
	"context"
	"testing"

	"github.com/manifoldlab/manifold/engine/datasets"
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
	ctx := context.Background()
	fits := []struct {
		name string
		fit  func() (Model, error)
	}{
		{"lpp", func() (Model, error) { return asModelT(LPP{}.Fit(ctx, x)) }},
		{"npe", func() (Model, error) { return asModelT(NPE{}.Fit(ctx, x)) }},
		{"lsi", func() (Model, error) { return asModelT(LSI{}.Fit(ctx, x)) }},
		{"ltsa", func() (Model, error) { return asModelT(LTSA{}.Fit(ctx, x)) }},
		{"ltsa-dense", func() (Model, error) { return asModelT(LTSA{Eigensolver: EigenDense}.Fit(ctx, x)) }},
		{"laplacian", func() (Model, error) { return asModelT(LaplacianEigenmaps{}.Fit(ctx, x)) }},
	}
	for _, f := range fits {
		b.Run("method="+f.name, func(b *testing.B) { benchFit(b, f.fit) })
	}
}

func BenchmarkGraphMethodsReuters(b *testing.B) {
	a := loadReuters(b)
	ctx := context.Background()
	fits := []struct {
		name string
		fit  func() (Model, error)
	}{
		{"lsi", func() (Model, error) { return asModelT(LSI{Dim: 10}.Fit(ctx, a)) }},
		{"lpp", func() (Model, error) { return asModelT(LPP{Dim: 10}.Fit(ctx, a)) }},
		{"npe", func() (Model, error) { return asModelT(NPE{Dim: 10}.Fit(ctx, a)) }},
	}
	for _, f := range fits {
		b.Run("method="+f.name, func(b *testing.B) { benchFit(b, f.fit) })
	}
}

func benchFit(b *testing.B, fit func() (Model, error)) {
	var rep Report
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
