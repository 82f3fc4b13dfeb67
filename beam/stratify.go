package manifoldbeam

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/manifoldlab/manifold/engine"
)

// Stratified is a row's features with its stratum (Row.Label: the CSV
// header's column that ReadLabeledCSV reads, any text) and, in a
// supervised sample, its class (the stratum as an integer).
type Stratified struct {
	Stratum string
	X       []float64
	Label   int
}

// StratifiedSample is a stratified sample in the making: for every stratum
// (Strata ascending) its row count and the bottom-k sketch of its rows
// (Samples[h], at most Size rows of least key, as Sample), so the sample is
// the same however the input is sharded, bundled or merged. Err records
// rows of differing widths.
type StratifiedSample struct {
	Size    int
	D       int
	Strata  []string
	Counts  []int64
	Samples []Sample
	Err     string
}

func init() {
	beam.RegisterType(reflect.TypeOf((*Stratified)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*StratifiedSample)(nil)).Elem())
	register.Combiner3[StratifiedSample, Stratified, Sample](&stratifiedCombineFn{})
	register.DoFn4x0[context.Context, Row, func(Stratified), func(DeadLetter)](&stratifiedRowsFn{})
	register.Emitter1[Stratified]()
}

// Allocate splits a sample of size rows among strata of the given row
// counts by proportional allocation with at least one row a stratum: with
// m = min(size, Σ counts) rows to give and H strata, every stratum gets one
// row and the other m − H are apportioned in proportion to the counts by
// largest remainders (Hamilton's method: the floors of the quotas
// (m − H)·N_h/N, then one more row each to the strata of largest
// remainder, ties to the lower index), never more than a stratum's N_h
// rows. It returns an error when m < H (a sample too small to give every
// stratum a row) or a count is not positive.
func Allocate(counts []int64, size int) ([]int, error) {
	h := len(counts)
	var n int64
	for k, c := range counts {
		if c < 1 {
			return nil, fmt.Errorf("%w: stratum %d has %d rows", ErrFit, k, c)
		}
		n += c
	}
	m := int64(size)
	if n < m {
		m = n
	}
	if m < int64(h) {
		return nil, fmt.Errorf("%w: a sample of %d rows cannot hold one row of each of %d strata (raise -sample)", ErrFit, m, h)
	}
	alloc := make([]int, h)
	rest := m - int64(h)
	type rem struct {
		k    int
		frac float64
	}
	rems := make([]rem, h)
	var given int64
	for k, c := range counts {
		q := float64(rest) * float64(c) / float64(n)
		f := int64(q)
		if f > c-1 { // rounding guard: a stratum holds at most its rows
			f = c - 1
		}
		alloc[k] = 1 + int(f)
		given += f
		rems[k] = rem{k, q - float64(f)}
	}
	slices.SortStableFunc(rems, func(a, b rem) int { return cmp.Compare(b.frac, a.frac) })
	for given < rest {
		moved := false
		for _, r := range rems {
			if given == rest {
				break
			}
			if int64(alloc[r.k]) < counts[r.k] {
				alloc[r.k]++
				given++
				moved = true
			}
		}
		if !moved {
			break // cannot happen: Σ (N_h − 1) ≥ m − H
		}
	}
	return alloc, nil
}

// stratifiedRowsFn passes the rows that can enter a sample with their
// strata and sends the others to the dead letters. Supervised: the
// stratum is the row's class, an integer (written canonically, so "07"
// and "7" are one stratum); a row whose label is not is a dead letter.
type stratifiedRowsFn struct {
	Supervised bool
}

func (f *stratifiedRowsFn) ProcessElement(ctx context.Context, r Row, emit func(Stratified), dead func(DeadLetter)) {
	rowsIn.Inc(ctx, 1)
	msg := rowProblem(r)
	out := Stratified{Stratum: r.Label, X: r.X}
	if f.Supervised && msg == "" {
		label, err := strconv.Atoi(strings.TrimSpace(r.Label))
		if err != nil {
			msg = fmt.Sprintf("%v: label %q is not an integer", engine.ErrLabels, r.Label)
		}
		out.Stratum, out.Label = strconv.Itoa(label), label
	}
	if msg != "" {
		deadLetters.Inc(ctx, 1)
		dead(DeadLetter{ID: r.ID, Error: msg})
		return
	}
	rowsOut.Inc(ctx, 1)
	emit(out)
}

// stratifiedCombineFn draws a stratified sample; Supervised: the sample
// keeps every row's class (Stratified.Label).
type stratifiedCombineFn struct {
	Size       int
	Seed       uint64
	Supervised bool
}

func (f *stratifiedCombineFn) CreateAccumulator() StratifiedSample {
	return StratifiedSample{Size: f.Size}
}

// stratum returns the index of stratum s in a, added (with no rows) if new.
func (a *StratifiedSample) stratum(s string) int {
	k, found := slices.BinarySearch(a.Strata, s)
	if !found {
		a.Strata = slices.Insert(a.Strata, k, s)
		a.Counts = slices.Insert(a.Counts, k, 0)
		a.Samples = slices.Insert(a.Samples, k, Sample{Size: a.Size, D: a.D})
	}
	return k
}

func (f *stratifiedCombineFn) AddInput(a StratifiedSample, x Stratified) StratifiedSample {
	if a.Err != "" {
		return a
	}
	if a.D == 0 {
		a.D = len(x.X)
	}
	if len(x.X) != a.D {
		a.Err = fmt.Sprintf("a row has %d features, others %d", len(x.X), a.D)
		return a
	}
	k := a.stratum(x.Stratum)
	a.Counts[k]++
	a.Samples[k] = a.Samples[k].add(f.Seed, x.X, x.Label, f.Supervised)
	return a
}

func (f *stratifiedCombineFn) MergeAccumulators(a, b StratifiedSample) StratifiedSample {
	switch {
	case a.Err != "":
		return a
	case b.Err != "":
		return b
	case len(b.Strata) == 0:
		return a
	case len(a.Strata) == 0:
		return b
	case a.D != b.D:
		a.Err = fmt.Sprintf("rows have %d and %d features", a.D, b.D)
		return a
	}
	sf := &sampleCombineFn{Size: f.Size, Seed: f.Seed}
	for kb, s := range b.Strata {
		k := a.stratum(s)
		a.Counts[k] += b.Counts[kb]
		a.Samples[k] = sf.MergeAccumulators(a.Samples[k], b.Samples[kb])
	}
	return a
}

// ExtractOutput returns the stratified sample as one Sample (rows in key
// order): the Allocate(counts, Size) rows of least key of every stratum.
// An allocation that cannot be made is returned as the Sample's Err.
func (f *stratifiedCombineFn) ExtractOutput(a StratifiedSample) Sample {
	out, _, err := a.Draw()
	if err != nil {
		// Sample.Matrix wraps Err in ErrFit again.
		return Sample{Size: a.Size, D: a.D, Err: strings.TrimPrefix(err.Error(), ErrFit.Error()+": ")}
	}
	return out
}

// Draw returns the stratified sample (as one Sample, rows in key order)
// and the number of rows each stratum (Strata's order) gave.
func (a StratifiedSample) Draw() (Sample, []int, error) {
	if a.Err != "" {
		return Sample{}, nil, fmt.Errorf("%w: %s", ErrFit, a.Err)
	}
	if len(a.Strata) == 0 {
		return Sample{}, nil, fmt.Errorf("%w: %w: no rows to sample", ErrFit, engine.ErrTooFewSamples)
	}
	alloc, err := Allocate(a.Counts, a.Size)
	if err != nil {
		return Sample{}, nil, err
	}
	out := Sample{D: a.D}
	for k, sk := range a.Samples {
		sk.Size = alloc[k]
		sk = sk.least()
		if sk.Err != "" {
			return Sample{}, nil, fmt.Errorf("%w: %s", ErrFit, sk.Err)
		}
		out.Keys = append(out.Keys, sk.Keys...)
		out.Flat = append(out.Flat, sk.Flat...)
		out.Labels = append(out.Labels, sk.Labels...)
	}
	out.Size = len(out.Keys)
	return out.least(), alloc, nil
}
