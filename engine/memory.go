package engine

import "github.com/manifoldlab/manifold/internal/sysmem"

// Memory the machine has for a fit, for a default budget. A process that
// allocates past what the machine or its control group has is killed (by
// the kernel's OOM killer, or by the Go runtime's "fatal error: out of
// memory" with exit status 2) instead of getting an error; a budget taken
// from what is actually there turns that into ErrMemoryBudget.

// DefaultBudgetMargin is the part of the available memory the default
// budget leaves out: the other allocations of the process (its input, the
// Go runtime's heap growth between collections) and of the machine.
const DefaultBudgetMargin = 0.15

// Memory is what AvailableMemory found.
type Memory struct {
	// Available is the bytes a new allocation can take: the least of
	// MemAvailable in /proc/meminfo (MemFree plus reclaimable caches),
	// the control group's memory.max less its use (cgroup v2, this
	// process's group and every parent), the resource limits RLIMIT_DATA
	// and RLIMIT_AS less what the process uses of them (Linux), and the Go
	// runtime's soft limit
	// (GOMEMLIMIT or debug.SetMemoryLimit) when one is set. 0 when none of
	// them could be read.
	Available int64
	// Source names the bound that gave Available: "meminfo", "cgroup
	// /path", "rlimit data", "rlimit address space", "GOMEMLIMIT" or ""
	// when none was found.
	Source string
}

// AvailableMemory reads the memory this process could allocate now (see
// Memory; internal/sysmem reads it). It costs a few small file reads
// (Linux); elsewhere only the Go runtime's limit is known.
func AvailableMemory() Memory {
	avail, src := sysmem.Available()
	return Memory{Available: avail, Source: src}
}

// DefaultMaxBytes is the budget a fit gets when none is given: the
// available memory (AvailableMemory) less DefaultBudgetMargin, or 0 (no
// budget) when the available memory cannot be read.
func DefaultMaxBytes() int64 {
	return budgetFrom(AvailableMemory().Available)
}

func budgetFrom(avail int64) int64 {
	if avail <= 0 {
		return 0
	}
	return int64(float64(avail) * (1 - DefaultBudgetMargin))
}
