//go:build !beam_unit

package manifoldbeam

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine"
)

// failOnFn fails the pipeline at the row whose ID is Poison.
type failOnFn struct{ Poison string }

func (f *failOnFn) ProcessElement(r Row, emit func(Row)) error {
	if r.ID == f.Poison {
		return errors.New("poisoned row")
	}
	emit(r)
	return nil
}

func init() { register.DoFn2x1[Row, func(Row), error](&failOnFn{}) }

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readOutput reads every CSV file of dir matching pattern (header first)
// into ID → records.
func readOutput(t *testing.T, dir, pattern string, header func([]string) bool) map[string][][]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, pattern))
	out := map[string][][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(recs) == 0 || !header(recs[0]) {
			t.Fatalf("%s: header %v", f, recs)
		}
		for _, r := range recs[1:] {
			out[r[0]] = append(out[r[0]], r[1:])
		}
	}
	return out
}

func fitPCA(t *testing.T, dir string) (engine.Model, string) {
	t.Helper()
	train, _ := rollData(60, 4, 1)
	m, err := engine.PCA{Dim: 2}.Fit(context.Background(), train)
	if err != nil {
		t.Fatal(err)
	}
	return m, saveModel(t, m, dir, "pca")
}

// TestCSVRoundTrip reads uneven CSV shards (one with only a header) with an
// ID column, projects them and writes CSV, then checks every output row
// against the in-process Transform, the dead letters, the headers and the
// success marker; a second run without -id checks FILE:LINE IDs.
func TestCSVRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, modelPath := fitPCA(t, dir)
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	x, _ := rollData(9, 4, 3)
	row := func(i int) string {
		r := x.RawRowView(i)
		return fmt.Sprintf("%v,%v,%v,%v", r[0], r[1], r[2], r[3])
	}
	// Column order: the ID sits between the features.
	idRow := func(id string, i int) string {
		r := x.RawRowView(i)
		return fmt.Sprintf("%v,%s,%v,%v,%v", r[0], id, r[1], r[2], r[3])
	}
	writeFile(t, filepath.Join(in, "a.csv"), "x1,key,x2,x3,x4\n"+idRow("r0", 0)+"\n"+idRow("r1", 1)+"\n\n"+idRow("r2", 2)+"\n"+
		idRow("dup", 3)+"\n"+idRow("dup", 4)+"\n1,bad,2,x,4\n")
	writeFile(t, filepath.Join(in, "b.csv"), "x1,key,x2,x3,x4\n")
	writeFile(t, filepath.Join(in, "c.csv"), "x1,key,x2,x3,x4\n"+idRow("r5", 5)+"\n1,narrow,2,3\nnan,nanrow,1,2,3\n"+idRow("r6", 6)+"\n")
	y, err := m.Transform(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][][]float64{}
	for i, id := range []string{"r0", "r1", "r2", "dup", "dup", "r5", "r6"} {
		k := []int{0, 1, 2, 3, 4, 5, 6}[i]
		want[id] = append(want[id], y.RawRowView(k))
	}

	out := filepath.Join(dir, "out")
	p, s := beam.NewPipelineWithRoot()
	emb, dead := Project(s, modelPath, ReadCSV(s, filepath.Join(in, "*.csv"), "key"), ProjectOptions{Block: 2})
	WriteCSV(s, out, emb, dead)
	res, err := ptest.RunWithMetrics(p)
	if err != nil {
		t.Fatal(err)
	}
	cnt := counters(t, res)
	if cnt[MetricRowsIn] != 10 || cnt[MetricRowsOut] != 7 || cnt[MetricDeadLetter] != 3 {
		t.Errorf("counters %v, want rows_in 10, rows_out 7, dead_letters 3", cnt)
	}
	got := readOutput(t, out, "part-*.csv", func(h []string) bool { return strings.Join(h, ",") == "id,y1,y2" })
	if len(got) != len(want) {
		t.Errorf("output IDs %v, want %v", got, want)
	}
	for id, ws := range want {
		gs := got[id]
		if len(gs) != len(ws) {
			t.Errorf("ID %s: %d output rows, want %d", id, len(gs), len(ws))
			continue
		}
		for _, w := range ws {
			found := false
			for _, g := range gs {
				v := make([]float64, len(g))
				for j := range g {
					v[j], _ = strconv.ParseFloat(g[j], 64)
				}
				if relDiff(v, w) <= 1e-12 {
					found = true
				}
			}
			if !found {
				t.Errorf("ID %s: output %v has no row equal to %v", id, gs, w)
			}
		}
	}
	dl := readOutput(t, out, "dead-letters-*.csv", func(h []string) bool { return strings.Join(h, ",") == "id,error" })
	for _, id := range []string{"bad", "narrow", "nanrow"} {
		if len(dl[id]) != 1 || dl[id][0][0] == "" {
			t.Errorf("dead letter %s: %v", id, dl[id])
		}
	}
	if !strings.Contains(dl["bad"][0][0], "line 8") {
		t.Errorf("unparsable row's error %q does not name its line", dl["bad"][0][0])
	}
	if _, err := os.Stat(filepath.Join(out, SuccessFile)); err != nil {
		t.Errorf("no success marker: %v", err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(out, ".tmp-*")); len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}

	// Without an ID column: IDs are FILE:LINE.
	in2 := filepath.Join(dir, "in2")
	os.Mkdir(in2, 0o755)
	writeFile(t, filepath.Join(in2, "s.csv"), row(7)+"\n# comment\n"+row(8)+"\n")
	out2 := filepath.Join(dir, "out2")
	p, s = beam.NewPipelineWithRoot()
	emb, dead = Project(s, modelPath, ReadCSV(s, filepath.Join(in2, "*.csv"), ""), ProjectOptions{})
	WriteCSV(s, out2, emb, dead)
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	got = readOutput(t, out2, "part-*.csv", func(h []string) bool { return len(h) == 3 })
	f := filepath.Join(in2, "s.csv")
	if len(got) != 2 || got[f+":1"] == nil || got[f+":3"] == nil {
		t.Errorf("IDs %v, want %s:1 and %s:3", got, f, f)
	}
}

// TestNPYShards reads .npy shards of uneven sizes and checks the output.
func TestNPYShards(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, modelPath := fitPCA(t, dir)
	x, _ := rollData(11, 4, 4)
	y, _ := m.Transform(ctx, x)
	write := func(name string, lo, hi int) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := dataio.WriteNPY(f, x.Slice(lo, hi, 0, 4)); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	write("s0.npy", 0, 1)
	write("s1.npy", 1, 11)
	p, s := beam.NewPipelineWithRoot()
	emb, _ := Project(s, modelPath, ReadNPY(s, filepath.Join(dir, "*.npy")), ProjectOptions{Block: 3})
	beam.ParDo0(s, &collectEmbFn{Key: t.Name()}, emb)
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	got, _ := takeCollected(t.Name())
	if len(got) != 11 {
		t.Fatalf("%d rows out, want 11", len(got))
	}
	for _, e := range got {
		var k int
		switch {
		case strings.HasSuffix(e.ID, "s0.npy:0"):
			k = 0
		default:
			i := strings.LastIndexByte(e.ID, ':')
			k, _ = strconv.Atoi(e.ID[i+1:])
			k++
		}
		if d := relDiff(e.Y, y.RawRowView(k)); d > 1e-12 || math.IsNaN(d) {
			t.Errorf("%s: relative difference %.3g", e.ID, d)
		}
	}
	_ = mat.NewDense
}

// TestFailedPipelineLeavesNoCompleteOutput fails a pipeline mid-way (after
// rows have been written to temporary files) and checks that no output
// file carries a final name and there is no success marker.
func TestFailedPipelineLeavesNoCompleteOutput(t *testing.T) {
	p, out := projectionThrough(t, &failOnFn{Poison: "marked"})
	if err := ptest.Run(p); err == nil {
		t.Fatal("the poisoned pipeline succeeded")
	}
	assertNothingComplete(t, out)
}

// projectionThrough builds a projection pipeline over two CSV shards (400
// rows, and one row with ID "marked") whose rows pass through fn (a DoFn
// Row → Row) before Project and WriteCSV; it returns the pipeline and the
// output directory.
func projectionThrough(t *testing.T, fn any) (*beam.Pipeline, string) {
	dir := t.TempDir()
	_, modelPath := fitPCA(t, dir)
	var b strings.Builder
	b.WriteString("a,b,c,d,id\n")
	for i := range 400 {
		fmt.Fprintf(&b, "%d,1,2,3,r%d\n", i, i)
	}
	writeFile(t, filepath.Join(dir, "a.csv"), b.String())
	writeFile(t, filepath.Join(dir, "b.csv"), "a,b,c,d,id\n1,2,3,4,marked\n")
	out := filepath.Join(dir, "out")
	p, s := beam.NewPipelineWithRoot()
	rows := beam.ParDo(s, fn, ReadCSV(s, filepath.Join(dir, "*.csv"), "id"))
	emb, dead := Project(s, modelPath, rows, ProjectOptions{Block: 16})
	WriteCSV(s, out, emb, dead)
	return p, out
}

// assertNothingComplete fails when out holds a file with a final name or
// the success marker.
func assertNothingComplete(t *testing.T, out string) {
	t.Helper()
	for _, pat := range []string{"part-*", "dead-letters-*", SuccessFile} {
		if m, _ := filepath.Glob(filepath.Join(out, pat)); len(m) != 0 {
			t.Errorf("an unfinished pipeline left %v", m)
		}
	}
}

// stallFn passes rows on and, at the row with ID Stall, tells the test
// (stalled) and waits until the pipeline's context ends.
type stallFn struct{ Stall string }

var stalled = make(chan struct{}, 1)

func (f *stallFn) ProcessElement(ctx context.Context, r Row, emit func(Row)) error {
	if r.ID == f.Stall {
		stalled <- struct{}{}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Minute):
			return errors.New("not cancelled within a minute")
		}
	}
	emit(r)
	return nil
}

func init() { register.DoFn3x1[context.Context, Row, func(Row), error](&stallFn{}) }

// TestCancelledPipelineLeavesNoCompleteOutput cancels a projection
// pipeline while a bundle is in flight (a row of one shard holds it; the
// other shard's rows may be written to temporary files by then) and checks
// that Run returns an error soon, that no output file carries a final
// name and that there is no success marker.
func TestCancelledPipelineLeavesNoCompleteOutput(t *testing.T) {
	p, out := projectionThrough(t, &stallFn{Stall: "marked"})
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled atomic.Bool
	go func() {
		<-stalled
		cancelled.Store(true)
		cancel()
	}()
	start := time.Now()
	_, err := beam.Run(ctx, "prism", p)
	if err == nil {
		t.Fatal("the cancelled pipeline succeeded")
	}
	if !cancelled.Load() {
		t.Fatalf("the pipeline failed before it was cancelled: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Run returned %v after the start", d)
	}
	assertNothingComplete(t, out)
}

// TestNPYOutput projects CSV shards (one empty, duplicate IDs, bad rows)
// and writes the output with WriteNPY: every part's .npy rows, paired with
// its .ids.csv, equal the in-process Transform (bit for bit: float64 in,
// float64 out), the dead letters are CSV, and _SUCCESS counts the parts.
func TestNPYOutput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, modelPath := fitPCA(t, dir)
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	x, _ := rollData(40, 4, 5)
	var a, c strings.Builder
	a.WriteString("key,x1,x2,x3,x4\n")
	c.WriteString("key,x1,x2,x3,x4\n")
	for i := range 40 {
		r := x.RawRowView(i)
		b := &a
		if i%3 == 0 {
			b = &c
		}
		fmt.Fprintf(b, "k%d,%v,%v,%v,%v\n", i%37, r[0], r[1], r[2], r[3]) // k0…k2 twice
	}
	c.WriteString("bad,1,2,x,4\nnarrow,1,2,3\n")
	writeFile(t, filepath.Join(in, "a.csv"), a.String())
	writeFile(t, filepath.Join(in, "b.csv"), "key,x1,x2,x3,x4\n")
	writeFile(t, filepath.Join(in, "c.csv"), c.String())
	y, err := m.Transform(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	p, s := beam.NewPipelineWithRoot()
	emb, dead := Project(s, modelPath, ReadCSV(s, filepath.Join(in, "*.csv"), "key"), ProjectOptions{Block: 8})
	WriteNPY(s, out, emb, dead)
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "part-*.npy"))
	seen := 0
	for _, part := range parts {
		ym, err := dataio.ReadMatrixFile(part)
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		b, _ := os.ReadFile(strings.TrimSuffix(part, ".npy") + ".ids.csv")
		recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
		if err != nil || len(recs) == 0 || recs[0][0] != "id" {
			t.Fatalf("%s: IDs %v, %v", part, recs, err)
		}
		for _, r := range recs[1:] {
			order = append(order, r[0])
		}
		if r, _ := ym.Dims(); r != len(order) {
			t.Fatalf("%s: %d rows, %d IDs", part, r, len(order))
		}
		for i, id := range order {
			k, _ := strconv.Atoi(strings.TrimPrefix(id, "k"))
			match := false
			for _, cand := range []int{k, k + 37} {
				if cand < 40 && relDiff(mat.Row(nil, i, ym), y.RawRowView(cand)) == 0 {
					match = true
				}
			}
			if !match {
				t.Errorf("%s row %d (%s) matches no transform of that ID", part, i, id)
			}
			seen++
		}
	}
	if seen != 40 {
		t.Errorf("%d rows written, want 40", seen)
	}
	dl := readOutput(t, out, "dead-letters-*.csv", func(h []string) bool { return strings.Join(h, ",") == "id,error" })
	if len(dl) != 2 {
		t.Errorf("dead letters %v", dl)
	}
	b, err := os.ReadFile(filepath.Join(out, SuccessFile))
	if err != nil || !strings.Contains(string(b), fmt.Sprintf("parts %d\n", len(parts))) {
		t.Errorf("%s: %q, %v (%d parts)", SuccessFile, b, err, len(parts))
	}
}
