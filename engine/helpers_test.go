package engine

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
)

// fixture is one scikit-learn reference made by testdata/make_fixtures.py.
type fixture struct {
	Sklearn   string      `json:"sklearn"`
	Tag       string      `json:"tag"`
	X         [][]float64 `json:"X"`
	XNew      [][]float64 `json:"X_new"`
	K         int         `json:"k"`
	Dim       int         `json:"dim"`
	Reg       float64     `json:"reg"`
	Embedding [][]float64 `json:"embedding"`
	Transform [][]float64 `json:"transform"`
	EVR       []float64   `json:"explained_variance_ratio"`
}

func loadFixture(t *testing.T, name string) fixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "sklearn_"+name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// input returns the fixture's input: stored X, or the real data set read from
// ../shared/data (skipping the test when it is absent).
func (f fixture) input(t *testing.T) *mat.Dense {
	t.Helper()
	if f.Tag != "" {
		return loadShared(t, f.Tag)
	}
	return rowsToDense(f.X)
}

func rowsToDense(rows [][]float64) *mat.Dense {
	m := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		m.SetRow(i, r)
	}
	return m
}

// sharedDataDir is ../shared/data from the repository root.
func sharedDataDir() string {
	if d := os.Getenv("MANIFOLD_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "data")
}

// loadShared reads <tag>_X.csv.gz from the shared data folder, skipping the
// test with a clear message when the folder is absent.
func loadShared(t testing.TB, tag string) *mat.Dense {
	t.Helper()
	path := filepath.Join(sharedDataDir(), tag, tag+"_X.csv.gz")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("real data %s not available (%v): set MANIFOLD_DATA or place ../shared/data beside the repository", tag, err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var data []float64
	rows, cols := 0, 0
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ",")
		if cols == 0 {
			cols = len(fields)
		}
		for _, s := range fields {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, v)
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return mat.NewDense(rows, cols, data)
}

// procrustes returns scipy.spatial.procrustes' disparity between a and b:
// both centred and scaled to unit Frobenius norm, b optimally rotated (and
// reflected) onto a, then the sum of squared differences: 1 − (Σσ)².
func procrustes(t *testing.T, a, b *mat.Dense) float64 {
	t.Helper()
	n, d := a.Dims()
	if bn, bd := b.Dims(); bn != n || bd != d {
		t.Fatalf("procrustes: %d×%d vs %d×%d", n, d, bn, bd)
	}
	norm := func(m *mat.Dense) blas64.General {
		g := newGeneral(n, d)
		for j := 0; j < d; j++ {
			mean := 0.0
			for i := 0; i < n; i++ {
				mean += m.At(i, j)
			}
			mean /= float64(n)
			for i := 0; i < n; i++ {
				g.Data[i*d+j] = m.At(i, j) - mean
			}
		}
		s := 0.0
		for _, v := range g.Data {
			s += v * v
		}
		s = math.Sqrt(s)
		for i := range g.Data {
			g.Data[i] /= s
		}
		return g
	}
	ga, gb := norm(a), norm(b)
	c := newGeneral(d, d)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, gb, ga, 0, c)
	s := make([]float64, d)
	if err := backend.PureGo.Gesdd(c, s, blas64.General{}, blas64.General{}); err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	return 1 - sum*sum
}

// reloaded returns m saved to a model file and loaded back.
func reloaded(t *testing.T, m Model) Model {
	t.Helper()
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	l, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
