package testmode_test

import (
	"fmt"
	"os"

	"github.com/manifoldlab/manifold/internal/testmode"
)

// The tier comes from the environment: MANIFOLD_TEST=full selects the full one.
func Example() {
	fmt.Println(testmode.Env, "=", os.Getenv(testmode.Env) == "full")
}
