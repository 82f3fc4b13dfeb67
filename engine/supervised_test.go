package engine

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Supervised Isomap on the whole-class graph (K = 0) with the default
// between-class geodesic equals the construction of Deng Cai's IsoP.m —
// the bench's IsoP-INF (bench/repro/faces-table2), rebuilt here
// independently: geodesics within a class are Euclidean distances (the
// class graph is complete), between classes 1000 × the largest of them;
// τ = −½·H·S·H; the embedding is the top eigenvectors of τ (mat.EigenSym)
// scaled by √λ. SupervisedJoin gives a different τ (its eigenvalues differ
// by far more than the tolerance), and a bad setting is refused.
func TestSupervisedConstantGeodesic(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, d, c, dim = 36, 5, 4, 3
	x := mat.NewDense(n, d, nil)
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		labels[i] = i % c
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64()+2*float64((labels[i]+j)%3))
		}
	}
	// Reference τ.
	s := mat.NewSymDense(n, nil)
	maxD := 0.0
	dist := func(i, j int) float64 {
		var v mat.VecDense
		v.SubVec(x.RowView(i), x.RowView(j))
		return mat.Norm(&v, 2)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if labels[i] == labels[j] {
				maxD = math.Max(maxD, dist(i, j))
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := 1000 * maxD
			if labels[i] == labels[j] {
				v = dist(i, j)
			}
			s.SetSym(i, j, v*v)
		}
	}
	h := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := -1.0 / n
			if i == j {
				v++
			}
			h.Set(i, j, v)
		}
	}
	var hs, tau mat.Dense
	hs.Mul(h, s)
	tau.Mul(&hs, h)
	ts := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			ts.SetSym(i, j, -0.25*(tau.At(i, j)+tau.At(j, i)))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(ts, true) {
		t.Fatal("reference eigendecomposition failed")
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)

	ctx := context.Background()
	m, err := Isomap{Dim: dim, K: 0, Labels: labels, Eigensolver: EigenDense}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Report().Params["supervised_geodesic"]; got != "constant" {
		t.Errorf("default supervised geodesic %v, want constant", got)
	}
	if math.Abs(m.between-1000*maxD) > 1e-9*maxD {
		t.Errorf("between-class geodesic %v, want 1000 × %v", m.between, maxD)
	}
	emb := m.Embedding()
	for j := 0; j < dim; j++ {
		want := vals[n-1-j]
		if got := m.Eigenvalues()[j]; math.Abs(got-want) > 1e-9*want {
			t.Errorf("λ_%d = %v, reference %v", j, got, want)
		}
		var ref mat.VecDense
		ref.ScaleVec(math.Sqrt(want), vecs.ColView(n-1-j))
		sign := math.Copysign(1, mat.Dot(&ref, emb.ColView(j)))
		var dv mat.VecDense
		dv.AddScaledVec(emb.ColView(j), -sign, &ref)
		if e := mat.Norm(&dv, 2) / mat.Norm(&ref, 2); e > 1e-7 {
			t.Errorf("embedding column %d differs from the IsoP.m reference by %.3g", j, e)
		}
	}
	j, err := Isomap{Dim: dim, K: 0, Labels: labels, Eigensolver: EigenDense, Between: SupervisedJoin}.Fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(j.Eigenvalues()[0]-vals[n-1]) < 1e-3*vals[n-1] {
		t.Errorf("join gives the constant construction's λ_0 = %v", vals[n-1])
	}
	if j.between != 0 || j.Report().Params["disconnected"] != "connect" {
		t.Errorf("join: between %v, policy %v; want 0, connect", j.between, j.Report().Params["disconnected"])
	}
	// The model keeps the constant through Save/Load.
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if mm := loaded.(*IsomapModel); mm.between != m.between {
		t.Errorf("loaded between-class geodesic %v, want %v", loaded.(*IsomapModel).between, m.between)
	}
	if _, err := (Isomap{Dim: dim, K: 0, Labels: labels, Between: "far"}).Fit(ctx, x); !errors.Is(err, ErrBadSetting) {
		t.Errorf("Between \"far\": %v, want ErrBadSetting", err)
	}
}
