package engine

import (
	"cmp"
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// fitter is one Fit as the fit driver runs it: a method supplies its
// name, options and the input it accepts, its checks and memory estimate
// (plan), and its stages; the driver owns the rest — reading and checking
// the input, the run with its report and heap sampler, the budget check
// before anything large is allocated, and the end (fitted: the context
// checked after the last stage, the model's parameters into the report,
// the report into the model).
type fitter[M describedModel] struct {
	method string
	opts   Options
	input  fitInput
	// degree is that of the method's largest forms in the data's scale,
	// which bounds the values it accepts (see minSpread); 0 means 2.
	degree int
	// plan checks the settings against the input and says the dimension
	// and how much memory the fit will take; it allocates nothing large.
	plan func(in samples) (fitPlan, error)
	// stages runs the fit's stages under r and returns the model.
	stages func(r *run, in samples) (M, error)
}

// fitPlan is what a method's plan tells the driver.
type fitPlan struct {
	dim int // the report's Dim
	// bytes is the estimated peak of the fit, without the copy of a
	// non-Dense input (the driver adds it); what and cheaper name the
	// fit and cheaper settings in the ErrMemoryBudget error.
	bytes         int64
	what, cheaper string
}

// fitInput is the input a method accepts.
type fitInput int

const (
	// denseRows: samples as rows, densified (within the budget) when
	// sparse, finite and spread out (checkFitData).
	denseRows fitInput = iota
	// sparseRows: samples as dense rows or a *sparse.CSR kept as it is,
	// finite and spread out — made dense when a common offset would
	// cancel the digits of its distances (denseIfOffset).
	sparseRows
	// sparseRowsAlike: as sparseRows, but the rows may all be equal.
	sparseRowsAlike
	// distanceMatrix: an N×N matrix of distances, densified within the
	// budget; plan checks its values.
	distanceMatrix
)

// read converts and checks x as kind says.
func (kind fitInput) read(method string, x mat.Matrix, opts Options, degree int) (samples, error) {
	switch kind {
	case denseRows:
		g, err := fitDenseInput(method, x, opts, degree)
		return samples{dense: g}, err
	case distanceMatrix:
		what := method + " distances"
		if err := checkCopy(what, x, opts); err != nil {
			return samples{}, err
		}
		g, err := denseInput(what, x)
		return samples{dense: g}, err
	}
	in, err := fitSamplesInput(method, x, opts, kind == sparseRows, degree)
	if err != nil || kind != sparseRows {
		return in, err
	}
	return denseIfOffset(method, in, nil, opts)
}

// fit runs f on x.
func (f fitter[M]) fit(ctx context.Context, x mat.Matrix) (M, error) {
	var none M
	in, err := f.input.read(f.method, x, f.opts, cmp.Or(f.degree, 2))
	if err != nil {
		return none, err
	}
	p, err := f.plan(in)
	if err != nil {
		return none, err
	}
	n, d := in.dims()
	// IndexK checked before the fit's stages when the search will be
	// approximate whatever the size (widenIndex checks it again).
	if _, ok := any(none).(nearLister); ok && f.opts.Neighbors.Search == NeighborsApprox && f.opts.Neighbors.IndexK >= n {
		return none, fmt.Errorf("%s: %w: index neighbours %d of %d rows (need Neighbors.IndexK < rows)", f.method, ErrBadSetting, f.opts.Neighbors.IndexK, n)
	}
	r, err := startRun(ctx, f.method, f.opts, n, d, p.dim, nil)
	if err != nil {
		return none, err
	}
	defer r.finish()
	copied := fitCopyBytes(x, (f.input == sparseRows || f.input == sparseRowsAlike) && in.csr != nil)
	if err := r.checkBudget(p.bytes+copied, p.what, p.cheaper); err != nil {
		return none, err
	}
	m, err := f.stages(r, in)
	if err != nil {
		return none, err
	}
	if err := widenIndex(r, m); err != nil {
		return none, err
	}
	return fitted(r, m)
}

// fitted ends every Fit: the run's report, with the model's parameters
// (reportParams), into the model, or, when ctx was cancelled during a last
// stage that does not check it, the error (done) and no model.
func fitted[M describedModel](r *run, m M) (M, error) {
	rep, err := r.done()
	if err != nil {
		var none M
		return none, err
	}
	rep.Params = reportParams(m)
	if w := r.opts.Neighbors.Width; w > 0 && approxSearched(rep) {
		rep.Params["search_width"] = w
	}
	if w := r.opts.Neighbors.Approx.Refine; w > 0 && approxSearched(rep) {
		rep.Params["refine_width"] = w
	}
	if k := r.opts.Neighbors.IndexK; k > 0 && approxSearched(rep) {
		rep.Params["index_k"] = k
	}
	m.setReport(*rep)
	return m, nil
}
