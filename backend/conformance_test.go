package backend_test

import (
	"testing"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/backendtest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	for _, impl := range backend.Impls() {
		t.Run(impl.Name(), func(t *testing.T) { backendtest.Run(t, impl) })
	}
}
