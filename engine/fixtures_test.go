package engine_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
	"github.com/manifoldlab/manifold/engine/datasets"
	"github.com/manifoldlab/manifold/engine/metrics"
	"github.com/manifoldlab/manifold/sparse"
)

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

// loadBaseFixture reads the reference testdata/graphmethods_<name>.json.
func loadBaseFixture(t *testing.T, name string) fixture {
	t.Helper()
	return readFixture(t, "graphmethods_"+name+".json")
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

// The helpers package engine's tests share (export_test.go): the shared
// data, comparisons, model checks, and independent references.
var (
	sharedDataDir, loadShared, digitRows = engine.SharedDataDir, engine.LoadShared, engine.DigitRows
	loadSharedLabels                     = engine.LoadSharedLabels
	colsUpToSign, maxAbsDiff             = engine.ColsUpToSign, engine.MaxAbsDiff
	reloaded, transformed                = engine.Reloaded, engine.Transformed
	checkReloaded, checkMapsTraining     = engine.CheckReloaded, engine.CheckMapsTraining
	refFisher, classBlobs, centredCols   = engine.RefFisher, engine.ClassBlobs, engine.CentredCols
)

// refusal is settings that Fit must refuse, with the error to wrap.
type refusal[S any] = engine.Refusal[S]

// checkRefusals fits x with the settings of every case and checks the
// error.
func checkRefusals[S, M any](t testing.TB, fit func(S, context.Context, mat.Matrix) (M, error), x mat.Matrix, cases []refusal[S]) {
	t.Helper()
	engine.CheckRefusals(t, fit, x, cases)
}

// checkLinearReference compares a linear graph embedding (LPP, NPE) with
// the reference f: the eigenvalues within the relative error eigTol, the
// embedding within tol up to the sign of each column, and with all the
// projection and the map of f's new points too.
func checkLinearReference(t *testing.T, f fixture, m interface {
	engine.Model
	Eigenvalues() []float64
	Projection() *mat.Dense
}, eigTol, tol float64, all bool) {
	t.Helper()
	if e := relErr(f.Eigenvalues, m.Eigenvalues()); e > eigTol {
		t.Errorf("eigenvalues %v, reference %v (relative error %g)", m.Eigenvalues(), f.Eigenvalues, e)
	}
	if e := colsUpToSign(t, rowsToDense(f.Embedding), m.Embedding()); e > tol {
		t.Errorf("embedding differs from the reference by %g", e)
	}
	if !all {
		return
	}
	if e := colsUpToSign(t, rowsToDense(f.Projection), m.Projection()); e > tol {
		t.Errorf("projection differs from the reference by %g", e)
	}
	if e := colsUpToSign(t, rowsToDense(f.Transform), transformed(t, m, rowsToDense(f.XNew))); e > tol {
		t.Errorf("new points differ from the reference by %g", e)
	}
}

// twoRolls returns two swiss rolls of 30 points, the second moved 1000
// along the first axis: two far-apart clusters, whose kNN graph is
// disconnected.
func twoRolls() *mat.Dense {
	a, _ := datasets.SwissRoll(30, 0, 1)
	b, _ := datasets.SwissRoll(30, 0, 2)
	var x mat.Dense
	x.Stack(a, b)
	for i := 30; i < 60; i++ {
		x.Set(i, 0, x.At(i, 0)+1000)
	}
	return &x
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

// fixture is one scikit-learn reference, made by testdata/make_fixtures.py
// (loadFixture) or testdata/make_fixtures_graphmethods.py (loadBaseFixture).
type fixture struct {
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
	EVR            []float64   `json:"explained_variance_ratio"`
}

// loadFixture reads the reference testdata/sklearn_<name>.json.
func loadFixture(t *testing.T, name string) fixture {
	t.Helper()
	return readFixture(t, "sklearn_"+name+".json")
}

func readFixture(t *testing.T, file string) fixture {
	t.Helper()
	return readJSON[fixture](t, file)
}

// readJSON reads testdata/<file> into a T.
func readJSON[T any](t *testing.T, file string) T {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var f T
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// eachFixture runs body as a subtest for each named fixture, read by load
// (loadFixture, loadBaseFixture), with its input.
func eachFixture(t *testing.T, load func(*testing.T, string) fixture, names []string, body func(t *testing.T, f fixture, x *mat.Dense)) {
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			f := load(t, name)
			body(t, f, f.input(t))
		})
	}
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

// procrustes returns the Procrustes disparity between a and b
// (metrics.Procrustes, scipy.spatial.procrustes' disparity).
func procrustes(t *testing.T, a, b *mat.Dense) float64 {
	t.Helper()
	d, err := metrics.Procrustes(a, b)
	if err != nil {
		t.Fatalf("procrustes: %v", err)
	}
	return d
}
