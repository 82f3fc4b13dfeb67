package manifoldbeam

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/xitongsys/parquet-go-source/buffer"
	"github.com/xitongsys/parquet-go/reader"
	parquetwriter "github.com/xitongsys/parquet-go/writer"
)

// writeParquetRows writes rows to the Parquet file p (the ParquetRow
// schema), with parquet-go directly.
func writeParquetRows(t *testing.T, p string, rows []ParquetRow) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := parquetwriter.NewParquetWriterFromWriter(f, new(ParquetRow), 1)
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
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestParquetRoundTrip writes 50 rows as three Parquet shards (uneven, one
// with no rows; duplicate IDs; a NaN row and a row without features mixed
// in) with parquet-go, reads them through ReadParquet (Beam's parquetio),
// projects them with a PCA model and writes Parquet (WriteParquet), then
// reads every part back with parquet-go's reader: each output row equals
// the in-process Transform of its input row (relative difference 0), 50
// rows out, the two bad rows in the CSV dead letters, _SUCCESS last with
// the part count, and no temporary directory left.
func TestParquetRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, modelPath := fitPCA(t, dir)
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	x, _ := rollData(50, 4, 8)
	y, err := m.Transform(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	var a, c []ParquetRow
	for i := range 50 {
		r := ParquetRow{ID: fmt.Sprint("k", i%45), X: x.RawRowView(i)} // k0…k4 twice
		if i%4 == 0 {
			c = append(c, r)
		} else {
			a = append(a, r)
		}
	}
	c = append(c, ParquetRow{ID: "nan", X: []float64{1, math.NaN(), 2, 3}}, ParquetRow{ID: "empty"})
	writeParquetRows(t, filepath.Join(in, "a.parquet"), a)
	writeParquetRows(t, filepath.Join(in, "b.parquet"), nil)
	writeParquetRows(t, filepath.Join(in, "c.parquet"), c)

	out := filepath.Join(dir, "out")
	p, s := beam.NewPipelineWithRoot()
	emb, dead := Project(s, modelPath, ReadParquet(s, filepath.Join(in, "*.parquet")), ProjectOptions{Block: 8})
	WriteParquet(s, out, emb, dead)
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		t.Fatal(err)
	}
	if c := counters(t, res); c[MetricRowsIn] != 52 || c[MetricRowsOut] != 50 || c[MetricDeadLetter] != 2 {
		t.Errorf("counters %v, want 52 in, 50 out, 2 dead", c)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "part-*.parquet"))
	seen := 0
	for _, part := range parts {
		b, err := os.ReadFile(part)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := reader.NewParquetReader(buffer.NewBufferFileFromBytes(b), new(ParquetEmbedded), 1)
		if err != nil {
			t.Fatalf("%s: %v", part, err)
		}
		n := int(pr.GetNumRows())
		got := make([]ParquetEmbedded, n)
		if err := pr.Read(&got); err != nil {
			t.Fatalf("%s: %v", part, err)
		}
		pr.ReadStop()
		for _, e := range got {
			var k int
			if _, err := fmt.Sscanf(e.ID, "k%d", &k); err != nil {
				t.Fatalf("%s: ID %q", part, e.ID)
			}
			match := false
			for _, cand := range []int{k, k + 45} {
				if cand < 50 && relDiff(e.Y, y.RawRowView(cand)) == 0 {
					match = true
				}
			}
			if !match {
				t.Errorf("%s: row %s = %v matches no transform of that ID", part, e.ID, e.Y)
			}
			seen++
		}
	}
	if seen != 50 {
		t.Errorf("%d rows written in %d parts, want 50", seen, len(parts))
	}
	dl := readOutput(t, out, "dead-letters-*.csv", func(h []string) bool { return strings.Join(h, ",") == "id,error" })
	if len(dl) != 2 || dl["nan"] == nil || dl["empty"] == nil {
		t.Errorf("dead letters %v", dl)
	}
	b, err := os.ReadFile(filepath.Join(out, SuccessFile))
	if err != nil || !strings.Contains(string(b), fmt.Sprintf("parts %d\n", len(parts))) {
		t.Errorf("%s: %q, %v (%d parts)", SuccessFile, b, err, len(parts))
	}
	if tmp, _ := filepath.Glob(filepath.Join(out, ".tmp-*")); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}
