package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"

	"github.com/manifoldlab/manifold/engine"
)

// params are the settings the embed flags give, before a method picks the
// ones it reads. Zero values mean the engine's defaults.
type params struct {
	Dim       int     // -dim
	K         int     // -k
	Eps       float64 // -eps
	Alpha     float64 // -alpha
	Landmarks int     // -landmarks
	LandmarkK int     // -landmark-k: landmark-lle's landmarks per point
	// LandmarkChoice is -landmark-choice: "" (the method's default),
	// random, kmeans++, kmeans or maxmin.
	LandmarkChoice string
	TangentDim     int                // -tangent-dim
	Disconnected   string             // -disconnected: "error", "connect" or "largest"; "" is the default (error)
	Labels         []int              // -labels: the class index of every sample; nil without labels
	Supervised     bool               // -supervised
	Seed           uint64             // -seed
	MaxIter        int                // -max-iter: the bound on iterative regressions (isoprojection's LSQR)
	Weight         engine.GraphWeight // -weight: WeightHeat (the default) or WeightBinary
	Float32        bool               // -float32: isomap's geodesics in float32
	Eigensolver    engine.Eigensolver // -eigensolver: "" (auto), dense, lanczos or uncertified
	// SupervisedGeodesic is -supervised-geodesic: "constant" or "join"; ""
	// is the default (constant).
	SupervisedGeodesic string
	Options            engine.Options
}

// methodFlags are the method-specific flags, in the order usage texts and
// checks list them; each names the engine setting it sets (engine.Method),
// except -supervised, which sets "labels" for the methods whose labels
// are optional.
var methodFlags = []string{"k", "eps", "disconnected", "supervised", "supervised-geodesic", "float32",
	"landmarks", "landmark-k", "landmark-choice", "alpha", "max-iter", "tangent-dim", "weight", "eigensolver"}

// method is an engine method as the command sees it: the engine's
// description and the method-specific flags it reads.
type method struct {
	engine.Method
	// uses lists the method-specific flags (without the dash) the method
	// reads, in the order of methodFlags; -dim, -seed, -labels and the
	// output flags apply to every method. Setting a flag a method does not
	// read is an error.
	uses []string
}

// newMethod returns em with the flags it reads.
func newMethod(em engine.Method) *method {
	m := &method{Method: em}
	settings := em.Settings()
	for _, f := range methodFlags {
		setting := f
		if f == "supervised" {
			setting = "labels"
		}
		if slices.Contains(settings, setting) && !(setting == "labels" && em.NeedsLabels) {
			m.uses = append(m.uses, f)
		}
	}
	return m
}

// fit fits the method with the settings of p.
func (m *method) fit(ctx context.Context, p params, x mat.Matrix) (engine.Model, error) {
	s, err := m.settings(p)
	if err != nil {
		return nil, err
	}
	return m.Fit(ctx, s, x)
}

// settings returns the method's settings struct (*engine.PCA, …) with the
// values of p.
func (m *method) settings(p params) (any, error) {
	set := map[string]any{"dim": p.Dim, "options": p.Options, "seed": p.Seed}
	for _, name := range m.Settings() {
		v, err := p.setting(name, m.NeedsLabels)
		if err != nil {
			return nil, err
		}
		set[name] = v
	}
	return m.NewWith(set)
}

// setting returns the value of the engine setting called name from the
// flags: "labels" are the labels of a method that needs them, else those of
// a supervised fit (-supervised), else none.
func (p params) setting(name string, needsLabels bool) (any, error) {
	switch name {
	case "k":
		return p.K, nil
	case "eps":
		return p.Eps, nil
	case "disconnected":
		return engine.ParseDisconnected(p.Disconnected)
	case "labels":
		if needsLabels || p.Supervised {
			return p.Labels, nil
		}
		return []int(nil), nil
	case "supervised-geodesic":
		return engine.ParseSupervisedGeodesic(p.SupervisedGeodesic)
	case "float32":
		return p.Float32, nil
	case "landmarks":
		return p.Landmarks, nil
	case "landmark-k":
		return p.LandmarkK, nil
	case "landmark-choice":
		return engine.LandmarkChoice(p.LandmarkChoice), nil
	case "alpha":
		return p.Alpha, nil
	case "max-iter":
		return p.MaxIter, nil
	case "tangent-dim":
		return p.TangentDim, nil
	case "weight":
		return p.Weight, nil
	case "eigensolver":
		return p.Eigensolver, nil
	}
	return nil, fmt.Errorf("the engine setting %q has no flag", name)
}

// methods are the engine's methods with the flags each reads.
var methods = func() []*method {
	var ms []*method
	for _, em := range engine.Methods() {
		ms = append(ms, newMethod(em))
	}
	return ms
}()

// lookupMethod finds a method by its command-line name.
func lookupMethod(name string) (*method, error) {
	if name == "" {
		return nil, fmt.Errorf("-method is required (one of %s)", methodNames())
	}
	for _, m := range methods {
		if m.Name == name {
			return m, nil
		}
	}
	return nil, fmt.Errorf("unknown method %q (want one of %s)", name, methodNames())
}

// methodNames lists the method names.
func methodNames() string {
	var names []string
	for _, m := range methods {
		names = append(names, m.Name)
	}
	return strings.Join(names, ", ")
}

// searchingMethods lists the methods whose models search their training
// rows for a new point's neighbours (-index-k).
func searchingMethods() string {
	var names []string
	for _, m := range methods {
		if m.Searches() {
			names = append(names, m.Name)
		}
	}
	return strings.Join(names, ", ")
}

func (m *method) reads(flag string) bool { return slices.Contains(m.uses, flag) }

// wrap breaks the last line of text at spaces so that no line is longer
// than width runes.
func wrap(text string, width int) string {
	head, last := "", text
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		head, last = text[:i+1], text[i+1:]
	}
	var b strings.Builder
	n := 0
	for i, w := range strings.Split(last, " ") {
		l := utf8.RuneCountInString(w)
		switch {
		case i == 0:
		case n+1+l > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += l
	}
	return head + b.String()
}
