package engine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/internal/tangent"
	"github.com/manifoldlab/manifold/engine/neighbors"
)

// refTangentDistances is an independent TD for the tests: per point, the k
// nearest others by brute force, mat.SVD of their centred coordinates
// (D×k), and ‖(I − PPᵀ)(x_j − x_i)‖ by explicit projection, pair by pair.
func refTangentDistances(x *mat.Dense, k, t int) *mat.Dense {
	n, d := x.Dims()
	td := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		idx := make([]int, 0, n-1)
		for j := 0; j < n; j++ {
			if j != i {
				idx = append(idx, j)
			}
		}
		dist := func(j int) float64 { return mat.Norm(diffRow(x, i, j), 2) }
		sort.SliceStable(idx, func(a, b int) bool { return dist(idx[a]) < dist(idx[b]) })
		nbr := mat.NewDense(d, k, nil)
		for c, j := range idx[:k] {
			for a := 0; a < d; a++ {
				nbr.Set(a, c, x.At(j, a))
			}
		}
		for a := 0; a < d; a++ {
			m := 0.0
			for c := 0; c < k; c++ {
				m += nbr.At(a, c)
			}
			m /= float64(k)
			for c := 0; c < k; c++ {
				nbr.Set(a, c, nbr.At(a, c)-m)
			}
		}
		var svd mat.SVD
		svd.Factorize(nbr, mat.SVDThin)
		var u mat.Dense
		svd.UTo(&u)
		p := u.Slice(0, d, 0, t)
		for j := 0; j < n; j++ {
			r := diffRow(x, j, i)
			var c, pr mat.VecDense
			c.MulVec(p.T(), r)
			pr.MulVec(p, &c)
			pr.SubVec(r, &pr)
			td.Set(i, j, mat.Norm(&pr, 2))
		}
	}
	return td
}

// The blocked kernel equals the pair-by-pair definition (eq. 5), is at most
// the Euclidean distance, and the embedding is classical MDS of the
// symmetrized TD.
func TestTDPMAgainstReference(t *testing.T) {
	// D < k: the products path; D > k: the Gram path, and the products
	// path again when a memory budget leaves no room for the Gram matrix.
	for _, c := range []struct {
		d, k, tdim, dim int
		budget          int64
	}{
		{6, 8, 2, 3, 0}, {20, 8, 3, 3, 0}, {20, 8, 3, 3, 500000}, // 500000: above the estimate (480480 B), below it plus the Gram matrix
	} {
		ctx := context.Background()
		const n = 70
		x := curvedData(n, c.d, 11)
		m := mustFit(t, ctx, TDPM{Dim: c.dim, TangentDim: c.tdim, K: c.k, Eigensolver: EigenDense, Options: Options{MaxBytes: c.budget}}.Fit, x)
		rep := m.Report()
		path := rep.Params["distances"]
		if (c.d > c.k && c.budget == 0) != (path == "gram") {
			t.Errorf("D=%d k=%d budget %d: %v path", c.d, c.k, c.budget, path)
		}
		want := refTangentDistances(x, c.k, c.tdim)
		// TangentDistances recomputes TD by the products kernel; the fit's own
		// kernel (either path) is checked through the embedding below.
		td, err := m.TangentDistances(ctx)
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				e := mat.Norm(diffRow(x, i, j), 2)
				got := td.At(i, j)
				worst = math.Max(worst, math.Abs(got-want.At(i, j))/math.Max(e, 1e-300))
				if got > e*(1+1e-12) {
					t.Fatalf("TD(%d,%d) = %v > ‖x_i − x_j‖ = %v", i, j, got, e)
				}
			}
		}
		t.Logf("D=%d k=%d (%s path): largest |TD − reference| relative to the distance: %.3g", c.d, c.k, path, worst)
		if worst > 1e-6 {
			t.Errorf("D=%d: tangent distances differ from the pair-by-pair reference by %g of the distance", c.d, worst)
		}
		// The embedding is classical MDS of (TD + TDᵀ)/2 (mat.EigenSym).
		b := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v := 0.5 * (want.At(i, j) + want.At(j, i))
				b.SetSym(i, j, v*v)
			}
		}
		y, err := m.Transform(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(y, m.Embedding(), 1e-8*mat.Norm(m.Embedding(), math.Inf(1))) {
			t.Errorf("D=%d (%s path): Transform of the training points differs from the embedding", c.d, path)
		}
		ref := classicalMDSRef(t, b, c.dim)
		if disp := procrustes(t, ref, m.Embedding()); disp > 1e-10 {
			t.Errorf("D=%d (%s path): embedding differs from classical MDS of the symmetrized reference TD: disparity %g", c.d, path, disp)
		}
	}
}

// classicalMDSRef embeds the squared distances s (symmetric) by −½HSH and
// mat.EigenSym.
func classicalMDSRef(t testing.TB, s *mat.SymDense, dim int) *mat.Dense {
	n := s.SymmetricDim()
	vals, vecs := refEigen(t, refDoubleCentre(s))
	y := mat.NewDense(n, dim, nil)
	for c := 0; c < dim; c++ {
		col := n - 1 - c
		for i := 0; i < n; i++ {
			y.Set(i, c, vecs.At(i, col)*math.Sqrt(vals[col]))
		}
	}
	return y
}

// A circle's tangent distances are closed-form: with k even and the points
// evenly spaced, the local PCA line at x_i is the tangent there (by
// symmetry), TD(i,j) = R(1 − cos θ_ij) = chord²/2R, symmetric, and
// −½H(TD∘TD)H = R²(cos θ − ¼cos 2θ) on the circle: its top two eigenvectors
// are cos θ, sin θ with eigenvalue nR²/2, so the circle comes back as the
// circle of the same radius, exactly. Tilted into 3-D.
func TestTDPMCircle(t *testing.T) {
	const n, radius = 120, 3.0
	x := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		a := 2 * math.Pi * float64(i) / n
		u, v := radius*math.Cos(a), radius*math.Sin(a)
		x.SetRow(i, []float64{u*0.6 + 5, v, u * 0.8})
	}
	m := mustFit(t, context.Background(), TDPM{Dim: 2, TangentDim: 1, K: 4}.Fit, x)
	emb := m.Embedding()
	for i := 0; i < n; i++ {
		if r := math.Hypot(emb.At(i, 0), emb.At(i, 1)); math.Abs(r-radius) > 1e-9 {
			t.Fatalf("point %d at radius %v, want %v", i, r, radius)
		}
	}
	ref := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		a := 2 * math.Pi * float64(i) / n
		ref.SetRow(i, []float64{math.Cos(a), math.Sin(a)})
	}
	if d := procrustes(t, ref, emb); d > 1e-12 {
		t.Errorf("the circle does not come back as the circle: disparity %g", d)
	}
	if ev := m.Eigenvalues(); math.Abs(ev[0]-n*radius*radius/2) > 1e-8*ev[0] || math.Abs(ev[1]-ev[0]) > 1e-8*ev[0] {
		t.Errorf("eigenvalues %v, want nR²/2 = %v twice", ev, n*radius*radius/2)
	}
}

// Points on a plane in 3-D lie in every tangent plane: all tangent
// distances vanish (to rounding, √ε of the data's radius) and MDS has
// nothing to embed (ErrDimension).
func TestTDPMPlane(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const n = 200
	x := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		u, v := 4*rng.Float64(), 3*rng.Float64()
		x.SetRow(i, []float64{u + 0.5*v + 1, 0.3*u - v, 0.2*u + 0.7*v - 2})
	}
	_, err := TDPM{Dim: 2, K: 10}.Fit(context.Background(), x)
	if !errors.Is(err, ErrDimension) {
		t.Errorf("TDPM of a plane with 2-D tangent spaces: %v, want ErrDimension (all tangent distances 0)", err)
	}
	// With 1-D tangent spaces they do not vanish; check TD = 0 on the
	// tangent planes through the 2-D model's tangent spaces directly.
	m := mustFit(t, context.Background(), TDPM{Dim: 1, TangentDim: 1, K: 10}.Fit, x)
	p2 := TDPMModel{base: newBase(methodTDPM, tdpmParams{TangentDim: 2}), train: m.train}
	nb, _ := knnForTest(m.train, 10)
	p2.tangent, err = tangent.Spaces(context.Background(), m.train, nb, 2, blas64.General{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p2.anchor = tangent.Anchors(m.train, p2.tangent, 2)
	td, err := p2.TangentDistances(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	radius := tangent.Radius(m.train)
	if top := mat.Max(td); top > 1e-7*radius {
		t.Errorf("largest TD %g for points on the tangent planes (data radius %g)", top, radius)
	}
}

// Transform of the training points gives their embedding; Save and Load
// keep the model; new points land near their neighbours; errors are typed.
func TestTDPMTransformSaveErrors(t *testing.T) {
	ctx := context.Background()
	x, _ := datasets.SwissRoll(400, 0.05, 9)
	m := mustFit(t, ctx, TDPM{Dim: 2}.Fit, x)
	checkMapsTraining(t, m, x, 1e-7*mat.Norm(m.Embedding(), math.Inf(1)))
	xn, _ := datasets.SwissRoll(30, 0.05, 10)
	checkReloaded(t, m, xn)
	checkRefusals(t, TDPM.Fit, x, []refusal[TDPM]{
		{TDPM{K: 400}, ErrTooFewSamples},
		{TDPM{K: -1}, ErrBadSetting},
		{TDPM{TangentDim: 3}, ErrBadSetting},
		{TDPM{K: 2, TangentDim: 2}, ErrBadSetting},
		{TDPM{Dim: 400, TangentDim: 1}, ErrDimension},
		{TDPM{Eigensolver: "qr"}, ErrBadSetting},
		{TDPM{Options: Options{MaxBytes: 1 << 20}}, ErrMemoryBudget},
	})
	if _, err := m.Transform(ctx, mat.NewDense(1, 2, nil)); !errors.Is(err, ErrShape) {
		t.Errorf("2 features: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (TDPM{}).Fit(cctx, x); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func knnForTest(x blas64.General, k int) (*neighbors.Result, error) {
	return neighbors.KNN(context.Background(), toDense(x), k, neighbors.Options{})
}

// A sphere of radius R in 3-D with 2-D tangent spaces: TD(i,j) = R(1 − cos θ_ij)
// for exact tangent planes, and −½H(TD∘TD)H has the coordinates x, y, z as
// its top eigenvectors with eigenvalue nR²/3 (cos θ is the degree-1 spherical
// harmonic; the cos²θ term falls in degrees 0 and 2). With local-PCA
// tangent planes on 600 quasi-uniform (Fibonacci) points the sphere comes
// back as the sphere to 0.5 % in radius: TDPM keeps the fold that Isomap
// would flatten.
func TestTDPMSphere(t *testing.T) {
	const n, radius = 600, 2.0
	x := mat.NewDense(n, 3, nil)
	golden := math.Pi * (3 - math.Sqrt(5))
	for i := 0; i < n; i++ {
		z := 1 - 2*(float64(i)+0.5)/n
		r := math.Sqrt(1 - z*z)
		x.SetRow(i, []float64{radius * r * math.Cos(golden*float64(i)), radius * r * math.Sin(golden*float64(i)), radius * z})
	}
	m := mustFit(t, context.Background(), TDPM{Dim: 3, TangentDim: 2, K: 12}.Fit, x)
	y := m.Embedding()
	for i := 0; i < n; i++ {
		if e := math.Abs(mat.Norm(y.RowView(i), 2)-radius) / radius; e > 0.005 {
			t.Fatalf("point %d: radius off by %.3g", i, e)
		}
	}
	if d := procrustes(t, x, y); d > 1e-3 {
		t.Errorf("Procrustes disparity to the sphere %g", d)
	}
	for _, ev := range m.Eigenvalues() {
		if want := n * radius * radius / 3; math.Abs(ev-want) > 0.01*want {
			t.Errorf("eigenvalue %v, want nR²/3 = %v", ev, want)
		}
	}
}
