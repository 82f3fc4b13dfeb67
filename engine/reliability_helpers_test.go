package engine_test

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/admm"
	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/enginetest"
)

// The reliability tests (bad input, cancellation, memory budgets,
// determinism, concurrency, fuzzing) run over every method of the table
// enginetest.Methods: a method is added there once and every reliability
// test covers it. Their data is engine.RelData.

// engineErrs are the engine's error kinds: every failure caused by user
// data wraps one; a cancellation wraps none.
var engineErrs = []error{engine.ErrEmpty, engine.ErrNotFinite, engine.ErrTooFewSamples, engine.ErrBadSetting, engine.ErrDimension, engine.ErrShape,
	engine.ErrLabels, engine.ErrMemoryBudget, engine.ErrModelFile, engine.ErrNoTransform, engine.ErrNumerical, engine.ErrDisconnected}

// engineKind returns the first engine error kind err wraps, or nil.
func engineKind(err error) error {
	for _, k := range engineErrs {
		if errors.Is(err, k) {
			return k
		}
	}
	return nil
}

// reseal recomputes the checksum of a model file in place, so that damage
// done to it reaches the decoder, and returns the file.
func reseal(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
	return b
}

// relFit fits m to x with c, supplying labels to the methods that need
// them when c has none. Low-Rank Isomap runs with 6 landmarks (a third of
// the points, at least 2, for 6 points or fewer) and λ = 10 on the
// unit-scaled factor, which keeps directions of Z_B (the paper's 0.02
// keeps none on these data; see LowRankIsomap).
func relFit(ctx context.Context, m enginetest.Method, x mat.Matrix, c enginetest.Settings, labels []int) (engine.Model, error) {
	if m.NeedsLabels && c.Labels == nil && x != nil {
		n, _ := x.Dims()
		c.Labels = make([]int, n)
		for i := range c.Labels {
			c.Labels[i] = i % 3
			if i < len(labels) {
				c.Labels[i] = labels[i]
			}
		}
	}
	if m.Name == "lowrank-isomap" {
		tune := c.Tune
		c.Tune = func(p any) {
			s := p.(*engine.LowRankIsomap)
			s.Landmarks = 6
			if x != nil {
				if n, _ := x.Dims(); n <= 6 {
					s.Landmarks = max(2, n/3)
				}
			}
			s.UnitScale = true
			s.LRR = admm.LRRSettings{Lambda: 10}
			if tune != nil {
				tune(p)
			}
		}
	}
	return m.Fit(ctx, x, c)
}

// asModel returns a fit's model as an engine.Model (nil on error).
func asModel[M engine.Model](m M, err error) (engine.Model, error) {
	if err != nil {
		return nil, err
	}
	return m, nil
}

// assertFinite fails the test when a matrix holds NaN or Inf.
func assertFinite(t *testing.T, what string, y *mat.Dense) {
	t.Helper()
	if y == nil {
		t.Errorf("%s: nil matrix", what)
		return
	}
	r, c := y.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := y.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s: element (%d, %d) is %v", what, i, j, v)
				return
			}
		}
	}
}
