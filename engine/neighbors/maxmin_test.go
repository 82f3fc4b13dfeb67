package neighbors_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// maxMinEvery is MaxMin computing every distance (the rule without the
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
			got, err := neighbors.MaxMin(context.Background(), x.RawMatrix(), nil, l, first)
			if err != nil {
				t.Fatal(err)
			}
			want := maxMinEvery(x, l, first)
			if !slices.Equal(got, want) {
				t.Fatalf("%s from %d: pruned max-min %v\nevery distance %v", name, first, got, want)
			}
			// From sparse rows (zero pixels not stored): the same choices.
			got, err = neighbors.MaxMin(context.Background(), blas64.General{}, sparse.FromDense(x), l, first)
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
		check(t, "usps", usps(t, 4000), 400)
	})
}

// The principal-coordinate bound never exceeds a squared distance, on USPS
// digits (256 pixels, constant borders, near-duplicates): for random pairs
// and for each point's 20 nearest, atLeast(i, j, c) is false for every c
// above the exact squared distance by a relative 1e-12, and it is true for
// most pairs at half the distance (a bound that never prunes would pass the
// first check too).
func TestProjBoundSound(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "the bound against exact distances on 3000 digits (numerics, not concurrency)")
	x := usps(t, 3000)
	g := x.RawMatrix()
	b, err := neighbors.NewProjBound(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	if b == nil {
		t.Fatal("no bound on USPS digits")
	}
	t.Logf("USPS: %d principal coordinates of 256", b.P())
	n, d := g.Rows, g.Cols
	sq := func(i, j int) float64 {
		s := 0.0
		for k := 0; k < d; k++ {
			t := g.Data[i*d+k] - g.Data[j*d+k]
			s += t * t
		}
		return s
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pruned, pairs := 0, 0
	for c := 0; c < 200000; c++ {
		i, j := rng.IntN(n), rng.IntN(n)
		if c%10 == 0 { // near pairs: close in index is not close in space; take a nearby row by search
			j = (i + 1) % n
		}
		s := sq(i, j)
		if b.AtLeast(i, j, s*(1+1e-12)+1e-300) {
			t.Fatalf("pair (%d, %d): bound at least %v but the squared distance is %v", i, j, s*(1+1e-12), s)
		}
		pairs++
		if b.AtLeast(i, j, s/2) {
			pruned++
		}
	}
	if pruned < pairs/2 {
		t.Errorf("the bound reaches half the squared distance for %d of %d pairs: too loose", pruned, pairs)
	}
	// Identical rows: distance 0, never at least anything positive.
	y := mat.NewDense(4096, 256, nil)
	for i := 0; i < 4096; i++ {
		y.SetRow(i, x.RawRowView(i%5))
	}
	b2, err := neighbors.NewProjBound(context.Background(), y.RawMatrix())
	if err != nil {
		t.Fatal(err)
	}
	if b2 != nil && b2.AtLeast(0, 5, 1e-300) {
		t.Fatal("identical rows: bound above 0")
	}
}

// The bound is built only where its set-up costs less than a tenth of the
// distances it could spare: 200,000 digits of 256 pixels and 1000
// landmarks yes; 8293 documents of 18,933 terms and 300 landmarks no (and
// no memory counted for it), nor rows of 4000 digits and 300 landmarks (the
// set-up would cost half the distances), nor narrow rows or few landmarks.
func TestBoundPays(t *testing.T) {
	for _, c := range []struct {
		n, d, l int
		want    bool
	}{
		{200000, 256, 1000, true},
		{8293, 18933, 300, false},
		{4000, 256, 300, false},
		{200000, 16, 1000, false},
		{200000, 256, 8, false},
		{1000, 256, 300, false},
	} {
		if got := neighbors.BoundPays(c.n, c.d, c.l); got != c.want {
			t.Errorf("%d rows × %d, %d landmarks: boundPays %v, want %v", c.n, c.d, c.l, got, c.want)
		}
		if b := neighbors.MaxMinBytes(c.n, c.d, c.l); (b > 0) != c.want {
			t.Errorf("%d rows × %d, %d landmarks: MaxMinBytes %d", c.n, c.d, c.l, b)
		}
	}
}

// MaxMin with the bound picks what it picks without it, where the bound is
// in use (4000 USPS digits, 300 landmarks, from two starts; under -short,
// the race run, 2100 digits and 32 landmarks from one start).
func TestMaxMinBoundSameChoices(t *testing.T) {
	t.Parallel()
	n, landmarks, starts := 4000, 300, []int{0, 1999}
	if testmode.Quick() { // -race: enough rows and landmarks for the bound to be used
		n, landmarks, starts = neighbors.BoundMinRows+52, 2*neighbors.BoundMinLandmarks, []int{7}
	}
	x := usps(t, n)
	for _, first := range starts {
		with, err := neighbors.MaxMinBounded(context.Background(), x.RawMatrix(), landmarks, first, true)
		if err != nil {
			t.Fatal(err)
		}
		without, err := neighbors.MaxMinBounded(context.Background(), x.RawMatrix(), landmarks, first, false)
		if err != nil {
			t.Fatal(err)
		}
		for i := range with {
			if with[i] != without[i] {
				t.Fatalf("from %d: landmark %d is %d with the bound, %d without", first, i, with[i], without[i])
			}
		}
	}
}

// The max-min choice of 1000 landmarks among the rows of the .npy file
// named by MANIFOLD_MAXMIN_NPY (e.g. 200,000 deformed digits from
// `go run ./bench/scale/gendata -n 200000 -dim 256 -out FILE`); skipped
// without it.
func BenchmarkMaxMinFile(b *testing.B) {
	path := os.Getenv("MANIFOLD_MAXMIN_NPY")
	if path == "" {
		b.Skip("MANIFOLD_MAXMIN_NPY names no file")
	}
	m, err := dataio.ReadMatrixFile(path)
	if err != nil {
		b.Fatal(err)
	}
	x := mat.DenseCopyOf(m).RawMatrix()
	var got []int
	for b.Loop() {
		if got, err = neighbors.MaxMin(context.Background(), x, nil, 1000, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(got[len(got)-1]), "last-landmark")
}
