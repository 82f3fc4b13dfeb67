package enginetest

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// Settings are the settings callers vary across methods; a method reads
// those it has (see the capability flags of Method) and ignores the
// others. Zero values leave the method's defaults.
type Settings struct {
	Dim          int
	K            int
	Eps          float64
	Labels       []int
	Disconnected engine.Disconnected
	Seed         uint64
	engine.Options

	// Tune, when not nil, is called with a pointer to the method's
	// settings struct (*engine.Isomap, *engine.LowRankIsomap, …) after the
	// fields above are copied in and before the fit: the place for the
	// settings only one method has (landmarks, weights, a solver).
	Tune func(method any)
}

// Method is one method of the engine and what it accepts.
type Method struct {
	// Name is the method's name in its Report and model file (for a
	// variant, that name and the variant: "isomap-float32").
	Name string

	// K: the method builds a neighbourhood graph of K neighbours, and
	// takes Options.Neighbors (exact or approximate search). Eps: it takes
	// an ε-graph instead. Policy: it takes a Disconnected policy.
	K, Eps, Policy bool
	// Labels: it takes optional Labels (a supervised graph, or the groups
	// of Low-Rank Isomap); NeedsLabels: Labels are required (LDA).
	Labels, NeedsLabels bool
	// Linear: the embedding is a linear projection of the features, so its
	// dimension is bounded by the number of features and Transform is a
	// matrix product.
	Linear bool
	// Sparse: *sparse.CSR input is kept sparse (not copied dense).
	Sparse bool
	// KDefault is the default K (0 for methods without K).
	KDefault int

	// Fit fits the method to the rows of x with the settings of s.
	Fit func(ctx context.Context, x mat.Matrix, s Settings) (engine.Model, error)
}

// fit returns a Method.Fit that copies s into the method's struct with set,
// tunes it and fits it.
func fit[S any, M engine.Model](set func(*S, Settings), do func(S, context.Context, mat.Matrix) (M, error)) func(context.Context, mat.Matrix, Settings) (engine.Model, error) {
	return func(ctx context.Context, x mat.Matrix, s Settings) (engine.Model, error) {
		var c S
		set(&c, s)
		if s.Tune != nil {
			s.Tune(&c)
		}
		m, err := do(c, ctx, x)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
}

// The settings structs filled from Settings.
var (
	setPCA    = func(c *engine.PCA, s Settings) { *c = engine.PCA{Dim: s.Dim, Options: s.Options} }
	setMDS    = func(c *engine.MDS, s Settings) { *c = engine.MDS{Dim: s.Dim, Seed: s.Seed, Options: s.Options} }
	setIsomap = func(c *engine.Isomap, s Settings) {
		*c = engine.Isomap{Dim: s.Dim, K: s.K, Eps: s.Eps, Labels: s.Labels, Disconnected: s.Disconnected, Seed: s.Seed, Options: s.Options}
	}
	setLandmark = func(c *engine.LandmarkIsomap, s Settings) {
		*c = engine.LandmarkIsomap{Dim: s.Dim, K: s.K, Eps: s.Eps, Labels: s.Labels, Disconnected: s.Disconnected, Seed: s.Seed, Options: s.Options}
	}
	setLLE           = func(c *engine.LLE, s Settings) { *c = engine.LLE{Dim: s.Dim, K: s.K, Seed: s.Seed, Options: s.Options} }
	setIsoProjection = func(c *engine.IsoProjection, s Settings) {
		*c = engine.IsoProjection{Dim: s.Dim, K: s.K, Eps: s.Eps, Labels: s.Labels, Disconnected: s.Disconnected, Seed: s.Seed, Options: s.Options}
	}
	setOIP = func(c *engine.OIP, s Settings) {
		*c = engine.OIP{Dim: s.Dim, K: s.K, Eps: s.Eps, Labels: s.Labels, Disconnected: s.Disconnected, Seed: s.Seed, Options: s.Options}
	}
	setSOIP = func(c *engine.SOIP, s Settings) {
		*c = engine.SOIP{Dim: s.Dim, K: s.K, Eps: s.Eps, Labels: s.Labels, Disconnected: s.Disconnected, Seed: s.Seed, Options: s.Options}
	}
	setTDPM = func(c *engine.TDPM, s Settings) {
		*c = engine.TDPM{Dim: s.Dim, K: s.K, Seed: s.Seed, Options: s.Options}
	}
	setLowRank = func(c *engine.LowRankIsomap, s Settings) {
		*c = engine.LowRankIsomap{Dim: s.Dim, Labels: s.Labels, Seed: s.Seed, Options: s.Options}
	}
	setLDA = func(c *engine.LDA, s Settings) { *c = engine.LDA{Dim: s.Dim, Labels: s.Labels, Options: s.Options} }
	setLPP = func(c *engine.LPP, s Settings) {
		*c = engine.LPP{Dim: s.Dim, K: s.K, Eps: s.Eps, Labels: s.Labels, Seed: s.Seed, Options: s.Options}
	}
	setNPE = func(c *engine.NPE, s Settings) {
		*c = engine.NPE{Dim: s.Dim, K: s.K, Eps: s.Eps, Labels: s.Labels, Seed: s.Seed, Options: s.Options}
	}
	setLSI  = func(c *engine.LSI, s Settings) { *c = engine.LSI{Dim: s.Dim, Seed: s.Seed, Options: s.Options} }
	setLTSA = func(c *engine.LTSA, s Settings) {
		*c = engine.LTSA{Dim: s.Dim, K: s.K, Seed: s.Seed, Options: s.Options}
	}
	setLaplacian = func(c *engine.LaplacianEigenmaps, s Settings) {
		*c = engine.LaplacianEigenmaps{Dim: s.Dim, K: s.K, Eps: s.Eps, Labels: s.Labels, Disconnected: s.Disconnected, Seed: s.Seed, Options: s.Options}
	}
)

// Methods are the engine's methods, one line each.
var Methods = []Method{
	{Name: "pca", Linear: true, Fit: fit(setPCA, engine.PCA.Fit)},
	{Name: "mds", Fit: fit(setMDS, engine.MDS.Fit)},
	{Name: "isomap", K: true, Eps: true, Policy: true, Labels: true, KDefault: 10, Fit: fit(setIsomap, engine.Isomap.Fit)},
	{Name: "landmark-isomap", K: true, Eps: true, Policy: true, Labels: true, KDefault: 10, Fit: fit(setLandmark, engine.LandmarkIsomap.Fit)},
	{Name: "lle", K: true, KDefault: 10, Fit: fit(setLLE, engine.LLE.Fit)},
	{Name: "isoprojection", K: true, Eps: true, Policy: true, Labels: true, Linear: true, Sparse: true, KDefault: 10, Fit: fit(setIsoProjection, engine.IsoProjection.Fit)},
	{Name: "oip", K: true, Eps: true, Policy: true, Labels: true, Linear: true, KDefault: 10, Fit: fit(setOIP, engine.OIP.Fit)},
	{Name: "soip", K: true, Eps: true, Policy: true, Labels: true, Linear: true, KDefault: 10, Fit: fit(setSOIP, engine.SOIP.Fit)},
	{Name: "tdpm", K: true, KDefault: 12, Fit: fit(setTDPM, engine.TDPM.Fit)},
	{Name: "lowrank-isomap", Labels: true, Linear: true, Fit: fit(setLowRank, engine.LowRankIsomap.Fit)},
	{Name: "lda", Labels: true, NeedsLabels: true, Linear: true, Fit: fit(setLDA, engine.LDA.Fit)},
	{Name: "lpp", K: true, Eps: true, Labels: true, Linear: true, Sparse: true, KDefault: 10, Fit: fit(setLPP, engine.LPP.Fit)},
	{Name: "npe", K: true, Eps: true, Labels: true, Linear: true, Sparse: true, KDefault: 10, Fit: fit(setNPE, engine.NPE.Fit)},
	{Name: "lsi", Linear: true, Sparse: true, Fit: fit(setLSI, engine.LSI.Fit)},
	{Name: "ltsa", K: true, Sparse: true, KDefault: 10, Fit: fit(setLTSA, engine.LTSA.Fit)},
	{Name: "laplacian", K: true, Eps: true, Policy: true, Labels: true, Sparse: true, KDefault: 10, Fit: fit(setLaplacian, engine.LaplacianEigenmaps.Fit)},
}

// Variants are settings that take other code paths of a method: another
// eigensolver or solver, or float32 storage. Each reads the Settings its
// method reads.
var Variants = []Method{
	variant("isomap", "float32", func(c *engine.Isomap) { c.Float32 = true }),
	variant("isomap", "dense", func(c *engine.Isomap) { c.Eigensolver = engine.EigenDense }),
	variant("isoprojection", "direct", func(c *engine.IsoProjection) { c.Solver = engine.IsoProjectionDirect }),
	variant("oip", "operator", func(c *engine.OIP) { c.Solver = engine.OIPOperator }),
	variant("lle", "lanczos", func(c *engine.LLE) { c.Eigensolver = engine.EigenLanczos }),
	variant("lsi", "lanczos", func(c *engine.LSI) { c.Eigensolver = engine.EigenLanczos }),
}

// variant returns method with its settings struct changed by set before
// Settings.Tune runs.
func variant[S any](method, name string, set func(*S)) Method {
	var m Method
	for _, b := range Methods {
		if b.Name == method {
			m = b
		}
	}
	base := m.Fit
	m.Name = method + "-" + name
	m.Fit = func(ctx context.Context, x mat.Matrix, s Settings) (engine.Model, error) {
		tune := s.Tune
		s.Tune = func(c any) {
			set(c.(*S))
			if tune != nil {
				tune(c)
			}
		}
		return base(ctx, x, s)
	}
	return m
}

// Lookup returns the method or variant of that name.
func Lookup(name string) (Method, bool) {
	for _, ms := range [][]Method{Methods, Variants} {
		for _, m := range ms {
			if m.Name == name {
				return m, true
			}
		}
	}
	return Method{}, false
}
