package lanczos_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/internal/testmode"
	"github.com/manifoldlab/manifold/lanczos"
)

// spectrum families of the tests (n eigenvalues each).
func spectra(rnd *rand.Rand, n int) map[string][]float64 {
	out := map[string][]float64{}
	// Definite: uniform in [1, 100].
	l := make([]float64, n)
	for i := range l {
		l[i] = 1 + 99*rnd.Float64()
	}
	out["definite"] = l
	// Indefinite: standard normal, both ends matter.
	l = make([]float64, n)
	for i := range l {
		l[i] = rnd.NormFloat64()
	}
	out["indefinite"] = l
	// Clustered at both ends: 8 eigenvalues within 1e-4 of ±3, rest in
	// [−1, 1].
	l = make([]float64, n)
	for i := range l {
		switch {
		case i < 8:
			l[i] = 3 + 1e-5*float64(i)
		case i < 16:
			l[i] = -3 - 1e-5*float64(i-8)
		default:
			l[i] = 2*rnd.Float64() - 1
		}
	}
	out["clustered"] = l
	// Repeated: 5 (three times) and 4 (twice) at the top, −5 (three times)
	// at the bottom, the rest in [−2, 2].
	l = make([]float64, n)
	for i := range l {
		switch {
		case i < 3:
			l[i] = 5
		case i < 5:
			l[i] = 4
		case i < 8:
			l[i] = -5
		default:
			l[i] = 4*rnd.Float64() - 2
		}
	}
	out["repeated"] = l
	return out
}

// operators wraps a fully stored symmetric matrix as every kind of operator
// the solver takes.
func operators(a blas64.General) map[string]lanczos.Operator {
	n := a.Rows
	return map[string]lanczos.Operator{
		"SymOp":     backend.SymOp{A: sym(a)},
		"FullSymOp": backend.FullSymOp{A: a},
		"Func": lanczos.Func{N: n, Mul: func(dst, x []float64) {
			backend.GeneralOp{A: a}.MulVecTo(dst, x)
		}},
	}
}

// checkAgainstDense verifies a Result against the dense eigendecomposition
// (w ascending, z columns) of a: eigenvalues, residuals computed from the
// matrix, orthonormality, the sign convention and, where the eigenvalue is
// separated from the rest, the eigenvector itself.
func checkAgainstDense(t *testing.T, name string, a blas64.General, w []float64, z blas64.General, which lanczos.Which, res *lanczos.Result) {
	t.Helper()
	n, k := a.Rows, len(res.Values)
	anorm := norm2(a, w)
	if res.Status != lanczos.Converged || res.Converged != k {
		t.Fatalf("%s: status %v, %d of %d converged", name, res.Status, res.Converged, k)
	}
	if res.ANorm > anorm*(1+1e-12) || res.ANorm < 0.5*anorm {
		t.Errorf("%s: ANorm estimate %v, ‖A‖₂ = %v", name, res.ANorm, anorm)
	}
	slack := 4 * float64(n) * 0x1p-52 * anorm // rounding of the residual itself
	bound := res.Tol*anorm + slack
	tr := trueResiduals(a, res.Values, res.Vectors)
	for i := 0; i < k; i++ {
		ref := w[n-1-i]
		if which == lanczos.Smallest {
			ref = w[i]
		}
		if d := math.Abs(res.Values[i] - ref); d > bound {
			t.Errorf("%s: value %d = %.17g, dense %.17g (diff %.2e > %.2e)", name, i, res.Values[i], ref, d, bound)
		}
		if tr[i] > bound {
			t.Errorf("%s: residual %d = %.2e > Tol·‖A‖ = %.2e", name, i, tr[i], bound)
		}
		if math.Abs(tr[i]-res.Residuals[i]) > slack+1e-3*tr[i] {
			t.Errorf("%s: residual estimate %d = %.3e, computed %.3e", name, i, res.Residuals[i], tr[i])
		}
		// Sign convention: the largest-magnitude component is positive.
		big, arg := -1.0, 0
		for r := 0; r < n; r++ {
			if v := math.Abs(res.Vectors.Data[r*k+i]); v > big {
				big, arg = v, r
			}
		}
		if res.Vectors.Data[arg*k+i] < 0 {
			t.Errorf("%s: vector %d breaks the sign convention", name, i)
		}
		// Separated eigenvalue: compare the vector (both follow the sign
		// convention) within residual/gap.
		col := n - 1 - i
		if which == lanczos.Smallest {
			col = i
		}
		gap := math.Inf(1)
		if col > 0 {
			gap = w[col] - w[col-1]
		}
		if col < n-1 {
			gap = math.Min(gap, w[col+1]-w[col])
		}
		if gap > 1e-3*anorm {
			diff := 0.0
			for r := 0; r < n; r++ {
				d := res.Vectors.Data[r*k+i] - z.Data[r*n+col]
				diff += d * d
			}
			if e := math.Sqrt(diff); e > 4*bound/gap+1e-10 {
				t.Errorf("%s: vector %d differs from the dense one by %.2e (bound %.2e)", name, i, e, 4*bound/gap)
			}
		}
	}
	if e := orthoError(res.Vectors); e > 1e-12 {
		t.Errorf("%s: vectors not orthonormal: max |YᵀY − I| = %.2e", name, e)
	}
}

// Random symmetric matrices with known spectra (definite, indefinite,
// clustered, repeated), every operator kind, both ends, single vector and
// block: all must agree with the dense eigendecomposition.
func TestAgainstDense(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 2))
	n := 240
	if raceEnabled {
		n = 120
	}
	for _, family := range []string{"definite", "indefinite", "clustered", "repeated"} {
		lam := spectra(rnd, n)[family]
		a := withSpectrum(rnd, lam)
		w, z := denseEig(t, a)
		for opName, op := range operators(a) {
			for _, which := range []lanczos.Which{lanczos.Largest, lanczos.Smallest} {
				for _, b := range []int{1, 3, 4} {
					if family == "repeated" && b < 3 {
						// A single vector finds one copy of a repeated
						// eigenvalue (TestRepeatedSingleVector).
						continue
					}
					k := 5
					if family == "clustered" {
						k = 8
					}
					name := fmt.Sprintf("%s/%s/%v/b=%d", family, opName, which, b)
					res, err := lanczos.Solve(context.Background(), op, lanczos.Settings{K: k, Which: which, BlockSize: b, Seed: 3})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if res.Stats.BlockSize != b {
						t.Fatalf("%s: block size %d used", name, res.Stats.BlockSize)
					}
					checkAgainstDense(t, name, a, w, z, which, res)
				}
			}
		}
	}
}

// A looser tolerance must be met, and cost fewer products than the default.
func TestTolerance(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(5, 6))
	const n = 300
	a := withSpectrum(rnd, spectra(rnd, n)["indefinite"])
	w, z := denseEig(t, a)
	op := backend.FullSymOp{A: a}
	tight, err := lanczos.Solve(context.Background(), op, lanczos.Settings{K: 4})
	if err != nil {
		t.Fatal(err)
	}
	loose, err := lanczos.Solve(context.Background(), op, lanczos.Settings{K: 4, Tol: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if tight.Tol != lanczos.TolFloor || loose.Tol != 1e-6 {
		t.Fatalf("Tol applied: %v and %v", tight.Tol, loose.Tol)
	}
	checkAgainstDense(t, "tight", a, w, z, lanczos.Largest, tight)
	checkAgainstDense(t, "loose", a, w, z, lanczos.Largest, loose)
	if loose.Stats.MatVecs >= tight.Stats.MatVecs {
		t.Errorf("Tol 1e-6 took %d products, the floor %d", loose.Stats.MatVecs, tight.Stats.MatVecs)
	}
	// Below the floor is raised to it.
	res, err := lanczos.Solve(context.Background(), op, lanczos.Settings{K: 4, Tol: 1e-15})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tol != lanczos.TolFloor {
		t.Errorf("Tol 1e-15 applied as %v", res.Tol)
	}
}

// The 1-D discrete Laplacian tridiag(−1, 2, −1) of order n has the
// eigenvalues 2 − 2·cos(jπ/(n+1)) and the eigenvectors sin(ijπ/(n+1)): a
// closed form, through a user function.
func TestLaplacianClosedForm(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "a closed form at n = 500 (numerics, not concurrency)")
	const n = 500
	lap := lanczos.Func{N: n, Mul: func(dst, x []float64) {
		for i := range dst {
			v := 2 * x[i]
			if i > 0 {
				v -= x[i-1]
			}
			if i < n-1 {
				v -= x[i+1]
			}
			dst[i] = v
		}
	}}
	for _, which := range []lanczos.Which{lanczos.Largest, lanczos.Smallest} {
		res, err := lanczos.Solve(context.Background(), lap, lanczos.Settings{K: 3, Which: which, Tol: 1e-10, BasisSize: 120})
		if err != nil {
			t.Fatal(err)
		}
		for i, got := range res.Values {
			j := n - i // Largest: j = n, n−1, …
			if which == lanczos.Smallest {
				j = i + 1
			}
			want := 2 - 2*math.Cos(float64(j)*math.Pi/float64(n+1))
			// Eigenvalue error ≤ residual ≤ Tol·‖A‖ (‖A‖ < 4).
			if math.Abs(got-want) > 4e-10 {
				t.Errorf("%v %d: %.15g, want %.15g", which, i, got, want)
			}
			// The vector: ±sin(i·j·π/(n+1)) normalized.
			nrm := math.Sqrt(float64(n+1) / 2)
			dotv := 0.0
			for r := 0; r < n; r++ {
				dotv += res.Vectors.Data[r*res.Vectors.Stride+i] * math.Sin(float64((r+1)*j)*math.Pi/float64(n+1)) / nrm
			}
			gap := 2 * math.Pi * math.Pi / float64((n+1)*(n+1)) * float64(2*min(j, n+1-j)+1) / 2
			if 1-math.Abs(dotv) > math.Pow(4*4e-10/gap, 2)+1e-9 {
				t.Errorf("%v %d: |cos| to the exact vector = %.12f", which, i, math.Abs(dotv))
			}
		}
	}
}

// A single-vector Lanczos finds one copy of a repeated eigenvalue: what it
// returns is still made of eigenpairs (small residuals), and with a block
// as large as the multiplicity it finds them all.
func TestRepeatedSingleVector(t *testing.T) {
	rnd := rand.New(rand.NewPCG(9, 9))
	const n = 200
	a := withSpectrum(rnd, spectra(rnd, n)["repeated"])
	anorm := 5.0
	res, err := lanczos.Solve(context.Background(), backend.FullSymOp{A: a}, lanczos.Settings{K: 3, BlockSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range trueResiduals(a, res.Values, res.Vectors) {
		if r > res.Tol*anorm+1e-12 {
			t.Errorf("b=1: residual %d = %.2e", i, r)
		}
	}
	t.Logf("b=1 finds %v for the spectrum 5, 5, 5, 4, 4, …", res.Values)
	res, err = lanczos.Solve(context.Background(), backend.FullSymOp{A: a}, lanczos.Settings{K: 5, BlockSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{5, 5, 5, 4, 4}
	for i, v := range res.Values {
		if math.Abs(v-want[i]) > res.Tol*anorm+1e-12 {
			t.Errorf("b=3: value %d = %v, want %v", i, v, want[i])
		}
	}
}

// Shifted: the largest eigenpairs of σI − A are σ minus the smallest of A.
func TestShifted(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 12))
	const n = 150
	a := withSpectrum(rnd, spectra(rnd, n)["indefinite"])
	w, _ := denseEig(t, a)
	sigma := w[n-1] + 1
	for _, op := range []lanczos.Operator{
		lanczos.Shifted{Op: backend.SymOp{A: sym(a)}, Sigma: sigma},
		lanczos.Shifted{Op: lanczos.Func{N: n, Mul: backend.FullSymOp{A: a}.MulVecTo}, Sigma: sigma},
	} {
		for _, b := range []int{1, 2} {
			res, err := lanczos.Solve(context.Background(), op, lanczos.Settings{K: 3, BlockSize: b})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range res.Values {
				if d := math.Abs(sigma - v - w[i]); d > 1e-9 {
					t.Errorf("%T b=%d: σ − θ_%d = %v, λ_%d = %v", op.(lanczos.Shifted).Op, b, i, sigma-v, i, w[i])
				}
			}
		}
	}
}

// Equal seeds give bit-identical results; another seed or a Start vector
// gives the same eigenpairs within the tolerance.
func TestDeterministic(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(13, 14))
	n := 3000 // several column chunks in the parallel kernels
	if raceEnabled {
		n = 1100
	}
	lam := make([]float64, n)
	for i := range lam {
		lam[i] = float64(i%97) + rnd.Float64()
	}
	diag := lanczos.Func{N: n, Mul: func(dst, x []float64) {
		for i := range dst {
			dst[i] = lam[i] * x[i]
		}
	}}
	for _, b := range []int{1, 4} {
		s := lanczos.Settings{K: 4, BlockSize: b, Seed: 42, Tol: 1e-8}
		r1, err := lanczos.Solve(context.Background(), diag, s)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := lanczos.Solve(context.Background(), diag, s)
		if err != nil {
			t.Fatal(err)
		}
		for i := range r1.Values {
			if r1.Values[i] != r2.Values[i] {
				t.Fatalf("b=%d: value %d differs between equal seeds", b, i)
			}
		}
		for i := range r1.Vectors.Data {
			if r1.Vectors.Data[i] != r2.Vectors.Data[i] {
				t.Fatalf("b=%d: vectors differ between equal seeds", b)
			}
		}
		s.Seed = 43
		r3, err := lanczos.Solve(context.Background(), diag, s)
		if err != nil {
			t.Fatal(err)
		}
		for i := range r1.Values {
			if math.Abs(r1.Values[i]-r3.Values[i]) > 1e-6 {
				t.Errorf("b=%d: value %d: %v with seed 42, %v with 43", b, i, r1.Values[i], r3.Values[i])
			}
		}
	}
}

// A Start vector is used, and not modified.
func TestStart(t *testing.T) {
	rnd := rand.New(rand.NewPCG(15, 16))
	const n = 100
	a := withSpectrum(rnd, spectra(rnd, n)["definite"])
	w, z := denseEig(t, a)
	// Starting at the top eigenvector converges at once.
	start := make([]float64, n)
	for i := range start {
		start[i] = z.Data[i*n+n-1]
	}
	keep := append([]float64(nil), start...)
	res, err := lanczos.Solve(context.Background(), backend.FullSymOp{A: a}, lanczos.Settings{K: 1, Start: start, BasisSize: 40, BlockSize: 1, NoCopiesCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Values[0]-w[n-1]) > 1e-9 || res.Stats.MatVecs > 1 {
		t.Errorf("start at the eigenvector: %v (want %v) after %d products", res.Values[0], w[n-1], res.Stats.MatVecs)
	}
	for i := range start {
		if start[i] != keep[i] {
			t.Fatal("Start was modified")
		}
	}
}

// An operator with few distinct eigenvalues makes the Krylov space
// invariant after a few steps; the solver must continue with random
// directions and still find the wanted eigenpairs.
func TestInvariantSubspace(t *testing.T) {
	const n = 120
	for _, b := range []int{1, 2} {
		op := lanczos.Func{N: n, Mul: func(dst, x []float64) {
			for i := range dst {
				dst[i] = float64(i%3) * x[i] // eigenvalues 0, 1, 2, each n/3 times
			}
		}}
		res, err := lanczos.Solve(context.Background(), op, lanczos.Settings{K: 4, BlockSize: b})
		if err != nil {
			t.Fatal(err)
		}
		if res.Values[0] != 2 && math.Abs(res.Values[0]-2) > 1e-9 {
			t.Errorf("b=%d: top value %v, want 2", b, res.Values[0])
		}
		for i, v := range res.Values {
			// Each value must be an eigenvalue (0, 1 or 2) and its pair an
			// eigenpair.
			if d := math.Abs(v - math.Round(v)); d > 1e-9 || v < -1e-9 || v > 2+1e-9 {
				t.Errorf("b=%d: value %d = %v is no eigenvalue", b, i, v)
			}
		}
		if e := orthoError(res.Vectors); e > 1e-12 {
			t.Errorf("b=%d: vectors not orthonormal (%.2e)", b, e)
		}
	}
}

// Tiny operators (no room for a Krylov basis) are solved densely.
func TestSmall(t *testing.T) {
	rnd := rand.New(rand.NewPCG(17, 18))
	for _, n := range []int{2, 3, 5, 9} {
		lam := make([]float64, n)
		for i := range lam {
			lam[i] = rnd.NormFloat64()
		}
		a := withSpectrum(rnd, lam)
		w, z := denseEig(t, a)
		for _, which := range []lanczos.Which{lanczos.Largest, lanczos.Smallest} {
			res, err := lanczos.Solve(context.Background(), backend.FullSymOp{A: a}, lanczos.Settings{K: n - 1, Which: which})
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstDense(t, fmt.Sprintf("n=%d/%v", n, which), a, w, z, which, res)
		}
	}
}

func TestStats(t *testing.T) {
	rnd := rand.New(rand.NewPCG(19, 20))
	const n = 200
	a := withSpectrum(rnd, spectra(rnd, n)["indefinite"])
	res, err := lanczos.Solve(context.Background(), backend.FullSymOp{A: a}, lanczos.Settings{K: 3, BlockSize: 2, BasisSize: 20, NoCopiesCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	if st.MatVecs != 2*st.Iterations || st.Restarts == 0 || st.BasisSize != 20 {
		t.Errorf("stats %+v", st)
	}
	if st.Flam < float64(st.MatVecs)*n*n || st.Flam > 3*float64(st.MatVecs)*n*n {
		t.Errorf("flam %.3g for %d products of a %d×%d matrix", st.Flam, st.MatVecs, n, n)
	}
}

// Func.Flam and Shifted feed the flam count.
func TestFlamCount(t *testing.T) {
	const n = 400
	mul := func(dst, x []float64) {
		for i := range dst {
			dst[i] = float64(i%17) * x[i]
		}
	}
	for _, c := range []struct {
		name   string
		op     lanczos.Operator
		perVec float64
		dense  bool
	}{
		{"Func.Flam", lanczos.Func{N: n, Mul: mul, Flam: n}, n, false},
		{"Shifted", lanczos.Shifted{Op: lanczos.Func{N: n, Mul: mul, Flam: n}, Sigma: 20}, 2 * n, false},
		{"Func without Flam", lanczos.Func{N: n, Mul: mul}, n * n, true},
	} {
		res, err := lanczos.Solve(context.Background(), c.op, lanczos.Settings{K: 2, Tol: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		ops := float64(res.Stats.MatVecs) * c.perVec
		if res.Stats.Flam < ops || (!c.dense && res.Stats.Flam > ops+float64(res.Stats.MatVecs)*20*n*float64(res.Stats.BasisSize)) {
			t.Errorf("%s: flam %.3g for %d products of %.3g", c.name, res.Stats.Flam, res.Stats.MatVecs, c.perVec)
		}
	}
}

// Look sees the wanted Ritz values and residual estimates at every look at
// convergence: the first look's residuals are still above the tolerance,
// the last look's values and residuals are the Result's, and the looks are
// the same numbers with one thread and with several.
func TestLook(t *testing.T) {
	n := 3000 // several column chunks in the parallel kernels
	if raceEnabled {
		n = 1100
	}
	lam := make([]float64, n)
	for i := range lam {
		lam[i] = float64(i%97) + float64(i)/float64(n)
	}
	diag := lanczos.Func{N: n, Mul: func(dst, x []float64) {
		for i := range dst {
			dst[i] = lam[i] * x[i]
		}
	}}
	looks := func(procs int) ([][]float64, *lanczos.Result) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var seen [][]float64
		s := lanczos.Settings{K: 3, Seed: 7, Tol: 1e-9, Look: func(values, residuals []float64) {
			seen = append(seen, append(append([]float64(nil), values...), residuals...))
		}}
		res, err := lanczos.Solve(context.Background(), diag, s)
		if err != nil {
			t.Fatal(err)
		}
		return seen, res
	}
	one, res := looks(1)
	if len(one) < 2 {
		t.Fatalf("%d looks; a run of %d products should have several", len(one), res.Stats.MatVecs)
	}
	last := one[len(one)-1]
	for i, v := range res.Values {
		if last[i] != v || last[3+i] != res.Residuals[i] {
			t.Errorf("last look: value %d = %v, residual %v; the Result has %v, %v", i, last[i], last[3+i], v, res.Residuals[i])
		}
	}
	if first := one[0]; first[3+2] <= res.Tol*res.ANorm {
		t.Errorf("the first look's residual %g already meets the tolerance; the test would not see the iteration", first[5])
	}
	two, _ := looks(2)
	if len(two) != len(one) {
		t.Fatalf("%d looks with two threads, %d with one", len(two), len(one))
	}
	for l := range one {
		for i := range one[l] {
			if one[l][i] != two[l][i] {
				t.Fatalf("look %d, entry %d: %v with one thread, %v with two", l, i, one[l][i], two[l][i])
			}
		}
	}
}

// TestRepeatedEigenvalues: an eigenvalue repeated 2, 3 or 6 times at the
// wanted end, K = 2 or 3, single vectors and blocks of 2: the K values are
// the dense solver's (each copy found, a valid basis of the eigenspace) —
// before the copies check, a single-vector run returned one copy and then
// the next distinct eigenvalues, all "converged" (MDS of a square grid:
// the second copy of the top eigenvalue missed). Stats count the check.
func TestRepeatedEigenvalues(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(21, 22))
	const n = 150
	for _, mult := range []int{2, 3, 6} {
		for _, which := range []lanczos.Which{lanczos.Largest, lanczos.Smallest} {
			// The copies, then a few distinct values and zeros (a
			// low-rank matrix, as τ of points on a grid): the rest of the
			// Krylov space converges at once.
			lam := make([]float64, n)
			for i := 0; i < mult+3; i++ {
				lam[i] = []float64{1, 0.5, 0.25}[max(0, i-mult+3)%3]
				if i < mult {
					lam[i] = 3
				}
				if which == lanczos.Smallest {
					lam[i] = -lam[i]
				}
			}
			a := withSpectrum(rnd, lam)
			w, z := denseEig(t, a)
			for _, k := range []int{2, 3} {
				for _, b := range []int{1, 2} {
					name := fmt.Sprintf("×%d/%v/K=%d/b=%d", mult, which, k, b)
					res, err := lanczos.Solve(context.Background(), backend.FullSymOp{A: a}, lanczos.Settings{K: k, Which: which, BlockSize: b, Seed: 3})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					checkAgainstDense(t, name, a, w, z, which, res)
					if res.Stats.MatVecs == 0 {
						t.Errorf("%s: no products counted", name)
					}
				}
			}
		}
	}
}
