package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/enginetest"
)

// TestLoadHugeValues: checksum-valid files holding values no fit produces
// (1e308 in the triangulation or the graph, 1e200 in the training data) are
// refused by Load, so they never reach Transform; eigenvalues need only be
// finite (see modelLimit).
func TestLoadHugeValues(t *testing.T) {
	ctx := context.Background()
	x, labels := engine.RelData(30, 3, 3)
	for _, m := range enginetest.Methods {
		good, h, off := savedFile(t, ctx, m, x, labels, enginetest.Settings{})
		for _, a := range h.Floats {
			n := a.Rows * a.Cols
			if n == 0 {
				continue
			}
			for _, v := range []float64{1e308, -1e200, 2e154} {
				if math.Abs(v) <= engine.ModelLimit(a.Name) {
					continue
				}
				b := append([]byte(nil), good...)
				binary.LittleEndian.PutUint64(b[off+8*(n-1):], math.Float64bits(v))
				reseal(b)
				l, err := engine.Load(bytes.NewReader(b))
				if l != nil || !errors.Is(err, engine.ErrModelFile) || !strings.Contains(err.Error(), "no fit produces") {
					t.Errorf("%s, %g in %q: model %v, error %v", m.Name, v, a.Name, l != nil, err)
				}
			}
			off += 8 * n
		}
		// The file as saved loads and maps its training data finitely.
		l, err := engine.Load(bytes.NewReader(good))
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		y, err := l.Transform(ctx, x)
		if errors.Is(err, engine.ErrNoTransform) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if !allFinite(y) {
			t.Errorf("%s: Transform of the training data is not finite", m.Name)
		}
	}
}

func allFinite(y *mat.Dense) bool {
	r, c := y.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := y.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// Index arrays (graph columns and row pointers, kept and dropped points,
// landmarks, nonzero coefficients) holding an index no fit produces —
// negative, or past the arrays they index — are refused by Load with
// ErrModelFile, for every method: never a panic or a NaN in Transform.
// LDA's class values are labels, any integer: a changed one must still
// load and map finitely.
func TestLoadBadIndices(t *testing.T) {
	ctx := context.Background()
	x, labels := engine.RelData(30, 3, 3)
	cases := 0
	// Each method at its defaults, and the graph methods with approximate
	// neighbours (whose models keep neighbour lists).
	type variant struct {
		m enginetest.Method
		c enginetest.Settings
	}
	var variants []variant
	for _, m := range enginetest.Methods {
		variants = append(variants, variant{m, enginetest.Settings{}})
		if m.K {
			variants = append(variants, variant{m, enginetest.Settings{Options: engine.Options{Neighbors: engine.Neighbors{Search: engine.NeighborsApprox}}}})
		}
	}
	for _, v := range variants {
		m, c := v.m, v.c
		good, h, off := savedFile(t, ctx, m, x, labels, c)
		for _, a := range h.Floats {
			off += 8 * a.Rows * a.Cols
		}
		for _, a := range h.Ints {
			n := a.Rows * a.Cols
			for _, at := range []int{0, n - 1} {
				if n == 0 {
					break
				}
				for _, v := range []int64{-1, -1 << 40, 1 << 40, 1000} {
					b := append([]byte(nil), good...)
					binary.LittleEndian.PutUint64(b[off+8*at:], uint64(v))
					reseal(b)
					cases++
					what := fmt.Sprintf("%s, %q[%d] = %d", m.Name, a.Name, at, v)
					l, y, err := loadAndMap(ctx, b, x)
					switch {
					case a.Name == "classes":
						if err != nil && !errors.Is(err, engine.ErrModelFile) {
							t.Errorf("%s: %v", what, err)
						}
						if err == nil && y != nil && !allFinite(y) {
							t.Errorf("%s: Transform is not finite", what)
						}
					case l != nil || !errors.Is(err, engine.ErrModelFile):
						t.Errorf("%s: loaded %v, error %v; want ErrModelFile", what, l != nil, err)
					}
				}
			}
			off += 8 * n
		}
	}
	t.Logf("%d crafted index arrays", cases)
}

// loadAndMap loads b and, if it loads, maps x; a panic is an error.
func loadAndMap(ctx context.Context, b []byte, x mat.Matrix) (l engine.Model, y *mat.Dense, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	l, err = engine.Load(bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	y, err = l.Transform(ctx, x)
	if errors.Is(err, engine.ErrNoTransform) {
		err = nil
	}
	return l, y, err
}

// fileHeader is the part of a model file's JSON header that lists its
// arrays, in the order their values follow the header.
type fileHeader struct {
	Floats, Ints []struct {
		Name       string
		Rows, Cols int
	}
}

// savedFile fits m, saves the model and returns the file, its header and
// the offset of its first array, for tests that forge model files.
func savedFile(t *testing.T, ctx context.Context, m enginetest.Method, x mat.Matrix, labels []int, c enginetest.Settings) ([]byte, fileHeader, int) {
	t.Helper()
	mod, err := relFit(ctx, m, x, c, labels)
	if err != nil {
		t.Fatalf("%s: %v", m.Name, err)
	}
	var buf bytes.Buffer
	if err := mod.Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	hl := int(binary.LittleEndian.Uint32(good[12:16]))
	var h fileHeader
	if err := json.Unmarshal(good[16:16+hl], &h); err != nil {
		t.Fatal(err)
	}
	return good, h, 16 + hl
}
