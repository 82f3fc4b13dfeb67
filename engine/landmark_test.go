package engine

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
)

// With every point a landmark, landmark MDS is classical MDS of all the
// geodesics: Landmark Isomap equals Isomap. With fewer landmarks it stays
// close on a well-sampled swiss roll.
func TestLandmarkIsomapAgainstIsomap(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(600, 0.05, 11)
	iso, err := Isomap{Dim: 2, K: 10}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	all, err := LandmarkIsomap{Dim: 2, K: 10, Landmarks: 600}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	if d := procrustes(t, iso.Embedding(), all.Embedding()); d > 1e-10 {
		t.Errorf("all points as landmarks: disparity to Isomap %g", d)
	}
	for _, choice := range []LandmarkChoice{LandmarksMaxMin, LandmarksRandom, LandmarksKMeansPP, LandmarksKMeans} {
		m, err := LandmarkIsomap{Dim: 2, K: 10, Landmarks: 60, Choice: choice, Seed: 3}.Fit(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
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

func TestLandmarkIsomapSave(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(300, 0.05, 12)
	m, err := LandmarkIsomap{Dim: 2, K: 8, Landmarks: 40}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	l := reloaded(t, m)
	q, _ := datasets.SwissRoll(20, 0.05, 13)
	a, err := m.Transform(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Transform(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(a, b) {
		t.Error("loaded model maps differently")
	}
}
