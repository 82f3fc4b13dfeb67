package engine

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// baseFixture is one reference made by testdata/make_fixtures_graphmethods.py.
type baseFixture struct {
	Sklearn        string      `json:"sklearn"`
	Tag            string      `json:"tag"`
	X              [][]float64 `json:"X"`
	XNew           [][]float64 `json:"X_new"`
	A              *cooFixture `json:"A"`
	ANew           *cooFixture `json:"A_new"`
	K              int         `json:"k"`
	Dim            int         `json:"dim"`
	PCADim         int         `json:"pca_dim"`
	Reg            float64     `json:"reg"`
	T              float64     `json:"t"`
	Embedding      [][]float64 `json:"embedding"`
	Transform      [][]float64 `json:"transform"`
	Projection     [][]float64 `json:"projection"`
	Components     [][]float64 `json:"components"`
	Eigenvalues    []float64   `json:"eigenvalues"`
	SingularValues []float64   `json:"singular_values"`
	Mean           []float64   `json:"mean"`
}

// cooFixture is a sparse matrix as coordinate triplets.
type cooFixture struct {
	Rows int       `json:"rows"`
	Cols int       `json:"cols"`
	I    []int     `json:"i"`
	J    []int     `json:"j"`
	V    []float64 `json:"v"`
}

func (c *cooFixture) csr() *sparse.CSR {
	t := sparse.NewCOO(c.Rows, c.Cols, len(c.V))
	for k, v := range c.V {
		t.Add(c.I[k], c.J[k], v)
	}
	return t.ToCSR()
}

func loadBaseFixture(t *testing.T, name string) baseFixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "graphmethods_"+name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f baseFixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// input returns the stored X, or the real data set (skipping when absent).
func (f baseFixture) input(t *testing.T) *mat.Dense {
	t.Helper()
	if f.Tag != "" {
		return loadShared(t, f.Tag)
	}
	return rowsToDense(f.X)
}

// loadSharedLabels reads <tag>_y.txt from the shared data folder.
func loadSharedLabels(t testing.TB, tag string) []int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedDataDir(), tag, tag+"_y.txt"))
	if err != nil {
		t.Skipf("labels of %s not available (%v)", tag, err)
	}
	var out []int
	v := 0
	in := false
	neg := false
	for _, c := range b {
		switch {
		case c == '-':
			neg = true
		case c >= '0' && c <= '9':
			v = 10*v + int(c-'0')
			in = true
		default:
			if in {
				if neg {
					v = -v
				}
				out = append(out, v)
			}
			v, in, neg = 0, false, false
		}
	}
	if in {
		if neg {
			v = -v
		}
		out = append(out, v)
	}
	return out
}

// loadReuters reads the Reuters-21578 term frequencies with unit-length rows
// (Cai, He & Han, AAAI 2007 Table 1), skipping when absent.
func loadReuters(t testing.TB) *sparse.CSR {
	t.Helper()
	a, err := sparse.ReadMatrixMarketFile(filepath.Join(sharedDataDir(), "reuters21578", "reuters21578_X.mtx.gz"))
	if err != nil {
		t.Skipf("real data reuters21578 not available (%v): set MANIFOLD_DATA or place ../shared/data beside the repository", err)
	}
	return a.NormalizeRows(sparse.L2)
}

// colsUpToSign returns the largest |a_ij − s_j·b_ij| / max|a_·j| over the
// columns j, each column of b flipped (s_j = ±1) to agree with a.
func colsUpToSign(t *testing.T, a, b mat.Matrix) float64 {
	t.Helper()
	r, c := a.Dims()
	if br, bc := b.Dims(); br != r || bc != c {
		t.Fatalf("shapes %d×%d and %d×%d", r, c, br, bc)
	}
	worst := 0.0
	for j := 0; j < c; j++ {
		dot, scale := 0.0, 0.0
		for i := 0; i < r; i++ {
			dot += a.At(i, j) * b.At(i, j)
			scale = math.Max(scale, math.Abs(a.At(i, j)))
		}
		s := 1.0
		if dot < 0 {
			s = -1
		}
		for i := 0; i < r; i++ {
			worst = math.Max(worst, math.Abs(a.At(i, j)-s*b.At(i, j))/scale)
		}
	}
	return worst
}

// relErr returns max_i |a_i − b_i| / max_i |a_i|.
func relErr(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	scale, worst := 0.0, 0.0
	for i := range a {
		scale = math.Max(scale, math.Abs(a[i]))
		worst = math.Max(worst, math.Abs(a[i]-b[i]))
	}
	return worst / scale
}
