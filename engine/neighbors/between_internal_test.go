package neighbors

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// nearestBetween returns the pair (a, b) of least (distance, a, b) over
// all pairs, whichever set is larger (the smaller one is the index) and
// whether the queries are copied or read in place: points on an integer
// grid, so that many pairs tie, split into sets of several sizes.
func TestNearestBetweenTies(t *testing.T) {
	const n, d = 60, 3
	g := blas64.General{Rows: n, Cols: d, Stride: d, Data: make([]float64, n*d)}
	for i := 0; i < n; i++ {
		g.Data[i*d] = float64(i % 4)
		g.Data[i*d+1] = float64((i / 4) % 3)
		g.Data[i*d+2] = float64(i % 5)
	}
	x := &denseData{g: g}
	ctx := context.Background()
	for _, split := range [][2]int{{3, 57}, {57, 3}, {20, 25}, {25, 20}, {1, 59}, {40, 10}} {
		var as, bs []int
		for i := 0; i < split[0]; i++ {
			as = append(as, (7*i+3)%n)
		}
		used := map[int]bool{}
		for _, a := range as {
			used[a] = true
		}
		for i := 0; len(bs) < split[1]; i++ {
			if j := (11*i + 5) % n; !used[j] {
				used[j] = true
				bs = append(bs, j)
			}
		}
		wa, wb, wd := -1, -1, math.Inf(1)
		for _, a := range as {
			for _, b := range bs {
				dist := math.Sqrt(sqDist(x.row(b), x.row(a)))
				if dist < wd || (dist == wd && (a < wa || (a == wa && b < wb))) {
					wa, wb, wd = a, b, dist
				}
			}
		}
		a, b, dist, err := x.nearestBetween(ctx, as, bs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if a != wa || b != wb || dist != wd {
			t.Errorf("sets of %d and %d: (%d, %d) at %v, want (%d, %d) at %v", len(as), len(bs), a, b, dist, wa, wb, wd)
		}
	}
}
