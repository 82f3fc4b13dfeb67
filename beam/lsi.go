package manifoldbeam

import (
	"context"
	"fmt"
	"math"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// MaxLSITerms is the widest rows FitLSI accepts. The fit sums the D×D
// term-space Gram matrix XᵀX: at 4096 terms one copy is 128 MiB, and a
// worker holds three (the running sum, its compensation and the block
// being summed), the shuffle carries two per partial accumulator, and the
// worker that solves the eigenproblem one more — about half a GiB, a usual
// worker's share. Beyond it a D×D matrix does not belong in one worker's
// memory (Reuters-21578's 18,933 terms: 2.9 GB a copy): FitLSIWith's
// randomized solver (LSIRandomized, D×ℓ words a worker) fits wider rows.
const MaxLSITerms = 4096

// LSIStats are the merged statistics of a distributed LSI fit: the row
// count and the uncentred Gram matrix G = Σ xxᵀ (upper triangle of a D×D
// row-major matrix) as a compensated sum Gram + Comp (Neumaier), plus the
// block being summed. Err records a width mismatch or a too wide input.
type LSIStats struct {
	N    int64
	D    int
	Gram []float64
	Comp []float64
	// The current block: its dense rows (row-major, BufRows of them) and
	// the sum of its sparse rows' outer products (Block, D×D upper, nil
	// when none); BlockRows counts both kinds.
	Buf       []float64
	BufRows   int
	Block     []float64
	BlockRows int
	Err       string
}

func init() {
	beam.RegisterType(reflect.TypeOf((*LSIStats)(nil)).Elem())
	register.Combiner3[LSIStats, []float64, LSIStats](&lsiCombineFn{})
	register.DoFn2x1[context.Context, LSIStats, error](&writeLSIFn{})
}

// FitLSI fits LSI (latent semantic indexing: the truncated SVD of the
// uncentred rows, engine.LSI) with dim latent dimensions on rows too many
// for one machine: each worker sums the term-space Gram matrix XᵀX of its
// rows — blocks of statsBlock rows summed exactly as BLAS sums them (dense
// rows by one rank-k update, sparse rows by the products of their non-zero
// entries only, nnz² flam), blocks and partial accumulators added with
// Neumaier's compensated summation so the rounding of the total does not
// grow with the number of blocks — and one worker eigendecomposes the
// merged XᵀX (engine.LSIFromGram) and writes the model file to modelPath
// (under a temporary name, renamed when complete). The model's Transform
// is engine.LSI's, x·V; its Embedding is one row of zeros, since the
// training rows are never gathered (as FitPCA's and FitLDA's). Rows with
// an Err or a NaN/Inf value are returned as dead letters and left out;
// rows of differing widths, or wider than MaxLSITerms, fail the pipeline
// with ErrFit (FitLSIWith picks the randomized solver for those).
//
// Cost: D² flam a dense row, nnz² a sparse one (at most D/4 non-zeros);
// 3·D² words a worker, 2·D² a merge; the eigen step is one dense D×D
// problem.
func FitLSI(s beam.Scope, rows beam.PCollection, dim int, modelPath string) (dead beam.PCollection) {
	s = s.Scope("manifold.FitLSI")
	good, dead := beam.ParDo2(s, &finiteRowsFn{}, rows)
	stats := beam.Combine(s, &lsiCombineFn{}, good)
	beam.ParDo0(s, &writeLSIFn{Path: modelPath, Dim: dim}, stats)
	return dead
}

type lsiCombineFn struct{}

func (lsiCombineFn) CreateAccumulator() LSIStats { return LSIStats{} }

func (lsiCombineFn) AddInput(a LSIStats, x []float64) LSIStats {
	if a.Err != "" {
		return a
	}
	if a.D == 0 {
		if msg := lsiWidthProblem(len(x)); msg != "" {
			a.Err = msg
			return a
		}
		a.D = len(x)
	}
	if len(x) != a.D {
		a.Err = fmt.Sprintf("a row has %d features, others %d", len(x), a.D)
		return a
	}
	d := a.D
	nnz := 0
	for _, v := range x {
		if v != 0 {
			nnz++
		}
	}
	if 4*nnz <= d {
		// Sparse: add the products of the non-zero entries to the block.
		if a.Block == nil {
			a.Block = make([]float64, d*d)
		}
		for i, vi := range x {
			if vi == 0 {
				continue
			}
			row := a.Block[i*d : (i+1)*d]
			for j := i; j < d; j++ {
				if vj := x[j]; vj != 0 {
					row[j] += vi * vj
				}
			}
		}
	} else {
		a.Buf = append(a.Buf, x...)
		a.BufRows++
	}
	a.BlockRows++
	if a.BlockRows >= statsBlock {
		a = a.fold()
	}
	return a
}

// lsiWidthProblem says why rows of d features cannot be fitted, or "".
func lsiWidthProblem(d int) string {
	if d > MaxLSITerms {
		return fmt.Sprintf("rows of %d features exceed MaxLSITerms = %d: the fit sums the D×D Gram matrix XᵀX, "+
			"%.1f GiB a copy at D = %d and three copies a worker; use the randomized solver (FitLSIWith, LSIRandomized; "+
			"manifold-beam fit -method lsi -solver randomized), reduce the vocabulary or fit on a sample",
			d, MaxLSITerms, float64(d)*float64(d)*8/(1<<30), d)
	}
	return ""
}

func (lsiCombineFn) MergeAccumulators(a, b LSIStats) LSIStats {
	switch {
	case a.Err != "":
		return a
	case b.Err != "":
		return b
	}
	a, b = a.fold(), b.fold()
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
	addCompensated(a.Gram, a.Comp, b.Gram)
	for i, c := range b.Comp {
		a.Comp[i] += c
	}
	a.N += b.N
	return a
}

func (lsiCombineFn) ExtractOutput(a LSIStats) LSIStats { return a.fold() }

// fold sums the current block (its sparse rows' products and one rank-k
// update of its dense rows) and adds it to the compensated total.
func (a LSIStats) fold() LSIStats {
	if a.BlockRows == 0 {
		return a
	}
	d := a.D
	blk := a.Block
	if blk == nil {
		blk = make([]float64, d*d)
	}
	if a.BufRows > 0 {
		blas64.Syrk(blas.Trans, 1, blas64.General{Rows: a.BufRows, Cols: d, Stride: d, Data: a.Buf[:a.BufRows*d]},
			1, blas64.Symmetric{N: d, Stride: d, Uplo: blas.Upper, Data: blk})
	}
	if a.Gram == nil {
		a.Gram, a.Comp = blk, make([]float64, d*d)
	} else {
		addCompensated(a.Gram, a.Comp, blk)
	}
	a.N += int64(a.BlockRows)
	a.Buf, a.BufRows, a.Block, a.BlockRows = a.Buf[:0], 0, nil, 0
	return a
}

// addCompensated adds v to the sums s with Neumaier's compensation c
// (Neumaier, "Rundungsfehleranalyse einiger Verfahren zur Summation
// endlicher Summen", ZAMM 54(1), 1974): the rounding of every addition is
// kept in c, so s + c carries an error of about 2ε|total| whatever the
// number of terms.
func addCompensated(s, c, v []float64) {
	for i, x := range v {
		t := s[i] + x
		if math.Abs(s[i]) >= math.Abs(x) {
			c[i] += (s[i] - t) + x
		} else {
			c[i] += (x - t) + s[i]
		}
		s[i] = t
	}
}

// GramMatrix returns the row count and XᵀX of a.
func (a LSIStats) GramMatrix() (int64, *mat.SymDense, error) {
	a = a.fold()
	if a.Err != "" {
		return 0, nil, fmt.Errorf("%w: %s", ErrFit, a.Err)
	}
	if a.N < 1 {
		return 0, nil, fmt.Errorf("%w: %w: no rows", ErrFit, engine.ErrTooFewSamples)
	}
	d := a.D
	g := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			g.SetSym(i, j, a.Gram[i*d+j]+a.Comp[i*d+j])
		}
	}
	return a.N, g, nil
}

// writeLSIFn eigendecomposes the merged Gram matrix and writes the model.
type writeLSIFn struct {
	Path string
	Dim  int
}

func (f *writeLSIFn) ProcessElement(ctx context.Context, st LSIStats) error {
	n, g, err := st.GramMatrix()
	if err != nil {
		return err
	}
	m, err := engine.LSIFromGram(ctx, g, int(n), f.Dim)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFit, err)
	}
	return SaveModel(ctx, m, f.Path)
}
