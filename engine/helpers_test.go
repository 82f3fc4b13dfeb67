package engine

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/dataio"
	"github.com/manifoldlab/manifold/internal/dense"
)

// sharedDataDir is ../shared/data from the repository root, or
// $MANIFOLD_DATA.
func sharedDataDir() string {
	if d := os.Getenv("MANIFOLD_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "data")
}

// sharedRead holds each data set loadShared has read once (USPS takes
// 0.6 s to parse and some 30 tests read it); each caller gets its own copy.
var sharedRead struct {
	sync.Mutex
	x map[string]*mat.Dense
}

// loadShared reads <tag>_X.csv.gz from the shared data folder, skipping the
// test with a clear message when the folder is absent. The matrix is the
// caller's to change.
func loadShared(t testing.TB, tag string) *mat.Dense {
	t.Helper()
	path := filepath.Join(sharedDataDir(), tag, tag+"_X.csv.gz")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("real data %s not available (%v): set MANIFOLD_DATA or place ../shared/data beside the repository", tag, err)
	}
	sharedRead.Lock()
	defer sharedRead.Unlock()
	if x, ok := sharedRead.x[path]; ok {
		return mat.DenseCopyOf(x)
	}
	x, err := dataio.ReadMatrixFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if sharedRead.x == nil {
		sharedRead.x = map[string]*mat.Dense{}
	}
	sharedRead.x[path] = x.(*mat.Dense)
	return mat.DenseCopyOf(x)
}

// loadSharedLabels reads the integer labels <tag>_y.txt from the shared
// data folder, skipping the test when they are absent.
func loadSharedLabels(t testing.TB, tag string) []int {
	t.Helper()
	l, err := dataio.ReadLabelsFile(filepath.Join(sharedDataDir(), tag, tag+"_y.txt"))
	if err != nil {
		t.Skipf("labels of %s not available (%v)", tag, err)
	}
	if !l.Numeric {
		t.Fatalf("labels of %s are not integers", tag)
	}
	out := make([]int, len(l.Class))
	for i, c := range l.Class {
		v, err := strconv.Atoi(l.Names[c])
		if err != nil {
			t.Fatal(err)
		}
		out[i] = v
	}
	return out
}

// digitRows returns the first n rows of USPS (skipping when absent).
func digitRows(t testing.TB, n int) *mat.Dense {
	t.Helper()
	x := loadShared(t, "usps9298")
	_, d := x.Dims()
	return mat.DenseCopyOf(x.Slice(0, n, 0, d))
}

// colsUpToSign returns the largest |a_ij − s_j·b_ij| / max|a_·j| over the
// columns j, each column of b flipped (s_j = ±1) to agree with a.
func colsUpToSign(t testing.TB, a, b mat.Matrix) float64 {
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

// maxAbsDiff returns the largest |a_ij − b_ij|.
func maxAbsDiff(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	worst := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			worst = max(worst, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return worst
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
		g := dense.New(n, d)
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
	c := dense.New(d, d)
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

// mustFit fits x by fit (a method's Fit on its settings) within ctx,
// failing the test on an error.
func mustFit[M any](t testing.TB, ctx context.Context, fit func(context.Context, mat.Matrix) (M, error), x mat.Matrix) M {
	t.Helper()
	m, err := fit(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// reloaded returns m saved to a model file and loaded back.
func reloaded(t testing.TB, m Model) Model {
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

// transformed returns m's map of the rows of x, failing the test on an
// error.
func transformed(t testing.TB, m Model, x mat.Matrix) *mat.Dense {
	t.Helper()
	y, err := m.Transform(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	return y
}

// checkMapsTraining checks that m maps its training rows x onto its
// embedding, elementwise within tol (absolute or relative; 0: exactly),
// and returns the map.
func checkMapsTraining(t testing.TB, m Model, x mat.Matrix, tol float64) *mat.Dense {
	t.Helper()
	y := transformed(t, m, x)
	if tol == 0 && !mat.Equal(y, m.Embedding()) || tol != 0 && !mat.EqualApprox(y, m.Embedding(), tol) {
		t.Errorf("Transform of the training rows differs from the embedding (tolerance %g)", tol)
	}
	return y
}

// checkReloaded checks that m saved and loaded back maps the rows of q
// exactly as m does.
func checkReloaded(t testing.TB, m Model, q mat.Matrix) {
	t.Helper()
	if !mat.Equal(transformed(t, reloaded(t, m), q), transformed(t, m, q)) {
		t.Error("the loaded model maps differently")
	}
}

// refusal is settings that Fit must refuse, with the error its error must
// wrap.
type refusal[S any] struct {
	Settings S
	Want     error
}

// checkRefusals fits x with the settings of every case and checks that the
// error wraps the case's.
func checkRefusals[S, M any](t testing.TB, fit func(S, context.Context, mat.Matrix) (M, error), x mat.Matrix, cases []refusal[S]) {
	t.Helper()
	for _, c := range cases {
		if _, err := fit(c.Settings, context.Background(), x); !errors.Is(err, c.Want) {
			t.Errorf("%+v: error %v, want %v", c.Settings, err, c.Want)
		}
	}
}

// classBlobs returns n samples of d features in c classes (sample i in
// class i mod c): unit Gaussian noise about a class mean with entries
// (class·j) mod 5, drawn from PCG(6, seed).
func classBlobs(seed uint64, n, d, c int) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(6, seed))
	x := mat.NewDense(n, d, nil)
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		labels[i] = i % c
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64()+float64((labels[i]*j)%5))
		}
	}
	return x, labels
}

// The tests' independent references, written with gonum alone.

// symmetrized returns (A + Aᵀ)/2 of a square A.
func symmetrized(a mat.Matrix) *mat.SymDense {
	n, _ := a.Dims()
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, 0.5*(a.At(i, j)+a.At(j, i)))
		}
	}
	return s
}

// centredCols returns x with the mean of every column subtracted.
func centredCols(x *mat.Dense) *mat.Dense {
	n, d := x.Dims()
	a := mat.DenseCopyOf(x)
	for j := 0; j < d; j++ {
		mu := mat.Sum(a.ColView(j)) / float64(n)
		for i := 0; i < n; i++ {
			a.Set(i, j, a.At(i, j)-mu)
		}
	}
	return a
}

// refDoubleCentre returns −½·H·S·H, H = I − 11ᵀ/n: classical scaling's
// inner products from the squared distances S (n×n).
func refDoubleCentre(s mat.Matrix) *mat.Dense {
	n, _ := s.Dims()
	h := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := -1 / float64(n)
			if i == j {
				v++
			}
			h.Set(i, j, v)
		}
	}
	var b mat.Dense
	b.Product(h, s, h)
	b.Scale(-0.5, &b)
	return &b
}

// refFisher solves S_B·w = λ·S_W·w by S_W = L·Lᵀ (mat.Cholesky) and
// mat.EigenSym of L⁻¹·S_B·L⁻ᵀ (symmetrized): the eigenvalues ascending,
// the eigenvectors c as columns (w = L⁻ᵀ·c) and L⁻¹.
func refFisher(t testing.TB, sb mat.Matrix, sw *mat.SymDense) ([]float64, *mat.Dense, *mat.TriDense) {
	t.Helper()
	var ch mat.Cholesky
	if !ch.Factorize(sw) {
		t.Fatal("reference S_W not positive definite")
	}
	var l, linv mat.TriDense
	ch.LTo(&l)
	if err := linv.InverseTri(&l); err != nil {
		t.Fatal(err)
	}
	var cm mat.Dense
	cm.Product(&linv, sb, linv.T())
	vals, vecs := refEigen(t, &cm)
	return vals, vecs, &linv
}

// refEigen returns the eigenvalues of (A + Aᵀ)/2, ascending, and its
// eigenvectors as columns (mat.EigenSym).
func refEigen(t testing.TB, a mat.Matrix) ([]float64, *mat.Dense) {
	t.Helper()
	var es mat.EigenSym
	if !es.Factorize(symmetrized(a), true) {
		t.Fatal("reference eigendecomposition failed")
	}
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	return es.Values(nil), &vecs
}

// relData returns n points of a noisy 2-D sheet curled in d ≥ 3
// dimensions (a swiss-roll-like manifold with d−3 small extra features),
// and three class labels along it.
func relData(n, d int, seed uint64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 0xbad))
	x := mat.NewDense(n, d, nil)
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		t := 1.5 * math.Pi * (1 + 2*float64(i)/float64(n) + 0.3*rng.Float64()/float64(n))
		h := 10 * rng.Float64()
		row := x.RawRowView(i)
		row[0] = t * math.Cos(t)
		row[1] = h
		row[2] = t * math.Sin(t)
		for j := 3; j < d; j++ {
			row[j] = 0.3 * rng.NormFloat64()
		}
		for j := range row {
			row[j] += 0.01 * rng.NormFloat64()
		}
		labels[i] = 3 * i / n
	}
	return x, labels
}
