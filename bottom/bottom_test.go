package bottom_test

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/bottom"
	"github.com/manifoldlab/manifold/sparse"
)

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
func TestCertifiedKnownSpectrum(t *testing.T) {
	for _, tc := range []struct {
		r, copies, dim, nullity int
	}{{24, 1, 5, 1}, {12, 3, 8, 3}} {
		b, eig := gridSpectrum(tc.r, tc.copies)
		n, _ := b.Dims()
		res, _, err := bottom.Certified(context.Background(), b, unitConstant(n), tc.dim, bottom.Options{Seed: 1})
		if err != nil {
			t.Fatalf("%d×%d grid ×%d: %v", tc.r, tc.r, tc.copies, err)
		}
		want := eig[1:] // the constant vector's 0 taken out
		for j := 0; j < tc.dim; j++ {
			if math.Abs(res.Values[j]-want[j]) > 1e-10 {
				t.Errorf("%d×%d grid ×%d: eigenvalue %d = %.12g, closed form %.12g", tc.r, tc.r, tc.copies, j, res.Values[j], want[j])
			}
		}
		if res.Nullity != tc.nullity {
			t.Errorf("%d×%d grid ×%d: nullity %d, want %d", tc.r, tc.r, tc.copies, res.Nullity, tc.nullity)
		}
		t.Logf("%d×%d grid ×%d: eigenvalues %.6g (closed form %.6g), nullity %d", tc.r, tc.r, tc.copies, res.Values, want[:tc.dim], res.Nullity)
	}
}

// Tiny problems through the certified path: every size from dim + 3 up,
// blocks of 1 and 2 leave room for a Lanczos basis (no ErrSettings).
func TestCertifiedTiny(t *testing.T) {
	for r := 2; r <= 5; r++ {
		b, eig := gridSpectrum(r, 1)
		n, _ := b.Dims()
		for dim := 1; dim+3 <= n && dim <= 6; dim++ {
			res, _, err := bottom.Certified(context.Background(), b, unitConstant(n), dim, bottom.Options{Seed: 1})
			if err != nil {
				t.Fatalf("%d×%d grid, dim %d: %v", r, r, dim, err)
			}
			for j := 0; j < dim; j++ {
				if math.Abs(res.Values[j]-eig[j+1]) > 1e-10 {
					t.Errorf("%d×%d grid, dim %d: eigenvalue %d = %g, closed form %g", r, r, dim, j, res.Values[j], eig[j+1])
				}
			}
		}
	}
}

// unitConstant returns the unit constant vector of length n.
func unitConstant(n int) []float64 {
	u := make([]float64, n)
	for i := range u {
		u[i] = 1 / math.Sqrt(float64(n))
	}
	return u
}

// The certificate factored beside the first round's Lanczos run (the
// speculation) changes nothing but when the factorization runs, on the
// grids with double eigenvalues and with a null space of dimension 3
// (where it may be dropped): the same bits with it and without it.
func TestSpeculationSameBits(t *testing.T) {
	for _, g := range []struct{ r, copies, dim int }{{24, 1, 5}, {12, 3, 8}} {
		b, _ := gridSpectrum(g.r, g.copies)
		n, _ := b.Dims()
		solve := func(off bool) (*bottom.Result, bottom.Info) {
			res, info, err := bottom.Certified(context.Background(), b, unitConstant(n), g.dim, bottom.Options{Seed: 1, NoSpeculation: off})
			if err != nil {
				t.Fatalf("%d×%d grid ×%d (speculation off: %v): %v", g.r, g.r, g.copies, off, err)
			}
			return res, info
		}
		with, info := solve(false)
		without, plain := solve(true)
		if strings.Contains(plain.Detail, "beside") {
			t.Errorf("the detail says the speculation certified with it switched off: %s", plain.Detail)
		}
		for p := range with.Vectors.Data {
			if with.Vectors.Data[p] != without.Vectors.Data[p] {
				t.Fatalf("%d×%d grid ×%d: the eigenvectors differ at %d with and without the speculation", g.r, g.r, g.copies, p)
			}
		}
		for j := range with.Values {
			if with.Values[j] != without.Values[j] || with.Nullity != without.Nullity {
				t.Fatalf("%d×%d grid ×%d: eigenvalue %d %v (nullity %d) with the speculation, %v (%d) without", g.r, g.r, g.copies, j, with.Values[j], with.Nullity, without.Values[j], without.Nullity)
			}
		}
		if !with.Certified {
			t.Errorf("%d×%d grid ×%d: not marked certified", g.r, g.r, g.copies)
		}
		t.Logf("%d×%d grid ×%d: %s", g.r, g.r, g.copies, info.Detail)
	}
}

// Operator (Lanczos on B alone) and Dense find the closed-form eigenvalues
// of a grid's Laplacian too; neither is certified.
func TestOperatorAndDense(t *testing.T) {
	b, eig := gridSpectrum(16, 1)
	n, _ := b.Dims()
	op, info, err := bottom.Operator(context.Background(), b, unitConstant(n), 4, bottom.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	dense, err := bottom.Dense(context.Background(), b, unitConstant(n), 4)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 4; j++ {
		for _, r := range []*bottom.Result{op, dense} {
			if math.Abs(r.Values[j]-eig[j+1]) > 1e-8 {
				t.Errorf("eigenvalue %d: %v, closed form %v", j, r.Values[j], eig[j+1])
			}
		}
	}
	if op.Certified || dense.Certified || op.Nullity != 1 || dense.Nullity != 1 {
		t.Errorf("certified %v, %v; nullity %d, %d (want 1)", op.Certified, dense.Certified, op.Nullity, dense.Nullity)
	}
	if !strings.Contains(info.Detail, "not certified") {
		t.Errorf("detail %q does not say it is not certified", info.Detail)
	}
}

// A budget too small for the factor, or for Operator's basis, gives a
// *LimitError saying which; a factor bound too low for the certificate
// says it cannot certify.
func TestLimits(t *testing.T) {
	b, _ := gridSpectrum(30, 1)
	n, _ := b.Dims()
	u := unitConstant(n)
	ctx := context.Background()
	var le *bottom.LimitError
	if _, _, err := bottom.Certified(ctx, b, u, 2, bottom.Options{MaxBytes: 1 << 10}); !errors.As(err, &le) || !le.Budget || !le.CannotCertify {
		t.Errorf("certified, 1 KiB: %v, want a LimitError of the budget that cannot certify", err)
	}
	if _, _, err := bottom.Certified(ctx, b, u, 2, bottom.Options{MaxFactorFlam: 10}); !errors.As(err, &le) || le.Budget || !le.CannotCertify {
		t.Errorf("certified, 10 flam: %v, want a LimitError that cannot certify", err)
	}
	if _, _, err := bottom.Operator(ctx, b, u, 2, bottom.Options{MaxBytes: 1 << 10}); !errors.As(err, &le) || !le.Budget || le.CannotCertify {
		t.Errorf("operator, 1 KiB: %v, want a LimitError of the budget", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := bottom.Certified(cctx, b, u, 2, bottom.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// The same seed gives the same bits on 1 and 4 goroutines (the
// speculation and the refinement run on goroutines of their own).
func TestCertifiedThreads(t *testing.T) {
	b, _ := gridSpectrum(20, 2)
	n, _ := b.Dims()
	var first []float64
	for _, procs := range []int{1, 4} {
		prev := runtime.GOMAXPROCS(procs)
		res, _, err := bottom.Certified(context.Background(), b, unitConstant(n), 4, bottom.Options{Seed: 7})
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res.Vectors.Data
		} else if !slices.Equal(first, res.Vectors.Data) {
			t.Errorf("the eigenvectors on %d goroutines differ from those on 1", procs)
		}
	}
}

// Generalized on a grid's Laplacian a with b = c·I: the eigenvalues of a
// divided by c, and vectors with yᵀ·b·y = I.
func TestGeneralized(t *testing.T) {
	lap, eig := gridSpectrum(6, 1)
	n, _ := lap.Dims()
	const c = 2.5
	a := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	b := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	ptr, ind, val := lap.RowPtr(), lap.ColIdx(), lap.Values()
	for i := 0; i < n; i++ {
		for p := ptr[i]; p < ptr[i+1]; p++ {
			a.Data[i*n+ind[p]] = val[p]
		}
		b.Data[i*n+i] = c
	}
	res, err := bottom.Generalized(context.Background(), a, b, 3)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 3; j++ {
		if math.Abs(res.Values[j]-eig[j+1]/c) > 1e-12 {
			t.Errorf("eigenvalue %d: %v, want %v", j, res.Values[j], eig[j+1]/c)
		}
		for k := 0; k < 3; k++ {
			s := 0.0
			for i := 0; i < n; i++ {
				s += c * res.Vectors.Data[i*3+j] * res.Vectors.Data[i*3+k]
			}
			want := 0.0
			if j == k {
				want = 1
			}
			if math.Abs(s-want) > 1e-12 {
				t.Errorf("yᵀ·b·y[%d, %d] = %v", j, k, s)
			}
		}
	}
	for i := range b.Data {
		b.Data[i] = 0
	}
	if _, err := bottom.Generalized(context.Background(), a, b, 3); !errors.Is(err, backend.ErrNotPositiveDefinite) {
		t.Errorf("b = 0: %v, want ErrNotPositiveDefinite", err)
	}
}
