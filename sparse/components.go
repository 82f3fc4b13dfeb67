package sparse

import (
	"errors"
	"fmt"
	"strings"
)

// ConnectedComponents returns the weakly connected components of the graph
// whose edges are the stored entries of the square A (an entry i→j joins i
// and j whatever its value, as in scipy.sparse.csgraph.connected_components
// with connection='weak'): labels[i] is the component of vertex i,
// numbered 0, 1, … in the order of each component's smallest vertex, and
// sizes[c] the number of vertices in component c. O(nnz·α(n)), union-find.
// It panics if A is not square.
func ConnectedComponents(a *CSR) (labels, sizes []int) {
	if a.r != a.c {
		panic(fmt.Sprintf("sparse: ConnectedComponents of a %d×%d matrix", a.r, a.c))
	}
	n := a.r
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i := 0; i < n; i++ {
		for p := a.indptr[i]; p < a.indptr[i+1]; p++ {
			ri, rj := find(i), find(a.ind[p])
			if ri != rj {
				// The smaller root wins, so a root is its component's smallest vertex.
				if ri < rj {
					parent[rj] = ri
				} else {
					parent[ri] = rj
				}
			}
		}
	}
	labels = make([]int, n)
	for i := 0; i < n; i++ {
		r := find(i)
		if r == i {
			labels[i] = len(sizes)
			sizes = append(sizes, 1)
			continue
		}
		// r < i (a root is its component's smallest vertex), so labels[r] is set.
		labels[i] = labels[r]
		sizes[labels[i]]++
	}
	return labels, sizes
}

// ErrDisconnected is matched (errors.Is) by the *DisconnectedError returned
// where geodesic distances are asked of a graph with more than one
// connected component and the policy is "error".
var ErrDisconnected = errors.New("sparse: graph is disconnected")

// DisconnectedError says how a neighbour graph falls apart.
type DisconnectedError struct {
	Sizes []int // size of every connected component, in label order
}

func (e *DisconnectedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sparse: the neighbour graph has %d connected components (sizes ", len(e.Sizes))
	for k, s := range e.Sizes {
		if k == 10 {
			fmt.Fprintf(&b, ", … %d more", len(e.Sizes)-10)
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, s)
	}
	b.WriteString(`), so some geodesic distances are infinite; increase k or ε, or choose the disconnected policy "connect" (add the shortest edges between components) or "largest" (keep the largest component)`)
	return b.String()
}

// Is makes errors.Is(err, ErrDisconnected) true.
func (e *DisconnectedError) Is(target error) bool { return target == ErrDisconnected }

// CheckConnected returns nil if the graph A has one connected component (or
// no vertex), and a *DisconnectedError otherwise.
func CheckConnected(a *CSR) error {
	_, sizes := ConnectedComponents(a)
	if len(sizes) <= 1 {
		return nil
	}
	return &DisconnectedError{Sizes: sizes}
}

// LargestComponent returns the subgraph induced by the largest connected
// component of A (the lowest label among equals), renumbered in increasing
// order of the original vertices; kept lists the original index of every
// vertex of the subgraph and dropped the vertices left out (both
// increasing).
func LargestComponent(a *CSR) (sub *CSR, kept, dropped []int) {
	labels, sizes := ConnectedComponents(a)
	if len(sizes) <= 1 {
		kept = make([]int, a.r)
		for i := range kept {
			kept[i] = i
		}
		return a, kept, nil
	}
	best := 0
	for c, s := range sizes {
		if s > sizes[best] {
			best = c
		}
	}
	kept = make([]int, 0, sizes[best])
	dropped = make([]int, 0, a.r-sizes[best])
	for i, l := range labels {
		if l == best {
			kept = append(kept, i)
		} else {
			dropped = append(dropped, i)
		}
	}
	return a.Submatrix(kept, kept), kept, dropped
}
