package neighbors

import (
	"context"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/sparse"
)

// ErrDisconnected is sparse.ErrDisconnected: errors.Is(err, ErrDisconnected)
// holds for the *sparse.DisconnectedError that the "error" policy returns.
var ErrDisconnected = sparse.ErrDisconnected

// Disconnected is the policy for a neighbour graph with more than one
// connected component, wherever geodesic distances are computed.
type Disconnected int

const (
	// DisconnectedError refuses the graph with a *sparse.DisconnectedError
	// naming the components, their sizes and the other policies (default).
	DisconnectedError Disconnected = iota
	// DisconnectedConnect adds, for every pair of components, an edge
	// between their two closest points, weighted by its distance
	// (scikit-learn's _fix_connected_components).
	DisconnectedConnect
	// DisconnectedLargest keeps the largest component and reports the
	// points dropped.
	DisconnectedLargest
)

// disconnectedNames are the command line's names, in the constants' order.
var disconnectedNames = [...]string{"error", "connect", "largest"}

// String returns "error", "connect" or "largest", the command line's names.
func (p Disconnected) String() string {
	if p >= 0 && int(p) < len(disconnectedNames) {
		return disconnectedNames[p]
	}
	return fmt.Sprintf("Disconnected(%d)", int(p))
}

// ParseDisconnected parses "error", "connect" or "largest" ("" is "error").
func ParseDisconnected(s string) (Disconnected, error) {
	if s == "" {
		return DisconnectedError, nil
	}
	if i := slices.Index(disconnectedNames[:], s); i >= 0 {
		return Disconnected(i), nil
	}
	return 0, fmt.Errorf("%w: disconnected policy %q (want error, connect or largest)", ErrInput, s)
}

// Fixed is a neighbour graph after the disconnected policy.
type Fixed struct {
	// Graph is connected (or has no vertex).
	Graph *sparse.CSR
	// Kept holds the original index of every vertex of Graph, increasing:
	// all points unless the policy was "largest".
	Kept []int
	// Dropped holds the points left out by "largest", increasing.
	Dropped []int
	// Components is the number of connected components before the fix.
	Components int
	// Added is the number of edges (pairs i–j) added by "connect".
	Added int
}

// FixDisconnected applies policy to the symmetric graph g of the rows of
// x. x is read only by "connect" (and may be nil otherwise); its distances
// are those of opt.Metric. A connected g is returned as it is.
func FixDisconnected(ctx context.Context, x mat.Matrix, g *sparse.CSR, policy Disconnected, opt Options) (*Fixed, error) {
	var pts points
	if x != nil && policy == DisconnectedConnect {
		d, err := rowMajor(ctx, "x", x)
		if err != nil {
			return nil, err
		}
		pts = &denseData{g: d}
	}
	return fixDisconnected(ctx, pts, g, policy, opt)
}

// FixDisconnectedSparse is FixDisconnected for sparse rows.
func FixDisconnectedSparse(ctx context.Context, x *sparse.CSR, g *sparse.CSR, policy Disconnected, opt Options) (*Fixed, error) {
	var pts points
	if x != nil {
		pts = &sparseData{a: x}
	}
	return fixDisconnected(ctx, pts, g, policy, opt)
}

func fixDisconnected(ctx context.Context, x points, g *sparse.CSR, policy Disconnected, opt Options) (*Fixed, error) {
	n, c := g.Dims()
	if n != c {
		return nil, fmt.Errorf("%w: graph is %d×%d, not square", ErrInput, n, c)
	}
	labels, sizes := sparse.ConnectedComponents(g)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	f := &Fixed{Graph: g, Kept: all, Components: len(sizes)}
	if len(sizes) <= 1 {
		return f, nil
	}
	switch policy {
	case DisconnectedError:
		return nil, &sparse.DisconnectedError{Sizes: sizes}
	case DisconnectedLargest:
		f.Graph, f.Kept, f.Dropped = sparse.LargestComponent(g)
		return f, nil
	case DisconnectedConnect:
		if x == nil {
			return nil, fmt.Errorf("%w: the \"connect\" policy needs the data points", ErrInput)
		}
		if x.n() != n {
			return nil, fmt.Errorf("%w: graph has %d vertices for %d points", ErrInput, n, x.n())
		}
		members := make([][]int, len(sizes))
		for i, l := range labels {
			members[l] = append(members[l], i)
		}
		// The joining edges (one a pair of components, both directions)
		// merged into g's rows: O(nnz) with no sort of g's entries.
		coo := sparse.NewCOO(n, n, len(sizes)*len(sizes))
		for a := 1; a < len(sizes); a++ {
			for b := 0; b < a; b++ {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				i, j, d, err := x.nearestBetween(ctx, members[a], members[b], opt)
				if err != nil {
					return nil, err
				}
				coo.Add(i, j, d)
				coo.Add(j, i, d)
				f.Added++
			}
		}
		f.Graph = sparse.Union(g, coo.ToCSR(), func(x, y float64) float64 { return x + y })
		return f, nil
	}
	return nil, fmt.Errorf("%w: unknown disconnected policy %d", ErrInput, policy)
}
