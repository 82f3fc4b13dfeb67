// Package testtmp runs a test binary with a temporary directory of its own,
// removed when the tests end. The prism runner leaves an empty
// beamloopbackworker-* file in the temporary directory for every pipeline
// it runs in loopback mode (Beam SDK v2.77.0, runnerlib.Execute), thousands
// over a test run of this module: they go with the directory.
package testtmp

import (
	"fmt"
	"os"
)

// Main sets TMPDIR to a new directory, calls run (a TestMain's m.Run, or
// ptest.MainRetWithDefault), removes the directory and exits with run's
// code.
func Main(run func() int) {
	dir, err := os.MkdirTemp("", "manifold-beam-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtmp:", err)
		os.Exit(2)
	}
	code := 2
	func() {
		defer os.RemoveAll(dir)
		if err := os.Setenv("TMPDIR", dir); err != nil {
			fmt.Fprintln(os.Stderr, "testtmp:", err)
			return
		}
		code = run()
	}()
	os.Exit(code)
}
