// Package sysmem reads how much memory this process could allocate now:
// the least of what the machine has (/proc/meminfo), what its control
// group leaves it (cgroup v2) and what its resource limits leave it
// (RLIMIT_DATA, RLIMIT_AS), and the Go runtime's soft limit. A process
// that allocates past any of them is killed (by the kernel's OOM killer,
// or by the runtime's "fatal error: out of memory") instead of getting an
// error; package engine takes its default memory budget from Available,
// so that a fit too large for the machine is refused before it allocates.
// Elsewhere than on Linux only the Go runtime's limit is known.
package sysmem
