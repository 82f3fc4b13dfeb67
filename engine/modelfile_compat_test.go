package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/enginetest"
	"github.com/manifoldlab/manifold/sparse"
)

var updateModels = flag.Bool("update-models", false, "write the testdata/models files that are missing, from the current code (delete one first to rewrite it, only when its format changes on purpose)")

// modelFileCase is what testdata/models/<method>.json keeps beside the
// model file: the model's embedding and its Transform of new points, as
// the code that wrote the file computed them.
type modelFileCase struct {
	Method    string      `json:"method"`
	Embedding [][]float64 `json:"embedding"`
	Queries   [][]float64 `json:"queries"`
	Transform [][]float64 `json:"transform,omitempty"` // absent: the model maps no new points
}

// TestModelFilesLoad loads the model files committed in testdata/models —
// one per method and variant, each written by the code of the day it was
// added (go test ./engine -run TestModelFilesLoad -update-models writes the
// missing ones; lle-approx.model predates the neighbour lists that
// lle-approx-lists.model keeps) — and checks that they
// still load, and give the embedding and Transform they gave then (to
// 1e-12 of the largest value: the same arithmetic, up to reordered sums).
// A change of the codec or of a model's fields that old files cannot
// follow fails here.
func TestModelFilesLoad(t *testing.T) {
	dir := filepath.Join("testdata", "models")
	x, labels := engine.RelData(80, 5, 11)
	q, _ := engine.RelData(7, 5, 12)
	ctx := context.Background()
	for _, m := range append(enginetest.Methods, modelFileVariants(x, labels)...) {
		path := filepath.Join(dir, m.Name+".model")
		if _, err := os.Stat(path); *updateModels && err != nil {
			model, err := relFit(ctx, m, x, enginetest.Settings{Dim: 2, Seed: 3}, labels)
			if err != nil {
				t.Fatalf("%s: %v", m.Name, err)
			}
			writeModelFile(t, path, model, q)
		}
		var want modelFileCase
		raw, err := os.ReadFile(filepath.Join(dir, m.Name+".json"))
		if err != nil {
			t.Fatalf("%s: %v (a method without a committed model file: run with -update-models)", m.Name, err)
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		model, err := engine.Load(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if model.Method() != want.Method {
			t.Fatalf("%s: loaded a %q model", m.Name, model.Method())
		}
		compareRows(t, m.Name+" embedding", model.Embedding(), want.Embedding)
		y, err := model.Transform(ctx, mat.NewDense(len(want.Queries), len(want.Queries[0]), flatten(want.Queries)))
		switch {
		case want.Transform == nil:
			if !errors.Is(err, engine.ErrNoTransform) {
				t.Fatalf("%s: Transform of a model that mapped no new points: %v", m.Name, err)
			}
		case err != nil:
			t.Fatalf("%s: Transform: %v", m.Name, err)
		default:
			compareRows(t, m.Name+" transform", y, want.Transform)
		}
	}
}

// modelFileVariants are the model files whose optional fields the
// defaults leave out: approximate-neighbour indexes, float32 geodesics,
// sparse input, a supervised graph.
func modelFileVariants(x *mat.Dense, labels []int) []enginetest.Method {
	approx := enginetest.Settings{Dim: 2, Seed: 3, Options: engine.Options{Neighbors: engine.Neighbors{Search: engine.NeighborsApprox}}}
	sp := denseToCSR(x)
	// like returns method, fitted with s (to input instead of x when set),
	// under another name.
	like := func(name, method string, s enginetest.Settings, input mat.Matrix) enginetest.Method {
		m, ok := enginetest.Lookup(method)
		if !ok {
			panic("no method " + method)
		}
		fit := m.Fit
		m.Name = name
		m.Fit = func(ctx context.Context, x mat.Matrix, _ enginetest.Settings) (engine.Model, error) {
			if input != nil {
				x = input
			}
			return fit(ctx, x, s)
		}
		return m
	}
	return []enginetest.Method{
		like("isomap-approx", "isomap", approx, nil),
		like("lle-approx", "lle", approx, nil),
		like("lle-approx-lists", "lle", approx, nil),
		like("ltsa-approx-lists", "ltsa", approx, nil),
		like("laplacian-approx-lists", "laplacian", approx, nil),
		// Written once the index's tree was kept (the -lists and plain
		// approx files above predate it and grow theirs on first use).
		like("isomap-approx-tree", "isomap", approx, nil),
		like("landmark-isomap-approx-tree", "landmark-isomap", approx, nil),
		like("lle-approx-tree", "lle", approx, nil),
		like("ltsa-approx-tree", "ltsa", approx, nil),
		like("laplacian-approx-tree", "laplacian", approx, nil),
		like("isomap-float32-supervised", "isomap-float32", enginetest.Settings{Dim: 2, Seed: 3, K: 6, Labels: labels}, nil),
		like("lpp-sparse", "lpp", enginetest.Settings{Dim: 2, Seed: 3}, sp),
		like("lsi-sparse", "lsi", enginetest.Settings{Dim: 2, Seed: 3}, sp),
	}
}

func writeModelFile(t *testing.T, path string, m engine.Model, q *mat.Dense) {
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	c := modelFileCase{Method: m.Method(), Embedding: rows(m.Embedding()), Queries: rows(q)}
	if y, err := m.Transform(context.Background(), q); err == nil {
		c.Transform = rows(y)
	} else if !errors.Is(err, engine.ErrNoTransform) {
		t.Fatalf("%s: %v", m.Method(), err)
	}
	js, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path[:len(path)-len(".model")]+".json", append(js, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rows(m *mat.Dense) [][]float64 {
	r, _ := m.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = append([]float64(nil), m.RawRowView(i)...)
	}
	return out
}

func flatten(rs [][]float64) []float64 {
	var out []float64
	for _, r := range rs {
		out = append(out, r...)
	}
	return out
}

// compareRows fails when got differs from want by more than 1e-12 of
// want's largest magnitude.
func compareRows(t *testing.T, what string, got *mat.Dense, want [][]float64) {
	t.Helper()
	r, c := got.Dims()
	if r != len(want) || (r > 0 && c != len(want[0])) {
		t.Fatalf("%s: %d×%d, the file's %d rows", what, r, c, len(want))
	}
	scale := 0.0
	for _, row := range want {
		for _, v := range row {
			scale = max(scale, math.Abs(v))
		}
	}
	for i, row := range want {
		for j, v := range row {
			if d := math.Abs(got.At(i, j) - v); !(d <= 1e-12*scale) {
				t.Fatalf("%s: [%d,%d] = %v, the file's %v", what, i, j, got.At(i, j), v)
			}
		}
	}
}

// denseToCSR returns x as a sparse matrix (its nonzero entries).
func denseToCSR(x *mat.Dense) *sparse.CSR {
	r, c := x.Dims()
	t := sparse.NewCOO(r, c, r*c)
	for i := 0; i < r; i++ {
		for j, v := range x.RawRowView(i) {
			if v != 0 {
				t.Add(i, j, v)
			}
		}
	}
	return t.ToCSR()
}
