package lars

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// run is the state of one LARS path: correlations, coefficients, the
// active set with its signs, and the Cholesky factor L (lower, row-major,
// stride kc) of the active Gram matrix G_AA = X_AᵀX_A, updated by one row
// per entering variable and rebuilt when one leaves.
type run struct {
	d        *Design
	c        []float64 // correlations Xᵀ(y − Xβ)
	beta     []float64
	a        []float64 // Xᵀ·X_A·w
	active   []int
	sign     []float64
	w        []float64 // direction, aligned with active
	isActive []bool
	excluded []bool
	// blocked: active, excluded or a zero column — not a candidate to
	// enter.
	blocked []bool
	// v is the forward solution L·v = s_A of the direction, valid in its
	// first nv entries: adding a variable appends a row to L and a sign,
	// so only the new entry needs solving; a removal changes the rows from
	// its position on.
	v  []float64
	nv int
	// fresh: w and a are the direction of the current active set (a
	// refused variable leaves both as they are).
	fresh bool
	kc    int       // capacity of the factor and of xa
	l     []float64 // kc×kc
	xa    []float64 // n×kc: the active columns (without the Gram matrix)
	u     []float64 // n: X_A·w
	g     []float64 // scratch: a column of G_AA
	flam  float64
}

func newRun(d *Design, s Settings) *run {
	n, p := d.n, d.p
	r := &run{
		d: d, c: make([]float64, p), beta: make([]float64, p), a: make([]float64, p),
		isActive: make([]bool, p), excluded: make([]bool, p), blocked: make([]bool, p),
	}
	for j, v := range d.colSq {
		r.blocked[j] = v == 0
	}
	kc := min(16, min(n, p)+1)
	if s.MaxNonZero > 0 {
		kc = min(s.MaxNonZero+1, min(n, p)+1)
	}
	r.resize(kc)
	if d.gram == nil {
		r.u = make([]float64, n)
	}
	return r
}

// resize sets the capacity of the factor and of the active columns to kc.
func (r *run) resize(kc int) {
	old, ok := r.kc, r.l
	k := len(r.active)
	r.kc = kc
	r.l = make([]float64, kc*kc)
	for i := 0; i < k; i++ {
		copy(r.l[i*kc:i*kc+i+1], ok[i*old:i*old+i+1])
	}
	if r.d.gram == nil {
		n := r.d.n
		oxa := r.xa
		r.xa = make([]float64, n*kc)
		for i := 0; i < n && k > 0; i++ {
			copy(r.xa[i*kc:i*kc+k], oxa[i*old:i*old+k])
		}
	}
	r.g = make([]float64, kc)
}

func (r *run) pos(j int) int {
	for k, v := range r.active {
		if v == j {
			return k
		}
	}
	panic("lars: internal error: variable not active")
}

// add appends variable j with the given sign to the active set, extending
// the Cholesky factor by one row, and reports whether it could: a column
// (numerically) in the span of the active ones is refused and excluded
// for the rest of the path.
func (r *run) add(j int, sign float64) bool {
	d := r.d
	k := len(r.active)
	if k+1 > r.kc {
		r.resize(min(2*r.kc, min(d.n, d.p)+1))
	}
	kc := r.kc
	g := r.g[:k]
	var gjj float64
	if d.gram != nil {
		row := d.gram[j*d.p : (j+1)*d.p]
		for i, v := range r.active {
			g[i] = row[v]
		}
		gjj = row[j]
	} else {
		// Column j of X into column k of xa, and g = X_Aᵀ·x_j.
		clear(g)
		x := d.x
		for i := 0; i < d.n; i++ {
			v := x.Data[i*x.Stride+j]
			row := r.xa[i*kc : i*kc+k+1]
			row[k] = v
			floats.AddScaled(g, v, row[:k])
		}
		gjj = d.colSq[j]
		r.flam += float64(d.n) * float64(k+1)
	}
	// Solve L·l = g (forward substitution) into row k of L.
	lk := r.l[k*kc : k*kc+k+1]
	ss := 0.0
	for i := 0; i < k; i++ {
		v := g[i]
		li := r.l[i*kc : i*kc+i]
		for q, lv := range li {
			v -= lv * lk[q]
		}
		v /= r.l[i*kc+i]
		lk[i] = v
		ss += v * v
	}
	r.flam += float64(k) * float64(k) / 2
	d2 := gjj - ss
	if !(d2 > degenerateTol*gjj) {
		r.excluded[j] = true
		r.blocked[j] = true
		return false
	}
	lk[k] = math.Sqrt(d2)
	r.active = append(r.active, j)
	r.sign = append(r.sign, sign)
	r.w = append(r.w, 0)
	r.isActive[j] = true
	r.blocked[j] = true
	r.fresh = false
	return true
}

// remove takes variable j out of the active set and downdates the factor:
// with row k0 of L deleted, L′L′ᵀ is still G_AA without j, and Givens
// rotations of columns (i, i+1), i = k0 … k − 2, restore the lower
// triangle (Golub & Van Loan, "Matrix Computations", 4th ed., §6.5.4;
// scikit-learn's lars_path downdates the same way). O(k²) instead of the
// O(n·k² + k³) of rebuilding the factor from the active columns — on 200
// faces × 4096 pixels a rebuild at every lasso drop took most of SOIP's
// time.
func (r *run) remove(j int) {
	k0 := r.pos(j)
	k := len(r.active)
	r.active = append(r.active[:k0], r.active[k0+1:]...)
	r.sign = append(r.sign[:k0], r.sign[k0+1:]...)
	r.w = r.w[:k-1]
	r.isActive[j] = false
	r.blocked[j] = false // it was active: not excluded, not a zero column
	r.nv = min(r.nv, k0)
	r.fresh = false
	d := r.d
	kc := r.kc
	if d.gram == nil {
		for i := 0; i < d.n; i++ {
			row := r.xa[i*kc : i*kc+k]
			copy(row[k0:], row[k0+1:])
		}
	}
	l := r.l
	for i := k0; i < k-1; i++ {
		copy(l[i*kc:i*kc+i+2], l[(i+1)*kc:(i+1)*kc+i+2])
	}
	for i := k0; i < k-1; i++ {
		a, b := l[i*kc+i], l[i*kc+i+1]
		h := math.Hypot(a, b)
		c, s := a/h, b/h
		for q := i; q < k-1; q++ {
			x, y := l[q*kc+i], l[q*kc+i+1]
			l[q*kc+i] = c*x + s*y
			l[q*kc+i+1] = c*y - s*x
		}
		l[i*kc+i+1] = 0
	}
	r.flam += 2 * float64(k-k0) * float64(k-k0)
}

// direction solves G_AA·w = s_A with the factor and sets a = Xᵀ·X_A·w.
func (r *run) direction() {
	d := r.d
	k := len(r.active)
	kc := r.kc
	w := r.w[:k]
	// L·v = s (the rows not yet solved), then Lᵀ·w = v.
	if len(r.v) < k {
		r.v = append(r.v, make([]float64, k-len(r.v))...)
	}
	fv := r.v
	solved := 0.0
	for i := r.nv; i < k; i++ {
		solved += float64(i)
		v := r.sign[i]
		for q := 0; q < i; q++ {
			v -= r.l[i*kc+q] * fv[q]
		}
		fv[i] = v / r.l[i*kc+i]
	}
	r.nv = k
	copy(w, fv[:k])
	for i := k - 1; i >= 0; i-- {
		v := w[i]
		for q := i + 1; q < k; q++ {
			v -= r.l[q*kc+i] * w[q]
		}
		w[i] = v / r.l[i*kc+i]
	}
	a := r.a
	if d.gram != nil {
		clear(a)
		for q, j := range r.active {
			wq := w[q]
			row := d.gram[j*d.p : (j+1)*d.p]
			for i, v := range row {
				a[i] += wq * v
			}
		}
	} else {
		xa := blas64.General{Rows: d.n, Cols: k, Stride: kc, Data: r.xa}
		d.impl.Gemv(blas.NoTrans, 1, xa, blas64.Vector{N: k, Inc: 1, Data: w}, 0, blas64.Vector{N: d.n, Inc: 1, Data: r.u})
		d.impl.Gemv(blas.Trans, 1, d.x, blas64.Vector{N: d.n, Inc: 1, Data: r.u}, 0, blas64.Vector{N: d.p, Inc: 1, Data: a})
	}
	// StepFlam less the entry's factor row (counted in add) and its one
	// forward row, plus the forward rows solved here.
	r.flam += StepFlam(d.n, d.p, k, d.gram != nil) - float64(k)*float64(k)/2 - float64(k) + solved
	r.fresh = true
}

// entering returns the step γ to the next entry and the variable that
// enters (-1 and γ = C for none): the smallest positive root over the
// candidates j and signs ± of c_j − γa_j = ±(C − γ) (Efron et al. 2004,
// eq. 2.13), except the variable that just left with the same sign. The
// division of a root max(num, 0)/den is skipped where num > 1.000000001·γ·den
// already shows it is not smaller than the best so far (γ only shrinks):
// the result is that of dividing at every j, bit for bit.
func (r *run) entering(C float64, justDropped int, droppedSign float64) (float64, int) {
	gamma, enter := C, -1
	gm := gamma * (1 + 1e-9)
	c := r.c
	a := r.a[:len(c)]
	blocked := r.blocked[:len(c)]
	for j, cj := range c {
		if blocked[j] {
			continue
		}
		aj := a[j]
		// sgn = −1: num = C + c_j, den = 1 + a_j.
		if den := 1 + aj; !(den <= 1e-12) && !(j == justDropped && droppedSign == -1) {
			if num := C + cj; !(num > gm*den) {
				if g := max(num, 0) / den; g < gamma {
					gamma, enter = g, j
					gm = gamma * (1 + 1e-9)
				}
			}
		}
		// sgn = +1: num = C − c_j, den = 1 − a_j.
		if den := 1 - aj; !(den <= 1e-12) && !(j == justDropped && droppedSign == 1) {
			if num := C - cj; !(num > gm*den) {
				if g := max(num, 0) / den; g < gamma {
					gamma, enter = g, j
					gm = gamma * (1 + 1e-9)
				}
			}
		}
	}
	return gamma, enter
}

// snapshot returns the breakpoint at the current state.
func (r *run) snapshot(ev Step) Step {
	ev.Active = append([]int(nil), r.active...)
	ev.Coef = make([]float64, len(r.active))
	for k, j := range r.active {
		ev.Coef[k] = r.beta[j]
	}
	return ev
}
