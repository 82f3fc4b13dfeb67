package sysmem

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// Available returns the bytes a new allocation of this process can take
// now and the bound that gave them: the least of MemAvailable in
// /proc/meminfo ("meminfo"), the control group's memory.max less its use
// (cgroup v2, this process's group and every parent: "cgroup /path"), the
// resource limits RLIMIT_DATA and RLIMIT_AS less what the process uses of
// them (Linux: "rlimit data", "rlimit address space"), and the Go
// runtime's soft limit ("GOMEMLIMIT") when one is set. 0 and "" when none
// of them could be read.
func Available() (int64, string) {
	best, source := int64(0), ""
	take := func(v int64, src string) {
		if v > 0 && (best == 0 || v < best) {
			best, source = v, src
		}
	}
	take(memAvailable("/proc/meminfo"), "meminfo")
	if v, path := cgroupAvailable("/proc/self/cgroup", "/sys/fs/cgroup"); v > 0 {
		take(v, "cgroup "+path)
	}
	if v, src := rlimitAvailable("/proc/self/status"); v > 0 {
		take(v, src)
	}
	if lim := debug.SetMemoryLimit(-1); lim > 0 && lim < math.MaxInt64 {
		take(lim, "GOMEMLIMIT")
	}
	return best, source
}

// memAvailable reads MemAvailable (MemFree on kernels before 3.14) from a
// meminfo file, in bytes; 0 when absent.
func memAvailable(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	fields := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 {
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil && v >= 0 && v < math.MaxInt64/1024 {
				fields[strings.TrimSuffix(f[0], ":")] = v * 1024 // kB
			}
		}
	}
	if v, ok := fields["MemAvailable"]; ok {
		return v
	}
	return fields["MemFree"]
}

// cgroupAvailable returns what the cgroup v2 groups of this process leave
// to it: the least, over its group and every parent with a limit, of
// memory.max less memory.current, where the page cache (the "file" line of
// memory.stat), which the kernel reclaims before it kills, counts as free.
// It returns 0 when no group has a limit.
func cgroupAvailable(self, root string) (int64, string) {
	b, err := os.ReadFile(self)
	if err != nil {
		return 0, ""
	}
	var rel string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "0::") { // the unified hierarchy
			rel = strings.TrimPrefix(line, "0::")
		}
	}
	if rel == "" {
		return 0, ""
	}
	best, where := int64(0), ""
	for dir := filepath.Join(root, rel); strings.HasPrefix(dir, root); dir = filepath.Dir(dir) {
		limit := readInt(filepath.Join(dir, "memory.max"))
		if limit > 0 {
			used := readInt(filepath.Join(dir, "memory.current")) - statField(filepath.Join(dir, "memory.stat"), "file")
			avail := max(limit-max(used, 0), 0)
			if where == "" || avail < best {
				best, where = avail, strings.TrimPrefix(dir, root)
				if where == "" {
					where = "/"
				}
			}
		}
		if dir == root {
			break
		}
	}
	if where == "" {
		return 0, ""
	}
	return max(best, 1), where
}

// readInt reads a file holding one integer ("max" and errors give 0).
func readInt(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	v, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// statField reads "name value" from a memory.stat file; 0 when absent.
func statField(path, name string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), " ")
		if ok && k == name {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil && n >= 0 {
				return n
			}
		}
	}
	return 0
}

// statusKB reads a "Name:   123 kB" field of a /proc/PID/status file, in
// bytes; 0 when absent.
func statusKB(path, name string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || k != name {
			continue
		}
		f := strings.Fields(v)
		if len(f) >= 1 {
			if n, err := strconv.ParseInt(f[0], 10, 64); err == nil && n >= 0 && n < math.MaxInt64/1024 {
				return n * 1024
			}
		}
	}
	return 0
}
