package cluster

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// blobs returns n points in 3 well-separated Gaussian clusters in 2-D and
// their true labels.
func blobs(n int, seed uint64) (blas64.General, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	centers := [][2]float64{{0, 0}, {10, 0}, {0, 10}}
	x := blas64.General{Rows: n, Cols: 2, Stride: 2, Data: make([]float64, 2*n)}
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		c := i % 3
		labels[i] = c
		x.Data[2*i] = centers[c][0] + rng.NormFloat64()
		x.Data[2*i+1] = centers[c][1] + rng.NormFloat64()
	}
	return x, labels
}

func TestKMeansBlobs(t *testing.T) {
	x, truth := blobs(300, 1)
	res, err := KMeans{K: 3, Restarts: 3, Seed: 5}.Fit(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	// Labels agree with the truth up to a permutation.
	perm := map[int]int{}
	for i, l := range res.Labels {
		if p, ok := perm[l]; ok && p != truth[i] {
			t.Fatalf("point %d: cluster %d mixes true classes %d and %d", i, l, p, truth[i])
		}
		perm[l] = truth[i]
	}
	// The inertia is that of the true class means (the optimum here).
	want := 0.0
	for c := 0; c < 3; c++ {
		var mx, my float64
		cnt := 0
		for i, l := range truth {
			if l == c {
				mx += x.Data[2*i]
				my += x.Data[2*i+1]
				cnt++
			}
		}
		mx /= float64(cnt)
		my /= float64(cnt)
		for i, l := range truth {
			if l == c {
				want += (x.Data[2*i]-mx)*(x.Data[2*i]-mx) + (x.Data[2*i+1]-my)*(x.Data[2*i+1]-my)
			}
		}
	}
	if math.Abs(res.Inertia-want) > 1e-9*want {
		t.Errorf("inertia %v, want %v", res.Inertia, want)
	}
}

// Lloyd on four points on a line from given centres: a hand-computed case.
func TestLloydByHand(t *testing.T) {
	x := blas64.General{Rows: 4, Cols: 1, Stride: 1, Data: []float64{0, 1, 10, 12}}
	c := blas64.General{Rows: 2, Cols: 1, Stride: 1, Data: []float64{0, 1}}
	res, err := lloyd(context.Background(), x, nil2(x), c, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Iteration 1: {0} and {1,10,12} → centres 0 and 23/3; iteration 2:
	// {0,1} and {10,12} → 0.5 and 11; then stable. Inertia 0.25·2 + 1·2 = 2.5.
	if res.Centers.Data[0] != 0.5 || res.Centers.Data[1] != 11 || math.Abs(res.Inertia-2.5) > 1e-12 {
		t.Errorf("centres %v inertia %v, want [0.5 11] and 2.5", res.Centers.Data, res.Inertia)
	}
}

func nil2(x blas64.General) []float64 {
	n := make([]float64, x.Rows)
	for i := range n {
		for _, v := range x.Data[i*x.Stride : i*x.Stride+x.Cols] {
			n[i] += v * v
		}
	}
	return n
}

// k-means++ seeds land in distinct blobs (D² sampling makes a second seed in
// an already-seeded blob of unit spread vanishingly unlikely).
func TestPlusPlusSpreads(t *testing.T) {
	x, truth := blobs(300, 2)
	for seed := uint64(0); seed < 20; seed++ {
		idx, err := PlusPlusIndices(context.Background(), x, nil, 3, rand.New(rand.NewPCG(seed, 3)))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for _, i := range idx {
			seen[truth[i]] = true
		}
		if len(seen) != 3 {
			t.Fatalf("seed %d: seeds %v cover classes %v", seed, idx, seen)
		}
	}
}

func TestKMeansErrors(t *testing.T) {
	x, _ := blobs(10, 3)
	for _, s := range []KMeans{{K: 11}, {K: -1}, {K: 2, Tol: -1}} {
		if _, err := s.Fit(context.Background(), x); !errors.Is(err, ErrInput) {
			t.Errorf("%+v: error %v, want ErrInput", s, err)
		}
	}
	x.Data[3] = math.NaN()
	if _, err := (KMeans{K: 2}).Fit(context.Background(), x); !errors.Is(err, ErrInput) {
		t.Errorf("NaN: error %v, want ErrInput", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	y, _ := blobs(100, 4)
	if _, err := (KMeans{K: 5}).Fit(ctx, y); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
}

func ExampleKMeans() {
	x := blas64.General{Rows: 6, Cols: 1, Stride: 1, Data: []float64{0, 0.5, 1, 10, 10.5, 11}}
	res, err := KMeans{K: 2, Restarts: 2, Seed: 1}.Fit(context.Background(), x)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Labels[0] == res.Labels[2], res.Labels[0] != res.Labels[3], res.Inertia)
	// Output: true true 1
}
