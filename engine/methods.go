package engine

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Method is one of the engine's methods as a front end sees it — the
// command line, the Beam pipelines, enginetest: its name, what it takes,
// and its settings by name, so that none of them keeps a table of methods
// of its own. Methods lists them; a new method is its own file and one line
// there.
//
// A method's settings struct (PCA, Isomap, …) names the settings a front
// end may set by a tag on each field: `setting:"alpha"` is the setting
// alpha (manifold embed's -alpha), and `setting:"alpha,field=Lambda"` on a
// struct field sets that struct's field Lambda. Every method also has the
// settings "dim" and "options" (its Dim and Options fields), and "seed"
// when it has a Seed field. The field's own doc says what it means; the
// tag only names it.
type Method struct {
	// Name is the method's name in its Report, in its model file and on the
	// command line.
	Name string
	// About is one line for a usage text, naming the settings as the
	// command line spells them.
	About string
	// Linear: the embedding is a linear map of the features, so Transform
	// is a matrix product and Dim is at most the number of features.
	Linear bool
	// Sparse: *sparse.CSR rows are read as they are, not copied dense
	// first (Isomap's and Landmark Isomap's models keep dense training
	// rows: their own estimates count them).
	Sparse bool
	// NeedsLabels: the setting "labels" is required (LDA); for the other
	// methods with that setting the labels are optional and supervise the
	// neighbour graph.
	NeedsLabels bool

	settings reflect.Type // the settings struct
	fit      func(ctx context.Context, s any, x mat.Matrix) (Model, error)
	load     func() describedModel
}

// methods is the table of methods, in the order of the command-line
// contract (docs/design.md), plus lsi.
var methods = []Method{
	method(PCA.Fit, Method{Name: methodPCA, About: "principal component analysis", Linear: true}),
	method(MDS.Fit, Method{Name: methodMDS, About: "classical multidimensional scaling"}),
	method(Isomap.Fit, Method{Name: methodIsomap, About: "Isomap: geodesic distances on a neighbour graph, then MDS (-float32: geodesics in float32)", Sparse: true}),
	method(LandmarkIsomap.Fit, Method{Name: methodLandmarkIsomap, About: "Isomap with geodesics from landmarks only", Sparse: true}),
	method(LLE.Fit, Method{Name: methodLLE, About: "locally linear embedding (-alpha: the regularization of the weights)"}),
	method(LandmarkLLE.Fit, Method{Name: methodLandmarkLLE, About: "LLE by locally linear landmarks: the embedding is the landmarks' coordinates reconstructed (-landmarks: L, default 1000; -alpha as lle)"}),
	method(IsoProjection.Fit, Method{Name: methodIsoProjection, About: "Isometric Projection (linear Isomap by spectral regression; -alpha: the ridge α, default 0.01; -max-iter: LSQR iterations per regression)", Linear: true, Sparse: true}),
	method(OIP.Fit, Method{Name: methodOIP, About: "orthogonal isometric projection (Euclidean edge lengths)", Linear: true}),
	method(SOIP.Fit, Method{Name: methodSOIP, About: "sparse orthogonal isometric projection (LARS; -alpha: the L1 weight α, the path also stops at ⌈features/4⌉ non-zeros)", Linear: true}),
	method(TDPM.Fit, Method{Name: methodTDPM, About: "tangent distance preserving mapping (-k: neighbours of the local PCA, default 12)"}),
	method(LowRankIsomap.Fit, Method{Name: methodLowRankIsomap, About: "low-rank Isomap (-landmarks: k-means clusters, default 20; -alpha: the LRR's λ, default 0.02)", Linear: true}),
	method(LPP.Fit, Method{Name: methodLPP, About: "locality preserving projections (dense or sparse .mtx rows; -weight heat|binary)", Linear: true, Sparse: true}),
	method(NPE.Fit, Method{Name: methodNPE, About: "neighborhood preserving embedding (-alpha: the regularization of the weights)", Linear: true, Sparse: true}),
	method(LDA.Fit, Method{Name: methodLDA, About: "linear discriminant analysis, the SVD solver of Deng Cai's LDA.m (needs -labels; -alpha > 0: Fisherfaces with a ridge on the within-class scatter)", Linear: true, NeedsLabels: true}),
	method(LTSA.Fit, Method{Name: methodLTSA, About: "local tangent space alignment", Sparse: true}),
	method(LaplacianEigenmaps.Fit, Method{Name: methodLaplacian, About: "Laplacian eigenmaps (-weight heat|binary)", Sparse: true}),
	method(LSI.Fit, Method{Name: methodLSI, About: "latent semantic indexing: truncated SVD of (sparse) term matrices", Linear: true, Sparse: true}),
}

// method completes m, a line of the table, with the settings struct S that
// fit takes and the model kind *T it returns.
func method[S any, M interface {
	*T
	describedModel
}, T any](fit func(S, context.Context, mat.Matrix) (M, error), m Method) Method {
	m.settings = reflect.TypeFor[S]()
	m.fit = func(ctx context.Context, s any, x mat.Matrix) (Model, error) {
		model, err := fit(*s.(*S), ctx, x)
		if err != nil {
			return nil, err
		}
		return model, nil
	}
	m.load = func() describedModel { return M(new(T)) }
	return m
}

// Methods returns the engine's methods, in the order of the command-line
// contract.
func Methods() []Method { return slices.Clone(methods) }

// LookupMethod returns the method called name.
func LookupMethod(name string) (Method, bool) {
	for _, m := range methods {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// New returns a new settings struct of the method (*PCA, *Isomap, …) at
// its zero value, which fits with the method's defaults.
func (m Method) New() any {
	if m.settings == nil {
		return nil
	}
	return reflect.New(m.settings).Interface()
}

// NewWith returns New's settings with each of values set (Set) whose
// setting the method has; the others are left out, so that a front end
// can offer every method the same values.
func (m Method) NewWith(values map[string]any) (any, error) {
	s := m.New()
	for name, v := range values {
		if !m.Has(name) {
			continue
		}
		if err := m.Set(s, name, v); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Fit fits the method with settings s, a struct New returned, to the rows
// of x.
func (m Method) Fit(ctx context.Context, s any, x mat.Matrix) (Model, error) {
	if err := m.check(s); err != nil {
		return nil, err
	}
	return m.fit(ctx, s, x)
}

// check refuses settings that are not a non-nil pointer to the method's
// settings struct (a Method's zero value has none).
func (m Method) check(s any) error {
	p := reflect.ValueOf(s)
	if m.settings == nil || !p.IsValid() || p.Type() != reflect.PointerTo(m.settings) || p.IsNil() {
		return fmt.Errorf("%s: %w: settings %T, want a *%v from New", m.Name, ErrBadSetting, s, m.settings)
	}
	return nil
}

// Searches reports whether the method's models answer Transform by
// searching their training rows for a new point's neighbours, so that the
// index settings (Neighbors.IndexK) apply.
func (m Method) Searches() bool {
	if m.load == nil {
		return false
	}
	_, ok := m.load().(nearLister)
	return ok
}

// Settings returns the names of the method's tagged settings, in the order
// of its fields: those besides dim, seed and options.
func (m Method) Settings() []string {
	var names []string
	for i := range m.numField() {
		if name, _, ok := settingTag(m.settings.Field(i)); ok {
			names = append(names, name)
		}
	}
	return names
}

// Has reports whether the method has the setting called name.
func (m Method) Has(name string) bool {
	if m.settings == nil {
		return false
	}
	_, err := m.field(reflect.New(m.settings).Elem(), name)
	return err == nil
}

// numField is the settings struct's number of fields (0 for a Method's
// zero value).
func (m Method) numField() int {
	if m.settings == nil {
		return 0
	}
	return m.settings.NumField()
}

// Set sets the setting called name of s, a settings struct New returned,
// to v, whose type is the field's or converts to it (an int to a float
// setting, a named type to its plain one). The error wraps ErrBadSetting
// when the method has no such setting or v does not fit it.
func (m Method) Set(s any, name string, v any) error {
	if err := m.check(s); err != nil {
		return err
	}
	f, err := m.field(reflect.ValueOf(s).Elem(), name)
	if err != nil {
		return err
	}
	val := reflect.ValueOf(v)
	switch {
	case !val.IsValid():
		f.SetZero()
	case val.Type().AssignableTo(f.Type()):
		f.Set(val)
	case convertible(val.Kind(), f.Kind()):
		f.Set(val.Convert(f.Type()))
	default:
		return fmt.Errorf("%s: %w: setting %s is a %s, not a %T", m.Name, ErrBadSetting, name, f.Type(), v)
	}
	return nil
}

// convertible reports whether a value of kind from sets a field of kind
// to without loss of meaning: within the integers, the floats, the strings
// or the booleans, and an integer to a float.
func convertible(from, to reflect.Kind) bool {
	family := func(k reflect.Kind) int {
		switch {
		case k >= reflect.Int && k <= reflect.Uint64:
			return 1
		case k == reflect.Float32 || k == reflect.Float64:
			return 2
		case k == reflect.String:
			return 3
		case k == reflect.Bool:
			return 4
		}
		return 0
	}
	a, b := family(from), family(to)
	return a != 0 && (a == b || a == 1 && b == 2)
}

// field returns the field of the settings struct s that the setting name
// sets.
func (m Method) field(s reflect.Value, name string) (reflect.Value, error) {
	builtin := map[string]string{"dim": "Dim", "seed": "Seed", "options": "Options"}[name]
	if builtin != "" {
		if f := s.FieldByName(builtin); f.IsValid() {
			return f, nil
		}
	}
	for i := range s.NumField() {
		tagged, inner, ok := settingTag(s.Type().Field(i))
		if !ok || tagged != name {
			continue
		}
		f := s.Field(i)
		if inner != "" {
			f = f.FieldByName(inner)
		}
		return f, nil
	}
	return reflect.Value{}, fmt.Errorf("%s: %w: no setting %q (it has dim, options%s)", m.Name, ErrBadSetting, name, m.listed(s))
}

// listed lists the method's settings after dim and options, for errors.
func (m Method) listed(s reflect.Value) string {
	var b strings.Builder
	if s.FieldByName("Seed").IsValid() {
		b.WriteString(", seed")
	}
	for _, n := range m.Settings() {
		b.WriteString(", " + n)
	}
	return b.String()
}

// settingTag reads a field's setting tag: the setting's name and, with
// field=F, the inner field it sets.
func settingTag(f reflect.StructField) (name, inner string, ok bool) {
	tag, ok := f.Tag.Lookup("setting")
	if !ok {
		return "", "", false
	}
	name, opt, _ := strings.Cut(tag, ",")
	if opt != "" {
		var found bool
		if inner, found = strings.CutPrefix(opt, "field="); !found {
			panic(fmt.Sprintf("engine: %s: setting tag %q: want name or name,field=F", f.Name, tag))
		}
	}
	return name, inner, true
}
