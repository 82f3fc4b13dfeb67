//go:build !beam_unit

package manifoldbeam

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"
)

// testRows returns good rows (IDs g0…, two of them sharing the ID "dup")
// and bad rows (NaN, wrong width, unparsable, empty), and the good rows'
// matrix in order.
func testRows(d int) (good []Row, bad []Row, x *mat.Dense) {
	x, _ = rollData(31, d, 2)
	n, _ := x.Dims()
	for i := range n {
		id := "g" + string(rune('a'+i%26)) + string(rune('0'+i/26))
		if i == 5 || i == 17 {
			id = "dup"
		}
		good = append(good, Row{ID: id, X: append([]float64(nil), x.RawRowView(i)...)})
	}
	nan := append([]float64(nil), x.RawRowView(0)...)
	nan[1] = math.NaN()
	inf := append([]float64(nil), x.RawRowView(1)...)
	inf[0] = math.Inf(1)
	bad = []Row{
		{ID: "nan", X: nan},
		{ID: "inf", X: inf},
		{ID: "narrow", X: x.RawRowView(2)[:d-1]},
		{ID: "wide", X: append(append([]float64(nil), x.RawRowView(3)...), 1)},
		{ID: "unparsable", Err: `field 3: strconv.ParseFloat: parsing "abc": invalid syntax`},
		{ID: "empty", X: nil},
	}
	return good, bad, x
}

// TestProjectEveryMethod runs Project for every method's model on prism
// over uneven shards (one of them empty) mixing good rows, a duplicate ID
// and bad rows, and checks the output against the engine's in-process
// Transform (relative difference ≤ 1e-12), the dead letters and the counters;
// the methods take 1, 2 or 3 blocks in flight (ProjectOptions.Parallel) by turns.
func TestProjectEveryMethod(t *testing.T) {
	ctx := context.Background()
	const d = 5
	train, labels := rollData(90, d, 1)
	good, bad, x := testRows(d)
	dir := t.TempDir()

	want := map[string]*mat.Dense{}
	paths := map[string]string{}
	for _, c := range fitCases {
		m, err := c.fit(ctx, train, labels)
		if err != nil {
			t.Fatalf("%s: fit: %v", c.name, err)
		}
		y, err := m.Transform(ctx, x)
		if err != nil {
			t.Fatalf("%s: in-process Transform: %v", c.name, err)
		}
		want[c.name] = y
		paths[c.name] = saveModel(t, m, dir, c.name)
	}

	// Shards of 1, 0, 19 and the rest, bad rows spread among them.
	shards := [][]Row{
		{good[0]},
		{},
		append(append([]Row{}, good[1:12]...), append(bad[:3:3], good[12:20]...)...),
		append(append([]Row{}, good[20:]...), bad[3:]...),
	}
	p, s := beam.NewPipelineWithRoot()
	var cols []beam.PCollection
	for _, sh := range shards {
		cols = append(cols, beam.CreateList(s, sh))
	}
	rows := beam.Flatten(s, cols...)
	for i, c := range fitCases {
		// Blocks of 7; 1, 2 or 3 blocks in flight by turns.
		emb, dead := Project(s.Scope(c.name), paths[c.name], rows, ProjectOptions{Block: 7, Parallel: 1 + i%3})
		beam.ParDo0(s, &collectEmbFn{Key: t.Name() + c.name}, emb)
		beam.ParDo0(s, &collectDeadFn{Key: t.Name() + c.name}, dead)
	}
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		t.Fatal(err)
	}

	nm := int64(len(fitCases))
	cnt := counters(t, res)
	if cnt[MetricRowsIn] != nm*int64(len(good)+len(bad)) || cnt[MetricRowsOut] != nm*int64(len(good)) ||
		cnt[MetricDeadLetter] != nm*int64(len(bad)) || cnt[MetricRowsIn] != cnt[MetricRowsOut]+cnt[MetricDeadLetter] {
		t.Errorf("counters %v; want rows_in %d, rows_out %d, dead_letters %d", cnt,
			nm*int64(len(good)+len(bad)), nm*int64(len(good)), nm*int64(len(bad)))
	}

	for _, c := range fitCases {
		emb, dead := takeCollected(t.Name() + c.name)
		if len(emb) != len(good) {
			t.Errorf("%s: %d rows out, want %d", c.name, len(emb), len(good))
			continue
		}
		exp := make([]Embedded, len(good))
		for i := range good {
			exp[i] = Embedded{ID: good[i].ID, Y: want[c.name].RawRowView(i)}
		}
		sortEmb(exp)
		sortEmb(emb)
		worst := 0.0
		for i := range exp {
			if emb[i].ID != exp[i].ID {
				t.Fatalf("%s: row %d has ID %q, want %q", c.name, i, emb[i].ID, exp[i].ID)
			}
			worst = math.Max(worst, relDiff(emb[i].Y, exp[i].Y))
		}
		if worst > 1e-12 {
			t.Errorf("%s: pipeline vs in-process Transform: relative difference %.3g > 1e-12", c.name, worst)
		}
		got := map[string]string{}
		for _, dl := range dead {
			got[dl.ID] = dl.Error
		}
		if len(dead) != len(bad) || len(got) != len(bad) {
			t.Errorf("%s: dead letters %v, want the %d bad rows", c.name, dead, len(bad))
		}
		for _, b := range bad {
			e, ok := got[b.ID]
			switch {
			case !ok:
				t.Errorf("%s: bad row %q not in the dead letters", c.name, b.ID)
			case e == "":
				t.Errorf("%s: dead letter %q has no error text", c.name, b.ID)
			case b.Err != "" && e != b.Err:
				t.Errorf("%s: dead letter %q says %q, want the reader's %q", c.name, b.ID, e, b.Err)
			}
		}
		if e := got["nan"]; e != "" && !strings.Contains(strings.ToLower(e), "nan") && !strings.Contains(e, "finite") {
			t.Errorf("%s: NaN row's error %q names neither NaN nor finiteness", c.name, e)
		}
	}
}

// TestProjectFarRows: rows far from the training data (a row of the roll
// times 1e200, 1e306 and 1.7e308) are mapped to finite coordinates or go
// to the dead letters with the engine's "out of range" text, for every
// method — never emitted as Inf or NaN (the engine's TestTransformFarPoints
// has the 256-feature digits where PCA, LSI and OIP gave ±Inf and LTSA NaN);
// before, the dead letters of LLE and Laplacian eigenmaps blamed the local
// Gram matrix or a missing neighbour where the distances had overflowed.
func TestProjectFarRows(t *testing.T) {
	ctx := context.Background()
	const d = 5
	train, labels := rollData(90, d, 1)
	good, _, x := testRows(d)
	var rows []Row
	for i, s := range []float64{1e200, 1e306, 1.7e308} {
		far := append([]float64(nil), x.RawRowView(i)...)
		for j := range far {
			far[j] *= s
		}
		rows = append(rows, Row{ID: fmt.Sprintf("far%d", i), X: far})
	}
	rows = append(rows, good[:4]...)
	dir := t.TempDir()
	p, s := beam.NewPipelineWithRoot()
	in := beam.CreateList(s, rows)
	for _, c := range fitCases {
		m, err := c.fit(ctx, train, labels)
		if err != nil {
			t.Fatalf("%s: fit: %v", c.name, err)
		}
		emb, dead := Project(s.Scope(c.name), saveModel(t, m, dir, c.name), in, ProjectOptions{Block: 3})
		beam.ParDo0(s, &collectEmbFn{Key: t.Name() + c.name}, emb)
		beam.ParDo0(s, &collectDeadFn{Key: t.Name() + c.name}, dead)
	}
	if _, err := ptest.RunWithMetrics(p); err != nil {
		t.Fatal(err)
	}
	for _, c := range fitCases {
		emb, dead := takeCollected(t.Name() + c.name)
		if len(emb)+len(dead) != len(rows) {
			t.Errorf("%s: %d rows out and %d dead letters of %d rows", c.name, len(emb), len(dead), len(rows))
		}
		for _, e := range emb {
			for _, v := range e.Y {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s: row %q emitted as %v", c.name, e.ID, e.Y)
					break
				}
			}
		}
		for _, dl := range dead {
			if !strings.HasPrefix(dl.ID, "far") || !strings.Contains(dl.Error, "out of range") {
				t.Errorf("%s: dead letter %q: %s", c.name, dl.ID, dl.Error)
			}
		}
	}
}
