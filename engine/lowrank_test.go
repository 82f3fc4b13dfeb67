package engine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/admm"
)

// The projection is the generalized eigenvectors of ((BZ_B)(BZ_B)ᵀ, S_W)
// computed independently (mat.Cholesky, mat.EigenSym) from the scatter of
// the groups and the model's Z_B, whose rank and LRR residuals are the
// ones reported; with and without a singular S_W (ridge).
func TestLowRankIsomapAgainstReference(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(8, 8))
	for _, c := range []struct {
		n, d, groups int
		unit         bool
		lambda       float64
	}{{60, 8, 5, false, 0.1}, {60, 8, 5, true, 2}, {12, 20, 3, false, 1}} {
		x := mat.NewDense(c.n, c.d, nil)
		labels := make([]int, c.n)
		for i := 0; i < c.n; i++ {
			labels[i] = i % c.groups
			for j := 0; j < c.d; j++ {
				x.Set(i, j, rng.NormFloat64()+2*math.Sin(float64(labels[i]*(j+1))))
			}
		}
		set := LowRankIsomap{Dim: 2, Labels: labels, UnitScale: c.unit, LRR: admm.LRRSettings{Lambda: c.lambda}}
		m := mustFit(t, ctx, set.Fit, x)
		st := m.LRRStats()
		if !st.Converged || st.PrimalResidual > 1e-6 || st.ZJResidual > 1e-6 {
			t.Errorf("%+v: LRR residuals %g (eq. 25), %g (Z = J), converged %v", c, st.PrimalResidual, st.ZJResidual, st.Converged)
		}
		z := m.Z()
		var zsvd mat.SVD
		zsvd.Factorize(z, mat.SVDNone)
		sv := zsvd.Values(nil)
		rank := 0
		for _, v := range sv {
			if v > 1e-9*sv[0] {
				rank++
			}
		}
		t.Logf("%+v: rank(Z_B) %d (reported %d), singular values %.3g, ridge %.3g", c, rank, st.Rank, sv, m.Ridge())
		if rank != st.Rank {
			t.Errorf("%+v: rank of Z_B is %d, reported %d", c, rank, st.Rank)
		}
		// Reference scatter.
		mean := make([]float64, c.d)
		gm := mat.NewDense(c.groups, c.d, nil)
		cnt := make([]float64, c.groups)
		for i := 0; i < c.n; i++ {
			cnt[labels[i]]++
			for j := 0; j < c.d; j++ {
				mean[j] += x.At(i, j) / float64(c.n)
				gm.Set(labels[i], j, gm.At(labels[i], j)+x.At(i, j))
			}
		}
		b := mat.NewDense(c.d, c.groups, nil)
		for k := 0; k < c.groups; k++ {
			for j := 0; j < c.d; j++ {
				gm.Set(k, j, gm.At(k, j)/cnt[k])
				b.Set(j, k, math.Sqrt(cnt[k])*(gm.At(k, j)-mean[j]))
			}
		}
		sw := mat.NewSymDense(c.d, nil)
		for i := 0; i < c.n; i++ {
			var r mat.VecDense
			r.SubVec(x.RowView(i), gm.RowView(labels[i]))
			sw.SymRankOne(sw, 1, &r)
		}
		for i := 0; i < c.d; i++ {
			sw.SetSym(i, i, sw.At(i, i)+m.Ridge())
		}
		var bz, sb mat.Dense
		bz.Mul(b, z)
		sb.Mul(&bz, bz.T())
		vals, ev, li := refFisher(t, &sb, sw)
		w := m.Projection()
		for j := 0; j < 2; j++ {
			col := c.d - 1 - j
			if math.Abs(vals[col]-m.Eigenvalues()[j]) > 1e-8*vals[c.d-1] {
				t.Errorf("%+v: λ_%d = %v, reference %v", c, j, m.Eigenvalues()[j], vals[col])
			}
			var ref mat.VecDense
			ref.MulVec(li.T(), ev.ColView(col))
			ref.ScaleVec(math.Sqrt(float64(c.n)), &ref)
			var dv mat.VecDense
			dv.AddScaledVec(w.ColView(j), -math.Copysign(1, mat.Dot(w.ColView(j), &ref)), &ref)
			if e := mat.Norm(&dv, 2) / mat.Norm(&ref, 2); e > 1e-7 {
				t.Errorf("%+v: direction %d differs from the reference by %g", c, j, e)
			}
		}
		if (c.d > c.n-c.groups) != (m.Ridge() > 0) {
			t.Errorf("%+v: ridge %g, S_W singular %v", c, m.Ridge(), c.d > c.n-c.groups)
		}
	}
}

func TestLowRankIsomapSaveAndErrors(t *testing.T) {
	ctx := context.Background()
	x := curvedData(80, 6, 2)
	m := mustFit(t, ctx, LowRankIsomap{Dim: 2, Landmarks: 6, Seed: 3, LRR: admm.LRRSettings{Lambda: 0.5}}.Fit, x)
	rep := m.Report()
	for _, name := range []string{"kmeans", "scatter", "lrr", "eigensolve", "project"} {
		if _, ok := rep.Stage(name); !ok {
			t.Errorf("no stage %q", name)
		}
	}
	if rep.Params["rank_z"] == nil || rep.Params["lrr_primal_residual"] == nil {
		t.Errorf("report params lack the LRR rank and residuals: %v", rep.Params)
	}
	l := reloaded(t, m)
	y1, err := m.Transform(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	y2, err := l.Transform(ctx, x)
	if err != nil || !mat.Equal(y1, y2) || !mat.EqualApprox(y1, m.Embedding(), 1e-9) {
		t.Errorf("transform of the training points or the loaded model differ (%v)", err)
	}
	if lm := l.(*LowRankIsomapModel); lm.LRRStats().Rank != m.LRRStats().Rank {
		t.Error("the loaded model lost the rank of Z_B")
	}
	checkRefusals(t, LowRankIsomap.Fit, x, []refusal[LowRankIsomap]{
		{LowRankIsomap{Landmarks: 1}, ErrBadSetting},
		{LowRankIsomap{Landmarks: 80}, ErrBadSetting},
		{LowRankIsomap{Landmarks: 3, Dim: 3}, ErrDimension},
		{LowRankIsomap{Ridge: -1}, ErrBadSetting},
		{LowRankIsomap{Labels: []int{1}}, ErrLabels},
		{LowRankIsomap{Landmarks: 6}, ErrDimension}, // λ = 0.02 on data of unit scale: Z_B = 0
	})
	// 99 equal rows and one other: 2 distinct points for 6 landmarks
	// (before: ErrNumerical "cluster 2 is empty", which did not say why).
	dup := mat.NewDense(100, 6, nil)
	for j := 0; j < 6; j++ {
		dup.Set(99, j, 1)
	}
	_, err = LowRankIsomap{Landmarks: 6, Seed: 3}.Fit(ctx, dup)
	if !errors.Is(err, ErrDimension) || !strings.Contains(err.Error(), "2 distinct points") {
		t.Errorf("6 landmarks on 2 distinct points: %v, want ErrDimension naming the distinct points", err)
	}
}
