package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// Laplacian eigenmaps with binary weights (WeightBinary) equal
// scikit-learn's SpectralEmbedding of the binary OR-rule kNN graph
// (testdata/make_fixtures_spectral.py), on the dense path (400 points) and
// on the certified shift-invert path (1500 swiss-roll points, 1000 digits):
// Procrustes disparity ≤ 1e-6.
func TestLaplacianBinaryAgainstSklearn(t *testing.T) {
	for _, name := range []string{"spectral_binary_swiss400", "spectral_binary_swiss1500", "spectral_binary_usps1000"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "graphmethods_"+name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var f struct {
				Tag       string      `json:"tag"`
				Rows      int         `json:"rows"`
				X         [][]float64 `json:"X"`
				K         int         `json:"k"`
				Dim       int         `json:"dim"`
				Embedding [][]float64 `json:"embedding"`
			}
			if err := json.Unmarshal(raw, &f); err != nil {
				t.Fatal(err)
			}
			var x *mat.Dense
			if f.Tag != "" {
				x = digitRows(t, f.Rows)
			} else {
				x = rowsToDense(f.X)
			}
			m := engine.MustFit(t, context.Background(), engine.LaplacianEigenmaps{Dim: f.Dim, K: f.K, Weight: engine.WeightBinary}.Fit, x)
			d := procrustes(t, rowsToDense(f.Embedding), m.Embedding())
			t.Logf("Procrustes disparity %.3g; %s", d, stageDetail(m.Report(), "eigensolve"))
			if d > 1e-6 {
				t.Errorf("Procrustes disparity %g to scikit-learn (> 1e-6)", d)
			}
		})
	}
}
