package manifoldbeam

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"slices"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// SampleFit says what FitSample fits: the method (one of SampleMethods),
// its settings (zero: the engine's defaults) and the sample.
type SampleFit struct {
	Method    string
	Dim       int    // output dimension (0: 2)
	K         int    // neighbours of the graph methods (0: the method's default)
	Landmarks int    // landmark-isomap's landmarks, lowrank-isomap's clusters (0: the default)
	Size      int    // rows in the sample (0: DefaultSampleSize)
	Seed      uint64 // the sample's and the method's seed
	// Stratify draws the sample per stratum, the rows' Label
	// (ReadLabeledCSV's column): proportional allocation with at least one
	// row a stratum (Allocate), each stratum's rows of least key.
	Stratify bool
	// Supervised carries every row's class (Row.Label, an integer) into
	// the sample and fits the method with the sampled rows' classes: lda
	// (which needs them) or the supervised neighbour graph of the methods
	// that take labels (SupervisedMethods). With Stratify too, the strata
	// are the classes.
	Supervised bool
}

// DefaultSampleSize is the sample FitSample fits on when SampleFit.Size is
// zero: 5000 rows, which every method fits on one worker in seconds to a
// minute (the dense methods hold a few 5000² matrices, 200 MB each).
const DefaultSampleSize = 5000

// fitOnSample fits the method of f, by its command-line name, to the
// sampled rows x, with their classes y for a supervised fit (nil
// otherwise): the engine's method with f's dimension, seed, neighbours and
// landmarks where it has those settings, the rest its defaults.
func fitOnSample(ctx context.Context, f SampleFit, x *mat.Dense, y []int) (engine.Model, error) {
	m, ok := engine.LookupMethod(f.Method)
	if !ok {
		return nil, fmt.Errorf("%w: unknown method %q", ErrFit, f.Method)
	}
	s, err := m.NewWith(map[string]any{"dim": f.Dim, "seed": f.Seed, "k": f.K, "landmarks": f.Landmarks, "labels": y})
	if err != nil {
		return nil, err
	}
	return m.Fit(ctx, s, x)
}

// supervised reports whether the method takes class labels.
func supervised(m engine.Method) bool { return m.Has("labels") }

// SupervisedMethods returns the names of the methods FitSample fits with
// the rows' classes (SampleFit.Supervised): LDA, which needs them, and the
// methods whose neighbour graph they supervise; sorted.
func SupervisedMethods() []string {
	var names []string
	for _, m := range engine.Methods() {
		if supervised(m) {
			names = append(names, m.Name)
		}
	}
	sort.Strings(names)
	return names
}

// SampleMethods returns the names of the methods FitSample fits, every
// method of the engine, sorted.
func SampleMethods() []string {
	var names []string
	for _, m := range engine.Methods() {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return names
}

// Sample is a uniform sample without replacement of at most Size rows:
// the rows of least key, a hash of the seed and the row's values (a
// bottom-k sketch: Cohen & Kaplan, "Summarizing data using bottom-k
// sketches", PODC 2007, doi:10.1145/1281100.1281133), so the sample is
// the same however the input is sharded, bundled or merged. Rows are kept
// flat (D values each) with their keys, and with their classes in a
// labelled sample (Labels, one a row; nil otherwise); Err records rows of
// differing widths.
type Sample struct {
	Size   int
	D      int
	Keys   []uint64
	Flat   []float64
	Labels []int
	Err    string
}

func init() {
	beam.RegisterType(reflect.TypeOf((*Sample)(nil)).Elem())
	register.Combiner3[Sample, []float64, Sample](&sampleCombineFn{})
	register.Combiner3[Sample, Labeled, Sample](&labeledSampleCombineFn{})
	register.DoFn2x1[context.Context, Sample, error](&fitSampleFn{})
}

// FitSample fits a nonlinear (or any unsupervised) method on a sample of
// rows too many for one machine, or with fit.Supervised a supervised one
// (SupervisedMethods: LDA, or the supervised neighbour graph of the
// methods that take labels) on a sample of labelled rows: the rows are
// reduced to a sample of fit.Size rows by a bottom-k sketch (Sample; one
// pass, Size rows a worker), one worker fits the method with the engine
// and writes the model file to modelPath (any registered filesystem; under a temporary name,
// renamed when complete). Project then maps every row with that model:
// for Landmark Isomap the landmark geodesics stay with the fit while the
// triangulation of all rows runs distributed. Rows with an Err or a
// NaN/Inf value are returned as dead letters and left out of the sample.
//
// With fit.Stratify the sample is stratified by the rows' Label (read by
// ReadLabeledCSV; any text, "" included, is a stratum): every stratum's
// rows are counted and kept in their own bottom-k sketch (Size rows of
// least key), and the sample is, for every stratum h, its Allocate(counts,
// Size)[h] rows of least key — proportional allocation with at least one
// row a stratum, so a rare stratum is never left out. The sample is still
// independent of the sharding and fixed by the seed. Memory: up to
// 2·Size rows a stratum in a worker, so strata should be few (tens, not
// thousands); a sample smaller than the number of strata fails with ErrFit.
//
// With fit.Supervised every row's Label must be an integer class (a row
// whose label is not is a dead letter, as in FitLDA); the sample keeps
// each sampled row's class and the method is fitted with them (the rows in
// key order, their classes beside them). With Stratify too the strata are
// the classes, so every class is in the sample, in proportion to its size
// and with at least one row — what LDA needs of a sample where a rare
// class would otherwise be missed. Memory: one int more a sampled row.
func FitSample(s beam.Scope, rows beam.PCollection, fit SampleFit, modelPath string) (dead beam.PCollection) {
	s = s.Scope("manifold.FitSample")
	if fit.Size <= 0 {
		fit.Size = DefaultSampleSize
	}
	var good, sample beam.PCollection
	switch {
	case fit.Stratify:
		good, dead = beam.ParDo2(s, &stratifiedRowsFn{Supervised: fit.Supervised}, rows)
		sample = beam.Combine(s, &stratifiedCombineFn{Size: fit.Size, Seed: fit.Seed, Supervised: fit.Supervised}, good)
	case fit.Supervised:
		good, dead = beam.ParDo2(s, &labeledRowsFn{}, rows)
		sample = beam.Combine(s, &labeledSampleCombineFn{Size: fit.Size, Seed: fit.Seed}, good)
	default:
		good, dead = beam.ParDo2(s, &finiteRowsFn{}, rows)
		sample = beam.Combine(s, &sampleCombineFn{Size: fit.Size, Seed: fit.Seed}, good)
	}
	beam.ParDo0(s, &fitSampleFn{Path: modelPath, Fit: fit}, sample)
	return dead
}

// CheckSampleFit reports a SampleFit that FitSample cannot run (an unknown
// method, negative settings) before a pipeline is built.
func CheckSampleFit(f SampleFit) error {
	m, ok := engine.LookupMethod(f.Method)
	if !ok {
		return fmt.Errorf("%w: method %q cannot be fitted on a sample (methods: %v)", ErrFit, f.Method, SampleMethods())
	}
	if f.Supervised && !supervised(m) {
		return fmt.Errorf("%w: method %q takes no class labels (supervised on a sample: %v)", ErrFit, f.Method, SupervisedMethods())
	}
	if m.NeedsLabels && !f.Supervised {
		return fmt.Errorf("%w: %s on a sample needs the rows' classes (SampleFit.Supervised, -label)", ErrFit, f.Method)
	}
	if f.Dim < 0 || f.K < 0 || f.Landmarks < 0 || f.Size < 0 {
		return fmt.Errorf("%w: negative setting in %+v", ErrFit, f)
	}
	return nil
}

// sampleKey is the row's key in the bottom-k sketch: FNV-1a of the seed and
// the row's values (bits), so equal rows have equal keys.
func sampleKey(seed uint64, x []float64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	for _, v := range x {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return h.Sum64()
}

type sampleCombineFn struct {
	Size int
	Seed uint64
}

func (f *sampleCombineFn) CreateAccumulator() Sample { return Sample{Size: f.Size} }

func (f *sampleCombineFn) AddInput(a Sample, x []float64) Sample {
	return a.add(f.Seed, x, 0, false)
}

// add puts the row x (with its class when labelled) into the sketch,
// which it cuts back to its Size rows of least key when it holds 2·Size.
func (a Sample) add(seed uint64, x []float64, label int, labelled bool) Sample {
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
	a.Keys = append(a.Keys, sampleKey(seed, x))
	a.Flat = append(a.Flat, x...)
	if labelled {
		a.Labels = append(a.Labels, label)
	}
	if len(a.Keys) >= 2*max(a.Size, 1) {
		a = a.least()
	}
	return a
}

func (f *sampleCombineFn) MergeAccumulators(a, b Sample) Sample {
	switch {
	case a.Err != "":
		return a
	case b.Err != "":
		return b
	case len(b.Keys) == 0:
		return a
	case len(a.Keys) == 0:
		return b
	case a.D != b.D:
		a.Err = fmt.Sprintf("rows have %d and %d features", a.D, b.D)
		return a
	}
	return a.merge(b)
}

// merge puts b's rows into a's (both non-empty, of the same width) and
// keeps the Size rows of least key.
func (a Sample) merge(b Sample) Sample {
	if (len(a.Labels) > 0) != (len(b.Labels) > 0) {
		a.Err = "a labelled and an unlabelled sample merged"
		return a
	}
	a.Keys = append(a.Keys, b.Keys...)
	a.Flat = append(a.Flat, b.Flat...)
	a.Labels = append(a.Labels, b.Labels...)
	return a.least()
}

func (f *sampleCombineFn) ExtractOutput(a Sample) Sample { return a.least() }

// labeledSampleCombineFn is sampleCombineFn for labelled rows: the sample
// keeps every sampled row's class.
type labeledSampleCombineFn struct {
	Size int
	Seed uint64
}

func (f *labeledSampleCombineFn) CreateAccumulator() Sample { return Sample{Size: f.Size} }

func (f *labeledSampleCombineFn) AddInput(a Sample, x Labeled) Sample {
	return a.add(f.Seed, x.X, x.Label, true)
}

func (f *labeledSampleCombineFn) MergeAccumulators(a, b Sample) Sample {
	return (&sampleCombineFn{Size: f.Size, Seed: f.Seed}).MergeAccumulators(a, b)
}

func (f *labeledSampleCombineFn) ExtractOutput(a Sample) Sample { return a.least() }

// least keeps the Size rows of least (key, values, class), in that order
// (the class breaks the tie of equal rows of different classes, so the
// sample does not depend on the order rows arrive in).
func (a Sample) least() Sample {
	n, d := len(a.Keys), a.D
	// A labelled sample has one class a row (nil or empty otherwise: the
	// coder may give either for no labels).
	labelled := len(a.Labels) > 0
	if labelled && len(a.Labels) != n {
		a.Err = fmt.Sprintf("%d rows and %d labels in a sample", n, len(a.Labels))
		return a
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int {
		if c := cmp.Compare(a.Keys[i], a.Keys[j]); c != 0 {
			return c
		}
		if c := slices.Compare(a.Flat[i*d:(i+1)*d], a.Flat[j*d:(j+1)*d]); c != 0 || !labelled {
			return c
		}
		return cmp.Compare(a.Labels[i], a.Labels[j])
	})
	m := min(n, a.Size)
	keys := make([]uint64, m)
	flat := make([]float64, m*d)
	var labels []int
	if labelled {
		labels = make([]int, m)
	}
	for c, i := range order[:m] {
		keys[c] = a.Keys[i]
		copy(flat[c*d:(c+1)*d], a.Flat[i*d:(i+1)*d])
		if labelled {
			labels[c] = a.Labels[i]
		}
	}
	a.Keys, a.Flat, a.Labels = keys, flat, labels
	return a
}

// Matrix returns the sampled rows, in key order.
func (a Sample) Matrix() (*mat.Dense, error) {
	x, _, err := a.Rows()
	return x, err
}

// Rows returns the sampled rows, in key order, and their classes (none
// for an unlabelled sample).
func (a Sample) Rows() (*mat.Dense, []int, error) {
	a = a.least()
	if a.Err != "" {
		return nil, nil, fmt.Errorf("%w: %s", ErrFit, a.Err)
	}
	if len(a.Keys) == 0 {
		return nil, nil, fmt.Errorf("%w: %w: no rows to sample", ErrFit, engine.ErrTooFewSamples)
	}
	return mat.NewDense(len(a.Keys), a.D, a.Flat), a.Labels, nil
}

// fitSampleFn fits the method on the sample and writes the model.
type fitSampleFn struct {
	Path string
	Fit  SampleFit
}

func (f *fitSampleFn) ProcessElement(ctx context.Context, a Sample) error {
	if err := CheckSampleFit(f.Fit); err != nil {
		return err
	}
	x, labels, err := a.Rows()
	if err != nil {
		return err
	}
	if f.Fit.Supervised != (len(labels) > 0) {
		return fmt.Errorf("%w: a supervised fit needs a labelled sample", ErrFit)
	}
	m, err := fitOnSample(ctx, f.Fit, x, labels)
	if err != nil {
		return fmt.Errorf("%w: %s on a sample of %d rows: %w", ErrFit, f.Fit.Method, x.RawMatrix().Rows, err)
	}
	return SaveModel(ctx, m, f.Path)
}
