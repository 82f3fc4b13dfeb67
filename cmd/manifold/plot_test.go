package main

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// lab converts a colour to CIELAB (D65), for colour differences ΔE*76.
func lab(c color.Color) [3]float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v) / 0xffff
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	R, G, B := lin(r), lin(g), lin(b)
	X := (0.4124*R + 0.3576*G + 0.1805*B) / 0.95047
	Y := 0.2126*R + 0.7152*G + 0.0722*B
	Z := (0.0193*R + 0.1192*G + 0.9505*B) / 1.08883
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	return [3]float64{116*f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))}
}

func deltaE(a, b color.Color) float64 {
	p, q := lab(a), lab(b)
	return math.Sqrt((p[0]-q[0])*(p[0]-q[0]) + (p[1]-q[1])*(p[1]-q[1]) + (p[2]-q[2])*(p[2]-q[2]))
}

// Up to twenty classes get colours at least ΔE 15 apart (the hue circle
// the plots used before came within 6 at twenty); past twenty, the
// (colour, shape) pairs stay distinct up to 160 classes.
func TestClassStyles(t *testing.T) {
	for _, k := range []int{1, 3, 10, 11, 20} {
		st := classStyles(k)
		least := math.Inf(1)
		for i := range st {
			for j := i + 1; j < len(st); j++ {
				least = min(least, deltaE(st[i].Colour, st[j].Colour))
			}
		}
		if k > 1 && least < 15 {
			t.Errorf("%d classes: two colours only ΔE %.1f apart", k, least)
		}
	}
	st := classStyles(160)
	seen := map[string]int{}
	for c, s := range st {
		key := fmt.Sprintf("%v %T", s.Colour, s.Shape)
		if prev, ok := seen[key]; ok {
			t.Fatalf("classes %d and %d share %s", prev, c, key)
		}
		seen[key] = c
	}
}

func TestNumericLabels(t *testing.T) {
	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprint(float64(i) * 0.37)
	}
	for _, c := range []struct {
		names []string
		want  bool
	}{
		{[]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, false}, // digits are classes
		{many, true},
		{append(append([]string(nil), many...), "cat"), false},
		{append(append([]string(nil), many...), "NaN"), false},
	} {
		if got := numericLabels(c.names); got != c.want {
			t.Errorf("%v…: %v, want %v", c.names[:3], got, c.want)
		}
	}
}

func TestDescribeRounds(t *testing.T) {
	got := describe(engine.Report{Method: "lpp", Params: map[string]any{"dim": 2, "t": 0.318309886183791, "k": 10.0, "weight": "heat"}})
	if want := "lpp (dim=2, k=10, t=0.3183, weight=heat)"; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
}

// Forty classes: the legend takes columns, never more than half the
// picture, and every class's colour reaches the plot; a continuous label
// file is drawn with a colour bar, not 300 legend entries.
func TestPlotManyClasses(t *testing.T) {
	testmode.Skip(t, "PNG pictures (drawing, not concurrency)")
	dir := t.TempDir()
	n := 400
	y := mat.NewDense(n, 2, nil)
	class := make([]int, n)
	names := make([]string, 40)
	for c := range names {
		names[c] = fmt.Sprintf("class %d", c)
	}
	for i := 0; i < n; i++ {
		class[i] = i % 40
		y.Set(i, 0, float64(i%40))
		y.Set(i, 1, float64(i/40))
	}
	pic := scatterPlot{Title: "forty classes", Y: y, Class: class, ClassNames: names, ColourTitle: "label"}
	_, side := pic.colouring(450 * 72 / plotDPI)
	perCol := int(math.Floor((450.0-60)/legendRow)) - 1
	if wantCols := (40 + perCol - 1) / perCol; wantCols < 2 {
		t.Fatalf("forty classes in one column of %d", perCol)
	}
	if side.width <= px(100) {
		t.Errorf("legend of forty classes %v wide", side.width)
	}
	path := filepath.Join(dir, "forty.png")
	if err := writePNG(path, 800, 450, pic.draw); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, path, 800, 450)
	var colours []color.Color
	for _, s := range classStyles(40)[:20] {
		colours = append(colours, s.Colour)
	}
	_, near := pixels(img, image.Rect(40, 20, 400, 420), colours)
	for c, k := range near {
		if k == 0 {
			t.Errorf("colour of class %d absent from the plot area", c)
		}
	}

	// Continuous labels through the command: a colour bar.
	x := testData(t, dir)
	var lb strings.Builder
	m, _ := x.Dims()
	for i := 0; i < m; i++ {
		fmt.Fprintf(&lb, "%.6f\n", float64(i)*0.0137)
	}
	putFile(t, filepath.Join(dir, "t.labels"), lb.String())
	mustSucceed(t, dir, "embed", "-method", "pca", "-in", "roll.csv", "-labels", "t.labels", "-out", "y.csv", "-plot", "t.png", "-plot-size", "640x480")
	img = decodePNG(t, filepath.Join(dir, "t.png"), 640, 480)
	// The colour bar: a column of saturated pixels right of the plot.
	if sat, _ := pixels(img, image.Rect(560, 60, 640, 420), nil); sat < 2000 {
		t.Errorf("continuous labels: %d coloured pixels where the colour bar goes", sat)
	}
}
