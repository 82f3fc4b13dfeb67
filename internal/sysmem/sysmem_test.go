package sysmem

import (
	"os"
	"path/filepath"
	"testing"
)

// The readers of meminfo (MemAvailable, or MemFree on old kernels) and of
// the cgroup v2 hierarchy (the least over the group and its parents of
// memory.max less memory.current, page cache counted free; nothing for
// cgroup v1), on files written here.
func TestProbes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mi := write("meminfo", "MemTotal:       16000000 kB\nMemFree:          100000 kB\nMemAvailable:    8000000 kB\n")
	if got := memAvailable(mi); got != 8000000*1024 {
		t.Errorf("MemAvailable: %d", got)
	}
	old := write("meminfo.old", "MemTotal:       16000000 kB\nMemFree:          100000 kB\n")
	if got := memAvailable(old); got != 100000*1024 {
		t.Errorf("MemFree: %d", got)
	}
	// cgroup v2: the job's group has 4 GiB, uses 3 GiB of which 1 GiB is
	// page cache; its parent has 8 GiB and no use to speak of.
	root := filepath.Join(dir, "cg")
	self := write("self-cgroup", "0::/user/job\n")
	write("cg/user/job/memory.max", "4294967296\n")
	write("cg/user/job/memory.current", "3221225472\n")
	write("cg/user/job/memory.stat", "anon 2147483648\nfile 1073741824\n")
	write("cg/user/memory.max", "8589934592\n")
	write("cg/user/memory.current", "0\n")
	write("cg/memory.max", "max\n")
	got, where := cgroupAvailable(self, root)
	if got != 2<<30 || where != "/user/job" {
		t.Errorf("cgroup: %d at %q, want 2 GiB at /user/job", got, where)
	}
	write("cg/user/memory.current", "7516192768\n") // the parent: 1 GiB left
	if got, where := cgroupAvailable(self, root); got != 1<<30 || where != "/user" {
		t.Errorf("cgroup: %d at %q, want 1 GiB at /user", got, where)
	}
	if got, _ := cgroupAvailable(write("v1", "4:memory:/x\n"), root); got != 0 {
		t.Errorf("cgroup v1 only: %d", got)
	}
}
