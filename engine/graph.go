package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/sparse"
)

// Disconnected is what a graph-based method does when the neighbour graph
// falls apart into several connected components.
type Disconnected = neighbors.Disconnected

const (
	// DisconnectedError refuses, naming the components, their sizes and
	// the other choices (the default).
	DisconnectedError = neighbors.DisconnectedError
	// DisconnectedConnect adds the shortest edge between every pair of
	// components (scikit-learn's behaviour).
	DisconnectedConnect = neighbors.DisconnectedConnect
	// DisconnectedLargest keeps the largest component; the model reports
	// the points dropped.
	DisconnectedLargest = neighbors.DisconnectedLargest
)

// ErrDisconnected is wrapped by the error of DisconnectedError; the error
// (a *sparse.DisconnectedError) names the components and the choices.
var ErrDisconnected = neighbors.ErrDisconnected

// ParseDisconnected parses "error", "connect" or "largest".
func ParseDisconnected(s string) (Disconnected, error) {
	p, err := neighbors.ParseDisconnected(s)
	if err != nil {
		return p, fmt.Errorf("%w: %v", ErrBadSetting, err)
	}
	return p, nil
}

// graphSpec is the neighbour graph a method asks for.
type graphSpec struct {
	k      int     // neighbours (kNN graph); 0 with labels: the whole class
	eps    float64 // > 0: ε-graph
	labels []int   // supervised graph
	policy Disconnected
	weight neighbors.Weight
	t      float64 // heat kernel t
}

// validate checks the graph settings against n points.
func (g graphSpec) validate(method string, n int) error {
	if g.k < 0 {
		return fmt.Errorf("%s: %w: k = %d", method, ErrBadSetting, g.k)
	}
	if g.eps < 0 || math.IsNaN(g.eps) || math.IsInf(g.eps, 0) {
		return fmt.Errorf("%s: %w: ε = %v", method, ErrBadSetting, g.eps)
	}
	if g.labels != nil && len(g.labels) != n {
		return fmt.Errorf("%s: %w: %d labels for %d samples", method, ErrLabels, len(g.labels), n)
	}
	if g.labels == nil && g.eps == 0 {
		if g.k == 0 {
			return fmt.Errorf("%s: %w: a neighbour graph needs k ≥ 1 or ε > 0", method, ErrBadSetting)
		}
		if g.k >= n {
			return fmt.Errorf("%s: %w: k = %d neighbours need more than %d samples", method, ErrTooFewSamples, g.k, n)
		}
	}
	if g.policy < DisconnectedError || g.policy > DisconnectedLargest {
		return fmt.Errorf("%s: %w: disconnected policy %d", method, ErrBadSetting, g.policy)
	}
	return nil
}

func (g graphSpec) params(p map[string]any) {
	if g.eps > 0 {
		p["eps"] = g.eps
	} else {
		p["k"] = g.k
	}
	if g.labels != nil {
		p["supervised"] = true
	}
	policy := g.policy
	if g.labels != nil && policy == DisconnectedError {
		policy = DisconnectedConnect // see neighbourGraph
	}
	p["disconnected"] = policy.String()
}

// neighbourGraph builds the graph of the rows of x (stage "neighbors") and
// applies the disconnected policy (stage "components"). A supervised graph
// has one component per class by construction: unless the policy is
// DisconnectedLargest, its classes are joined by their closest pairs
// (DisconnectedConnect).
func neighbourGraph(r *run, x blas64.General, spec graphSpec) (*neighbors.Fixed, error) {
	return neighbourGraphOf(r, samples{dense: x}, spec)
}

// neighbourGraphOf is neighbourGraph for dense or sparse rows (Euclidean
// distances either way).
func neighbourGraphOf(r *run, x samples, spec graphSpec) (*neighbors.Fixed, error) {
	n, d := x.rows(), x.cols()
	policy := spec.policy
	if spec.labels != nil && policy == DisconnectedError {
		policy = DisconnectedConnect
	}
	var dense *mat.Dense
	if x.csr == nil {
		dense = toDense(x.dense)
	}
	var g *sparse.CSR
	// Sparse rows: each of the n·n dot products costs about the stored
	// entries of a row, not D.
	predicted := flam.KNNBrute(n, n, d) * float64(x.nnz()) / float64(max(1, n*d))
	if x.csr == nil {
		k := spec.k
		if k == 0 { // ε or whole-class graph: about a leaf's worth of neighbours
			k = 16
		}
		predicted = neighbors.Options{}.Flam(n, n, d, k)
	}
	err := r.stage("neighbors", predicted, func(ctx context.Context, st *stageCtx) error {
		opt := neighbors.GraphOptions{K: spec.k, Eps: spec.eps, Labels: spec.labels, Weight: spec.weight, T: spec.t}
		var err error
		if x.csr != nil {
			g, err = neighbors.GraphSparse(ctx, x.csr, opt)
		} else {
			g, err = neighbors.Graph(ctx, dense, opt)
		}
		if err == nil {
			st.detail = fmt.Sprintf("%d edges", g.NNZ())
		}
		return err
	})
	if err != nil {
		return nil, mapGraphErr(err)
	}
	var fixed *neighbors.Fixed
	err = r.stage("components", float64(g.NNZ()+n), func(ctx context.Context, st *stageCtx) error {
		var err error
		if x.csr != nil {
			fixed, err = neighbors.FixDisconnectedSparse(ctx, x.csr, g, policy, neighbors.Options{})
		} else {
			fixed, err = neighbors.FixDisconnected(ctx, dense, g, policy, neighbors.Options{})
		}
		if err == nil {
			st.detail = fmt.Sprintf("%d component(s), policy %s", fixed.Components, policy)
			if len(fixed.Dropped) > 0 {
				st.detail += fmt.Sprintf(", %d point(s) dropped", len(fixed.Dropped))
			}
			if fixed.Added > 0 {
				st.detail += fmt.Sprintf(", %d edge(s) added", fixed.Added)
			}
		}
		return err
	})
	if err != nil {
		return nil, mapGraphErr(err)
	}
	if len(fixed.Kept) < 2 {
		return nil, fmt.Errorf("%s: %w: the graph keeps %d point(s)", r.method, ErrTooFewSamples, len(fixed.Kept))
	}
	return fixed, nil
}

// mapGraphErr maps the neighbour package's input errors onto the engine's.
func mapGraphErr(err error) error {
	if errors.Is(err, neighbors.ErrInput) && !errors.Is(err, ErrDisconnected) {
		return fmt.Errorf("%w: %w", ErrBadSetting, err)
	}
	return err
}

// checkKNNConnected returns an error wrapping ErrDisconnected, naming the
// components, when the k-nearest-neighbour lists nb (edges in either
// direction) fall apart: the bottom eigenvectors of a method built on
// local weights (LLE, LTSA) then only tell the components apart, and its
// embedding would be meaningless.
func checkKNNConnected(method string, nb *neighbors.Result) error {
	n := nb.Len()
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
	parts := n
	for i := 0; i < n; i++ {
		js, _ := nb.Row(i)
		for _, j := range js {
			if a, b := find(i), find(j); a != b {
				parent[max(a, b)] = min(a, b)
				parts--
			}
		}
	}
	if parts <= 1 {
		return nil
	}
	size := map[int]int{}
	var roots []int
	for i := 0; i < n; i++ {
		r := find(i)
		if size[r] == 0 {
			roots = append(roots, r)
		}
		size[r]++
	}
	var sizes []string
	for c, r := range roots {
		if c == 10 {
			sizes = append(sizes, fmt.Sprintf("… %d more", len(roots)-10))
			break
		}
		sizes = append(sizes, fmt.Sprint(size[r]))
	}
	return fmt.Errorf("%s: %w: the %d-nearest-neighbour graph has %d connected components (sizes %s): the bottom eigenvectors would only tell them apart; increase k, or embed the components separately",
		method, ErrDisconnected, len(nb.Ind)/max(n, 1), parts, strings.Join(sizes, ", "))
}

// graphBytes estimates the memory of the neighbour stages for n points and
// k neighbours (an ε-graph counts as k = 10): the brute-force search's key
// tile (up to 1024² keys, 8 MiB; the k-d tree needs less), the neighbour
// lists, and the symmetrised graph with the copy the disconnected policy
// makes, about 64·n·k bytes.
func graphBytes(n, k int) int64 {
	t := int64(min(n, 1024))
	return 8*t*t + 64*int64(n)*int64(max(k, 10))
}

// subsetRows returns the rows idx of x as a compact matrix.
func subsetRows(x blas64.General, idx []int) blas64.General {
	g := newGeneral(len(idx), x.Cols)
	for i, r := range idx {
		copy(g.Data[i*g.Stride:i*g.Stride+x.Cols], x.Data[r*x.Stride:r*x.Stride+x.Cols])
	}
	return g
}
