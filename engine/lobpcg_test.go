package engine_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/sparse"
)

// TestLLELOBPCGDigits: LLE's LOBPCG eigensolver against its certified
// shift-invert Lanczos on USPS digits, as they are and with 40 rows
// repeated (duplicates: weights by the regularization alone), with fewer
// landmarks than rows (1000 digits, 500 landmarks; at 2000 digits and the
// default 1000 landmarks the test took 26 s): the same eigenvalues, the
// same embedding, and a report that says what ran.
func TestLLELOBPCGDigits(t *testing.T) {
	testmode.Skip(t, "a real-data comparison (four fits of 1000 digits, two by the certified solver)")
	defer engine.SetLOBPCGLandmarks(500)()
	ctx := context.Background()
	plain := digitRows(t, 1000)
	dup := mat.DenseCopyOf(plain)
	_, d := dup.Dims()
	for i := 0; i < 40; i++ { // rows 960… repeat rows 0…
		dup.SetRow(960+i, plain.RawRowView(i)[:d])
	}
	for _, c := range []struct {
		name string
		x    *mat.Dense
	}{{"digits", plain}, {"duplicates", dup}} {
		t.Run(c.name, func(t *testing.T) {
			ref := engine.MustFit(t, ctx, engine.LLE{Dim: 2, K: 10, Options: engine.Options{Neighbors: engine.Neighbors{Search: engine.NeighborsExact}}}.Fit, c.x)
			lob := engine.MustFit(t, ctx, engine.LLE{Dim: 2, K: 10, Eigensolver: engine.EigenLOBPCG, Options: engine.Options{Neighbors: engine.Neighbors{Search: engine.NeighborsExact}}}.Fit, c.x)
			for j, v := range ref.Eigenvalues() {
				if w := lob.Eigenvalues()[j]; math.Abs(w-v) > 1e-9 {
					t.Errorf("eigenvalue %d: %.10g, certified %.10g", j, w, v)
				}
			}
			if dd := colsUpToSign(t, ref.Embedding(), lob.Embedding()); dd > 1e-4 {
				t.Errorf("embedding differs from the certified one by %.3g", dd)
			}
			var detail string
			for _, s := range lob.Report().Stages {
				if s.Name == "eigensolve" {
					detail = s.Detail
				}
			}
			for _, want := range []string{"lobpcg", "not certified", "locally linear landmarks"} {
				if !strings.Contains(detail, want) {
					t.Errorf("eigensolve detail %q lacks %q", detail, want)
				}
			}
		})
	}
}

// TestLLELOBPCGDeterministic: the same bits at GOMAXPROCS 1, 2 and 8.
func TestLLELOBPCGDeterministic(t *testing.T) {
	ctx := context.Background()
	n, landmarks := 1000, 300 // 1500 points and the default 1000 landmarks: 12.7 s for the three fits
	if testmode.Quick() {     // -race: 120 landmarks of 400 points, the same parallel paths
		n, landmarks = 400, 120
	}
	defer engine.SetLOBPCGLandmarks(landmarks)()
	x := digitRows(t, n)
	fit := func() *mat.Dense {
		return engine.MustFit(t, ctx, engine.LLE{Eigensolver: engine.EigenLOBPCG, Seed: 3}.Fit, x).Embedding()
	}
	sameAtEveryProcs(t, fit)
}

// TestLTSALOBPCGDigits: LTSA's LOBPCG eigensolver against its certified
// shift-invert Lanczos on 1000 USPS digits (500 landmarks; at 2000 digits
// and the default 1000 the test took 32 s). With k = 40 the alignment
// matrix's null space is the constant's alone: the same eigenvalues and
// embedding. With k = 10 it is larger (the certified path counts 10 null
// eigenvalues): both return null vectors, and LOBPCG's report says that
// the null space has at least dim + 1 dimensions.
func TestLTSALOBPCGDigits(t *testing.T) {
	testmode.Skip(t, "a real-data comparison (four fits, two by the certified solver)")
	defer engine.SetLOBPCGLandmarks(500)()
	ctx := context.Background()
	x := digitRows(t, 1000)
	exact := engine.Options{Neighbors: engine.Neighbors{Search: engine.NeighborsExact}}
	ref := engine.MustFit(t, ctx, engine.LTSA{Dim: 2, K: 40, Options: exact}.Fit, x)
	lob := engine.MustFit(t, ctx, engine.LTSA{Dim: 2, K: 40, Eigensolver: engine.EigenLOBPCG, Options: exact}.Fit, x)
	for j, v := range ref.Eigenvalues() {
		if w := lob.Eigenvalues()[j]; math.Abs(w-v) > 1e-9 {
			t.Errorf("k = 40, eigenvalue %d: %.10g, certified %.10g", j, w, v)
		}
	}
	if dd := colsUpToSign(t, ref.Embedding(), lob.Embedding()); dd > 1e-6 {
		t.Errorf("k = 40: embedding differs from the certified one by %.3g", dd)
	}
	if got := lob.Report().Params["nullity"]; got != 1 {
		t.Errorf("k = 40: nullity %v, want 1", got)
	}
	detail := func(m *engine.LTSAModel) string {
		for _, s := range m.Report().Stages {
			if s.Name == "eigensolve" {
				return s.Detail
			}
		}
		return ""
	}
	for _, want := range []string{"lobpcg on the alignment matrix B", "not certified", "locally linear landmarks"} {
		if d := detail(lob); !strings.Contains(d, want) {
			t.Errorf("eigensolve detail %q lacks %q", d, want)
		}
	}

	ref = engine.MustFit(t, ctx, engine.LTSA{Dim: 2, K: 10, Options: exact}.Fit, x)
	lob = engine.MustFit(t, ctx, engine.LTSA{Dim: 2, K: 10, Eigensolver: engine.EigenLOBPCG, Options: exact}.Fit, x)
	if got := ref.Report().Params["nullity"]; got != 10 {
		t.Errorf("k = 10: certified nullity %v, want 10", got)
	}
	for j, v := range lob.Eigenvalues() {
		if math.Abs(v) > 1e-12 {
			t.Errorf("k = 10: LOBPCG eigenvalue %d is %.3g, want a null one", j, v)
		}
	}
	if got, d := lob.Report().Params["nullity"], detail(lob); got != 3 || !strings.Contains(d, "null space of dimension at least 3") {
		t.Errorf("k = 10: nullity %v, detail %q: want at least 3", got, d)
	}
}

// sameAtEveryProcs fails t unless fit gives the same embedding, bit for
// bit, at GOMAXPROCS 1, 2 and 8.
func sameAtEveryProcs(t *testing.T, fit func() *mat.Dense) {
	t.Helper()
	var y1 *mat.Dense
	withProcs(1, 1, func() { y1 = fit() })
	for _, p := range []int{2, 8} {
		withProcs(p, 1, func() {
			if y := fit(); !mat.Equal(y, y1) {
				t.Errorf("GOMAXPROCS %d: embedding %.3g from GOMAXPROCS 1", p, maxAbsDiff(y, y1))
			}
		})
	}
}

// TestLTSALOBPCGDeterministic: the same bits at GOMAXPROCS 1, 2 and 8.
func TestLTSALOBPCGDeterministic(t *testing.T) {
	ctx := context.Background()
	n, landmarks, k := 1000, 300, 40 // 1500 points and the default 1000 landmarks: 55 s of CPU for the three fits
	if testmode.Quick() {            // -race: 120 landmarks of 400 points, the same parallel paths
		n, landmarks, k = 400, 120, 15
	}
	defer engine.SetLOBPCGLandmarks(landmarks)()
	x := digitRows(t, n)
	fit := func() *mat.Dense {
		s := engine.LTSA{Dim: 2, K: k, Eigensolver: engine.EigenLOBPCG, Options: engine.Options{Neighbors: engine.Neighbors{Search: engine.NeighborsExact}}}
		return engine.MustFit(t, ctx, s.Fit, x).Embedding()
	}
	sameAtEveryProcs(t, fit)
}

// TestLOBPCGOnlyLLEAndLTSA: the other bottom eigenproblems refuse the
// setting, and LTSA refuses it on sparse rows.
func TestLOBPCGOnlyLLEAndLTSA(t *testing.T) {
	ctx := context.Background()
	x := digitRows(t, 300)
	if _, err := (engine.LaplacianEigenmaps{Eigensolver: engine.EigenLOBPCG}).Fit(ctx, x); !errors.Is(err, engine.ErrBadSetting) {
		t.Errorf("Laplacian eigenmaps with lobpcg: %v, want ErrBadSetting", err)
	}
	_, err := (engine.LTSA{Eigensolver: engine.EigenLOBPCG}).Fit(ctx, sparse.FromDense(x))
	if !errors.Is(err, engine.ErrBadSetting) || !strings.Contains(err.Error(), "dense rows") {
		t.Errorf("LTSA with lobpcg on sparse rows: %v, want ErrBadSetting naming dense rows", err)
	}
}

// TestLLELOBPCGCancel: cancelled during its iterations, the fit returns
// within 100 ms.
func TestLLELOBPCGCancel(t *testing.T) {
	n := 4000
	if testmode.Quick() { // -race: the stages before the eigensolve took 13 s at 4000
		n = 2000
	}
	x := digitRows(t, n)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var at time.Time
	s := engine.LLE{Eigensolver: engine.EigenLOBPCG}
	s.Progress = func(p engine.Progress) {
		if p.Stage == "eigensolve" && at.IsZero() {
			at = time.Now()
			go func() { time.Sleep(30 * time.Millisecond); cancel() }()
		}
	}
	_, err := s.Fit(ctx, x)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if late := time.Since(at) - 30*time.Millisecond; late > 100*time.Millisecond {
		t.Errorf("returned %v after the cancel", late)
	}
}
