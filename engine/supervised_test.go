package engine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/internal/testmode"
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
	vals, vecs := refEigen(t, refDoubleCentre(s))

	ctx := context.Background()
	m := mustFit(t, ctx, Isomap{Dim: dim, K: 0, Labels: labels, Eigensolver: EigenDense}.Fit, x)
	if got := m.Report().Params["supervised_geodesic"]; got != "constant" {
		t.Errorf("default supervised geodesic %v, want constant", got)
	}
	if math.Abs(m.p.Between-1000*maxD) > 1e-9*maxD {
		t.Errorf("between-class geodesic %v, want 1000 × %v", m.p.Between, maxD)
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
	j := mustFit(t, ctx, Isomap{Dim: dim, K: 0, Labels: labels, Eigensolver: EigenDense, Between: SupervisedJoin}.Fit, x)
	if math.Abs(j.Eigenvalues()[0]-vals[n-1]) < 1e-3*vals[n-1] {
		t.Errorf("join gives the constant construction's λ_0 = %v", vals[n-1])
	}
	if j.p.Between != 0 || j.Report().Params["disconnected"] != "connect" {
		t.Errorf("join: between %v, policy %v; want 0, connect", j.p.Between, j.Report().Params["disconnected"])
	}
	// The model keeps the constant through Save/Load.
	loaded := reloaded(t, m)
	if mm := loaded.(*IsomapModel); mm.p.Between != m.p.Between {
		t.Errorf("loaded between-class geodesic %v, want %v", loaded.(*IsomapModel).p.Between, m.p.Between)
	}
	if _, err := (Isomap{Dim: dim, K: 0, Labels: labels, Between: "far"}).Fit(ctx, x); !errors.Is(err, ErrBadSetting) {
		t.Errorf("Between \"far\": %v, want ErrBadSetting", err)
	}
}

// The Table 2 protocol of Cai, He & Han, AAAI 2007 on yale32 and orl32
// (G2…G8, 2 random splits each, c − 1 dimensions, unit-length projection
// vectors, 1-NN): with the defaults of a supervised fit (IsoP.m's constant
// geodesic and its regularized eigenproblem, IsoProjectionEigen)
// IsoProjection is on average at or above LDA, as the paper's Table 2 has
// it (yale32 74.5 against 73.7 %, orl32 94.2 against 91.4; the spectral
// regression scores 74.4 and 89.7, below LDA on orl32), and at least 5
// points above the classes-joined construction, which sat near PCA
// (bench/RESULTS.md, faces-table2 and faces-table2-solvers).
func TestSupervisedTable2(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "real-data protocol")
	for _, tag := range []string{"yale32", "orl32"} {
		t.Run(tag, func(t *testing.T) { testSupervisedTable2(t, tag, IsoProjectionAuto) })
	}
}

func testSupervisedTable2(t *testing.T, tag string, solver IsoProjectionSolver) {
	ctx := context.Background()
	x := loadShared(t, tag)
	y := loadSharedLabels(t, tag)
	x.Scale(1.0/255, x)
	order, byClass := classOrder(y)
	c := len(order)
	rng := rand.New(rand.NewPCG(16, 5))
	var lda, constant, join float64
	cells := 0
	for p := 2; p <= 8; p++ {
		for s := 0; s < 2; s++ {
			tr, te := splitPerClass(rng, order, byClass, p)
			xtr, xte := pickRows(x, tr), pickRows(x, te)
			ytr, yte := pickInts(y, tr), pickInts(y, te)
			acc := func(w *mat.Dense) float64 {
				for j := 0; j < c-1; j++ {
					col := w.ColView(j).(*mat.VecDense)
					col.ScaleVec(1/mat.Norm(col, 2), col)
				}
				var a, b mat.Dense
				a.Mul(xtr, w)
				b.Mul(xte, w)
				return 100 * nearestNeighbourAccuracy(&a, &b, ytr, yte)
			}
			ml := mustFit(t, ctx, LDA{Labels: ytr}.Fit, xtr)
			mc := mustFit(t, ctx, IsoProjection{Dim: c - 1, K: 0, Labels: ytr, Solver: solver}.Fit, xtr)
			mj := mustFit(t, ctx, IsoProjection{Dim: c - 1, K: 0, Labels: ytr, Between: SupervisedJoin}.Fit, xtr)
			lda += acc(ml.Projection())
			constant += acc(mc.Projection())
			join += acc(mj.Projection())
			cells++
		}
	}
	lda, constant, join = lda/float64(cells), constant/float64(cells), join/float64(cells)
	t.Logf("%s G2…G8 mean 1-NN at %d dimensions: LDA %.1f %%, IsoProjection constant %.1f %%, join %.1f %%", tag, c-1, lda, constant, join)
	if constant < lda {
		t.Errorf("IsoProjection (constant) %.1f %% below LDA %.1f %%", constant, lda)
	}
	if constant < join+5 {
		t.Errorf("IsoProjection (constant) %.1f %% not 5 points above the joined construction %.1f %%", constant, join)
	}
}
