//go:build openblas && cgo

package backend_test

import (
	"testing"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/backendtest"
)

// The C path without size dispatch, so the conformance suite's small and
// edge sizes reach OpenBLAS and LAPACKE too.
func TestConformanceOpenBLASDirect(t *testing.T) {
	backendtest.Run(t, backend.OpenBLASDirect)
}
