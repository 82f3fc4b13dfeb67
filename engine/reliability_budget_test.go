package engine_test

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/enginetest"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// Memory estimates are honest within these factors (doc.go, "Memory
// budgets"): the peak heap a fit adds, measured with the garbage
// collector at GOGC = 1, lies between estimate/budgetLow and
// estimate·budgetHigh, give or take budgetSlack for the runtime's own
// small allocations. The peak counts garbage not yet collected: at
// GOGC = 10 a fit that allocates much more than it keeps (Low-Rank
// Isomap's LRR: 18 MB allocated, 0.17 MiB estimated, at 1100×10) could
// show up to a tenth of the test binary's heap in garbage, and under CI's
// load once measured 4.46 MiB, past the slack; at GOGC = 1, 1.0–1.2 MiB.
const (
	budgetHigh  = 2.5
	budgetLow   = 3.0
	budgetSlack = 4 << 20
)

// Every method estimates its peak before allocating: with MaxBytes one
// byte below the estimate it refuses with ErrMemoryBudget, naming the
// estimate and cheaper alternatives, having allocated little; at the
// estimate it fits; and the estimate is within the documented factors of
// the measured peak.
func TestMemoryBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("sequential arithmetic of estimates: nothing for the race detector, 10× slower under it")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	ctx := context.Background()
	sizes := [][2]int{{1100, 10}, {400, 150}}
	if testmode.Quick() {
		sizes = [][2]int{{400, 10}}
	}
	for _, nd := range sizes {
		x, labels := engine.RelData(nd[0], nd[1], 12)
		for _, m := range enginetest.Methods {
			runtime.GC()
			mod, err := relFit(ctx, m, x, enginetest.Settings{}, labels)
			if err != nil {
				t.Fatalf("%s, %d×%d: %v", m.Name, nd[0], nd[1], err)
			}
			rep := mod.Report()
			est := rep.EstimatedBytes
			if est <= 0 {
				t.Errorf("%s: no memory estimate in the report", m.Name)
				continue
			}
			peak := int64(rep.PeakHeapBytes) - int64(rep.BaseHeapBytes)
			t.Logf("%-16s %4d×%-3d estimate %8.2f MiB, measured peak %8.2f MiB (%.2f)", m.Name, nd[0], nd[1],
				float64(est)/(1<<20), float64(peak)/(1<<20), float64(peak)/float64(est))
			if !testmode.Quick() && (float64(peak) > budgetHigh*float64(est)+budgetSlack || float64(est) > budgetLow*float64(peak)+budgetSlack) {
				t.Errorf("%s, %d×%d: estimate %d B, measured peak %d B: outside [estimate/%.1f, %.1f·estimate] ± %d B",
					m.Name, nd[0], nd[1], est, peak, budgetLow, budgetHigh, budgetSlack)
			}
			// One byte below: refused before the allocations.
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = relFit(ctx, m, x, enginetest.Settings{Options: engine.Options{MaxBytes: est - 1}}, labels)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, engine.ErrMemoryBudget) {
				t.Errorf("%s: budget %d B (estimate − 1): error %v, want ErrMemoryBudget", m.Name, est-1, err)
			} else {
				if msg := err.Error(); !strings.Contains(msg, engine.FmtBytes(est)) || !strings.Contains(msg, "cheaper") {
					t.Errorf("%s: %q does not name the estimate %s and cheaper alternatives", m.Name, msg, engine.FmtBytes(est))
				}
				if spent := int64(after.TotalAlloc - before.TotalAlloc); spent > est/4+1<<20 {
					t.Errorf("%s: the refused fit allocated %d B of its %d B estimate", m.Name, spent, est)
				}
			}
			// At the estimate: it fits.
			if _, err := relFit(ctx, m, x, enginetest.Settings{Options: engine.Options{MaxBytes: est}}, labels); err != nil {
				t.Errorf("%s: budget = estimate %d B: %v", m.Name, est, err)
			}
		}
	}
}

// Densifying input: a sparse matrix given to a method that needs dense
// rows is copied only within the budget, and one whose dense copy cannot
// be addressed is refused whatever the budget; sparse rows kept sparse are
// never copied.
func TestMemoryBudgetDenseCopy(t *testing.T) {
	ctx := context.Background()
	x, labels := engine.RelData(300, 10, 13)
	xs := sparse.FromDense(x)
	huge, err := sparse.NewCSR(3, 1<<62, []int{0, 1, 2, 3}, []int{0, 1, 2}, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range enginetest.Methods {
		_, err := relFit(ctx, m, xs, enginetest.Settings{Options: engine.Options{MaxBytes: 300*10*8 - 1}}, labels)
		switch {
		case !m.Sparse && (!errors.Is(err, engine.ErrMemoryBudget) || !strings.Contains(err.Error(), "dense copy")):
			t.Errorf("%s: sparse input, budget below its dense copy: %v", m.Name, err)
		case m.Sparse && err != nil && strings.Contains(err.Error(), "dense copy"):
			t.Errorf("%s keeps sparse rows but counts a dense copy: %v", m.Name, err)
		}
		_, err = relFit(ctx, m, huge, enginetest.Settings{}, []int{0, 1, 2})
		if !errors.Is(err, engine.ErrMemoryBudget) {
			t.Errorf("%s: 3×2⁶² sparse input: %v, want ErrMemoryBudget", m.Name, err)
		}
	}
	// A non-Dense matrix type is copied, so it counts.
	_, err = engine.PCA{Options: engine.Options{MaxBytes: 1000}}.Fit(ctx, plainMatrix{mat.DenseCopyOf(x)})
	if !errors.Is(err, engine.ErrMemoryBudget) || !strings.Contains(err.Error(), "dense copy") {
		t.Errorf("PCA of a non-Dense matrix over budget: %v", err)
	}
}

// A budget refusal of LLE, LTSA or Laplacian eigenmaps names what needs
// less memory than the eigensolver in use: the dense solver's refusal
// names Lanczos (no N×N matrix); the others' name fewer neighbours or
// samples, not the eigensolver they already run.
func TestMemoryBudgetSparseBottomHint(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(600, 0, 1)
	opts := engine.Options{MaxBytes: 1 << 10}
	for _, c := range []struct {
		name string
		fit  func(engine.Eigensolver) error
	}{
		{"lle", func(e engine.Eigensolver) error {
			_, err := engine.LLE{Dim: 2, K: 10, Eigensolver: e, Options: opts}.Fit(ctx, x)
			return err
		}},
		{"ltsa", func(e engine.Eigensolver) error {
			_, err := engine.LTSA{Dim: 2, K: 10, Eigensolver: e, Options: opts}.Fit(ctx, x)
			return err
		}},
		{"laplacian", func(e engine.Eigensolver) error {
			_, err := engine.LaplacianEigenmaps{Dim: 2, K: 10, Eigensolver: e, Options: opts}.Fit(ctx, x)
			return err
		}},
	} {
		for _, e := range []engine.Eigensolver{engine.EigenDense, engine.EigenLanczos, engine.EigenLOBPCG} {
			if c.name == "laplacian" && e == engine.EigenLOBPCG {
				continue // LLE's and LTSA's only
			}
			err := c.fit(e)
			if !errors.Is(err, engine.ErrMemoryBudget) {
				t.Fatalf("%s, %s: %v, want ErrMemoryBudget", c.name, e, err)
			}
			want := "cheaper: fewer neighbours (K) or fewer samples"
			if e == engine.EigenDense {
				want = "cheaper: the Lanczos eigensolver (no N×N matrix)"
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s, %s: %q does not say %q", c.name, e, err, want)
			}
		}
	}
}

// KNNGraph estimates its search's memory like a fit: refused at one byte
// below the estimate, run at it, the measured peak within the documented
// factors of the estimate — exact (k-d tree in 3-D, brute force in 60-D)
// and approximate, on float64 rows (Search) and float32 rows (Search32).
func TestMemoryBudgetKNNGraph(t *testing.T) {
	if raceEnabled {
		t.Skip("sequential arithmetic of estimates: nothing for the race detector")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	ctx := context.Background()
	roll, _ := datasets.SwissRoll(6000, 0, 1)
	wide, err := datasets.Embed(roll, 60, 0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	f32 := func(x *mat.Dense) []float32 {
		out := make([]float32, len(x.RawMatrix().Data))
		for i, v := range x.RawMatrix().Data {
			out[i] = float32(v)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		x      *mat.Dense
		search engine.NeighborSearch
		rows32 bool
	}{
		{"exact, 3-D", roll, engine.NeighborsExact, false},
		{"exact, 60-D", wide, engine.NeighborsExact, false},
		{"approx, 60-D", wide, engine.NeighborsApprox, false},
		{"exact, 60-D, float32", wide, engine.NeighborsExact, true},
	} {
		search := func(maxBytes int64) (*engine.Report, error) {
			g := engine.KNNGraph{K: 15, Options: engine.Options{MaxBytes: maxBytes, Neighbors: engine.Neighbors{Search: c.search}}}
			var rep *engine.Report
			var err error
			if c.rows32 {
				_, rep, err = g.Search32(ctx, f32(c.x), c.x.RawMatrix().Cols)
			} else {
				_, rep, err = g.Search(ctx, c.x)
			}
			return rep, err
		}
		runtime.GC()
		rep, err := search(0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		est := rep.EstimatedBytes
		peak := int64(rep.PeakHeapBytes) - int64(rep.BaseHeapBytes)
		t.Logf("%-22s estimate %7.2f MiB, measured peak %7.2f MiB", c.name, float64(est)/(1<<20), float64(peak)/(1<<20))
		if est <= 0 || float64(peak) > budgetHigh*float64(est)+budgetSlack || float64(est) > budgetLow*float64(peak)+budgetSlack {
			t.Errorf("%s: estimate %d B, measured peak %d B: outside [estimate/%.1f, %.1f·estimate] ± %d B", c.name, est, peak, budgetLow, budgetHigh, budgetSlack)
		}
		if _, err := search(est - 1); !errors.Is(err, engine.ErrMemoryBudget) || !strings.Contains(err.Error(), "cheaper") {
			t.Errorf("%s: budget = estimate − 1: %v, want ErrMemoryBudget naming what is cheaper", c.name, err)
		}
		if _, err := search(est); err != nil {
			t.Errorf("%s: budget = estimate: %v", c.name, err)
		}
	}
}
