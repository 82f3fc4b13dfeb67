package engine

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/sparse"
)

func TestLLEAgainstSklearn(t *testing.T) {
	for _, name := range []string{"swiss_lle", "yale_lle"} {
		t.Run(name, func(t *testing.T) {
			f := loadFixture(t, name)
			x := f.input(t)
			for _, solver := range []Eigensolver{EigenDense, EigenLanczos} {
				m, err := LLE{Dim: f.Dim, K: f.K, Reg: f.Reg, Eigensolver: solver}.Fit(context.Background(), x)
				if err != nil {
					t.Fatal(err)
				}
				d := procrustes(t, rowsToDense(f.Embedding), m.Embedding())
				t.Logf("%s: disparity %.3g, %s", solver, d, m.Report().Stages[len(m.Report().Stages)-1].Detail)
				if d > 1e-3 {
					t.Errorf("%s: Procrustes disparity to scikit-learn %g > 1e-3", solver, d)
				}
			}
		})
	}
}

func TestLLETransformAndSave(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(400, 0.05, 5)
	m, err := LLE{Dim: 2, K: 10}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	y, err := m.Transform(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(y, m.Embedding(), 1e-12) {
		t.Error("Transform of the training data differs from the embedding")
	}
	// A point halfway between two neighbours lands between their images.
	q := mat.NewDense(1, 3, nil)
	for j := 0; j < 3; j++ {
		q.Set(0, j, 0.999*x.At(0, j)+0.001*x.At(1, j))
	}
	yq, err := m.Transform(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	e := m.Embedding()
	for j := 0; j < 2; j++ {
		if d := yq.At(0, j) - e.At(0, j); d*d > 1e-2 {
			t.Errorf("a point next to training point 0 maps %v away from it", d)
		}
	}
	l := reloaded(t, m)
	yl, err := l.Transform(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(yl, yq) {
		t.Error("loaded model maps differently")
	}
}

func TestLLEBadInput(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(15, 0, 1)
	for _, c := range []struct {
		s    LLE
		want error
	}{
		{LLE{K: 15}, ErrTooFewSamples},
		{LLE{Reg: -1}, ErrBadSetting},
		{LLE{Dim: 14}, ErrDimension},
	} {
		if _, err := c.s.Fit(ctx, x); !errors.Is(err, c.want) {
			t.Errorf("%+v: %v, want %v", c.s, err, c.want)
		}
	}
}

// lleM equals, bit for bit, M summed as the outer products Σᵢ aᵢᵀaᵢ of the
// rows of A = I − W added in row order (the construction it replaced), on
// weights with and without the point itself in its row.
func TestLLEMMatchesOuterProducts(t *testing.T) {
	const n, k = 300, 7
	rng := rand.New(rand.NewPCG(5, 9))
	coo := sparse.NewCOO(n, n, n*k)
	for i := range n {
		used := map[int]bool{}
		for len(used) < k {
			j := rng.IntN(n)
			if j == i && i%3 != 0 {
				continue // the point itself in every third row only
			}
			if !used[j] {
				used[j] = true
				coo.Add(i, j, rng.NormFloat64())
			}
		}
	}
	w := coo.ToCSR()
	ref := sparse.NewCOO(n, n, 0)
	ptr, ind, val := w.RowPtr(), w.ColIdx(), w.Values()
	for i := range n {
		var cols []int
		var vals []float64
		self := false
		for p := ptr[i]; p < ptr[i+1]; p++ {
			v := -val[p]
			if ind[p] == i {
				v++
				self = true
			}
			cols, vals = append(cols, ind[p]), append(vals, v)
		}
		if !self {
			cols, vals = append(cols, i), append(vals, 1)
		}
		for a := range cols {
			for b := range cols {
				ref.Add(cols[a], cols[b], vals[a]*vals[b])
			}
		}
	}
	want := ref.ToCSR()
	got, err := lleM(context.Background(), w, n)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.RowPtr(), want.RowPtr()) || !slices.Equal(got.ColIdx(), want.ColIdx()) {
		t.Fatal("pattern of M differs from the outer products'")
	}
	for p, v := range want.Values() {
		if got.Values()[p] != v {
			t.Fatalf("entry %d: %v, want %v exactly", p, got.Values()[p], v)
		}
	}
}
