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
