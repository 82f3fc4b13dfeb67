//go:build !beam_unit

package manifoldbeam

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/xitongsys/parquet-go-source/buffer"
	"github.com/xitongsys/parquet-go/reader"
	"gonum.org/v1/gonum/mat"
)

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
	writeParquetAny(t, filepath.Join(in, "a.parquet"), new(ParquetRow), a)
	writeParquetAny(t, filepath.Join(in, "b.parquet"), new(ParquetRow), nil)
	writeParquetAny(t, filepath.Join(in, "c.parquet"), new(ParquetRow), c)

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

// labeledParquetRow is a Parquet schema with a label column "digit" (an
// optional INT64) beside ParquetRow's id and x.
type labeledParquetRow struct {
	ID    string    `parquet:"name=id, type=BYTE_ARRAY, convertedtype=UTF8, encoding=PLAIN"`
	X     []float64 `parquet:"name=x, type=DOUBLE, repetitiontype=REPEATED"`
	Digit *int64    `parquet:"name=digit, type=INT64, repetitiontype=OPTIONAL"`
}

// TestFitLDAParquet fits LDA from Parquet shards with a label column
// (ReadLabeledParquet, column "digit", an optional INT64; uneven shards,
// one with no rows; RequireWidth 6) and compares the model file with
// engine.LDA's in-process fit of the good rows as TestFitLDA does
// (principal angles ≤ 1e-8°, eigenvalues to 1e-9, the same predictions);
// a NaN row, a row of 5 features, a row with a null label, a row without
// features and a row whose label is not an integer are the five dead
// letters, by ID, and the counters account for every row.
func TestFitLDAParquet(t *testing.T) {
	dir := t.TempDir()
	const n, d = 900, 6
	rng := rand.New(rand.NewPCG(8, 9))
	x := mat.NewDense(n, d, nil)
	labels := make([]int, n)
	var rows []labeledParquetRow
	for i := range n {
		labels[i] = 3 * (i % 4)
		for j := range d - 1 {
			x.Set(i, j, 1e4+float64(j+1)*rng.NormFloat64()+float64((i%4)*(j%3)))
		}
		x.Set(i, d-1, 3) // constant
		c := int64(labels[i])
		rows = append(rows, labeledParquetRow{ID: fmt.Sprint("r", i), X: x.RawRowView(i), Digit: &c})
	}
	zero := int64(0)
	bad := []labeledParquetRow{
		{ID: "nan", X: []float64{1, math.NaN(), 1, 1, 1, 1}, Digit: &zero},
		{ID: "narrow", X: []float64{1, 2, 3, 4, 5}, Digit: &zero},
		{ID: "nolabel", X: []float64{1, 2, 3, 4, 5, 6}},
		{ID: "empty", Digit: &zero},
	}
	shards := [][]labeledParquetRow{rows[:4], nil, append(append([]labeledParquetRow{}, rows[4:400]...), bad[:3]...), append(append([]labeledParquetRow{}, rows[400:]...), bad[3:4]...)}
	for k, sh := range shards {
		writeParquetAny(t, filepath.Join(dir, fmt.Sprintf("s%d.parquet", k)), new(labeledParquetRow), sh)
	}
	// A shard with a string label column: "cat" is not an integer.
	type stringLabel struct {
		ID    string    `parquet:"name=id, type=BYTE_ARRAY, convertedtype=UTF8, encoding=PLAIN"`
		X     []float64 `parquet:"name=x, type=DOUBLE, repetitiontype=REPEATED"`
		Digit string    `parquet:"name=digit, type=BYTE_ARRAY, convertedtype=UTF8"`
	}
	writeParquetAny(t, filepath.Join(dir, "s9.parquet"), new(stringLabel), []stringLabel{{ID: "cat", X: []float64{1, 2, 3, 4, 5, 6}, Digit: "cat"}})

	path := filepath.Join(dir, "lda.bin")
	p, s := beam.NewPipelineWithRoot()
	in := RequireWidth(s, ReadLabeledParquet(s, filepath.Join(dir, "*.parquet"), "digit"), d)
	key := t.Name()
	beam.ParDo0(s, &collectDeadFn{Key: key}, FitLDA(s, in, 0, path))
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		t.Fatal(err)
	}
	const dead = 5
	if c := counters(t, res); c[MetricRowsIn] != n+dead || c[MetricRowsOut] != n || c[MetricDeadLetter] != dead {
		t.Errorf("counters %v, want %d in, %d out, %d dead", c, n+dead, n, dead)
	}
	_, dl := takeCollected(key)
	got := map[string]string{}
	for _, e := range dl {
		got[e.ID] = e.Error
	}
	for id, want := range map[string]string{"nan": "NaN", "narrow": "5 features, want 6", "nolabel": "no label", "empty": "0 features", "cat": "not an integer"} {
		if !strings.Contains(got[id], want) {
			t.Errorf("dead letter %q: %q, want it to say %q", id, got[id], want)
		}
	}
	if len(dl) != dead {
		t.Errorf("dead letters %v", got)
	}
	m := loadModelFile(t, path)
	checkLDA(t, m, x, labels)
}

// wideParquetRow is a Parquet schema with one column a feature, as pandas
// writes a data frame: the ID column "key" (INT64) between features of
// several types, one of them optional, and a label column "kind".
type wideParquetRow struct {
	A    float64  `parquet:"name=a, type=DOUBLE"`
	Key  int64    `parquet:"name=key, type=INT64"`
	B    *float64 `parquet:"name=b, type=DOUBLE, repetitiontype=OPTIONAL"`
	Kind string   `parquet:"name=kind, type=BYTE_ARRAY, convertedtype=UTF8"`
	C    float32  `parquet:"name=c, type=FLOAT"`
	D    int32    `parquet:"name=d, type=INT32"`
}

// TestParquetIDColumn reads Parquet shards by column names
// (ReadParquetColumns): with the ID column "key", an integer, the other
// columns but the label are the features in schema order (a, b, c, d:
// DOUBLE, optional DOUBLE, FLOAT, INT32), projects them on prism and
// checks each output row against the in-process Transform of its input
// (relative difference 0), the IDs (duplicates kept), a null feature as a
// dead letter naming its column, the counters; a string ID column named
// "name" with a list column x as the features reads as the id/x schema
// does; a missing ID column and a DOUBLE ID column fail the pipeline with
// an error naming the column.
func TestParquetIDColumn(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, modelPath := fitPCA(t, dir)
	const n = 40
	x, _ := rollData(n, 4, 9)
	for i := range n { // exact in float32 and int32, as the file holds them
		x.Set(i, 2, float64(float32(x.At(i, 2))))
		x.Set(i, 3, float64(int32(100*x.At(i, 3))))
	}
	want, err := m.Transform(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	wide := filepath.Join(dir, "wide")
	os.Mkdir(wide, 0o755)
	var rows []wideParquetRow
	for i := range n {
		b := x.At(i, 1)
		rows = append(rows, wideParquetRow{A: x.At(i, 0), Key: int64(i % 37), B: &b, Kind: "k", C: float32(x.At(i, 2)), D: int32(x.At(i, 3))})
	}
	null := wideParquetRow{A: 1, Key: 99, Kind: "k", C: 1, D: 1} // b is null
	writeParquetAny(t, filepath.Join(wide, "a.parquet"), new(wideParquetRow), rows[:25])
	writeParquetAny(t, filepath.Join(wide, "b.parquet"), new(wideParquetRow), nil)
	writeParquetAny(t, filepath.Join(wide, "c.parquet"), new(wideParquetRow), append(append([]wideParquetRow{}, rows[25:]...), null))

	p, s := beam.NewPipelineWithRoot()
	emb, dead := Project(s, modelPath, ReadParquetColumns(s, filepath.Join(wide, "*.parquet"), "key", "kind"), ProjectOptions{Block: 8})
	key := t.Name()
	beam.ParDo0(s, &collectEmbFn{Key: key}, emb)
	beam.ParDo0(s, &collectDeadFn{Key: key}, dead)
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		t.Fatal(err)
	}
	if c := counters(t, res); c[MetricRowsIn] != n+1 || c[MetricRowsOut] != n || c[MetricDeadLetter] != 1 {
		t.Errorf("counters %v, want %d in, %d out, 1 dead", c, n+1, n)
	}
	got, dl := takeCollected(key)
	if len(got) != n {
		t.Fatalf("%d rows out, want %d", len(got), n)
	}
	for _, e := range got {
		var k int
		if _, err := fmt.Sscan(e.ID, &k); err != nil {
			t.Fatalf("ID %q: %v", e.ID, err)
		}
		match := false
		for i := k; i < n; i += 37 {
			match = match || relDiff(e.Y, want.RawRowView(i)) == 0
		}
		if !match {
			t.Errorf("row %s = %v matches no transform of that ID", e.ID, e.Y)
		}
	}
	if len(dl) != 1 || dl[0].ID != "99" || !strings.Contains(dl[0].Error, "column b") || !strings.Contains(dl[0].Error, "null") {
		t.Errorf("dead letters %v, want row 99 with its null column b", dl)
	}

	// A string ID column "name" and the features as a list column x.
	type namedRow struct {
		X    []float64 `parquet:"name=x, type=DOUBLE, repetitiontype=REPEATED"`
		Name string    `parquet:"name=name, type=BYTE_ARRAY, convertedtype=UTF8"`
	}
	named := filepath.Join(dir, "named.parquet")
	var nr []namedRow
	for i := range n {
		nr = append(nr, namedRow{X: x.RawRowView(i), Name: fmt.Sprint("n", i)})
	}
	writeParquetAny(t, named, new(namedRow), nr)
	p, s = beam.NewPipelineWithRoot()
	emb, _ = Project(s, modelPath, ReadParquetColumns(s, named, "name", ""), ProjectOptions{})
	beam.ParDo0(s, &collectEmbFn{Key: key + "named"}, emb)
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	got, _ = takeCollected(key + "named")
	if len(got) != n {
		t.Fatalf("named: %d rows out, want %d", len(got), n)
	}
	for _, e := range got {
		var i int
		if _, err := fmt.Sscanf(e.ID, "n%d", &i); err != nil || relDiff(e.Y, want.RawRowView(i)) != 0 {
			t.Errorf("named: row %q = %v (%v)", e.ID, e.Y, err)
		}
	}

	// A missing ID column, and an ID column of floats: the pipeline fails
	// naming the column.
	type floatID struct {
		F float64   `parquet:"name=f, type=DOUBLE"`
		X []float64 `parquet:"name=x, type=DOUBLE, repetitiontype=REPEATED"`
	}
	fl := filepath.Join(dir, "float.parquet")
	writeParquetAny(t, fl, new(floatID), []floatID{{F: 1.5, X: []float64{1, 2, 3, 4}}})
	for _, c := range []struct{ glob, id, want string }{
		{filepath.Join(wide, "*.parquet"), "nope", `no column "nope"`},
		{fl, "f", `ID column "f" holds float64 values`},
	} {
		p, s := beam.NewPipelineWithRoot()
		Project(s, modelPath, ReadParquetColumns(s, c.glob, c.id, ""), ProjectOptions{})
		err := ptest.Run(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("-id %s: %v, want an error saying %s", c.id, err, c.want)
		}
	}
}
