package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/sparse"
)

// TestFitLSICommand runs fit -method lsi on three CSV shards of sparse
// term counts (an ID column, a row with an unparsable count), checks the
// model file against engine.LSI's in-process fit of the good rows
// (components to 1e-9 after the signs are aligned, singular values to
// 1e-10), then projects the shards with it and checks every output row
// against the model's Transform.
func TestFitLSICommand(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 1))
	const n, d = 150, 12
	x := mat.NewDense(n, d, nil)
	var shard [3]strings.Builder
	for k := range shard {
		shard[k].WriteString("doc")
		for j := range d {
			fmt.Fprintf(&shard[k], ",t%d", j)
		}
		shard[k].WriteString("\n")
	}
	for i := range n {
		fmt.Fprintf(&shard[i%3], "row%d", i)
		for j := range d {
			if rng.IntN(4) == 0 {
				x.Set(i, j, float64(1+rng.IntN(5)))
			}
			fmt.Fprintf(&shard[i%3], ",%v", x.At(i, j))
		}
		shard[i%3].WriteString("\n")
	}
	shard[2].WriteString("junk,1,0,0,0,0,0,0,0,0,0,0,x\n")
	for k := range shard {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%d.csv", k)), []byte(shard[k].String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	glob := filepath.Join(dir, "s*.csv")
	model := filepath.Join(dir, "lsi.bin")
	var stderr bytes.Buffer
	if err := run([]string{"fit", "-method", "lsi", "-input", glob, "-id", "doc", "-model", model, "-dead", filepath.Join(dir, "dead")}, &stderr); err != nil {
		t.Fatalf("fit: %v\n%s", err, stderr.String())
	}
	m := loadModelFile(t, model)
	got := m.(*engine.LSIModel)
	ctx := context.Background()
	want, err := engine.LSI{Dim: 2}.Fit(ctx, sparse.FromDense(x))
	if err != nil {
		t.Fatal(err)
	}
	gc, wc := got.Components(), want.Components()
	for j := range 2 {
		if mat.Dot(gc.ColView(j), wc.ColView(j)) < 0 {
			for i := range d {
				gc.Set(i, j, -gc.At(i, j))
			}
		}
	}
	if !mat.EqualApprox(gc, wc, 1e-9) {
		t.Errorf("components differ from engine.LSI's:\n%v\n%v", mat.Formatted(gc), mat.Formatted(wc))
	}
	for j, v := range want.SingularValues() {
		if g := got.SingularValues()[j]; math.Abs(g-v) > 1e-10*v {
			t.Errorf("singular value %d: %.17g, want %.17g", j, g, v)
		}
	}
	if got.Report().N != n {
		t.Errorf("model fitted on %d rows, want %d", got.Report().N, n)
	}
	dl, _ := filepath.Glob(filepath.Join(dir, "dead", "dead-letters-*.csv"))
	if len(dl) != 1 {
		t.Fatalf("dead-letter files %v", dl)
	}
	if b, _ := os.ReadFile(dl[0]); !strings.Contains(string(b), "junk,") {
		t.Errorf("dead letters %q lack the junk row", b)
	}
	out := filepath.Join(dir, "out")
	if err := run([]string{"project", "-model", model, "-input", glob, "-id", "doc", "-output", out}, &stderr); err != nil {
		t.Fatalf("project: %v\n%s", err, stderr.String())
	}
	y, err := got.Transform(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	checkProjected(t, out, y, n)
}

// TestFitLSIWideCommand runs fit -method lsi on two CSV shards of 4200
// terms (an ID column; 80 documents built from two planted topics, so the
// spectrum has two clear leading singular values): -solver auto reads the
// width (4200 > 4096) and fits with the randomized solver, whose two
// singular values agree with engine.LSI's to 1e-9 relative and whose
// components match engine.LSI's (|cos| of each pair ≥ 1 − 1e-9);
// -solver gram fails naming MaxLSITerms; -solver with another method,
// an unknown solver, a negative -power and -oversample with project are
// usage errors.
func TestFitLSIWideCommand(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(9, 2))
	const n, d = 80, 4200
	topics := [2][]int{rng.Perm(d)[:60], rng.Perm(d)[:60]}
	x := mat.NewDense(n, d, nil)
	for i := range n {
		w := [2]float64{1 + 9*rng.Float64(), 1 + 3*rng.Float64()}
		for k, terms := range topics {
			for c, j := range terms {
				x.Set(i, j, x.At(i, j)+math.Round(w[k]*float64(1+c%4)))
			}
		}
	}
	var shard [2]strings.Builder
	for k := range shard {
		shard[k].WriteString("doc")
		for j := range d {
			fmt.Fprintf(&shard[k], ",t%d", j)
		}
		shard[k].WriteString("\n")
	}
	for i := range n {
		fmt.Fprintf(&shard[i%2], "row%d", i)
		for j := range d {
			fmt.Fprintf(&shard[i%2], ",%v", x.At(i, j))
		}
		shard[i%2].WriteString("\n")
	}
	for k := range shard {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%d.csv", k)), []byte(shard[k].String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	glob := filepath.Join(dir, "s*.csv")
	model := filepath.Join(dir, "lsi.bin")
	var stderr bytes.Buffer
	if err := run([]string{"fit", "-method", "lsi", "-input", glob, "-id", "doc", "-model", model}, &stderr); err != nil {
		t.Fatalf("fit -solver auto: %v\n%s", err, stderr.String())
	}
	m := loadModelFile(t, model)
	got := m.(*engine.LSIModel)
	want, err := engine.LSI{Dim: 2}.Fit(context.Background(), sparse.FromDense(x))
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range want.SingularValues() {
		if g := got.SingularValues()[j]; math.Abs(g-v) > 1e-9*v {
			t.Errorf("singular value %d: %.17g, want %.17g", j, g, v)
		}
	}
	gc, wc := got.Components(), want.Components()
	for j := range 2 {
		if c := math.Abs(mat.Dot(gc.ColView(j), wc.ColView(j))); c < 1-1e-9 {
			t.Errorf("component %d: |cos| %.17g", j, c)
		}
	}
	if got.Report().N != n || got.Report().Features != d {
		t.Errorf("model of %d rows × %d features", got.Report().N, got.Report().Features)
	}
	err = run([]string{"fit", "-method", "lsi", "-solver", "gram", "-input", glob, "-id", "doc", "-model", filepath.Join(dir, "g.bin")}, &stderr)
	if err == nil || !strings.Contains(err.Error(), "MaxLSITerms") {
		t.Errorf("-solver gram on %d terms: %v", d, err)
	}
	for _, args := range [][]string{
		{"fit", "-method", "pca", "-solver", "randomized", "-input", glob, "-id", "doc", "-model", filepath.Join(dir, "x.bin")},
		{"fit", "-method", "lsi", "-solver", "qr", "-input", glob, "-id", "doc", "-model", filepath.Join(dir, "x.bin")},
		{"fit", "-method", "lsi", "-power", "-1", "-input", glob, "-id", "doc", "-model", filepath.Join(dir, "x.bin")},
		{"project", "-oversample", "3", "-model", model, "-input", glob, "-id", "doc", "-output", filepath.Join(dir, "o")},
	} {
		if err := run(args, &stderr); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
