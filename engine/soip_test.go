package engine

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/admm"
	"github.com/manifoldlab/manifold/backend"
)

// With every coefficient allowed and no penalty the regressions of §4 are
// exact: SOIP is OIP.
func TestSOIPFullIsOIP(t *testing.T) {
	ctx := context.Background()
	const n, d, k, dim = 80, 12, 7, 4
	x := curvedData(n, d, 3)
	o, err := OIP{Dim: dim, K: k}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	s, err := SOIP{Dim: dim, K: k, Cardinality: d}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(o.Projection(), s.Projection(), 1e-8) {
		t.Errorf("full-cardinality SOIP differs from OIP:\n%v\n%v", mat.Formatted(o.Projection()), mat.Formatted(s.Projection()))
	}
	if s.MaxCosine() > 1e-8 {
		t.Errorf("max cosine %g between the (exact) projections", s.MaxCosine())
	}
}

// A cardinality gives exactly that many non-zeros per unit-length
// projection; a penalty α gives the lasso solution at λ = α/2, checked
// against ADMM (package admm) on the same targets y_p = X·v_p.
func TestSOIPSparse(t *testing.T) {
	ctx := context.Background()
	const n, d, k, dim = 80, 12, 7, 3
	x := curvedData(n, d, 3)
	s, err := SOIP{Dim: dim, K: k, Cardinality: 5}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Projection()
	for j := 0; j < dim; j++ {
		nz := 0
		for i := 0; i < d; i++ {
			if p.At(i, j) != 0 {
				nz++
			}
		}
		if nz != 5 || s.NonZeros()[j] != 5 {
			t.Errorf("projection %d: %d non-zeros (reported %d), want 5", j, nz, s.NonZeros()[j])
		}
		if nrm := mat.Norm(p.ColView(j), 2); math.Abs(nrm-1) > 1e-12 {
			t.Errorf("projection %d has norm %v", j, nrm)
		}
	}
	t.Logf("largest cosine between sparse projections: %.3g", s.MaxCosine())

	o, err := OIP{Dim: dim, K: k}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	y := o.Embedding()
	const alpha = 2.0
	sp, err := SOIP{Dim: dim, K: k, Cardinality: d, Alpha: alpha}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("α = %v: non-zeros %v", alpha, sp.NonZeros())
	for j, nz := range sp.NonZeros() {
		if nz >= d {
			t.Errorf("α = %v: projection %d has all %d coefficients: the penalty does not bite", alpha, j, d)
		}
	}
	for j := 0; j < dim; j++ {
		col := mat.Col(nil, j, y)
		lasso, err := admm.NewElasticNet(backend.GeneralOp{A: x.RawMatrix()}, col)
		if err != nil {
			t.Fatal(err)
		}
		fit, err := lasso.Solve(ctx, alpha/2, admm.NetSettings{ADMM: admm.Settings{AbsTol: 1e-12, RelTol: 1e-12, MaxIter: 100000}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ref := mat.NewVecDense(d, fit.X)
		ref.ScaleVec(1/mat.Norm(ref, 2), ref)
		got := sp.Projection().ColView(j)
		var diff mat.VecDense
		diff.AddScaledVec(got, -math.Copysign(1, mat.Dot(got, ref)), ref)
		if e := mat.Norm(&diff, 2); e > 1e-6 {
			t.Errorf("projection %d differs from the ADMM lasso at λ = α/2 by %g", j, e)
		}
	}
}

func TestSOIPSaveAndErrors(t *testing.T) {
	ctx := context.Background()
	x := curvedData(60, 10, 4)
	m, err := SOIP{Dim: 2, K: 6, Cardinality: 3}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	l := reloaded(t, m)
	y1, _ := m.Transform(ctx, x)
	y2, err := l.Transform(ctx, x)
	if err != nil || !mat.Equal(y1, y2) || !mat.EqualApprox(y1, m.Embedding(), 1e-10) {
		t.Errorf("transform or the loaded model differ (%v)", err)
	}
	if ls := l.(*SOIPModel); ls.MaxCosine() != m.MaxCosine() || ls.NonZeros()[1] != 3 {
		t.Error("the loaded model lost its statistics")
	}
	checkRefusals(t, SOIP.Fit, x, []refusal[SOIP]{
		{SOIP{Cardinality: -1}, ErrBadSetting},
		{SOIP{Alpha: -1}, ErrBadSetting},
		{SOIP{Alpha: 1e12}, ErrBadSetting},
		{SOIP{Dim: 11}, ErrDimension},
	})
}
