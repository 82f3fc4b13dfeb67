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
	"slices"
	"strconv"
	"strings"
	"testing"

	parquetwriter "github.com/xitongsys/parquet-go/writer"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// listParquetRow is a Parquet schema as pyarrow writes it by default: the
// features a compliant list column x (x.list.element) and a string label
// column "digit" that may be null.
type listParquetRow struct {
	ID    string    `parquet:"name=id, type=BYTE_ARRAY, convertedtype=UTF8"`
	X     []float64 `parquet:"name=x, type=LIST, valuetype=DOUBLE"`
	Digit *string   `parquet:"name=digit, type=BYTE_ARRAY, convertedtype=UTF8, repetitiontype=OPTIONAL"`
}

// TestLabelsCommand runs fit with -label on Parquet input (a list column
// x and a string label column, three shards, one empty): -method lda over
// every row gives the engine's LDA of the good rows (eigenvalues to 1e-9,
// the same predictions), the NaN row, the row of 3 features (-width 4)
// and the row with a null label in the dead letters; -method lda on a
// stratified sample of 30 rows (-sample 30 -stratify digit) fits on 30
// rows with every class, the rare one (2 rows of 243) included; the usage
// errors of -label and -stratify.
func TestLabelsCommand(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	const d = 4
	sizes := []int{160, 81, 2}
	var rows []listParquetRow
	var flat []float64
	var labels []int
	for k, sz := range sizes {
		for range sz {
			v := make([]float64, d)
			for j := range v {
				v[j] = float64(j+1)*rng.NormFloat64() + float64(3*k*(j%2))
			}
			lab := strconv.Itoa(k + 1)
			rows = append(rows, listParquetRow{ID: fmt.Sprint("row", len(rows)), X: v, Digit: &lab})
			flat = append(flat, v...)
			labels = append(labels, k+1)
		}
	}
	x := mat.NewDense(len(labels), d, flat)
	one := "1"
	bad := []listParquetRow{
		{ID: "nan", X: []float64{1, math.NaN(), 1, 1}, Digit: &one},
		{ID: "narrow", X: []float64{1, 2, 3}, Digit: &one},
		{ID: "nolabel", X: []float64{1, 2, 3, 4}},
	}
	shards := [][]listParquetRow{nil, append(append([]listParquetRow{}, rows[:100]...), bad...), rows[100:]}
	for k, sh := range shards {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("s%d.parquet", k)))
		if err != nil {
			t.Fatal(err)
		}
		pw, err := parquetwriter.NewParquetWriterFromWriter(f, new(listParquetRow), 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range sh {
			if err := pw.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := pw.WriteStop(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	glob := filepath.Join(dir, "*.parquet")
	var stderr bytes.Buffer
	full, dead := filepath.Join(dir, "lda.bin"), filepath.Join(dir, "dead")
	if err := run([]string{"fit", "-method", "lda", "-label", "digit", "-width", "4", "-input", glob, "-model", full, "-dead", dead}, &stderr); err != nil {
		t.Fatalf("fit lda: %v\n%s", err, stderr.String())
	}
	ctx := context.Background()
	want, err := engine.LDA{Labels: labels, Solver: engine.LDASVD}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	got := loadModelFile(t, full).(*engine.LDAModel)
	for j, v := range want.Eigenvalues() {
		if g := got.Eigenvalues()[j]; math.Abs(g-v) > 1e-9*v {
			t.Errorf("eigenvalue %d: %.17g, want %.17g", j, g, v)
		}
	}
	pw, _ := want.Predict(ctx, x)
	pg, err := got.Predict(ctx, x)
	if err != nil || !slices.Equal(pw, pg) {
		t.Errorf("predictions differ from the in-process LDA's (%v)", err)
	}
	dl, _ := filepath.Glob(filepath.Join(dead, "dead-letters-*.csv"))
	var all string
	for _, p := range dl {
		b, _ := os.ReadFile(p)
		all += string(b)
	}
	for _, id := range []string{"nan,", "narrow,", "nolabel,"} {
		if !strings.Contains(all, "\n"+id) {
			t.Errorf("dead letters %q lack %s", all, id)
		}
	}
	if strings.Count(all, "\n") != 3+len(dl) {
		t.Errorf("dead letters %q: want 3 rows", all)
	}

	sampled := filepath.Join(dir, "lda-sample.bin")
	if err := run([]string{"fit", "-method", "lda", "-label", "digit", "-sample", "30", "-stratify", "digit", "-width", "4", "-input", glob, "-model", sampled}, &stderr); err != nil {
		t.Fatalf("fit lda on a sample: %v\n%s", err, stderr.String())
	}
	ms := loadModelFile(t, sampled).(*engine.LDAModel)
	if ms.Report().N != 30 || !slices.Equal(ms.Classes(), []int{1, 2, 3}) {
		t.Errorf("the sample fit: %d rows, classes %v; want 30 rows, classes 1, 2, 3", ms.Report().N, ms.Classes())
	}

	for _, args := range [][]string{
		{"fit", "-method", "pca", "-label", "digit", "-input", glob, "-model", filepath.Join(dir, "x.bin")}, // PCA takes no labels
		{"fit", "-method", "lda", "-label", "digit", "-stratify", "id", "-input", glob, "-model", filepath.Join(dir, "x.bin")},
		{"project", "-label", "digit", "-input", glob, "-model", full, "-output", filepath.Join(dir, "o")},
	} {
		if err := run(args, &stderr); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
