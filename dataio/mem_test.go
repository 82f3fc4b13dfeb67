package dataio

import "runtime"

// runtimeMem reads the cumulative bytes allocated by the process.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}
