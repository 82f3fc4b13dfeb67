package sparse_test

import (
	"bufio"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// randomCSR returns an r×c matrix with about density·r·c entries, some
// empty rows, from seed.
func randomCSR(r, c int, density float64, seed uint64) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, 9))
	t := sparse.NewCOO(r, c, int(density*float64(r*c))+1)
	for i := 0; i < r; i++ {
		if rng.IntN(7) == 0 {
			continue // an empty row
		}
		for j := 0; j < c; j++ {
			if rng.Float64() < density {
				t.Add(i, j, rng.NormFloat64())
			}
		}
	}
	return t.ToCSR()
}

// readDense reads a whitespace-separated text matrix (numpy.savetxt).
func readDense(t *testing.T, path string) *mat.Dense {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var data []float64
	rows, cols := 0, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		cols = len(fs)
		for _, s := range fs {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			data = append(data, v)
		}
		rows++
	}
	return mat.NewDense(rows, cols, data)
}
