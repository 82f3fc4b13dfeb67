package engine

import (
	"context"
	"io"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Model is a fitted method. Every model maps new points (Transform), is
// safe for concurrent use once fitted (Transform only reads it), and can be
// saved and loaded (Save, Load) so a service trains once and maps later.
type Model interface {
	// Method is the method's name as the command line spells it ("isomap").
	Method() string
	// Dim is the dimension of the embedding.
	Dim() int
	// Embedding returns a copy of the training points' coordinates (n×Dim).
	Embedding() *mat.Dense
	// Transform maps new points (rows of x, with the training data's
	// features) into the embedding.
	Transform(ctx context.Context, x mat.Matrix) (*mat.Dense, error)
	// Report returns what the fit measured.
	Report() Report
	// Save writes the model in the versioned file format (see Load).
	Save(w io.Writer) error
}

// modelCore holds what every model has.
type modelCore struct {
	method    string
	embedding blas64.General
	report    Report
}

// base is a model's modelCore and its parameters (params.go).
type base[P any] struct {
	modelCore
	p P
}

// newBase returns the base of a model of method with parameters p.
func newBase[P any](method string, p P) base[P] {
	return base[P]{modelCore: modelCore{method: method}, p: p}
}

// params returns the model's parameter struct, for the report and the codec.
func (b *base[P]) params() any { return &b.p }

func (b *modelCore) Method() string        { return b.method }
func (b *modelCore) Dim() int              { return b.embedding.Cols }
func (b *modelCore) Embedding() *mat.Dense { return copyDense(b.embedding) }

// setReport keeps the fit's report (fitted).
func (b *modelCore) setReport(r Report) { b.report = r }

// Report returns a copy of the fit's report.
func (b *modelCore) Report() Report {
	r := b.report
	r.Stages = append([]Stage(nil), b.report.Stages...)
	return r
}

// core returns the part every model has, for the codec.
func (b *modelCore) core() *modelCore { return b }
