//go:build !(openblas && cgo)

package main

import "github.com/manifoldlab/manifold/backend"

// alwaysThreaded is the backend whose every call runs threaded (the
// pure-Go build has no C threads: the active backend).
var alwaysThreaded = backend.Active()
