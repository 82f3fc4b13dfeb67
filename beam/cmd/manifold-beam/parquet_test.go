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
// out, the NaN row a dead letter; -id with Parquet input is a usage error.
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
	if err := run([]string{"project", "-model", model, "-input", glob, "-id", "id", "-output", filepath.Join(dir, "o2")}, &stderr); !errors.Is(err, errUsage) {
		t.Errorf("-id with Parquet input: %v, want a usage error", err)
	}
}
