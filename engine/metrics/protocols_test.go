package metrics

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// The leave-one-out predictions equal scikit-learn's
// LinearDiscriminantAnalysis with LeaveOneOut, sample by sample, on the
// LDA fixtures of engine/testdata (made by engine/testdata/make_fixtures_lda.py).
func TestFLDALeaveOneOutPredictionsAgainstSklearn(t *testing.T) {
	for _, name := range []string{"lda_blobs3", "lda_blobs5"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "sklearn_"+name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			X          [][]float64 `json:"X"`
			Y          []int       `json:"y"`
			LOOPredict []int       `json:"loo_predict"`
		}
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		acc, pred, err := FLDALeaveOneOutRidge(context.Background(), dense(f.X), f.Y, 0)
		if err != nil {
			t.Fatal(err)
		}
		right := 0
		for i, p := range pred {
			if p != f.LOOPredict[i] {
				t.Errorf("%s: leave-one-out prediction %d = %d, scikit-learn %d", name, i, p, f.LOOPredict[i])
			}
			if p == f.Y[i] {
				right++
			}
		}
		if acc != float64(right)/float64(len(f.Y)) {
			t.Errorf("%s: accuracy %v for %d of %d right", name, acc, right, len(f.Y))
		}
	}
}

// loadShared reads a data set of ../shared/data (X as .csv.gz, labels as
// _y.txt), skipping the test with the reason when it is absent.
func loadShared(t *testing.T, tag string) (*mat.Dense, []int) {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "data", tag)
	x, err := dataio.ReadMatrixFile(filepath.Join(dir, tag+"_X.csv.gz"))
	if err != nil {
		t.Skipf("real data %s not available (%v): place ../shared/data beside the repository", tag, err)
	}
	lab, err := dataio.ReadLabelsFile(filepath.Join(dir, tag+"_y.txt"))
	if err != nil {
		t.Skipf("labels of %s not available (%v)", tag, err)
	}
	return x.(*mat.Dense), lab.Class
}

// The protocol of Tables 5–6 on Yale (165 faces, 15 people): unsupervised
// Low-Rank Isomap (Alg. 1, 20 k-means clusters) then FLDA leave-one-out in
// the latent space, against the same with the classes as the groups of
// S_B and S_W, where the held-out labels leak into the projection and the
// accuracy reaches the paper's 99.8 % even in two dimensions.
func TestLowRankIsomapLeaveOneOutYale(t *testing.T) {
	testmode.Skip(t, "about 2 s of fits on Yale")
	ctx := context.Background()
	x, labels := loadShared(t, "yale32")
	acc, m, err := LowRankIsomapLeaveOneOut(ctx, engine.LowRankIsomap{Dim: 10, Seed: 1}, x, labels)
	if err != nil {
		t.Fatal(err)
	}
	st := m.LRRStats()
	t.Logf("unsupervised, 20 clusters, m = 10: FLDA leave-one-out %.4f; rank(Z_B) %d, residuals %.2g %.2g, %d iterations, ridge %.3g",
		acc, st.Rank, st.PrimalResidual, st.ZJResidual, st.Iterations, m.Ridge())
	if acc < 0.3 || acc > 0.7 {
		t.Errorf("unsupervised leave-one-out accuracy %.4f outside the [0.3, 0.7] measured when this test was written (chance: 1/15)", acc)
	}
	if st.PrimalResidual > 1e-6 || st.ZJResidual > 1e-6 {
		t.Errorf("LRR residuals %g, %g above ε₁", st.PrimalResidual, st.ZJResidual)
	}
	sup, _, err := LowRankIsomapLeaveOneOut(ctx, engine.LowRankIsomap{Dim: 2, Labels: labels}, x, labels)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("supervised (labels leak), m = 2: FLDA leave-one-out %.4f", sup)
	if sup < 0.95 {
		t.Errorf("supervised leave-one-out accuracy %.4f", sup)
	}
}
