package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// manifold neighbors writes the kNN lists as MatrixMarket (1-based, k per
// row, self excluded, value = distance), equal to the exact search's; the
// approximate search reports its sampled recall; bad flags fail on one line.
func TestNeighborsCommand(t *testing.T) {
	skipUnderRace(t, "the neighbors command's flags and file")
	t.Parallel()
	dir := t.TempDir()
	x := testData(t, dir)
	mustSucceed(t, dir, "neighbors", "-k", "6", "-neighbors", "exact", "-in", "roll.csv", "-out", "g.mtx", "-report", "r.json")
	g, err := sparse.ReadMatrixMarketFile(filepath.Join(dir, "g.mtx"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := neighbors.KNN(context.Background(), x, 6, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := g.Dims(); r != 120 || c != 120 || g.NNZ() != 120*6 {
		t.Fatalf("graph %d×%d with %d entries", r, c, g.NNZ())
	}
	for i := 0; i < 120; i++ {
		js, ds := want.Row(i)
		for c, j := range js {
			if i == j {
				t.Fatalf("row %d holds itself", i)
			}
			if v := g.At(i, j); math.Abs(v-ds[c]) > 1e-15*(1+ds[c]) {
				t.Fatalf("entry (%d, %d) = %v, distance %v", i, j, v, ds[c])
			}
		}
	}
	var rep struct {
		Stages []struct {
			Name, Search string
			Recall       *neighbors.RecallEstimate
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Stages) != 1 || (rep.Stages[0].Search != "exact kd-tree" && rep.Stages[0].Search != "exact brute") || rep.Stages[0].Recall != nil {
		t.Fatalf("exact report stages %+v", rep.Stages)
	}
	mustSucceed(t, dir, "neighbors", "-k", "6", "-neighbors", "approx", "-in", "roll.csv", "-out", "a.mtx", "-report", "ra.json", "-recall-sample", "50")
	b, _ = os.ReadFile(filepath.Join(dir, "ra.json"))
	rep.Stages = nil
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Stages) != 1 || rep.Stages[0].Search != "nn-descent" || rep.Stages[0].Recall == nil || rep.Stages[0].Recall.Sample != 50 || rep.Stages[0].Recall.Recall < 0.95 {
		t.Fatalf("approximate report stages %+v", rep.Stages)
	}
	// The search's memory estimate against -max-memory (the reading of 120
	// rows fits in 10 kB; the k-d tree's lists and permutation, 13 kB, do
	// not).
	mustFail(t, dir, []string{"roll.csv", "memory budget exceeded", "needs about", "cheaper: an approximate search"},
		"neighbors", "-k", "6", "-neighbors", "exact", "-max-memory", "10kB", "-in", "roll.csv", "-out", "b.mtx")
	mustSucceed(t, dir, "neighbors", "-k", "6", "-neighbors", "exact", "-max-memory", "0", "-in", "roll.csv", "-out", "b.mtx")
	mustFail(t, dir, []string{"-k is required"}, "neighbors", "-in", "roll.csv", "-out", "g.mtx")
	mustFail(t, dir, []string{"-neighbors", "auto, exact or approx"}, "neighbors", "-k", "3", "-neighbors", "fast", "-in", "roll.csv", "-out", "g.mtx")
	mustFail(t, dir, []string{"GRAPH.mtx"}, "neighbors", "-k", "3", "-in", "roll.csv", "-out", "g.csv")
	mustFail(t, dir, []string{"roll.csv", "k = 120"}, "neighbors", "-k", "120", "-in", "roll.csv", "-out", "g.mtx")
	mustFail(t, dir, []string{"-neighbors does not apply to method pca"}, "embed", "-method", "pca", "-in", "roll.csv", "-neighbors", "approx")
	r := mustSucceed(t, dir, "embed", "-method", "isomap", "-k", "8", "-in", "roll.csv", "-neighbors", "approx", "-report", "e.json")
	if r.stdout == "" {
		t.Fatal("embed -neighbors approx wrote nothing")
	}
	// The graph written by neighbors, given back to embed: the same
	// embedding as embed's own search.
	own := parseCSV(t, mustSucceed(t, dir, "embed", "-method", "isomap", "-k", "6", "-in", "roll.csv").stdout)
	given := parseCSV(t, mustSucceed(t, dir, "embed", "-method", "isomap", "-k", "6", "-in", "roll.csv", "-graph", "g.mtx").stdout)
	if !equalApprox(own, given, 1e-9) {
		t.Fatal("embed -graph g.mtx differs from embed's own 6-NN graph")
	}
	mustFail(t, dir, []string{"-graph does not apply to method pca"}, "embed", "-method", "pca", "-in", "roll.csv", "-graph", "g.mtx")
	mustFail(t, dir, []string{"-graph replaces the neighbour search"}, "embed", "-method", "isomap", "-in", "roll.csv", "-graph", "g.mtx", "-eps", "1")
	putFile(t, filepath.Join(dir, "small.mtx"), "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 0.5\n")
	mustFail(t, dir, []string{"small.mtx", "3 vertices for 120 points"}, "embed", "-method", "isomap", "-in", "roll.csv", "-graph", "small.mtx")
}

// An approximate search of a .npy input reads float32 rows (the report
// says so) and, on values float32 holds exactly, writes the graph the
// float64 rows give; -float32 forces it for an exact search and is refused
// for other formats.
func TestNeighborsFloat32(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "float32 against float64 graphs (numerics, not concurrency)")
	dir := t.TempDir()
	x := testData(t, dir)
	r, c := x.Dims()
	x32 := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			x32.Set(i, j, float64(float32(x.At(i, j))))
		}
	}
	var b bytes.Buffer
	if err := dataio.WriteNPY(&b, x32); err != nil {
		t.Fatal(err)
	}
	putFile(t, filepath.Join(dir, "roll.npy"), b.String())
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, search := range []string{"approx", "exact"} {
		mustSucceed(t, dir, "neighbors", "-k", "6", "-neighbors", search, "-in", "roll.npy", "-out", "g32.mtx", "-report", "r32.json")
		mustSucceed(t, dir, "neighbors", "-k", "6", "-neighbors", search, "-in", "roll.npy", "-out", "g64.mtx", "-float32=false", "-report", "r64.json")
		if read("g32.mtx") != read("g64.mtx") {
			t.Fatalf("%s: the float32 rows' graph differs from the float64 rows'", search)
		}
		rows := readParams(t, filepath.Join(dir, "r32.json"))["rows"]
		if want := map[string]any{"approx": "float32", "exact": nil}[search]; rows != want {
			t.Fatalf("%s: report's rows = %v, want %v", search, rows, want)
		}
		if readParams(t, filepath.Join(dir, "r64.json"))["rows"] != nil {
			t.Fatalf("%s: -float32=false reported float32 rows", search)
		}
	}
	// -refine: the same graph from float32 and float64 rows, the width
	// in the report; an exact search does not report one.
	mustSucceed(t, dir, "neighbors", "-k", "6", "-neighbors", "approx", "-refine", "20", "-in", "roll.npy", "-out", "r32.mtx", "-report", "rr32.json")
	mustSucceed(t, dir, "neighbors", "-k", "6", "-neighbors", "approx", "-refine", "20", "-in", "roll.npy", "-out", "r64.mtx", "-float32=false", "-report", "rr64.json")
	if read("r32.mtx") != read("r64.mtx") {
		t.Fatal("-refine: the float32 rows' graph differs from the float64 rows'")
	}
	for _, name := range []string{"rr32.json", "rr64.json"} {
		if w := readParams(t, filepath.Join(dir, name))["refine_width"]; w != 20.0 {
			t.Fatalf("%s: refine_width = %v, want 20", name, w)
		}
	}
	mustSucceed(t, dir, "neighbors", "-k", "6", "-refine", "20", "-in", "roll.npy", "-out", "re.mtx", "-report", "re.json")
	if w := readParams(t, filepath.Join(dir, "re.json"))["refine_width"]; w != nil {
		t.Fatalf("auto (exact on 120 rows) reports refine_width %v", w)
	}
	mustFail(t, dir, []string{"-refine", "not with -neighbors exact"}, "neighbors", "-k", "6", "-neighbors", "exact", "-refine", "20", "-in", "roll.npy", "-out", "g.mtx")
	mustFail(t, dir, []string{"-refine", "not with -neighbors exact"}, "embed", "-method", "lle", "-neighbors", "exact", "-refine", "20", "-in", "roll.csv")
	mustFail(t, dir, []string{"-refine 5", "k + 1 = 7"}, "neighbors", "-k", "6", "-refine", "5", "-in", "roll.npy", "-out", "g.mtx")
	mustFail(t, dir, []string{"-refine does not apply to method pca"}, "embed", "-method", "pca", "-in", "roll.csv", "-refine", "20")
	mustFail(t, dir, []string{"-graph replaces the neighbour search"}, "embed", "-method", "isomap", "-in", "roll.csv", "-graph", "g64.mtx", "-refine", "20")
	mustSucceed(t, dir, "embed", "-method", "lle", "-k", "8", "-neighbors", "approx", "-refine", "24", "-in", "roll.csv", "-out", "/dev/null", "-report", "lle.json")
	if w := readParams(t, filepath.Join(dir, "lle.json"))["refine_width"]; w != 24.0 {
		t.Fatalf("embed -refine 24: refine_width = %v", w)
	}
	mustSucceed(t, dir, "neighbors", "-k", "6", "-neighbors", "exact", "-float32", "-in", "roll.npy", "-out", "gx.mtx")
	if read("gx.mtx") != read("g64.mtx") {
		t.Fatal("-float32 with an exact search: a different graph")
	}
	mustFail(t, dir, []string{"-float32 reads .npy input only"}, "neighbors", "-k", "6", "-float32", "-in", "roll.csv", "-out", "g.mtx")
	// Rows whose squares overflow float32 (the roll times 2^70): read
	// again in float64 when float32 was only the default, the same lists
	// as the unscaled rows'; refused with -float32.
	var big mat.Dense
	big.Scale(math.Ldexp(1, 70), x32)
	b.Reset()
	if err := dataio.WriteNPY(&b, &big); err != nil {
		t.Fatal(err)
	}
	putFile(t, filepath.Join(dir, "big.npy"), b.String())
	mustSucceed(t, dir, "neighbors", "-k", "6", "-neighbors", "approx", "-in", "big.npy", "-out", "gbig.mtx")
	mustSucceed(t, dir, "neighbors", "-k", "6", "-neighbors", "approx", "-float32=false", "-in", "roll.npy", "-out", "gsmall.mtx")
	if lists(t, read("gbig.mtx")) != lists(t, read("gsmall.mtx")) {
		t.Fatal("rows times 2^70: other neighbours than the rows'")
	}
	mustFail(t, dir, []string{"big.npy", "overflow"}, "neighbors", "-k", "6", "-neighbors", "approx", "-float32", "-in", "big.npy", "-out", "g.mtx")
	// Values past float32's range itself (2^200): read in float64 when
	// float32 was only the default (before: "is -Inf, not a finite number
	// (as float32)"); values whose squared distances overflow even float64
	// (2^600) are refused, naming that.
	for _, e := range []int{200, 600} {
		big.Scale(math.Ldexp(1, e), x32)
		b.Reset()
		if err := dataio.WriteNPY(&b, &big); err != nil {
			t.Fatal(err)
		}
		putFile(t, filepath.Join(dir, "huge.npy"), b.String())
		if e == 600 {
			mustFail(t, dir, []string{"huge.npy", "squared distances overflow"}, "neighbors", "-k", "6", "-neighbors", "approx", "-in", "huge.npy", "-out", "g.mtx")
			continue
		}
		mustSucceed(t, dir, "neighbors", "-k", "6", "-neighbors", "approx", "-in", "huge.npy", "-out", "ghuge.mtx")
		if lists(t, read("ghuge.mtx")) != lists(t, read("gsmall.mtx")) {
			t.Fatal("rows times 2^200: other neighbours than the rows'")
		}
		mustFail(t, dir, []string{"huge.npy", "as float32"}, "neighbors", "-k", "6", "-neighbors", "approx", "-float32", "-in", "huge.npy", "-out", "g.mtx")
	}
	putFile(t, filepath.Join(dir, "bad.npy"), "garbage, not numpy")
	mustFail(t, dir, []string{"bad.npy", "not a NumPy file"}, "neighbors", "-k", "6", "-in", "bad.npy", "-out", "g.mtx")
}

// lists returns the (row, column) pairs of a MatrixMarket graph, without
// the values.
func lists(t *testing.T, mtx string) string {
	t.Helper()
	var out strings.Builder
	for _, line := range strings.Split(mtx, "\n") {
		if f := strings.Fields(line); len(f) == 3 && !strings.HasPrefix(line, "%") {
			out.WriteString(f[0] + " " + f[1] + "\n")
		}
	}
	return out.String()
}

// -index-k: an approximate fit records index_k in its report and its
// model, whose projection of the training rows works; the flag is refused
// for methods that keep no training rows, below 0, with -neighbors exact,
// and at or above the number of rows (the engine's ErrBadSetting).
func TestEmbedIndexK(t *testing.T) {
	skipUnderRace(t, "the -index-k flag")
	dir := t.TempDir()
	testData(t, dir)
	mustSucceed(t, dir, "embed", "-method", "lle", "-k", "8", "-neighbors", "approx", "-index-k", "12", "-in", "roll.csv", "-out", "/dev/null", "-model", "m.bin", "-report", "r.json")
	if k := readParams(t, filepath.Join(dir, "r.json"))["index_k"]; k != 12.0 {
		t.Fatalf("report index_k = %v, want 12", k)
	}
	mustSucceed(t, dir, "project", "-model", "m.bin", "-in", "roll.csv", "-out", "p.csv")
	mustFail(t, dir, []string{"-index-k does not apply to method pca"}, "embed", "-method", "pca", "-index-k", "12", "-in", "roll.csv", "-out", "/dev/null")
	mustFail(t, dir, []string{"-index-k must be at least 0"}, "embed", "-method", "lle", "-k", "8", "-index-k", "-1", "-in", "roll.csv", "-out", "/dev/null")
	mustFail(t, dir, []string{"-index-k", "not with -neighbors exact"}, "embed", "-method", "lle", "-k", "8", "-neighbors", "exact", "-index-k", "12", "-in", "roll.csv", "-out", "/dev/null")
	mustFail(t, dir, []string{"index neighbours 120 of 120 rows"}, "embed", "-method", "lle", "-k", "8", "-neighbors", "approx", "-index-k", "120", "-in", "roll.csv", "-out", "/dev/null")
}
