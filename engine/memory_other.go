//go:build !linux

package engine

// rlimitAvailable reads resource limits on Linux only.
func rlimitAvailable(string) (int64, string) { return 0, "" }
