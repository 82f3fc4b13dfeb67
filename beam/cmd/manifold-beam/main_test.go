package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	manifoldbeam "github.com/manifoldlab/manifold/beam"
	"github.com/manifoldlab/manifold/beam/internal/testtmp"
	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine"
)

// TestMain runs the tests in a temporary directory of their own (testtmp:
// the prism runner leaves a file there for every pipeline).
func TestMain(m *testing.M) { testtmp.Main(m.Run) }

// TestFitThenProject runs the command end to end on prism: fit PCA on two
// CSV shards with an ID column, then project them with the written model,
// and checks every output row against the engine's own PCA fit and
// Transform, and the dead letter of the bad row.
func TestFitThenProject(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d = 120, 5
	x := mat.NewDense(n, d, nil)
	var shard [2]strings.Builder
	for k := range shard {
		shard[k].WriteString("id,a,b,c,d,e\n")
	}
	for i := range n {
		fmt.Fprintf(&shard[i%2], "row%d", i)
		for j := range d {
			v := float64(j+1) * rng.NormFloat64()
			x.Set(i, j, v)
			fmt.Fprintf(&shard[i%2], ",%v", v)
		}
		shard[i%2].WriteString("\n")
	}
	shard[1].WriteString("broken,1,2,3,4,oops\n")
	for k := range shard {
		if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("s%d.csv", k)), []byte(shard[k].String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := filepath.Join(dir, "m.bin")
	var stderr bytes.Buffer
	glob := filepath.Join(in, "*.csv")
	if err := run([]string{"fit", "-method", "pca", "-dim", "2", "-input", glob, "-id", "id", "-model", model, "-dead", filepath.Join(dir, "fitdead")}, &stderr); err != nil {
		t.Fatalf("fit: %v\n%s", err, stderr.String())
	}
	out := filepath.Join(dir, "out")
	if err := run([]string{"project", "-model", model, "-input", glob, "-id", "id", "-output", out}, &stderr); err != nil {
		t.Fatalf("project: %v\n%s", err, stderr.String())
	}
	ctx := context.Background()
	want, err := engine.PCA{Dim: 2, Solver: engine.PCACovariance}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := want.Transform(ctx, x)
	checkProjected(t, out, y, n)
	for _, dd := range []string{"out", "fitdead"} {
		dl, _ := filepath.Glob(filepath.Join(dir, dd, "dead-letters-*.csv"))
		if len(dl) != 1 {
			t.Fatalf("%s: dead-letter files %v", dd, dl)
		}
		if b, _ := os.ReadFile(dl[0]); !strings.Contains(string(b), "broken,") {
			t.Errorf("%s: dead letters %q lack the broken row", dd, b)
		}
	}
	if err := run([]string{"fit", "-method", "lda", "-input", glob, "-model", model}, &stderr); !errors.Is(err, errUsage) {
		t.Errorf("fit -method lda without -label: %v, want a usage error", err)
	}
	nout := filepath.Join(dir, "nout")
	if err := run([]string{"project", "-model", model, "-input", glob, "-id", "id", "-output", nout, "-format", "npy"}, &stderr); err != nil {
		t.Fatalf("project -format npy: %v\n%s", err, stderr.String())
	}
	nrows := 0
	parts, _ := filepath.Glob(filepath.Join(nout, "part-*.npy"))
	for _, p := range parts {
		m, err := dataio.ReadMatrixFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r, c := m.Dims()
		if c != 2 {
			t.Errorf("%s: %d columns", p, c)
		}
		nrows += r
	}
	if nrows != n {
		t.Errorf("-format npy: %d rows in %d parts, want %d", nrows, len(parts), n)
	}
	if err := run([]string{"project", "-model", model, "-input", glob, "-output", nout, "-format", "orc"}, &stderr); !errors.Is(err, errUsage) {
		t.Errorf("-format orc: %v, want a usage error", err)
	}
	if err := run([]string{"fit", "-method", "umap", "-input", glob, "-model", model}, &stderr); !errors.Is(err, errUsage) {
		t.Errorf("fit -method umap: %v, want a usage error", err)
	}

	// Landmark Isomap on a sample of 90 of the 120 rows, then every row
	// projected: the output equals the written model's in-process
	// Transform.
	lm := filepath.Join(dir, "lm.bin")
	if err := run([]string{"fit", "-method", "landmark-isomap", "-sample", "90", "-k", "8", "-landmarks", "30", "-seed", "3",
		"-input", glob, "-id", "id", "-model", lm}, &stderr); err != nil {
		t.Fatalf("fit landmark-isomap: %v\n%s", err, stderr.String())
	}
	lout := filepath.Join(dir, "lout")
	if err := run([]string{"project", "-model", lm, "-input", glob, "-id", "id", "-output", lout}, &stderr); err != nil {
		t.Fatalf("project: %v\n%s", err, stderr.String())
	}
	lmodel := loadModelFile(t, lm)
	if lmodel.Method() != "landmark-isomap" || lmodel.Report().N != 90 {
		t.Fatalf("model %s fitted on %d rows", lmodel.Method(), lmodel.Report().N)
	}
	ly, err := lmodel.Transform(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	checkProjected(t, lout, ly, n)
}

// checkProjected checks the CSV parts in out (header id,y1,y2; IDs
// rowN) against the rows of y, and that they hold n rows.
func checkProjected(t *testing.T, out string, y *mat.Dense, n int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(out, "part-*.csv"))
	seen := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil || strings.Join(recs[0], ",") != "id,y1,y2" {
			t.Fatalf("%s: %v %v", f, err, recs)
		}
		for _, r := range recs[1:] {
			i, _ := strconv.Atoi(strings.TrimPrefix(r[0], "row"))
			for j := range 2 {
				v, _ := strconv.ParseFloat(r[j+1], 64)
				if math.Abs(v-y.At(i, j)) > 1e-9*(1+math.Abs(y.At(i, j))) {
					t.Errorf("%s y%d = %v, want %v", r[0], j+1, v, y.At(i, j))
				}
			}
			seen++
		}
	}
	if seen != n {
		t.Errorf("%s: %d output rows, want %d", out, seen, n)
	}
}

// TestFitLDACommand fits LDA from CSV shards whose header names an ID and
// a label column (the label between the features), and checks the model's
// predictions against the engine's in-process LDA.
func TestFitLDACommand(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d = 90, 4
	x := mat.NewDense(n, d, nil)
	labels := make([]int, n)
	var shard [3]strings.Builder
	for k := range shard {
		shard[k].WriteString("key,f1,f2,class,f3,f4\n")
	}
	for i := range n {
		labels[i] = i % 3
		for j := range d {
			x.Set(i, j, rng.NormFloat64()+float64(labels[i]*(j+1)))
		}
		fmt.Fprintf(&shard[i%3], "k%d,%v,%v,%d,%v,%v\n", i, x.At(i, 0), x.At(i, 1), labels[i], x.At(i, 2), x.At(i, 3))
	}
	shard[2].WriteString("odd,1,2,three,3,4\n")
	for k := range shard {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%d.csv", k)), []byte(shard[k].String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := filepath.Join(dir, "lda.bin")
	var stderr bytes.Buffer
	if err := run([]string{"fit", "-method", "lda", "-label", "class", "-id", "key", "-input", filepath.Join(dir, "*.csv"),
		"-model", model, "-dead", filepath.Join(dir, "dead")}, &stderr); err != nil {
		t.Fatalf("fit: %v\n%s", err, stderr.String())
	}
	m := loadModelFile(t, model)
	ctx := context.Background()
	want, err := engine.LDA{Labels: labels, Solver: engine.LDASVD}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := want.Predict(ctx, x)
	pg, err := m.(*engine.LDAModel).Predict(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pw {
		if pw[i] != pg[i] {
			t.Fatalf("row %d: predicted %d, in-process %d", i, pg[i], pw[i])
		}
	}
	if m.Report().N != n || m.Dim() != 2 {
		t.Errorf("model of %d rows, %d dimensions", m.Report().N, m.Dim())
	}
	dl, _ := filepath.Glob(filepath.Join(dir, "dead", "dead-letters-*.csv"))
	if len(dl) != 1 {
		t.Fatalf("dead-letter files %v", dl)
	}
	if b, _ := os.ReadFile(dl[0]); !strings.Contains(string(b), "odd,") {
		t.Errorf("dead letters %q lack the row labelled three", b)
	}
}

// loadModelFile reads the model file at path (manifoldbeam.LoadModel),
// failing the test on an error.
func loadModelFile(t *testing.T, path string) engine.Model {
	t.Helper()
	m, err := manifoldbeam.LoadModel(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
