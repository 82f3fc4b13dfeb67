package engine

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/internal/discriminant"
)

// In the small-sample case (D > N, S_W singular on the span of the data)
// the svd solver gives the subspace of an independent reference of Deng
// Cai's LDA.m written with gonum (mat.SVD of the centred data, the thin SVD
// of the whitened class means), the training classes collapse to points
// (σ² = 1, eigenvalue reported discriminant.NoWithin) and the columns have
// unit total variance; the model transforms its own training data to its
// embedding.
func TestLDASVDSmallSample(t *testing.T) {
	const n, d, c = 30, 50, 4
	x, labels := classBlobs(7, n, d, c)
	ctx := context.Background()
	m := mustFit(t, ctx, LDA{Labels: labels}.Fit, x)
	for j, v := range m.Eigenvalues() {
		if v != discriminant.NoWithin {
			t.Errorf("λ_%d = %v, want %v (no within-class scatter)", j, v, discriminant.NoWithin)
		}
	}
	// Reference: X̄ = UΣVᵀ, H_b = [√N_c ū_c], H_b = PΣ_bQᵀ, W = VΣ⁻¹Q.
	a := centredCols(x)
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		t.Fatal("reference SVD failed")
	}
	sv := svd.Values(nil)
	r := 0
	for _, s := range sv {
		if s*s > 1e-10*sv[0]*sv[0] {
			r++
		}
	}
	var uAll, vAll mat.Dense
	svd.UTo(&uAll)
	svd.VTo(&vAll)
	hb := mat.NewDense(c, r, nil)
	cnt := make([]float64, c)
	for i := 0; i < n; i++ {
		cnt[labels[i]]++
		for j := 0; j < r; j++ {
			hb.Set(labels[i], j, hb.At(labels[i], j)+uAll.At(i, j))
		}
	}
	for k := 0; k < c; k++ {
		for j := 0; j < r; j++ {
			hb.Set(k, j, hb.At(k, j)/math.Sqrt(cnt[k]))
		}
	}
	var hs mat.SVD
	if !hs.Factorize(hb, mat.SVDThin) {
		t.Fatal("reference SVD of H_b failed")
	}
	var q mat.Dense
	hs.VTo(&q)
	ref := mat.NewDense(d, c-1, nil)
	for j := 0; j < c-1; j++ {
		for i := 0; i < d; i++ {
			s := 0.0
			for l := 0; l < r; l++ {
				s += vAll.At(i, l) / sv[l] * q.At(l, j)
			}
			ref.Set(i, j, s)
		}
	}
	if e := subspaceGap(m.Projection(), ref); e > 1e-8 {
		t.Errorf("subspace differs from the LDA.m reference by %.3g", e)
	}
	emb := mat.DenseCopyOf(m.Embedding())
	checkMapsTraining(t, m, x, 1e-9)
	// Every class one point; unit total variance per column.
	for j := 0; j < c-1; j++ {
		tot, within := 0.0, 0.0
		for i := 0; i < n; i++ {
			tot += emb.At(i, j) * emb.At(i, j)
			dv := emb.At(i, j) - m.ClassMeans().At(labels[i], j)
			within += dv * dv
		}
		if math.Abs(tot/n-1) > 1e-9 {
			t.Errorf("column %d: total variance %v, want 1", j, tot/n)
		}
		if within > 1e-12*tot {
			t.Errorf("column %d: within-class scatter %.3g of the total, want 0 (classes collapse)", j, within/tot)
		}
	}
	// The svd solver takes no ridge; bad solvers are refused.
	for _, s := range []LDA{{Labels: labels, Solver: LDASVD, Reg: 0.1}, {Labels: labels, Solver: "qr"}} {
		if _, err := s.Fit(ctx, x); !errors.Is(err, ErrBadSetting) {
			t.Errorf("%+v: %v, want ErrBadSetting", s.Solver, err)
		}
	}
}

// subspaceGap is ‖P_a − P_b‖_F/√2 for the orthogonal projectors on the
// column spaces of a and b (the sine of the largest principal angle's
// Frobenius aggregate; 0 for the same subspace).
func subspaceGap(a, b *mat.Dense) float64 {
	proj := func(x *mat.Dense) *mat.Dense {
		var qr mat.QR
		qr.Factorize(x)
		var q mat.Dense
		qr.QTo(&q)
		r, c := x.Dims()
		qs := q.Slice(0, r, 0, c)
		var p mat.Dense
		p.Mul(qs, qs.T())
		return &p
	}
	pa, pb := proj(a), proj(b)
	pa.Sub(pa, pb)
	return mat.Norm(pa, 2) / math.Sqrt2
}
