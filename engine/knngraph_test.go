package engine_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// TestKNNGraphSearch32: on rows that float32 holds exactly, Search32 gives
// Search's lists, distances and measured recall, approximate and exact;
// the rows come back as they were; bad input and budgets are refused with
// the engine's errors; a cancelled search stops.
func TestKNNGraphSearch32(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	n, d := 6000, 16
	if testmode.Quick() {
		n = 2000 // -short (the race step): NN-descent and the exact search still run on every path
	}
	x32 := make([]float32, n*d)
	for i := range x32 {
		x32[i] = float32(math.Round(rng.NormFloat64()*32) / 32)
	}
	copy(x32[50*d:51*d], x32[9*d:10*d]) // a duplicate row
	orig := slices.Clone(x32)
	x := mat.NewDense(n, d, nil)
	for i, v := range x32 {
		x.RawMatrix().Data[i] = float64(v)
	}
	// Each search's own estimate, for the budget cases below.
	below := map[engine.NeighborSearch]engine.KNNGraph{}
	for _, mode := range []engine.NeighborSearch{engine.NeighborsApprox, engine.NeighborsExact} {
		g := engine.KNNGraph{K: 10, Options: engine.Options{Neighbors: engine.Neighbors{Search: mode, Approx: neighbors.ApproxOptions{Seed: 5}, RecallSample: 300}}}
		if got := g.Approximate(n, d); got != (mode == engine.NeighborsApprox) {
			t.Fatalf("%v: Approximate = %v", mode, got)
		}
		want, wrep, err := g.Search(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		got, rep, err := g.Search32(ctx, x32, d)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Ind, want.Ind) || !slices.Equal(got.Ptr, want.Ptr) {
			t.Fatalf("%v: Search32's lists differ from Search's", mode)
		}
		for i, v := range got.Dist {
			if math.Abs(v-want.Dist[i]) > 1e-12*max(1, v) {
				t.Fatalf("%v: distance %d = %v, Search %v", mode, i, v, want.Dist[i])
			}
		}
		if !slices.Equal(x32, orig) {
			t.Fatalf("%v: the rows were not put back", mode)
		}
		st, wst := rep.Stages[0], wrep.Stages[0]
		if st.Search != wst.Search || (st.Recall == nil) != (wst.Recall == nil) || (st.Recall != nil && *st.Recall != *wst.Recall) {
			t.Fatalf("%v: stage %s recall %+v, Search's %s %+v", mode, st.Search, st.Recall, wst.Search, wst.Recall)
		}
		if mode == engine.NeighborsApprox && (st.Recall == nil || st.Recall.Sample != 300 || st.Recall.Recall < 0.8) {
			t.Fatalf("approximate report: recall %+v", st.Recall)
		}
		if rep.EstimatedBytes <= 0 {
			t.Fatalf("%v: estimate %d", mode, rep.EstimatedBytes)
		}
		g.Options.MaxBytes = rep.EstimatedBytes - 1
		below[mode] = g
	}
	approx := engine.KNNGraph{K: 10, Options: engine.Options{Neighbors: engine.Neighbors{Search: engine.NeighborsApprox}}}
	bad := slices.Clone(x32)
	bad[7*d+3] = float32(math.NaN())
	huge := slices.Clone(x32[:20*d])
	huge[5] = 1e37 // its squares overflow float32
	for _, c := range []struct {
		name string
		g    engine.KNNGraph
		x    []float32
		cols int
		want error
	}{
		{"NaN", approx, bad, d, engine.ErrNotFinite},
		{"huge", approx, huge, d, engine.ErrNotFinite},
		{"k = n", engine.KNNGraph{K: 20, Options: approx.Options}, x32[:20*d], d, engine.ErrBadSetting},
		{"ragged", approx, x32[:d*20+1], d, engine.ErrBadSetting},
		{"empty", approx, nil, d, engine.ErrEmpty},
		{"budget: estimate − 1", below[engine.NeighborsApprox], x32, d, engine.ErrMemoryBudget},
		{"budget: estimate − 1, exact", below[engine.NeighborsExact], x32, d, engine.ErrMemoryBudget},
		{"budget: below the float64 copy, exact", engine.KNNGraph{K: 10, Options: engine.Options{MaxBytes: 8*int64(n)*int64(d) - 1, Neighbors: engine.Neighbors{Search: engine.NeighborsExact}}}, x32, d, engine.ErrMemoryBudget},
	} {
		if _, _, err := c.g.Search32(ctx, c.x, c.cols); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	big := make([]float32, 40000*32)
	for i := range big {
		big[i] = float32(rng.NormFloat64())
	}
	start := time.Now()
	if _, _, err := approx.Search32(cctx, big, 32); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v", err)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("cancelled search returned after %v", el)
	}
}

// Neighbors.Approx.Refine in a graph method and in KNNGraph: the measured
// recall of NN-descent stopped after one iteration rises with the refining
// search, the report names the width, the flam prediction grows by its
// term; a width below k + 1 and sparse rows are refused as bad settings.
func TestNeighborsRefine(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "recall with and without the refining search on 5000 points (numerics, not concurrency)")
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	n, d, k := 5000, 80, 10 // wide enough for the walk on principal coordinates
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		a, b := rng.Float64(), rng.Float64()
		for j := 0; j < d; j++ { // a 2-D sheet, curved, plus noise
			x.Set(i, j, math.Sin(float64(j+1)*a)+math.Cos(float64(j+2)*b)+0.05*rng.NormFloat64())
		}
	}
	search := func(refine int) (float64, *engine.Report) {
		g := engine.KNNGraph{K: k, Options: engine.Options{Neighbors: engine.Neighbors{Search: engine.NeighborsApprox,
			Approx: neighbors.ApproxOptions{Seed: 2, MaxIter: 1, Refine: refine}, RecallSample: 400}}}
		_, rep, err := g.Search(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Stages[0].Recall.Recall, rep
	}
	r0, rep0 := search(0)
	r1, rep1 := search(30)
	t.Logf("recall on 400 sampled rows: %.4f, refined at width 30 %.4f", r0, r1)
	if !(r1 > r0) || r1 < 0.98 {
		t.Errorf("recall %.4f → %.4f with Refine 30: want higher and ≥ 0.98", r0, r1)
	}
	if rep1.Params["refine_width"] != 30 || rep0.Params["refine_width"] != nil {
		t.Errorf("refine_width %v (refined), %v (not)", rep1.Params["refine_width"], rep0.Params["refine_width"])
	}
	if !(rep1.Stages[0].FlamPredicted > rep0.Stages[0].FlamPredicted) {
		t.Errorf("predicted flam %g refined, %g not", rep1.Stages[0].FlamPredicted, rep0.Stages[0].FlamPredicted)
	}
	// In a method: LLE's report carries the width and its neighbours' recall.
	m, err := engine.LLE{K: k, Dim: 2, Options: engine.Options{Neighbors: engine.Neighbors{Search: engine.NeighborsApprox,
		Approx: neighbors.ApproxOptions{Seed: 2, MaxIter: 1, Refine: 30}}}}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	rep := m.Report()
	if rep.Params["refine_width"] != 30 || rep.Stages[0].Recall == nil || rep.Stages[0].Recall.Recall < 0.98 {
		t.Errorf("LLE with Refine 30: refine_width %v, neighbours stage %+v", rep.Params["refine_width"], rep.Stages[0])
	}
	bad := engine.KNNGraph{K: k, Options: engine.Options{Neighbors: engine.Neighbors{Search: engine.NeighborsApprox, Approx: neighbors.ApproxOptions{Refine: k}}}}
	if _, _, err := bad.Search(ctx, x); !errors.Is(err, engine.ErrBadSetting) {
		t.Errorf("refine width k: got %v, want ErrBadSetting", err)
	}
	x32 := make([]float32, n*d)
	if _, _, err := bad.Search32(ctx, x32, d); !errors.Is(err, engine.ErrBadSetting) {
		t.Errorf("Search32, refine width k: got %v, want ErrBadSetting", err)
	}
}
