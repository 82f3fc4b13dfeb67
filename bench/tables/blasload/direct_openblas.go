//go:build openblas && cgo

package main

import "github.com/manifoldlab/manifold/backend"

// alwaysThreaded is the backend whose every call runs threaded.
var alwaysThreaded = backend.OpenBLASDirect
