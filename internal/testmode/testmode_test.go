package testmode

import (
	"testing"
)

func TestQuick(t *testing.T) {
	t.Setenv(Env, "full")
	if Quick() != testing.Short() {
		t.Fatalf("Quick() = %v with %s=full, want testing.Short() = %v", Quick(), Env, testing.Short())
	}
	t.Setenv(Env, "")
	if !Quick() {
		t.Fatalf("Quick() = false without %s=full", Env)
	}
	t.Setenv(Env, "yes")
	if !Quick() {
		t.Fatalf("Quick() = false with %s=yes: only \"full\" selects the full tier", Env)
	}
}

func TestSkip(t *testing.T) {
	for _, tier := range []string{"", "full"} {
		t.Setenv(Env, tier)
		var skipped bool
		t.Run("tier="+tier, func(t *testing.T) {
			defer func() { skipped = t.Skipped() }()
			Skip(t, "a test of the full tier")
		})
		if want := Quick(); skipped != want {
			t.Errorf("%s=%q: skipped %v, want %v", Env, tier, skipped, want)
		}
	}
}
