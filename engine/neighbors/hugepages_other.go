//go:build !linux

package neighbors

const hugePagesAdvised = false

func adviseHuge(b []byte) {}
