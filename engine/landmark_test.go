package engine

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/internal/testmode"
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

// maxMinEvery is maxMin computing every distance (the rule without the
// triangle-inequality pruning): the reference the pruned pass must equal.
func maxMinEvery(x *mat.Dense, l, first int) []int {
	n, _ := x.Dims()
	closest := make([]float64, n)
	for i := range closest {
		closest[i] = math.Inf(1)
	}
	idx := []int{first}
	for {
		q := x.RawRowView(idx[len(idx)-1])
		far, fd := 0, -1.0
		for i := 0; i < n; i++ {
			s := 0.0
			for j, v := range x.RawRowView(i) {
				t := v - q[j]
				s += t * t
			}
			closest[i] = min(closest[i], s)
			if closest[i] > fd {
				far, fd = i, closest[i]
			}
		}
		if len(idx) == l || fd <= 0 {
			return idx
		}
		idx = append(idx, far)
	}
}

// The pruned max-min pass picks the landmarks that computing every
// distance picks, in the same order: on USPS digits (many near-equal
// distances in 256 dimensions), on a swiss roll, and on data with
// duplicated rows and fewer distinct points than landmarks asked.
func TestMaxMinPruned(t *testing.T) {
	t.Parallel()
	roll, _ := datasets.SwissRoll(3000, 0.05, 4)
	dup := mat.NewDense(40, 3, nil)
	for i := 0; i < 40; i++ {
		dup.Set(i, 0, float64(i%7))
		dup.Set(i, 1, float64(i%7*i%7))
	}
	check := func(t *testing.T, name string, x *mat.Dense, l int) {
		n, _ := x.Dims()
		for _, first := range []int{0, n / 2} {
			got, err := maxMin(context.Background(), samples{dense: x.RawMatrix()}, l, first)
			if err != nil {
				t.Fatal(err)
			}
			want := maxMinEvery(x, l, first)
			if !slices.Equal(got, want) {
				t.Fatalf("%s from %d: pruned max-min %v\nevery distance %v", name, first, got, want)
			}
			// From sparse rows (zero pixels not stored): the same choices.
			got, err = maxMin(context.Background(), samples{dense: x.RawMatrix(), csr: sparse.FromDense(x)}, l, first)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s from %d, sparse rows: max-min %v\nevery distance %v", name, first, got, want)
			}
		}
	}
	check(t, "roll", roll, 300)
	check(t, "duplicates", dup, 20)
	t.Run("usps", func(t *testing.T) {
		testmode.Skip(t, "400 landmarks of 4000 digits, every distance")
		check(t, "usps", mat.DenseCopyOf(loadShared(t, "usps9298").Slice(0, 4000, 0, 256)), 400)
	})
}
