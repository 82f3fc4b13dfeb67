package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/enginetest"
	"github.com/manifoldlab/manifold/sparse"
)

// zeroRows is a matrix of no rows; mat.NewDense cannot make one.
type zeroRows struct{ c int }

func (z zeroRows) Dims() (int, int)    { return 0, z.c }
func (z zeroRows) At(i, j int) float64 { panic("zeroRows has no elements") }
func (z zeroRows) T() mat.Matrix       { return mat.Transpose{Matrix: z} }

// badCase is one bad input of the matrix below: data, settings, and what
// a method must do with it.
type badCase struct {
	name string
	x    mat.Matrix
	c    enginetest.Settings
	// want lists the sentinels the error may wrap; nil means the fit may
	// succeed (and must then be finite) or fail with any of okErrs.
	want []error
	// applies says whether the case concerns a method; nil: every one.
	applies func(m enginetest.Method) bool
	// okErrs, when the case may succeed, are the errors allowed instead.
	okErrs []error
	// check runs on a successful fit.
	check func(t *testing.T, m enginetest.Method, mod engine.Model)
}

// badCases builds the bad-input matrix on a 60×3 curved sheet x. The
// decisions for the degenerate data (constant rows, duplicates,
// zero-variance features, disconnected graphs) are the ones written in
// doc.go, "Degenerate data".
func badCases(x *mat.Dense, labels []int) []badCase {
	n, _ := x.Dims()
	with := func(edit func(*mat.Dense)) *mat.Dense {
		y := mat.DenseCopyOf(x)
		edit(y)
		return y
	}
	hasK := func(m enginetest.Method) bool { return m.K }
	hasEps := func(m enginetest.Method) bool { return m.Eps }
	hasPolicy := func(m enginetest.Method) bool { return m.Policy }
	hasLabels := func(m enginetest.Method) bool { return m.Labels }
	linear := func(m enginetest.Method) bool { return m.Linear }
	emptyCSR, _ := sparse.NewCSR(0, 3, []int{0}, nil, nil)
	constant := with(func(y *mat.Dense) {
		for i := 0; i < n; i++ {
			y.SetRow(i, []float64{1, -2, 3})
		}
	})
	// Two clusters 1000 apart, and one point 100 away from the rest.
	twoParts := with(func(y *mat.Dense) {
		for i := n / 2; i < n; i++ {
			y.Set(i, 0, y.At(i, 0)+1000)
		}
	})
	outlier := with(func(y *mat.Dense) { y.SetRow(n-1, []float64{100, 100, 100}) })
	finite := []error{engine.ErrDimension, engine.ErrNumerical}
	keptHalf := func(t *testing.T, m enginetest.Method, mod engine.Model) {
		if r, _ := mod.Embedding().Dims(); r != n/2 {
			t.Errorf("%s, largest component: %d rows, want %d", m.Name, r, n/2)
		}
	}
	return []badCase{
		{name: "nil matrix", x: nil, want: []error{engine.ErrEmpty}},
		{name: "0×0 matrix", x: &mat.Dense{}, want: []error{engine.ErrEmpty}},
		{name: "0×3 matrix", x: zeroRows{3}, want: []error{engine.ErrEmpty}},
		{name: "0×3 sparse", x: emptyCSR, want: []error{engine.ErrEmpty}},
		// One sample: too few for every method (LSI, which needs no
		// second sample, has no second dimension: ErrDimension).
		{name: "one sample", x: mat.NewDense(1, 3, []float64{1, 2, 3}), want: []error{engine.ErrTooFewSamples, engine.ErrDimension}},
		{name: "one sample, dim 1", x: mat.NewDense(1, 3, []float64{1, 2, 3}), c: enginetest.Settings{Dim: 1}, want: []error{engine.ErrTooFewSamples, engine.ErrDimension},
			applies: func(m enginetest.Method) bool { return m.Name != "lsi" }},
		{name: "N = k", x: x, c: enginetest.Settings{K: n}, want: []error{engine.ErrTooFewSamples}, applies: hasK},
		{name: "N < k", x: x, c: enginetest.Settings{K: n + 5}, want: []error{engine.ErrTooFewSamples}, applies: hasK},
		{name: "k < 0", x: x, c: enginetest.Settings{K: -1}, want: []error{engine.ErrBadSetting}, applies: hasK},
		{name: "dim = N", x: x, c: enginetest.Settings{Dim: n}, want: []error{engine.ErrDimension}},
		{name: "dim > N", x: x, c: enginetest.Settings{Dim: n + 1}, want: []error{engine.ErrDimension}},
		{name: "dim > D", x: x, c: enginetest.Settings{Dim: 4}, want: []error{engine.ErrDimension}, applies: linear},
		{name: "dim < 0", x: x, c: enginetest.Settings{Dim: -2}, want: []error{engine.ErrBadSetting}},
		{name: "NaN", x: with(func(y *mat.Dense) { y.Set(5, 1, math.NaN()) }), want: []error{engine.ErrNotFinite}},
		{name: "+Inf", x: with(func(y *mat.Dense) { y.Set(0, 0, math.Inf(1)) }), want: []error{engine.ErrNotFinite}},
		{name: "-Inf", x: with(func(y *mat.Dense) { y.Set(n-1, 2, math.Inf(-1)) }), want: []error{engine.ErrNotFinite}},
		{name: "NaN, sparse", x: sparse.FromDense(with(func(y *mat.Dense) { y.Set(7, 2, math.NaN()) })), want: []error{engine.ErrNotFinite}},
		{name: "NaN, other matrix type", x: plainMatrix{with(func(y *mat.Dense) { y.Set(3, 0, math.NaN()) })}, want: []error{engine.ErrNotFinite}},
		{name: "values overflow", x: with(func(y *mat.Dense) { y.Set(4, 1, 1e200) }), want: []error{engine.ErrNotFinite}},
		{name: "spread underflows", x: with(func(y *mat.Dense) { y.Scale(1e-200, y) }), want: []error{engine.ErrNumerical}},
		// Constant rows: no distance or direction to embed.
		{name: "constant rows", x: constant, want: []error{engine.ErrDimension}},
		{name: "constant rows, sparse", x: sparse.FromDense(constant), want: []error{engine.ErrDimension}},
		// Duplicates: every point twice; the methods embed them (duplicates
		// land on the same point) or, where a graph needs distinct
		// neighbours, say why not.
		{name: "duplicate rows", x: with(func(y *mat.Dense) {
			for i := 0; i < n; i++ {
				y.SetRow(i, x.RawRowView(i/2))
			}
		}), okErrs: finite},
		// 40 copies of one point and 20 others.
		{name: "mostly one point", x: with(func(y *mat.Dense) {
			for i := 0; i < 40; i++ {
				y.SetRow(i, []float64{1, 2, 3})
			}
		}), okErrs: append([]error{engine.ErrDisconnected}, finite...)},
		// A constant feature: the rest still spans two dimensions.
		{name: "zero-variance feature", x: with(func(y *mat.Dense) {
			for i := 0; i < n; i++ {
				y.Set(i, 1, 7)
			}
		}), okErrs: finite},
		// A point cloud of rank 1 (a line): the linear methods that need
		// two directions say so.
		{name: "rank-1 data", x: with(func(y *mat.Dense) {
			for i := 0; i < n; i++ {
				y.SetRow(i, []float64{float64(i), 2 * float64(i), -1})
			}
		}), okErrs: finite},
		{name: "disconnected, error", x: twoParts, c: enginetest.Settings{K: 5}, want: []error{engine.ErrDisconnected}, applies: hasPolicy},
		{name: "disconnected, connect", x: twoParts, c: enginetest.Settings{K: 5, Disconnected: engine.DisconnectedConnect}, applies: hasPolicy},
		{name: "disconnected, largest", x: twoParts, c: enginetest.Settings{K: 5, Disconnected: engine.DisconnectedLargest}, applies: hasPolicy, check: keptHalf},
		{name: "disconnected, no policy", x: twoParts, c: enginetest.Settings{K: 5}, okErrs: []error{engine.ErrDisconnected},
			applies: func(m enginetest.Method) bool { return m.K && !m.Policy }},
		{name: "ε with an isolated point, error", x: outlier, c: enginetest.Settings{Eps: 8}, want: []error{engine.ErrDisconnected}, applies: hasPolicy},
		// Without a policy: NPE cannot reconstruct the point from nothing
		// (ErrBadSetting, naming it); LPP's projection stays defined.
		{name: "ε with an isolated point, no policy", x: outlier, c: enginetest.Settings{Eps: 8}, okErrs: []error{engine.ErrBadSetting},
			applies: func(m enginetest.Method) bool { return m.Eps && !m.Policy }},
		{name: "ε with an isolated point, largest", x: outlier, c: enginetest.Settings{Eps: 8, Disconnected: engine.DisconnectedLargest}, applies: hasPolicy,
			check: func(t *testing.T, m enginetest.Method, mod engine.Model) {
				if r, _ := mod.Embedding().Dims(); r != n-1 {
					t.Errorf("%s: %d rows, want %d without the isolated point", m.Name, r, n-1)
				}
			}},
		{name: "ε < 0", x: x, c: enginetest.Settings{Eps: -1}, want: []error{engine.ErrBadSetting}, applies: hasEps},
		{name: "labels too short", x: x, c: enginetest.Settings{Labels: labels[:n-1]}, want: []error{engine.ErrLabels}, applies: hasLabels},
		{name: "labels too long", x: x, c: enginetest.Settings{Labels: append(append([]int(nil), labels...), 0)}, want: []error{engine.ErrLabels}, applies: hasLabels},
		{name: "one class", x: x, c: enginetest.Settings{Labels: make([]int, n)}, want: []error{engine.ErrLabels},
			applies: func(m enginetest.Method) bool { return m.NeedsLabels || m.Name == "lowrank-isomap" }},
	}
}

// TestBadInput runs every bad input of badCases through every method of
// enginetest.Methods: no panic, an error wrapping the case's sentinel, or a finite
// embedding where the case allows success.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	x, labels := engine.RelData(60, 3, 1)
	for _, bc := range badCases(x, labels) {
		for _, m := range enginetest.Methods {
			if bc.applies != nil && !bc.applies(m) {
				continue
			}
			t.Run(m.Name+"/"+bc.name, func(t *testing.T) {
				mod, err := relFitNoPanic(t, ctx, m, bc.x, bc.c, labels)
				switch {
				case bc.want != nil && err == nil:
					t.Fatalf("no error, want one wrapping %v", bc.want)
				case bc.want != nil && !isAny(err, bc.want):
					t.Fatalf("error %q, want one wrapping %v", err, bc.want)
				case bc.want == nil && err != nil && !isAny(err, bc.okErrs):
					t.Fatalf("error %q, want success or one of %v", err, bc.okErrs)
				case err != nil:
					if strings.Count(err.Error(), "\n") > 0 || len(err.Error()) < 20 {
						t.Errorf("error %q does not name the problem on one line", err)
					}
				default:
					assertFinite(t, "embedding", mod.Embedding())
					if bc.check != nil {
						bc.check(t, m, mod)
					}
				}
			})
		}
	}
}

func isAny(err error, targets []error) bool {
	for _, e := range targets {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// relFitNoPanic fits, turning a panic into a test failure.
func relFitNoPanic(t *testing.T, ctx context.Context, m enginetest.Method, x mat.Matrix, c enginetest.Settings, labels []int) (mod engine.Model, err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("panic: %v", p)
		}
	}()
	return relFit(ctx, m, x, c, labels)
}

// TestBadTransformInput maps bad new points with a model of every method:
// typed errors naming the problem, finite outputs otherwise.
func TestBadTransformInput(t *testing.T) {
	ctx := context.Background()
	x, labels := engine.RelData(40, 3, 2)
	nan := mat.DenseCopyOf(x)
	nan.Set(2, 1, math.NaN())
	cases := []struct {
		name string
		x    mat.Matrix
		want error
	}{
		{"nil", nil, engine.ErrEmpty},
		{"0×0", &mat.Dense{}, engine.ErrEmpty},
		{"0×3", zeroRows{3}, engine.ErrEmpty},
		{"4 features", mat.NewDense(2, 4, nil), engine.ErrShape},
		{"2 features", mat.NewDense(2, 2, nil), engine.ErrShape},
		{"NaN", nan, engine.ErrNotFinite},
		{"Inf, sparse", sparse.FromDense(mat.NewDense(1, 3, []float64{0, math.Inf(1), 0})), engine.ErrNotFinite},
		{"zeros", mat.NewDense(3, 3, nil), nil},
		{"far away", mat.NewDense(1, 3, []float64{1e6, -1e6, 1e6}), nil},
	}
	for _, m := range enginetest.Methods {
		mod, err := relFit(ctx, m, x, enginetest.Settings{}, labels)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		for _, c := range cases {
			y, err := func() (y *mat.Dense, err error) {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("panic: %v", p)
					}
				}()
				return mod.Transform(ctx, c.x)
			}()
			switch {
			case c.want != nil && !errors.Is(err, c.want):
				t.Errorf("%s transform of %s: error %v, want %v", m.Name, c.name, err, c.want)
			case c.want == nil && err != nil && !errors.Is(err, engine.ErrNoTransform):
				t.Errorf("%s transform of %s: %v", m.Name, c.name, err)
			case c.want == nil && err == nil:
				assertFinite(t, m.Name+" transform of "+c.name, y)
			}
		}
	}
}

// TestBadModelFiles loads damaged model files of every method: each gives
// an error wrapping ErrModelFile that says what is wrong.
func TestBadModelFiles(t *testing.T) {
	ctx := context.Background()
	x, labels := engine.RelData(30, 3, 3)
	header := func(b []byte) (int, string) {
		hl := int(binary.LittleEndian.Uint32(b[12:16]))
		return hl, string(b[16 : 16+hl])
	}
	// withHeader replaces the JSON header, keeping the arrays.
	withHeader := func(b []byte, edit func(string) string) []byte {
		hl, h := header(b)
		h = edit(h)
		out := append([]byte(nil), b[:12]...)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(h)))
		out = append(out, h...)
		out = append(out, b[16+hl:]...)
		return reseal(out)
	}
	for _, m := range enginetest.Methods {
		good, _, _ := savedFile(t, ctx, m, x, labels, enginetest.Settings{})
		edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
		cases := []struct {
			name string
			file []byte
			says string
		}{
			{"empty", nil, "magic"},
			{"a CSV file", []byte("1,2,3\n4,5,6\n"), "magic"},
			{"truncated", good[:len(good)*2/3], "truncated"},
			{"one byte short", good[:len(good)-1], "truncated"},
			{"flipped bit", edit(func(b []byte) []byte { b[len(b)/2] ^= 4; return b }), "|checksum|header|declares"},
			{"flipped bit in the arrays", edit(func(b []byte) []byte { b[len(b)-12] ^= 4; return b }), "checksum mismatch"},
			{"format version 2", edit(func(b []byte) []byte { b[8] = 2; return b }), "version 2"},
			{"format version 0, resealed", edit(func(b []byte) []byte { b[8] = 0; return reseal(b) }), "version 0"},
			{"header says format 2", withHeader(good, func(h string) string { return strings.Replace(h, `"format":1`, `"format":2`, 1) }), "format 2"},
			{"unknown method", withHeader(good, func(h string) string {
				return strings.Replace(h, `"method":"`+m.Name+`"`, `"method":"t-sne"`, 1)
			}), "unknown method"},
			{"header not JSON", withHeader(good, func(h string) string { return "{" + h }), "header"},
			{"array longer than the file", withHeader(good, func(h string) string {
				return strings.Replace(h, `"rows":`, `"rows":9`, 1)
			}), "does not fit"},
			{"trailing bytes", edit(func(b []byte) []byte {
				b = append(b[:len(b)-4], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
				return reseal(b)
			}), "unexpected bytes"},
			{"NaN in an array", edit(func(b []byte) []byte {
				hl, _ := header(b)
				binary.LittleEndian.PutUint64(b[16+hl:], math.Float64bits(math.NaN()))
				return reseal(b)
			}), "NaN"},
		}
		for _, c := range cases {
			l, err := engine.Load(bytes.NewReader(c.file))
			if l != nil || !errors.Is(err, engine.ErrModelFile) {
				t.Errorf("%s, %s: model %v, error %v; want ErrModelFile", m.Name, c.name, l != nil, err)
				continue
			}
			if says := strings.Split(c.says, "|"); len(says) > 1 {
				if !slices.ContainsFunc(says[1:], func(s string) bool { return strings.Contains(err.Error(), s) }) {
					t.Errorf("%s, %s: error %q says none of %q", m.Name, c.name, err, says[1:])
				}
			} else if !strings.Contains(err.Error(), c.says) {
				t.Errorf("%s, %s: error %q does not say %q", m.Name, c.name, err, c.says)
			}
		}
	}
}
