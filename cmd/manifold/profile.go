package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

// profiles holds the -cpuprofile and -memprofile outputs of one run. CPU
// samples carry the pprof labels the engine sets on every stage
// (stage=<name>) and the command's own stages (read-input, write-output,
// plot), so `go tool pprof -tags` and -tagfocus see them. Go's heap
// profiles carry no labels; the report's bytes_allocated per stage says
// what each stage allocated.
type profiles struct {
	cpu     *os.File
	memPath string
}

// startProfiles starts the CPU profile when cpuPath is set.
func startProfiles(cpuPath, memPath string) (*profiles, error) {
	p := &profiles{memPath: memPath}
	if cpuPath == "" {
		return p, nil
	}
	f, err := os.Create(cpuPath)
	if err != nil {
		return nil, fileErr(cpuPath, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(cpuPath)
		return nil, fileErr(cpuPath, err)
	}
	p.cpu = f
	return p, nil
}

// stop ends the CPU profile and writes the heap profile.
func (p *profiles) stop() error {
	var first error
	if p.cpu != nil {
		pprof.StopCPUProfile()
		if err := p.cpu.Close(); err != nil {
			first = fileErr(p.cpu.Name(), err)
		}
	}
	if p.memPath != "" {
		runtime.GC() // the heap profile shows live data as of the last GC
		err := writeFile(p.memPath, func(f *os.File) error { return pprof.Lookup("heap").WriteTo(f, 0) })
		if first == nil {
			first = err
		}
	}
	return first
}
