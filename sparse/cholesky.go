package sparse

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrNotPositiveDefinite is wrapped by the error of NewCholesky when the
// (shifted) matrix has a non-positive pivot.
var ErrNotPositiveDefinite = errors.New("sparse: matrix is not positive definite")

// Cholesky is the factor L·Lᵀ = P·(A + shift·I)·Pᵀ of a sparse symmetric
// positive definite matrix, P the reverse Cuthill–McKee ordering of A's
// graph, with L stored by its envelope (profile): row i from its first
// nonzero column to the diagonal (George & Liu, "Computer Solution of Large
// Sparse Positive Definite Systems", 1981, ch. 4; the RCM ordering keeps the
// envelope narrow for the neighbour graphs of manifolds, whose bandwidth
// grows like √N for a 2-D manifold). Factorization costs Σᵢ wᵢ²/2 flam for
// row envelope widths wᵢ, a solve 2·Σᵢ wᵢ, memory Σᵢ wᵢ.
//
// It serves shift-invert eigensolvers: the bottom eigenvectors of a
// Laplacian-like matrix are the top ones of (A + shift·I)⁻¹.
type Cholesky struct {
	n     int
	perm  []int32 // perm[k]: original index at position k
	first []int   // first[i]: first column of the envelope of row i (permuted)
	start []int   // start[i]: offset of row i in val; row i holds columns first[i]…i
	val   []float64
	work  int // scratch length for solves
}

// EnvelopeSize returns the number of stored entries the factor of a (with
// its reverse Cuthill–McKee ordering) would hold and the flam of the
// factorization, Σᵢ wᵢ²/2, without factoring: NewCholesky's memory is 8
// bytes per entry.
func EnvelopeSize(a *CSR) (entries int, factorFlam float64) {
	perm, inv := rcm(&stopper{}, a)
	first := envelope(a, perm, inv)
	for i, f := range first {
		w := i - f + 1
		entries += w
		factorFlam += float64(w) * float64(w) / 2
	}
	return entries, factorFlam
}

// rcm returns the reverse Cuthill–McKee order (new → old) and its inverse:
// breadth-first from a pseudo-peripheral vertex of every component (the
// last vertex reached by two sweeps), each vertex's unvisited neighbours in
// increasing degree, then reversed (George & Liu 1981, §4.3).
func rcm(stop *stopper, a *CSR) ([]int32, []int32) {
	n := a.r
	perm := make([]int32, 0, n)
	placed := make([]bool, n)
	mark := make([]int32, n) // BFS sweep stamps
	stamp := int32(0)
	queue := make([]int32, 0, n)
	bfs := func(s int32) []int32 {
		stamp++
		queue = append(queue[:0], s)
		mark[s] = stamp
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			if stop.tick(a.indptr[u+1] - a.indptr[u] + 1) {
				return queue[:h+1] // abandoned: the caller sees stop.err
			}
			begin := len(queue)
			for _, v := range a.ind[a.indptr[u]:a.indptr[u+1]] {
				if !placed[v] && mark[v] != stamp {
					mark[v] = stamp
					queue = append(queue, int32(v))
				}
			}
			sortByDegree(queue[begin:], a.indptr)
		}
		return queue
	}
	for s := int32(0); int(s) < n; s++ {
		if placed[s] {
			continue
		}
		start := s
		for sweep := 0; sweep < 2; sweep++ {
			order := bfs(start)
			start = order[len(order)-1]
		}
		order := bfs(start)
		if stop.err != nil {
			return nil, nil
		}
		for _, v := range order {
			placed[v] = true
			perm = append(perm, v)
		}
	}
	slices.Reverse(perm)
	inv := make([]int32, len(perm))
	for k, v := range perm {
		inv[v] = int32(k)
	}
	return perm, inv
}

// sortByDegree sorts the vertices by (degree, index), degrees read from a
// CSR's row pointers: by insertion for the short lists of a neighbour
// graph (a closure-driven sort cost a fifth of the ordering), by
// slices.SortFunc beyond 32.
func sortByDegree(v []int32, indptr []int) {
	less := func(x, y int32) bool {
		dx, dy := indptr[x+1]-indptr[x], indptr[y+1]-indptr[y]
		return dx < dy || dx == dy && x < y
	}
	if len(v) > 32 {
		slices.SortFunc(v, func(x, y int32) int {
			if less(x, y) {
				return -1
			}
			if less(y, x) {
				return 1
			}
			return 0
		})
		return
	}
	for i := 1; i < len(v); i++ {
		x := v[i]
		j := i
		for ; j > 0 && less(x, v[j-1]); j-- {
			v[j] = v[j-1]
		}
		v[j] = x
	}
}

// envelope returns, for every row of P·A·Pᵀ, its first nonzero column
// (symmetrised: an entry a_ij counts for the row of max(i, j)).
func envelope(a *CSR, perm, inv []int32) []int {
	n := a.r
	first := make([]int, n)
	for i := range first {
		first[i] = i
	}
	for i := 0; i < n; i++ {
		pi := int(inv[i])
		for p := a.indptr[i]; p < a.indptr[i+1]; p++ {
			pj := int(inv[a.ind[p]])
			hi, lo := max(pi, pj), min(pi, pj)
			if lo < first[hi] {
				first[hi] = lo
			}
		}
	}
	return first
}

// NewCholesky factors A + shift·I for the square symmetric a (only the
// entries are read; a must be symmetric). It returns an error wrapping
// ErrNotPositiveDefinite at the first non-positive pivot and one wrapping
// ErrInvalid if a is not square or holds NaN or Inf; ctx is checked every
// 1024 rows.
func NewCholesky(ctx context.Context, a *CSR, shift float64) (*Cholesky, error) {
	if a.r != a.c {
		return nil, fmt.Errorf("%w: Cholesky of a %d×%d matrix", ErrInvalid, a.r, a.c)
	}
	if err := a.checkFinite("Cholesky"); err != nil {
		return nil, err
	}
	n := a.r
	perm, inv := rcm(&stopper{}, a)
	first := envelope(a, perm, inv)
	c := &Cholesky{n: n, perm: perm, first: first, start: make([]int, n+1)}
	for i := 0; i < n; i++ {
		c.start[i+1] = c.start[i] + i - first[i] + 1
	}
	c.val = make([]float64, c.start[n])
	// Scatter P·(A + shift·I)·Pᵀ into the envelope (lower triangle).
	for i := 0; i < n; i++ {
		pi := int(inv[i])
		for p := a.indptr[i]; p < a.indptr[i+1]; p++ {
			pj := int(inv[a.ind[p]])
			if pj <= pi {
				c.val[c.start[pi]+pj-first[pi]] = a.data[p]
			}
		}
		c.val[c.start[pi]+pi-first[pi]] += shift
	}
	// Row-by-row (bordering) factorization: for row i and each j in its
	// envelope, l_ij = (a_ij − Σ_k l_ik·l_jk)/l_jj over the overlap of the
	// two envelopes, then l_ii = √(a_ii − Σ_k l_ik²).
	for i := 0; i < n; i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("sparse: Cholesky: %w", err)
			}
		}
		fi := first[i]
		ri := c.val[c.start[i]:c.start[i+1]] // columns fi…i
		for j := fi; j < i; j++ {
			fj := first[j]
			rj := c.val[c.start[j]:c.start[j+1]] // columns fj…j
			k0 := max(fi, fj)
			s := ri[j-fi]
			a := ri[k0-fi : j-fi]
			b := rj[k0-fj : j-fj]
			b = b[:len(a)]
			for k, v := range a {
				s -= v * b[k]
			}
			ri[j-fi] = s / rj[j-fj]
		}
		d := ri[i-fi]
		for _, v := range ri[:i-fi] {
			d -= v * v
		}
		if !(d > 0) {
			return nil, fmt.Errorf("%w: pivot %d of %d is %g (shift %g)", ErrNotPositiveDefinite, i, n, d, shift)
		}
		ri[i-fi] = math.Sqrt(d)
	}
	return c, nil
}

// N returns the order of the factored matrix.
func (c *Cholesky) N() int { return c.n }

// Size returns the number of stored entries of the factor.
func (c *Cholesky) Size() int { return len(c.val) }

// SolveTo sets dst = (A + shift·I)⁻¹·b. dst and b may be the same slice.
// It panics if their lengths are not N. It allocates one vector of length
// N; it is safe for concurrent use.
func (c *Cholesky) SolveTo(dst, b []float64) {
	n := c.n
	if len(dst) != n || len(b) != n {
		panic(fmt.Sprintf("sparse: Cholesky.SolveTo: order %d, dst has length %d, b has %d", n, len(dst), len(b)))
	}
	y := make([]float64, n)
	for k, v := range c.perm {
		y[k] = b[v]
	}
	// L·z = y, row by row.
	for i := 0; i < n; i++ {
		fi := c.first[i]
		row := c.val[c.start[i]:c.start[i+1]]
		s := y[i]
		yy := y[fi:i]
		for k, v := range row[:i-fi] {
			s -= v * yy[k]
		}
		y[i] = s / row[i-fi]
	}
	// Lᵀ·x = z, column-oriented over the rows from the bottom.
	for i := n - 1; i >= 0; i-- {
		fi := c.first[i]
		row := c.val[c.start[i]:c.start[i+1]]
		xi := y[i] / row[i-fi]
		y[i] = xi
		yy := y[fi:i]
		for k, v := range row[:i-fi] {
			yy[k] -= v * xi
		}
	}
	for k, v := range c.perm {
		dst[v] = y[k]
	}
}
