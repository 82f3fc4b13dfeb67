package manifoldbeam

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/google/uuid"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// ErrFit is returned (wrapped) when a distributed fit cannot combine its
// input (rows of different widths, too few rows).
var ErrFit = errors.New("manifold-beam: fit")

// statsBlock is the number of rows a PCA accumulator buffers before it
// folds them into its statistics with one rank-k update.
const statsBlock = 256

// PCAStats are the merged statistics of a distributed PCA fit: the row
// count, the mean and the centred scatter S = Σ (x−mean)(x−mean)ᵀ (upper
// triangle of a D×D row-major matrix), plus the rows not yet folded in.
// Err records a width mismatch met while combining.
type PCAStats struct {
	N       int64
	D       int
	Mean    []float64
	Scatter []float64
	Buf     []float64 // pending rows, row-major, len = BufRows·D
	BufRows int
	Err     string
}

func init() {
	beam.RegisterType(reflect.TypeOf((*PCAStats)(nil)).Elem())
	register.Combiner3[PCAStats, []float64, PCAStats](&pcaCombineFn{})
	register.DoFn4x0[context.Context, Row, func([]float64), func(DeadLetter)](&finiteRowsFn{})
	register.DoFn2x1[context.Context, PCAStats, error](&writePCAFn{})
	register.DoFn1x1[Row, Row](&requireWidthFn{})
	register.Emitter1[[]float64]()
}

// FitPCA fits PCA with dim components on rows too many for one machine:
// each worker folds its rows into a mean and a centred scatter, partial
// statistics are merged pairwise (Chan, Golub & LeVeque, "Algorithms for
// computing the sample variance", The American Statistician 37(3), 1983,
// doi:10.1080/00031305.1983.10483115: mean and scatter updated with the
// difference of the means, never raw sums of squares), and one worker
// eigendecomposes the covariance S/(n−1) (engine.PCAFromCovariance) and
// writes the model file to modelPath (any registered filesystem; written
// under a temporary name and renamed when complete). Rows with an Err or
// a NaN/Inf value are returned as dead letters and left out of the fit;
// rows of differing widths fail the pipeline with ErrFit.
//
// Cost: D² flam a row (rank-k updates of statsBlock rows), D² words a
// worker, D² words a merge; the eigen step is one dense D×D problem.
func FitPCA(s beam.Scope, rows beam.PCollection, dim int, modelPath string) (dead beam.PCollection) {
	s = s.Scope("manifold.FitPCA")
	good, dead := beam.ParDo2(s, &finiteRowsFn{}, rows)
	stats := beam.Combine(s, &pcaCombineFn{}, good)
	beam.ParDo0(s, &writePCAFn{Path: modelPath, Dim: dim}, stats)
	return dead
}

// finiteRowsFn passes the features of rows that can enter a fit and sends
// the others to the dead letters.
type finiteRowsFn struct{}

func (f *finiteRowsFn) ProcessElement(ctx context.Context, r Row, emit func([]float64), dead func(DeadLetter)) {
	rowsIn.Inc(ctx, 1)
	if msg := rowProblem(r); msg != "" {
		deadLetters.Inc(ctx, 1)
		dead(DeadLetter{ID: r.ID, Error: msg})
		return
	}
	rowsOut.Inc(ctx, 1)
	emit(r.X)
}

// RequireWidth marks every row without exactly width features (and no
// error yet) with an error (Row.Err), so that Project and the fits send it
// to the dead letters with its ID instead of failing: a fit learns the
// width from the rows themselves, and without RequireWidth rows of
// differing widths fail it with ErrFit, since no worker can tell which
// width is the wrong one. CSV with a header, .npy and Parquet shards all
// go through it alike (manifold-beam's -width D).
func RequireWidth(s beam.Scope, rows beam.PCollection, width int) beam.PCollection {
	return beam.ParDo(s.Scope("manifold.RequireWidth"), &requireWidthFn{Width: width}, rows)
}

type requireWidthFn struct{ Width int }

func (f *requireWidthFn) ProcessElement(r Row) Row {
	if r.Err == "" && len(r.X) != f.Width {
		r.Err = fmt.Sprintf("row has %d features, want %d (the required width)", len(r.X), f.Width)
		r.X = nil
	}
	return r
}

// rowProblem says why r cannot enter a fit (its read error, no features,
// a NaN or Inf value), or "" when it can.
func rowProblem(r Row) string {
	if r.Err != "" {
		return r.Err
	}
	if len(r.X) == 0 {
		return errWidth.Error()
	}
	for j, v := range r.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Sprintf("%v: feature %d is %v", engine.ErrNotFinite, j+1, v)
		}
	}
	return ""
}

type pcaCombineFn struct{}

func (pcaCombineFn) CreateAccumulator() PCAStats { return PCAStats{} }

func (pcaCombineFn) AddInput(a PCAStats, x []float64) PCAStats {
	if a.Err != "" {
		return a
	}
	if a.D == 0 {
		a.D = len(x)
	}
	if len(x) != a.D {
		a.Err = fmt.Sprintf("a row has %d features, others %d", len(x), a.D)
		return a
	}
	a.Buf = append(a.Buf, x...)
	a.BufRows++
	if a.BufRows >= statsBlock {
		a = fold(a)
	}
	return a
}

func (pcaCombineFn) MergeAccumulators(a, b PCAStats) PCAStats {
	switch {
	case a.Err != "":
		return a
	case b.Err != "":
		return b
	}
	a, b = fold(a), fold(b)
	if b.N == 0 {
		return a
	}
	if a.N == 0 {
		return b
	}
	if a.D != b.D {
		a.Err = fmt.Sprintf("rows have %d and %d features", a.D, b.D)
		return a
	}
	return merge(a, b.N, b.Mean, b.Scatter)
}

func (pcaCombineFn) ExtractOutput(a PCAStats) PCAStats { return fold(a) }

// fold merges the buffered rows into a's statistics: their own mean and
// centred scatter (one rank-k update), then the pairwise merge.
func fold(a PCAStats) PCAStats {
	if a.BufRows == 0 {
		return a
	}
	n, d := a.BufRows, a.D
	mean := make([]float64, d)
	for i := range n {
		for j, v := range a.Buf[i*d : (i+1)*d] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	for i := range n {
		row := a.Buf[i*d : (i+1)*d]
		for j := range row {
			row[j] -= mean[j]
		}
	}
	sc := blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: make([]float64, d*d)}
	blas64.Syrk(blas.Trans, 1, blas64.General{Rows: n, Cols: d, Stride: d, Data: a.Buf[:n*d]}, 0, sc)
	a.Buf, a.BufRows = a.Buf[:0], 0
	if a.N == 0 {
		a.N, a.Mean, a.Scatter = int64(n), mean, sc.Data
		return a
	}
	return merge(a, int64(n), mean, sc.Data)
}

// merge folds (nb, meanB, scatterB) into a: n = na+nb, δ = meanB − meanA,
// mean = meanA + δ·nb/n, S = Sa + Sb + δδᵀ·na·nb/n (Chan et al. 1983).
func merge(a PCAStats, nb int64, meanB, scatterB []float64) PCAStats {
	d := a.D
	na := a.N
	n := na + nb
	delta := make([]float64, d)
	for j := range delta {
		delta[j] = meanB[j] - a.Mean[j]
	}
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			a.Scatter[i*d+j] += scatterB[i*d+j]
		}
	}
	blas64.Syr(float64(na)*float64(nb)/float64(n), blas64.Vector{N: d, Inc: 1, Data: delta},
		blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: a.Scatter})
	for j := range a.Mean {
		a.Mean[j] += delta[j] * float64(nb) / float64(n)
	}
	a.N = n
	return a
}

// Covariance returns the mean and the covariance S/(N−1) of st.
func (st PCAStats) Covariance() ([]float64, *mat.SymDense, error) {
	st = fold(st)
	if st.Err != "" {
		return nil, nil, fmt.Errorf("%w: %s", ErrFit, st.Err)
	}
	if st.N < 2 {
		return nil, nil, fmt.Errorf("%w: %w: %d row(s)", ErrFit, engine.ErrTooFewSamples, st.N)
	}
	d := st.D
	cov := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			cov.SetSym(i, j, st.Scatter[i*d+j]/float64(st.N-1))
		}
	}
	return st.Mean, cov, nil
}

// writePCAFn eigendecomposes the merged statistics and writes the model.
type writePCAFn struct {
	Path string
	Dim  int
}

func (f *writePCAFn) ProcessElement(ctx context.Context, st PCAStats) error {
	mean, cov, err := st.Covariance()
	if err != nil {
		return err
	}
	m, err := engine.PCAFromCovariance(ctx, mean, cov, int(st.N), f.Dim)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFit, err)
	}
	return SaveModel(ctx, m, f.Path)
}

// SaveModel writes m to path through Beam's filesystem registry, under a
// temporary name first, renamed once complete.
func SaveModel(ctx context.Context, m engine.Model, path string) error {
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		return fmt.Errorf("%w %s: %w", ErrOutput, path, err)
	}
	tmp := path + ".tmp-" + uuid.NewString()
	if err := writeBytes(ctx, tmp, buf.Bytes()); err != nil {
		return err
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return fmt.Errorf("%w %s: %v", ErrOutput, path, err)
	}
	defer fs.Close()
	return move(ctx, fs, tmp, path)
}
