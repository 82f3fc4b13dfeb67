package engine_test

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/enginetest"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// fitBits fits m and returns its embedding and the mapping of the first
// rows of x, as float64 bit patterns.
func fitBits(t *testing.T, m enginetest.Method, x *mat.Dense, labels []int, seed uint64) []uint64 {
	t.Helper()
	ctx := context.Background()
	mod, err := relFit(ctx, m, x, enginetest.Settings{Seed: seed}, labels)
	if err != nil {
		t.Fatalf("%s: %v", m.Name, err)
	}
	q := x.Slice(0, 10, 0, x.RawMatrix().Cols)
	z, err := mod.Transform(ctx, q)
	if err != nil {
		t.Fatalf("%s transform: %v", m.Name, err)
	}
	var bits []uint64
	for _, y := range []*mat.Dense{mod.Embedding(), z} {
		raw := y.RawMatrix()
		for i := 0; i < raw.Rows; i++ {
			for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
				bits = append(bits, math.Float64bits(v))
			}
		}
	}
	return bits
}

// withProcs runs f with GOMAXPROCS p and the BLAS threads per call set to
// blas (backend.SetThreads, which also resizes the cgo-call semaphore to
// the new GOMAXPROCS), restoring both.
func withProcs(p, blas int, f func()) {
	old := runtime.GOMAXPROCS(p)
	oldThreads := backend.Threads()
	backend.SetThreads(blas)
	defer func() {
		runtime.GOMAXPROCS(old)
		backend.SetThreads(oldThreads)
	}()
	f()
}

// The same seed gives bit-identical embeddings and mappings whatever the
// parallelism: GOMAXPROCS 1, 2 and 8, for every method, on sizes that
// take the dense and the iterative paths. The BLAS threads per call stay
// at 2: OpenBLAS's own threads change its summation order (see
// TestBLASThreadsAgree); the pure-Go backend has none.
func TestDeterminismAcrossGOMAXPROCS(t *testing.T) {
	sizes := []int{300, 700}
	switch {
	case raceEnabled:
		sizes = []int{150}
	case testmode.Quick():
		sizes = []int{300}
	}
	for _, n := range sizes {
		x, labels := engine.RelData(n, 6, 5)
		for _, m := range enginetest.Methods {
			var ref []uint64
			for _, p := range []int{1, 2, 8} {
				var got []uint64
				withProcs(p, 2, func() { got = fitBits(t, m, x, labels, 42) })
				if ref == nil {
					ref = got
					continue
				}
				if len(got) != len(ref) {
					t.Fatalf("%s, N = %d: %d values with GOMAXPROCS %d, %d with 1", m.Name, n, len(got), p, len(ref))
				}
				for i := range got {
					if got[i] != ref[i] {
						t.Errorf("%s, N = %d: value %d differs between GOMAXPROCS 1 (%v) and %d (%v)",
							m.Name, n, i, math.Float64frombits(ref[i]), p, math.Float64frombits(got[i]))
						break
					}
				}
			}
		}
	}
}

// With OpenBLAS, a different number of BLAS threads per call changes the
// order of its sums, and the results agree within backendTolerance (the
// pure-Go backend's are bit-identical: its threads are goroutines with a
// fixed split of the work).
func TestBLASThreadsAgree(t *testing.T) {
	if raceEnabled {
		t.Skip("TestDeterminismAcrossGOMAXPROCS runs the parallel paths under the race detector")
	}
	n := 700
	if testmode.Quick() {
		n = 300
	}
	x, labels := engine.RelData(n, 6, 5)
	for _, m := range enginetest.Methods {
		var one, four []uint64
		withProcs(4, 1, func() { one = fitBits(t, m, x, labels, 42) })
		withProcs(4, 4, func() { four = fitBits(t, m, x, labels, 42) })
		if len(one) != len(four) {
			t.Fatalf("%s: %d values with 1 BLAS thread, %d with 4", m.Name, len(one), len(four))
		}
		scale, diff := 0.0, 0.0
		for i := range one {
			a, b := math.Float64frombits(one[i]), math.Float64frombits(four[i])
			scale, diff = max(scale, math.Abs(a)), max(diff, math.Abs(a-b))
		}
		tol := backendTolerance(m.Name)
		t.Logf("%-16s 1 vs 4 BLAS threads: max relative difference %.2g", m.Name, diff/scale)
		if backend.Active().Name() == "purego" {
			tol = 0
		}
		if !(diff <= tol*scale) {
			t.Errorf("%s: 1 and 4 BLAS threads differ by %.3g relative, tolerance %.0g", m.Name, diff/scale, tol)
		}
	}
}

var updateGolden = flag.Bool("update-backend-golden", false, "rewrite testdata/reliability/<backend>_embeddings.json for the active backend (run once with and once without -tags openblas)")

// backendTolerance is how far the OpenBLAS backend's embeddings may lie
// from the pure-Go ones: the largest elementwise difference relative to
// the largest magnitude of the pure-Go embedding (doc.go, "Determinism").
func backendTolerance(method string) float64 {
	switch method {
	case "lle":
		// The bottom eigenvectors of M = (I−W)ᵀ(I−W) are ill-conditioned
		// (relative eigenvalue gaps of 1e-6 and less).
		return 1e-5
	case "isoprojection", "lowrank-isomap", "soip":
		// Iterative solvers stopped at a tolerance: LSQR's ridge
		// regressions, LRR's ADMM, the lasso path.
		return 1e-6
	}
	return 1e-8
}

// backendGolden is the file holding a backend's embeddings.
func backendGolden(name string) string {
	return filepath.Join("testdata", "reliability", name+"_embeddings.json")
}

// otherBackend names the backend a build compares itself with.
func otherBackend(name string) string {
	if name == "purego" {
		return "openblas"
	}
	return "purego"
}

// The pure-Go and OpenBLAS backends agree within backendTolerance. Each
// backend's embeddings (and mappings of 10 points) of every method are
// stored in a golden file, and every build compares itself with the
// OTHER backend's file: the pure-Go build (gonum's LAPACK and our Go
// kernels) with the results of OpenBLAS and reference LAPACK, the
// OpenBLAS build with the pure-Go ones — an independent implementation on
// each side, not a check for change. Regenerate both after a deliberate
// numeric change: go test -run TestBackendsAgree -update-backend-golden,
// with and without -tags openblas.
func TestBackendsAgree(t *testing.T) {
	x, labels := engine.RelData(150, 5, 6)
	active := backend.Active().Name()
	got := map[string][]float64{}
	for _, m := range enginetest.Methods {
		bits := fitBits(t, m, x, labels, 7)
		v := make([]float64, len(bits))
		for i, b := range bits {
			v[i] = math.Float64frombits(b)
		}
		got[m.Name] = v
	}
	if *updateGolden {
		b, err := json.MarshalIndent(got, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(backendGolden(active)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(backendGolden(active), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(backendGolden(otherBackend(active)))
	if err != nil {
		t.Fatalf("%v (make it with go test -run TestBackendsAgree -update-backend-golden on the %s backend)", err, otherBackend(active))
	}
	var want map[string][]float64
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	for _, m := range enginetest.Methods {
		w, g := want[m.Name], got[m.Name]
		if len(w) != len(g) {
			t.Errorf("%s: %d values, the golden file has %d (stale? regenerate with -update-backend-golden)", m.Name, len(g), len(w))
			continue
		}
		scale, diff := 0.0, 0.0
		for i := range w {
			scale = max(scale, math.Abs(w[i]))
			diff = max(diff, math.Abs(w[i]-g[i]))
		}
		rel := diff / scale
		t.Logf("%-16s backend %s against %s: max relative difference %.2g", m.Name, active, otherBackend(active), rel)
		if !(rel <= backendTolerance(m.Name)) {
			t.Errorf("%s: the %s backend differs from the %s backend's golden file by %.3g (relative), tolerance %.0g "+
				"(after a deliberate numeric change regenerate both files with -update-backend-golden, with and without -tags openblas)",
				m.Name, active, otherBackend(active), rel, backendTolerance(m.Name))
		}
	}
}
