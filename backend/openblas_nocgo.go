//go:build openblas && !cgo

package backend

// The openblas build tag needs cgo. Without it this file stops the build
// rather than fall back silently to the pure-Go backend.
var _ = errOpenBLASBuildTagNeedsCgoSetCGO_ENABLED1
