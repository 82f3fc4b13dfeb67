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
	"strconv"
	"strings"
	"testing"

	"github.com/xitongsys/parquet-go-source/buffer"
	"github.com/xitongsys/parquet-go/reader"
	parquetwriter "github.com/xitongsys/parquet-go/writer"
	"gonum.org/v1/gonum/mat"

	manifoldbeam "github.com/manifoldlab/manifold/beam"
	"github.com/manifoldlab/manifold/engine"
)

// TestParquetCommand fits PCA from two Parquet shards (written with
// parquet-go; one row with a NaN), projects them with -format parquet and
// reads every part back with parquet-go: each row's coordinates equal the
// engine's own PCA fit and Transform of the good rows (to 1e-9), 80 rows
// out, the NaN row a dead letter; project -id id names Parquet's ID
// column; fit -format parquet reads a glob without a suffix as Parquet,
// and fit -format refuses a suffix that says another format.
func TestParquetCommand(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	const n, d = 80, 5
	x := mat.NewDense(n, d, nil)
	var shards [2][]manifoldbeam.ParquetRow
	for i := range n {
		for j := range d {
			x.Set(i, j, float64(j+1)*rng.NormFloat64())
		}
		shards[i%2] = append(shards[i%2], manifoldbeam.ParquetRow{ID: fmt.Sprint("row", i), X: x.RawRowView(i)})
	}
	shards[1] = append(shards[1], manifoldbeam.ParquetRow{ID: "nan", X: []float64{1, 2, math.NaN(), 4, 5}})
	for k, rows := range shards {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("s%d.parquet", k)))
		if err != nil {
			t.Fatal(err)
		}
		pw, err := parquetwriter.NewParquetWriterFromWriter(f, new(manifoldbeam.ParquetRow), 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
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
	model := filepath.Join(dir, "m.bin")
	var stderr bytes.Buffer
	if err := run([]string{"fit", "-method", "pca", "-dim", "2", "-input", glob, "-model", model}, &stderr); err != nil {
		t.Fatalf("fit: %v\n%s", err, stderr.String())
	}
	out := filepath.Join(dir, "out")
	if err := run([]string{"project", "-model", model, "-input", glob, "-output", out, "-format", "parquet"}, &stderr); err != nil {
		t.Fatalf("project: %v\n%s", err, stderr.String())
	}
	ctx := context.Background()
	want, err := engine.PCA{Dim: 2, Solver: engine.PCACovariance}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := want.Transform(ctx, x)
	parts, _ := filepath.Glob(filepath.Join(out, "part-*.parquet"))
	seen := 0
	for _, part := range parts {
		b, err := os.ReadFile(part)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := reader.NewParquetReader(buffer.NewBufferFileFromBytes(b), new(manifoldbeam.ParquetEmbedded), 1)
		if err != nil {
			t.Fatalf("%s: %v", part, err)
		}
		got := make([]manifoldbeam.ParquetEmbedded, pr.GetNumRows())
		if err := pr.Read(&got); err != nil {
			t.Fatalf("%s: %v", part, err)
		}
		pr.ReadStop()
		for _, e := range got {
			i, err := strconv.Atoi(strings.TrimPrefix(e.ID, "row"))
			if err != nil || len(e.Y) != 2 {
				t.Fatalf("%s: row %q with %d coordinates", part, e.ID, len(e.Y))
			}
			for j := range 2 {
				if math.Abs(e.Y[j]-y.At(i, j)) > 1e-9*(1+math.Abs(y.At(i, j))) {
					t.Errorf("%s y%d = %v, want %v", e.ID, j+1, e.Y[j], y.At(i, j))
				}
			}
			seen++
		}
	}
	if seen != n {
		t.Errorf("%d output rows in %d parts, want %d", seen, len(parts), n)
	}
	dl, _ := filepath.Glob(filepath.Join(out, "dead-letters-*.csv"))
	if len(dl) != 1 {
		t.Fatalf("dead-letter files %v", dl)
	}
	if b, _ := os.ReadFile(dl[0]); !strings.Contains(string(b), "nan,") {
		t.Errorf("dead letters %q lack the NaN row", b)
	}
	if _, err := os.Stat(filepath.Join(out, manifoldbeam.SuccessFile)); err != nil {
		t.Error(err)
	}
	// -id names Parquet's ID column: "id" here, the other column (x) the
	// features; the CSV output has every row under its ID.
	o2 := filepath.Join(dir, "o2")
	if err := run([]string{"project", "-model", model, "-input", glob, "-id", "id", "-output", o2}, &stderr); err != nil {
		t.Fatalf("project -id id: %v\n%s", err, stderr.String())
	}
	csvParts, _ := filepath.Glob(filepath.Join(o2, "part-*.csv"))
	ids := map[string]bool{}
	for _, part := range csvParts {
		b, _ := os.ReadFile(part)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
			ids[strings.SplitN(line, ",", 2)[0]] = true
		}
	}
	if len(ids) != n || !ids["row0"] || !ids[fmt.Sprint("row", n-1)] {
		t.Errorf("project -id id: %d IDs out, want row0…row%d", len(ids), n-1)
	}
	// fit -format names the input's format: a glob without a suffix is
	// read as Parquet and gives the same model; a suffix that says
	// otherwise, and an unknown format, are usage errors.
	model2 := filepath.Join(dir, "m2.bin")
	if err := run([]string{"fit", "-method", "pca", "-dim", "2", "-format", "parquet", "-input", filepath.Join(dir, "s?.*"), "-model", model2}, &stderr); err != nil {
		t.Fatalf("fit -format parquet: %v\n%s", err, stderr.String())
	}
	m2 := loadModelFile(t, model2)
	good := x.Slice(0, n, 0, d)
	y2, err := m2.Transform(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		for j := range 2 {
			if math.Abs(math.Abs(y2.At(i, j))-math.Abs(y.At(i, j))) > 1e-9*(1+math.Abs(y.At(i, j))) {
				t.Fatalf("fit -format parquet: row %d y%d = %v, want ±%v", i, j+1, y2.At(i, j), y.At(i, j))
			}
		}
	}
	for _, c := range []struct{ format, want string }{{"csv", "names parquet shards"}, {"orc", `-format "orc"`}} {
		err := run([]string{"fit", "-method", "pca", "-format", c.format, "-input", glob, "-model", filepath.Join(dir, "m3.bin")}, &stderr)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("fit -format %s on .parquet input: %v, want a usage error saying %s", c.format, err, c.want)
		}
	}
}
