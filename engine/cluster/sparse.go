package cluster

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/sparse"
)

// FitSparse is Fit for sparse rows (a document–term matrix): the same
// seeding, Lloyd iterations, restarts and tolerance, with the distances to
// the (dense) centres from one sparse product X·Cᵀ per iteration, so an
// iteration costs nnz·K flam plus O(K·D) instead of n·K·D. On 6725
// Reuters-21578 documents × 18933 terms (K = 10) that is about 400 times
// fewer flam than clustering the densified rows.
func (s KMeans) FitSparse(ctx context.Context, x *sparse.CSR) (*Result, error) {
	s = s.defaults()
	n, d := x.Dims()
	if err := s.check(n, d); err != nil {
		return nil, err
	}
	ptr, val := x.RowPtr(), x.Values()
	xn := make([]float64, n)
	for i := 0; i < n; i++ {
		for _, v := range val[ptr[i]:ptr[i+1]] {
			xn[i] += v * v
		}
		if math.IsNaN(xn[i]) || math.IsInf(xn[i], 0) {
			return nil, fmt.Errorf("%w: point %d holds NaN or Inf", ErrInput, i)
		}
	}
	tol := s.Tol * meanVarianceSparse(x)
	return s.bestOfRestarts(func(rng *rand.Rand) (*Result, error) {
		centers, err := plusPlusSparse(ctx, x, xn, s.K, rng)
		if err != nil {
			return nil, err
		}
		return lloydSparse(ctx, x, xn, centers, s.MaxIter, tol)
	})
}

// meanVarianceSparse is meanVariance for sparse rows (the zeros count).
func meanVarianceSparse(x *sparse.CSR) float64 {
	n, d := x.Dims()
	sum := make([]float64, d)
	sq := make([]float64, d)
	for p, c := range x.ColIdx() {
		v := x.Values()[p]
		sum[c] += v
		sq[c] += v * v
	}
	total := 0.0
	for j := range sum {
		mean := sum[j] / float64(n)
		total += max(0, sq[j]/float64(n)-mean*mean)
	}
	return total / float64(d)
}

// plusPlusSparse is PlusPlus for sparse rows: the same draws from rng,
// the distances of a candidate to every row from one sparse product.
func plusPlusSparse(ctx context.Context, x *sparse.CSR, xn []float64, k int, rng *rand.Rand) (blas64.General, error) {
	n, d := x.Dims()
	trials := 2 + int(math.Log(float64(k)))
	dense := make([]float64, d)
	dot := make([]float64, n)
	// distTo fills dst with the squared distances of row c to every row.
	distTo := func(dst []float64, c int) {
		cols, vals := x.Row(c)
		for q, j := range cols {
			dense[j] = vals[q]
		}
		x.MulVecTo(dot, dense)
		for q := range cols {
			dense[cols[q]] = 0
		}
		for i := range dst {
			dst[i] = max(0, xn[i]+xn[c]-2*dot[i])
		}
		dst[c] = 0
	}
	closest := make([]float64, n)
	idx := []int{rng.IntN(n)}
	distTo(closest, idx[0])
	dist := make([][]float64, trials)
	for t := range dist {
		dist[t] = make([]float64, n)
	}
	cand := make([]int, trials)
	for len(idx) < k {
		if err := ctx.Err(); err != nil {
			return blas64.General{}, fmt.Errorf("cluster: k-means++ seeding: %w", err)
		}
		pot := 0.0
		for _, v := range closest {
			pot += v
		}
		for t := range cand {
			cand[t] = sampleD2(closest, pot, rng)
		}
		bestT, bestPot := 0, math.Inf(1)
		for t, c := range cand {
			distTo(dist[t], c)
			p := 0.0
			for i, v := range dist[t] {
				p += min(v, closest[i])
			}
			if p < bestPot {
				bestT, bestPot = t, p
			}
		}
		for i, v := range dist[bestT] {
			closest[i] = min(closest[i], v)
		}
		idx = append(idx, cand[bestT])
	}
	centers := blas64.General{Rows: k, Cols: d, Stride: d, Data: make([]float64, k*d)}
	for r, i := range idx {
		addRow(centers.Data[r*d:(r+1)*d], x, i)
	}
	return centers, nil
}

// addRow adds sparse row i of x to dst.
func addRow(dst []float64, x *sparse.CSR, i int) {
	cols, vals := x.Row(i)
	for q, j := range cols {
		dst[j] += vals[q]
	}
}

// assignSparse is Assign for sparse rows: X·Cᵀ in one sparse product.
func assignSparse(ctx context.Context, x *sparse.CSR, xn []float64, centers blas64.General, ct, prod blas64.General) ([]int, []float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("cluster: assignment: %w", err)
	}
	n, _ := x.Dims()
	k, d := centers.Rows, centers.Cols
	cn := make([]float64, k)
	for c := 0; c < k; c++ {
		for j, v := range centers.Data[c*d : (c+1)*d] {
			cn[c] += v * v
			ct.Data[j*k+c] = v
		}
	}
	x.MulBlockTo(prod, ct)
	labels := make([]int, n)
	dmin := make([]float64, n)
	for i := 0; i < n; i++ {
		row := prod.Data[i*k : (i+1)*k]
		b, bv := 0, math.Inf(1)
		for c, p := range row {
			if v := max(0, xn[i]+cn[c]-2*p); v < bv {
				b, bv = c, v
			}
		}
		labels[i], dmin[i] = b, bv
	}
	return labels, dmin, nil
}

// lloydSparse is lloyd for sparse rows.
func lloydSparse(ctx context.Context, x *sparse.CSR, xn []float64, centers blas64.General, maxIter int, tol float64) (*Result, error) {
	n, d := x.Dims()
	k := centers.Rows
	ct := blas64.General{Rows: d, Cols: k, Stride: k, Data: make([]float64, d*k)}
	prod := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
	assign := func(c blas64.General) ([]int, []float64, error) { return assignSparse(ctx, x, xn, c, ct, prod) }
	return lloydWith(assign, func(dst []float64, i int) { addRow(dst, x, i) }, centers, maxIter, tol)
}
