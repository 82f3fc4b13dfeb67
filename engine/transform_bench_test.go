package engine

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/neighbors"
)

// uspsTrain reads the 7291 training rows of USPS (../shared/data), or
// skips.
func uspsTrain(tb testing.TB) (train, test *mat.Dense) {
	tb.Helper()
	path := filepath.Join("..", "..", "shared", "data", "usps9298", "usps9298_X.npy")
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("USPS not available (%v)", err)
	}
	m, err := dataio.ReadMatrixFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	d := m.(*mat.Dense)
	r, c := d.Dims()
	return mat.DenseCopyOf(d.Slice(0, 7291, 0, c)), mat.DenseCopyOf(d.Slice(7291, r, 0, c))
}

var uspsIsomapOnce struct {
	sync.Once
	m    Model
	test *mat.Dense
	err  error
}

// uspsIsomap fits (once per process) Isomap on the USPS training rows, or
// loads it from $MANIFOLD_USPS_ISOMAP when that file exists (a cache for
// benchmark runs: the fit takes tens of seconds).
func uspsIsomap(tb testing.TB) (Model, *mat.Dense) {
	train, test := uspsTrain(tb)
	o := &uspsIsomapOnce
	o.Do(func() {
		o.test = test
		cache := os.Getenv("MANIFOLD_USPS_ISOMAP")
		if cache != "" {
			if f, err := os.Open(cache); err == nil {
				defer f.Close()
				o.m, o.err = Load(f)
				return
			}
		}
		m, err := Isomap{}.Fit(context.Background(), train)
		if err != nil {
			o.err = err
			return
		}
		o.m = m
		if cache != "" {
			f, err := os.Create(cache)
			if err == nil {
				o.err = m.Save(f)
				f.Close()
			}
		}
	})
	if o.err != nil {
		tb.Fatal(o.err)
	}
	return o.m, o.test
}

func BenchmarkTransformIsomapUSPSOneRow(b *testing.B) {
	m, test := uspsIsomap(b)
	ctx := context.Background()
	_, c := test.Dims()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := i % 2007
		if _, err := m.Transform(ctx, test.Slice(r, r+1, 0, c)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTransformRowIsomapUSPS is the request path's target: one row
// into a caller's buffer, Isomap of the 7291 USPS training rows.
func BenchmarkTransformRowIsomapUSPS(b *testing.B) {
	m, test := uspsIsomap(b)
	ctx := context.Background()
	if err := Prepare(m); err != nil {
		b.Fatal(err)
	}
	dst := make([]float64, m.Dim())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := TransformRow(ctx, m, dst, test.RawRowView(i%2007)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTransformSearchUSPS times the request path's exact neighbour
// search alone (neighbors.Exact.KNN, k = 10) on the Isomap model's training
// rows, one test row at a time.
func BenchmarkTransformSearchUSPS(b *testing.B) {
	m, test := uspsIsomap(b)
	gi, err := m.(*IsomapModel).geo.get(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var sc neighbors.ExactScratch
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		gi.Exact().KNN(&sc, test.RawRowView(i%2007), 10)
	}
}

func BenchmarkTransformRowPCAUSPS(b *testing.B) {
	train, test := uspsTrain(b)
	ctx := context.Background()
	m, err := PCA{Dim: 2}.Fit(ctx, train)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]float64, 2)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := TransformRow(ctx, m, dst, test.RawRowView(i%2007)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTransformRollBlocks maps blocks of 256 new swiss-roll points
// through models of 2000 roll points that look their neighbours up
// exactly (the k-d tree of the training rows, built once per model by its
// Searcher).
func BenchmarkTransformRollBlocks(b *testing.B) {
	ctx := context.Background()
	train, _ := datasets.SwissRoll(2000, 0.05, 1)
	q, _ := datasets.SwissRoll(256, 0.05, 2)
	for _, c := range []struct {
		name string
		fit  func() (Model, error)
	}{
		{"lle", func() (Model, error) { return LLE{K: 10}.Fit(ctx, train) }},
		{"ltsa", func() (Model, error) { return LTSA{K: 10}.Fit(ctx, train) }},
		{"laplacian", func() (Model, error) { return LaplacianEigenmaps{K: 10}.Fit(ctx, train) }},
		{"tdpm", func() (Model, error) { return TDPM{K: 12}.Fit(ctx, train) }},
	} {
		m, err := c.fit()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := m.Transform(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*256), "ns/row")
		})
	}
}
