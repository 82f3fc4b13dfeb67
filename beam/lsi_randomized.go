package manifoldbeam

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/xitongsys/parquet-go-source/buffer"
	"github.com/xitongsys/parquet-go/reader"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/engine"
)

// The LSI solvers (LSIOptions.Solver).
const (
	// LSIAuto picks LSIGram for rows of at most MaxLSITerms terms and
	// LSIRandomized for wider ones (LSIOptions.Terms).
	LSIAuto = "auto"
	// LSIGram sums the exact D×D term-space Gram matrix XᵀX (one pass).
	LSIGram = "gram"
	// LSIRandomized is the randomized range finder (q + 2 passes, D×ℓ
	// words a worker).
	LSIRandomized = "randomized"
)

// Defaults of the randomized LSI (LSIOptions).
const (
	DefaultLSIPower      = 2
	DefaultLSIOversample = 10
)

// LSIOptions say how FitLSIWith fits LSI.
type LSIOptions struct {
	Dim int // latent dimensions (0: 2)
	// Solver is LSIAuto (or ""), LSIGram or LSIRandomized.
	Solver string
	// Terms is the rows' width when known before the pipeline runs (the
	// manifold-beam command reads it from the first row of the first
	// shard): LSIAuto fits rows wider than MaxLSITerms with the randomized
	// solver. 0: unknown, LSIAuto is LSIGram (which refuses rows wider
	// than MaxLSITerms).
	Terms int
	// Power is the randomized solver's number q of power iterations, one
	// pass over the rows each: 0 means DefaultLSIPower, a negative value
	// none.
	Power int
	// Oversample is the randomized solver's oversampling p: the basis has
	// ℓ = min(D, Dim + p) columns. 0 means DefaultLSIOversample.
	Oversample int
	// Seed fixes the randomized solver's Gaussian test matrix.
	Seed uint64
}

// solver resolves LSIAuto.
func (o LSIOptions) solver() (string, error) {
	switch o.Solver {
	case "", LSIAuto:
		if o.Terms > MaxLSITerms {
			return LSIRandomized, nil
		}
		return LSIGram, nil
	case LSIGram, LSIRandomized:
		return o.Solver, nil
	}
	return "", fmt.Errorf("%w: LSI solver %q (want %s, %s or %s)", ErrFit, o.Solver, LSIAuto, LSIGram, LSIRandomized)
}

// CheckLSIOptions reports LSIOptions that FitLSIWith cannot run before a
// pipeline is built.
func CheckLSIOptions(o LSIOptions) error {
	if _, err := o.solver(); err != nil {
		return err
	}
	if o.Dim < 0 || o.Oversample < 0 || o.Terms < 0 {
		return fmt.Errorf("%w: negative setting in %+v", ErrFit, o)
	}
	return nil
}

// LSIRange is a partial or merged sum of one pass of the randomized range
// finder: Y = Σ x·(xᵀQ) = XᵀX·Q (D×L, row-major) over N rows, as a
// compensated sum Sum + Comp (Neumaier). Err records a width mismatch.
type LSIRange struct {
	N    int64
	D, L int
	Sum  []float64
	Comp []float64
	Err  string
}

// LSIBasis is the basis a pass of the randomized range finder multiplies
// the rows by: Q (D×L, row-major, orthonormal columns) from the previous
// pass, or, with no Q, the first pass's Gaussian test matrix, which every
// worker draws alike from the seed. N is the number of rows its pass
// summed.
type LSIBasis struct {
	N    int64
	D, L int
	Q    []float64
}

func init() {
	beam.RegisterType(reflect.TypeOf((*LSIRange)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*LSIBasis)(nil)).Elem())
	register.DoFn4x1[context.Context, []float64, func(*LSIBasis) bool, func(LSIRange), error](&rangePassFn{})
	register.Combiner1[LSIRange](&lsiRangeCombineFn{})
	register.DoFn3x1[context.Context, LSIRange, func(LSIBasis), error](&orthonormalizeFn{})
	register.DoFn4x1[context.Context, []float64, func(*LSIBasis) bool, func([]float64), error](&projectOnBasisFn{})
	register.DoFn3x1[context.Context, LSIStats, func(*LSIBasis) bool, error](&writeRangeLSIFn{})
	register.Emitter1[LSIRange]()
	register.Emitter1[LSIBasis]()
	register.Iter1[LSIBasis]()
}

// FitLSIWith fits LSI as FitLSI does, with the solver and its settings
// chosen by opts: LSIGram is FitLSI's exact term-space Gram matrix (rows of
// at most MaxLSITerms terms); LSIRandomized is the randomized SVD of Halko,
// Martinsson & Tropp ("Finding structure with randomness: probabilistic
// algorithms for constructing approximate matrix decompositions", SIAM
// Review 53(2), 2011, §4.5 Algorithm 4.4 (randomized subspace iteration)
// and §5.1 Algorithm 5.1 (direct SVD)), for vocabularies of any width:
//
//   - pass 1 sums Y = XᵀX·Ω for a D×ℓ Gaussian test matrix Ω (ℓ = Dim +
//     Oversample; every worker draws Ω alike from Seed): Σ x·(xᵀΩ) over
//     the rows, 2·nnz·ℓ flam a sparse row, partial sums (a bundle's) and
//     blocks of rows added with Neumaier's compensated summation as FitLSI
//     does, merged by a CombineFn;
//   - one worker orthonormalizes Y (Householder QR, Q = the thin factor,
//     2·D·ℓ² flam) and Q goes to the next pass as a side input;
//   - each of the q = Power power iterations is one more pass, Y = XᵀX·Q,
//     then Q = orth(Y) again: Q spans the range of (XᵀX)^(q+1)·Ω, whose
//     error decays as (σ_{ℓ+1}/σ_j)^(2q+2) (HMT §10.4);
//   - a final pass projects every row on Q (z = Qᵀx, ℓ values) and sums
//     the ℓ×ℓ Gram matrix C = Σ zzᵀ = QᵀXᵀXQ as FitLSI sums XᵀX; one
//     worker makes the model from Q and C by the Rayleigh–Ritz step
//     (engine.LSIFromRange: C = WΛWᵀ, V = Q·W, σ = √λ).
//
// Cost: q + 2 passes over the rows (the runner keeps the rows between
// passes: each pass reads them again); 2·nnz·ℓ flam a sparse row a pass
// (2·D·ℓ a dense one), nnz·ℓ + ℓ² the final pass; memory per worker
// about 4·D·ℓ words (the basis, the sum, its compensation and the block)
// plus a block of rows — 2.9 MB at D = 18,933 terms and ℓ = 20, where the
// Gram solver would need 2.9 GB a copy. The singular values are those of
// the Ritz step: the leading ones exact to rounding when the spectrum
// decays past ℓ (TestFitLSIRandomized), less accurate toward σ_Dim when it
// is flat; raise Power or Oversample then.
func FitLSIWith(s beam.Scope, rows beam.PCollection, opts LSIOptions, modelPath string) (dead beam.PCollection) {
	solver, err := opts.solver()
	if err != nil {
		panic(err) // CheckLSIOptions reports it before a pipeline is built
	}
	if opts.Dim == 0 {
		opts.Dim = 2
	}
	if solver == LSIGram {
		return FitLSI(s, rows, opts.Dim, modelPath)
	}
	if opts.Power == 0 {
		opts.Power = DefaultLSIPower
	}
	opts.Power = max(opts.Power, 0)
	if opts.Oversample == 0 {
		opts.Oversample = DefaultLSIOversample
	}
	s = s.Scope("manifold.FitLSIRandomized")
	good, dead := beam.ParDo2(s, &finiteRowsFn{}, rows)
	basis := beam.Create(s, LSIBasis{}) // pass 1: the Gaussian test matrix
	for pass := 1; pass <= opts.Power+1; pass++ {
		ps := s.Scope(fmt.Sprintf("pass%d", pass))
		partial := beam.ParDo(ps, &rangePassFn{Dim: opts.Dim, Oversample: opts.Oversample, Seed: opts.Seed}, good, beam.SideInput{Input: basis})
		basis = beam.ParDo(ps, &orthonormalizeFn{}, beam.Combine(ps, &lsiRangeCombineFn{}, partial))
	}
	ps := s.Scope(fmt.Sprintf("pass%d", opts.Power+2))
	z := beam.ParDo(ps, &projectOnBasisFn{}, good, beam.SideInput{Input: basis})
	c := beam.Combine(ps, &lsiCombineFn{}, z)
	beam.ParDo0(ps, &writeRangeLSIFn{Path: modelPath, Dim: opts.Dim}, c, beam.SideInput{Input: basis})
	return dead
}

// gaussianTestMatrix returns the d×l Gaussian test matrix of seed
// (row-major), the same on every worker.
func gaussianTestMatrix(seed uint64, d, l int) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0x4c5349))
	g := make([]float64, d*l)
	for i := range g {
		g[i] = rng.NormFloat64()
	}
	return g
}

// rangeBlockBytes bounds the dense rows a range pass buffers before one
// matrix product.
const rangeBlockBytes = 8 << 20

// rangePassFn sums Y = XᵀX·Q over a bundle's rows and emits the partial
// sum at the end of the bundle. Q (or the Gaussian test matrix) is read
// from the side input once per DoFn instance.
type rangePassFn struct {
	Dim, Oversample int
	Seed            uint64

	q       []float64 // D×l
	d, l    int
	acc     LSIRange
	blk     []float64 // the current block's sum, D×l, zero outside touched
	mark    []bool    // rows of blk touched
	touched []int
	all     bool // every row of blk touched (a dense product)
	buf     []float64
	bufRows int
	rows    int
}

// basisFrom reads the side input once: Q, or the Gaussian test matrix
// for rows of d features.
func basisFrom(basis func(*LSIBasis) bool, d, dim, over int, seed uint64) ([]float64, int, int, error) {
	var b LSIBasis
	if !basis(&b) {
		return nil, 0, 0, fmt.Errorf("%w: randomized LSI: no basis", ErrFit)
	}
	if len(b.Q) == 0 {
		l := min(d, dim+over)
		return gaussianTestMatrix(seed, d, l), d, l, nil
	}
	if len(b.Q) != b.D*b.L {
		return nil, 0, 0, fmt.Errorf("%w: randomized LSI: a %d×%d basis of %d values", ErrFit, b.D, b.L, len(b.Q))
	}
	return b.Q, b.D, b.L, nil
}

func (f *rangePassFn) ProcessElement(ctx context.Context, x []float64, basis func(*LSIBasis) bool, _ func(LSIRange)) error {
	if f.q == nil {
		var err error
		if f.q, f.d, f.l, err = basisFrom(basis, len(x), f.Dim, f.Oversample, f.Seed); err != nil {
			return err
		}
	}
	if f.acc.Err != "" {
		return nil
	}
	d, l := f.d, f.l
	if len(x) != d {
		f.acc.Err = fmt.Sprintf("a row has %d features, others %d", len(x), d)
		return nil
	}
	if f.blk == nil {
		f.blk = make([]float64, d*l)
		f.mark = make([]bool, d)
	}
	nnz := 0
	for _, v := range x {
		if v != 0 {
			nnz++
		}
	}
	if 4*nnz <= d {
		// Sparse: t = xᵀQ over the non-zero entries, then blk[j,:] += x_j·t.
		t := make([]float64, l)
		for j, v := range x {
			if v != 0 {
				blas64.Axpy(v, blas64.Vector{N: l, Inc: 1, Data: f.q[j*l : (j+1)*l]}, blas64.Vector{N: l, Inc: 1, Data: t})
			}
		}
		for j, v := range x {
			if v == 0 {
				continue
			}
			blas64.Axpy(v, blas64.Vector{N: l, Inc: 1, Data: t}, blas64.Vector{N: l, Inc: 1, Data: f.blk[j*l : (j+1)*l]})
			if !f.mark[j] {
				f.mark[j] = true
				f.touched = append(f.touched, j)
			}
		}
	} else {
		f.buf = append(f.buf, x...)
		f.bufRows++
		if f.bufRows*d*8 >= rangeBlockBytes {
			f.flushDense()
		}
	}
	f.rows++
	if f.rows >= statsBlock {
		f.fold()
	}
	return nil
}

// flushDense adds the buffered dense rows B to the block: blk += Bᵀ(BQ).
func (f *rangePassFn) flushDense() {
	if f.bufRows == 0 {
		return
	}
	d, l := f.d, f.l
	b := blas64.General{Rows: f.bufRows, Cols: d, Stride: d, Data: f.buf[:f.bufRows*d]}
	t := blas64.General{Rows: f.bufRows, Cols: l, Stride: l, Data: make([]float64, f.bufRows*l)}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, b, blas64.General{Rows: d, Cols: l, Stride: l, Data: f.q}, 0, t)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, b, t, 1, blas64.General{Rows: d, Cols: l, Stride: l, Data: f.blk})
	f.all = true
	f.buf, f.bufRows = f.buf[:0], 0
}

// fold adds the block to the bundle's compensated sum and clears it.
func (f *rangePassFn) fold() {
	if f.rows == 0 {
		return
	}
	f.flushDense()
	d, l := f.d, f.l
	if f.acc.Sum == nil {
		f.acc = LSIRange{D: d, L: l, Sum: make([]float64, d*l), Comp: make([]float64, d*l)}
	}
	add := func(j int) {
		row := f.blk[j*l : (j+1)*l]
		addCompensated(f.acc.Sum[j*l:(j+1)*l], f.acc.Comp[j*l:(j+1)*l], row)
		clear(row)
		f.mark[j] = false
	}
	if f.all {
		for j := range d {
			add(j)
		}
	} else {
		for _, j := range f.touched {
			add(j)
		}
	}
	f.touched, f.all = f.touched[:0], false
	f.acc.N += int64(f.rows)
	f.rows = 0
}

// FinishBundle emits the bundle's partial sum (the side input, which
// Beam requires here too, is not read again).
func (f *rangePassFn) FinishBundle(_ func(*LSIBasis) bool, emit func(LSIRange)) {
	if f.acc.Err == "" {
		f.fold()
	}
	if f.acc.N > 0 || f.acc.Err != "" {
		emit(f.acc)
	}
	f.acc = LSIRange{}
	f.rows, f.bufRows, f.buf, f.touched, f.all = 0, 0, f.buf[:0], f.touched[:0], false
	if f.blk != nil {
		clear(f.blk)
		clear(f.mark)
	}
}

// lsiRangeCombineFn merges partial sums of a range pass with Neumaier's
// compensation.
type lsiRangeCombineFn struct{}

func (lsiRangeCombineFn) MergeAccumulators(a, b LSIRange) LSIRange {
	switch {
	case a.Err != "":
		return a
	case b.Err != "":
		return b
	case b.N == 0:
		return a
	case a.N == 0:
		return b
	case a.D != b.D || a.L != b.L:
		a.Err = fmt.Sprintf("rows have %d and %d features", a.D, b.D)
		return a
	}
	addCompensated(a.Sum, a.Comp, b.Sum)
	for i, c := range b.Comp {
		a.Comp[i] += c
	}
	a.N += b.N
	return a
}

// orthonormalizeFn turns the merged Y of a pass into the next pass's
// basis: the thin Q of Y's Householder QR.
type orthonormalizeFn struct{}

func (orthonormalizeFn) ProcessElement(ctx context.Context, y LSIRange, emit func(LSIBasis)) error {
	q, err := y.Basis()
	if err != nil {
		return err
	}
	emit(q)
	return nil
}

// Basis returns the orthonormal basis of the range of Y = Sum + Comp:
// the thin factor Q of its Householder QR (backend.PureGo's Geqrf, Orgqr),
// orthonormal even when Y is rank deficient.
func (y LSIRange) Basis() (LSIBasis, error) {
	if y.Err != "" {
		return LSIBasis{}, fmt.Errorf("%w: %s", ErrFit, y.Err)
	}
	if y.N < 1 {
		return LSIBasis{}, fmt.Errorf("%w: %w: no rows", ErrFit, engine.ErrTooFewSamples)
	}
	d, l := y.D, y.L
	a := blas64.General{Rows: d, Cols: l, Stride: l, Data: make([]float64, d*l)}
	for i := range a.Data {
		a.Data[i] = y.Sum[i] + y.Comp[i]
	}
	// The pure-Go backend's QR: gonum's blocked Dgeqrf/Dorgqr form wrong
	// block reflectors for some sparse patterns (backend.PureGo's Gesdd).
	tau := make([]float64, min(d, l))
	backend.PureGo.Geqrf(a, tau)
	backend.PureGo.Orgqr(a, tau)
	return LSIBasis{N: y.N, D: d, L: l, Q: a.Data}, nil
}

// projectOnBasisFn maps each row to its coordinates z = Qᵀx on the final
// basis (nnz·ℓ flam a sparse row).
type projectOnBasisFn struct {
	q    []float64
	d, l int
}

func (f *projectOnBasisFn) ProcessElement(ctx context.Context, x []float64, basis func(*LSIBasis) bool, emit func([]float64)) error {
	if f.q == nil {
		var err error
		if f.q, f.d, f.l, err = basisFrom(basis, len(x), 0, 0, 0); err != nil {
			return err
		}
	}
	if len(x) != f.d {
		return fmt.Errorf("%w: a row has %d features, others %d", ErrFit, len(x), f.d)
	}
	l := f.l
	z := make([]float64, l)
	for j, v := range x {
		if v != 0 {
			blas64.Axpy(v, blas64.Vector{N: l, Inc: 1, Data: f.q[j*l : (j+1)*l]}, blas64.Vector{N: l, Inc: 1, Data: z})
		}
	}
	emit(z)
	return nil
}

// writeRangeLSIFn makes the model from the final basis and the projected
// Gram matrix (engine.LSIFromRange) and writes it.
type writeRangeLSIFn struct {
	Path string
	Dim  int
}

func (f *writeRangeLSIFn) ProcessElement(ctx context.Context, st LSIStats, basis func(*LSIBasis) bool) error {
	n, c, err := st.GramMatrix()
	if err != nil {
		return err
	}
	var b LSIBasis
	if !basis(&b) || len(b.Q) != b.D*b.L || b.L != c.SymmetricDim() {
		return fmt.Errorf("%w: randomized LSI: the basis does not match the projected rows", ErrFit)
	}
	m, err := engine.LSIFromRange(ctx, mat.NewDense(b.D, b.L, b.Q), c, int(n), f.Dim)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFit, err)
	}
	return SaveModel(ctx, m, f.Path)
}

// InputWidth returns the number of features of the first row of the first
// shard (in name order) that glob matches, read as the readers read it —
// by the glob's suffix: .npy (the header's column count), .parquet (the
// first row's x values; the shard is read whole, as parquetio does) or
// CSV (the fields of the first line, or of the header less the ID and
// label columns when idColumn or labelColumn is set; .gz decompressed) —
// so a launcher can pick LSIOptions.Solver before the pipeline is built.
func InputWidth(ctx context.Context, glob, idColumn, labelColumn string) (int, error) {
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return 0, fmt.Errorf("%w %s: %v", ErrInput, glob, err)
	}
	defer fs.Close()
	names, err := fs.List(ctx, glob)
	if err != nil || len(names) == 0 {
		return 0, fmt.Errorf("%w %s: no file matches (%v)", ErrInput, glob, err)
	}
	sort.Strings(names)
	name := names[0]
	r, err := fs.OpenRead(ctx, name)
	if err != nil {
		return 0, fmt.Errorf("%w %s: %v", ErrInput, name, err)
	}
	defer r.Close()
	fail := func(err error) (int, error) { return 0, fmt.Errorf("%w %s: %v", ErrInput, name, err) }
	switch {
	case strings.HasSuffix(glob, ".npy"):
		// The header (at most 64 KiB) holds the shape (rows, cols).
		head := make([]byte, 1<<16)
		n, err := io.ReadFull(r, head)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return fail(err)
		}
		if m := npyShape.FindSubmatch(head[:n]); m != nil && bytes.HasPrefix(head, []byte("\x93NUMPY")) {
			return strconv.Atoi(string(m[1]))
		}
		return fail(errors.New("no 2-D shape in the .npy header"))
	case strings.HasSuffix(glob, ".parquet"):
		data, err := io.ReadAll(r)
		if err != nil {
			return fail(err)
		}
		pr, err := reader.NewParquetColumnReader(buffer.NewBufferFileFromBytes(data), 1)
		if err != nil {
			return fail(err)
		}
		defer pr.ReadStop()
		leaf, err := findParquetLeaf(pr, "x")
		if err != nil {
			return fail(err)
		}
		_, _, dl, err := pr.ReadColumnByPath(leaf.path, 1)
		if err != nil {
			return fail(err)
		}
		w := 0
		for _, l := range dl {
			if l >= leaf.listDL {
				w++
			}
		}
		return w, nil
	}
	var in io.Reader = r
	if strings.HasSuffix(name, ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return fail(err)
		}
		in = gz
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	for sc.Scan() {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		fields := strings.Split(text, ",")
		w := len(fields)
		for _, col := range []string{idColumn, labelColumn} {
			if col == "" {
				continue
			}
			if !slices.ContainsFunc(fields, func(h string) bool { return strings.TrimSpace(h) == col }) {
				return fail(fmt.Errorf("header has no column %q", col))
			}
			w--
		}
		return w, nil
	}
	if err := sc.Err(); err != nil {
		return fail(err)
	}
	return fail(errors.New("no rows"))
}

// npyShape finds the column count in a .npy header's shape (rows, cols).
var npyShape = regexp.MustCompile(`'shape':\s*\(\s*\d+\s*,\s*(\d+)\s*,?\s*\)`)
