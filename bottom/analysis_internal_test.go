package bottom

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/manifoldlab/manifold/sparse"
)

// kingGraph is the graph of an r×r grid whose vertices are joined to their
// eight neighbours (a king's moves), weight 1, no diagonal.
func kingGraph(r int) *sparse.CSR {
	n := r * r
	c := sparse.NewCOO(n, n, 8*n)
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			for di := -1; di <= 1; di++ {
				for dj := -1; dj <= 1; dj++ {
					if a, b := i+di, j+dj; (di != 0 || dj != 0) && a >= 0 && a < r && b >= 0 && b < r {
						c.Add(i*r+j, a*r+b, 1)
					}
				}
			}
		}
	}
	return c.ToCSR()
}

// The early analysis (of g) is taken only for a matrix storing g's entries
// and the diagonal; another matrix is analysed itself, as without it.
// Either way it lets go of g, and Stop ends the goroutine of one never used.
func TestEarlyAnalysisPattern(t *testing.T) {
	g := kingGraph(30) // the 8-neighbour graph of a 30×30 grid, no diagonal
	n, _ := g.Dims()
	limit, _ := FactorEntryLimit(n, Options{})
	same := sparse.Union(sparse.Identity(n), g, func(x, y float64) float64 { return x + y })
	// One entry more, or one diagonal entry fewer: not g + I.
	extra := sparse.NewCOO(n, n, 1)
	extra.Add(0, n-1, 1)
	extra.Add(n-1, 0, 1)
	holed := sparse.NewCOO(n, n, 0)
	ptr, ind := same.RowPtr(), same.ColIdx()
	for i := range n {
		for p := ptr[i]; p < ptr[i+1]; p++ {
			if !(i == 3 && ind[p] == 3) {
				holed.Add(i, ind[p], 1)
			}
		}
	}
	for _, c := range []struct {
		name  string
		b     *sparse.CSR
		ahead bool
	}{
		{"g + I", same, true},
		{"g without its diagonal", g, false},
		{"g + I and one more entry", sparse.Union(same, extra.ToCSR(), func(x, y float64) float64 { return x + y }), false},
		{"g + I less one pivot", holed.ToCSR(), false},
	} {
		e := StartAnalysis(context.Background(), g, Options{})
		an, ahead, err := e.analysis(context.Background(), c.b, limit)
		e.Stop()
		if err != nil || ahead != c.ahead {
			t.Fatalf("%s: early analysis taken %v, want %v (err %v)", c.name, ahead, c.ahead, err)
		}
		if early, _ := e.pending.Wait(); ahead && an != early {
			t.Fatalf("%s: not the early analysis", c.name)
		}
		// Either way, b's analysis.
		want, err := sparse.AnalyzeLDLWithin(context.Background(), c.b, sparse.OrderAuto, limit)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(an.Perm(), want.Perm()) || an.NNZ() != want.NNZ() {
			t.Errorf("%s: an analysis other than its own", c.name)
		}
		if e.g != nil {
			t.Errorf("%s: the early analysis still holds the graph", c.name)
		}
	}
	unused := StartAnalysis(context.Background(), g, Options{})
	t0 := time.Now()
	unused.Stop() // its goroutine's exit: engine's TestEarlyAnalysisStoppedOnError
	t.Logf("stop of an unused early analysis: %v", time.Since(t0))
}
