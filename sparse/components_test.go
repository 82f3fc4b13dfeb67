package sparse_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/manifoldlab/manifold/sparse"
)

// Components against scipy.sparse.csgraph.connected_components
// (connection='weak') on the directed fixture graph.
func TestComponentsScipy(t *testing.T) {
	g, err := sparse.ReadMatrixMarketFile("testdata/graph_directed.mtx")
	if err != nil {
		t.Fatal(err)
	}
	want := readDense(t, "testdata/cc_labels.txt")
	labels, sizes := sparse.ConnectedComponents(g)
	count := make([]int, len(sizes))
	for i, l := range labels {
		if float64(l) != want.At(i, 0) {
			t.Fatalf("label[%d] = %d, scipy %v", i, l, want.At(i, 0))
		}
		count[l]++
	}
	for c := range sizes {
		if sizes[c] != count[c] {
			t.Fatalf("sizes %v, counted %v", sizes, count)
		}
	}
	if len(sizes) != 3 {
		t.Fatalf("%d components, want 3", len(sizes))
	}
}

func TestDisconnected(t *testing.T) {
	// Components {0, 3}, {1, 2, 4}, {5}, {6}: sizes 2, 3, 1, 1.
	c := sparse.NewCOO(7, 7, 0)
	for _, e := range [][2]int{{0, 3}, {1, 2}, {2, 4}} {
		c.Add(e[0], e[1], 1)
		c.Add(e[1], e[0], 1)
	}
	g := c.ToCSR()
	labels, sizes := sparse.ConnectedComponents(g)
	wantLabels := []int{0, 1, 1, 0, 1, 2, 3}
	for i := range wantLabels {
		if labels[i] != wantLabels[i] {
			t.Fatalf("labels %v, want %v", labels, wantLabels)
		}
	}
	err := sparse.CheckConnected(g)
	if !errors.Is(err, sparse.ErrDisconnected) {
		t.Fatalf("CheckConnected: %v", err)
	}
	var de *sparse.DisconnectedError
	if !errors.As(err, &de) || len(de.Sizes) != 4 || de.Sizes[1] != 3 {
		t.Fatalf("DisconnectedError %+v (sizes %v)", de, sizes)
	}
	for _, s := range []string{"4 connected components", "2, 3, 1, 1", `"connect"`, `"largest"`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message %q lacks %q", err, s)
		}
	}
	sub, kept, dropped := sparse.LargestComponent(g)
	if r, _ := sub.Dims(); r != 3 || len(kept) != 3 || kept[0] != 1 || kept[2] != 4 || len(dropped) != 4 || dropped[0] != 0 {
		t.Fatalf("largest: kept %v dropped %v", kept, dropped)
	}
	if sub.At(0, 1) != 1 || sub.At(1, 2) != 1 || sub.At(0, 2) != 0 {
		t.Fatal("largest: subgraph edges")
	}
	if sparse.CheckConnected(sub) != nil {
		t.Fatal("largest component is disconnected")
	}
}
