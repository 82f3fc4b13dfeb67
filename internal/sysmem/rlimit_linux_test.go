//go:build linux

package sysmem

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A soft RLIMIT_DATA bounds the default budget: the limit less the data
// segment in use, read from the status file.
func TestRlimitAvailable(t *testing.T) {
	status := filepath.Join(t.TempDir(), "status")
	os.WriteFile(status, []byte("Name:\tmanifold\nVmSize:\t 2000000 kB\nVmData:\t  300000 kB\n"), 0o600)
	if got := statusKB(status, "VmData"); got != 300000*1024 {
		t.Fatalf("VmData: %d", got)
	}
	if got := statusKB(status, "VmRSS"); got != 0 {
		t.Fatalf("absent field: %d", got)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_DATA, &old); err != nil {
		t.Skipf("getrlimit: %v", err)
	}
	const soft = 64 << 30
	if old.Max != ^uint64(0) && old.Max < soft {
		t.Skipf("the hard data limit %d is below 64 GiB", old.Max)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: soft, Max: old.Max}); err != nil {
		t.Skipf("setrlimit: %v", err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_DATA, &old)
	got, src := rlimitAvailable(status)
	if src != "rlimit data" || got != soft-300000*1024 {
		t.Errorf("rlimitAvailable: %d (%s), want %d (rlimit data)", got, src, int64(soft-300000*1024))
	}
	if avail, _ := Available(); avail > soft {
		t.Errorf("Available %d above the 64 GiB data limit", avail)
	}
}
