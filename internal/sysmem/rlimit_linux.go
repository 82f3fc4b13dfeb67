//go:build linux

package sysmem

import "syscall"

// rlimitAvailable returns what the process's resource limits leave to
// it: the least of RLIMIT_DATA less its data segment (VmData, which holds
// the Go heap) and RLIMIT_AS less its address space (VmSize), read from
// statusPath (/proc/self/status); 0 when neither limit is set. A process
// started under `ulimit -d` or `prlimit --as` gets a budget, so it refuses
// instead of dying in the runtime's "out of memory".
func rlimitAvailable(statusPath string) (int64, string) {
	best, src := int64(0), ""
	for _, l := range []struct {
		res   int
		field string
		name  string
	}{{syscall.RLIMIT_DATA, "VmData", "rlimit data"}, {syscall.RLIMIT_AS, "VmSize", "rlimit address space"}} {
		var rl syscall.Rlimit
		if err := syscall.Getrlimit(l.res, &rl); err != nil || rl.Cur == ^uint64(0) || rl.Cur >= 1<<62 {
			continue
		}
		avail := max(int64(rl.Cur)-statusKB(statusPath, l.field), 1)
		if src == "" || avail < best {
			best, src = avail, l.name
		}
	}
	return best, src
}
