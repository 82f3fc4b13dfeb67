package enginetest

import (
	"context"
	"reflect"

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
	// Sparse: *sparse.CSR input is read as it is, not copied dense first.
	Sparse bool

	// Fit fits the method to the rows of x with the settings of s.
	Fit func(ctx context.Context, x mat.Matrix, s Settings) (engine.Model, error)
}

// Methods are the engine's methods (engine.Methods), in its order, with
// what each accepts read from its settings struct.
var Methods = methods()

func methods() []Method {
	var out []Method
	for _, em := range engine.Methods() {
		has := func(field string) bool {
			return reflect.ValueOf(em.New()).Elem().FieldByName(field).IsValid()
		}
		out = append(out, Method{Name: em.Name, K: has("K"), Eps: has("Eps"), Policy: has("Disconnected"),
			Labels: has("Labels"), NeedsLabels: em.NeedsLabels, Linear: em.Linear, Sparse: em.Sparse,
			Fit: fit(em)})
	}
	return out
}

// fit returns the Method.Fit of em: the fields of Settings copied into a
// new settings struct where it has them, then Settings.Tune, then the fit.
func fit(em engine.Method) func(context.Context, mat.Matrix, Settings) (engine.Model, error) {
	return func(ctx context.Context, x mat.Matrix, s Settings) (engine.Model, error) {
		c := em.New()
		v := reflect.ValueOf(c).Elem()
		for field, val := range map[string]any{"Dim": s.Dim, "K": s.K, "Eps": s.Eps, "Labels": s.Labels,
			"Disconnected": s.Disconnected, "Seed": s.Seed, "Options": s.Options} {
			if f := v.FieldByName(field); f.IsValid() {
				f.Set(reflect.ValueOf(val))
			}
		}
		if s.Tune != nil {
			s.Tune(c)
		}
		return em.Fit(ctx, c, x)
	}
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
