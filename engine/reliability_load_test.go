package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
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

// TestLoadHugeValues: checksum-valid files holding values no fit produces
// (1e308 in the triangulation or the graph, 1e200 in the training data) are
// refused by Load, so they never reach Transform.
func TestLoadHugeValues(t *testing.T) {
	ctx := context.Background()
	x, labels := relData(30, 3, 3)
	for _, m := range relMethods {
		good, h, off := savedFile(t, ctx, m, x, labels, relCase{})
		for _, a := range h.Floats {
			n := a.Rows * a.Cols
			if n == 0 {
				continue
			}
			for _, v := range []float64{1e308, -1e200, 2e154} {
				if squaredArrays[a.Name] && math.Abs(v) < maxModelSquared {
					continue
				}
				b := append([]byte(nil), good...)
				binary.LittleEndian.PutUint64(b[off+8*(n-1):], math.Float64bits(v))
				binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
				l, err := Load(bytes.NewReader(b))
				if l != nil || !errors.Is(err, ErrModelFile) || !strings.Contains(err.Error(), "no fit produces") {
					t.Errorf("%s, %g in %q: model %v, error %v", m.name, v, a.Name, l != nil, err)
				}
			}
			off += 8 * n
		}
		// The file as saved loads and maps its training data finitely.
		l, err := Load(bytes.NewReader(good))
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		y, err := l.Transform(ctx, x)
		if errors.Is(err, ErrNoTransform) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		if !allFinite(y) {
			t.Errorf("%s: Transform of the training data is not finite", m.name)
		}
	}
}

func allFinite(y *mat.Dense) bool {
	r, c := y.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := y.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
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

// Index arrays (graph columns and row pointers, kept and dropped points,
// landmarks, nonzero coefficients) holding an index no fit produces —
// negative, or past the arrays they index — are refused by Load with
// ErrModelFile, for every method: never a panic or a NaN in Transform.
// LDA's class values are labels, any integer: a changed one must still
// load and map finitely.
func TestLoadBadIndices(t *testing.T) {
	ctx := context.Background()
	x, labels := relData(30, 3, 3)
	cases := 0
	// Each method at its defaults, and the graph methods with approximate
	// neighbours (whose models keep neighbour lists).
	type variant struct {
		m relMethod
		c relCase
	}
	var variants []variant
	for _, m := range relMethods {
		variants = append(variants, variant{m, relCase{}})
		if m.k {
			variants = append(variants, variant{m, relCase{Options: Options{Neighbors: Neighbors{Search: NeighborsApprox}}}})
		}
	}
	for _, v := range variants {
		m, c := v.m, v.c
		good, h, off := savedFile(t, ctx, m, x, labels, c)
		for _, a := range h.Floats {
			off += 8 * a.Rows * a.Cols
		}
		for _, a := range h.Ints {
			n := a.Rows * a.Cols
			for _, at := range []int{0, n - 1} {
				if n == 0 {
					break
				}
				for _, v := range []int64{-1, -1 << 40, 1 << 40, 1000} {
					b := append([]byte(nil), good...)
					binary.LittleEndian.PutUint64(b[off+8*at:], uint64(v))
					binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
					cases++
					what := fmt.Sprintf("%s, %q[%d] = %d", m.name, a.Name, at, v)
					l, y, err := loadAndMap(ctx, b, x)
					switch {
					case a.Name == "classes":
						if err != nil && !errors.Is(err, ErrModelFile) {
							t.Errorf("%s: %v", what, err)
						}
						if err == nil && y != nil && !allFinite(y) {
							t.Errorf("%s: Transform is not finite", what)
						}
					case l != nil || !errors.Is(err, ErrModelFile):
						t.Errorf("%s: loaded %v, error %v; want ErrModelFile", what, l != nil, err)
					}
				}
			}
			off += 8 * n
		}
	}
	t.Logf("%d crafted index arrays", cases)
}

// loadAndMap loads b and, if it loads, maps x; a panic is an error.
func loadAndMap(ctx context.Context, b []byte, x mat.Matrix) (l Model, y *mat.Dense, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	l, err = Load(bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	y, err = l.Transform(ctx, x)
	if errors.Is(err, ErrNoTransform) {
		err = nil
	}
	return l, y, err
}

// savedFile fits m, saves the model and returns the file, its header and
// the offset of its first array, for tests that forge model files.
func savedFile(t *testing.T, ctx context.Context, m relMethod, x mat.Matrix, labels []int, c relCase) ([]byte, modelHeader, int) {
	t.Helper()
	mod, err := relFit(ctx, m, x, c, labels)
	if err != nil {
		t.Fatalf("%s: %v", m.name, err)
	}
	var buf bytes.Buffer
	if err := mod.Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	hl := int(binary.LittleEndian.Uint32(good[12:16]))
	var h modelHeader
	if err := json.Unmarshal(good[16:16+hl], &h); err != nil {
		t.Fatal(err)
	}
	return good, h, 16 + hl
}
