//go:build !openblas

package backend

// active is the pure-Go backend in the default build.
var active = PureGo
