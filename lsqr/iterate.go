package lsqr

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/flam"
)

// eps is the machine epsilon of float64 (2⁻⁵²), as in the paper's tests.
const eps = 0x1p-52

// col is the scalar state of one right-hand side: the quantities of Paige
// and Saunders' algorithm LSQR (ACM TOMS 8(1), 1982, §4 and §5), named as
// there.
type col struct {
	alpha, beta    float64 // bidiagonalization
	rhobar, phibar float64 // QR factorization of the bidiagonal matrix
	// estimates (§5)
	anorm, acond, ddnorm, res2  float64
	xnorm, xxnorm, z, cs2, sn2  float64
	bnorm, rnorm, r1norm, r2nrm float64
	arnorm                      float64
	itn                         int
	istop                       Status
}

// solver holds the vectors of all right-hand sides as rows: u is k×m, v, w
// and x are k×n, so every vector is contiguous.
type solver struct {
	params
	op      Operator
	bop     BlockOperator  // nil when the operator has no block products
	dense   blas64.General // the matrix of a backend.GeneralOp
	isDense bool
	impl    backend.Impl
	m, n, k int
	nnz     int // flam of one product with A (or Aᵀ): m·n, or NNZ()

	u, v, w, x []float64
	cols       []col
	act        []int // right-hand sides still iterating

	// scratch, rows of the active right-hand sides
	pm, pn []float64 // a×m and a×n
	xb, yb []float64 // transposes for block products
	acc    []float64 // partial sums of the fused dense kernel
	alpha  []float64 // α of the active right-hand sides, for the fused kernel
}

func newSolver(a Operator, m, n int, bm blas64.General, p params) *solver {
	k := bm.Cols
	s := &solver{params: p, op: a, m: m, n: n, k: k}
	if g, ok := a.(backend.GeneralOp); ok {
		s.dense, s.isDense = g.A, true
		s.impl = g.Impl
		if s.impl == nil {
			s.impl = backend.Active()
		}
	} else if bo, ok := a.(BlockOperator); ok {
		s.bop = bo
	}
	s.nnz = m * n
	if nz, ok := a.(interface{ NNZ() int }); ok {
		s.nnz = nz.NNZ()
	} else if f, ok := a.(Func); ok && f.Flam > 0 {
		s.nnz = int(f.Flam)
	}
	s.u = make([]float64, k*m)
	s.v = make([]float64, k*n)
	s.w = make([]float64, k*n)
	s.x = make([]float64, k*n)
	s.pm = make([]float64, k*m)
	s.pn = make([]float64, k*n)
	s.cols = make([]col, k)
	for j := 0; j < k; j++ {
		uj := s.u[j*m : (j+1)*m]
		for i := range uj {
			uj[i] = bm.Data[i*bm.Stride+j]
		}
	}
	return s
}

func (s *solver) urow(j int) []float64 { return s.u[j*s.m : (j+1)*s.m] }
func (s *solver) vrow(j int) []float64 { return s.v[j*s.n : (j+1)*s.n] }
func (s *solver) wrow(j int) []float64 { return s.w[j*s.n : (j+1)*s.n] }
func (s *solver) xrow(j int) []float64 { return s.x[j*s.n : (j+1)*s.n] }

func (s *solver) run(ctx context.Context) ([]Result, error) {
	// β₁u₁ = b, α₁v₁ = Aᵀu₁.
	for j := range s.cols {
		c := &s.cols[j]
		u := s.urow(j)
		c.beta = backend.Nrm2(u)
		c.bnorm = c.beta
		if c.beta > 0 {
			backend.Scal(1/c.beta, u)
			s.act = append(s.act, j)
		}
	}
	if len(s.act) > 0 {
		if err := ctx.Err(); err != nil {
			return s.canceled(err)
		}
		s.mulAT(s.act)
	}
	var next []int
	for t, j := range s.act {
		c := &s.cols[j]
		v := s.vrow(j)
		copy(v, s.pn[t*s.n:(t+1)*s.n])
		c.alpha = backend.Nrm2(v)
		if math.IsNaN(c.alpha) || math.IsInf(c.alpha, 0) {
			return nil, fmt.Errorf("lsqr: Aᵀ·b of right-hand side %d holds NaN or Inf: %w", j, ErrNotFinite)
		}
		if c.alpha > 0 {
			backend.Scal(1/c.alpha, v)
		}
		copy(s.wrow(j), v)
		c.rhobar, c.phibar = c.alpha, c.beta
		c.rnorm, c.r1norm, c.r2nrm = c.beta, c.beta, c.beta
		c.arnorm = c.alpha * c.beta
		c.cs2, c.sn2 = -1, 0
		if c.arnorm == 0 {
			c.istop = ZeroSolution // b = 0 or Aᵀb = 0: x = 0
			continue
		}
		next = append(next, j)
	}
	s.act = next
	for len(s.act) > 0 {
		if err := ctx.Err(); err != nil {
			return s.canceled(err)
		}
		if err := s.bidiag(); err != nil {
			return nil, err
		}
		next = s.act[:0]
		for _, j := range s.act {
			if s.update(j) {
				next = append(next, j)
			}
		}
		s.act = next
	}
	return s.results(), nil
}

// bidiag advances the Golub–Kahan bidiagonalization of every active
// right-hand side by one step (§3, eq. 3.2):
//
//	β_{i+1}·u_{i+1} = A·v_i − α_i·u_i,   α_{i+1}·v_{i+1} = Aᵀ·u_{i+1} − β_{i+1}·v_i.
func (s *solver) bidiag() error {
	act := s.act
	m, n := s.m, s.n
	fused := s.isDense && (len(act) == 1 || !backend.Native(s.impl))
	if fused {
		// One pass over A: u ← A·v − α·u and pn = Aᵀ·u.
		s.alpha = grow(s.alpha, len(act))
		for t, j := range act {
			s.alpha[t] = s.cols[j].alpha
		}
		s.acc = fusedStep(s.dense, act, s.u, s.v, s.alpha, s.pn, m, n, s.acc)
	} else {
		s.mulA(act)
		for t, j := range act {
			axpby(s.pm[t*m:(t+1)*m], -s.cols[j].alpha, s.urow(j))
		}
	}
	for t, j := range act {
		c := &s.cols[j]
		u := s.urow(j)
		c.beta = backend.Nrm2(u)
		if math.IsNaN(c.beta) || math.IsInf(c.beta, 0) {
			return fmt.Errorf("lsqr: A·v of right-hand side %d holds NaN or Inf in iteration %d: %w", j, c.itn+1, ErrNotFinite)
		}
		if c.beta > 0 {
			backend.Scal(1/c.beta, u)
			if fused {
				backend.Scal(1/c.beta, s.pn[t*n:(t+1)*n]) // Aᵀ(ũ/β) = (Aᵀũ)/β
			}
		} else if fused {
			clear(s.pn[t*n : (t+1)*n])
		}
		c.anorm = math.Sqrt(c.anorm*c.anorm + c.alpha*c.alpha + c.beta*c.beta + s.damp*s.damp)
	}
	if !fused {
		s.mulAT(act)
	}
	for t, j := range act {
		c := &s.cols[j]
		v := s.vrow(j)
		axpby(s.pn[t*n:(t+1)*n], -c.beta, v)
		c.alpha = backend.Nrm2(v)
		if math.IsNaN(c.alpha) || math.IsInf(c.alpha, 0) {
			return fmt.Errorf("lsqr: Aᵀ·u of right-hand side %d holds NaN or Inf in iteration %d: %w", j, c.itn+1, ErrNotFinite)
		}
		if c.alpha > 0 {
			backend.Scal(1/c.alpha, v)
		}
	}
	return nil
}

// update does the rest of one iteration for right-hand side j: the plane
// rotations, the updates of x and w (§4.1, eq. 4.12) and the estimates and
// stopping tests (§5, §6). It reports whether j goes on iterating.
func (s *solver) update(j int) bool {
	c := &s.cols[j]
	c.itn++
	if s.progress != nil {
		s.progress.Add(1)
	}
	dampsq := s.damp * s.damp
	// Eliminate the damping parameter by a plane rotation.
	rhobar1, psi := c.rhobar, 0.0
	if s.damp > 0 {
		rhobar1 = math.Hypot(c.rhobar, s.damp)
		cs1 := c.rhobar / rhobar1
		sn1 := s.damp / rhobar1
		psi = sn1 * c.phibar
		c.phibar *= cs1
	}
	// Eliminate the subdiagonal β by a plane rotation.
	cs, sn, rho := symOrtho(rhobar1, c.beta)
	theta := sn * c.alpha
	c.rhobar = -cs * c.alpha
	phi := cs * c.phibar
	c.phibar *= sn
	tau := sn * phi
	// x ← x + (φ/ρ)·w, w ← v − (θ/ρ)·w; ‖D_k‖_F² accumulates ‖w/ρ‖².
	t1, t2 := phi/rho, -theta/rho
	w, x, v := s.wrow(j), s.xrow(j), s.vrow(j)
	ww := 0.0
	for i, wi := range w {
		ww += wi * wi
		x[i] += t1 * wi
		w[i] = v[i] + t2*wi
	}
	c.ddnorm += ww / (rho * rho)
	// ‖x‖ by a rotation on the right that eliminates θ (§5.4).
	delta := c.sn2 * rho
	gambar := -c.cs2 * rho
	rhs := phi - delta*c.z
	zbar := rhs / gambar
	c.xnorm = math.Sqrt(c.xxnorm + zbar*zbar)
	gamma := math.Hypot(gambar, theta)
	c.cs2 = gambar / gamma
	c.sn2 = theta / gamma
	c.z = rhs / gamma
	c.xxnorm += c.z * c.z
	// Estimates of cond(Ā), ‖r̄‖, ‖Āᵀr̄‖ (§5.1–5.3).
	c.acond = c.anorm * math.Sqrt(c.ddnorm)
	res1 := c.phibar * c.phibar
	c.res2 += psi * psi
	c.rnorm = math.Sqrt(res1 + c.res2)
	c.arnorm = c.alpha * math.Abs(tau)
	r1sq := c.rnorm*c.rnorm - dampsq*c.xxnorm
	c.r1norm = math.Sqrt(math.Abs(r1sq))
	if r1sq < 0 {
		c.r1norm = -c.r1norm
	}
	c.r2nrm = c.rnorm
	// Stopping tests (§6). The later tests win, so a tolerance met takes
	// precedence over a limit reached in the same iteration.
	test1 := c.rnorm / c.bnorm
	test2 := c.arnorm / (c.anorm*c.rnorm + eps)
	test3 := 1 / (c.acond + eps)
	t1 = test1 / (1 + c.anorm*c.xnorm/c.bnorm)
	rtol := s.btol + s.atol*c.anorm*c.xnorm/c.bnorm
	stop := Status(-1)
	if c.itn >= s.iterLim {
		stop = IterLimit
	}
	if 1+test3 <= 1 {
		stop = CondLimitEps
	}
	if 1+test2 <= 1 {
		stop = LeastSquaresEps
	}
	if 1+t1 <= 1 {
		stop = CompatibleEps
	}
	if test3 <= s.ctol {
		stop = CondLimit
	}
	if test2 <= s.atol {
		stop = LeastSquares
	}
	if test1 <= rtol {
		stop = Compatible
	}
	if stop < 0 {
		return true
	}
	c.istop = stop
	return false
}

// symOrtho is the stable plane rotation [c s; −s c]·[a; b] = [r; 0]
// with r ≥ 0 when a ≥ 0 (the SymOrtho of Choi, Paige and Saunders, 2011).
func symOrtho(a, b float64) (c, s, r float64) {
	switch {
	case b == 0:
		return math.Copysign(1, a), 0, math.Abs(a)
	case a == 0:
		return 0, math.Copysign(1, b), math.Abs(b)
	case math.Abs(b) > math.Abs(a):
		tau := a / b
		s = math.Copysign(1, b) / math.Sqrt(1+tau*tau)
		c = s * tau
		return c, s, b / s
	default:
		tau := b / a
		c = math.Copysign(1, a) / math.Sqrt(1+tau*tau)
		s = c * tau
		return c, s, a / c
	}
}

// canceled returns the current iterates: right-hand sides still iterating
// get Status Canceled, finished ones keep theirs.
func (s *solver) canceled(err error) ([]Result, error) {
	res := s.results()
	for _, j := range s.act {
		res[j].Status = Canceled
	}
	return res, fmt.Errorf("lsqr: canceled: %w", err)
}

func (s *solver) results() []Result {
	out := make([]Result, s.k)
	for j := range out {
		c := &s.cols[j]
		out[j] = Result{
			X: append([]float64(nil), s.xrow(j)...), Status: c.istop, Iterations: c.itn,
			RNorm: c.r1norm, R2Norm: c.r2nrm, ANorm: c.anorm, ACond: c.acond, ArNorm: c.arnorm, XNorm: c.xnorm,
			Flam: flam.LSQRSparse(s.m, s.n, s.nnz, c.itn),
		}
	}
	return out
}

// mulA sets rows t of pm to A·v_j for the right-hand sides j = act[t].
func (s *solver) mulA(act []int) {
	m, n, a := s.m, s.n, len(act)
	switch {
	case s.isDense:
		// Pᵀ = Vᵀ·Aᵀ: the orientation in which a BLAS handles a thin block
		// well (one pass over A).
		vt := s.gather(s.v, act, n)
		s.impl.Gemm(blas.NoTrans, blas.Trans, 1, blas64.General{Rows: a, Cols: n, Stride: n, Data: vt}, s.dense,
			0, blas64.General{Rows: a, Cols: m, Stride: m, Data: s.pm[:a*m]})
	case s.bop != nil && a > 1:
		s.xb = transposeIn(s.xb, s.v, act, n)
		s.yb = grow(s.yb, m*a)
		s.bop.MulBlockTo(blas64.General{Rows: m, Cols: a, Stride: a, Data: s.yb}, blas64.General{Rows: n, Cols: a, Stride: a, Data: s.xb})
		transposeOut(s.pm, s.yb, a, m)
	default:
		for t, j := range act {
			s.op.MulVecTo(s.pm[t*m:(t+1)*m], s.vrow(j))
		}
	}
}

// mulAT sets rows t of pn to Aᵀ·u_j for j = act[t].
func (s *solver) mulAT(act []int) {
	m, n, a := s.m, s.n, len(act)
	switch {
	case s.isDense && backend.Native(s.impl):
		// Zᵀ = Uᵀ·A, the BLAS-friendly orientation.
		ut := s.gather(s.u, act, m)
		s.impl.Gemm(blas.NoTrans, blas.NoTrans, 1, blas64.General{Rows: a, Cols: m, Stride: m, Data: ut}, s.dense,
			0, blas64.General{Rows: a, Cols: n, Stride: n, Data: s.pn[:a*n]})
	case s.isDense:
		// Column by column, as the fused kernel sums: a right-hand side
		// gets the same bits alone or with others.
		for t, j := range act {
			s.acc = transDense(s.dense, s.urow(j), s.pn[t*n:(t+1)*n], s.acc)
		}
	case s.bop != nil && a > 1:
		s.xb = transposeIn(s.xb, s.u, act, m)
		s.yb = grow(s.yb, n*a)
		s.bop.MulTransBlockTo(blas64.General{Rows: n, Cols: a, Stride: a, Data: s.yb}, blas64.General{Rows: m, Cols: a, Stride: a, Data: s.xb})
		transposeOut(s.pn, s.yb, a, n)
	default:
		for t, j := range act {
			s.op.MulTransVecTo(s.pn[t*n:(t+1)*n], s.urow(j))
		}
	}
}

// gather returns the rows act of the k×l vs, contiguous (vs itself when
// act is 0, 1, …).
func (s *solver) gather(vs []float64, act []int, l int) []float64 {
	all := true
	for t, j := range act {
		all = all && t == j
	}
	if all {
		return vs[:len(act)*l]
	}
	s.xb = grow(s.xb, len(act)*l)
	for t, j := range act {
		copy(s.xb[t*l:(t+1)*l], vs[j*l:(j+1)*l])
	}
	return s.xb
}

func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// transposeIn writes rows act of the row block vs (length l each) as the
// columns of an l×len(act) matrix.
func transposeIn(buf, vs []float64, act []int, l int) []float64 {
	a := len(act)
	buf = grow(buf, l*a)
	for t, j := range act {
		for i, val := range vs[j*l : (j+1)*l] {
			buf[i*a+t] = val
		}
	}
	return buf
}

// transposeOut writes the l×a matrix y as a rows of length l into dst.
func transposeOut(dst, y []float64, a, l int) {
	for i := 0; i < l; i++ {
		for t, val := range y[i*a : (i+1)*a] {
			dst[t*l+i] = val
		}
	}
}

func axpby(p []float64, beta float64, y []float64) {
	p = p[:len(y)]
	for i, v := range p {
		y[i] = v + beta*y[i]
	}
}
