package lanczos

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
)

// deflTol: a new basis vector whose norm after orthogonalization is below
// deflTol times the norm of the operator's product is taken as zero (the
// Krylov space has become invariant) and replaced by a random vector
// orthogonal to the basis. The dropped component is below deflTol·‖A‖,
// far under TolFloor·‖A‖.
const deflTol = 1e-12

// solver holds the state of thick-restart block Lanczos.
//
// The basis is stored as rows: v[i*n:(i+1)*n] is basis vector i. With j
// vectors in the basis and the next block at rows j..j+b−1, the Lanczos
// relation is
//
//	A·V[0:j]ᵀ = V[0:j]ᵀ·H[0:j,0:j] + V[j:j+b]ᵀ·R·E
//
// where E picks the last block of the basis (right after a step) and R is
// the b×b coupling from the QR factorization of the new block. H is the
// projected matrix V·A·Vᵀ, built from the Gram–Schmidt coefficients, so it
// is exactly the Rayleigh quotient even after restarts (no recurrence is
// trusted).
type solver struct {
	params
	op  Operator
	bop BlockOperator
	ld  int       // leading dimension of h: m + b
	v   []float64 // (m+b)×n basis rows
	h   []float64 // ld×ld projected matrix
	r   []float64 // b×b coupling of the next block (row c', column c)
	rnd *rand.Rand
	// impl runs the orthogonalization and the projected eigenproblem.
	impl backend.Impl

	// scratch
	coef, coef2 []float64 // (m+b)×b Gram–Schmidt coefficients
	w0          []float64 // norms of the raw products
	rc          []float64 // one Ritz vector's residual, by block column
	xt, yt      []float64 // n×b transposes for the block product
	hs          []float64 // ld×ld copy of H for the eigensolver
	theta       []float64 // Ritz values, ascending
	order       []int     // Ritz indices, wanted first
	res         []float64 // residual estimates, by position in order
	anorm       float64
	stats       Stats
}

func newSolver(a Operator, p params) *solver {
	s := &solver{params: p, op: a, ld: p.m + p.b, impl: backend.Active()}
	if p.block {
		s.bop = a.(BlockOperator)
		s.xt = make([]float64, p.n*p.b)
		s.yt = make([]float64, p.n*p.b)
	}
	s.v = make([]float64, s.ld*p.n)
	s.h = make([]float64, s.ld*s.ld)
	s.r = make([]float64, p.b*p.b)
	s.coef = make([]float64, s.ld*p.b)
	s.coef2 = make([]float64, s.ld*p.b)
	s.w0 = make([]float64, p.b)
	s.rc = make([]float64, p.b)
	s.hs = make([]float64, s.ld*s.ld)
	s.theta = make([]float64, s.ld)
	s.order = make([]int, s.ld)
	s.res = make([]float64, s.ld)
	s.rnd = rand.New(rand.NewPCG(p.seed, 0x6c616e637a6f73)) // "lanczos"
	s.stats.BlockSize, s.stats.BasisSize = p.b, p.m
	return s
}

func (s *solver) row(i int) []float64 { return s.v[i*s.n : (i+1)*s.n] }

// gram sets h (p×b) = V[0:p]·Wᵀ and subtract sets W −= hᵀ·V[0:p]: with
// the deterministic chunked kernels of kernels.go, or, on a native backend
// (backend.Native), with its Gemv/Gemm, whose threads are then busy instead
// of spinning while Go code runs between the operator's products.
func (s *solver) gram(h []float64, p int, w []float64, b int) {
	n := s.n
	if !backend.Native(s.impl) || p == 0 {
		gram(h, s.v, p, w, b, n)
		return
	}
	if b == 1 {
		s.impl.Gemv(blas.NoTrans, 1, rowsView(s.v, p, n), blas64.Vector{N: n, Inc: 1, Data: w[:n]}, 0, blas64.Vector{N: p, Inc: 1, Data: h[:p]})
		return
	}
	s.impl.Gemm(blas.NoTrans, blas.Trans, 1, rowsView(s.v, p, n), rowsView(w, b, n), 0, blas64.General{Rows: p, Cols: b, Stride: b, Data: h[:p*b]})
}

func (s *solver) subtract(w, h []float64, p, b int) {
	n := s.n
	if !backend.Native(s.impl) || p == 0 {
		subtract(w, h, s.v, p, b, n)
		return
	}
	if b == 1 {
		s.impl.Gemv(blas.Trans, -1, rowsView(s.v, p, n), blas64.Vector{N: p, Inc: 1, Data: h[:p]}, 1, blas64.Vector{N: n, Inc: 1, Data: w[:n]})
		return
	}
	s.impl.Gemm(blas.Trans, blas.NoTrans, -1, blas64.General{Rows: p, Cols: b, Stride: b, Data: h[:p*b]}, rowsView(s.v, p, n), 1, rowsView(w, b, n))
}

func (s *solver) run(ctx context.Context) (*Result, error) {
	n, b := s.n, s.b
	// Start block: Start (if any) and random vectors, orthonormalized.
	for c := 0; c < b; c++ {
		row := s.row(c)
		if c == 0 && s.start != nil {
			copy(row, s.start)
		} else {
			s.randomize(row)
		}
		s.w0[c] = backend.Nrm2(row)
	}
	s.qr(0)
	j := 0 // basis vectors; the next block is rows j..j+b−1
	sinceCheck := 0.0
	for {
		if err := ctx.Err(); err != nil {
			return &Result{Status: Canceled, Tol: s.tol, Stats: s.stats}, fmt.Errorf("lanczos: canceled after %d steps: %w", s.stats.Iterations, err)
		}
		if err := s.step(j); err != nil {
			return nil, err
		}
		j += b
		full := j+b > s.m
		// Look at convergence when the work since the last look has paid
		// for the projected eigenproblem (for a cheap operator and a large
		// basis that is every few steps, not every one).
		sinceCheck += float64(b)*s.opFlam + flam.LanczosStep(n, j, b)
		if !full && (j < s.k || sinceCheck < flam.Syevd(j, true)) {
			continue
		}
		sinceCheck = 0
		if err := s.ritz(j); err != nil {
			return nil, err
		}
		nconv := s.countConverged()
		if s.look != nil {
			vals := make([]float64, s.k)
			for pos := range vals {
				vals[pos] = s.theta[s.order[pos]]
			}
			s.look(vals, s.res[:s.k])
		}
		if nconv == s.k {
			return s.result(j, Converged, nconv), nil
		}
		if !full {
			continue
		}
		if s.stats.Restarts == s.maxRestarts {
			res := s.result(j, NotConverged, nconv)
			return res, fmt.Errorf("lanczos: %d of %d eigenpairs met Tol = %.3g after %d restarts (%d operator applications): %w",
				nconv, s.k, s.tol, s.stats.Restarts, s.stats.MatVecs, ErrNotConverged)
		}
		j = s.restart(j)
	}
}

// randomize fills x with standard normal numbers.
func (s *solver) randomize(x []float64) {
	for i := range x {
		x[i] = s.rnd.NormFloat64()
	}
}

// step applies the operator to the block at rows j..j+b−1, orthogonalizes
// the products against rows 0..j+b−1, records the coefficients in H and
// factors the remainder into the next block (rows j+b..j+2b−1) and R.
func (s *solver) step(j int) error {
	n, b := s.n, s.b
	p := j + b
	x := s.v[j*n : p*n]
	w := s.v[p*n : (p+b)*n]
	if s.block {
		// Transpose the rows into the n×b layout of MulBlockTo and back.
		for c := 0; c < b; c++ {
			xr := x[c*n : (c+1)*n]
			for i, val := range xr {
				s.xt[i*b+c] = val
			}
		}
		s.bop.MulBlockTo(blas64.General{Rows: n, Cols: b, Stride: b, Data: s.yt},
			blas64.General{Rows: n, Cols: b, Stride: b, Data: s.xt})
		for c := 0; c < b; c++ {
			wr := w[c*n : (c+1)*n]
			for i := range wr {
				wr[i] = s.yt[i*b+c]
			}
		}
	} else {
		for c := 0; c < b; c++ {
			s.op.MulVecTo(w[c*n:(c+1)*n], x[c*n:(c+1)*n])
		}
	}
	s.stats.Iterations++
	s.stats.MatVecs += b
	if s.progress != nil {
		s.progress.Add(int64(b))
	}
	s.stats.Flam += float64(b)*s.opFlam + flam.LanczosStep(n, p, b)
	for c := 0; c < b; c++ {
		wr := w[c*n : (c+1)*n]
		if !allFinite(wr) {
			return fmt.Errorf("lanczos: the operator's product in step %d holds NaN or Inf: %w", s.stats.Iterations, ErrNotFinite)
		}
		s.w0[c] = backend.Nrm2(wr)
	}
	// Classical Gram–Schmidt, twice (CGS2): coefficients h = h1 + h2.
	s.gram(s.coef, p, w, b)
	s.subtract(w, s.coef, p, b)
	s.gram(s.coef2, p, w, b)
	s.subtract(w, s.coef2, p, b)
	ld := s.ld
	for i := 0; i < p; i++ {
		for c := 0; c < b; c++ {
			hv := s.coef[i*b+c] + s.coef2[i*b+c]
			if i < j {
				s.h[i*ld+j+c] = hv
				s.h[(j+c)*ld+i] = hv
			} else {
				s.coef[i*b+c] = hv // diagonal block, symmetrized below
			}
		}
	}
	for c := 0; c < b; c++ {
		for c2 := 0; c2 < b; c2++ {
			s.h[(j+c)*ld+j+c2] = 0.5 * (s.coef[(j+c)*b+c2] + s.coef[(j+c2)*b+c])
		}
	}
	s.qr(p)
	// Record the coupling in H too (overwritten by the projections of the
	// next step, equal to it up to rounding).
	for c := 0; c < b; c++ {
		for c2 := 0; c2 < b; c2++ {
			s.h[(p+c2)*ld+j+c] = s.r[c2*b+c]
			s.h[(j+c)*ld+p+c2] = s.r[c2*b+c]
		}
	}
	return nil
}

// qr orthonormalizes rows at..at+b−1 of the basis in place by modified
// Gram–Schmidt applied twice, against each other (they are already
// orthogonal to rows 0..at−1, but a replacement vector is orthogonalized
// against those too), and sets R (row c', column c) so that
// the old rows are Σ R[c',c]·new rows. s.w0 holds the norms of the rows
// before any orthogonalization: a row that has lost all but deflTol of it is
// replaced by a random vector with a zero R entry.
func (s *solver) qr(at int) {
	b := s.b
	clear(s.r)
	for c := 0; c < b; c++ {
		w := s.row(at + c)
		before := backend.Nrm2(w)
		for pass := 0; pass < 2; pass++ {
			for c2 := 0; c2 < c; c2++ {
				q := s.row(at + c2)
				r := backend.Dot(q, w)
				backend.Axpy(-r, q, w)
				s.r[c2*b+c] += r
			}
		}
		nrm := backend.Nrm2(w)
		if c > 0 && nrm < 0.5*before && nrm > deflTol*s.w0[c] {
			// Heavy cancellation within the block: the rounding errors of
			// the subtractions, large next to what remains, have components
			// along the basis. One more pass against the basis and the
			// block's earlier vectors (rows 0..at+c−1, contiguous) removes
			// them; its coefficients on the basis are of rounding size and
			// are dropped, those on the block go into R.
			s.gram(s.coef2, at+c, w, 1)
			s.subtract(w, s.coef2, at+c, 1)
			for c2 := 0; c2 < c; c2++ {
				s.r[c2*b+c] += s.coef2[at+c2]
			}
			nrm = backend.Nrm2(w)
		}
		if nrm > deflTol*s.w0[c] && nrm > 0 {
			backend.Scal(1/nrm, w)
			s.r[c*b+c] = nrm
			continue
		}
		// Invariant subspace: continue with a random direction.
		s.randomize(w)
		prev := at + c // rows to be orthogonal to
		for pass := 0; pass < 2; pass++ {
			s.gram(s.coef2, prev, w, 1)
			s.subtract(w, s.coef2, prev, 1)
		}
		// The random vector's norm is about √n; orthogonalization against
		// fewer than n vectors leaves most of it.
		backend.Scal(1/backend.Nrm2(w), w)
		s.r[c*b+c] = 0
	}
}

// ritz solves the projected eigenproblem of H[0:j,0:j], orders the Ritz
// pairs with the wanted end first and estimates their residuals.
func (s *solver) ritz(j int) error {
	ld := s.ld
	for i := 0; i < j; i++ {
		copy(s.hs[i*j:(i+1)*j], s.h[i*ld:i*ld+j])
	}
	hs := blas64.Symmetric{N: j, Stride: j, Uplo: blas.Upper, Data: s.hs[:j*j]}
	if err := s.impl.Syevd(hs, s.theta[:j], true); err != nil {
		return fmt.Errorf("lanczos: projected eigenproblem (%d×%d): %w", j, j, err)
	}
	s.stats.Flam += flam.Syevd(j, true)
	for i := 0; i < j; i++ {
		if s.which == Largest {
			s.order[i] = j - 1 - i
		} else {
			s.order[i] = i
		}
	}
	s.anorm = max(s.anorm, math.Abs(s.theta[0]), math.Abs(s.theta[j-1]))
	// Residual of Ritz pair i: ‖R·S[j−b:j, i]‖, by Nrm2: its squares
	// overflow or underflow for an operator of norm past 1e±154, which
	// would read as never or always converged.
	b := s.b
	for pos := 0; pos < j; pos++ {
		col := s.order[pos]
		for c2 := 0; c2 < b; c2++ {
			t := 0.0
			for c := 0; c < b; c++ {
				t += s.r[c2*b+c] * s.hs[(j-b+c)*j+col]
			}
			s.rc[c2] = t
		}
		s.res[pos] = backend.Nrm2(s.rc)
	}
	return nil
}

func (s *solver) countConverged() int {
	nconv := 0
	for pos := 0; pos < s.k; pos++ {
		if s.res[pos] <= s.tol*s.anorm {
			nconv++
		}
	}
	return nconv
}

// restart keeps the Ritz vectors of the wanted end, K of them and a third
// of the rest of the basis (the extra ones speed up convergence, Wu & Simon
// 2000; on τ(D_G) and random matrices a quarter to two thirds made little
// difference), and the next block; H becomes the diagonal of their Ritz
// values with the coupling to the next block. It returns the new basis
// size. s.hs holds the eigenvectors of H.
func (s *solver) restart(j int) int {
	n, b, ld := s.n, s.b, s.ld
	keep := s.k + (s.m-s.k)/3
	keep = max(s.k, min(keep, s.m-b))
	// Ritz coefficient matrix S_keep (j×keep) in wanted order.
	sk := make([]float64, j*keep)
	for pos := 0; pos < keep; pos++ {
		col := s.order[pos]
		for i := 0; i < j; i++ {
			sk[i*keep+pos] = s.hs[i*j+col]
		}
	}
	combine(s.v, s.v, j, sk, keep, keep, n)
	copy(s.v[keep*n:(keep+b)*n], s.v[j*n:(j+b)*n])
	clear(s.h)
	for pos := 0; pos < keep; pos++ {
		s.h[pos*ld+pos] = s.theta[s.order[pos]]
	}
	// Coupling of the next block to the kept vectors: R·S_keep[j−b:j, :].
	for c2 := 0; c2 < b; c2++ {
		for pos := 0; pos < keep; pos++ {
			t := 0.0
			for c := 0; c < b; c++ {
				t += s.r[c2*b+c] * sk[(j-b+c)*keep+pos]
			}
			s.h[(keep+c2)*ld+pos] = t
			s.h[pos*ld+keep+c2] = t
		}
	}
	s.stats.Restarts++
	s.stats.Flam += float64(n) * float64(j) * float64(keep)
	return keep
}

// result assembles the K wanted Ritz pairs from the basis of j vectors.
func (s *solver) result(j int, st Status, nconv int) *Result {
	n, k := s.n, s.k
	sk := make([]float64, j*k)
	vals := make([]float64, k)
	res := make([]float64, k)
	for pos := 0; pos < k; pos++ {
		col := s.order[pos]
		vals[pos] = s.theta[col]
		res[pos] = s.res[pos]
		for i := 0; i < j; i++ {
			sk[i*k+pos] = s.hs[i*j+col]
		}
	}
	yrows := make([]float64, k*n)
	combine(yrows, s.v, j, sk, k, k, n)
	s.stats.Flam += float64(n) * float64(j) * float64(k)
	vec := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
	for c := 0; c < k; c++ {
		for i, val := range yrows[c*n : (c+1)*n] {
			vec.Data[i*k+c] = val
		}
	}
	backend.FixSigns(vec)
	return &Result{
		Values: vals, Vectors: vec, Residuals: res, ANorm: s.anorm, Tol: s.tol,
		Converged: nconv, Status: st, Stats: s.stats,
	}
}

// solveDense handles operators too small for a Krylov basis of the
// requested size: it forms the matrix with n applications to the unit
// vectors and solves the dense eigenproblem.
func solveDense(a Operator, p params) (*Result, error) {
	n, k := p.n, p.k
	m := make([]float64, n*n)
	e, col := make([]float64, n), make([]float64, n)
	for j := 0; j < n; j++ {
		e[j] = 1
		a.MulVecTo(col, e)
		e[j] = 0
		if !allFinite(col) {
			return nil, fmt.Errorf("lanczos: the operator's product with unit vector %d holds NaN or Inf: %w", j, ErrNotFinite)
		}
		for i, v := range col {
			m[i*n+j] = v
		}
	}
	// The symmetric part (the operator is symmetric up to rounding).
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := 0.5 * (m[i*n+j] + m[j*n+i])
			m[i*n+j], m[j*n+i] = v, v
		}
	}
	orig := append([]float64(nil), m...)
	w := make([]float64, n)
	if err := backend.Local().Syevd(blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: m}, w, true); err != nil {
		return nil, fmt.Errorf("lanczos: dense eigenproblem (%d×%d): %w", n, n, err)
	}
	res := &Result{
		Values: make([]float64, k), Residuals: make([]float64, k), Tol: p.tol, Converged: k, Status: Converged,
		Vectors: blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)},
		Stats:   Stats{MatVecs: n, Flam: float64(n)*p.opFlam + flam.Syevd(n, true), BlockSize: 1},
	}
	res.ANorm = max(math.Abs(w[0]), math.Abs(w[n-1]))
	y, ay := make([]float64, n), make([]float64, n)
	for pos := 0; pos < k; pos++ {
		col := pos
		if p.which == Largest {
			col = n - 1 - pos
		}
		res.Values[pos] = w[col]
		for i := 0; i < n; i++ {
			y[i] = m[i*n+col]
			res.Vectors.Data[i*k+pos] = y[i]
		}
		for i := 0; i < n; i++ {
			ay[i] = backend.Dot(orig[i*n:(i+1)*n], y) - w[col]*y[i]
		}
		res.Residuals[pos] = backend.Nrm2(ay)
	}
	backend.FixSigns(res.Vectors)
	return res, nil
}
