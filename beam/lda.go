package manifoldbeam

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// Labeled is a row's features with its class.
type Labeled struct {
	Label int
	X     []float64
}

// LDAStats are the merged statistics of a distributed LDA fit: the total
// statistics (count, mean, centred scatter, as PCAStats) and, for every
// class (Labels ascending), its count and mean, merged pairwise like the
// total's mean (Chan, Golub & LeVeque 1983). Err records a width mismatch.
type LDAStats struct {
	Total  PCAStats
	Labels []int
	Counts []int64
	Means  []float64 // classes × D, row-major
	Err    string
}

func init() {
	beam.RegisterType(reflect.TypeOf((*Labeled)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*LDAStats)(nil)).Elem())
	register.Combiner3[LDAStats, Labeled, LDAStats](&ldaCombineFn{})
	register.DoFn4x0[context.Context, Row, func(Labeled), func(DeadLetter)](&labeledRowsFn{})
	register.DoFn2x1[context.Context, LDAStats, error](&writeLDAFn{})
	register.Emitter1[Labeled]()
}

// FitLDA fits LDA (engine.LDAFromStats: the SVD solver of LDA.Fit) on
// labelled rows (Row.Label, an integer: ReadLabeledCSV) too many for one
// machine: each worker folds its rows into the total mean and scatter and
// the class counts and means, partial statistics are merged pairwise, and
// one worker solves the discriminant (dim directions; 0: classes − 1) and
// writes the model file to modelPath (under a temporary name, renamed when
// complete). Rows with an Err, a NaN/Inf value or a label that is not an
// integer are returned as dead letters and left out of the fit.
//
// Cost: D² flam a row, D² + c·D words a worker and a merge; the eigen
// step is one dense D×D problem and the SVD of an r×c matrix.
func FitLDA(s beam.Scope, rows beam.PCollection, dim int, modelPath string) (dead beam.PCollection) {
	s = s.Scope("manifold.FitLDA")
	good, dead := beam.ParDo2(s, &labeledRowsFn{}, rows)
	stats := beam.Combine(s, &ldaCombineFn{}, good)
	beam.ParDo0(s, &writeLDAFn{Path: modelPath, Dim: dim}, stats)
	return dead
}

// labeledRowsFn passes the rows that can enter a fit with their integer
// labels and sends the others to the dead letters.
type labeledRowsFn struct{}

func (f *labeledRowsFn) ProcessElement(ctx context.Context, r Row, emit func(Labeled), dead func(DeadLetter)) {
	rowsIn.Inc(ctx, 1)
	msg := rowProblem(r)
	label, err := strconv.Atoi(strings.TrimSpace(r.Label))
	if msg == "" && err != nil {
		msg = fmt.Sprintf("%v: label %q is not an integer", engine.ErrLabels, r.Label)
	}
	if msg != "" {
		deadLetters.Inc(ctx, 1)
		dead(DeadLetter{ID: r.ID, Error: msg})
		return
	}
	rowsOut.Inc(ctx, 1)
	emit(Labeled{Label: label, X: r.X})
}

type ldaCombineFn struct{}

func (ldaCombineFn) CreateAccumulator() LDAStats { return LDAStats{} }

func (ldaCombineFn) AddInput(a LDAStats, x Labeled) LDAStats {
	if a.Err != "" {
		return a
	}
	a.Total = pcaCombineFn{}.AddInput(a.Total, x.X)
	if a.Total.Err != "" {
		a.Err = a.Total.Err
		return a
	}
	return a.addClass(x.Label, 1, x.X)
}

// addClass merges nb rows of class label with mean mb into a.
func (a LDAStats) addClass(label int, nb int64, mb []float64) LDAStats {
	d := len(mb)
	k, found := slices.BinarySearch(a.Labels, label)
	if !found {
		a.Labels = slices.Insert(a.Labels, k, label)
		a.Counts = slices.Insert(a.Counts, k, 0)
		a.Means = slices.Insert(a.Means, k*d, make([]float64, d)...)
	}
	na := a.Counts[k]
	n := na + nb
	mean := a.Means[k*d : (k+1)*d]
	for j, v := range mb {
		mean[j] += (v - mean[j]) * float64(nb) / float64(n)
	}
	a.Counts[k] = n
	return a
}

func (ldaCombineFn) MergeAccumulators(a, b LDAStats) LDAStats {
	switch {
	case a.Err != "":
		return a
	case b.Err != "":
		return b
	}
	a.Total = pcaCombineFn{}.MergeAccumulators(a.Total, b.Total)
	if a.Total.Err != "" {
		a.Err = a.Total.Err
		return a
	}
	d := a.Total.D
	for k, label := range b.Labels {
		a = a.addClass(label, b.Counts[k], b.Means[k*d:(k+1)*d])
	}
	return a
}

func (ldaCombineFn) ExtractOutput(a LDAStats) LDAStats {
	a.Total = fold(a.Total)
	return a
}

// Engine returns the statistics as engine.LDAFromStats takes them.
func (a LDAStats) Engine() (engine.LDAStats, error) {
	t := fold(a.Total)
	if a.Err != "" || t.Err != "" {
		return engine.LDAStats{}, fmt.Errorf("%w: %s%s", ErrFit, a.Err, t.Err)
	}
	if t.N < 2 {
		return engine.LDAStats{}, fmt.Errorf("%w: %w: %d row(s)", ErrFit, engine.ErrTooFewSamples, t.N)
	}
	d := t.D
	st := engine.LDAStats{Mean: t.Mean, Classes: a.Labels}
	sc := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			sc.SetSym(i, j, t.Scatter[i*d+j])
		}
	}
	st.Scatter = sc
	for k, c := range a.Counts {
		if c > math.MaxInt32 {
			return engine.LDAStats{}, fmt.Errorf("%w: class %d has %d rows", ErrFit, a.Labels[k], c)
		}
		st.Counts = append(st.Counts, int(c))
		st.ClassMeans = append(st.ClassMeans, a.Means[k*d:(k+1)*d])
	}
	return st, nil
}

// writeLDAFn solves the discriminant of the merged statistics and writes
// the model.
type writeLDAFn struct {
	Path string
	Dim  int
}

func (f *writeLDAFn) ProcessElement(ctx context.Context, a LDAStats) error {
	st, err := a.Engine()
	if err != nil {
		return err
	}
	m, err := engine.LDAFromStats(ctx, st, f.Dim)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFit, err)
	}
	return SaveModel(ctx, m, f.Path)
}
