package engine

import (
	"context"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/sparse"
)

// With every point a landmark, landmark MDS is classical MDS of all the
// geodesics: Landmark Isomap equals Isomap. With fewer landmarks it stays
// close on a well-sampled swiss roll.
func TestLandmarkIsomapAgainstIsomap(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(600, 0.05, 11)
	iso := mustFit(t, ctx, Isomap{Dim: 2, K: 10}.Fit, x)
	all := mustFit(t, ctx, LandmarkIsomap{Dim: 2, K: 10, Landmarks: 600}.Fit, x)
	if d := procrustes(t, iso.Embedding(), all.Embedding()); d > 1e-10 {
		t.Errorf("all points as landmarks: disparity to Isomap %g", d)
	}
	for _, choice := range []LandmarkChoice{LandmarksMaxMin, LandmarksRandom, LandmarksKMeansPP, LandmarksKMeans} {
		m := mustFit(t, ctx, LandmarkIsomap{Dim: 2, K: 10, Landmarks: 60, Choice: choice, Seed: 3}.Fit, x)
		if len(m.Landmarks()) < 50 {
			t.Errorf("%s: only %d distinct landmarks", choice, len(m.Landmarks()))
		}
		// Spread-out landmarks (MaxMin, k-means) approximate far better than
		// random ones.
		tol := 5e-3
		if choice == LandmarksRandom {
			tol = 5e-2
		}
		if d := procrustes(t, iso.Embedding(), m.Embedding()); d > tol {
			t.Errorf("%s, 60 landmarks: disparity to Isomap %g > %g", choice, d, tol)
		}
		y, err := m.Transform(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(y, m.Embedding(), 1e-8) {
			t.Errorf("%s: Transform of the training points differs from the embedding", choice)
		}
	}
}

// Sparse rows are searched as they are (the neighbours stage says so) and
// give the dense rows' fit: the same landmarks, the same embedding and the
// same Transform, on a roll padded with columns that are zero throughout.
func TestLandmarkIsomapSparse(t *testing.T) {
	ctx := context.Background()
	roll, _ := datasets.SwissRoll(600, 0.05, 12)
	x := mat.NewDense(600, 10, nil)
	x.Slice(0, 600, 0, 3).(*mat.Dense).Copy(roll)
	xs := sparse.FromDense(x)
	for _, choice := range []LandmarkChoice{LandmarksMaxMin, LandmarksKMeans} {
		s := LandmarkIsomap{Dim: 2, K: 10, Landmarks: 60, Choice: choice, Seed: 3}
		dense := mustFit(t, ctx, s.Fit, x)
		m := mustFit(t, ctx, s.Fit, xs)
		if st := m.Report().Stages[0]; st.Name != "neighbors" || !strings.Contains(st.Detail, "sparse rows") {
			t.Errorf("%s: first stage %s %q, want the neighbours of sparse rows", choice, st.Name, st.Detail)
		}
		if !slices.Equal(m.Landmarks(), dense.Landmarks()) {
			t.Errorf("%s: landmarks %v, the dense rows' %v", choice, m.Landmarks()[:5], dense.Landmarks()[:5])
		}
		if !mat.EqualApprox(m.Embedding(), dense.Embedding(), 1e-10) {
			t.Errorf("%s: the embedding of sparse rows differs from the dense rows'", choice)
		}
		y, err := m.Transform(ctx, sparse.FromDense(x.Slice(0, 50, 0, 10)))
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(y, dense.Embedding().Slice(0, 50, 0, 2), 1e-8) {
			t.Errorf("%s: Transform of sparse training rows differs from the embedding", choice)
		}
	}
}

func TestLandmarkIsomapSave(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(300, 0.05, 12)
	m := mustFit(t, ctx, LandmarkIsomap{Dim: 2, K: 8, Landmarks: 40}.Fit, x)
	q, _ := datasets.SwissRoll(20, 0.05, 13)
	checkReloaded(t, m, q)
}
