package main

import (
	"context"
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/admm"
	"github.com/manifoldlab/manifold/engine"
)

// params are the settings the embed flags give, before a method picks the
// ones it reads. Zero values mean the engine's defaults.
type params struct {
	Dim          int                // -dim
	K            int                // -k
	Eps          float64            // -eps
	Alpha        float64            // -alpha
	Landmarks    int                // -landmarks
	TangentDim   int                // -tangent-dim
	Disconnected string             // -disconnected: "error", "connect" or "largest"; "" is the default (error)
	Labels       []int              // -labels: the class index of every sample; nil without labels
	Supervised   bool               // -supervised
	Seed         uint64             // -seed
	MaxIter      int                // -max-iter: the bound on iterative regressions (isoprojection's LSQR)
	Weight       engine.GraphWeight // -weight: WeightHeat (the default) or WeightBinary
	Float32      bool               // -float32: isomap's geodesics in float32
	// SupervisedGeodesic is -supervised-geodesic: "constant" or "join"; ""
	// is the default (constant).
	SupervisedGeodesic string
	Options            engine.Options
}

// method is one row of the method table: the command-line name, what the
// usage text says about it, the method-specific flags it reads, and how it
// is fitted. A new method is one row here.
type method struct {
	name  string
	about string
	// uses lists the method-specific flags (without the dash) the method
	// reads; -dim, -seed, -labels and the output flags apply to every
	// method. Setting a flag a method does not read is an error.
	uses []string
	// needsLabels: the method is supervised by nature (LDA); -labels is
	// required.
	needsLabels bool
	fit         func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error)
}

// asModel turns a method's typed Fit result into an engine.Model, so that a
// failed fit gives a nil interface rather than a typed nil.
func asModel[M engine.Model](m M, err error) (engine.Model, error) {
	if err != nil {
		return nil, err
	}
	return m, nil
}

// graphFlags are the flags of the methods built on a neighbour graph.
var graphFlags = []string{"k", "eps", "disconnected", "supervised"}

// geodesicFlags are the graph flags of the Isomap family, which also read
// the between-class geodesic of a supervised fit.
var geodesicFlags = with(graphFlags, "supervised-geodesic")

func with(base []string, more ...string) []string {
	return append(append([]string(nil), base...), more...)
}

// methods is the method table, in the order of the command-line contract
// (docs/design.md), plus lsi, which the engine plans for text corpora.
var methods = []method{
	{
		name: "pca", about: "principal component analysis",
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			return asModel(engine.PCA{Dim: p.Dim, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "mds", about: "classical multidimensional scaling",
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			return asModel(engine.MDS{Dim: p.Dim, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "isomap", about: "Isomap: geodesic distances on a neighbour graph, then MDS (-float32: geodesics in float32)", uses: with(geodesicFlags, "float32"),
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			policy, between, err := p.geodesicSettings()
			if err != nil {
				return nil, err
			}
			return asModel(engine.Isomap{Dim: p.Dim, K: p.K, Eps: p.Eps, Labels: p.supervisedLabels(), Between: between,
				Disconnected: policy, Float32: p.Float32, Seed: p.Seed, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "landmark-isomap", about: "Isomap with geodesics from landmarks only", uses: with(graphFlags, "landmarks"),
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			policy, err := engine.ParseDisconnected(p.Disconnected)
			if err != nil {
				return nil, err
			}
			return asModel(engine.LandmarkIsomap{Dim: p.Dim, K: p.K, Eps: p.Eps, Landmarks: p.Landmarks,
				Labels: p.supervisedLabels(), Disconnected: policy, Seed: p.Seed, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "lle", about: "locally linear embedding (-alpha: the regularization of the weights)", uses: []string{"k", "alpha"},
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			return asModel(engine.LLE{Dim: p.Dim, K: p.K, Reg: p.Alpha, Seed: p.Seed, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "isoprojection", about: "Isometric Projection (linear Isomap by spectral regression; -alpha: the ridge α, default 0.01; -max-iter: LSQR iterations per regression)", uses: with(geodesicFlags, "alpha", "max-iter"),
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			policy, between, err := p.geodesicSettings()
			if err != nil {
				return nil, err
			}
			return asModel(engine.IsoProjection{Dim: p.Dim, K: p.K, Eps: p.Eps, Labels: p.supervisedLabels(), Between: between,
				Disconnected: policy, Alpha: p.Alpha, RegressionIter: p.MaxIter, Seed: p.Seed, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "oip", about: "orthogonal isometric projection (Euclidean edge lengths)", uses: geodesicFlags,
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			policy, between, err := p.geodesicSettings()
			if err != nil {
				return nil, err
			}
			return asModel(engine.OIP{Dim: p.Dim, K: p.K, Eps: p.Eps, Labels: p.supervisedLabels(), Between: between,
				Disconnected: policy, Seed: p.Seed, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "soip", about: "sparse orthogonal isometric projection (LARS; -alpha: the L1 weight α, the path also stops at ⌈features/4⌉ non-zeros)",
		uses: with(geodesicFlags, "alpha"),
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			policy, between, err := p.geodesicSettings()
			if err != nil {
				return nil, err
			}
			return asModel(engine.SOIP{Dim: p.Dim, K: p.K, Eps: p.Eps, Labels: p.supervisedLabels(), Between: between,
				Disconnected: policy, Alpha: p.Alpha, Seed: p.Seed, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "tdpm", about: "tangent distance preserving mapping (-k: neighbours of the local PCA, default 12)", uses: []string{"k", "tangent-dim"},
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			return asModel(engine.TDPM{Dim: p.Dim, K: p.K, TangentDim: p.TangentDim, Seed: p.Seed, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "lowrank-isomap", about: "low-rank Isomap (-landmarks: k-means clusters, default 20; -alpha: the LRR's λ, default 0.02)",
		uses: []string{"landmarks", "alpha"},
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			return asModel(engine.LowRankIsomap{Dim: p.Dim, Landmarks: p.Landmarks, LRR: admm.LRRSettings{Lambda: p.Alpha},
				Seed: p.Seed, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		// A linear method: a disconnected graph leaves its eigenproblem well
		// posed (and a supervised graph is disconnected by design), so
		// -disconnected does not apply.
		name: "lpp", about: "locality preserving projections (dense or sparse .mtx rows; -weight heat|binary)", uses: []string{"k", "eps", "supervised", "weight"},
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			return asModel(engine.LPP{Dim: p.Dim, K: p.K, Eps: p.Eps, Labels: p.supervisedLabels(), Weight: p.Weight,
				Seed: p.Seed, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "npe", about: "neighborhood preserving embedding (-alpha: the regularization of the weights)",
		uses: []string{"k", "eps", "supervised", "alpha"},
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			return asModel(engine.NPE{Dim: p.Dim, K: p.K, Eps: p.Eps, Labels: p.supervisedLabels(), Reg: p.Alpha,
				Seed: p.Seed, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "lda", about: "linear discriminant analysis, the SVD solver of Deng Cai's LDA.m (needs -labels; -alpha > 0: Fisherfaces with a ridge on the within-class scatter)",
		uses: []string{"alpha"}, needsLabels: true,
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			return asModel(engine.LDA{Dim: p.Dim, Labels: p.Labels, Reg: p.Alpha, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "ltsa", about: "local tangent space alignment", uses: []string{"k"},
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			return asModel(engine.LTSA{Dim: p.Dim, K: p.K, Seed: p.Seed, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "laplacian", about: "Laplacian eigenmaps (-weight heat|binary)", uses: with(graphFlags, "weight"),
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			policy, err := engine.ParseDisconnected(p.Disconnected)
			if err != nil {
				return nil, err
			}
			return asModel(engine.LaplacianEigenmaps{Dim: p.Dim, K: p.K, Eps: p.Eps, Labels: p.supervisedLabels(),
				Weight: p.Weight, Disconnected: policy, Seed: p.Seed, Options: p.Options}.Fit(ctx, x))
		},
	},
	{
		name: "lsi", about: "latent semantic indexing: truncated SVD of (sparse) term matrices",
		fit: func(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
			return asModel(engine.LSI{Dim: p.Dim, Seed: p.Seed, Options: p.Options}.Fit(ctx, x))
		},
	},
}

// supervisedLabels returns the labels when -supervised is set, for the
// engine's supervised neighbour graphs; nil otherwise.
func (p params) supervisedLabels() []int {
	if p.Supervised {
		return p.Labels
	}
	return nil
}

// geodesicSettings parses -disconnected and -supervised-geodesic for the
// Isomap family.
func (p params) geodesicSettings() (engine.Disconnected, engine.SupervisedGeodesic, error) {
	policy, err := engine.ParseDisconnected(p.Disconnected)
	if err != nil {
		return policy, "", err
	}
	between, err := engine.ParseSupervisedGeodesic(p.SupervisedGeodesic)
	return policy, between, err
}

// lookupMethod finds a method by its command-line name.
func lookupMethod(name string) (*method, error) {
	if name == "" {
		return nil, fmt.Errorf("-method is required (one of %s)", methodNames())
	}
	for i := range methods {
		if methods[i].name == name {
			return &methods[i], nil
		}
	}
	return nil, fmt.Errorf("unknown method %q (want one of %s)", name, methodNames())
}

// methodNames lists the method names, only those fitted by this build when
// available is true.
func methodNames() string {
	var names []string
	for _, m := range methods {
		names = append(names, m.name)
	}
	return strings.Join(names, ", ")
}

func (m *method) reads(flag string) bool {
	for _, f := range m.uses {
		if f == flag {
			return true
		}
	}
	return false
}
