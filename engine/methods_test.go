package engine

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/manifoldlab/manifold/admm"
)

// Every line of the method table fits its method through New, Set and Fit,
// and its model kind is the one Load fills for that method's files.
func TestMethodTableFits(t *testing.T) {
	x, labels := classBlobs(3, 60, 6, 3)
	seen := map[string]bool{}
	for _, m := range Methods() {
		if seen[m.Name] {
			t.Errorf("method %s listed twice", m.Name)
		}
		seen[m.Name] = true
		s := m.New()
		for name, v := range map[string]any{"dim": 2, "options": Options{}} {
			if err := m.Set(s, name, v); err != nil {
				t.Fatalf("%s: set %s: %v", m.Name, name, err)
			}
		}
		if m.Has("k") {
			if err := m.Set(s, "k", 8); err != nil {
				t.Fatal(err)
			}
		}
		if m.Name == methodLowRankIsomap { // λ and clusters for 60 rows
			if m.Set(s, "landmarks", 6) != nil || m.Set(s, "alpha", 0.5) != nil {
				t.Fatal("low-rank Isomap: landmarks or alpha refused")
			}
		}
		if m.NeedsLabels {
			if err := m.Set(s, "labels", labels); err != nil {
				t.Fatal(err)
			}
		}
		model, err := m.Fit(context.Background(), s, x)
		if err != nil {
			t.Errorf("%s: %v", m.Name, err)
			continue
		}
		if model.Method() != m.Name || model.Dim() != 2 {
			t.Errorf("%s: model of method %q, dim %d", m.Name, model.Method(), model.Dim())
		}
		if got, want := reflect.TypeOf(model), reflect.TypeOf(m.load()); got != want {
			t.Errorf("%s: fit gives a %v, Load would fill a %v", m.Name, got, want)
		}
		if got, ok := LookupMethod(m.Name); !ok || got.Name != m.Name {
			t.Errorf("LookupMethod(%q) = %v, %v", m.Name, got.Name, ok)
		}
	}
	if _, ok := LookupMethod("umap"); ok {
		t.Error("LookupMethod found umap")
	}
}

// Set converts what keeps its meaning and refuses the rest.
func TestMethodSet(t *testing.T) {
	lle, _ := LookupMethod(methodLLE)
	s := lle.New().(*LLE)
	for name, v := range map[string]any{"dim": 3, "k": int64(7), "alpha": 1, "seed": uint64(4)} {
		if err := lle.Set(s, name, v); err != nil {
			t.Fatalf("set %s = %v: %v", name, v, err)
		}
	}
	if want := (LLE{Dim: 3, K: 7, Reg: 1, Seed: 4}); !reflect.DeepEqual(*s, want) {
		t.Errorf("settings %+v, want %+v", *s, want)
	}
	lowRank, _ := LookupMethod(methodLowRankIsomap)
	lr := lowRank.New().(*LowRankIsomap)
	if err := lowRank.Set(lr, "alpha", 0.5); err != nil || lr.LRR != (admm.LRRSettings{Lambda: 0.5}) {
		t.Errorf("low-rank alpha: %v, LRR %+v", err, lr.LRR)
	}
	iso, _ := LookupMethod(methodIsomap)
	is := iso.New().(*Isomap)
	if err := iso.Set(is, "disconnected", DisconnectedLargest); err != nil || is.Disconnected != DisconnectedLargest {
		t.Errorf("isomap disconnected: %v, %v", err, is.Disconnected)
	}
	if err := iso.Set(is, "labels", nil); err != nil || is.Labels != nil {
		t.Errorf("isomap labels nil: %v, %v", err, is.Labels)
	}
	for _, c := range []struct {
		m    Method
		s    any
		name string
		v    any
	}{
		{lle, s, "eps", 1.0},          // LLE has no ε-graph
		{lle, s, "k", 2.5},            // a float is not an integer
		{lle, s, "k", "7"},            // nor is a string
		{lle, s, "alpha", "0.1"},      // nor a float
		{lle, &Isomap{}, "k", 7},      // another method's settings
		{lle, LLE{}, "k", 7},          // not a pointer
		{iso, is, "labels", []int8{}}, // another slice
		{iso, is, "float32", 1},       // an integer is not a bool
		{lowRank, lr, "seed", "x"},
		{Method{settings: reflect.TypeFor[PCA](), Name: "pca"}, &PCA{}, "seed", 1}, // PCA draws no random numbers
	} {
		if err := c.m.Set(c.s, c.name, c.v); !errors.Is(err, ErrBadSetting) {
			t.Errorf("%s: set %s = %#v on %T: error %v, want ErrBadSetting", c.m.Name, c.name, c.v, c.s, err)
		}
	}
	for _, bad := range []any{&Isomap{}, nil, (*LLE)(nil), LLE{}} {
		if _, err := lle.Fit(context.Background(), bad, nil); !errors.Is(err, ErrBadSetting) {
			t.Errorf("fit with settings %#v: %v", bad, err)
		}
		if err := lle.Set(bad, "k", 3); !errors.Is(err, ErrBadSetting) {
			t.Errorf("set k of %#v: %v", bad, err)
		}
	}
	var zero Method
	if zero.New() != nil || zero.Has("dim") || zero.Searches() || len(zero.Settings()) != 0 {
		t.Error("the zero Method claims a settings struct")
	}
	if _, err := zero.Fit(context.Background(), &LLE{}, nil); !errors.Is(err, ErrBadSetting) {
		t.Errorf("the zero Method fits: %v", err)
	}
	got, err := lle.NewWith(map[string]any{"dim": 3, "k": 7, "eps": 0.5, "weight": WeightBinary})
	if err != nil || !reflect.DeepEqual(got, &LLE{Dim: 3, K: 7}) {
		t.Errorf("NewWith: %+v, %v (want eps and weight, which LLE lacks, left out)", got, err)
	}
	if _, err := lle.NewWith(map[string]any{"k": "7"}); !errors.Is(err, ErrBadSetting) {
		t.Errorf("NewWith of a string k: %v", err)
	}
	pca, _ := LookupMethod(methodPCA)
	if pca.Has("seed") || !lle.Has("seed") || !lle.Has("alpha") || lle.Has("eps") {
		t.Error("Has: wrong answer")
	}
}
