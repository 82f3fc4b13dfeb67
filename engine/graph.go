package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/backend/flam"
	"github.com/manifoldlab/manifold/engine/neighbors"
	"github.com/manifoldlab/manifold/internal/dense"
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

// SupervisedGeodesic says how a supervised Isomap-family fit (Isomap,
// Isometric Projection, OIP, SOIP with Labels) sets the geodesic between
// points of different classes, which its graph (edges within a class
// only) does not join.
type SupervisedGeodesic string

const (
	// SupervisedConstant, the default: every pair of points of different
	// classes is a constant 1000 × the largest within-class geodesic apart
	// — Deng Cai's reference code of Isometric Projection (IsoP.m), which
	// the paper's Table 2 ran (Cai, He & Han, AAAI 2007). With it, on the
	// Table 2 protocol on orl32 and yale32, IsoProjection at c − 1
	// dimensions is at most 3 points below LDA and at or above it in 6 of
	// 14 Gp/Pq (the paper: 0.8 below at its smallest training size, above
	// from there on); with SupervisedJoin it was 2–17 points below LDA
	// (bench/RESULTS.md, faces-table2).
	SupervisedConstant SupervisedGeodesic = ""
	// SupervisedJoin joins the classes at their closest pairs
	// (DisconnectedConnect) and takes shortest paths through those edges.
	SupervisedJoin SupervisedGeodesic = "join"
)

// supervisedFactor is the between-class geodesic of SupervisedConstant
// relative to the largest within-class one (IsoP.m's 1000).
const supervisedFactor = 1000

// ParseSupervisedGeodesic parses "constant" or "join".
func ParseSupervisedGeodesic(s string) (SupervisedGeodesic, error) {
	switch s {
	case "constant", "":
		return SupervisedConstant, nil
	case "join":
		return SupervisedJoin, nil
	}
	return "", fmt.Errorf("%w: supervised geodesic %q (want constant or join)", ErrBadSetting, s)
}

// String returns "constant" or "join".
func (b SupervisedGeodesic) String() string {
	if b == SupervisedConstant {
		return "constant"
	}
	return string(b)
}

// graphSpec is the neighbour graph a method asks for.
type graphSpec struct {
	k       int     // neighbours (kNN graph); 0 with labels: the whole class
	eps     float64 // > 0: ε-graph
	labels  []int   // supervised graph
	policy  Disconnected
	weight  neighbors.Weight
	t       float64            // heat kernel t
	between SupervisedGeodesic // supervised graphs only
}

// constantBetween reports whether the geodesics of the graph of spec leave
// unreachable pairs (points of different classes) to the constant of
// SupervisedConstant rather than joining the classes.
func (g graphSpec) constantBetween() bool {
	return g.labels != nil && g.between == SupervisedConstant && g.policy != DisconnectedLargest
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
	if g.labels != nil && n > 1 && !sharedLabel(g.labels) {
		return fmt.Errorf("%s: %w: each of the %d samples has a class of its own, and a supervised graph joins only samples of one class: it would have no edge", method, ErrLabels, n)
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
	if g.between != SupervisedConstant && g.between != SupervisedJoin {
		return fmt.Errorf("%s: %w: supervised geodesic %q (want constant or join)", method, ErrBadSetting, string(g.between))
	}
	return nil
}

// sharedLabel reports whether two samples have the same label.
func sharedLabel(labels []int) bool {
	seen := make(map[int]bool, len(labels))
	for _, l := range labels {
		if seen[l] {
			return true
		}
		seen[l] = true
	}
	return false
}

// defaultK is K with the default of the graph methods, 10 neighbours,
// unless the graph is an ε-graph or supervised.
func defaultK(k int, eps float64, labels []int) int {
	if k == 0 && eps == 0 && labels == nil {
		return 10
	}
	return k
}

// graphParams are the parameters of a method's neighbour graph: its size,
// k or ε, which a model that keeps the graph also saves, and in the report
// how it was built and what its disconnected policy did.
type graphParams struct {
	K                  int     `param:"k,unless=eps"`
	Eps                float64 `param:"eps,omitempty"`
	Supervised         bool    `param:"supervised,report,omitempty"`
	SupervisedGeodesic string  `param:"supervised_geodesic,report,omitempty"`
	// Disconnected is the policy applied ("constant": the classes of a
	// supervised graph left apart, see SupervisedConstant); "" for the
	// methods that take every graph.
	Disconnected string `param:"disconnected,report,omitempty"`
	Dropped      int    `param:"dropped,report,omitempty"` // points the policy left out
}

// params returns the parameters of the graph of g.
func (g graphSpec) params() graphParams {
	p := graphParams{K: g.k, Eps: g.eps, Disconnected: "constant"}
	if g.labels != nil {
		p.Supervised, p.SupervisedGeodesic = true, g.between.String()
	}
	if !g.constantBetween() {
		policy := g.policy
		if g.labels != nil && policy == DisconnectedError {
			policy = DisconnectedConnect // see neighbourGraph
		}
		p.Disconnected = policy.String()
	}
	return p
}

// neighbourGraph builds the graph of the rows of x (stage "neighbors") and
// applies the disconnected policy (stage "components"). A supervised graph
// has one component per class by construction: unless the policy is
// DisconnectedLargest, its classes are left apart for the constant
// between-class geodesic (SupervisedConstant) or joined by their closest
// pairs (SupervisedJoin: DisconnectedConnect).
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
	keep := ""
	if spec.constantBetween() {
		keep = "left apart for the constant between-class geodesic"
	}
	return graphComponents(r, x, spec, predicted, policy, keep)
}

// mapGraphErr maps the neighbour package's input errors onto the engine's
// (once: an error that already wraps ErrBadSetting is returned as it is).
func mapGraphErr(err error) error {
	if errors.Is(err, neighbors.ErrInput) && !errors.Is(err, ErrDisconnected) && !errors.Is(err, ErrBadSetting) {
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

// graphBytes estimates the memory of the neighbour stages for the rows in
// and k neighbours (an ε-graph counts as k = 10): the brute-force search's
// key tile (up to 1024² keys, 8 MiB; the k-d tree needs less), the
// neighbour lists, and the symmetrised graph with the copy the disconnected
// policy makes, about 64·n·k bytes; and, when o's search of k > 0
// neighbours will be approximate, what NN-descent holds besides
// (neighbors.ApproxBytes: the rows' float32 copy, the forest, heaps,
// candidate lists and the joins' proposals).
func graphBytes(o Neighbors, in samples, k int) int64 {
	n, d := in.dims()
	b := keyTileBytes(n) + 64*int64(n)*int64(max(k, 10))
	if o.approximate(n, d, in.nnz(), k) {
		b += neighbors.ApproxBytes(n, d, k, in.isSparse(), o.Approx)
	}
	return b
}

// searchBytes estimates the memory of a search by opt (the search knnSearch
// resolved) of the k nearest rows of the rows in, besides the input: the
// lists (16 bytes a neighbour, the row pointers) and, for the brute force,
// its key tile (up to 1024² keys, 8 MiB), for the k-d tree its
// permutation; or, for NN-descent, what it holds (neighbors.ApproxBytes,
// its lists included).
func searchBytes(opt neighbors.Options, in samples, k int) int64 {
	n, d := in.dims()
	alg := opt.Method(n, n, d, k)
	if alg == neighbors.NNDescent {
		return neighbors.ApproxBytes(n, d, k, in.isSparse(), opt.Approx)
	}
	lists := 16*int64(n)*int64(k) + 8*int64(n+1)
	if alg == neighbors.KDTree && !in.isSparse() {
		return lists + 8*int64(n)
	}
	return lists + keyTileBytes(n)
}

// keyTileBytes is the brute-force search's tile of keys among n rows: up
// to 1024² float64s, 8 MiB.
func keyTileBytes(n int) int64 {
	t := int64(min(n, 1024))
	return 8 * t * t
}

// subsetRows returns the rows idx of x as a compact matrix (trainRows for
// the training rows of large inputs: it checks a context).
func subsetRows(x blas64.General, idx []int) blas64.General {
	g := dense.New(len(idx), x.Cols)
	_ = dense.CopyRowsCtx(context.Background(), g, x, idx) // never cancelled
	return g
}

// keptRows is the rows of the input a fixed graph keeps, for trainRows:
// nil when it keeps them all.
func keptRows(fixed *neighbors.Fixed) []int {
	if len(fixed.Dropped) == 0 {
		return nil
	}
	return fixed.Kept
}

// NeighborSearch chooses how a graph method finds its neighbours.
type NeighborSearch int

const (
	// NeighborsAuto is exact while the exact search's predicted flam is at
	// most AutoApproxFlam, approximate (NN-descent) beyond (the default).
	NeighborsAuto NeighborSearch = iota
	// NeighborsExact always searches exactly (k-d tree or brute force).
	NeighborsExact
	// NeighborsApprox always uses NN-descent for the k-nearest lists.
	NeighborsApprox
)

// neighborSearchNames are the command line's names, in the constants'
// order.
var neighborSearchNames = [...]string{"auto", "exact", "approx"}

// String returns "auto", "exact" or "approx", the command line's names.
func (s NeighborSearch) String() string {
	if s >= 0 && int(s) < len(neighborSearchNames) {
		return neighborSearchNames[s]
	}
	return fmt.Sprintf("NeighborSearch(%d)", int(s))
}

// ParseNeighbors parses "auto" (or ""), "exact", "approx" or
// "approximate".
func ParseNeighbors(s string) (NeighborSearch, error) {
	switch s {
	case "":
		return NeighborsAuto, nil
	case "approximate":
		return NeighborsApprox, nil
	}
	if i := slices.Index(neighborSearchNames[:], s); i >= 0 {
		return NeighborSearch(i), nil
	}
	return 0, fmt.Errorf("%w: neighbour search %q (want auto, exact or approx)", ErrBadSetting, s)
}

// Neighbors configures the neighbour search of every graph method (the
// field Options.Neighbors). The zero value is the automatic choice with
// NN-descent's defaults and a recall measured on 200 points.
type Neighbors struct {
	// Search is auto, exact or approx.
	Search NeighborSearch
	// Approx holds NN-descent's knobs (its Metric is ignored: the
	// method's metric is used), Refine among them: one refining search a
	// row after the iterations (dense rows; the report's "refine_width").
	Approx neighbors.ApproxOptions
	// RecallSample is the number of points whose exact neighbours are
	// found, by brute force, to measure the recall of an approximate
	// search (0: 200; negative: not measured).
	RecallSample int
	// Width is the search width of Transform's approximate neighbour
	// queries in a model whose fit searched approximately: the candidates
	// the best-first search of the training graph keeps (at least the
	// neighbours asked for; 0: max(2k, 30)). Larger is slower and closer
	// to exact. The model (and its file: the report's "search_width")
	// keeps it.
	Width int
	// IndexK, when positive, widens the graph that Transform's
	// approximate queries walk (in a model whose fit searched
	// approximately) to the IndexK nearest training rows of every
	// training row: one search a row at width 2·IndexK + 2, in a last fit
	// stage "index" (neighbors.Index.Widen), the lists kept in the model
	// (its file: the report's "index_k"). 0: the fit's own lists (k a row;
	// the graph's rows for Isomap and Landmark Isomap). A wider graph
	// reaches a given recall at a smaller Width, so Transform runs faster:
	// on 100,000 deformed USPS digits, IndexK 15 let queries reach recall@10
	// 0.957 at Width 16 where the fit's 10 lists needed Width 24 for 0.953;
	// a Landmark Isomap model mapped 13–15 % more rows a second at equal
	// recall, for about 5 s more fit (of 32–40 s; bench/RESULTS.md, "a
	// wider search graph").
	IndexK int
	// Graph, when not nil, replaces the neighbour search: an n×n graph of
	// the n training rows whose stored weights are distances (directed,
	// as manifold neighbors writes a kNN graph, or symmetric: an ε-graph,
	// a graph built elsewhere). It is checked (square, n×n, finite
	// non-negative weights, at most √(MaxFloat64/8)/n and, when positive,
	// at least 1e-150, so that squared geodesic distances neither overflow
	// nor underflow; errors wrap ErrBadSetting), its diagonal
	// dropped, symmetrized by the OR rule and weighted as the method
	// weighs its own graph; the disconnected policies apply as to a
	// searched graph. Methods built on each point's k nearest (LLE, LTSA,
	// NPE, TDPM) take the k lightest entries of every row. Not with a
	// supervised graph or ε. Transform still finds a new point's
	// neighbours among the training rows (given to Fit).
	Graph *sparse.CSR
}

// AutoApproxFlam is the predicted flam of the exact search above which
// NeighborsAuto goes approximate: 3e10, about an 11,000-point brute-force self search in
// 256 dimensions. Measured on the 2-core reference machine (shared) with
// k = 15 on deformed USPS digits (256 features), exact against NN-descent
// (recall ≈ 0.988): 10,000 points 2.85 s against 0.37 s, 20,000 points
// 11.0 s against 0.75 s, 5,000 points 0.72 s against 0.16 s. Below the
// threshold the exact search costs at most a few seconds and is exact;
// low-dimensional data (the k-d tree, whose predicted flam is small) stay
// exact at any size.
const AutoApproxFlam = 3e10

func (o Neighbors) check() error {
	if o.Search < NeighborsAuto || o.Search > NeighborsApprox {
		return fmt.Errorf("%w: neighbour search %d", ErrBadSetting, o.Search)
	}
	if o.Width < 0 {
		return fmt.Errorf("%w: search width %d, need ≥ 0", ErrBadSetting, o.Width)
	}
	if o.IndexK < 0 {
		return fmt.Errorf("%w: index neighbours %d, need ≥ 0", ErrBadSetting, o.IndexK)
	}
	a := o.Approx
	a.Metric = neighbors.Euclidean
	if err := a.Check(); err != nil {
		return fmt.Errorf("%w: %w", ErrBadSetting, err)
	}
	return nil
}

// approximate reports whether o's search of k neighbours among n rows of d
// features (nnz stored values in all) is NN-descent: always with
// NeighborsApprox, with NeighborsAuto when the exact search's predicted
// flam passes AutoApproxFlam; never for k = 0 (an ε-graph).
func (o Neighbors) approximate(n, d, nnz, k int) bool {
	if k <= 0 {
		return false
	}
	exact := neighbors.Options{}.Flam(n, n, d, k) * float64(nnz) / float64(max(1, n*d))
	return o.Search == NeighborsApprox || (o.Search == NeighborsAuto && exact > AutoApproxFlam)
}

// knnSearch is a fit's choice of neighbour search for a self search of k
// neighbours among n rows of d features (nnz stored values in all): the
// search options and whether the lists will be approximate.
func (r *run) knnSearch(n, d, nnz, k int, metric neighbors.Metric) (neighbors.Options, error) {
	o := r.opts.Neighbors
	if err := o.check(); err != nil {
		return neighbors.Options{}, fmt.Errorf("%s: %w", r.method, err)
	}
	opt := neighbors.Options{Metric: metric}
	if o.approximate(n, d, nnz, k) {
		if w := o.Approx.Refine; w > 0 && (w < k+1 || nnz < n*d) {
			return neighbors.Options{}, fmt.Errorf("%s: %w: refine width %d: the refining search needs dense rows and a width of at least k + 1 = %d", r.method, ErrBadSetting, w, k+1)
		}
		opt.Algorithm = neighbors.NNDescent
		opt.Approx = o.Approx
	}
	return opt, nil
}

// recallSample is the number of points whose exact neighbours measure an
// approximate search's recall: RecallSample, 200 when it is 0, none (0)
// when it is negative.
func (o Neighbors) recallSample() int {
	switch {
	case o.RecallSample < 0:
		return 0
	case o.RecallSample == 0:
		return 200
	}
	return o.RecallSample
}

// noteSearch writes, into the stage's report, which search made the lists
// res of the rows in and, for an approximate one, its recall measured on a
// seeded sample of Neighbors.RecallSample points (their exact neighbours by
// brute force: sample·n·D flam more).
func noteSearch(ctx context.Context, st *stageCtx, in samples, opt neighbors.Options, res *neighbors.Result) error {
	n, d := in.dims()
	if opt.Algorithm != neighbors.NNDescent {
		k := 1
		if res != nil && res.Len() > 0 {
			k = max(1, len(res.Ind)/res.Len())
		}
		m := opt.Method(n, n, d, k)
		if in.isSparse() {
			m = neighbors.Brute
		}
		st.search = "exact " + m.String()
		return nil
	}
	st.search = "nn-descent"
	sample := st.r.opts.Neighbors.recallSample()
	if sample == 0 || res == nil {
		return nil
	}
	var est neighbors.RecallEstimate
	var err error
	seed := st.r.opts.Neighbors.Approx.Seed ^ 0x5eed
	exactOpt := neighbors.Options{Metric: opt.Metric, Impl: opt.Impl}
	if in.isSparse() {
		est, err = neighbors.SampledRecallSparse(ctx, in.csr, res, sample, seed, exactOpt)
	} else {
		est, err = neighbors.SampledRecall(ctx, toDense(in.dense), res, sample, seed, exactOpt)
	}
	if err != nil {
		return err
	}
	st.recall = &est
	st.predicted += flam.KNNBrute(est.Sample, n, d) * float64(in.nnz()) / float64(max(1, n*d))
	return nil
}

// selfKNN returns the k nearest neighbours of every row of in among the
// others, by the fit's neighbour search (Options.Neighbors), noting the
// search and its recall in the stage: the one place the engine's methods
// that need directed k-nearest lists (LLE, LTSA, NPE, TDPM) search.
func selfKNN(ctx context.Context, st *stageCtx, in samples, k int) (*neighbors.Result, error) {
	n, d := in.dims()
	if gg := st.r.opts.Neighbors.Graph; gg != nil {
		st.search = "given graph"
		res, err := neighbors.ListsFromGraph(gg, n, k)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadSetting, err)
		}
		return res, nil
	}
	opt, err := st.r.knnSearch(n, d, in.nnz(), k, neighbors.Euclidean)
	if err != nil {
		return nil, err
	}
	var res *neighbors.Result
	err = st.watchSearch(ctx, opt, n, func(ctx context.Context) error {
		var err error
		if in.isSparse() {
			res, err = neighbors.KNNSparse(ctx, in.csr, k, opt)
		} else {
			res, err = neighbors.KNN(ctx, toDense(in.dense), k, opt)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, noteSearch(ctx, st, in, opt, res)
}

// checkGraphWeights refuses a given graph of n points whose distances
// (its weights before the method weighs them) are so large that squared
// geodesic distances along n edges overflow, or whose smallest positive
// one squares below minSpread² (the heat kernel's width, the squared
// distances of τ, underflow): errors wrap ErrBadSetting, as the graph's
// other checks do.
func checkGraphWeights(g *sparse.CSR, n int) error {
	big, small := 0.0, math.Inf(1)
	for _, w := range g.Values() {
		big = max(big, w)
		if w > 0 {
			small = min(small, w)
		}
	}
	if limit := math.Sqrt(math.MaxFloat64/8) / float64(n); big > limit {
		return fmt.Errorf("%w: the given graph's weights reach %.3g: past %.3g squared geodesic distances among %d points may overflow; rescale the graph", ErrBadSetting, big, limit, n)
	}
	if small < minSpread {
		return fmt.Errorf("%w: the given graph's smallest positive weight is %.3g: below %.3g its square underflows; rescale the graph", ErrBadSetting, small, minSpread)
	}
	return nil
}

// graphStage is stage "neighbors" of the graph methods: the graph of spec
// on the rows of x (dense or sparse, Euclidean), its k-nearest lists
// searched as Options.Neighbors says, the search and its recall noted.
func graphStage(r *run, x samples, spec graphSpec, predicted float64) (*sparse.CSR, error) {
	n, d := x.rows(), x.cols()
	var g *sparse.CSR
	if gg := r.opts.Neighbors.Graph; gg != nil {
		if spec.labels != nil || spec.eps > 0 {
			return nil, fmt.Errorf("%s: %w: a given graph replaces the neighbour search: it cannot be supervised or an ε-graph", r.method, ErrBadSetting)
		}
		err := r.stage("neighbors", float64(gg.NNZ()), func(ctx context.Context, st *stageCtx) error {
			var err error
			g, err = neighbors.FromGraph(gg, n, neighbors.GraphOptions{Weight: spec.weight, T: spec.t})
			if err != nil {
				return fmt.Errorf("%w: %w", ErrBadSetting, err)
			}
			if err := checkGraphWeights(gg, n); err != nil {
				return err
			}
			st.search = "given graph"
			st.detail = fmt.Sprintf("%d edges, given", g.NNZ())
			return nil
		})
		return g, err
	}
	err := r.stage("neighbors", predicted, func(ctx context.Context, st *stageCtx) error {
		search, err := r.knnSearch(n, d, x.nnz(), spec.k, neighbors.Euclidean)
		if err != nil {
			return err
		}
		if spec.eps > 0 {
			search = neighbors.Options{}
		}
		opt := neighbors.GraphOptions{K: spec.k, Eps: spec.eps, Labels: spec.labels, Weight: spec.weight, T: spec.t, Search: search}
		var lists *neighbors.Result
		err = st.watchSearch(ctx, search, n, func(ctx context.Context) error {
			var err error
			if x.csr != nil {
				g, lists, err = neighbors.GraphSparseAndLists(ctx, x.csr, opt)
			} else {
				g, lists, err = neighbors.GraphAndLists(ctx, toDense(x.dense), opt)
			}
			return err
		})
		if err != nil {
			return err
		}
		if search.Algorithm == neighbors.NNDescent {
			st.predicted = search.Flam(n, n, d, spec.k) * float64(x.nnz()) / float64(max(1, n*d))
		}
		st.detail = fmt.Sprintf("%d edges, %s rows", g.NNZ(), x.kind())
		return noteSearch(ctx, st, x, search, lists)
	})
	return g, err
}

// KNNGraph is the k-nearest-neighbour graph as a product (the command's
// manifold neighbors): Search returns every row's K nearest other rows,
// searched as Options.Neighbors says, with a report whose stage
// "neighbors" names the search and, when approximate, its measured recall.
type KNNGraph struct {
	K int // neighbours per row (required, 1 ≤ K < rows)
	Options
}

const methodKNNGraph = "neighbors"

// Search finds the lists of the rows of x (dense, or *sparse.CSR; Euclidean
// distances). Errors: ErrBadSetting (K out of range, bad neighbour
// settings), ErrMemoryBudget (the search's estimate, searchBytes with the
// input's copy, past Options.MaxBytes), the input errors of the methods
// (empty, not finite), or ctx's error.
func (s KNNGraph) Search(ctx context.Context, x mat.Matrix) (*neighbors.Result, *Report, error) {
	return s.search(ctx, x, 0)
}

// search is Search with extra bytes (Search32's float64 copy of its rows)
// counted in the estimate.
func (s KNNGraph) search(ctx context.Context, x mat.Matrix, extra int64) (*neighbors.Result, *Report, error) {
	in, err := fitSamplesInput(methodKNNGraph, x, s.Options, false, 2)
	if err == nil {
		in, err = denseIfOffset(methodKNNGraph, in, nil, s.Options)
	}
	if err != nil {
		return nil, nil, err
	}
	n, d := in.dims()
	if s.K < 1 || s.K >= n {
		return nil, nil, fmt.Errorf("%s: %w: k = %d neighbours of %d samples (need 1 ≤ k < samples)", methodKNNGraph, ErrBadSetting, s.K, n)
	}
	r, err := startRun(ctx, methodKNNGraph, s.Options, n, d, 0, s.params(false, s.Options.Neighbors.approximate(n, d, in.nnz(), s.K)))
	if err != nil {
		return nil, nil, err
	}
	defer r.finish()
	opt, err := r.knnSearch(n, d, in.nnz(), s.K, neighbors.Euclidean)
	if err != nil {
		return nil, nil, err
	}
	est := searchBytes(opt, in, s.K) + fitCopyBytes(x, in.isSparse()) + extra
	cheaper := "an approximate search, or a smaller k"
	if opt.Algorithm == neighbors.NNDescent {
		cheaper = "float32 rows searched in place (Search32), or a smaller k"
	}
	if err := r.checkBudget(est, fmt.Sprintf("the %d-nearest-neighbour lists of %d rows × %d features", s.K, n, d), cheaper); err != nil {
		return nil, nil, err
	}
	var res *neighbors.Result
	err = r.stage("neighbors", opt.Flam(n, n, d, s.K)*float64(in.nnz())/float64(max(1, n*d)), func(ctx context.Context, st *stageCtx) error {
		var err error
		res, err = selfKNN(ctx, st, in, s.K)
		return err
	})
	return searched(r, res, err)
}

// params are the report's parameters of a search: k, the search asked
// for, the refine width of an approximate one, and
// "rows": "float32" for Search32's approximate search.
func (s KNNGraph) params(float32Rows, approximate bool) map[string]any {
	p := map[string]any{"k": s.K, "neighbors": s.Options.Neighbors.Search.String()}
	if w := s.Options.Neighbors.Approx.Refine; w > 0 && approximate {
		p["refine_width"] = w
	}
	if float32Rows {
		p["rows"] = "float32"
	}
	return p
}

// searched ends a KNNGraph search: the stage's error, or the lists with
// the run's report.
func searched(r *run, res *neighbors.Result, err error) (*neighbors.Result, *Report, error) {
	if err != nil {
		return nil, nil, mapGraphErr(err)
	}
	rep, err := r.done()
	if err != nil {
		return nil, nil, err
	}
	return res, rep, nil
}

// Approximate reports whether Search of n rows of d dense features will
// be approximate (NN-descent): the rule of Options.Neighbors (auto:
// exact while the exact search's predicted flam is at most
// AutoApproxFlam). The command asks it to choose how to read its input.
func (s KNNGraph) Approximate(n, d int) bool {
	return s.Options.Neighbors.approximate(n, d, n*d, s.K)
}

// Search32 is Search for dense rows held in float32 (x is rows × cols,
// row i at x[i·cols:(i+1)·cols]), as dataio.ReadNPY32Ctx reads them, for
// inputs that would not fit twice as large. An approximate search runs on
// x in place (neighbors.KNNApprox32: x is reordered while it runs and put
// back before it returns, a cancelled search too, so that it answers a
// cancel in 0.15–0.2 s a GB of rows on the 2-core reference machine, past
// the package's 100 ms) and measures its recall on the same float32
// values; the memory budget counts NN-descent's own memory
// (neighbors.ApproxBytes without the rows' copy). An exact search widens
// the rows into a float64 copy first (8·rows·cols bytes more) and is
// Search on it. The reported distances are computed in float64 from the
// float32 values.
func (s KNNGraph) Search32(ctx context.Context, x []float32, cols int) (*neighbors.Result, *Report, error) {
	if cols < 1 || len(x) == 0 {
		return nil, nil, fmt.Errorf("%s: %w: %d values in rows of %d features", methodKNNGraph, ErrEmpty, len(x), cols)
	}
	if len(x)%cols != 0 {
		return nil, nil, fmt.Errorf("%s: %w: %d values do not make rows of %d features", methodKNNGraph, ErrBadSetting, len(x), cols)
	}
	n, d := len(x)/cols, cols
	if err := checkSize(methodKNNGraph, n, d); err != nil {
		return nil, nil, err
	}
	if !s.Approximate(n, d) {
		if b := 8 * int64(n) * int64(d); s.MaxBytes > 0 && b > s.MaxBytes {
			return nil, nil, fmt.Errorf("%s: %w: the exact search widens the %d×%d float32 rows to float64, about %s, budget %s; cheaper: an approximate search (searched in place)",
				methodKNNGraph, ErrMemoryBudget, n, d, fmtBytes(b), fmtBytes(s.MaxBytes))
		}
		w := mat.NewDense(n, d, nil)
		for i, v := range x {
			w.RawMatrix().Data[i] = float64(v)
		}
		return s.search(ctx, w, 8*int64(n)*int64(d))
	}
	if err := checkFinite32(x, d); err != nil {
		return nil, nil, err
	}
	if s.K < 1 || s.K >= n {
		return nil, nil, fmt.Errorf("%s: %w: k = %d neighbours of %d samples (need 1 ≤ k < samples)", methodKNNGraph, ErrBadSetting, s.K, n)
	}
	o := s.Options.Neighbors
	if err := o.check(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", methodKNNGraph, err)
	}
	if w := o.Approx.Refine; w > 0 && w < s.K+1 {
		return nil, nil, fmt.Errorf("%s: %w: refine width %d below k + 1 = %d", methodKNNGraph, ErrBadSetting, w, s.K+1)
	}
	r, err := startRun(ctx, methodKNNGraph, s.Options, n, d, 0, s.params(true, true))
	if err != nil {
		return nil, nil, err
	}
	defer r.finish()
	own := neighbors.ApproxBytes(n, d, s.K, false, o.Approx) - 4*int64(n)*int64(d)
	if err := r.checkBudget(own, fmt.Sprintf("NN-descent of %d rows × %d features, k = %d", n, d, s.K), "a smaller k"); err != nil {
		return nil, nil, err
	}
	opt := neighbors.Options{Algorithm: neighbors.NNDescent, Approx: o.Approx}
	var res *neighbors.Result
	err = r.stage("neighbors", opt.Flam(n, n, d, s.K), func(ctx context.Context, st *stageCtx) error {
		err := st.watchSearch(ctx, opt, n, func(ctx context.Context) error {
			var err error
			res, _, err = neighbors.KNNApprox32(ctx, x, d, s.K, o.Approx)
			return err
		})
		if err != nil {
			return err
		}
		st.search = "nn-descent"
		st.detail = fmt.Sprintf("%d rows in float32", n)
		sample := o.recallSample()
		if sample == 0 {
			return nil
		}
		est, err := neighbors.SampledRecall32(ctx, x, d, res, sample, o.Approx.Seed^0x5eed, neighbors.Options{})
		if err != nil {
			return err
		}
		st.recall = &est
		st.predicted += flam.KNNBrute(est.Sample, n, d)
		return nil
	})
	return searched(r, res, err)
}

// checkFinite32 returns an ErrNotFinite error naming the first value of
// the float32 rows x (cols a row) that is NaN or infinite, or so large that
// squared distances in float32 overflow.
func checkFinite32(x []float32, cols int) error {
	limit := float32(math.Sqrt(math.MaxFloat32 / (4 * float64(cols))))
	for i, v := range x {
		if v-v != 0 {
			return fmt.Errorf("%s: %w: row %d, column %d is %v", methodKNNGraph, ErrNotFinite, i/cols, i%cols, v)
		}
		if v > limit || v < -limit {
			return fmt.Errorf("%s: %w: row %d, column %d is %.3g: squared distances of %d features in float32 overflow above about %.3g; rescale the data",
				methodKNNGraph, ErrNotFinite, i/cols, i%cols, v, cols, limit)
		}
	}
	return nil
}

// searchWidth is the search width of a model's approximate Transform
// queries, as its report keeps it ("search_width"; 0: the default).
func searchWidth(rep *Report) int {
	if rep == nil {
		return 0
	}
	switch w := rep.Params["search_width"].(type) {
	case int:
		return max(w, 0)
	case float64: // a report read back from a model file
		if w >= 1 && w <= math.MaxInt32 {
			return int(w)
		}
	}
	return 0
}

// approxSearched reports whether a fit's neighbour stage was NN-descent.
func approxSearched(rep *Report) bool {
	for _, s := range rep.Stages {
		if s.Name == "neighbors" {
			return s.Search == "nn-descent"
		}
	}
	return false
}

// watchSearch runs a neighbour search of n query rows with opt under
// st.watch, so that the stage reports the rows finished against
// neighbors.ProgressTotal.
func (s *stageCtx) watchSearch(ctx context.Context, opt neighbors.Options, n int, search func(ctx context.Context) error) error {
	var done atomic.Int64
	return s.watch(&done, neighbors.ProgressTotal(opt, n), func() error { return search(neighbors.WithProgress(ctx, &done)) })
}
