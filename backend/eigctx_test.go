package backend

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/internal/testmode"
)

func randSym(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := rng.NormFloat64()
			a[i*n+j], a[j*n+i] = v, v
		}
	}
	return a
}

// The cancellable solver, past directEig, gives the eigenpairs of an
// independent solver (refEig): the same values, vectors with residuals and
// orthogonality at working accuracy and the same signs, for both triangles
// and ranges at either end or inside the spectrum.
func TestEigRangeCtx(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, impl := range Impls() {
		t.Run(impl.Name(), func(t *testing.T) {
			n := 537
			if impl.Name() != "purego" {
				n = 937
			}
			a := randSym(n, 5)
			for _, c := range []struct {
				lo, hi int
				uplo   blas.Uplo
			}{{0, 3, blas.Upper}, {n - 4, n, blas.Lower}, {n/2 - 5, n/2 + 5, blas.Upper}, {n - 70, n, blas.Lower}} {
				if impl.Name() != "purego" && c.lo == n/2-5 {
					continue // the C backend's panels cost ~1 s at this size
				}
				if testmode.Quick() && c.hi-c.lo > 10 {
					continue // the race step: the full runs of both backends keep the 70 pairs
				}
				k := c.hi - c.lo
				w0, z0 := refEig(t, impl, a, n, c.lo, c.hi)
				w, z, err := EigRangeCtx(ctx, impl, blas64.Symmetric{N: n, Stride: n, Uplo: c.uplo, Data: append([]float64(nil), a...)}, c.lo, c.hi)
				if err != nil {
					t.Fatal(err)
				}
				for j := 0; j < k; j++ {
					if math.Abs(w[j]-w0[j]) > 1e-11*(1+math.Abs(w0[j])) {
						t.Errorf("[%d,%d): value %d is %v, Syevr %v", c.lo, c.hi, j, w[j], w0[j])
					}
					// Residual ‖A·z − λz‖ and the vector against Syevr's.
					res, diff := 0.0, 0.0
					for i := 0; i < n; i++ {
						s := 0.0
						for l := 0; l < n; l++ {
							s += a[i*n+l] * z.Data[l*k+j]
						}
						res = max(res, math.Abs(s-w[j]*z.Data[i*k+j]))
						diff = max(diff, math.Abs(z.Data[i*k+j]-z0.Data[i*k+j]))
					}
					if res > 1e-11 || diff > 1e-8 {
						t.Errorf("[%d,%d): pair %d: residual %.2g, |z − z_Syevr| %.2g", c.lo, c.hi, j, res, diff)
					}
					for l := 0; l < j; l++ {
						dot := 0.0
						for i := 0; i < n; i++ {
							dot += z.Data[i*k+j] * z.Data[i*k+l]
						}
						if math.Abs(dot) > 1e-12 {
							t.Errorf("vectors %d and %d: dot %.2g", l, j, dot)
						}
					}
				}
			}
		})
	}
}

// A cancelled context stops the solver between panels: it returns an error
// wrapping context.Canceled well within 100 ms of the cancel.
func TestEigRangeCtxCancel(t *testing.T) {
	n := 1500
	if testmode.Quick() {
		n = 900
	}
	a := randSym(n, 6)
	for _, impl := range Impls() {
		for _, delay := range []time.Duration{0, 20 * time.Millisecond, 150 * time.Millisecond} {
			// The best of three tries counts: the machine may be shared.
			best := time.Hour
			for try := 0; try < 3 && best > 100*time.Millisecond; try++ {
				ctx, cancel := context.WithCancel(context.Background())
				fired := make(chan time.Time, 1)
				tm := time.AfterFunc(delay, func() { fired <- time.Now(); cancel() })
				_, _, err := EigTopCtx(ctx, impl, blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: append([]float64(nil), a...)}, 3)
				end := time.Now()
				tm.Stop()
				cancel()
				var at time.Time
				select {
				case at = <-fired:
				default:
					best = 0 // finished before the cancel
					continue
				}
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("%s, cancel after %v: %v", impl.Name(), delay, err)
				}
				best = min(best, end.Sub(at))
			}
			t.Logf("%s, n = %d, cancel after %v: returned %v later (best of up to three)", impl.Name(), n, delay, best)
			if best > 100*time.Millisecond && !raceEnabled {
				t.Errorf("%s, cancel after %v: returned %v later", impl.Name(), delay, best)
			}
		}
	}
}

// BenchmarkEigTopCtx times the k leading eigenpairs of a dense random
// symmetric n×n matrix by the cancellable solver and, for comparison, by
// the backend's one-call Syevr:
//
//	go test -run '^$' -bench EigTopCtx -benchtime 1x -count 3 [-tags openblas] ./backend/
func BenchmarkEigTopCtx(bm *testing.B) {
	for _, c := range []struct{ n, k int }{{1500, 3}, {3000, 3}, {2000, 100}} {
		n, k := c.n, c.k
		a := randSym(n, 6)
		for _, impl := range Impls() {
			bm.Run(fmt.Sprintf("%s/n=%d/k=%d/ctx", impl.Name(), n, k), func(bm *testing.B) {
				for range bm.N {
					if _, _, err := EigTopCtx(context.Background(), impl, blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: append([]float64(nil), a...)}, k); err != nil {
						bm.Fatal(err)
					}
				}
			})
			bm.Run(fmt.Sprintf("%s/n=%d/k=%d/syevr", impl.Name(), n, k), func(bm *testing.B) {
				w := make([]float64, k)
				z := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
				for range bm.N {
					if err := impl.Syevr(blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: append([]float64(nil), a...)}, n-k, n, w, z); err != nil {
						bm.Fatal(err)
					}
				}
			})
		}
	}
}

// The cancellable solver on matrices with degenerate structure, past
// directEig for both backends: the eigenvalue 0 of multiplicity n − 5 (a rank-5
// Gram matrix X·Xᵀ), clusters of repeated eigenvalues in a random basis,
// and a matrix that is diagonal already (every reflector the identity).
// The values match an independent solver's (refEig); the vectors have residuals and
// orthogonality at working accuracy (in a repeated eigenvalue's space any
// orthonormal basis is right, so they are not compared with Syevr's).
func TestEigRangeCtxDegenerate(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "28 s under -race (CI's pure-Go and OpenBLAS backend steps do)")
	for _, impl := range Impls() {
		// Many panels of the reduction; for a C backend, past directEig (its
		// one-call dsyevr) for 6 pairs.
		n := 520
		if impl.Name() != "purego" {
			n = 950
		}
		t.Run(impl.Name(), func(t *testing.T) { checkDegenerate(t, impl, n) })
	}
}

func checkDegenerate(t *testing.T, impl Impl, n int) {
	rng := rand.New(rand.NewPCG(7, 7))
	gram := make([]float64, n*n)
	x := make([]float64, n*5)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for c := 0; c < 5; c++ {
				s += x[i*5+c] * x[j*5+c]
			}
			gram[i*n+j] = s
		}
	}
	// Q·diag(λ)·Qᵀ with λ in clusters (0 ×40, 1 ×100, 2 ×3, then distinct),
	// Q the product of 8 random reflectors.
	lam := make([]float64, n)
	for i := range lam {
		switch {
		case i < 40:
			lam[i] = 0
		case i < 140:
			lam[i] = 1
		case i < 143:
			lam[i] = 2
		default:
			lam[i] = 3 + float64(i)/float64(n)
		}
	}
	clustered := make([]float64, n*n)
	for i := 0; i < n; i++ {
		clustered[i*n+i] = lam[i]
	}
	for r := 0; r < 8; r++ {
		v := make([]float64, n)
		nv := 0.0
		for i := range v {
			v[i] = rng.NormFloat64()
			nv += v[i] * v[i]
		}
		// A ← H·A·H, H = I − 2·v·vᵀ/‖v‖².
		av := make([]float64, n)
		for i := 0; i < n; i++ {
			av[i] = Dot(clustered[i*n:(i+1)*n], v)
		}
		vav := Dot(v, av)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				clustered[i*n+j] += -2/nv*(v[i]*av[j]+av[i]*v[j]) + 4*vav/(nv*nv)*v[i]*v[j]
			}
		}
	}
	diagonal := make([]float64, n*n)
	for i := 0; i < n; i++ {
		diagonal[i*n+i] = float64(i % 7)
	}
	for _, c := range []struct {
		name string
		a    []float64
	}{{"rank-5 Gram", gram}, {"clusters", clustered}, {"diagonal", diagonal}} {
		norm := 0.0
		for _, v := range c.a {
			norm = max(norm, math.Abs(v))
		}
		norm *= float64(n)
		for _, r := range [][2]int{{0, 6}, {n - 6, n}, {35, 145}} {
			lo, hi := r[0], r[1]
			k := hi - lo
			if directEig(impl, n, k) {
				t.Fatalf("n = %d runs Syevr in one call; the test needs the cancellable path", n)
			}
			w0, _ := refEig(t, impl, c.a, n, lo, hi)
			w, z, err := EigRangeCtx(context.Background(), impl, blas64.Symmetric{N: n, Stride: n, Uplo: blas.Lower, Data: append([]float64(nil), c.a...)}, lo, hi)
			if err != nil {
				t.Fatalf("%s [%d,%d): %v", c.name, lo, hi, err)
			}
			for j := 0; j < k; j++ {
				if math.Abs(w[j]-w0[j]) > 1e-12*norm {
					t.Errorf("%s [%d,%d): value %d is %v, Syevr %v", c.name, lo, hi, j, w[j], w0[j])
				}
			}
			if worstRes, worstDot := pairErrors(c.a, n, w, z); worstRes > 1e-12*norm || worstDot > 1e-11 {
				t.Errorf("%s [%d,%d): residual %.2g (‖A‖ ≤ %.3g), orthogonality %.2g", c.name, lo, hi, worstRes, norm, worstDot)
			}
		}
	}
}

// pairErrors returns, for the pairs (w[j], column j of z) of the full
// symmetric n×n a, the largest entry of |A·z_j − w[j]·z_j| and the
// largest entry of |zᵀz − I|. A·Z and ZᵀZ are summed a row of Z at a time
// (each entry over l in order, as column-by-column dot products would), so
// the reads run along Z's rows.
func pairErrors(a []float64, n int, w []float64, z blas64.General) (res, orth float64) {
	k := len(w)
	az := make([]float64, k)  // row i of A·Z
	g := make([]float64, k*k) // ZᵀZ, lower triangle
	for i := 0; i < n; i++ {
		clear(az)
		for l, ail := range a[i*n : i*n+n] {
			zl := z.Data[l*z.Stride : l*z.Stride+k]
			for j := range az {
				az[j] += ail * zl[j]
			}
		}
		zi := z.Data[i*z.Stride : i*z.Stride+k]
		for j, v := range az {
			res = max(res, math.Abs(v-w[j]*zi[j]))
		}
		for j, zij := range zi {
			gj := g[j*k : j*k+j+1]
			for l := range gj {
				gj[l] += zij * zi[l]
			}
		}
	}
	for j := 0; j < k; j++ {
		for l := 0; l <= j; l++ {
			s := g[j*k+l]
			if l == j {
				s--
			}
			orth = max(orth, math.Abs(s))
		}
	}
	return res, orth
}

// refEig returns the eigenpairs lo, …, hi−1 of the full symmetric n×n a by
// a solver independent of EigRangeCtx's path, signs by FixSigns: LAPACK's
// dsyevr for a C backend; for the pure-Go backend, whose Syevr is that
// path, gonum's Dsyev (the QL/QR iteration, mat.EigenSym), except under
// -short (the race step), where it would take minutes and Syevr stands in.
func refEig(t *testing.T, impl Impl, a []float64, n, lo, hi int) ([]float64, blas64.General) {
	t.Helper()
	k := hi - lo
	z := blas64.General{Rows: n, Cols: k, Stride: max(1, k), Data: make([]float64, n*k)}
	if impl.Name() != "purego" || testmode.Quick() {
		w := make([]float64, k)
		if err := impl.Syevr(blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: append([]float64(nil), a...)}, lo, hi, w, z); err != nil {
			t.Fatal(err)
		}
		return w, z
	}
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, append([]float64(nil), a...)), true) {
		t.Fatal("mat.EigenSym did not converge")
	}
	var v mat.Dense
	es.VectorsTo(&v)
	vals := es.Values(nil)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			z.Data[i*k+j] = v.At(i, lo+j)
		}
	}
	FixSigns(z)
	return vals[lo:hi], z
}

// TestEigTopDuplicateRows: the covariance of n−1 equal rows and one other
// (rank 1: one eigenvalue, the rest rounding noise in blocks that the
// reduction splits off) — PCA of data made of duplicates. Before, the top
// two pairs of the 10-column covariance at n = 100 and 200 failed with
// "inverse iteration for eigenvalue 2.6e-18 did not converge in 5 steps":
// a block of entries near 1e-18 had its eigenvalue bisected only to ε·‖T‖.
// Each pair is checked against an independent solver (refEig), by its
// residual and by orthogonality.
func TestEigTopDuplicateRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, impl := range Impls() {
		for _, n := range []int{50, 100, 200, 1000} {
			for _, d := range []int{3, 10, 30} {
				x := blas64.General{Rows: n, Cols: d, Stride: d, Data: make([]float64, n*d)}
				for j := 0; j < d; j++ { // rows of 0 and a last row of 1, centred as PCA centres
					x.Data[(n-1)*d+j] = 1
					mean := 0.0
					for i := 0; i < n; i++ {
						mean += x.Data[i*d+j]
					}
					mean /= float64(n)
					for i := 0; i < n; i++ {
						x.Data[i*d+j] -= mean
					}
				}
				c := blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: make([]float64, d*d)}
				if err := SyrkCtx(ctx, impl, blas.Trans, 1/float64(n-1), x, 0, c); err != nil {
					t.Fatal(err)
				}
				full := make([]float64, d*d)
				for i := 0; i < d; i++ {
					for j := i; j < d; j++ {
						full[i*d+j], full[j*d+i] = c.Data[i*d+j], c.Data[i*d+j]
					}
				}
				norm := float64(d) / float64(n) // the one eigenvalue, d·(n−1)/n²·n/(n−1)
				for _, k := range []int{2, 3} {
					w, z, err := EigTopCtx(ctx, impl, blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: slices.Clone(c.Data)}, k)
					if err != nil {
						t.Fatalf("%s n = %d, d = %d, top %d: %v", impl.Name(), n, d, k, err)
					}
					w0, _ := refEig(t, impl, slices.Clone(full), d, d-k, d)
					for j := range w {
						if ref := w0[k-1-j]; math.Abs(w[j]-ref) > 1e-14*norm { // w descending, w0 ascending
							t.Errorf("%s n = %d, d = %d: eigenvalue %d is %v, the reference %v", impl.Name(), n, d, j, w[j], ref)
						}
					}
					if res, orth := pairErrors(full, d, w, z); res > 1e-14*norm || orth > 1e-12 {
						t.Errorf("%s n = %d, d = %d, top %d: residual %.2g, zᵀz − I %.2g", impl.Name(), n, d, k, res, orth)
					}
				}
			}
		}
	}
}

// structuredSym returns an n×n symmetric matrix of one of five kinds whose
// spectra are degenerate the ways real data make them: (0) the Gram matrix
// of 1–3 small-integer rows (a low-rank covariance of duplicated rows),
// (1) block diagonal with repeated and zero blocks, (2) the Laplacian of a
// sparse graph with isolated vertices, (3) s·(I + 11ᵀ) with s a power of
// two down to 2⁻²⁰⁰ (an eigenvalue of multiplicity n − 1), (4) an
// arrowhead of small integers with zeros.
func structuredSym(rng *rand.Rand, kind, n int) []float64 {
	a := make([]float64, n*n)
	set := func(i, j int, v float64) { a[i*n+j], a[j*n+i] = v, v }
	switch kind {
	case 0: // low rank r of duplicated rows' covariance: r groups
		r := 1 + rng.IntN(3)
		x := make([][]float64, r)
		for g := range x {
			x[g] = make([]float64, n)
			for j := range x[g] {
				x[g][j] = float64(rng.IntN(3))
			}
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				s := 0.0
				for g := range x {
					s += x[g][i] * x[g][j]
				}
				set(i, j, s)
			}
		}
	case 1: // block diagonal with zero blocks and repeated blocks
		b := 1 + rng.IntN(max(1, n/3))
		blk := make([]float64, b*b)
		for i := range blk {
			blk[i] = float64(rng.IntN(3))
		}
		for s := 0; s+b <= n; s += b {
			if rng.IntN(3) == 0 {
				continue
			}
			for i := 0; i < b; i++ {
				for j := i; j < b; j++ {
					set(s+i, s+j, blk[i*b+j])
				}
			}
		}
	case 2: // graph Laplacian of a random sparse graph with isolated vertices
		for e := 0; e < n; e++ {
			i, j := rng.IntN(n), rng.IntN(n)
			if i == j || i%5 == 0 || j%5 == 0 {
				continue
			}
			a[i*n+j] -= 1
			a[j*n+i] -= 1
			a[i*n+i] += 1
			a[j*n+j] += 1
		}
	case 3: // identity plus rank one, scaled tiny
		s := math.Ldexp(1, -rng.IntN(200))
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := s
				if i == j {
					v += s
				}
				set(i, j, v)
			}
		}
	case 4: // arrowhead with zeros
		for i := 0; i < n; i++ {
			set(i, i, float64(rng.IntN(4)))
			if rng.IntN(2) == 0 {
				set(0, i, float64(rng.IntN(3)))
			}
		}
	}
	return a
}

// TestEigRangeStructured: 3000 index ranges of structuredSym matrices (n
// from 2 to 230) on every backend: EigRangeCtx returns each pair with a
// residual within 1e-12·n·max|a| and orthonormal vectors, and Syevd
// orthonormal vectors — or an error is reported (none is expected). Before
// the three mends of larftForward, bisect and clusterVectors, this sweep
// met 126 errors ("inverse iteration … did not converge": kinds 0 and 3)
// and 54 pairs wrong with no error (kinds 0, 3 and 4) on the two backends.
func TestEigRangeStructured(t *testing.T) {
	t.Parallel()
	testmode.Skip(t, "3000 eigenproblems on every backend (about 10 s)")
	for _, impl := range Impls() {
		t.Run(impl.Name(), func(t *testing.T) { structuredTrials(t, impl) })
	}
}

// structuredTrials solves 3000 structured eigenproblems, the same ones on
// every backend (a fixed seed), by EigRangeCtx and Syevd.
func structuredTrials(t *testing.T, impl Impl) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 3000; trial++ {
		n := 2 + rng.IntN(60)
		if trial%10 == 0 {
			n = 130 + rng.IntN(100)
		}
		kind := rng.IntN(5)
		a := structuredSym(rng, kind, n)
		norm := 0.0
		for _, v := range a {
			norm = max(norm, math.Abs(v))
		}
		norm *= float64(n)
		if norm == 0 {
			continue
		}
		lo := rng.IntN(n)
		hi := lo + 1 + rng.IntN(n-lo)
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("kind %d n %d [%d,%d): panic %v", kind, n, lo, hi, p)
				}
			}()
			w, z, err := EigRangeCtx(context.Background(), impl, blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: append([]float64(nil), a...)}, lo, hi)
			if err != nil {
				t.Errorf("kind %d n %d [%d,%d): %v", kind, n, lo, hi, err)
				return
			}
			res, orth := pairErrors(a, n, w, z)
			if res > 1e-12*norm || orth > 1e-10 {
				t.Errorf("%s kind %d n %d [%d,%d): residual %.2g (n·max|a| = %.2g), orthogonality %.2g", impl.Name(), kind, n, lo, hi, res, norm, orth)
			}
			// Syevd (gonum's Dsyev on the pure-Go backend) too.
			full := append([]float64(nil), a...)
			ww := make([]float64, n)
			if err := impl.Syevd(blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: full}, ww, true); err != nil {
				t.Errorf("%s Syevd kind %d n %d: %v", impl.Name(), kind, n, err)
				return
			}
			orth = 0
			for p := 0; p < n; p += 1 + n/20 {
				for q := 0; q <= p; q++ {
					s := 0.0
					for i := 0; i < n; i++ {
						s += full[i*n+p] * full[i*n+q]
					}
					if p == q {
						s--
					}
					orth = max(orth, math.Abs(s))
				}
			}
			if orth > 1e-10 {
				t.Errorf("%s Syevd kind %d n %d: orthogonality %.2g", impl.Name(), kind, n, orth)
			}
		}()
	}
}

// pairErrors reads along rows; it must give the value of its definition,
// each entry summed in the same order, to the bit, and see a spoiled pair.
func TestPairErrorsByDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	n, k := 37, 5
	a := randSym(n, 11)
	z := blas64.General{Rows: n, Cols: k, Stride: k + 2, Data: make([]float64, n*(k+2))}
	for i := range z.Data {
		z.Data[i] = rng.NormFloat64()
	}
	w := []float64{-1, 0.5, 2, 3, 7}
	res, orth := 0.0, 0.0
	for j := range w {
		for i := 0; i < n; i++ {
			s := 0.0
			for l := 0; l < n; l++ {
				s += a[i*n+l] * z.Data[l*z.Stride+j]
			}
			res = max(res, math.Abs(s-w[j]*z.Data[i*z.Stride+j]))
		}
		for l := 0; l <= j; l++ {
			s := 0.0
			for i := 0; i < n; i++ {
				s += z.Data[i*z.Stride+j] * z.Data[i*z.Stride+l]
			}
			if l == j {
				s--
			}
			orth = max(orth, math.Abs(s))
		}
	}
	if r, o := pairErrors(a, n, w, z); r != res || o != orth {
		t.Errorf("pairErrors (%v, %v), by its definition (%v, %v)", r, o, res, orth)
	}
	// An exact pair of a diagonal matrix, then the vector spoiled.
	d := make([]float64, 9)
	d[0], d[4], d[8] = 2, 3, 5
	e := blas64.General{Rows: 3, Cols: 1, Stride: 1, Data: []float64{0, 1, 0}}
	if r, o := pairErrors(d, 3, []float64{3}, e); r != 0 || o != 0 {
		t.Errorf("exact pair: residual %v, orthogonality %v", r, o)
	}
	e.Data[0] = 1e-4 // residual |2 − 3|·1e-4, ‖z‖² − 1 = 1e-8
	if r, o := pairErrors(d, 3, []float64{3}, e); !(r > 0.99e-4) || !(o > 0.99e-8) {
		t.Errorf("spoiled pair: residual %v, orthogonality %v; want 1e-4 and 1e-8", r, o)
	}
}
