package sparse

import (
	"context"
	"os"
	"slices"
	"testing"
)

func TestProtoSpan(t *testing.T) {
	if os.Getenv("PROTO_MTX") == "" {
		t.Skip()
	}
	a, err := ReadMatrixMarketFile(os.Getenv("PROTO_MTX"))
	if err != nil {
		t.Fatal(err)
	}
	at := a.Transpose()
	// OR graph pattern: a + aᵀ
	n := a.r
	c := NewCOO(n, n, 2*a.NNZ())
	for i := 0; i < n; i++ {
		cols, vals := a.Row(i)
		for k, j := range cols {
			c.Add(i, j, vals[k])
		}
		cols, vals = at.Row(i)
		for k, j := range cols {
			c.Add(i, j, vals[k])
		}
	}
	g := c.ToCSR()
	pg, _ := newPathGraph(context.Background(), "x", g)
	var gaps []int
	for s := int32(0); int(s) < n; s++ {
		for _, u := range pg.adj[pg.ptr[s]:pg.ptr[s+1]] {
			if u < s {
				gaps = append(gaps, int(s-u))
			}
		}
	}
	slices.Sort(gaps)
	q := func(p float64) int { return gaps[int(p*float64(len(gaps)-1))] }
	t.Logf("n=%d earlier edges %d: gap quantiles 50%% %d 90%% %d 99%% %d 99.9%% %d max %d", n, len(gaps), q(.5), q(.9), q(.99), q(.999), gaps[len(gaps)-1])
	for _, w := range []int{128, 256, 512, 1024} {
		k, _ := slices.BinarySearch(gaps, w+1)
		t.Logf("W=%d: %.4f of earlier edges within", w, float64(k)/float64(len(gaps)))
	}
}
