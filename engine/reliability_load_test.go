package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// zeroReader is an endless stream of zero bytes, as /dev/zero.
type zeroReader struct{ n int64 }

func (z *zeroReader) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

// craftedModel returns a checksum-valid model file with the given header
// and payload.
func craftedModel(header string, payload []byte) []byte {
	b := []byte(modelMagic)
	b = binary.LittleEndian.AppendUint32(b, modelFormatVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(header)))
	b = append(b, header...)
	b = append(b, payload...)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// TestLoadBounded: Load reads the header before the arrays, so a device, a
// forged size or a stream that never ends costs a few bytes, not memory.
func TestLoadBounded(t *testing.T) {
	// /dev/zero: no magic, after 16 bytes.
	z := &zeroReader{}
	if _, err := Load(z); !errors.Is(err, ErrModelFile) || !strings.Contains(err.Error(), "magic") {
		t.Fatalf("zeros: %v", err)
	}
	if z.n > 1<<16 {
		t.Errorf("read %d bytes of zeros", z.n)
	}
	if f, err := os.Open("/dev/zero"); err == nil {
		start := time.Now()
		_, err := Load(f)
		f.Close()
		if !errors.Is(err, ErrModelFile) || time.Since(start) > time.Second {
			t.Errorf("/dev/zero: %v after %v", err, time.Since(start))
		}
	}
	// A header declaring 10¹² floats, then zeros forever: refused by the
	// budget before any array is allocated.
	hdr := `{"format":1,"method":"pca","floats":[{"name":"mean","rows":1000000,"cols":1000000}]}`
	stream := io.MultiReader(bytes.NewReader(craftedModel(hdr, nil)[:16+len(hdr)]), &zeroReader{})
	_, err := LoadCtx(context.Background(), stream, LoadOptions{MaxBytes: 1 << 30})
	if !errors.Is(err, ErrMemoryBudget) || !strings.Contains(err.Error(), "7.28 TiB, more than the budget of 1.00 GiB") {
		t.Fatalf("forged size from a stream: %v", err)
	}
	// The same header in a regular file: the file cannot hold it.
	path := filepath.Join(t.TempDir(), "forged.model")
	if err := os.WriteFile(path, craftedModel(hdr, make([]byte, 64)), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Load(f); !errors.Is(err, ErrModelFile) || !strings.Contains(err.Error(), "the file holds 64: truncated") {
		t.Fatalf("forged size in a file: %v", err)
	}
	// Overflowing sizes.
	hdr = `{"format":1,"method":"pca","floats":[{"name":"a","rows":4611686018427387904,"cols":4}]}`
	if _, err := Load(bytes.NewReader(craftedModel(hdr, nil))); !errors.Is(err, ErrModelFile) || !strings.Contains(err.Error(), "does not fit any file") {
		t.Fatalf("overflowing size: %v", err)
	}
	// A stream within budget that ends early: truncated.
	hdr = `{"format":1,"method":"pca","floats":[{"name":"mean","rows":1,"cols":1000}]}`
	stream = io.MultiReader(bytes.NewReader(craftedModel(hdr, nil)[:16+len(hdr)]), bytes.NewReader(make([]byte, 800)))
	if _, err := Load(stream); !errors.Is(err, ErrModelFile) || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("short stream: %v", err)
	}
	// Cancelled: ctx's error, nothing else.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LoadCtx(ctx, &zeroReader{}, LoadOptions{}); !errors.Is(err, context.Canceled) || errors.Is(err, ErrModelFile) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestAvailableMemory(t *testing.T) {
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
	if got := budgetFrom(1000); got != 850 {
		t.Errorf("budget of 1000 bytes: %d", got)
	}
	// This machine: something, and DefaultMaxBytes below it.
	m := AvailableMemory()
	t.Logf("available: %s (%s), default budget %s", fmtBytes(m.Available), m.Source, fmtBytes(DefaultMaxBytes()))
	if _, err := os.Stat("/proc/meminfo"); err == nil && (m.Available <= 0 || DefaultMaxBytes() >= m.Available) {
		t.Errorf("available %d, default budget %d", m.Available, DefaultMaxBytes())
	}
}
