package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/manifoldlab/manifold/internal/testmode"
)

// readParams returns the params of a -report file.
func readParams(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep.Params
}

// -weight heat|binary reaches Laplacian eigenmaps and LPP, is refused by a
// method without edge weights and for other values; -float32 reaches
// Isomap and the report says so; without it, a fit that -max-memory
// refuses is retried in float32.
func TestWeightAndFloat32Flags(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "the spectral flags' fits")
	dir := t.TempDir()
	testData(t, dir)
	for _, m := range []string{"laplacian", "lpp"} {
		for _, w := range []string{"heat", "binary"} {
			mustSucceed(t, dir, "embed", "-method", m, "-in", "roll.csv", "-weight", w, "-out", "y.csv", "-report", "r.json", "-quiet")
			if got := readParams(t, filepath.Join(dir, "r.json"))["weight"]; got != w {
				t.Errorf("%s -weight %s: report weight %v", m, w, got)
			}
		}
	}
	mustFail(t, dir, []string{"-weight", "lle"}, "embed", "-method", "lle", "-in", "roll.csv", "-weight", "binary")
	mustFail(t, dir, []string{"-weight", "cosine"}, "embed", "-method", "laplacian", "-in", "roll.csv", "-weight", "cosine")
	mustFail(t, dir, []string{"-float32", "mds"}, "embed", "-method", "mds", "-in", "roll.csv", "-float32")

	mustSucceed(t, dir, "embed", "-method", "isomap", "-in", "roll.csv", "-float32", "-out", "y.csv", "-report", "r.json", "-quiet")
	if got := readParams(t, filepath.Join(dir, "r.json"))["float32"]; got != true {
		t.Errorf("isomap -float32: report float32 %v", got)
	}
	mustSucceed(t, dir, "embed", "-method", "isomap", "-in", "roll.csv", "-out", "y.csv", "-report", "r.json", "-quiet")
	if got := readParams(t, filepath.Join(dir, "r.json"))["float32"]; got != false {
		t.Errorf("isomap: report float32 %v", got)
	}
	// The built-in 2000-point roll: float64 needs about 39.8 MiB, float32
	// 24.6 MiB; with 32 MiB the retry in float32 fits.
	r := runCmd(t, dir, "embed", "-method", "isomap", "-out", "y.csv", "-report", "r.json", "-quiet", "-max-memory", "32MiB")
	if r.code != 0 || !strings.Contains(r.stderr, "fitted with -float32") {
		t.Errorf("auto float32: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := readParams(t, filepath.Join(dir, "r.json"))["float32"]; got != true {
		t.Errorf("auto float32: report float32 %v", got)
	}
	// Neither fits: one error line that says float32 was tried.
	mustFail(t, dir, []string{"memory budget", "with -float32"}, "embed", "-method", "isomap", "-quiet", "-max-memory", "1MiB")
	// The dense eigensolver reads float64 only: no retry, the budget's error and why.
	mustFail(t, dir, []string{"memory budget", "not retried in float32", "-eigensolver dense"}, "embed", "-method", "isomap", "-quiet", "-max-memory", "32MiB", "-eigensolver", "dense")
}

// -eigensolver reaches LLE, LTSA and Laplacian eigenmaps (the report's
// params and the eigensolve's detail say which ran) and the top
// eigenpairs of Isomap and Isometric Projection, and is refused by the
// other methods and for values a method has no use for.
func TestEigensolverFlag(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "the eigensolver flag's fits")
	dir := t.TempDir()
	testData(t, dir)
	for _, tc := range []struct{ method, solver, detail string }{
		{"laplacian", "uncertified", "not certified"},
		{"laplacian", "lanczos", "inertia certificate"},
		{"ltsa", "dense", "dense syevr"},
		{"lle", "auto", "dense syevr"}, // 120 points: dense
		{"lle", "lobpcg", "locally linear landmarks"},
		{"ltsa", "lobpcg", "lobpcg on the alignment matrix B"},
	} {
		mustSucceed(t, dir, "embed", "-method", tc.method, "-in", "roll.csv", "-eigensolver", tc.solver, "-out", "y.csv", "-report", "r.json", "-quiet")
		want := tc.solver
		if want == "auto" {
			want = "dense"
		}
		if got := readParams(t, filepath.Join(dir, "r.json"))["eigensolver"]; got != want {
			t.Errorf("%s -eigensolver %s: report eigensolver %v", tc.method, tc.solver, got)
		}
		b, err := os.ReadFile(filepath.Join(dir, "r.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.detail) {
			t.Errorf("%s -eigensolver %s: the report does not say %q", tc.method, tc.solver, tc.detail)
		}
	}
	// Isomap and Isometric Projection: the top eigenpairs of τ(D_G).
	for _, tc := range []struct{ method, solver string }{{"isomap", "dense"}, {"isomap", "lanczos"}, {"isoprojection", "lanczos"}} {
		mustSucceed(t, dir, "embed", "-method", tc.method, "-in", "roll.csv", "-eigensolver", tc.solver, "-out", "y.csv", "-report", "r.json", "-quiet")
		if got := readParams(t, filepath.Join(dir, "r.json"))["eigensolver"]; got != tc.solver {
			t.Errorf("%s -eigensolver %s: report eigensolver %v", tc.method, tc.solver, got)
		}
	}
	mustFail(t, dir, []string{"uncertified", "LLE, LTSA and Laplacian eigenmaps"}, "embed", "-method", "isomap", "-in", "roll.csv", "-eigensolver", "uncertified")
	mustFail(t, dir, []string{"lobpcg", "LLE and LTSA only"}, "embed", "-method", "laplacian", "-in", "roll.csv", "-eigensolver", "lobpcg")
	mustFail(t, dir, []string{"-eigensolver", "mds"}, "embed", "-method", "mds", "-in", "roll.csv", "-eigensolver", "dense")
	mustFail(t, dir, []string{"-eigensolver", "arpack"}, "embed", "-method", "lle", "-in", "roll.csv", "-eigensolver", "arpack")
}
