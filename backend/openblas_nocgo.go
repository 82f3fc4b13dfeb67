//go:build openblas && !cgo

package backend

// The openblas build tag needs cgo. Without it this file stops the build
// rather than fall back silently to the pure-Go backend: the compiler
// reports the undefined name below, which says what to do.
var _ = errOpenBLASBuildTagNeedsCgoSetCGO_ENABLED1

var active = PureGo // keeps the compile error above the only one
