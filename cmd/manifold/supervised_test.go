package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/admm"
	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// curved10 writes 150 points on a curled 2-D sheet in 10 dimensions, three
// classes along the sheet, as curved.npy and curved.labels, and returns
// them.
func curved10(t *testing.T, dir string) (*mat.Dense, []int) {
	t.Helper()
	const n, d = 150, 10
	x := mat.NewDense(n, d, nil)
	labels := make([]int, n)
	var l strings.Builder
	for i := 0; i < n; i++ {
		u := 3 * float64(i) / n
		v := math.Mod(float64(i)*0.618034, 1) * 2
		for j := 0; j < d; j++ {
			f := float64(j + 1)
			x.Set(i, j, math.Sin(f*u/2+v)*(1+0.3*f)+0.2*float64(j%3)*v+0.05*math.Cos(float64(7*i+3*j)))
		}
		labels[i] = i * 3 / n
		fmt.Fprintf(&l, "c%d\n", labels[i])
	}
	if err := dataio.WriteMatrixFile(filepath.Join(dir, "curved.npy"), x); err != nil {
		t.Fatal(err)
	}
	putFile(t, filepath.Join(dir, "curved.labels"), l.String())
	return x, labels
}

func readMatrix(t *testing.T, path string) mat.Matrix {
	t.Helper()
	m, err := dataio.ReadMatrixFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// embed + project round trips of OIP, TDPM, Low-Rank Isomap and LDA: embed writes the
// engine's embedding, the saved model maps the training rows onto it and
// maps new rows as the engine's model does.
func TestSupervisedMethodsRoundTrips(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "every supervised method's round trip")
	dir := t.TempDir()
	x, labels := curved10(t, dir)
	ctx := context.Background()
	xn := mat.DenseCopyOf(x.Slice(0, 20, 0, 10))
	xn.Apply(func(i, j int, v float64) float64 { return v + 0.01*math.Sin(float64(i+j)) }, xn)
	if err := dataio.WriteMatrixFile(filepath.Join(dir, "new.npy"), xn); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		fit  func() (engine.Model, error)
	}{
		{"oip", []string{"-k", "8", "-dim", "3"}, func() (engine.Model, error) {
			return asModel(engine.OIP{Dim: 3, K: 8}.Fit(ctx, x))
		}},
		{"tdpm", []string{"-k", "10", "-dim", "2", "-tangent-dim", "2"}, func() (engine.Model, error) {
			return asModel(engine.TDPM{Dim: 2, K: 10, TangentDim: 2}.Fit(ctx, x))
		}},
		{"soip", []string{"-k", "8", "-dim", "3", "-alpha", "0.5"}, func() (engine.Model, error) {
			return asModel(engine.SOIP{Dim: 3, K: 8, Alpha: 0.5}.Fit(ctx, x))
		}},
		{"lowrank-isomap", []string{"-landmarks", "6", "-alpha", "0.5", "-seed", "4"}, func() (engine.Model, error) {
			return asModel(engine.LowRankIsomap{Dim: 2, Landmarks: 6, LRR: admm.LRRSettings{Lambda: 0.5}, Seed: 4}.Fit(ctx, x))
		}},
		{"lda", []string{"-alpha", "0.01"}, func() (engine.Model, error) {
			return asModel(engine.LDA{Dim: 2, Labels: labels, Reg: 0.01}.Fit(ctx, x))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := c.fit()
			if err != nil {
				t.Fatal(err)
			}
			args := append([]string{"embed", "-method", c.name, "-in", "curved.npy", "-labels", "curved.labels",
				"-out", c.name + ".npy", "-model", c.name + ".model", "-report", c.name + ".json"}, c.args...)
			mustSucceed(t, dir, args...)
			got := readMatrix(t, filepath.Join(dir, c.name+".npy"))
			if !equalApprox(got, want.Embedding(), 1e-9*math.Max(1, mat.Norm(want.Embedding(), math.Inf(1)))) {
				t.Fatalf("embed -method %s differs from the engine's embedding", c.name)
			}
			mustSucceed(t, dir, "project", "-model", c.name+".model", "-in", "curved.npy", "-out", "p.npy")
			if p := readMatrix(t, filepath.Join(dir, "p.npy")); !equalApprox(p, want.Embedding(), 1e-7*math.Max(1, mat.Norm(want.Embedding(), math.Inf(1)))) {
				t.Errorf("project of the training rows differs from the embedding")
			}
			mustSucceed(t, dir, "project", "-model", c.name+".model", "-in", "new.npy", "-out", "q.npy")
			wantNew, err := want.Transform(ctx, xn)
			if err != nil {
				t.Fatal(err)
			}
			if q := readMatrix(t, filepath.Join(dir, "q.npy")); !equalApprox(q, wantNew, 1e-9*math.Max(1, mat.Norm(wantNew, math.Inf(1)))) {
				t.Errorf("project of new rows differs from the engine's Transform")
			}
		})
	}
}

// The §4.3 pipeline of Zhao & Jiang, TDPM from the
// command line, as cmd/manifold/doc.go shows it: TDPM to h = 6 dimensions,
// then Isomap of those coordinates to 2.
func TestTDPMPipeline(t *testing.T) {
	skipUnderRace(t, "the TDPM pipeline's flags")
	dir := t.TempDir()
	x, _ := curved10(t, dir)
	mustSucceed(t, dir, "embed", "-method", "tdpm", "-in", "curved.npy", "-dim", "6", "-tangent-dim", "2", "-k", "12", "-out", "h.npy")
	mustSucceed(t, dir, "embed", "-method", "isomap", "-in", "h.npy", "-dim", "2", "-k", "8", "-out", "y.csv")
	ctx := context.Background()
	h, err := engine.TDPM{Dim: 6, TangentDim: 2, K: 12}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	if got := readMatrix(t, filepath.Join(dir, "h.npy")); !equalApprox(got, h.Embedding(), 1e-9*mat.Norm(h.Embedding(), math.Inf(1))) {
		t.Fatal("tdpm -dim 6 differs from the engine's TDPM")
	}
	iso, err := engine.Isomap{Dim: 2, K: 8}.Fit(ctx, h.Embedding())
	if err != nil {
		t.Fatal(err)
	}
	if got := readMatrix(t, filepath.Join(dir, "y.csv")); !equalApprox(got, iso.Embedding(), 1e-6*mat.Norm(iso.Embedding(), math.Inf(1))) {
		t.Error("isomap of the TDPM coordinates differs from the engine's")
	}
}
