package manifoldbeam

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/fileio"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// The tests of this file call the package's DoFns directly, without a
// runner, so they build and run under -race without prism (-tags
// beam_unit; see pipeline_test.go).

// TestProjectFnConcurrent runs four projectFn instances at once, as a
// worker's bundles do, on one model path never loaded before (the
// per-process model cache: one load, shared), each over its own rows in
// blocks of 7 with bad rows mixed in: every good row's coordinates equal
// the in-process Transform, every bad row is a dead letter with its ID;
// with Parallel 1 (blocks on the bundle's goroutine) and 3 (blocks in
// flight on goroutines of their own, a failing block among them), over two
// bundles (the second reuses the first's block slices).
func TestProjectFnConcurrent(t *testing.T) {
	ctx := context.Background()
	x, _ := rollData(120, 4, 31)
	m, err := engine.PCA{Dim: 2}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	path := saveModel(t, m, t.TempDir(), "pca")
	want, _ := m.Transform(ctx, x)
	for _, par := range []int{1, 3} {
		t.Run(fmt.Sprint("parallel", par), func(t *testing.T) { testProjectFnConcurrent(t, path, x, want, par) })
	}
}

func testProjectFnConcurrent(t *testing.T, path string, x, want *mat.Dense, par int) {
	ctx := context.Background()
	const workers = 4
	var wg sync.WaitGroup
	type result struct {
		emb  []Embedded
		dead []DeadLetter
		err  error
	}
	res := make([]result, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &res[w]
			f := &projectFn{ModelPath: path, Block: 7, Parallel: par}
			if r.err = f.Setup(ctx); r.err != nil {
				return
			}
			emit := func(e Embedded) { r.emb = append(r.emb, e) }
			dead := func(d DeadLetter) { r.dead = append(r.dead, d) }
			// Two bundles: the second reuses the slices of the first's blocks.
			f.StartBundle(ctx, emit, dead)
			for i := w; i < 120; i += workers {
				if i >= 60 && i-workers < 60 {
					if r.err = f.FinishBundle(ctx, emit, dead); r.err != nil {
						return
					}
					f.StartBundle(ctx, emit, dead)
				}
				if r.err = f.ProcessElement(ctx, Row{ID: fmt.Sprint(i), X: x.RawRowView(i)}, emit, dead); r.err != nil {
					return
				}
			}
			for _, b := range []Row{{ID: fmt.Sprint("nan", w), X: []float64{1, math.NaN(), 1, 1}}, {ID: fmt.Sprint("narrow", w), X: []float64{1, 2}}, {ID: fmt.Sprint("text", w), Err: "unparsable"}} {
				if r.err = f.ProcessElement(ctx, b, emit, dead); r.err != nil {
					return
				}
			}
			r.err = f.FinishBundle(ctx, emit, dead)
		}()
	}
	wg.Wait()
	seen := 0
	for w, r := range res {
		if r.err != nil {
			t.Fatalf("worker %d: %v", w, r.err)
		}
		for _, e := range r.emb {
			var i int
			fmt.Sscan(e.ID, &i)
			if d := relDiff(e.Y, want.RawRowView(i)); d > 1e-12 {
				t.Errorf("row %d: relative difference %.3g", i, d)
			}
			seen++
		}
		if len(r.dead) != 3 {
			t.Errorf("worker %d: dead letters %v, want its three bad rows", w, r.dead)
		}
	}
	if seen != 120 {
		t.Errorf("%d rows mapped, want 120", seen)
	}
}

// TestRowFilters: the DoFns in front of the fits pass good rows and send
// each bad one to the dead letters with its reason — finiteRowsFn (an
// error, no features, NaN), labeledRowsFn (and a label that is not an
// integer; " 07" is class 7), stratifiedRowsFn supervised (the canonical
// stratum "7" for " 07"),
// requireWidthFn (another width marks the row, an earlier error is kept).
func TestRowFilters(t *testing.T) {
	ctx := context.Background()
	rows := []Row{
		{ID: "ok", X: []float64{1, 2}, Label: " 07"},
		{ID: "err", Err: "unparsable", Label: "1"},
		{ID: "empty", Label: "1"},
		{ID: "nan", X: []float64{math.NaN(), 1}, Label: "1"},
		{ID: "cat", X: []float64{1, 2}, Label: "cat"},
	}
	var good [][]float64
	var dead []DeadLetter
	for _, r := range rows {
		(&finiteRowsFn{}).ProcessElement(ctx, r, func(x []float64) { good = append(good, x) }, func(d DeadLetter) { dead = append(dead, d) })
	}
	if len(good) != 2 || len(dead) != 3 || dead[0].ID != "err" || dead[1].ID != "empty" || !strings.Contains(dead[2].Error, "NaN") {
		t.Errorf("finiteRowsFn: %d good, dead %v", len(good), dead)
	}
	var labeled []Labeled
	dead = nil
	for _, r := range rows {
		(&labeledRowsFn{}).ProcessElement(ctx, r, func(l Labeled) { labeled = append(labeled, l) }, func(d DeadLetter) { dead = append(dead, d) })
	}
	if len(labeled) != 1 || labeled[0].Label != 7 || len(dead) != 4 || !strings.Contains(dead[3].Error, `"cat" is not an integer`) {
		t.Errorf("labeledRowsFn: %v, dead %v", labeled, dead)
	}
	var strat []Stratified
	dead = nil
	for _, r := range rows {
		(&stratifiedRowsFn{Supervised: true}).ProcessElement(ctx, r, func(s Stratified) { strat = append(strat, s) }, func(d DeadLetter) { dead = append(dead, d) })
	}
	if len(strat) != 1 || strat[0].Stratum != "7" || strat[0].Label != 7 || len(dead) != 4 {
		t.Errorf("stratifiedRowsFn: %v, dead %v", strat, dead)
	}
	f := &requireWidthFn{Width: 2}
	if r := f.ProcessElement(Row{ID: "a", X: []float64{1, 2}}); r.Err != "" {
		t.Errorf("width 2: %q", r.Err)
	}
	if r := f.ProcessElement(Row{ID: "b", X: []float64{1, 2, 3}}); !strings.Contains(r.Err, "3 features, want 2") || r.X != nil {
		t.Errorf("width 3: %+v", r)
	}
	if r := f.ProcessElement(Row{ID: "c", Err: "unparsable"}); r.Err != "unparsable" {
		t.Errorf("an earlier error: %q", r.Err)
	}
}

// TestReadParquetColumnsFn reads Parquet files directly with the labelled
// reader's DoFn: a list column x and a string label (pyarrow's layout),
// and ParquetRow's repeated x with an INT64 label, rows in file order with
// their IDs, labels and features, an empty list a row without features;
// a file without the label column fails with ErrInput.
func TestReadParquetColumnsFn(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	type listRow struct {
		ID    string    `parquet:"name=id, type=BYTE_ARRAY, convertedtype=UTF8"`
		X     []float64 `parquet:"name=x, type=LIST, valuetype=DOUBLE"`
		Class *string   `parquet:"name=class, type=BYTE_ARRAY, convertedtype=UTF8, repetitiontype=OPTIONAL"`
	}
	a, b := "a", "b"
	writeParquetAny(t, filepath.Join(dir, "list.parquet"), new(listRow), []listRow{
		{ID: "r0", X: []float64{1, 2, 3}, Class: &a}, {ID: "r1", X: []float64{4, 5, 6}}, {ID: "r2", Class: &b}})
	type intRow struct {
		ID    string    `parquet:"name=id, type=BYTE_ARRAY, convertedtype=UTF8"`
		X     []float64 `parquet:"name=x, type=DOUBLE, repetitiontype=REPEATED"`
		Class int64     `parquet:"name=class, type=INT64"`
	}
	writeParquetAny(t, filepath.Join(dir, "int.parquet"), new(intRow), []intRow{{ID: "s0", X: []float64{7, 8}, Class: -3}, {ID: "s1", X: []float64{9}, Class: 12}})
	read := func(name, col string) ([]Row, error) {
		var out []Row
		err := (&readParquetColumnsFn{LabelColumn: col}).ProcessElement(ctx, fileio.ReadableFile{Metadata: fileio.FileMetadata{Path: filepath.Join(dir, name)}}, func(r Row) { out = append(out, r) })
		return out, err
	}
	got, err := read("list.parquet", "class")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ID != "r0" || got[0].Label != "a" || !mat.Equal(mat.NewVecDense(3, got[0].X), mat.NewVecDense(3, []float64{1, 2, 3})) ||
		got[1].Err == "" || !strings.Contains(got[1].Err, "no label") || got[2].Label != "b" || len(got[2].X) != 0 || got[2].Err != "" {
		t.Errorf("list column: %+v", got)
	}
	got, err = read("int.parquet", "class")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Label != "-3" || got[1].Label != "12" || len(got[0].X) != 2 || len(got[1].X) != 1 || got[1].X[0] != 9 {
		t.Errorf("repeated column: %+v", got)
	}
	if _, err := read("int.parquet", "digit"); !errors.Is(err, ErrInput) {
		t.Errorf("no column digit: %v", err)
	}
}
