package neighbors

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// recallTol is the relative slack under which a neighbour counts as one of
// the k nearest: ties at the k-th distance (duplicates, grids) make the
// exact lists one choice among several equally right ones.
const recallTol = 1e-9

// rowRecall is the fraction of the k entries of an approximate list whose
// distance is at most the k-th exact distance kth.
func rowRecall(ds []float64, kth float64) float64 {
	if len(ds) == 0 {
		return 1
	}
	lim := kth*(1+recallTol) + 1e-300
	c := 0
	for _, d := range ds {
		if d <= lim {
			c++
		}
	}
	return float64(c) / float64(len(ds))
}

// Recall returns the recall@k of approximate neighbour lists against exact
// ones (both as KNN returns them, k entries per point, distances exact):
// the mean over the points of the fraction of approximate neighbours that
// are among the k nearest, where a neighbour at the k-th exact distance
// (a tie) counts. It panics if the two do not have the same shape.
func Recall(approx, exact *Result) float64 {
	if approx.Len() != exact.Len() || len(approx.Ind) != len(exact.Ind) {
		panic(fmt.Sprintf("neighbors: Recall of %d lists (%d entries) against %d (%d)", approx.Len(), len(approx.Ind), exact.Len(), len(exact.Ind)))
	}
	n := approx.Len()
	if n == 0 {
		return 1
	}
	s := 0.0
	for i := 0; i < n; i++ {
		_, ad := approx.Row(i)
		_, ed := exact.Row(i)
		if len(ed) == 0 {
			s++
			continue
		}
		s += rowRecall(ad, ed[len(ed)-1])
	}
	return s / float64(n)
}

// RecallEstimate is the recall of a neighbour graph measured on a sample.
type RecallEstimate struct {
	// Recall is the mean recall@k over the sampled points.
	Recall float64 `json:"recall"`
	// StdErr is its standard error: the sample standard deviation of the
	// points' recalls over √s, times the finite-population correction
	// √(1 − s/n).
	StdErr float64 `json:"stderr"`
	// Sample is the number of points s.
	Sample int `json:"sample"`
}

// SampledRecall measures the recall@k of the lists approx (as KNN or
// KNNApprox return them, for the rows of x) on sample points drawn without
// replacement by seed: their exact k nearest are found by brute force
// (KNNQuery with opt, cost sample·n·D) and compared as in Recall. With
// sample ≥ n every point is measured.
func SampledRecall(ctx context.Context, x mat.Matrix, approx *Result, sample int, seed uint64, opt Options) (RecallEstimate, error) {
	g, err := rowMajor(ctx, "x", x)
	if err != nil {
		return RecallEstimate{}, err
	}
	return sampledRecall(ctx, g, approx, sample, seed, opt)
}

// SampledRecallSparse is SampledRecall for sparse rows (opt.Metric
// Euclidean or Cosine).
func SampledRecallSparse(ctx context.Context, x *sparse.CSR, approx *Result, sample int, seed uint64, opt Options) (RecallEstimate, error) {
	if err := finiteCSR("x", x); err != nil {
		return RecallEstimate{}, err
	}
	n, d := x.Dims()
	return sampleRecall(n, approx, sample, seed, func(idx []int, kq int) (*Result, error) {
		all := make([]int, d)
		for j := range all {
			all[j] = j
		}
		return bruteKNN(ctx, newSparseSpace(opt.Metric, x, x.Submatrix(idx, all)), kq, false)
	})
}

func sampledRecall(ctx context.Context, g blas64.General, approx *Result, sample int, seed uint64, opt Options) (RecallEstimate, error) {
	return sampleRecall(g.Rows, approx, sample, seed, func(idx []int, kq int) (*Result, error) {
		q := blas64.General{Rows: len(idx), Cols: g.Cols, Stride: max(1, g.Cols), Data: make([]float64, len(idx)*g.Cols)}
		for r, i := range idx {
			copy(q.Data[r*g.Cols:(r+1)*g.Cols], g.Data[i*g.Stride:i*g.Stride+g.Cols])
		}
		return knnDense(ctx, g, q, kq, false, Options{Metric: opt.Metric, Algorithm: Brute, Impl: opt.Impl})
	})
}

// sampleRecall draws the sample, has exactOf find the kq nearest of the
// sampled points (themselves included) and compares.
func sampleRecall(n int, approx *Result, sample int, seed uint64, exactOf func(idx []int, kq int) (*Result, error)) (RecallEstimate, error) {
	if approx.Len() != n {
		return RecallEstimate{}, fmt.Errorf("%w: %d neighbour lists for %d points", ErrInput, approx.Len(), n)
	}
	if sample <= 0 {
		return RecallEstimate{}, fmt.Errorf("%w: recall sample of %d points", ErrInput, sample)
	}
	idx := samplePoints(n, sample, seed)
	s := len(idx)
	maxK := 0
	for _, i := range idx {
		maxK = max(maxK, approx.Ptr[i+1]-approx.Ptr[i])
	}
	kq := min(n, maxK+1) // the point itself comes back too
	exact, err := exactOf(idx, kq)
	if err != nil {
		return RecallEstimate{}, err
	}
	rec := make([]float64, s)
	for r, i := range idx {
		_, ad := approx.Row(i)
		js, ed := exact.Row(r)
		// Drop the point itself (or, if a duplicate hid it, the last).
		drop := len(js) - 1
		for c, j := range js {
			if j == i {
				drop = c
				break
			}
		}
		kth := 0.0
		cnt := 0
		for c := range js {
			if c == drop {
				continue
			}
			if cnt == len(ad)-1 {
				kth = ed[c]
				break
			}
			cnt++
		}
		if len(ad) == 0 {
			rec[r] = 1
			continue
		}
		rec[r] = rowRecall(ad, kth)
	}
	return estimate(rec, n), nil
}

// estimate returns the mean of the sampled recalls with its standard error.
func estimate(rec []float64, n int) RecallEstimate {
	s := len(rec)
	mean := 0.0
	for _, r := range rec {
		mean += r
	}
	mean /= float64(s)
	se := 0.0
	if s > 1 {
		v := 0.0
		for _, r := range rec {
			v += (r - mean) * (r - mean)
		}
		v /= float64(s - 1)
		se = math.Sqrt(v / float64(s) * math.Max(0, 1-float64(s)/float64(n)))
	}
	return RecallEstimate{Recall: mean, StdErr: se, Sample: s}
}

// samplePoints draws min(s, n) distinct points of [0, n) by seed, sorted.
func samplePoints(n, s int, seed uint64) []int {
	if s >= n {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	rng := rand.New(rand.NewPCG(seed, 0x5a3b1e))
	seen := make(map[int]bool, s)
	idx := make([]int, 0, s)
	for len(idx) < s {
		i := rng.IntN(n)
		if !seen[i] {
			seen[i] = true
			idx = append(idx, i)
		}
	}
	sort.Ints(idx)
	return idx
}

// SampledRecall32 is SampledRecall for Euclidean distances between rows
// held in float32 (x is rows × cols, row i at x[i·cols:(i+1)·cols], as
// KNNApprox32 takes them): the exact neighbours of the sampled points are
// found by brute force over blocks of recallBlock rows widened to float64,
// so the measure holds no float64 copy of x (8·recallBlock·cols bytes
// besides the sample's lists). opt.Metric must be Euclidean.
func SampledRecall32(ctx context.Context, x []float32, cols int, approx *Result, sample int, seed uint64, opt Options) (RecallEstimate, error) {
	if cols < 1 || len(x)%cols != 0 {
		return RecallEstimate{}, fmt.Errorf("%w: %d values in rows of %d", ErrInput, len(x), cols)
	}
	if opt.Metric != Euclidean {
		return RecallEstimate{}, fmt.Errorf("%w: SampledRecall32 measures Euclidean distances only", ErrInput)
	}
	n := len(x) / cols
	return sampleRecall(n, approx, sample, seed, func(idx []int, kq int) (*Result, error) {
		q := widen32(blas64.General{Rows: len(idx), Cols: cols, Stride: cols, Data: make([]float64, len(idx)*cols)}, func(r int) []float32 {
			return x[idx[r]*cols : (idx[r]+1)*cols]
		})
		best := &Result{Ptr: make([]int, len(idx)+1)} // empty lists
		blockOpt := Options{Metric: Euclidean, Algorithm: Brute, Impl: opt.Impl}
		blk := blas64.General{Cols: cols, Stride: cols, Data: make([]float64, min(n, recallBlock)*cols)}
		for lo := 0; lo < n; lo += recallBlock {
			hi := min(n, lo+recallBlock)
			blk.Rows = hi - lo
			widen32(blk, func(r int) []float32 { return x[(lo+r)*cols : (lo+r+1)*cols] })
			part, err := knnDense(ctx, blk, q, min(kq, blk.Rows), false, blockOpt)
			if err != nil {
				return nil, err
			}
			best = mergeLists(best, part, lo, kq)
		}
		return best, nil
	})
}

// recallBlock is the number of rows SampledRecall32 widens at a time.
const recallBlock = 8192

// widen32 sets the rows of g (g.Rows of them) to row(r) in float64 and
// returns g.
func widen32(g blas64.General, row func(r int) []float32) blas64.General {
	for r := 0; r < g.Rows; r++ {
		dst := g.Data[r*g.Stride : r*g.Stride+g.Cols]
		for c, v := range row(r) {
			dst[c] = float64(v)
		}
	}
	return g
}

// mergeLists returns, for every query, the k nearest of a's list and b's
// (b's indices offset by off, all of them above a's), by distance, ties by
// index: the lists of a search over rows seen block after block.
func mergeLists(a, b *Result, off, k int) *Result {
	m := b.Len()
	out := &Result{Ptr: make([]int, m+1), Ind: make([]int, 0, m*k), Dist: make([]float64, 0, m*k)}
	for q := 0; q < m; q++ {
		ai, ad := a.Row(q)
		bi, bd := b.Row(q)
		i, j := 0, 0
		for len(out.Ind)-out.Ptr[q] < k && (i < len(ai) || j < len(bi)) {
			// Ties go to a: its indices are all below b's.
			if j == len(bi) || (i < len(ai) && ad[i] <= bd[j]) {
				out.Ind, out.Dist = append(out.Ind, ai[i]), append(out.Dist, ad[i])
				i++
			} else {
				out.Ind, out.Dist = append(out.Ind, bi[j]+off), append(out.Dist, bd[j])
				j++
			}
		}
		out.Ptr[q+1] = len(out.Ind)
	}
	return out
}
