//go:build !linux

package sysmem

// rlimitAvailable reads resource limits on Linux only.
func rlimitAvailable(string) (int64, string) { return 0, "" }
