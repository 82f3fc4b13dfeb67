package backendtest_test

import (
	"testing"

	"github.com/manifoldlab/manifold/backend"
	"github.com/manifoldlab/manifold/backend/backendtest"
)

// A package that implements backend.Impl runs the whole conformance suite
// from one test function of its own (a test needs the *testing.T that
// go test gives it, so this example is compiled, not run).
func Example() {
	var conformance = func(t *testing.T) {
		backendtest.Run(t, backend.PureGo) // your Impl here
	}
	_ = conformance
}
