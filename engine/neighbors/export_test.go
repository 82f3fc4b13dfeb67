package neighbors

import (
	"context"

	"gonum.org/v1/gonum/blas/blas64"
)

// ListsCSR exposes listsCSR to the external tests (the graph of a
// Result's lists, which Exact.SeedWith takes).
var ListsCSR = listsCSR

// The max-min choice's bound and its thresholds, for maxmin_test.go.
var (
	NewProjBound = newProjBound
	BoundPays    = boundPays
)

const BoundMinRows, BoundMinLandmarks = boundMinRows, boundMinLandmarks

// MaxMinBounded is MaxMin of dense rows with or without the bound.
func MaxMinBounded(ctx context.Context, x blas64.General, l, first int, useBound bool) ([]int, error) {
	return maxMinBounded(ctx, x, nil, l, first, useBound)
}

func (b *projBound) AtLeast(i, j int, c float64) bool { return b.atLeast(i, j, c) }
func (b *projBound) P() int                           { return b.p }
