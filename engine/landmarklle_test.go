package engine_test

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/metrics"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// TestLandmarkLLEAllLandmarksIsLLE: with every point a landmark Z is the
// identity, the reduced problem is M's own, and the embedding is LLE's
// (dense solver) — on the first 400 USPS digits (no two equal, so every
// row is a landmark) and on a swiss roll.
func TestLandmarkLLEAllLandmarksIsLLE(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "LLE against Landmark LLE with every point a landmark (numerics, not concurrency)")
	ctx := context.Background()
	roll, _ := datasets.SwissRoll(300, 0.05, 3)
	for _, c := range []struct {
		name string
		x    *mat.Dense
	}{{"roll", roll}, {"digits", digitRows(t, 400)}} {
		t.Run(c.name, func(t *testing.T) {
			n, _ := c.x.Dims()
			lle := engine.MustFit(t, ctx, engine.LLE{Dim: 2, K: 10, Eigensolver: engine.EigenDense}.Fit, c.x)
			lll := engine.MustFit(t, ctx, engine.LandmarkLLE{Dim: 2, K: 10, Landmarks: n, Seed: 5}.Fit, c.x)
			if len(lll.Landmarks()) != n {
				t.Fatalf("%d distinct landmarks of %d rows: Z is not the identity", len(lll.Landmarks()), n)
			}
			if d := colsUpToSign(t, lle.Embedding(), lll.Embedding()); d > 1e-8 {
				t.Errorf("landmark LLE with every point a landmark differs from LLE by %.3g", d)
			}
			for j, v := range lle.Eigenvalues() {
				if w := lll.Eigenvalues()[j]; math.Abs(w-v) > 1e-10*max(1, math.Abs(v)) {
					t.Errorf("eigenvalue %d: %.6g, LLE's %.6g", j, w, v)
				}
			}
		})
	}
}

// TestLandmarkLLEDigits: on 2000 USPS digits with 600 landmarks the
// embedding keeps LLE's neighbourhoods about as well as LLE itself does
// (trustworthiness within 0.03 of LLE's; 0.017 when written), its
// eigenvalues are LLE's objective on a subspace of LLE's (Courant–Fischer:
// not below LLE's eigenvalues), its columns are centred and
// orthogonal with LLE's scale, Transform of the training rows gives the
// embedding back and a saved model maps new rows as the fitted one.
func TestLandmarkLLEDigits(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "LLE and Landmark LLE on 2000 digits (numerics; TestLandmarkLLEDeterministic runs its parallel parts)")
	ctx := context.Background()
	x := digitRows(t, 2000)
	n, _ := x.Dims()
	lle := engine.MustFit(t, ctx, engine.LLE{Dim: 2, K: 10}.Fit, x)
	lll := engine.MustFit(t, ctx, engine.LandmarkLLE{Dim: 2, K: 10, Landmarks: 600, Seed: 1}.Fit, x)
	y := lll.Embedding()
	var g mat.Dense
	g.Mul(y.T(), y)
	g.Scale(1/float64(n-1), &g)
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(g.At(i, j)-want) > 1e-9 {
				t.Errorf("(1/(N−1))·YᵀY[%d,%d] = %.12g, want %g", i, j, g.At(i, j), want)
			}
		}
		if s := mat.Sum(y.ColView(i)); math.Abs(s) > 1e-8*float64(n) {
			t.Errorf("column %d sums to %.3g", i, s)
		}
	}
	tl, err := metrics.Trustworthiness(ctx, x, lle.Embedding(), 10)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := metrics.Trustworthiness(ctx, x, y, 10)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("trustworthiness@10: LLE %.4f, landmark LLE (600) %.4f", tl, tm)
	for j, v := range lle.Eigenvalues() {
		if w := lll.Eigenvalues()[j]; w < v*(1-1e-9) {
			t.Errorf("eigenvalue %d: %.6g below LLE's %.6g", j, w, v)
		}
	}
	if tm < tl-0.03 {
		t.Errorf("landmark LLE's trustworthiness %.4f, LLE's %.4f", tm, tl)
	}
	checkMapsTraining(t, lll, x, 0)
	checkReloaded(t, lll, x.Slice(0, 50, 0, x.RawMatrix().Cols))
}

// TestLandmarkLLEChoices: every landmark choice fits 1500 digits, and the
// report names it; k-means landmarks, the data points nearest k-means
// centroids, lie where the points are, and on these digits leave LLE's
// objective (the first eigenvalue) lower than a uniform sample does
// (0.0088 against 0.0152 when written: not a theorem, a margin).
func TestLandmarkLLEChoices(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "four landmark choices on 1500 digits (numerics, not concurrency)")
	ctx := context.Background()
	x := digitRows(t, 1500)
	eig := map[engine.LandmarkChoice]float64{}
	for _, c := range []engine.LandmarkChoice{"", engine.LandmarksKMeansPP, engine.LandmarksKMeans, engine.LandmarksMaxMin} {
		m := engine.MustFit(t, ctx, engine.LandmarkLLE{Landmarks: 150, Seed: 4, Choice: c}.Fit, x)
		want := c
		if c == "" {
			want = engine.LandmarksRandom
		}
		if got := m.Report().Params["choice"]; got != string(want) {
			t.Errorf("choice %q: the report says %v", c, got)
		}
		eig[want] = m.Eigenvalues()[0]
		t.Logf("%-8s first eigenvalue %.4g", want, eig[want])
	}
	if eig[engine.LandmarksKMeans] > eig[engine.LandmarksRandom] {
		t.Errorf("k-means landmarks: first eigenvalue %.4g above the uniform sample's %.4g", eig[engine.LandmarksKMeans], eig[engine.LandmarksRandom])
	}
}

// LandmarksMaxMin means max-min in both landmark methods (it was the zero
// value, which Landmark LLE reads as LandmarksRandom); each method's zero
// Choice is its own default.
func TestLandmarksMaxMinEverywhere(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(300, 0.05, 2)
	choice := func(m engine.Model) any { return m.Report().Params["choice"] }
	for _, c := range []struct {
		name string
		m    engine.Model
		want string
	}{
		{"landmark-lle, max-min", engine.MustFit(t, ctx, engine.LandmarkLLE{Landmarks: 30, Choice: engine.LandmarksMaxMin}.Fit, x), "maxmin"},
		{"landmark-lle, zero", engine.MustFit(t, ctx, engine.LandmarkLLE{Landmarks: 30}.Fit, x), "random"},
		{"landmark-isomap, max-min", engine.MustFit(t, ctx, engine.LandmarkIsomap{Landmarks: 30, Choice: engine.LandmarksMaxMin}.Fit, x), "maxmin"},
		{"landmark-isomap, zero", engine.MustFit(t, ctx, engine.LandmarkIsomap{Landmarks: 30}.Fit, x), "maxmin"},
	} {
		if got := choice(c.m); got != c.want {
			t.Errorf("%s: the report's choice is %v, want %s", c.name, got, c.want)
		}
	}
}

// TestLandmarkLLEDeterministic: with fewer landmarks than points (the
// reliability suite's sizes make every point a landmark) the same seed
// gives the same embedding and mapping, bit for bit, under GOMAXPROCS 1,
// 2 and 8 — the Gram matrices' sums run in row order whatever the blocks.
func TestLandmarkLLEDeterministic(t *testing.T) {
	ctx := context.Background()
	n, landmarks := 1500, 300
	if testmode.Quick() { // -race: 11 s at 1500 points; the same parallel paths
		n, landmarks = 600, 150
	}
	x := digitRows(t, n)
	q := x.Slice(0, 20, 0, x.RawMatrix().Cols)
	fit := func() (*mat.Dense, *mat.Dense) {
		m := engine.MustFit(t, ctx, engine.LandmarkLLE{Landmarks: landmarks, Seed: 9}.Fit, x)
		return m.Embedding(), transformed(t, m, q)
	}
	var y1, z1 *mat.Dense
	withProcs(1, 1, func() { y1, z1 = fit() })
	for _, p := range []int{2, 8} {
		withProcs(p, 1, func() {
			y, z := fit()
			if !mat.Equal(y, y1) || !mat.Equal(z, z1) {
				t.Errorf("GOMAXPROCS %d: embedding %.3g, mapping %.3g from GOMAXPROCS 1", p, maxAbsDiff(y, y1), maxAbsDiff(z, z1))
			}
		})
	}
}

func TestLandmarkLLEBadInput(t *testing.T) {
	x, _ := datasets.SwissRoll(30, 0, 1)
	checkRefusals(t, engine.LandmarkLLE.Fit, x, []refusal[engine.LandmarkLLE]{
		{engine.LandmarkLLE{K: 30}, engine.ErrTooFewSamples},
		{engine.LandmarkLLE{Reg: -1}, engine.ErrBadSetting},
		{engine.LandmarkLLE{Landmarks: 31}, engine.ErrBadSetting},
		{engine.LandmarkLLE{Landmarks: 1}, engine.ErrBadSetting},
		{engine.LandmarkLLE{Landmarks: 5, LandmarkK: 6}, engine.ErrBadSetting},
		{engine.LandmarkLLE{Landmarks: 5, Dim: 5}, engine.ErrDimension},
		{engine.LandmarkLLE{Choice: "farthest"}, engine.ErrBadSetting},
	})
	// Duplicated rows: one landmark for each distinct row, and a duplicate
	// embedded where its twin is.
	d := digitRows(t, 200)
	dup := mat.NewDense(250, d.RawMatrix().Cols, nil)
	dup.Slice(0, 200, 0, dup.RawMatrix().Cols).(*mat.Dense).Copy(d)
	dup.Slice(200, 250, 0, dup.RawMatrix().Cols).(*mat.Dense).Copy(d.Slice(0, 50, 0, d.RawMatrix().Cols))
	m := engine.MustFit(t, context.Background(), engine.LandmarkLLE{K: 10, Landmarks: 250, Seed: 2}.Fit, dup)
	if got := len(m.Landmarks()); got != 200 {
		t.Errorf("%d landmarks among 200 distinct rows", got)
	}
	y := m.Embedding()
	for i := 200; i < 250; i++ {
		if y.At(i, 0) != y.At(i-200, 0) || y.At(i, 1) != y.At(i-200, 1) {
			t.Errorf("row %d embedded at %v, its twin %d at %v", i, y.RawRowView(i), i-200, y.RawRowView(i-200))
			break
		}
	}
	// Every point the same: one distinct landmark.
	same := mat.NewDense(40, 3, nil)
	if _, err := (engine.LandmarkLLE{K: 5, Landmarks: 10}).Fit(context.Background(), same); err == nil {
		t.Error("identical points fitted")
	} else {
		t.Log(err)
	}
}
