package metrics

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// Split is one random division of the samples into a training and a test
// set, as row indices (each increasing).
type Split struct {
	Train, Test []int
}

// RatioSplits returns count random splits of n samples, each with
// round(frac·n) training samples drawn uniformly without replacement (not
// stratified by class) and the rest for testing: the protocol of
// Zheng, Tang, Fang & Zhang, ICPR 2012 Table 1 ("randomly sample 25 times from
// the datasets as the training sets with varying rates from 20% to 80%").
// The same seed gives the same splits.
func RatioSplits(n int, frac float64, count int, seed uint64) ([]Split, error) {
	m := int(math.Round(frac * float64(n)))
	if n < 2 || count < 1 || m < 1 || m >= n || math.IsNaN(frac) {
		return nil, fmt.Errorf("%w: %d splits of %d samples with training fraction %v", ErrInput, count, n, frac)
	}
	rng := rand.New(rand.NewPCG(seed, 0x73706c6974))
	out := make([]Split, count)
	for s := range out {
		perm := rng.Perm(n)
		in := make([]bool, n)
		for _, i := range perm[:m] {
			in[i] = true
		}
		out[s] = fromMask(in)
	}
	return out, nil
}

// PerClassSplits returns count random "Gp/Pq" splits (Cai, He & Han, AAAI 2007
// Table 2): p samples of every class drawn at random for training, the
// remaining q of each class for testing. Every class needs more than p
// samples.
func PerClassSplits(labels []int, p, count int, seed uint64) ([]Split, error) {
	if p < 1 || count < 1 {
		return nil, fmt.Errorf("%w: %d splits with %d training samples per class", ErrInput, count, p)
	}
	byClass := map[int][]int{}
	var order []int
	for i, l := range labels {
		if _, ok := byClass[l]; !ok {
			order = append(order, l)
		}
		byClass[l] = append(byClass[l], i)
	}
	for _, l := range order {
		if len(byClass[l]) <= p {
			return nil, fmt.Errorf("%w: class %d has %d samples, G%d needs more", ErrInput, l, len(byClass[l]), p)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x6770707173))
	out := make([]Split, count)
	for s := range out {
		in := make([]bool, len(labels))
		for _, l := range order {
			members := byClass[l]
			for _, k := range rng.Perm(len(members))[:p] {
				in[members[k]] = true
			}
		}
		out[s] = fromMask(in)
	}
	return out, nil
}

func fromMask(in []bool) Split {
	var s Split
	for i, t := range in {
		if t {
			s.Train = append(s.Train, i)
		} else {
			s.Test = append(s.Test, i)
		}
	}
	return s
}

// Rows returns the listed rows of x: a *sparse.CSR stays sparse, anything
// else becomes a *mat.Dense.
func Rows(x mat.Matrix, idx []int) mat.Matrix {
	if c, ok := x.(*sparse.CSR); ok {
		_, d := c.Dims()
		cols := make([]int, d)
		for j := range cols {
			cols[j] = j
		}
		return c.Submatrix(idx, cols)
	}
	if d, ok := x.(*mat.Dense); ok {
		return rowsOf(d.RawMatrix(), idx)
	}
	_, d := x.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for r, i := range idx {
		for j := 0; j < d; j++ {
			out.Set(r, j, x.At(i, j))
		}
	}
	return out
}

// Labels returns labels[idx[0]], labels[idx[1]], ….
func Labels(labels []int, idx []int) []int {
	out := make([]int, len(idx))
	for r, i := range idx {
		out[r] = labels[i]
	}
	return out
}

// OneNN is the accuracy of the nearest-neighbour classifier: every test row
// takes the label of its nearest training row (Euclidean; ties to the
// lower training index), and the result is the fraction of test rows whose
// label is right. Cost: the neighbour search, m·n·D flam by brute force
// (engine/neighbors).
func OneNN(ctx context.Context, train mat.Matrix, trainLabels []int, test mat.Matrix, testLabels []int) (float64, error) {
	tr, te, err := checkNN(train, trainLabels, test, testLabels)
	if err != nil {
		return 0, err
	}
	var a, b mat.Dense
	a.SetRawMatrix(tr)
	b.SetRawMatrix(te)
	nb, err := neighbors.KNNQuery(ctx, &a, &b, 1, neighbors.Options{})
	if err != nil {
		return 0, err
	}
	right := 0
	for i := range testLabels {
		if trainLabels[nb.Ind[i]] == testLabels[i] {
			right++
		}
	}
	return float64(right) / float64(len(testLabels)), nil
}

func checkNN(train mat.Matrix, trainLabels []int, test mat.Matrix, testLabels []int) (blas64.General, blas64.General, error) {
	tr, err := denseRows(train)
	if err != nil {
		return tr, tr, err
	}
	te, err := denseRows(test)
	if err != nil {
		return tr, te, err
	}
	if tr.Cols != te.Cols {
		return tr, te, fmt.Errorf("%w: %d training features, %d test features", ErrInput, tr.Cols, te.Cols)
	}
	if len(trainLabels) != tr.Rows || len(testLabels) != te.Rows {
		return tr, te, fmt.Errorf("%w: %d training rows with %d labels, %d test rows with %d labels", ErrInput, tr.Rows, len(trainLabels), te.Rows, len(testLabels))
	}
	return tr, te, nil
}

// OneNNDims is OneNN on the leading d columns of train and test for every
// d in dims (nil: all columns): the accuracy of an embedding as a function
// of its dimension, from one fit at the largest dimension, for methods
// whose leading coordinates do not depend on how many are asked for (PCA,
// LDA, LPP, NPE, Isometric Projection, OIP: their projections are
// eigenvectors in order).
//
// The squared distances are accumulated over blocks of columns (the
// backend's distance kernel on each block, ‖x‖² + ‖y‖² − 2x·y), with the
// nearest training row taken at every d asked for, so all the dimensions
// together cost one search at the largest: m·n·max(dims) flam. Ties (equal
// distances to rounding) go to the lower training index.
func OneNNDims(ctx context.Context, train mat.Matrix, trainLabels []int, test mat.Matrix, testLabels []int, dims []int) ([]float64, error) {
	tr, te, err := checkNN(train, trainLabels, test, testLabels)
	if err != nil {
		return nil, err
	}
	if dims == nil {
		dims = []int{tr.Cols}
	}
	for _, d := range dims {
		if d < 1 || d > tr.Cols {
			return nil, fmt.Errorf("%w: dimension %d of %d columns", ErrInput, d, tr.Cols)
		}
	}
	stops := append([]int(nil), dims...)
	sort.Ints(stops)
	stops = slices.Compact(stops)
	n, m := tr.Rows, te.Rows
	right := make(map[int]int, len(stops))
	const chunk = 256
	acc := make([]float64, chunk*n)
	part := make([]float64, chunk*n)
	for lo := 0; lo < m; lo += chunk {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("metrics: 1-NN: %w", err)
		}
		hi := min(m, lo+chunk)
		rows := hi - lo
		clear(acc[:rows*n])
		prev := 0
		for _, d := range stops {
			q := blas64.General{Rows: rows, Cols: d - prev, Stride: te.Stride, Data: te.Data[lo*te.Stride+prev:]}
			p := blas64.General{Rows: n, Cols: d - prev, Stride: tr.Stride, Data: tr.Data[prev:]}
			dst := blas64.General{Rows: rows, Cols: n, Stride: n, Data: part[:rows*n]}
			if err := backend.SqDistCtx(ctx, backend.Active(), dst, q, p, nil, nil); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrInput, err)
			}
			for i, v := range dst.Data {
				acc[i] += v
			}
			for i := 0; i < rows; i++ {
				row := acc[i*n : (i+1)*n]
				b, bv := 0, row[0]
				for j, v := range row {
					if v < bv {
						b, bv = j, v
					}
				}
				if trainLabels[b] == testLabels[lo+i] {
					right[d]++
				}
			}
			prev = d
		}
	}
	out := make([]float64, len(dims))
	for k, d := range dims {
		out[k] = float64(right[d]) / float64(m)
	}
	return out, nil
}

// Mapper is a fitted embedding that maps rows (every engine model is one).
type Mapper interface {
	Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error)
}

// Fitter fits an embedding to the training rows of a split (with their
// labels, for supervised methods).
type Fitter func(ctx context.Context, train mat.Matrix, labels []int) (Mapper, error)

// Summary is a mean and standard deviation over repetitions.
type Summary struct {
	Mean, Std float64 // Std with n − 1 in the denominator (0 for one value)
	Values    []float64
}

// Summarize returns the mean and the sample standard deviation of v.
func Summarize(v []float64) Summary {
	s := Summary{Values: append([]float64(nil), v...)}
	if len(v) == 0 {
		return s
	}
	for _, x := range v {
		s.Mean += x
	}
	s.Mean /= float64(len(v))
	if len(v) > 1 {
		ss := 0.0
		for _, x := range v {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.Std = math.Sqrt(ss / float64(len(v)-1))
	}
	return s
}

// OneNNSplits is the 1-NN accuracy over random splits: for every split the
// embedding is fitted to the training rows (fit; nil: the raw features, the
// "baseline"), training and test rows are mapped by it, and OneNN classifies
// the test rows. It returns the accuracies and their mean and standard
// deviation.
func OneNNSplits(ctx context.Context, x mat.Matrix, labels []int, splits []Split, fit Fitter) (Summary, error) {
	n, _ := x.Dims()
	if len(labels) != n {
		return Summary{}, fmt.Errorf("%w: %d labels for %d rows", ErrInput, len(labels), n)
	}
	acc := make([]float64, len(splits))
	for s, sp := range splits {
		tr, te := Rows(x, sp.Train), Rows(x, sp.Test)
		ytr, yte := Labels(labels, sp.Train), Labels(labels, sp.Test)
		if fit != nil {
			m, err := fit(ctx, tr, ytr)
			if err != nil {
				return Summary{}, fmt.Errorf("split %d: %w", s, err)
			}
			if tr, err = m.Transform(ctx, tr); err != nil {
				return Summary{}, fmt.Errorf("split %d: %w", s, err)
			}
			if te, err = m.Transform(ctx, te); err != nil {
				return Summary{}, fmt.Errorf("split %d: %w", s, err)
			}
		}
		a, err := OneNN(ctx, tr, ytr, te, yte)
		if err != nil {
			return Summary{}, fmt.Errorf("split %d: %w", s, err)
		}
		acc[s] = a
	}
	return Summarize(acc), nil
}

// FLDALeaveOneOut is the classification protocol of Mehrbani & Kahaei,
// Low-Rank Isomap §4.2 (Tables 5–6): every sample in turn is left out,
// Fisher's LDA (all c − 1 directions, the default svd solver, which needs
// no nonsingular within-class scatter) is fitted to the others, and the
// sample is classified by the FLDA Gaussian rule (engine.LDAModel.Predict);
// the result is the fraction classified correctly. FLDALeaveOneOutRidge
// has the predictions and a ridge.
func FLDALeaveOneOut(ctx context.Context, x mat.Matrix, labels []int) (float64, error) {
	acc, _, err := FLDALeaveOneOutRidge(ctx, x, labels, 0)
	return acc, err
}

// FLDALeaveOneOutRidge is FLDALeaveOneOut with the predicted labels and,
// when reg > 0, the Fisherfaces solver with ridge reg. A sample that is
// the only one of its class is counted as wrong (its class is absent from
// its fold). Folds run in parallel; each is a full engine.LDA fit,
// O(N·D² + D³) — meant for latent spaces of modest dimension (the outputs
// of Low-Rank Isomap, Isomap or PCA), where it takes milliseconds.
func FLDALeaveOneOutRidge(ctx context.Context, x mat.Matrix, labels []int, reg float64) (float64, []int, error) {
	const what = "flda leave-one-out"
	n, d := x.Dims()
	if len(labels) != n {
		return 0, nil, fmt.Errorf("%s: %w: %d labels for %d samples", what, engine.ErrShape, len(labels), n)
	}
	if reg < 0 || math.IsNaN(reg) || math.IsInf(reg, 0) {
		return 0, nil, fmt.Errorf("%s: %w: reg = %v", what, engine.ErrBadSetting, reg)
	}
	solver := engine.LDASVD
	if reg > 0 {
		solver = engine.LDAFisherfaces
	}
	pred := make([]int, n)
	errs := make([]error, n)
	err := backend.ParallelForCtx(ctx, n, 1, func(lo, hi int) {
		rest := mat.NewDense(max(n-1, 1), d, nil)
		ry := make([]int, n-1)
		for i := lo; i < hi; i++ {
			r := 0
			for j := 0; j < n; j++ {
				if j != i {
					rest.SetRow(r, mat.Row(nil, j, x))
					ry[r] = labels[j]
					r++
				}
			}
			m, err := engine.LDA{Labels: ry, Reg: reg, Solver: solver}.Fit(ctx, rest)
			if err != nil {
				errs[i] = fmt.Errorf("%s: fold %d: %w", what, i, err)
				continue
			}
			p, err := m.Predict(ctx, mat.NewDense(1, d, mat.Row(nil, i, x)))
			if err != nil {
				errs[i] = fmt.Errorf("%s: fold %d: %w", what, i, err)
				continue
			}
			pred[i] = p[0]
		}
	})
	if err != nil {
		return 0, nil, err
	}
	for _, e := range errs {
		if e != nil {
			return 0, nil, e
		}
	}
	right := 0
	for i, p := range pred {
		if p == labels[i] {
			right++
		}
	}
	return float64(right) / float64(n), pred, nil
}

// LowRankIsomapLeaveOneOut is the classification protocol of Mehrbani &
// Kahaei, Low-Rank Isomap §4.2 (Tables 5–6): Low-Rank Isomap of all the
// samples with s (unsupervised unless s.Labels is set, in which case the
// held-out labels leak into the projection), then FLDALeaveOneOut in the
// latent space. It returns the accuracy and the model.
func LowRankIsomapLeaveOneOut(ctx context.Context, s engine.LowRankIsomap, x mat.Matrix, labels []int) (float64, *engine.LowRankIsomapModel, error) {
	m, err := s.Fit(ctx, x)
	if err != nil {
		return 0, nil, err
	}
	acc, err := FLDALeaveOneOut(ctx, m.Embedding(), labels)
	return acc, m, err
}
