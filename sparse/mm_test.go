package sparse_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// Files written by scipy.io.mmwrite (testdata/make_fixtures.py).
func TestReadScipyFiles(t *testing.T) {
	for _, name := range []string{"mm_general", "mm_symmetric", "mm_integer", "mm_pattern", "mm_array"} {
		a, err := sparse.ReadMatrixMarketFile(filepath.Join("testdata", name+".mtx"))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := readDense(t, filepath.Join("testdata", name+".dense.txt"))
		// mmwrite prints 16 significant digits, not always enough to round-trip.
		if !mat.EqualApprox(a.ToDense(), want, 1e-15) {
			t.Errorf("%s:\n%v\nwant\n%v", name, mat.Formatted(a.ToDense()), mat.Formatted(want))
		}
	}
	gz, err := sparse.ReadMatrixMarketFile("testdata/mm_general.mtx.gz")
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(gz.ToDense(), readDense(t, "testdata/mm_general.dense.txt")) {
		t.Error("gzip file differs")
	}
}

func TestMatrixMarketRoundTrip(t *testing.T) {
	a := randomCSR(31, 17, 0.2, 11)
	r := randomCSR(20, 20, 0.1, 12)
	sym := sparse.Union(r, r.Transpose(), func(x, y float64) float64 { return x + y })
	ints := a.Map(func(i, j int, _ float64) float64 { return float64(i - 2*j) })
	for _, tc := range []struct {
		name string
		a    *sparse.CSR
		opt  sparse.MMOptions
		want *sparse.CSR
	}{
		{"general", a, sparse.MMOptions{Comment: "two\nlines"}, a},
		{"symmetric", sym, sparse.MMOptions{Symmetric: true}, sym},
		{"integer", ints, sparse.MMOptions{Integer: true}, ints},
		{"pattern", a, sparse.MMOptions{Pattern: true}, a.Map(func(_, _ int, _ float64) float64 { return 1 })},
	} {
		var buf bytes.Buffer
		if err := sparse.WriteMatrixMarket(&buf, tc.a, tc.opt); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, err := sparse.ReadMatrixMarket(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, buf.String())
		}
		// Bit-exact values: the writer uses the shortest round-trip form.
		if !mat.Equal(b.ToDense(), tc.want.ToDense()) || b.NNZ() != tc.want.NNZ() {
			t.Errorf("%s: round trip changed the matrix", tc.name)
		}
	}
	// Through a .gz file.
	path := filepath.Join(t.TempDir(), "a.mtx.gz")
	if err := sparse.WriteMatrixMarketFile(path, a, sparse.MMOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := sparse.ReadMatrixMarketFile(path)
	if err != nil || !mat.Equal(b.ToDense(), a.ToDense()) {
		t.Fatalf("gzip round trip: %v", err)
	}
	// Writing a non-symmetric matrix as symmetric, or non-integers as
	// integers, is refused.
	if err := sparse.WriteMatrixMarket(&bytes.Buffer{}, a, sparse.MMOptions{Symmetric: true}); !errors.Is(err, sparse.ErrInvalid) {
		t.Errorf("symmetric write of a non-square matrix: %v", err)
	}
	if err := sparse.WriteMatrixMarket(&bytes.Buffer{}, a, sparse.MMOptions{Integer: true}); !errors.Is(err, sparse.ErrInvalid) {
		t.Errorf("integer write of reals: %v", err)
	}
}

func TestMatrixMarketSkewAndComments(t *testing.T) {
	in := "%%MatrixMarket matrix coordinate real skew-symmetric\n% comment\n\n3 3 2\n2 1 1.5\n3 2 -2\n"
	a, err := sparse.ReadMatrixMarket(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(3, 3, []float64{0, -1.5, 0, 1.5, 0, 2, 0, -2, 0})
	if !mat.Equal(a.ToDense(), want) {
		t.Fatalf("%v", mat.Formatted(a.ToDense()))
	}
	// Duplicate coordinate entries are summed, as scipy does.
	a, err = sparse.ReadMatrixMarket(strings.NewReader("%%MatrixMarket matrix coordinate real general\n1 2 2\n1 1 1\n1 1 2.5\n"))
	if err != nil || a.At(0, 0) != 3.5 {
		t.Fatalf("duplicates: %v %v", err, a)
	}
}

// Malformed files: an error wrapping ErrMatrixMarket that names the line.
func TestMatrixMarketErrors(t *testing.T) {
	cases := []struct{ name, in, line string }{
		{"empty", "", "line 1"},
		{"no header", "3 3 1\n1 1 1\n", "line 1"},
		{"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "line 1"},
		{"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", "line 1"},
		{"bad format", "%%MatrixMarket matrix sparse real general\n", "line 1"},
		{"bad size", "%%MatrixMarket matrix coordinate real general\n% c\n3 x 1\n", "line 3"},
		{"missing size", "%%MatrixMarket matrix coordinate real general\n", "line 1"},
		{"bad value", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 abc\n", "line 4"},
		{"out of range", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n3 1 1\n", "line 4"},
		{"zero index", "%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n", "line 3"},
		{"short", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n", "line 4"},
		{"too many fields", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n", "line 3"},
		{"trailing data", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n", "line 4"},
		{"upper in symmetric", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", "line 3"},
		{"integer field", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", "line 3"},
		{"array short", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", "line 5"},
		{"non-square symmetric", "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n", "line 2"},
	}
	for _, tc := range cases {
		_, err := sparse.ReadMatrixMarket(strings.NewReader(tc.in))
		if !errors.Is(err, sparse.ErrMatrixMarket) {
			t.Errorf("%s: error %v does not wrap ErrMatrixMarket", tc.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.line+":") {
			t.Errorf("%s: %q does not name %s", tc.name, err, tc.line)
		}
	}
	// A corrupt gzip stream.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n"))
	zw.Close()
	b := buf.Bytes()[:buf.Len()-12]
	if _, err := sparse.ReadMatrixMarket(bytes.NewReader(b)); err == nil {
		t.Error("truncated gzip read without error")
	}
}
