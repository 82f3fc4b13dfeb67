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
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/bottom"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/internal/dense"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// captured is what a fit handed to bottomSparse.
type captured struct {
	b   *sparse.CSR
	u   []float64
	res *bottom.Result
}

// captureBottom runs fit with testHookBottom set and returns what
// bottomSparse saw.
func captureBottom(t *testing.T, fit func() error) captured {
	t.Helper()
	var c captured
	testHookBottom = func(b *sparse.CSR, u []float64, res *bottom.Result) { c = captured{b, u, res} }
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
	dim := c.res.Vectors.Cols
	norm := bottom.Gershgorin(c.b)
	// Residuals and orthogonality to u.
	for j := 0; j < dim; j++ {
		v := column(c.res.Vectors, j)
		bv := make([]float64, n)
		c.b.MulVecTo(bv, v)
		r, dot, nv := 0.0, 0.0, 0.0
		for i := range v {
			d := bv[i] - c.res.Values[j]*v[i]
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
	sym := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: c.b.ToDense().RawMatrix().Data}
	w, z, err := backend.EigBottomCtx(context.Background(), backend.Active(), sym, kk)
	if err != nil {
		t.Fatal(err)
	}
	thr := bottom.NullRel * norm
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
		if math.Abs(c.res.Values[j]-wu[j]) > 1e-8*norm {
			t.Errorf("%s: eigenvalue %d = %.6g, dense %.6g (‖B‖ = %.3g)", name, j, c.res.Values[j], wu[j], norm)
		}
	}
	if c.res.Nullity != nullity {
		t.Errorf("%s: nullity %d, dense %d (threshold %.3g)", name, c.res.Nullity, nullity, thr)
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
	proj := dense.New(m, dim)
	backend.PureGo.Gemm(blas.Trans, blas.NoTrans, 1, zm, c.res.Vectors, 0, proj)
	// ‖v − Z·(Zᵀv)‖ directly (1 − ‖Zᵀv‖² would lose half the digits).
	back := dense.New(n, dim)
	backend.PureGo.Gemm(blas.NoTrans, blas.NoTrans, 1, zm, proj, 0, back)
	worst := 0.0
	for j := 0; j < dim; j++ {
		s := 0.0
		for i := 0; i < n; i++ {
			d := c.res.Vectors.Data[i*dim+j] - back.Data[i*dim+j]
			s += d * d
		}
		worst = max(worst, math.Sqrt(s))
	}
	angle := math.Asin(math.Min(1, worst)) * 180 / math.Pi
	t.Logf("%s: n = %d, nullity %d (solver %d), largest principal angle %.3g° to the dense subspace of %d vectors", name, n, nullity, c.res.Nullity, angle, m)
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
		if !c.res.Certified && !strings.Contains(tc.name, "dense") {
			t.Errorf("%s: not certified", tc.name)
		}
		nullity := checkAgainstDense(t, tc.name, c)
		if c.res.Nullity != nullity {
			t.Errorf("%s: nullity %d, dense %d", tc.name, c.res.Nullity, nullity)
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
		if n := checkAgainstDense(t, tc.name, c); n != 1 || c.res.Nullity != 1 {
			t.Errorf("%s: nullity %d (dense %d), want 1", tc.name, c.res.Nullity, n)
		}
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

// The certificate factored beside the first round's Lanczos run (the
// speculation) changes nothing but when the factorization runs: with it
// and without it the eigenpairs are the same bits, on the swiss-roll
// matrices of LTSA, LLE and Laplacian eigenmaps (where it certifies;
// package bottom's TestSpeculationSameBits checks the grids with repeated
// eigenvalues, where it may be dropped).
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
	dims := []int{2, 2, 2}
	besides := 0
	for i, m := range mats {
		b, u := m.b, m.u
		solve := func(off bool) (*bottom.Result, string) {
			defer func(v bool) { noSpeculation = v }(noSpeculation)
			noSpeculation = off
			res, detail, err := certified(ctx, b, u, dims[i])
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
		for j := range with.Values {
			if with.Values[j] != without.Values[j] {
				t.Errorf("matrix %d: eigenvalue %d is %v with the speculation, %v without", i, j, with.Values[j], without.Values[j])
			}
		}
		for p := range with.Vectors.Data {
			if with.Vectors.Data[p] != without.Vectors.Data[p] {
				t.Fatalf("matrix %d: the eigenvectors differ at %d with and without the speculation", i, p)
			}
		}
		if with.Nullity != without.Nullity {
			t.Errorf("matrix %d: nullity %d with the speculation, %d without", i, with.Nullity, without.Nullity)
		}
		t.Logf("matrix %d: %s", i, detail)
	}
	if besides < 3 {
		t.Errorf("the speculation certified %d of the %d swiss-roll matrices", besides, len(mats))
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
		res, detail, err := certified(ctx, c.b, c.u, 2)
		if err != nil {
			t.Fatal(err)
		}
		if res.Nullity < 2 {
			t.Fatalf("nullity %d: the case needs a null space beyond u", res.Nullity)
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

// certified is bottom.Certified with the engine's options of a run without
// a budget, seed 1 (noSpeculation as the test sets it); the stage detail.
func certified(ctx context.Context, b *sparse.CSR, u []float64, dim int) (*bottom.Result, string, error) {
	res, info, err := bottom.Certified(ctx, b, u, dim, bottomOptions(&run{opts: Options{}}, 1, nil, nil))
	return res, info.Detail, err
}

// column returns column j of g as a new slice.
func column(g blas64.General, j int) []float64 {
	out := make([]float64, g.Rows)
	for i := range out {
		out[i] = g.Data[i*g.Stride+j]
	}
	return out
}
