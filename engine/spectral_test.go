package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// captured is what a fit handed to bottomSparse.
type captured struct {
	b   *sparse.CSR
	u   []float64
	res *bottomResult
}

// captureBottom runs fit with testHookBottom set and returns what
// bottomSparse saw.
func captureBottom(t *testing.T, fit func() error) captured {
	t.Helper()
	var c captured
	testHookBottom = func(b *sparse.CSR, u []float64, res *bottomResult) { c = captured{b, u, res} }
	defer func() { testHookBottom = nil }()
	if err := fit(); err != nil {
		t.Fatal(err)
	}
	if c.b == nil {
		t.Fatal("bottomSparse was not called")
	}
	return c
}

// checkAgainstDense checks the result of bottomSparse against a dense
// eigendecomposition of B: every vector orthogonal to u with residual
// ≤ 1e-8·‖B‖, eigenvalues equal to the dense ones (u's zero taken out),
// and the returned span equal to the dense invariant subspace (largest
// principal angle ≤ 1e-6°) when the Dim-th eigenvalue is separated from
// the next; inside the null space when the null space is larger than Dim.
// It returns the nullity of the dense spectrum.
func checkAgainstDense(t *testing.T, name string, c captured) int {
	t.Helper()
	n, _ := c.b.Dims()
	dim := c.res.vecs.Cols
	norm := gershgorin(c.b)
	// Residuals and orthogonality to u.
	for j := 0; j < dim; j++ {
		v := column(c.res.vecs, j)
		bv := make([]float64, n)
		c.b.MulVecTo(bv, v)
		r, dot, nv := 0.0, 0.0, 0.0
		for i := range v {
			d := bv[i] - c.res.vals[j]*v[i]
			r += d * d
			dot += v[i] * c.u[i]
			nv += v[i] * v[i]
		}
		if math.Sqrt(r) > 1e-8*norm || math.Abs(dot) > 1e-10 || math.Abs(nv-1) > 1e-10 {
			t.Errorf("%s: vector %d: residual %.3g·‖B‖, uᵀv = %.3g, ‖v‖² − 1 = %.3g", name, j, math.Sqrt(r)/norm, dot, nv-1)
		}
	}
	// The dense spectrum.
	kk := min(n, dim+40)
	sym := denseSymmetric(c.b)
	w, z, err := backend.EigBottomCtx(context.Background(), backend.Active(), sym, kk)
	if err != nil {
		t.Fatal(err)
	}
	thr := nullRel * norm
	t.Logf("%s: dense spectrum/‖B‖ %.3g", name, func() []float64 {
		o := make([]float64, min(len(w), nullityPrint))
		for i := range o {
			o[i] = w[i] / norm
		}
		return o
	}())
	nullity := 0
	for _, l := range w {
		if l <= thr {
			nullity++
		}
	}
	// Dense eigenvalues on u's complement: drop the eigenvalue closest to 0.
	wu := append([]float64(nil), w[1:]...)
	for j := 0; j < dim; j++ {
		if math.Abs(c.res.vals[j]-wu[j]) > 1e-8*norm {
			t.Errorf("%s: eigenvalue %d = %.6g, dense %.6g (‖B‖ = %.3g)", name, j, c.res.vals[j], wu[j], norm)
		}
	}
	if c.res.nullity != nullity {
		t.Errorf("%s: nullity %d, dense %d (threshold %.3g)", name, c.res.nullity, nullity, thr)
	}
	// The dense subspace: the eigenvectors up to the dim-th on u's
	// complement and every one clustered with it (gaps below 1e-6·‖B‖,
	// where the dense reference itself is only accurate to about
	// ε·‖B‖/gap), or the whole null space.
	m := dim
	for m < len(wu)-1 && wu[m]-wu[m-1] < 1e-6*norm {
		m++
	}
	if m == len(wu)-1 {
		t.Fatalf("%s: no gap of 1e-6·‖B‖ in the %d smallest eigenvalues", name, len(w))
	}
	m++ // u's eigenvalue
	if nullity-1 >= dim {
		m = nullity // inside the null space
	}
	// Largest principal angle between span(V) and span(Z_m): ‖(I − Z Zᵀ)V‖.
	zm := blas64.General{Rows: n, Cols: m, Stride: z.Stride, Data: z.Data}
	proj := newGeneral(m, dim)
	backend.PureGo.Gemm(blas.Trans, blas.NoTrans, 1, zm, c.res.vecs, 0, proj)
	// ‖v − Z·(Zᵀv)‖ directly (1 − ‖Zᵀv‖² would lose half the digits).
	back := newGeneral(n, dim)
	backend.PureGo.Gemm(blas.NoTrans, blas.NoTrans, 1, zm, proj, 0, back)
	worst := 0.0
	for j := 0; j < dim; j++ {
		s := 0.0
		for i := 0; i < n; i++ {
			d := c.res.vecs.Data[i*dim+j] - back.Data[i*dim+j]
			s += d * d
		}
		worst = max(worst, math.Sqrt(s))
	}
	angle := math.Asin(math.Min(1, worst)) * 180 / math.Pi
	t.Logf("%s: n = %d, nullity %d (solver %d), largest principal angle %.3g° to the dense subspace of %d vectors", name, n, nullity, c.res.nullity, angle, m)
	if angle > 1e-6 {
		t.Errorf("%s: principal angle %.3g° > 1e-6°", name, angle)
	}
	return nullity
}

// LTSA, LLE and Laplacian eigenmaps on digit images through the certified
// shift-invert path, against dense eigendecompositions of their matrices.
// LTSA on 1000 digits with k = 8, dim = 5 has a null space of dimension 24,
// on 600 digits with k = 10 of dimension 9 (the wrong-answer case:
// shift-invert with one vector and a tolerance relative to 1/ε returned
// four null vectors and a Ritz value of 3.5e-3).
func TestCertifiedBottomDigits(t *testing.T) {
	testmode.Skip(t, "dense references on up to 2000 digits (TestCertifiedBottomSwissRoll runs the certified path under -race)")
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		n    int
		fit  func(x *mat.Dense) error
		minN int // the null space dimension the case must have
	}{
		{"ltsa k=8 dim=5", 1000, func(x *mat.Dense) error {
			_, err := LTSA{Dim: 5, K: 8, Eigensolver: EigenLanczos}.Fit(ctx, x)
			return err
		}, 10},
		{"ltsa k=8 dim=5 dense path", 500, func(x *mat.Dense) error {
			_, err := LTSA{Dim: 5, K: 8, Eigensolver: EigenDense}.Fit(ctx, x)
			return err
		}, 10},
		{"ltsa k=10 dim=5", 600, func(x *mat.Dense) error {
			_, err := LTSA{Dim: 5, K: 10, Eigensolver: EigenLanczos}.Fit(ctx, x)
			return err
		}, 2},
		{"ltsa k=12 dim=2", 800, func(x *mat.Dense) error {
			_, err := LTSA{Dim: 2, K: 12, Eigensolver: EigenLanczos}.Fit(ctx, x)
			return err
		}, 1},
		{"lle k=10 dim=4", 1000, func(x *mat.Dense) error {
			_, err := LLE{Dim: 4, K: 10, Eigensolver: EigenLanczos}.Fit(ctx, x)
			return err
		}, 1},
		{"laplacian binary k=10 dim=4", 1000, func(x *mat.Dense) error {
			_, err := LaplacianEigenmaps{Dim: 4, K: 10, Weight: WeightBinary, Eigensolver: EigenLanczos}.Fit(ctx, x)
			return err
		}, 1},
	} {
		if testmode.Quick() && tc.n > 600 {
			continue // -race: the two smallest cases only
		}
		x := digitRows(t, tc.n)
		c := captureBottom(t, func() error { return tc.fit(x) })
		if !c.res.certified && !strings.Contains(tc.name, "dense") {
			t.Errorf("%s: not certified", tc.name)
		}
		nullity := checkAgainstDense(t, tc.name, c)
		if c.res.nullity != nullity {
			t.Errorf("%s: nullity %d, dense %d", tc.name, c.res.nullity, nullity)
		}
		if nullity < tc.minN {
			t.Errorf("%s: dense nullity %d, the case needs at least %d", tc.name, nullity, tc.minN)
		}
	}
}

const nullityPrint = 30

// On a swiss roll (null space of dimension 1, eigenvalues separated) the
// certified path equals the dense one.
func TestCertifiedBottomSwissRoll(t *testing.T) {
	n := 1200
	if testmode.Quick() {
		n = 500 // -race
	}
	x, _ := datasets.SwissRoll(n, 0, 3)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		fit  func() error
	}{
		{"ltsa", func() error { _, err := LTSA{Dim: 2, K: 10, Eigensolver: EigenLanczos}.Fit(ctx, x); return err }},
		{"lle", func() error { _, err := LLE{Dim: 2, K: 10, Eigensolver: EigenLanczos}.Fit(ctx, x); return err }},
		{"laplacian heat", func() error {
			_, err := LaplacianEigenmaps{Dim: 2, K: 10, Eigensolver: EigenLanczos}.Fit(ctx, x)
			return err
		}},
	} {
		c := captureBottom(t, tc.fit)
		if n := checkAgainstDense(t, tc.name, c); n != 1 || c.res.nullity != 1 {
			t.Errorf("%s: nullity %d (dense %d), want 1", tc.name, c.res.nullity, n)
		}
	}
}

// gridSpectrum returns the Laplacian of the unweighted r×r grid, copies
// times over (disconnected), and its eigenvalues ascending:
// 4 − 2cos(πi/r) − 2cos(πj/r), each copies times (and twice when i ≠ j).
func gridSpectrum(r, copies int) (*sparse.CSR, []float64) {
	n1 := r * r
	n := n1 * copies
	coo := sparse.NewCOO(n, n, 5*n)
	edge := func(a, b int) {
		coo.Add(a, b, -1)
		coo.Add(b, a, -1)
		coo.Add(a, a, 1)
		coo.Add(b, b, 1)
	}
	var eig []float64
	for c := 0; c < copies; c++ {
		for i := 0; i < r; i++ {
			for j := 0; j < r; j++ {
				v := c*n1 + i*r + j
				if j+1 < r {
					edge(v, v+1)
				}
				if i+1 < r {
					edge(v, v+r)
				}
				eig = append(eig, 4-2*math.Cos(math.Pi*float64(i)/float64(r))-2*math.Cos(math.Pi*float64(j)/float64(r)))
			}
		}
	}
	sort.Float64s(eig)
	return coo.ToCSR(), eig
}

// The certified solver on known spectra with multiplicities: a square
// grid's Laplacian (double eigenvalues) and three disconnected copies of it
// (null space of dimension 3, every eigenvalue three or six times): the
// eigenvalues returned are the closed-form ones, copies included, and the
// nullity is counted.
func TestCertifiedBottomKnownSpectrum(t *testing.T) {
	for _, tc := range []struct {
		r, copies, dim, nullity int
	}{{24, 1, 5, 1}, {12, 3, 8, 3}} {
		b, eig := gridSpectrum(tc.r, tc.copies)
		n, _ := b.Dims()
		r := &run{opts: Options{}}
		res, _, _, _, err := certifiedBottom(context.Background(), r, b, unitConstant(n), tc.dim, 1, nil, nil)
		if err != nil {
			t.Fatalf("%d×%d grid ×%d: %v", tc.r, tc.r, tc.copies, err)
		}
		want := eig[1:] // the constant vector's 0 taken out
		for j := 0; j < tc.dim; j++ {
			if math.Abs(res.vals[j]-want[j]) > 1e-10 {
				t.Errorf("%d×%d grid ×%d: eigenvalue %d = %.12g, closed form %.12g", tc.r, tc.r, tc.copies, j, res.vals[j], want[j])
			}
		}
		if res.nullity != tc.nullity {
			t.Errorf("%d×%d grid ×%d: nullity %d, want %d", tc.r, tc.r, tc.copies, res.nullity, tc.nullity)
		}
		t.Logf("%d×%d grid ×%d: eigenvalues %.6g (closed form %.6g), nullity %d", tc.r, tc.r, tc.copies, res.vals, want[:tc.dim], res.nullity)
	}
}

// A degenerate problem is said out loud: the report's params and the
// model's Nullity give the null space's dimension (and how many null
// vectors the embedding dropped), the stage detail says what to do, and
// the model keeps saying it after Save and Load.
func TestNullityReported(t *testing.T) {
	x := digitRows(t, 600)
	m := mustFit(t, context.Background(), LTSA{Dim: 5, K: 10}.Fit, x)
	rep := m.Report()
	if m.Nullity() != 9 || rep.Params["nullity"] != 9 || rep.Params["null_dropped"] != 3 {
		t.Errorf("nullity %d, params %v: want 9, nullity 9, null_dropped 3", m.Nullity(), rep.Params)
	}
	st, _ := rep.Stage("eigensolve")
	if !strings.Contains(st.Detail, "not unique") || !strings.Contains(st.Detail, "more neighbours") {
		t.Errorf("eigensolve detail %q does not say the embedding is not unique", st.Detail)
	}
	loaded := reloaded(t, m)
	if got := loaded.(*LTSAModel).Nullity(); got != 9 {
		t.Errorf("loaded model: nullity %d, want 9", got)
	}
	// A well-posed problem: nullity 1, nothing dropped.
	sw, _ := datasets.SwissRoll(800, 0.05, 1)
	lm := mustFit(t, context.Background(), LLE{K: 10}.Fit, sw)
	if lm.Nullity() != 1 || lm.Report().Params["null_dropped"] != nil {
		t.Errorf("swiss roll LLE: nullity %d, params %v", lm.Nullity(), lm.Report().Params)
	}
}

// LTSA refuses more output dimensions than input features: the tangent
// spaces have at most D dimensions and B would be indefinite.
func TestLTSADimAboveFeatures(t *testing.T) {
	x, _ := datasets.SwissRoll(300, 0.05, 1) // D = 3
	_, err := LTSA{Dim: 4, K: 10}.Fit(context.Background(), x)
	if !errors.Is(err, ErrDimension) {
		t.Fatalf("dim 4 of 3 features: error %v, want ErrDimension", err)
	}
}

// Tiny problems through the certified path: every size from dim + 3 up,
// blocks of 1 and 2 leave room for a Lanczos basis (no ErrSettings).
func TestCertifiedBottomTiny(t *testing.T) {
	for r := 2; r <= 5; r++ {
		b, eig := gridSpectrum(r, 1)
		n, _ := b.Dims()
		for dim := 1; dim+3 <= n && dim <= 6; dim++ {
			res, _, _, _, err := certifiedBottom(context.Background(), &run{opts: Options{}}, b, unitConstant(n), dim, 1, nil, nil)
			if err != nil {
				t.Fatalf("%d×%d grid, dim %d: %v", r, r, dim, err)
			}
			for j := 0; j < dim; j++ {
				if math.Abs(res.vals[j]-eig[j+1]) > 1e-10 {
					t.Errorf("%d×%d grid, dim %d: eigenvalue %d = %g, closed form %g", r, r, dim, j, res.vals[j], eig[j+1])
				}
			}
		}
	}
}

// The certificate factored beside the first round's Lanczos run (the
// speculation) changes nothing but when the factorization runs: with it
// and without it the eigenpairs are the same bits, on swiss-roll matrices
// (where it certifies) and on the grids with repeated eigenvalues and a
// null space of dimension 3 (where it may be dropped).
func TestCertificateBesideLanczos(t *testing.T) {
	x, _ := datasets.SwissRoll(1500, 0, 3)
	ctx := context.Background()
	var mats []captured // b and its null vector u (D^½·1 for the normalized Laplacian)
	for _, fit := range []func() error{
		func() error { _, err := LTSA{Dim: 2, K: 10, Eigensolver: EigenLanczos}.Fit(ctx, x); return err },
		func() error { _, err := LLE{Dim: 2, K: 10, Eigensolver: EigenLanczos}.Fit(ctx, x); return err },
		func() error {
			_, err := LaplacianEigenmaps{Dim: 2, K: 10, Eigensolver: EigenLanczos}.Fit(ctx, x)
			return err
		},
	} {
		mats = append(mats, captureBottom(t, fit))
	}
	for _, g := range [][2]int{{24, 1}, {12, 3}} {
		b, _ := gridSpectrum(g[0], g[1])
		n, _ := b.Dims()
		mats = append(mats, captured{b: b, u: unitConstant(n)})
	}
	dims := []int{2, 2, 2, 5, 8}
	besides := 0
	for i, m := range mats {
		b, u := m.b, m.u
		solve := func(off bool) (*bottomResult, string) {
			defer func(v bool) { noSpeculation = v }(noSpeculation)
			noSpeculation = off
			res, detail, _, _, err := certifiedBottom(ctx, &run{opts: Options{}}, b, u, dims[i], 1, nil, nil)
			if err != nil {
				t.Fatalf("matrix %d (speculation off: %v): %v", i, off, err)
			}
			return res, detail
		}
		with, detail := solve(false)
		without, plain := solve(true)
		if strings.Contains(detail, "beside") {
			besides++
		}
		if strings.Contains(plain, "beside") {
			t.Errorf("matrix %d: the detail says the speculation certified with it switched off: %s", i, plain)
		}
		for j := range with.vals {
			if with.vals[j] != without.vals[j] {
				t.Errorf("matrix %d: eigenvalue %d is %v with the speculation, %v without", i, j, with.vals[j], without.vals[j])
			}
		}
		for p := range with.vecs.Data {
			if with.vecs.Data[p] != without.vecs.Data[p] {
				t.Fatalf("matrix %d: the eigenvectors differ at %d with and without the speculation", i, p)
			}
		}
		if with.nullity != without.nullity {
			t.Errorf("matrix %d: nullity %d with the speculation, %d without", i, with.nullity, without.nullity)
		}
		t.Logf("matrix %d: %s", i, detail)
	}
	if besides < 3 {
		t.Errorf("the speculation certified %d of the %d matrices; the three swiss-roll ones at least were expected", besides, len(mats))
	}
}

// With a null space beyond u (3000 USPS digits, LTSA: nullity 43) the first
// round's smallest Ritz value is null and no certificate is factored
// beside it: the count of eigenvalues would not match the pairs found by
// then, and the factorization would be wasted. The factorizations are as
// many as with the speculation switched off.
func TestNoSpeculationOnNullSpace(t *testing.T) {
	testmode.Skip(t, "a 3000-point LTSA (about 2 s)")
	x := digitRows(t, 3000)
	ctx := context.Background()
	c := captureBottom(t, func() error { _, err := LTSA{Dim: 2, K: 10, Eigensolver: EigenLanczos}.Fit(ctx, x); return err })
	factors := func(off bool) string {
		defer func(v bool) { noSpeculation = v }(noSpeculation)
		noSpeculation = off
		res, detail, _, _, err := certifiedBottom(ctx, &run{opts: Options{}}, c.b, c.u, 2, 1, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.nullity < 2 {
			t.Fatalf("nullity %d: the case needs a null space beyond u", res.nullity)
		}
		if strings.Contains(detail, "beside") {
			t.Errorf("speculation off: %v; the detail says the certificate ran beside the round: %s", off, detail)
		}
		i := strings.Index(detail, " factorizations")
		return detail[strings.LastIndex(detail[:i], " ")+1 : i]
	}
	if on, off := factors(false), factors(true); on != off {
		t.Errorf("%s factorizations with the speculation, %s without: one was wasted", on, off)
	}
}

// Laplacian eigenmaps orders its factor from the graph's pattern while it
// makes the weights and the matrix: the same embedding bit for bit as an
// analysis of the finished matrix, on a swiss roll (heat and binary
// weights) and on 2000 USPS digits (a graph of high-dimensional data);
// the stage detail says so.
func TestEarlyAnalysisSameEmbedding(t *testing.T) {
	roll, _ := datasets.SwissRoll(1500, 0, 5)
	type input struct {
		name string
		x    *mat.Dense
		s    LaplacianEigenmaps
	}
	inputs := []input{
		{"roll, heat", roll, LaplacianEigenmaps{Dim: 2, K: 10, Eigensolver: EigenLanczos}},
		{"roll, binary", roll, LaplacianEigenmaps{Dim: 3, K: 8, Weight: WeightConnectivity, Eigensolver: EigenLanczos}},
	}
	if !testmode.Quick() {
		if _, err := os.Stat(filepath.Join(sharedDataDir(), "usps9298")); err == nil {
			inputs = append(inputs, input{"2000 USPS digits", digitRows(t, 2000), LaplacianEigenmaps{Dim: 4, K: 10, Weight: WeightConnectivity, Eigensolver: EigenLanczos}})
		} else {
			t.Logf("USPS digits not available (%v): swiss rolls only", err)
		}
	}
	for _, in := range inputs {
		fit := func(off bool) *LaplacianModel {
			defer func(v bool) { noEarlyAnalysis = v }(noEarlyAnalysis)
			noEarlyAnalysis = off
			m, err := in.s.Fit(context.Background(), in.x)
			if err != nil {
				t.Fatalf("%s (early analysis off: %v): %v", in.name, off, err)
			}
			return m
		}
		early, late := fit(false), fit(true)
		detail := func(m *LaplacianModel) string {
			for _, st := range m.Report().Stages {
				if st.Name == "eigensolve" {
					return st.Detail
				}
			}
			return ""
		}
		if d := detail(early); !strings.Contains(d, "ordered while the matrix was made") {
			t.Errorf("%s: the detail does not say the ordering ran early: %s", in.name, d)
		}
		if d := detail(late); strings.Contains(d, "ordered while") {
			t.Errorf("%s: the detail says the ordering ran early with it switched off: %s", in.name, d)
		}
		if !slices.Equal(early.Embedding().RawMatrix().Data, late.Embedding().RawMatrix().Data) || !slices.Equal(early.Eigenvalues(), late.Eigenvalues()) {
			t.Errorf("%s: the embedding differs with and without the early analysis", in.name)
		}
		t.Logf("%s: %s", in.name, detail(early))
	}
}

// The early analysis (of g) is taken only for a matrix storing g's entries
// and the diagonal; another matrix is analysed itself, as without it.
// Either way it lets go of g, and stop ends the goroutine of one never used.
func TestEarlyAnalysisPattern(t *testing.T) {
	x, _ := datasets.SwissRoll(800, 0, 2)
	g, err := neighbors.Graph(context.Background(), x, neighbors.GraphOptions{K: 8})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := g.Dims()
	r := &run{ctx: context.Background(), method: "test"}
	limit, _ := factorEntryLimit(n, 0)
	same := sparse.Union(sparse.Identity(n), g, func(x, y float64) float64 { return x + y })
	// One entry more, or one diagonal entry fewer: not g + I.
	extra := sparse.NewCOO(n, n, 1)
	extra.Add(0, n-1, 1)
	extra.Add(n-1, 0, 1)
	holed := sparse.NewCOO(n, n, 0)
	ptr, ind := same.RowPtr(), same.ColIdx()
	for i := range n {
		for p := ptr[i]; p < ptr[i+1]; p++ {
			if !(i == 3 && ind[p] == 3) {
				holed.Add(i, ind[p], 1)
			}
		}
	}
	for _, c := range []struct {
		name  string
		b     *sparse.CSR
		ahead bool
	}{
		{"g + I", same, true},
		{"g without its diagonal", g, false},
		{"g + I and one more entry", sparse.Union(same, extra.ToCSR(), func(x, y float64) float64 { return x + y }), false},
		{"g + I less one pivot", holed.ToCSR(), false},
	} {
		e := startAnalysis(r, g)
		an, ahead, err := e.analysis(context.Background(), c.b, limit)
		e.stop()
		if err != nil || ahead != c.ahead {
			t.Fatalf("%s: early analysis taken %v, want %v (err %v)", c.name, ahead, c.ahead, err)
		}
		if early, _ := e.pending.Wait(); ahead && an != early {
			t.Fatalf("%s: not the early analysis", c.name)
		}
		// Either way, b's analysis.
		want, err := sparse.AnalyzeLDLWithin(context.Background(), c.b, sparse.OrderAuto, limit)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(an.Perm(), want.Perm()) || an.NNZ() != want.NNZ() {
			t.Errorf("%s: an analysis other than its own", c.name)
		}
		if e.g != nil {
			t.Errorf("%s: the early analysis still holds the graph", c.name)
		}
	}
	unused := startAnalysis(r, g)
	t0 := time.Now()
	unused.stop() // its goroutine's exit: TestEarlyAnalysisStoppedOnError
	t.Logf("stop of an unused early analysis: %v", time.Since(t0))
}

// A fit that fails after the early analysis started (a point whose every
// weight underflows to 0) has stopped it when it returns: no goroutine
// left (the analysis of this graph alone takes tens of milliseconds; a
// millisecond is allowed for the goroutine's exit after it said done).
func TestEarlyAnalysisStoppedOnError(t *testing.T) {
	x, _ := datasets.SwissRoll(20000, 0, 4)
	before := runtime.NumGoroutine()
	_, err := LaplacianEigenmaps{Dim: 2, K: 10, T: 1e-300, Eigensolver: EigenLanczos}.Fit(context.Background(), x)
	if !errors.Is(err, ErrNumerical) {
		t.Fatalf("err = %v, want ErrNumerical (a point without an edge of positive weight)", err)
	}
	for i := 0; runtime.NumGoroutine() > before && i < 10; i++ {
		time.Sleep(100 * time.Microsecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines after the failed fit, %d before", g, before)
	}
}

// A null space wider than the embedding is certified without finding all
// of it: when the inertia at the null threshold counts more eigenvalues
// than the embedding's below it, the locked null vectors are kept (the
// embedding is one basis of the null space either way, which
// TestCertifiedBottomDigits checks against the dense null space), and
// that one factorization is the certificate. LTSA of 1000 digits with
// k = 8 and dim = 2 has a null space of dimension 23.
func TestNullSpaceNotSearchedThrough(t *testing.T) {
	testmode.Skip(t, "1000 digits through the certified path")
	m, err := LTSA{Dim: 2, K: 8, Eigensolver: EigenLanczos}.Fit(context.Background(), digitRows(t, 1000))
	if err != nil {
		t.Fatal(err)
	}
	var detail string
	for _, s := range m.Report().Stages {
		if s.Name == "eigensolve" {
			detail = s.Detail
		}
	}
	var below, locked, solves, factors int
	if i := strings.Index(detail, "solves"); i < 0 || !strings.Contains(detail, "below the null threshold") || !strings.Contains(detail, "all null") {
		t.Fatalf("eigensolve detail %q: not the null space's early end", detail)
	}
	fmt.Sscanf(detail[strings.Index(detail, "inertia certificate: "):], "inertia certificate: %d eigenvalues", &below)
	fmt.Sscanf(detail[strings.Index(detail, "all null, ")+10:], "%d of them locked", &locked)
	fmt.Sscanf(detail[strings.Index(detail, "; ")+2:], "%d solves", &solves)
	fmt.Sscanf(detail[strings.Index(detail, "flam, ")+6:], "%d factorizations", &factors)
	t.Logf("nullity %d: %s", m.Nullity(), detail)
	if m.Nullity() != below || m.Nullity() < 10 || locked >= below || solves > 4*locked {
		t.Errorf("nullity %d, %d eigenvalues below the null threshold, %d locked, %d solves: %s", m.Nullity(), below, locked, solves, detail)
	}
	// One factorization to shift and invert, one at the null threshold
	// that certifies and counts the nullity at once.
	if factors != 2 {
		t.Errorf("%d factorizations, want 2: %s", factors, detail)
	}
}
