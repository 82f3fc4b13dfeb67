package cluster

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifoldlab/manifold/backend"
)

// Errors returned (wrapped) for unusable input.
var (
	// ErrInput: the data are empty, hold NaN/Inf, or have fewer distinct
	// points than clusters asked for.
	ErrInput = errors.New("cluster: invalid input")
)

// KMeans is Lloyd's k-means with k-means++ seeding (Arthur & Vassilvitskii
// 2007, with scikit-learn's greedy variant: 2 + ⌊ln K⌋ candidate centres
// per step, keeping the one that lowers the potential most) and restarts
// keeping the run with the lowest objective (inertia, the sum of squared
// distances to the nearest centre). The zero value means 8 clusters, one
// run, at most 300 iterations, relative tolerance 1e-4 on the centre shift
// (scikit-learn's convention: tolerance × mean feature variance).
type KMeans struct {
	K        int     // clusters; default 8
	Restarts int     // independent runs, best kept; default 1
	MaxIter  int     // Lloyd iterations per run; default 300
	Tol      float64 // default 1e-4
	Seed     uint64
}

// Result is a clustering.
type Result struct {
	Centers    blas64.General // K×D
	Labels     []int          // cluster of every point
	Inertia    float64        // Σ squared distance to the assigned centre
	Iterations int            // Lloyd iterations of the kept run
}

func (s KMeans) defaults() KMeans {
	if s.K == 0 {
		s.K = 8
	}
	if s.Restarts == 0 {
		s.Restarts = 1
	}
	if s.MaxIter == 0 {
		s.MaxIter = 300
	}
	if s.Tol == 0 {
		s.Tol = 1e-4
	}
	return s
}

// Fit clusters the rows of x (n×D). Cost per Lloyd iteration: the distance
// kernel on n×K (n·K·D flam) plus O(n·D) for the update.
func (s KMeans) Fit(ctx context.Context, x blas64.General) (*Result, error) {
	s = s.defaults()
	if err := s.check(x.Rows, x.Cols); err != nil {
		return nil, err
	}
	xn := backend.RowSqNorms(x)
	for i, v := range xn {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: point %d holds NaN or Inf", ErrInput, i)
		}
	}
	tol := s.Tol * meanVariance(x)
	return s.bestOfRestarts(func(rng *rand.Rand) (*Result, error) {
		centers, err := PlusPlus(ctx, x, xn, s.K, rng)
		if err != nil {
			return nil, err
		}
		return lloyd(ctx, x, xn, centers, s.MaxIter, tol)
	})
}

// check refuses settings (after defaults) that cannot cluster n points of
// d features.
func (s KMeans) check(n, d int) error {
	if n == 0 || d == 0 {
		return fmt.Errorf("%w: %d points × %d features", ErrInput, n, d)
	}
	if s.K < 1 || s.K > n {
		return fmt.Errorf("%w: K = %d clusters for %d points", ErrInput, s.K, n)
	}
	if s.MaxIter < 1 || s.Restarts < 1 || s.Tol < 0 {
		return fmt.Errorf("%w: MaxIter %d, Restarts %d, Tol %g", ErrInput, s.MaxIter, s.Restarts, s.Tol)
	}
	return nil
}

// bestOfRestarts runs fit (a seeding and its Lloyd iterations) s.Restarts
// times from one random stream seeded by s.Seed and keeps the result of
// least inertia.
func (s KMeans) bestOfRestarts(fit func(rng *rand.Rand) (*Result, error)) (*Result, error) {
	rng := rand.New(rand.NewPCG(s.Seed, 0x6b6d65616e73))
	var best *Result
	for run := 0; run < s.Restarts; run++ {
		res, err := fit(rng)
		if err != nil {
			return nil, err
		}
		if best == nil || res.Inertia < best.Inertia {
			best = res
		}
	}
	return best, nil
}

// meanVariance is the mean over features of the per-feature variance.
func meanVariance(x blas64.General) float64 {
	n, d := x.Rows, x.Cols
	total := 0.0
	for j := 0; j < d; j++ {
		mean := 0.0
		for i := 0; i < n; i++ {
			mean += x.Data[i*x.Stride+j]
		}
		mean /= float64(n)
		v := 0.0
		for i := 0; i < n; i++ {
			t := x.Data[i*x.Stride+j] - mean
			v += t * t
		}
		total += v / float64(n)
	}
	return total / float64(d)
}

// PlusPlusIndices returns the indices of K seeds chosen among the rows of x
// by greedy k-means++: the first uniformly, each next one by sampling
// 2 + ⌊ln K⌋ candidates with probability proportional to the squared
// distance to the nearest seed so far and keeping the candidate that lowers
// the total most. xn holds the squared row norms (nil: computed). Cost:
// K·(2 + ln K) distance rows, O(n·D) each.
func PlusPlusIndices(ctx context.Context, x blas64.General, xn []float64, k int, rng *rand.Rand) ([]int, error) {
	n := x.Rows
	if k < 1 || k > n {
		return nil, fmt.Errorf("%w: %d seeds for %d points", ErrInput, k, n)
	}
	if xn == nil {
		xn = backend.RowSqNorms(x)
	}
	trials := 2 + int(math.Log(float64(k)))
	closest := make([]float64, n) // squared distance to the nearest seed
	idx := []int{rng.IntN(n)}
	dist := blas64.General{Rows: trials, Cols: n, Stride: n, Data: make([]float64, trials*n)}
	if err := distRows(x, xn, idx, blas64.General{Rows: 1, Cols: n, Stride: n, Data: closest}); err != nil {
		return nil, err
	}
	cand := make([]int, trials)
	for len(idx) < k {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("cluster: k-means++ seeding: %w", err)
		}
		pot := 0.0
		for _, v := range closest {
			pot += v
		}
		for t := range cand {
			cand[t] = sampleD2(closest, pot, rng)
		}
		if err := distRows(x, xn, cand, dist); err != nil {
			return nil, err
		}
		bestT, bestPot := 0, math.Inf(1)
		for t := range cand {
			row := dist.Data[t*n : (t+1)*n]
			p := 0.0
			for i, v := range row {
				p += min(v, closest[i])
			}
			if p < bestPot {
				bestT, bestPot = t, p
			}
		}
		row := dist.Data[bestT*n : (bestT+1)*n]
		for i, v := range row {
			closest[i] = min(closest[i], v)
		}
		idx = append(idx, cand[bestT])
	}
	return idx, nil
}

// PlusPlus is PlusPlusIndices returning the seeds as a K×D matrix.
func PlusPlus(ctx context.Context, x blas64.General, xn []float64, k int, rng *rand.Rand) (blas64.General, error) {
	idx, err := PlusPlusIndices(ctx, x, xn, k, rng)
	if err != nil {
		return blas64.General{}, err
	}
	return gatherRows(x, idx), nil
}

// sampleD2 draws an index with probability closest[i]/pot; when every
// point already coincides with a seed (pot = 0) it draws uniformly.
func sampleD2(closest []float64, pot float64, rng *rand.Rand) int {
	if pot <= 0 {
		return rng.IntN(len(closest))
	}
	r := rng.Float64() * pot
	acc := 0.0
	for i, v := range closest {
		acc += v
		if acc > r {
			return i
		}
	}
	// Rounding: the last point with positive weight.
	for i := len(closest) - 1; i >= 0; i-- {
		if closest[i] > 0 {
			return i
		}
	}
	return len(closest) - 1
}

// distRows fills dst (len(rows)×n) with squared distances from the rows of
// x listed in rows to every row of x.
func distRows(x blas64.General, xn []float64, rows []int, dst blas64.General) error {
	q := gatherRows(x, rows)
	qn := make([]float64, len(rows))
	for i, r := range rows {
		qn[i] = xn[r]
	}
	dst.Rows = len(rows)
	return backend.SqDistCtx(context.Background(), backend.Active(), dst, q, x, qn, xn)
}

func gatherRows(x blas64.General, rows []int) blas64.General {
	d := x.Cols
	g := blas64.General{Rows: len(rows), Cols: d, Stride: max(1, d), Data: make([]float64, len(rows)*d)}
	for i, r := range rows {
		copy(g.Data[i*d:(i+1)*d], x.Data[r*x.Stride:r*x.Stride+d])
	}
	return g
}

// assignChunk is the number of points whose distances to the centres are
// computed at once (bounding the n×K buffer).
const assignChunk = 4096

// Assign returns the nearest centre of every row of x and the squared
// distance to it (ties to the lower index).
func Assign(ctx context.Context, x blas64.General, xn []float64, centers blas64.General) ([]int, []float64, error) {
	n, k := x.Rows, centers.Rows
	if xn == nil {
		xn = backend.RowSqNorms(x)
	}
	cn := backend.RowSqNorms(centers)
	labels := make([]int, n)
	dmin := make([]float64, n)
	buf := make([]float64, min(n, assignChunk)*k)
	for lo := 0; lo < n; lo += assignChunk {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("cluster: assignment: %w", err)
		}
		hi := min(n, lo+assignChunk)
		dst := blas64.General{Rows: hi - lo, Cols: k, Stride: k, Data: buf[:(hi-lo)*k]}
		blk := blas64.General{Rows: hi - lo, Cols: x.Cols, Stride: x.Stride, Data: x.Data[lo*x.Stride:]}
		if err := backend.SqDistCtx(ctx, backend.Active(), dst, blk, centers, xn[lo:hi], cn); err != nil {
			return nil, nil, err
		}
		for i := 0; i < hi-lo; i++ {
			row := dst.Data[i*k : (i+1)*k]
			b, bv := 0, row[0]
			for j, v := range row {
				if v < bv {
					b, bv = j, v
				}
			}
			labels[lo+i], dmin[lo+i] = b, bv
		}
	}
	return labels, dmin, nil
}

// lloyd runs Lloyd iterations on dense rows from the given centres.
func lloyd(ctx context.Context, x blas64.General, xn []float64, centers blas64.General, maxIter int, tol float64) (*Result, error) {
	d := x.Cols
	assign := func(c blas64.General) ([]int, []float64, error) { return Assign(ctx, x, xn, c) }
	addRow := func(dst []float64, i int) {
		for j, v := range x.Data[i*x.Stride : i*x.Stride+d] {
			dst[j] += v
		}
	}
	return lloydWith(assign, addRow, centers, maxIter, tol)
}

// lloydWith runs Lloyd iterations from the given centres until the total
// squared centre shift falls below tol or maxIter is reached: assign labels
// every point with its nearest centre (and the squared distance to it),
// addRow adds point i to a centre's sum. An empty cluster is re-seeded at
// the point farthest from its centre. The last assignment is to the final
// centres.
func lloydWith(assign func(centers blas64.General) ([]int, []float64, error), addRow func(dst []float64, i int), centers blas64.General, maxIter int, tol float64) (*Result, error) {
	d, k := centers.Cols, centers.Rows
	counts := make([]int, k)
	next := blas64.General{Rows: k, Cols: d, Stride: d, Data: make([]float64, k*d)}
	it := 0
	for it < maxIter {
		labels, dmin, err := assign(centers)
		if err != nil {
			return nil, err
		}
		it++
		clear(next.Data)
		clear(counts)
		for i, c := range labels {
			counts[c]++
			addRow(next.Data[c*d:(c+1)*d], i)
		}
		for c := 0; c < k; c++ {
			row := next.Data[c*d : (c+1)*d]
			if counts[c] == 0 {
				far := 0
				for i, v := range dmin {
					if v > dmin[far] {
						far = i
					}
				}
				addRow(row, far)
				dmin[far] = 0
				continue
			}
			inv := 1 / float64(counts[c])
			for j := range row {
				row[j] *= inv
			}
		}
		shift := 0.0
		for i, v := range next.Data {
			t := v - centers.Data[i]
			shift += t * t
		}
		centers, next = next, centers
		if shift <= tol {
			break
		}
	}
	labels, dmin, err := assign(centers)
	if err != nil {
		return nil, err
	}
	inertia := 0.0
	for _, v := range dmin {
		inertia += v
	}
	return &Result{Centers: centers, Labels: labels, Inertia: inertia, Iterations: it}, nil
}
