package engine

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"math"
	"math/rand/v2"
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
