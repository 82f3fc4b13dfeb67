package main

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// The method names are the command-line contract of DESIGN.md.
func TestMethodTable(t *testing.T) {
	contract := "pca mds isomap landmark-isomap lle isoprojection oip soip tdpm lowrank-isomap lpp npe lda ltsa laplacian"
	var names []string
	for _, m := range methods {
		names = append(names, m.name)
		for _, f := range m.uses {
			switch f {
			case "k", "eps", "alpha", "landmarks", "tangent-dim", "disconnected", "supervised", "max-iter":
			default:
				t.Errorf("method %s reads unknown flag -%s", m.name, f)
			}
		}
	}
	if got := strings.Join(names, " "); got != contract+" lsi" {
		t.Errorf("method table %q, want the contract's %q (+ lsi)", got, contract)
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
