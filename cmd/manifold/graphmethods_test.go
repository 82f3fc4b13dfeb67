package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// The baseline methods end to end: embed writes what the engine computes
// with the same settings, the saved model maps the training rows onto the
// embedding (project), and the method-specific flags reach the engine.
func TestGraphMethodsEmbedAndProject(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "every graph method's embed and project")
	dir := t.TempDir()
	x := testData(t, dir)
	labels, err := dataio.ReadLabelsFile(filepath.Join(dir, "roll.labels"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cases := []struct {
		method string
		args   []string
		fit    func() (engine.Model, error)
	}{
		{"lpp", []string{"-k", "7"}, func() (engine.Model, error) {
			return asModel(engine.LPP{Dim: 2, K: 7}.Fit(ctx, x))
		}},
		{"lpp", []string{"-supervised", "-labels", "roll.labels", "-k", "5"}, func() (engine.Model, error) {
			return asModel(engine.LPP{Dim: 2, K: 5, Labels: labels.Class}.Fit(ctx, x))
		}},
		{"isoprojection", []string{"-supervised", "-labels", "roll.labels", "-k", "5"}, func() (engine.Model, error) {
			return asModel(engine.IsoProjection{Dim: 2, K: 5, Labels: labels.Class}.Fit(ctx, x))
		}},
		{"isoprojection", []string{"-supervised", "-labels", "roll.labels", "-k", "5", "-supervised-geodesic", "join"}, func() (engine.Model, error) {
			return asModel(engine.IsoProjection{Dim: 2, K: 5, Labels: labels.Class, Between: engine.SupervisedJoin}.Fit(ctx, x))
		}},
		{"npe", []string{"-k", "8", "-alpha", "0.01", "-dim", "1"}, func() (engine.Model, error) {
			return asModel(engine.NPE{Dim: 1, K: 8, Reg: 0.01}.Fit(ctx, x))
		}},
		{"ltsa", []string{"-k", "9"}, func() (engine.Model, error) {
			return asModel(engine.LTSA{Dim: 2, K: 9}.Fit(ctx, x))
		}},
		{"laplacian", []string{"-k", "6"}, func() (engine.Model, error) {
			return asModel(engine.LaplacianEigenmaps{Dim: 2, K: 6}.Fit(ctx, x))
		}},
		{"lsi", []string{"-dim", "3"}, func() (engine.Model, error) {
			return asModel(engine.LSI{Dim: 3}.Fit(ctx, x))
		}},
	}
	for _, c := range cases {
		want, err := c.fit()
		if err != nil {
			t.Fatal(err)
		}
		args := append([]string{"embed", "-method", c.method, "-in", "roll.csv", "-model", c.method + ".model"}, c.args...)
		r := mustSucceed(t, dir, args...)
		got := parseCSV(t, r.stdout)
		if !equalApprox(got, want.Embedding(), 1e-9) {
			t.Errorf("%s %v: the command's embedding differs from the engine's", c.method, c.args)
			continue
		}
		r = mustSucceed(t, dir, "project", "-model", c.method+".model", "-in", "roll.csv")
		if p := parseCSV(t, r.stdout); !equalApprox(p, got, 1e-9) {
			t.Errorf("%s %v: project of the training rows differs from the embedding", c.method, c.args)
		}
	}
}

// Sparse MatrixMarket input stays sparse through lsi, lpp and npe, and a
// model fitted on it maps dense CSV rows too.
func TestGraphMethodsSparseInput(t *testing.T) {
	skipUnderRace(t, "sparse input to every graph method")
	dir := t.TempDir()
	x := testData(t, dir)
	a := sparse.FromDense(x)
	if err := sparse.WriteMatrixMarketFile(filepath.Join(dir, "roll.mtx"), a, sparse.MMOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"lsi", "lpp", "npe"} {
		dense := mustSucceed(t, dir, "embed", "-method", method, "-in", "roll.csv")
		r := mustSucceed(t, dir, "embed", "-method", method, "-in", "roll.mtx", "-model", method+".model")
		if !equalApprox(parseCSV(t, r.stdout), parseCSV(t, dense.stdout), 1e-8) {
			t.Errorf("%s: sparse and dense input embed differently", method)
		}
		p := mustSucceed(t, dir, "project", "-model", method+".model", "-in", "roll.csv")
		if !equalApprox(parseCSV(t, p.stdout), parseCSV(t, r.stdout), 1e-8) {
			t.Errorf("%s: the sparse model maps the dense rows differently", method)
		}
	}
}

func TestGraphMethodsFlagErrors(t *testing.T) {
	dir := t.TempDir()
	testData(t, dir)
	mustFail(t, dir, []string{"-disconnected does not apply to method lpp"},
		"embed", "-method", "lpp", "-in", "roll.csv", "-disconnected", "largest")
	mustFail(t, dir, []string{"-k does not apply to method lsi"}, "embed", "-method", "lsi", "-in", "roll.csv", "-k", "3")
	mustFail(t, dir, []string{"roll.csv", "ltsa", "k > dim"}, "embed", "-method", "ltsa", "-in", "roll.csv", "-k", "2")
	mustFail(t, dir, []string{"roll.csv", "lpp", "dim"}, "embed", "-method", "lpp", "-in", "roll.csv", "-dim", "5")
}
