package testmode_test

import (
	"fmt"

	"github.com/manifoldlab/manifold/internal/testmode"
)

// The full tier is asked for by the environment; a test of that tier
// starts with testmode.Skip(t, "what it does").
func Example() {
	fmt.Printf("%s=full go test ./...\n", testmode.Env)
	// Output: MANIFOLD_TEST=full go test ./...
}
