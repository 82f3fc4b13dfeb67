package sparse_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/sparse"
	"github.com/manifoldlab/manifold/sparse/sparsetest"
)

func TestNewCSRValidation(t *testing.T) {
	cases := []struct {
		name        string
		r, c        int
		indptr, ind []int
		data        []float64
		ok          bool
	}{
		{"valid", 2, 3, []int{0, 2, 3}, []int{0, 2, 1}, []float64{1, 2, 3}, true},
		{"empty", 0, 0, []int{0}, nil, nil, true},
		{"short indptr", 2, 3, []int{0, 2}, []int{0, 2}, []float64{1, 2}, false},
		{"indptr[0] ≠ 0", 1, 3, []int{1, 2}, []int{0}, []float64{1}, false},
		{"decreasing", 2, 3, []int{0, 2, 1}, []int{0, 1}, []float64{1, 2}, false},
		{"column out of range", 1, 3, []int{0, 1}, []int{3}, []float64{1}, false},
		{"negative column", 1, 3, []int{0, 1}, []int{-1}, []float64{1}, false},
		{"unsorted", 1, 3, []int{0, 2}, []int{2, 1}, []float64{1, 2}, false},
		{"duplicate", 1, 3, []int{0, 2}, []int{1, 1}, []float64{1, 2}, false},
		{"length mismatch", 1, 3, []int{0, 2}, []int{0, 1}, []float64{1}, false},
		{"negative shape", -1, 3, []int{0}, nil, nil, false},
	}
	for _, tc := range cases {
		a, err := sparse.NewCSR(tc.r, tc.c, tc.indptr, tc.ind, tc.data)
		if tc.ok != (err == nil) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
		if err != nil && !errors.Is(err, sparse.ErrInvalid) {
			t.Errorf("%s: error %v does not wrap ErrInvalid", tc.name, err)
		}
		if tc.ok && a == nil {
			t.Errorf("%s: nil matrix", tc.name)
		}
	}
}

func TestConversions(t *testing.T) {
	a := randomCSR(13, 9, 0.3, 1)
	d := a.ToDense()
	b := sparse.FromDense(d)
	if !mat.Equal(b.ToDense(), d) || b.NNZ() != a.NNZ() {
		t.Fatal("CSR → dense → CSR changed the matrix")
	}
	// Through a mat.Matrix that is not a *mat.Dense.
	if !mat.Equal(sparse.FromDense(d.T()).ToDense(), d.T()) {
		t.Fatal("FromDense of a transpose")
	}
	for i := 0; i < 13; i++ {
		for j := 0; j < 9; j++ {
			if a.At(i, j) != d.At(i, j) {
				t.Fatalf("At(%d, %d) = %v, dense %v", i, j, a.At(i, j), d.At(i, j))
			}
			if a.T().At(j, i) != d.At(i, j) || a.Transpose().At(j, i) != d.At(i, j) {
				t.Fatal("transpose")
			}
		}
	}
	// COO round trip, and duplicates summed.
	coo := a.ToCOO()
	if !mat.Equal(coo.ToCSR().ToDense(), d) {
		t.Fatal("CSR → COO → CSR")
	}
	t2 := sparse.NewCOO(2, 2, 0)
	t2.Add(1, 0, 1.5)
	t2.Add(0, 1, 2)
	t2.Add(1, 0, 2.5)
	t2.Add(0, 0, 1)
	t2.Add(0, 0, -1) // sums to an explicit zero
	c := t2.ToCSR()
	if c.At(1, 0) != 4 || c.At(0, 1) != 2 || c.NNZ() != 3 {
		t.Fatalf("duplicates: %v, nnz %d", mat.Formatted(c.ToDense()), c.NNZ())
	}
	if err := sparse.Validate(2, 2, c.RowPtr(), c.ColIdx(), c.Values()); err != nil {
		t.Fatal(err)
	}
	if z := sparse.Zero(3, 4).ToDense(); !mat.Equal(z, mat.NewDense(3, 4, nil)) {
		t.Fatal("Zero")
	}
	if !mat.Equal(sparse.Identity(3).ToDense(), mat.NewDiagDense(3, []float64{1, 1, 1})) {
		t.Fatal("Identity")
	}
}

// The operator conformance suite, on shapes that take the serial and the
// parallel paths, with empty rows, and on an empty matrix.
func TestOperatorConformance(t *testing.T) {
	t.Parallel()
	for _, sz := range []struct{ r, c int }{{1, 1}, {7, 3}, {3, 7}, {400, 300}, {2000, 1500}} {
		a := randomCSR(sz.r, sz.c, 0.05, uint64(sz.r))
		sparsetest.CheckOperator(t, a, a.ToDense())
		sparsetest.CheckOperator(t, sparse.NewPair(a), a.ToDense())
	}
	sparsetest.CheckOperator(t, sparse.Zero(5, 4), mat.NewDense(5, 4, nil))
	// The dense operators of backend pass the same suite.
	d := randomCSR(30, 20, 0.5, 3).ToDense()
	sparsetest.CheckOperator(t, backend.GeneralOp{A: d.RawMatrix()}, d)
}

func TestMulBlockStride(t *testing.T) {
	a := randomCSR(50, 40, 0.1, 4)
	x := blas64.General{Rows: 50, Cols: 2, Stride: 5, Data: make([]float64, 250)}
	for i := range x.Data {
		x.Data[i] = float64(i%7) - 3
	}
	dst := blas64.General{Rows: 40, Cols: 2, Stride: 3, Data: make([]float64, 120)}
	a.MulTransBlockTo(dst, x)
	var want mat.Dense
	want.Mul(a.ToDense().T(), mat.NewDense(50, 2, colsOf(x)))
	for i := 0; i < 40; i++ {
		for k := 0; k < 2; k++ {
			if math.Abs(dst.Data[i*3+k]-want.At(i, k)) > 1e-12 {
				t.Fatalf("(%d, %d): %v vs %v", i, k, dst.Data[i*3+k], want.At(i, k))
			}
		}
	}
}

// MulBlockCtx gives MulBlockTo's product (serial and parallel sizes) and
// stops with context.Canceled when its context is done.
func TestMulBlockCtx(t *testing.T) {
	for _, n := range []int{50, 3000} {
		a := randomCSR(n, n, 0.01, 6)
		x := blas64.General{Rows: n, Cols: 8, Stride: 8, Data: make([]float64, n*8)}
		for i := range x.Data {
			x.Data[i] = float64(i%11) - 5
		}
		want := blas64.General{Rows: n, Cols: 8, Stride: 8, Data: make([]float64, n*8)}
		got := blas64.General{Rows: n, Cols: 8, Stride: 8, Data: make([]float64, n*8)}
		a.MulBlockTo(want, x)
		if err := a.MulBlockCtx(context.Background(), got, x); err != nil {
			t.Fatal(err)
		}
		for i := range want.Data {
			if got.Data[i] != want.Data[i] {
				t.Fatalf("n = %d: entry %d is %v, MulBlockTo gives %v", n, i, got.Data[i], want.Data[i])
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := a.MulBlockCtx(ctx, got, x); !errors.Is(err, context.Canceled) {
			t.Errorf("n = %d, cancelled: %v", n, err)
		}
	}
}

func colsOf(g blas64.General) []float64 {
	out := make([]float64, 0, g.Rows*g.Cols)
	for i := 0; i < g.Rows; i++ {
		out = append(out, g.Data[i*g.Stride:i*g.Stride+g.Cols]...)
	}
	return out
}

func TestShapePanics(t *testing.T) {
	a := randomCSR(4, 3, 0.5, 5)
	for name, f := range map[string]func(){
		"MulVecTo":      func() { a.MulVecTo(make([]float64, 3), make([]float64, 3)) },
		"MulTransVecTo": func() { a.MulTransVecTo(make([]float64, 4), make([]float64, 4)) },
		"MulBlockTo": func() {
			a.MulBlockTo(blas64.General{Rows: 4, Cols: 2, Stride: 2, Data: make([]float64, 8)}, blas64.General{Rows: 4, Cols: 2, Stride: 2, Data: make([]float64, 8)})
		},
		"COO.Add": func() { sparse.NewCOO(2, 2, 0).Add(2, 0, 1) },
		"At":      func() { a.At(4, 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on a shape mismatch", name)
				}
			}()
			f()
		}()
	}
}

func TestOps(t *testing.T) {
	a := randomCSR(20, 10, 0.3, 6)
	d := a.ToDense()
	// Normalisation.
	for _, norm := range []sparse.Norm{sparse.L1, sparse.L2, sparse.Max} {
		b := a.NormalizeRows(norm)
		for i := 0; i < 20; i++ {
			row := mat.Row(nil, i, d)
			var want float64
			switch norm {
			case sparse.L1:
				want = mat.Norm(mat.NewVecDense(10, row), 1)
			case sparse.L2:
				want = mat.Norm(mat.NewVecDense(10, row), 2)
			case sparse.Max:
				want = mat.Norm(mat.NewVecDense(10, row), math.Inf(1))
			}
			for j := 0; j < 10; j++ {
				w := 0.0
				if want != 0 {
					w = row[j] / want
				}
				if math.Abs(b.At(i, j)-w) > 1e-15 {
					t.Fatalf("norm %d: (%d, %d) = %v, want %v", norm, i, j, b.At(i, j), w)
				}
			}
		}
	}
	// Union (OR) and intersection (AND) with the transpose.
	sq := randomCSR(15, 15, 0.2, 7)
	or := sparse.Union(sq, sq.Transpose(), math.Max)
	and := sparse.Intersection(sq, sq.Transpose(), math.Min)
	if !or.IsSymmetric(0) || !and.IsSymmetric(0) {
		t.Fatal("OR / AND of A and Aᵀ not symmetric")
	}
	for i := 0; i < 15; i++ {
		_, cols := sq.Row(i)
		_ = cols
		for j := 0; j < 15; j++ {
			inA, inT := stored(sq, i, j), stored(sq, j, i)
			if stored(or, i, j) != (inA || inT) || stored(and, i, j) != (inA && inT) {
				t.Fatalf("pattern of OR/AND wrong at (%d, %d)", i, j)
			}
		}
	}
	// Submatrix.
	sub := sq.Submatrix([]int{3, 1, 4}, []int{4, 3, 1})
	for r, i := range []int{3, 1, 4} {
		for c, j := range []int{4, 3, 1} {
			if sub.At(r, c) != sq.At(i, j) {
				t.Fatal("Submatrix")
			}
		}
	}
	// RowSums, Scale, Map.
	s := a.RowSums()
	for i := 0; i < 20; i++ {
		if math.Abs(s[i]-mat.Sum(d.RowView(i))) > 1e-13 {
			t.Fatal("RowSums")
		}
	}
	if a.Scale(2).At(0, 0) != 2*a.At(0, 0) || a.Map(func(_, _ int, v float64) float64 { return -v }).At(1, 1) != -a.At(1, 1) {
		t.Fatal("Scale / Map")
	}
}

func stored(a *sparse.CSR, i, j int) bool {
	cols, _ := a.Row(i)
	for _, c := range cols {
		if c == j {
			return true
		}
	}
	return false
}

// TF-IDF against scikit-learn's TfidfTransformer (testdata/make_fixtures.py).
func TestTFIDF(t *testing.T) {
	counts, err := sparse.ReadMatrixMarketFile("testdata/tfidf_counts.mtx")
	if err != nil {
		t.Fatal(err)
	}
	want := readDense(t, "testdata/tfidf_sklearn.txt")
	got, idf := counts.TFIDF()
	if !mat.EqualApprox(got.ToDense(), want, 1e-14) {
		t.Fatalf("TF-IDF\n%v\nsklearn\n%v", mat.Formatted(got.ToDense()), mat.Formatted(want))
	}
	if _, c := counts.Dims(); len(idf) != c {
		t.Fatal("idf length")
	}
}
