package engine_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/enginetest"
	"github.com/manifoldlab/manifold/sparse"
)

// Fuzz targets of the engine (go test -fuzz=FuzzFit, -fuzz=FuzzLoad). The
// seeds below and the files in testdata/fuzz/<target> run as ordinary
// tests; see RELIABILITY in doc.go for the fuzzing runs made.

// fuzzInput decodes a fuzz input into a method, its settings and data:
//
//	b[0] method, b[1] N−1 (mod 40), b[2] D−1 (mod 6), b[3] Dim (mod 5, 0:
//	default), b[4] K (mod 14, 0: default), b[5] flags (bit 0: ε-graph of
//	radius b[6]/16; bits 1–2: disconnected policy; bit 3: labels of
//	1 + b[6]%4 classes; bit 4: sparse rows; bit 5: a matrix type that is
//	not *mat.Dense; bit 6: approximate neighbours), b[7:] the values row
//	by row: v < 240 is (v−120)/8,
//	240 … 245 are 0, 1e-200, 1e200, NaN, +Inf and 1e150, above 245 the
//	value of the row before (duplicate rows); missing values are
//	sin(7i + 3j).
type fuzzFit struct {
	m      enginetest.Method
	c      enginetest.Settings
	x      mat.Matrix
	n, d   int
	labels []int
}

// plainMatrix hides the *mat.Dense type, so inputs go through the copy.
type plainMatrix struct{ mat.Matrix }

func decodeFuzzFit(b []byte) (fuzzFit, bool) {
	if len(b) < 7 {
		return fuzzFit{}, false
	}
	var f fuzzFit
	f.m = enginetest.Methods[int(b[0])%len(enginetest.Methods)]
	f.n, f.d = 1+int(b[1])%40, 1+int(b[2])%6
	f.c.Dim, f.c.K = int(b[3])%5, int(b[4])%14
	flags := b[5]
	if flags&1 != 0 {
		f.c.Eps = float64(b[6]) / 16
		f.c.K = 0
	}
	f.c.Disconnected = engine.Disconnected((flags >> 1) & 3 % 3)
	classes := 1 + int(b[6])%4
	f.labels = make([]int, f.n)
	for i := range f.labels {
		f.labels[i] = i % classes
	}
	if flags&8 != 0 {
		f.c.Labels = f.labels
	}
	if flags&64 != 0 {
		f.c.Neighbors.Search = engine.NeighborsApprox
	}
	vals := b[7:]
	x := mat.NewDense(f.n, f.d, nil)
	for i := 0; i < f.n; i++ {
		for j := 0; j < f.d; j++ {
			p := i*f.d + j
			v := math.Sin(float64(7*i + 3*j))
			if p < len(vals) {
				switch c := vals[p]; {
				case c < 240:
					v = (float64(c) - 120) / 8
				case c == 240:
					v = 0
				case c == 241:
					v = 1e-200
				case c == 242:
					v = 1e200
				case c == 243:
					v = math.NaN()
				case c == 244:
					v = math.Inf(1)
				case c == 245:
					v = 1e150
				case i > 0:
					v = x.At(i-1, j)
				}
			}
			x.Set(i, j, v)
		}
	}
	f.x = x
	switch {
	case flags&16 != 0:
		f.x = sparse.FromDense(x)
	case flags&32 != 0:
		f.x = plainMatrix{x}
	}
	return f, true
}

// checkFuzzFit fits one decoded input and checks the contract: an error
// wraps a sentinel; a model has a finite embedding of the right shape, maps
// the training rows to finite points (or says why not, typed), and
// survives Save and Load.
func checkFuzzFit(t *testing.T, f fuzzFit) {
	ctx := context.Background()
	t0 := time.Now()
	m, err := relFit(ctx, f.m, f.x, f.c, f.labels)
	if d := time.Since(t0); d > fuzzSlow {
		t.Fatalf("%s, %d×%d, %+v: the fit took %v (error %v)", f.m.Name, f.n, f.d, f.c, d, err)
	}
	if err != nil {
		if engineKind(err) == nil {
			t.Fatalf("%s, %d×%d, %+v: untyped error %v", f.m.Name, f.n, f.d, f.c, err)
		}
		return
	}
	y := m.Embedding()
	rows, cols := y.Dims()
	if rows < 1 || rows > f.n || cols != m.Dim() || cols < 1 {
		t.Fatalf("%s: embedding %d×%d of %d samples (Dim %d)", f.m.Name, rows, cols, f.n, m.Dim())
	}
	assertFinite(t, f.m.Name+" embedding", y)
	z, err := m.Transform(ctx, f.x)
	if err != nil {
		if engineKind(err) == nil {
			t.Fatalf("%s: transform: untyped error %v", f.m.Name, err)
		}
	} else {
		assertFinite(t, f.m.Name+" transform", z)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatalf("%s: save: %v", f.m.Name, err)
	}
	l, err := engine.Load(&buf)
	if err != nil {
		t.Fatalf("%s: load of a saved model: %v", f.m.Name, err)
	}
	if !mat.Equal(l.Embedding(), y) {
		t.Fatalf("%s: the loaded model has another embedding", f.m.Name)
	}
}

// fuzzSlow bounds a fit of at most 40×6 values: far more means a solver
// iterating to its limit, which a fuzzer sees as a hang.
var fuzzSlow = 20 * time.Second

func FuzzFit(f *testing.F) {
	for i := range enginetest.Methods {
		// A 30×3 curve with defaults, then small shapes and odd values.
		vals := make([]byte, 90)
		for p := range vals {
			vals[p] = byte(120 + int(40*math.Sin(float64(p))))
		}
		f.Add(append([]byte{byte(i), 29, 2, 0, 0, 0, 0}, vals...))
		f.Add(append([]byte{byte(i), 29, 2, 1, 5, 8, 2}, vals...))
		f.Add(append([]byte{byte(i), 29, 2, 2, 0, 1, 40}, vals...))
		f.Add(append([]byte{byte(i), 29, 3, 2, 3, 16 | 4, 1}, vals...))
		f.Add([]byte{byte(i), 4, 1, 3, 2, 32, 0, 120, 130, 246, 246, 140})
		f.Add([]byte{byte(i), 9, 2, 0, 0, 0, 0, 241, 241, 241, 242, 243})
		// Approximate neighbours of rows of 1e150 and 0: float32 keys
		// past their range (the search never ended before it scaled).
		big := slices.Clone(vals)
		for p := 0; p < len(big); p += 2 {
			big[p] = 245
		}
		f.Add(append([]byte{byte(i), 29, 2, 0, 5, 64, 0}, big...))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ff, ok := decodeFuzzFit(b)
		if !ok {
			return
		}
		checkFuzzFit(t, ff)
	})
}

// FuzzLoad feeds Load mutated model files. When the first byte is odd the
// rest is taken as a file whose trailing CRC is recomputed, so mutations
// get past the checksum into the header and the arrays.
func FuzzLoad(f *testing.F) {
	x, labels := engine.RelData(30, 3, 4)
	for _, m := range enginetest.Methods {
		mod, err := relFit(context.Background(), m, x, enginetest.Settings{}, labels)
		if err != nil {
			f.Fatalf("%s: %v", m.Name, err)
		}
		var buf bytes.Buffer
		if err := mod.Save(&buf); err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte{1}, buf.Bytes()...))
		f.Add(append([]byte{0}, buf.Bytes()...))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		file := append([]byte(nil), b[1:]...)
		if b[0]&1 != 0 && len(file) >= 20 {
			reseal(file)
		}
		m, err := engine.Load(bytes.NewReader(file))
		if (m == nil) == (err == nil) {
			t.Fatalf("model %v with error %v", m, err)
		}
		if err != nil {
			if !errors.Is(err, engine.ErrModelFile) {
				t.Fatalf("error without ErrModelFile: %v", err)
			}
			return
		}
		// A model that loads must map points without panicking, and
		// describe itself.
		_ = m.Method()
		_ = m.Report()
		y := m.Embedding()
		if r, c := y.Dims(); c != m.Dim() && r > 0 {
			t.Fatalf("embedding %d×%d, Dim %d", r, c, m.Dim())
		}
		d := m.Report().Features
		if d < 1 || d > 64 {
			d = 3
		}
		q := mat.NewDense(2, d, nil)
		for i := 0; i < 2; i++ {
			for j := 0; j < d; j++ {
				q.Set(i, j, math.Cos(float64(i+3*j)))
			}
		}
		if _, err := m.Transform(context.Background(), q); err != nil && engineKind(err) == nil {
			t.Fatalf("transform: untyped error %v", err)
		}
		var buf bytes.Buffer
		if err := m.Save(&buf); err != nil {
			t.Fatalf("save of a loaded model: %v", err)
		}
	})
}
