package engine_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// ldaFixture is one scikit-learn LinearDiscriminantAnalysis(solver='eigen')
// reference made by testdata/make_fixtures_lda.py.
type ldaFixture struct {
	Sklearn    string      `json:"sklearn"`
	X          [][]float64 `json:"X"`
	Y          []int       `json:"y"`
	XNew       [][]float64 `json:"X_new"`
	Dim        int         `json:"dim"`
	Scalings   [][]float64 `json:"scalings"`
	Transform  [][]float64 `json:"transform"`
	Predict    []int       `json:"predict"`
	EVR        []float64   `json:"explained_variance_ratio"`
	LOOPredict []int       `json:"loo_predict"`
}

func loadLDAFixture(t *testing.T, name string) ldaFixture {
	t.Helper()
	return readJSON[ldaFixture](t, "sklearn_"+name+".json")
}

// LDA equals scikit-learn's eigen solver: W = scalings column by column up
// to sign, the same transform after centring, the same predictions
// (the Gaussian rule with priors); engine/metrics checks the leave-one-out
// predictions.
func TestLDAAgainstSklearn(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"lda_blobs3", "lda_blobs5"} {
		t.Run(name, func(t *testing.T) {
			f := loadLDAFixture(t, name)
			x := rowsToDense(f.X)
			_, d := x.Dims()
			m := engine.MustFit(t, ctx, engine.LDA{Labels: f.Y}.Fit, x)
			if m.Dim() != f.Dim {
				t.Fatalf("default dim %d, want c − 1 = %d", m.Dim(), f.Dim)
			}
			w := m.Projection()
			sk := rowsToDense(f.Scalings)
			signs := make([]float64, f.Dim)
			for j := 0; j < f.Dim; j++ {
				dot := 0.0
				for i := 0; i < d; i++ {
					dot += w.At(i, j) * sk.At(i, j)
				}
				signs[j] = math.Copysign(1, dot)
				for i := 0; i < d; i++ {
					want := signs[j] * sk.At(i, j)
					if math.Abs(w.At(i, j)-want) > 1e-8*mat.Norm(sk.ColView(j), 2) {
						t.Fatalf("W[%d,%d] = %v, want sign·scalings = %v", i, j, w.At(i, j), want)
					}
				}
			}
			// Transform: ours = Wᵀ(x − m), scikit-learn's = scalingsᵀx.
			xn := rowsToDense(f.XNew)
			y, err := m.Transform(ctx, xn)
			if err != nil {
				t.Fatal(err)
			}
			// m: the training mean, the column means of X.
			mean := make([]float64, d)
			for _, row := range f.X {
				for j, v := range row {
					mean[j] += v / float64(len(f.X))
				}
			}
			var mw mat.VecDense
			mw.MulVec(sk.T(), mat.NewVecDense(d, mean))
			skT := rowsToDense(f.Transform)
			for i := range f.XNew {
				for j := 0; j < f.Dim; j++ {
					want := signs[j] * (skT.At(i, j) - mw.AtVec(j))
					if math.Abs(y.At(i, j)-want) > 1e-8*math.Max(1, math.Abs(want)) {
						t.Fatalf("transform[%d,%d] = %v, want %v", i, j, y.At(i, j), want)
					}
				}
			}
			pred, err := m.Predict(ctx, xn)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range pred {
				if p != f.Predict[i] {
					t.Errorf("prediction %d = %d, scikit-learn %d", i, p, f.Predict[i])
				}
			}
			sum := 0.0
			for _, v := range m.Eigenvalues() {
				sum += v
			}
			for j, v := range m.Eigenvalues() {
				if math.Abs(v/sum-f.EVR[j]) > 1e-9 {
					t.Errorf("explained variance ratio %d = %v, scikit-learn %v", j, v/sum, f.EVR[j])
				}
			}
		})
	}
}

// Two classes: the closed form w ∝ S_W⁻¹(m₁ − m₂) with
// λ = (N₁N₂/N)(m₁ − m₂)ᵀS_W⁻¹(m₁ − m₂), with and without the ridge.
func TestLDATwoClassClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const n1, n2, d = 23, 31, 4
	x := mat.NewDense(n1+n2, d, nil)
	labels := make([]int, n1+n2)
	for i := 0; i < n1+n2; i++ {
		for j := 0; j < d; j++ {
			v := rng.NormFloat64() * float64(j+1)
			if i >= n1 {
				v += float64(2 - j)
				labels[i] = 7
			}
			x.Set(i, j, v)
		}
	}
	for _, reg := range []float64{0, 0.3} {
		m := engine.MustFit(t, context.Background(), engine.LDA{Labels: labels, Reg: reg}.Fit, x)
		mean := func(lo, hi int) *mat.VecDense {
			v := mat.NewVecDense(d, nil)
			for i := lo; i < hi; i++ {
				v.AddVec(v, x.RowView(i))
			}
			v.ScaleVec(1/float64(hi-lo), v)
			return v
		}
		m1, m2 := mean(0, n1), mean(n1, n1+n2)
		sw := mat.NewSymDense(d, nil)
		for i := 0; i < n1+n2; i++ {
			mc := m1
			if i >= n1 {
				mc = m2
			}
			var r mat.VecDense
			r.SubVec(x.RowView(i), mc)
			sw.SymRankOne(sw, 1, &r)
		}
		tr := 0.0
		for i := 0; i < d; i++ {
			tr += sw.At(i, i)
		}
		for i := 0; i < d; i++ {
			sw.SetSym(i, i, sw.At(i, i)+reg*tr/d)
		}
		var diff, w mat.VecDense
		diff.SubVec(m1, m2)
		if err := w.SolveVec(sw, &diff); err != nil {
			t.Fatal(err)
		}
		lam := float64(n1*n2) / float64(n1+n2) * mat.Dot(&diff, &w)
		if got := m.Eigenvalues()[0]; math.Abs(got-lam) > 1e-10*lam {
			t.Errorf("reg %v: λ = %v, closed form %v", reg, got, lam)
		}
		p := m.Projection()
		cos := mat.Dot(p.ColView(0), &w) / mat.Norm(p.ColView(0), 2) / mat.Norm(&w, 2)
		if math.Abs(math.Abs(cos)-1) > 1e-12 {
			t.Errorf("reg %v: direction differs from S_W⁻¹(m₁ − m₂): cos %v", reg, cos)
		}
	}
}

// With the Fisherfaces solver and D ≥ N the PCA to N − c dimensions comes
// first: the projections equal an independent reference (mat.SVD for the
// PCA, mat.Cholesky and mat.EigenSym for the reduced problem) up to sign.
func TestLDAFisherfaces(t *testing.T) {
	const n, d, c = 30, 50, 3
	x, labels := classBlobs(6, n, d, c)
	m := engine.MustFit(t, context.Background(), engine.LDA{Labels: labels, Solver: engine.LDAFisherfaces}.Fit, x)
	if rep := m.Report(); rep.Params["pca_dim"] != n-c {
		t.Errorf("pca_dim %v, want N − c = %d", rep.Params["pca_dim"], n-c)
	}
	// Reference.
	a := centredCols(x)
	var svd mat.SVD
	svd.Factorize(a, mat.SVDThin)
	var vAll mat.Dense
	svd.VTo(&vAll)
	u := vAll.Slice(0, d, 0, n-c)
	var z mat.Dense
	z.Mul(a, u)
	p := n - c
	means := mat.NewDense(c, p, nil)
	cnt := make([]float64, c)
	for i := 0; i < n; i++ {
		cnt[labels[i]]++
		for j := 0; j < p; j++ {
			means.Set(labels[i], j, means.At(labels[i], j)+z.At(i, j))
		}
	}
	sb, sw := mat.NewSymDense(p, nil), mat.NewSymDense(p, nil)
	for k := 0; k < c; k++ {
		row := means.RawRowView(k)
		for j := range row {
			row[j] /= cnt[k]
		}
		sb.SymRankOne(sb, cnt[k], means.RowView(k))
	}
	for i := 0; i < n; i++ {
		var r mat.VecDense
		r.SubVec(z.RowView(i), means.RowView(labels[i]))
		sw.SymRankOne(sw, 1, &r)
	}
	vals, ev, linv := refFisher(t, sb, sw)
	w := m.Projection()
	for j := 0; j < c-1; j++ {
		col := p - 1 - j
		if math.Abs(vals[col]-m.Eigenvalues()[j]) > 1e-8*vals[col] {
			t.Errorf("λ_%d = %v, reference %v", j, m.Eigenvalues()[j], vals[col])
		}
		var wf, ref mat.VecDense
		wf.MulVec(linv.T(), ev.ColView(col))
		ref.MulVec(u, &wf)
		ref.ScaleVec(math.Sqrt(n), &ref) // Wᵀ(S_W/N)W = I
		dot := mat.Dot(w.ColView(j), &ref)
		var dv mat.VecDense
		dv.AddScaledVec(w.ColView(j), -math.Copysign(1, dot), &ref)
		if e := mat.Norm(&dv, 2) / mat.Norm(&ref, 2); e > 1e-8 {
			t.Errorf("direction %d differs from the reference by %g", j, e)
		}
	}
	// Without the PCA, S_W (rank ≤ N − c < D) is singular.
	if _, err := (engine.LDA{Labels: labels, NoPCA: true}).Fit(context.Background(), x); !errors.Is(err, engine.ErrNumerical) {
		t.Errorf("NoPCA with D > N: %v, want ErrNumerical", err)
	}
	if _, err := (engine.LDA{Labels: labels, NoPCA: true, Reg: 0.1}).Fit(context.Background(), x); err != nil {
		t.Errorf("NoPCA with a ridge: %v", err)
	}
}

func TestLDASaveAndErrors(t *testing.T) {
	ctx := context.Background()
	f := loadLDAFixture(t, "lda_blobs3")
	x := rowsToDense(f.X)
	m := engine.MustFit(t, ctx, engine.LDA{Labels: f.Y, Dim: 1}.Fit, x)
	l := reloaded(t, m)
	xn := rowsToDense(f.XNew)
	y1, _ := m.Transform(ctx, xn)
	y2, err := l.Transform(ctx, xn)
	if err != nil || !mat.Equal(y1, y2) {
		t.Errorf("the loaded model maps differently (%v)", err)
	}
	p1, _ := m.Predict(ctx, xn)
	p2, err := l.(*engine.LDAModel).Predict(ctx, xn)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p1 {
		if p1[i] != p2[i] {
			t.Fatal("the loaded model predicts differently")
		}
	}
	n := len(f.Y)
	checkRefusals(t, engine.LDA.Fit, x, []refusal[engine.LDA]{
		{engine.LDA{}, engine.ErrLabels},
		{engine.LDA{Labels: f.Y[:10]}, engine.ErrLabels},
		{engine.LDA{Labels: make([]int, n)}, engine.ErrLabels},
		{engine.LDA{Labels: f.Y, Dim: 3}, engine.ErrDimension},
		{engine.LDA{Labels: f.Y, Reg: -1}, engine.ErrBadSetting},
	})
	seq := make([]int, 4)
	for i := range seq {
		seq[i] = i
	}
	if _, err := (engine.LDA{Labels: seq}).Fit(ctx, x.Slice(0, 4, 0, 5)); !errors.Is(err, engine.ErrTooFewSamples) {
		t.Errorf("one sample per class: %v", err)
	}
}

// LDA's default (svd) solver on rank-deficient data — constant pixels, a
// pixel that is the sum of two others, duplicated images — against
// scikit-learn's LinearDiscriminantAnalysis(solver='svd') (fixtures made by
// testdata/make_fixtures_lda_svd.py): the same transform of new points
// column by column up to sign and the fixed factor √(N/(N − c)) (ours
// normalizes Wᵀ(S_W/N)W = I, scikit-learn Wᵀ(S_W/(N − c))W = I), and the
// same predictions (balanced classes). The Fisherfaces solver refuses the
// same data (S_W singular).
func TestLDASVDAgainstSklearn(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"lda_svd_digits", "lda_svd_wide"} {
		t.Run(name, func(t *testing.T) {
			f := loadLDAFixture(t, name)
			x := rowsToDense(f.X)
			n, _ := x.Dims()
			if _, err := (engine.LDA{Labels: f.Y, Solver: engine.LDAFisherfaces}).Fit(ctx, x); !errors.Is(err, engine.ErrNumerical) {
				t.Fatalf("fisherfaces on singular S_W: %v, want ErrNumerical (the fixture must be rank-deficient)", err)
			}
			m := engine.MustFit(t, ctx, engine.LDA{Labels: f.Y}.Fit, x)
			if got := m.Report().Params["solver"]; got != "svd" {
				t.Errorf("default solver %v, want svd", got)
			}
			c := f.Dim + 1
			fac := math.Sqrt(float64(n) / float64(n-c))
			y, err := m.Transform(ctx, rowsToDense(f.XNew))
			if err != nil {
				t.Fatal(err)
			}
			sk := rowsToDense(f.Transform)
			for j := 0; j < f.Dim; j++ {
				sign := math.Copysign(1, mat.Dot(y.ColView(j), sk.ColView(j)))
				var dv mat.VecDense
				dv.AddScaledVec(y.ColView(j), -sign*fac, sk.ColView(j))
				if e := mat.Norm(&dv, 2) / (fac * mat.Norm(sk.ColView(j), 2)); e > 1e-7 {
					t.Errorf("transform column %d differs from ±√(N/(N−c))·scikit-learn's by %.3g (relative)", j, e)
				}
			}
			pred, err := m.Predict(ctx, rowsToDense(f.XNew))
			if err != nil {
				t.Fatal(err)
			}
			for i := range pred {
				if pred[i] != f.Predict[i] {
					t.Errorf("predict[%d] = %d, scikit-learn %d", i, pred[i], f.Predict[i])
				}
			}
		})
	}
}
