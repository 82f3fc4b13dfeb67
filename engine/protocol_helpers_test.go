package engine

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// readSharedLabels reads <tag>_y.txt (one integer label per line) from the
// shared data folder, skipping the test when it is absent.
func readSharedLabels(t testing.TB, tag string) []int {
	t.Helper()
	path := filepath.Join(sharedDataDir(), tag, tag+"_y.txt")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("real data %s labels not available (%v): set MANIFOLD_DATA or place ../shared/data beside the repository", tag, err)
	}
	defer f.Close()
	var y []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		y = append(y, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return y
}

// randomSplit returns the rows of x and their labels split at random into
// a training part of frac and the rest.
func randomSplit(x *mat.Dense, y []int, frac float64, seed uint64) (xtr, xte *mat.Dense, ytr, yte []int) {
	n, d := x.Dims()
	perm := rand.New(rand.NewPCG(seed, 7)).Perm(n)
	ntr := int(frac * float64(n))
	xtr, xte = mat.NewDense(ntr, d, nil), mat.NewDense(n-ntr, d, nil)
	for i, p := range perm {
		if i < ntr {
			xtr.SetRow(i, x.RawRowView(p))
			ytr = append(ytr, y[p])
		} else {
			xte.SetRow(i-ntr, x.RawRowView(p))
			yte = append(yte, y[p])
		}
	}
	return
}

// nearestNeighbourAccuracy classifies every row of te by its nearest row
// of tr (Euclidean) and returns the fraction labelled correctly.
func nearestNeighbourAccuracy(tr, te *mat.Dense, ytr, yte []int) float64 {
	ntr, d := tr.Dims()
	nte, _ := te.Dims()
	right := 0
	for i := 0; i < nte; i++ {
		q := te.RawRowView(i)
		best, bj := -1.0, -1
		for j := 0; j < ntr; j++ {
			r := tr.RawRowView(j)
			s := 0.0
			for c := 0; c < d; c++ {
				t := q[c] - r[c]
				s += t * t
			}
			if bj < 0 || s < best {
				best, bj = s, j
			}
		}
		if ytr[bj] == yte[i] {
			right++
		}
	}
	return float64(right) / float64(nte)
}
