package backendtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/internal/testmode"
)

// spectrum is a named eigenvalue distribution for the eigensolver tests.
type spectrum struct {
	name string
	ev   func(rnd *rand.Rand, n int) []float64
}

var spectra = []spectrum{
	{"random", nil}, // a random symmetric matrix, not built from a spectrum
	{"indefinite", func(rnd *rand.Rand, n int) []float64 {
		ev := make([]float64, n)
		for i := range ev {
			ev[i] = rnd.Float64()*20 - 10
		}
		return ev
	}},
	{"clustered", func(_ *rand.Rand, n int) []float64 {
		ev := make([]float64, n)
		for i := range ev {
			ev[i] = 1 + 1e-10*float64(i)
		}
		if n > 2 {
			ev[n-1] = 5
		}
		return ev
	}},
	{"repeated", func(_ *rand.Rand, n int) []float64 {
		ev := make([]float64, n)
		for i := range ev {
			ev[i] = float64(i % 3)
		}
		return ev
	}},
	{"rank-deficient", func(rnd *rand.Rand, n int) []float64 {
		ev := make([]float64, n)
		for i := 0; i < min(3, n); i++ {
			ev[i] = rnd.Float64() + 1
		}
		return ev
	}},
	{"graded", func(_ *rand.Rand, n int) []float64 {
		ev := make([]float64, n)
		for i := range ev {
			ev[i] = math.Pow(10, -float64(i%16))
		}
		return ev
	}},
	{"identity", func(_ *rand.Rand, n int) []float64 {
		ev := make([]float64, n)
		for i := range ev {
			ev[i] = 1
		}
		return ev
	}},
	{"zero", func(_ *rand.Rand, n int) []float64 { return make([]float64, n) }},
	{"tiny", func(rnd *rand.Rand, n int) []float64 {
		ev := make([]float64, n)
		for i := range ev {
			ev[i] = 1e-150 * rnd.NormFloat64()
		}
		return ev
	}},
	{"huge", func(rnd *rand.Rand, n int) []float64 {
		ev := make([]float64, n)
		for i := range ev {
			ev[i] = 1e150 * rnd.NormFloat64()
		}
		return ev
	}},
}

var eigSizes = []int{0, 1, 2, 5, 31, 97}

// testMatrix returns a symmetric test matrix of spectrum sp, fully stored
// with NaN padding when pad > 0, its full copy and its norm.
func testMatrix(rnd *rand.Rand, sp spectrum, n, pad int) (blas64.Symmetric, []float64, float64) {
	var a blas64.Symmetric
	if sp.ev == nil {
		a = randomSym(rnd, n, n+pad)
	} else {
		a = symFromEig(rnd, sp.ev(rnd, n), n+pad)
	}
	full := symFull(a)
	return a, full, normFrob(full)
}

// checkEig checks eigenpairs: ascending values agreeing with the reference,
// residuals ‖Az − λz‖ ≤ c·n·ε·‖A‖ and orthonormal vectors.
func checkEig(t *testing.T, name string, full []float64, n int, anorm float64, w, ref []float64, z blas64.General) {
	t.Helper()
	tol := 50 * float64(max(1, n)) * eps * anorm
	for j := 1; j < len(w); j++ {
		if w[j] < w[j-1] {
			t.Errorf("%s: eigenvalues not ascending at %d: %v < %v", name, j, w[j], w[j-1])
			return
		}
	}
	for j := range ref {
		if math.Abs(w[j]-ref[j]) > tol {
			t.Errorf("%s: eigenvalue %d = %v, reference %v (tol %g)", name, j, w[j], ref[j], tol)
			return
		}
	}
	if z.Cols == 0 {
		return
	}
	if r := eigResidual(full, n, w, z); r > tol {
		t.Errorf("%s: residual ‖Az−λz‖ = %g > %g", name, r, tol)
	}
	// LAPACK's own test threshold: ‖ZᵀZ − I‖ ≤ 30·n·ulp (ulp = 2ε).
	if o := orthoError(z); o > 60*float64(max(1, n))*eps {
		t.Errorf("%s: ‖ZᵀZ−I‖ = %g", name, o)
	}
	if !paddingIntact(z) {
		t.Errorf("%s: padding of Z was written", name)
	}
}

// TestSyevd checks the full symmetric eigendecomposition on every spectrum,
// both triangles, with and without vectors.
func TestSyevd(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(10, 1))
	for _, sp := range spectra {
		for _, n := range eigSizes {
			// One matrix (and one Jacobi reference, the test's main cost) for
			// both triangles.
			a0, full, anorm := testMatrix(rnd, sp, n, n%3)
			ref := referenceEigenvalues(full, n)
			for _, uplo := range []blas.Uplo{blas.Lower, blas.Upper} {
				a := cloneSym(a0)
				a.Uplo = uplo
				spoilOtherTriangle(a)
				name := fmt.Sprintf("Syevd %s n=%d %c", sp.name, n, uplo)
				w := make([]float64, n)
				vals := cloneSym(a)
				if err := impl.Syevd(vals, w, false); err != nil {
					t.Errorf("%s (values only): %v", name, err)
					continue
				}
				checkEig(t, name+" values", full, n, anorm, w, ref, blas64.General{})
				if err := impl.Syevd(a, w, true); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				z := blas64.General{Rows: n, Cols: n, Stride: a.Stride, Data: a.Data}
				checkEig(t, name, full, n, anorm, w, ref, z)
			}
		}
	}
}

// TestSyevr checks eigenpairs by index range (bottom, top, middle, all,
// none) on every spectrum.
func TestSyevr(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(11, 1))
	for _, sp := range spectra {
		for _, n := range eigSizes {
			k := min(n, 4)
			ranges := [][2]int{{0, k}, {n - k, n}, {n / 3, n/3 + (n+2)/3}, {0, n}, {n / 2, n / 2}}
			// One matrix (and one Jacobi reference, the test's main cost) for
			// every range.
			a0, full, anorm := testMatrix(rnd, sp, n, 2)
			all := referenceEigenvalues(full, n)
			for ri, r := range ranges {
				uplo := blas.Lower
				if ri%2 == 1 {
					uplo = blas.Upper
				}
				lo, hi := r[0], r[1]
				a := cloneSym(a0)
				a.Uplo = uplo
				spoilOtherTriangle(a)
				ref := all[lo:hi]
				name := fmt.Sprintf("Syevr %s n=%d [%d,%d) %c", sp.name, n, lo, hi, uplo)
				w := make([]float64, hi-lo)
				z := general(rnd, n, hi-lo, hi-lo+1)
				if err := impl.Syevr(a, lo, hi, w, z); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkEig(t, name, full, n, anorm, w, ref, z)
			}
		}
	}
}

// TestSygvd checks the generalized problem A·x = λ·B·x: residuals,
// B-orthonormality, and ErrNotPositiveDefinite for an indefinite B.
func TestSygvd(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(12, 1))
	for _, n := range eigSizes {
		for _, uplo := range []blas.Uplo{blas.Lower, blas.Upper} {
			a := randomSym(rnd, n, n+1)
			a.Uplo = uplo
			m := general(rnd, n, n, n)
			b := blas64.Symmetric{N: n, Stride: n + 2, Uplo: uplo, Data: make([]float64, n*(n+2))}
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					s := 0.0
					for l := 0; l < n; l++ {
						s += at(m, l, i) * at(m, l, j)
					}
					if i == j {
						s += 1
					}
					b.Data[i*b.Stride+j] = s
				}
			}
			fa, fb := symFull(a), symFull(b)
			spoilOtherTriangle(a)
			spoilOtherTriangle(b)
			w := make([]float64, n)
			name := fmt.Sprintf("Sygvd n=%d %c", n, uplo)
			if err := impl.Sygvd(a, b, w); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			x := blas64.General{Rows: n, Cols: n, Stride: a.Stride, Data: a.Data}
			an, bn := normFrob(fa), normFrob(fb)
			worst, bortho := 0.0, 0.0
			for j := 0; j < n; j++ {
				xn := 0.0
				r := 0.0
				for i := 0; i < n; i++ {
					s := 0.0
					for l := 0; l < n; l++ {
						s += (fa[i*n+l] - w[j]*fb[i*n+l]) * at(x, l, j)
					}
					r += s * s
					xn += at(x, i, j) * at(x, i, j)
				}
				worst = max(worst, math.Sqrt(r)/((an+math.Abs(w[j])*bn)*math.Sqrt(xn)))
				for k := 0; k <= j; k++ {
					s := 0.0
					for i := 0; i < n; i++ {
						for l := 0; l < n; l++ {
							s += at(x, i, k) * fb[i*n+l] * at(x, l, j)
						}
					}
					if k == j {
						s--
					}
					bortho = max(bortho, math.Abs(s))
				}
			}
			if worst > 100*float64(max(1, n))*eps {
				t.Errorf("%s: relative residual %g", name, worst)
			}
			if bortho > 1e4*float64(max(1, n))*eps {
				t.Errorf("%s: ‖XᵀBX − I‖ = %g", name, bortho)
			}
			for j := 1; j < n; j++ {
				if w[j] < w[j-1] {
					t.Errorf("%s: eigenvalues not ascending", name)
					break
				}
			}
		}
	}
	// B indefinite.
	a := randomSym(rnd, 4, 4)
	b := randomSym(rnd, 4, 4)
	b.Data[0] = -10
	if err := impl.Sygvd(a, b, make([]float64, 4)); !errors.Is(err, backend.ErrNotPositiveDefinite) {
		t.Errorf("Sygvd with indefinite B: error %v, want ErrNotPositiveDefinite", err)
	}
}

// TestGesdd checks the thin SVD: reconstruction, orthonormal factors,
// descending values agreeing with the values-only call and with the square
// roots of the eigenvalues of AᵀA, rank-deficient input included.
func TestGesdd(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(13, 1))
	shapes := [][2]int{{0, 0}, {0, 4}, {4, 0}, {1, 1}, {5, 3}, {3, 5}, {40, 7}, {7, 40}, {90, 60}, {300, 20}}
	for _, sh := range shapes {
		for _, rankDef := range []bool{false, true} {
			m, n := sh[0], sh[1]
			k := min(m, n)
			a := general(rnd, m, n, n+1)
			if rankDef && k > 2 {
				// Make A rank 2.
				l := general(rnd, m, 2, 2)
				r := general(rnd, 2, n, n)
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						a.Data[i*a.Stride+j] = at(l, i, 0)*at(r, 0, j) + at(l, i, 1)*at(r, 1, j)
					}
				}
			}
			checkGesdd(t, impl, fmt.Sprintf("Gesdd %d×%d rankdef=%v", m, n, rankDef), a)
		}
	}
	// Sparse, structured columns (bandedColumns), tall and wide; not in the
	// quick tier (nor -short, the race run, whose subject is concurrency).
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range bandedTrials() {
		m, n := 400, 200
		if trial%2 == 1 {
			m = 250
		}
		a := bandedColumns(rng, m, n, trial)
		checkGesdd(t, impl, fmt.Sprintf("Gesdd %d×%d banded columns %d", m, n, trial), a)
		if trial%5 == 0 {
			checkGesdd(t, impl, fmt.Sprintf("Gesdd %d×%d banded rows %d", n, m, trial), transposed(a))
		}
	}
}

// checkGesdd checks the thin SVD of a (overwritten): reconstruction,
// orthonormal factors, descending values, the values-only call, and the
// values against the Gram matrix's eigenvalues.
func checkGesdd(t *testing.T, impl backend.Impl, name string, a blas64.General) {
	t.Helper()
	m, n := a.Rows, a.Cols
	k := min(m, n)
	rnd := rand.New(rand.NewPCG(uint64(m), uint64(n)))
	orig := cloneGeneral(a)
	s := make([]float64, k)
	u := general(rnd, m, k, k+2)
	vt := general(rnd, k, n, n+1)
	if err := impl.Gesdd(a, s, u, vt); err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	anorm := 0.0
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			anorm += at(orig, i, j) * at(orig, i, j)
		}
	}
	anorm = math.Sqrt(anorm)
	res := 0.0
	r := make([]float64, n) // row i of A − USVᵀ, a row of Vᵀ at a time
	for i := 0; i < m; i++ {
		copy(r, orig.Data[i*orig.Stride:i*orig.Stride+n])
		for l := 0; l < k; l++ {
			c := at(u, i, l) * s[l]
			for j, v := range vt.Data[l*vt.Stride : l*vt.Stride+n] {
				r[j] -= c * v
			}
		}
		for _, v := range r {
			res += v * v
		}
	}
	tol := 50 * float64(max(m, n, 1)) * eps
	if math.Sqrt(res) > tol*anorm {
		t.Errorf("%s: ‖A − USVᵀ‖ = %g > %g", name, math.Sqrt(res), tol*anorm)
	}
	if o := orthoError(u); o > tol {
		t.Errorf("%s: ‖UᵀU − I‖ = %g", name, o)
	}
	v := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
	for i := 0; i < k; i++ {
		for j := 0; j < n; j++ {
			v.Data[j*k+i] = at(vt, i, j)
		}
	}
	if o := orthoError(v); o > tol {
		t.Errorf("%s: ‖VᵀV − I‖ = %g", name, o)
	}
	if !paddingIntact(u) || !paddingIntact(vt) {
		t.Errorf("%s: padding of U or Vᵀ was written", name)
	}
	for j := 1; j < k; j++ {
		if s[j] > s[j-1] || s[j] < 0 {
			t.Errorf("%s: singular values not descending and ≥ 0: %v", name, s)
			break
		}
	}
	// Values only.
	s2 := make([]float64, k)
	if err := impl.Gesdd(cloneGeneral(orig), s2, blas64.General{}, blas64.General{}); err != nil {
		t.Errorf("%s values only: %v", name, err)
	}
	for j := 0; j < k; j++ {
		if math.Abs(s[j]-s2[j]) > tol*anorm {
			t.Errorf("%s: values-only σ%d = %v, with vectors %v", name, j, s2[j], s[j])
		}
	}
	// Reference: eigenvalues of the Gram matrix of the short side, by Jacobi.
	// Only up to 100 columns: above, the checks passed already bound every σ
	// closer than this one does (Weyl: |σⱼ(A) − sⱼ| ≤ ‖A − USVᵀ‖₂ with U and
	// V orthonormal to tol, here ≤ tol·‖A‖_F, far inside 1e-8·σ₀), and the
	// O(k³)-a-sweep reference took 9.8 of the Gesdd test's 23.5 s of CPU.
	if k > 100 {
		return
	}
	g := make([]float64, k*k)
	if m >= n {
		for l := 0; l < m; l++ { // Σ_l a_li a_lj, a row of A at a time
			row := orig.Data[l*orig.Stride : l*orig.Stride+n]
			for i, ai := range row {
				gi := g[i*k : i*k+k]
				for j, aj := range row {
					gi[j] += ai * aj
				}
			}
		}
	} else {
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				sum := 0.0
				for l := 0; l < n; l++ {
					sum += at(orig, i, l) * at(orig, j, l)
				}
				g[i*k+j] = sum
			}
		}
	}
	ref := referenceEigenvalues(g, k)
	for j := 0; j < k; j++ {
		want := math.Sqrt(max(0, ref[k-1-j]))
		if want > 1e-6*s[0] && math.Abs(s[j]-want) > 1e-8*s[0] {
			t.Errorf("%s: σ%d = %v, reference %v", name, j, s[j], want)
		}
	}
}

// TestCholesky checks Potrf/Potrs by the residual of a solve, both
// triangles, and ErrNotPositiveDefinite for an indefinite matrix.
func TestCholesky(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(14, 1))
	for _, n := range []int{0, 1, 3, 17, 80, 150} {
		for _, uplo := range []blas.Uplo{blas.Lower, blas.Upper} {
			ev := make([]float64, n)
			for i := range ev {
				ev[i] = 0.5 + rnd.Float64()*10
			}
			a := symFromEig(rnd, ev, n+1)
			a.Uplo = uplo
			full := symFull(a)
			spoilOtherTriangle(a)
			b := general(rnd, n, 3, 5)
			x := cloneGeneral(b)
			name := fmt.Sprintf("Cholesky n=%d %c", n, uplo)
			if err := impl.Potrf(a); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			impl.Potrs(a, x)
			res, bn := 0.0, 0.0
			for i := 0; i < n; i++ {
				for j := 0; j < 3; j++ {
					s := -at(b, i, j)
					for l := 0; l < n; l++ {
						s += full[i*n+l] * at(x, l, j)
					}
					res += s * s
					bn += at(b, i, j) * at(b, i, j)
				}
			}
			if math.Sqrt(res) > 1e3*float64(max(1, n))*eps*math.Sqrt(bn)*20 {
				t.Errorf("%s: ‖AX − B‖ = %g", name, math.Sqrt(res))
			}
			if !paddingIntact(x) {
				t.Errorf("%s: padding of X was written", name)
			}
		}
	}
	a := randomSym(rnd, 5, 5)
	a.Data[2*5+2] = -100
	if err := impl.Potrf(a); !errors.Is(err, backend.ErrNotPositiveDefinite) {
		t.Errorf("Potrf of an indefinite matrix: error %v, want ErrNotPositiveDefinite", err)
	}
}

// TestQR checks Geqrf and Orgqr: A = QR with orthonormal Q and upper R.
func TestQR(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(15, 1))
	for _, sh := range [][2]int{{0, 0}, {1, 1}, {5, 5}, {9, 4}, {4, 9}, {120, 30}, {200, 130}} {
		checkQR(t, impl, fmt.Sprintf("QR %d×%d", sh[0], sh[1]), general(rnd, sh[0], sh[1], sh[1]+1))
	}
	// Sparse, structured columns (bandedColumns); not in the quick tier.
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range bandedTrials() {
		checkQR(t, impl, fmt.Sprintf("QR 400×200 banded columns %d", trial), bandedColumns(rng, 400, 200, trial))
	}
}

// bandedTrials is the number of bandedColumns matrices a test runs: 30,
// none in the quick tier (the default and -short; MANIFOLD_TEST=full runs
// them: internal/testmode).
func bandedTrials() int {
	if testmode.Quick() {
		return 0
	}
	return 30
}

// checkQR checks Geqrf and Orgqr on a (overwritten): A = QR, QᵀQ = I.
func checkQR(t *testing.T, impl backend.Impl, name string, a blas64.General) {
	t.Helper()
	m, n := a.Rows, a.Cols
	k := min(m, n)
	orig := cloneGeneral(a)
	tau := make([]float64, k)
	impl.Geqrf(a, tau)
	// Q: the first k columns, from the reflectors.
	q := blas64.General{Rows: m, Cols: k, Stride: k + 1, Data: make([]float64, m*(k+1))}
	for i := 0; i < m; i++ {
		for j := 0; j < k; j++ {
			q.Data[i*q.Stride+j] = at(a, i, j)
		}
		q.Data[i*q.Stride+k] = sentinel
	}
	impl.Orgqr(q, tau)
	tol := 50 * float64(max(m, n, 1)) * eps
	if o := orthoError(q); o > tol {
		t.Errorf("%s: ‖QᵀQ − I‖ = %g", name, o)
	}
	res, an := 0.0, 0.0
	r := make([]float64, n) // row i of A − QR, a row of R at a time
	for i := 0; i < m; i++ {
		copy(r, orig.Data[i*orig.Stride:i*orig.Stride+n])
		for _, v := range r {
			an += v * v
		}
		for l := 0; l < k; l++ {
			c := at(q, i, l)
			for j := l; j < n; j++ {
				r[j] -= c * at(a, l, j)
			}
		}
		for _, v := range r {
			res += v * v
		}
	}
	if math.Sqrt(res) > tol*math.Sqrt(an) {
		t.Errorf("%s: ‖A − QR‖ = %g", name, math.Sqrt(res))
	}
	if !paddingIntact(q) || !paddingIntact(a) {
		t.Errorf("%s: padding written", name)
	}
}

// TestNotFinite checks that every LAPACK method reports NaN and Inf input
// with an error wrapping ErrNotFinite instead of a wrong answer.
func TestNotFinite(t *testing.T, impl backend.Impl) {
	rnd := rand.New(rand.NewPCG(16, 1))
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		n := 6
		sym := func() blas64.Symmetric {
			a := randomSym(rnd, n, n)
			a.Data[3*n+2] = bad
			a.Data[2*n+3] = bad
			return a
		}
		spd := func() blas64.Symmetric {
			a := symFromEig(rnd, []float64{1, 2, 3, 4, 5, 6}, n)
			return a
		}
		checks := map[string]error{
			"Syevd": impl.Syevd(sym(), make([]float64, n), true),
			"Syevr": impl.Syevr(sym(), 0, 2, make([]float64, 2), blas64.General{Rows: n, Cols: 2, Stride: 2, Data: make([]float64, 2*n)}),
			"Sygvd": impl.Sygvd(sym(), spd(), make([]float64, n)),
			"Potrf": impl.Potrf(sym()),
		}
		g := general(rnd, n, 4, 4)
		g.Data[5] = bad
		checks["Gesdd"] = impl.Gesdd(g, make([]float64, 4), blas64.General{}, blas64.General{})
		for name, err := range checks {
			if !errors.Is(err, backend.ErrNotFinite) {
				t.Errorf("%s with %v in the input: error %v, want ErrNotFinite", name, bad, err)
			}
		}
	}
}
