package main

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/admm"
	"github.com/manifoldlab/manifold/engine"
)

// The method names and the flags each reads are the command-line contract
// of docs/design.md.
func TestMethodTable(t *testing.T) {
	contract := []string{
		"pca", "mds",
		"isomap -k -eps -disconnected -supervised -supervised-geodesic -float32 -eigensolver",
		"landmark-isomap -k -eps -disconnected -supervised -landmarks -landmark-choice",
		"lle -k -alpha -eigensolver",
		"landmark-lle -k -landmarks -landmark-k -landmark-choice -alpha",
		"isoprojection -k -eps -disconnected -supervised -supervised-geodesic -alpha -max-iter -eigensolver",
		"oip -k -eps -disconnected -supervised -supervised-geodesic",
		"soip -k -eps -disconnected -supervised -supervised-geodesic -alpha",
		"tdpm -k -tangent-dim",
		"lowrank-isomap -landmarks -alpha",
		"lpp -k -eps -supervised -weight",
		"npe -k -eps -supervised -alpha",
		"lda -alpha",
		"ltsa -k -eigensolver",
		"laplacian -k -eps -disconnected -supervised -weight -eigensolver",
		"lsi",
	}
	var got []string
	for _, m := range methods {
		got = append(got, strings.Join(append([]string{m.Name}, m.uses...), " -"))
	}
	if !slices.Equal(got, contract) {
		t.Errorf("methods and their flags:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(contract, "\n"))
	}
	if got := searchingMethods(); got != "isomap, landmark-isomap, lle, ltsa, laplacian" {
		t.Errorf("-index-k applies to %s", got)
	}
	for _, name := range []string{"pca", "mds"} {
		m, err := lookupMethod(name)
		if err != nil {
			t.Fatal(err)
		}
		x, _ := swissRoll(50, 1)
		model, err := m.fit(context.Background(), params{Dim: 2}, x)
		if err != nil || model.Method() != name || model.Dim() != 2 {
			t.Errorf("%s: model %v, error %v", name, model, err)
		}
	}
}

// Each flag lands in the field of the method's settings that it names.
func TestMethodSettings(t *testing.T) {
	labels := []int{0, 1, 0}
	p := params{Dim: 3, K: 7, Alpha: 0.5, Landmarks: 9, TangentDim: 2, MaxIter: 11, Seed: 5, Labels: labels,
		Disconnected: "connect", SupervisedGeodesic: "join", Weight: engine.WeightBinary, Float32: true}
	settings := func(name string, p params) any {
		t.Helper()
		m, err := lookupMethod(name)
		if err != nil {
			t.Fatal(err)
		}
		s, err := m.settings(p)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range []struct {
		name      string
		supervise bool
		want      any
	}{
		{"pca", false, &engine.PCA{Dim: 3}},
		{"mds", false, &engine.MDS{Dim: 3, Seed: 5}},
		{"isomap", false, &engine.Isomap{Dim: 3, K: 7, Between: engine.SupervisedJoin, Disconnected: engine.DisconnectedConnect, Float32: true, Seed: 5}},
		{"isomap", true, &engine.Isomap{Dim: 3, K: 7, Labels: labels, Between: engine.SupervisedJoin, Disconnected: engine.DisconnectedConnect, Float32: true, Seed: 5}},
		{"landmark-isomap", false, &engine.LandmarkIsomap{Dim: 3, K: 7, Landmarks: 9, Disconnected: engine.DisconnectedConnect, Seed: 5}},
		{"lle", false, &engine.LLE{Dim: 3, K: 7, Reg: 0.5, Seed: 5}},
		{"isoprojection", true, &engine.IsoProjection{Dim: 3, K: 7, Labels: labels, Between: engine.SupervisedJoin, Disconnected: engine.DisconnectedConnect, Alpha: 0.5, RegressionIter: 11, Seed: 5}},
		{"soip", false, &engine.SOIP{Dim: 3, K: 7, Between: engine.SupervisedJoin, Disconnected: engine.DisconnectedConnect, Alpha: 0.5, Seed: 5}},
		{"tdpm", false, &engine.TDPM{Dim: 3, K: 7, TangentDim: 2, Seed: 5}},
		{"lowrank-isomap", true, &engine.LowRankIsomap{Dim: 3, Landmarks: 9, LRR: admm.LRRSettings{Lambda: 0.5}, Seed: 5}},
		{"lpp", true, &engine.LPP{Dim: 3, K: 7, Labels: labels, Weight: engine.WeightBinary, Seed: 5}},
		{"npe", false, &engine.NPE{Dim: 3, K: 7, Reg: 0.5, Seed: 5}},
		{"lda", false, &engine.LDA{Dim: 3, Labels: labels, Reg: 0.5}},
		{"laplacian", false, &engine.LaplacianEigenmaps{Dim: 3, K: 7, Weight: engine.WeightBinary, Disconnected: engine.DisconnectedConnect, Seed: 5}},
	} {
		q := p
		q.Supervised = c.supervise
		if got := settings(c.name, q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s (supervised %v): settings\n%+v, want\n%+v", c.name, c.supervise, got, c.want)
		}
	}
	m, _ := lookupMethod("isomap")
	if _, err := m.settings(params{Disconnected: "sometimes"}); err == nil {
		t.Error("-disconnected sometimes: no error")
	}
}

func TestSwissRoll(t *testing.T) {
	x, tt := swissRoll(500, 3)
	x2, _ := swissRoll(500, 3)
	for i := 0; i < 500; i++ {
		if tt[i] < 1.5*3.14159 || tt[i] > 4.5*3.1416 {
			t.Fatalf("t[%d] = %v outside [1.5π, 4.5π]", i, tt[i])
		}
		// x = t·cos t, z = t·sin t: the radius is t.
		if r := x.At(i, 0)*x.At(i, 0) + x.At(i, 2)*x.At(i, 2); r-tt[i]*tt[i] > 1e-9 || tt[i]*tt[i]-r > 1e-9 {
			t.Fatalf("point %d: radius² %v, t² %v", i, r, tt[i]*tt[i])
		}
		if y := x.At(i, 1); y < 0 || y > 21 {
			t.Fatalf("point %d: y = %v outside [0, 21]", i, y)
		}
		for j := 0; j < 3; j++ {
			if x.At(i, j) != x2.At(i, j) {
				t.Fatal("the same seed gave different points")
			}
		}
	}
	class, names := rollClasses(tt, 6)
	seen := map[int]bool{}
	for _, c := range class {
		seen[c] = true
	}
	if len(seen) != 6 || len(names) != 6 {
		t.Errorf("rollClasses: %d classes seen, %d names", len(seen), len(names))
	}
}

func TestRenderProgress(t *testing.T) {
	s := renderProgress(engine.Progress{Method: "isomap", Stage: "geodesics", Done: 50, Total: 100}, 2*time.Second)
	for _, want := range []string{"isomap", "geodesics", "[==============>               ]", " 50%", "2.0s", "ETA 2.0s"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
	s = renderProgress(engine.Progress{Method: "pca", Stage: "eigensolve"}, 1500*time.Millisecond)
	if !strings.Contains(s, "eigensolve") || !strings.Contains(s, "1.5s") || strings.Contains(s, "ETA") {
		t.Errorf("stage without a total: %q", s)
	}
	s = renderProgress(engine.Progress{Method: "ltsa", Stage: "eigensolve", Done: 312}, 80*time.Second)
	if !strings.Contains(s, "312 so far") || !strings.Contains(s, "1m20s") || strings.Contains(s, "ETA") {
		t.Errorf("stage without a total, with a count: %q", s)
	}
	s = renderProgress(engine.Progress{Method: "pca", Stage: "x", Done: 0, Total: 10}, time.Second)
	if !strings.Contains(s, "ETA --") {
		t.Errorf("nothing done yet: %q", s)
	}
	if got := fmtDuration(125 * time.Second); got != "2m05s" {
		t.Errorf("fmtDuration(125s) = %q", got)
	}
}

func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, true)
	p.update(engine.Progress{Method: "mds", Stage: "distances", Total: 10})
	p.update(engine.Progress{Method: "mds", Stage: "eigensolve"})
	p.finish()
	out := b.String()
	if !strings.HasPrefix(out, "\r") || !strings.Contains(out, "distances") || !strings.Contains(out, "eigensolve") ||
		!strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("progress output %q", out)
	}
	b.Reset()
	p = newProgress(&b, false)
	p.update(engine.Progress{Method: "mds", Stage: "distances", Total: 10})
	p.finish()
	if b.Len() != 0 {
		t.Errorf("disabled progress wrote %q", b.String())
	}
}

func TestDescribe(t *testing.T) {
	rep := engine.Report{Method: "isomap", Params: map[string]any{"k": 10, "dim": 2, "path": "", "eps": 0.5}}
	if got := describe(rep); got != "isomap (dim=2, eps=0.5, k=10)" {
		t.Errorf("describe = %q", got)
	}
	if got := describe(engine.Report{Method: "pca"}); got != "pca" {
		t.Errorf("describe = %q", got)
	}
}

func TestParseSize(t *testing.T) {
	if w, h, err := parseSize("640x480"); err != nil || w != 640 || h != 480 {
		t.Errorf("640x480: %d %d %v", w, h, err)
	}
	for _, s := range []string{"640", "640x", "x480", "640x480x2", "640×480", "100x100", "20000x500", "-640x480", "640x480 "} {
		if _, _, err := parseSize(s); err == nil {
			t.Errorf("parseSize(%q) accepted", s)
		}
	}
}

func TestOneLine(t *testing.T) {
	if got := oneLine("a\nb\r\nc\r"); got != "a; b; c" {
		t.Errorf("oneLine = %q", got)
	}
}

// Degenerate embeddings draw without panicking: all points equal, one
// dimension; non-finite coordinates are refused.
func TestPlotDegenerate(t *testing.T) {
	dir := t.TempDir()
	for name, pic := range map[string]scatterPlot{
		"same.png": {Y: mat.NewDense(3, 2, []float64{1, 1, 1, 1, 1, 1}), Value: []float64{2, 2, 2}, ColourTitle: "v"},
		"line.png": {Y: mat.NewDense(4, 1, []float64{1, 2, 3, 4}), Class: []int{0, 1, 0, 1}, ClassNames: []string{"a", "b"}},
	} {
		pic.Title = name
		if err := writePNG(filepath.Join(dir, name), 300, 200, pic.draw); err != nil {
			t.Fatal(err)
		}
	}
	if err := checkFinite(mat.NewDense(2, 2, []float64{0, 1, math.NaN(), 2})); err == nil || !strings.Contains(err.Error(), "row 2, coordinate 1 is NaN") {
		t.Errorf("checkFinite: %v", err)
	}
}

type keptModel struct {
	engine.Model
	kept []int
}

func (m keptModel) Kept() []int { return m.kept }

func TestKeptRows(t *testing.T) {
	y := mat.NewDense(3, 2, nil)
	if k := keptRows(keptModel{kept: []int{0, 1, 2}}, y, 3); k != nil {
		t.Errorf("all kept: %v", k)
	}
	k := keptRows(keptModel{kept: []int{0, 2, 4}}, y, 5)
	if len(k) != 3 || k[2] != 4 {
		t.Errorf("kept %v", k)
	}
	if d := dropped(k, 5); len(d) != 2 || d[0] != 1 || d[1] != 3 {
		t.Errorf("dropped %v", d)
	}
	if got := pick([]string{"a", "b", "c", "d", "e"}, k); strings.Join(got, "") != "ace" {
		t.Errorf("pick: %v", got)
	}
	// A model without Kept whose rows do not match: no colours.
	if k := keptRows(keptModel{}, y, 5); k == nil || len(k) != 0 {
		t.Errorf("unmatched rows: %v", k)
	}
	if pick([]int{1, 2}, []int{}) != nil || dropped(nil, 3) != nil {
		t.Error("pick or dropped of nothing")
	}
}

// asModel turns a method's typed Fit result into an engine.Model, so that a
// failed fit gives a nil interface rather than a typed nil.
func asModel[M engine.Model](m M, err error) (engine.Model, error) {
	if err != nil {
		return nil, err
	}
	return m, nil
}
